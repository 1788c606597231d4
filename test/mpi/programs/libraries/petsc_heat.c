// petsc_heat.c - implicit heat equation with PETSc, as such codes are
// written: PetscInitialize, the matrix, the vectors and a KSP solver
// (conjugate gradients, Jacobi preconditioner) built once before the time
// loop, one solve per step. PETSc's objects and registries live in PETSc's
// globals and the heap it allocates, its communicators are duplicates it
// keeps in attributes: all of it must come back with a restart, and
// PetscFinalize must still find its objects at the end.
//   usage: petsc_heat STEPS [N]
#include "ccc.h"

#include <petscksp.h>

int main(int argc, char **argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  long Steps = argc > 1 ? atol(argv[1]) : 100;
  PetscInt N = argc > 2 ? atol(argv[2]) : 2000;
  PetscMPIInt Rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &Rank);

  Mat A;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscInt Lo, Hi;
  PetscCall(MatGetOwnershipRange(A, &Lo, &Hi));
  const PetscScalar Dt = 0.5;
  for (PetscInt Row = Lo; Row < Hi; ++Row) {
    if (Row > 0)
      PetscCall(MatSetValue(A, Row, Row - 1, -Dt, INSERT_VALUES));
    PetscCall(MatSetValue(A, Row, Row, 1 + 2 * Dt, INSERT_VALUES));
    if (Row < N - 1)
      PetscCall(MatSetValue(A, Row, Row + 1, -Dt, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  Vec U, Rhs;
  PetscCall(MatCreateVecs(A, &U, &Rhs));
  for (PetscInt Row = Lo; Row < Hi; ++Row)
    PetscCall(VecSetValue(U, Row, (Row % 37) * 0.1, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(U));
  PetscCall(VecAssemblyEnd(U));

  KSP Ksp;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &Ksp));
  PetscCall(KSPSetOperators(Ksp, A, A));
  PetscCall(KSPSetType(Ksp, KSPCG));
  PC Pc;
  PetscCall(KSPGetPC(Ksp, &Pc));
  PetscCall(PCSetType(Pc, PCJACOBI));
  PetscCall(KSPSetTolerances(Ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSetFromOptions(Ksp));

  PetscInt Iterations = 0, Most = 0;
  PetscReal Norm = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    PetscCall(VecCopy(U, Rhs));
    PetscCall(VecShift(Rhs, 0.001));
    PetscCall(KSPSolve(Ksp, Rhs, U));
    PetscInt It;
    PetscCall(KSPGetIterationNumber(Ksp, &It));
    Iterations += It;
    PetscCall(VecNorm(U, NORM_2, &Norm));
    Most = It > Most ? It : Most;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "iterations %d (at most %d a step) norm %.12e\n",
                        (int)Iterations, (int)Most, (double)Norm));
  PetscCall(KSPDestroy(&Ksp));
  PetscCall(VecDestroy(&U));
  PetscCall(VecDestroy(&Rhs));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
