// legacy_mpi1.c - proves the MPI-1 names removed in MPI-3.0 work across a
// restart through the layer: datatypes made by MPI_Type_struct (from
// MPI_Address displacements), MPI_Type_hvector and MPI_Type_hindexed carry
// the messages of every iteration, MPI_Type_extent/lb/ub report their
// bounds before and after the checkpoints, and MPI_Errhandler_set(...,
// MPI_ERRORS_RETURN) still holds after a restart: an invalid call at the end
// returns an error class instead of aborting. Without the layer's legacy
// wrappers these calls reach MPI with ccc handles (wrong bounds, invalid
// datatype errors).
//   usage: legacy_mpi1 ITERATIONS   (at least 2 ranks)
// Rank 0 prints the bounds, the error class and a hash of all it received.
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0 // Open MPI: declare the MPI-1 names

#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Particle {
  int Pad; // not sent: the type map starts at Id, so its lb is 4
  int Id;
  double X[3];
  char Tag;
};

enum { N = 8 };

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

// Appends the bounds of T to Out (static: the text made before the
// checkpoints is in the image, printed at the end).
static char Before[512], After[512];
static void bounds(char *Out, const char *Name, MPI_Datatype T) {
  MPI_Aint Extent = -1, Lb = -1, Ub = -1;
  int E1 = MPI_Type_extent(T, &Extent);
  int E2 = MPI_Type_lb(T, &Lb);
  int E3 = MPI_Type_ub(T, &Ub);
  size_t N = strlen(Out);
  snprintf(Out + N, 512 - N, "%s: extent %ld lb %ld ub %ld (errors %d %d %d)\n",
           Name, (long)Extent, (long)Lb, (long)Ub, E1, E2, E3);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  // Early keeps MPI's default handler, Late inherits MPI_ERRORS_RETURN
  // (a restart must set it again between re-creating the two).
  MPI_Comm Early, Late;
  MPI_Comm_dup(MPI_COMM_WORLD, &Early);
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &Late);

  // The particle type: Id, X and Tag, from MPI_Address differences.
  static struct Particle P[N], Q[N];
  MPI_Aint Base, A[3];
  MPI_Address(&P[0], &Base);
  MPI_Address(&P[0].Id, &A[0]);
  MPI_Address(&P[0].X[0], &A[1]);
  MPI_Address(&P[0].Tag, &A[2]);
  for (int I = 0; I < 3; ++I)
    A[I] -= Base;
  int Blocks[3] = {1, 3, 1};
  MPI_Datatype Types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, Part, Every2, Xs;
  MPI_Type_struct(3, Blocks, A, Types, &Part);
  MPI_Type_commit(&Part);
  // Every other particle, and X[0], X[2] of one particle.
  MPI_Type_hvector(N / 2, 1, 2 * sizeof(struct Particle), Part, &Every2);
  MPI_Type_commit(&Every2);
  int XBlocks[2] = {1, 1};
  MPI_Aint XDispls[2] = {8, 24};
  MPI_Type_hindexed(2, XBlocks, XDispls, MPI_DOUBLE, &Xs);
  MPI_Type_commit(&Xs);
  bounds(Before, "struct", Part);
  bounds(Before, "hvector", Every2);
  bounds(Before, "hindexed", Xs);

  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  uint64_t Hash = 0;
  for (long It = 0; It < Iters; ++It) {
    for (int I = 0; I < N; ++I) {
      P[I].Id = (int)(It * N + I + Rank);
      for (int K = 0; K < 3; ++K)
        P[I].X[K] = (double)(It + I) * 0.5 + K + Rank;
      P[I].Tag = (char)('a' + (It + I) % 26);
    }
    MPI_Sendrecv(P, 1, Every2, Next, 1, Q, N / 2, Part, Prev, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double Two[2];
    MPI_Sendrecv(&P[It % N], 1, Xs, Next, 2, Two, 2, MPI_DOUBLE, Prev, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int I = 0; I < N / 2; ++I)
      Hash = mix64(Hash ^ (uint64_t)Q[I].Id ^ (uint64_t)Q[I].Tag << 32 ^
                   (uint64_t)(Q[I].X[0] + 3 * Q[I].X[1] + 7 * Q[I].X[2]));
    Hash = mix64(Hash ^ (uint64_t)(Two[0] * 4 + Two[1]));
    ccc_checkpoint();
  }

  // Still MPI_ERRORS_RETURN after a restart: an error code, no abort.
  MPI_Aint Null;
  int Err = MPI_Type_extent(MPI_DATATYPE_NULL, &Null), Class = -1;
  MPI_Error_class(Err, &Class);
  MPI_Errhandler E, EEarly, ELate;
  MPI_Errhandler_get(MPI_COMM_WORLD, &E);
  MPI_Errhandler_get(Early, &EEarly);
  MPI_Errhandler_get(Late, &ELate);
  uint64_t All = 0;
  MPI_Reduce(&Hash, &All, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  bounds(After, "struct", Part);
  bounds(After, "hvector", Every2);
  bounds(After, "hindexed", Xs);
  if (Rank == 0) {
    printf("before the checkpoints:\n%safter:\n%s", Before, After);
    printf("extent of MPI_DATATYPE_NULL: %s; errhandler %s\n",
           Class == MPI_ERR_TYPE ? "MPI_ERR_TYPE" : "another error",
           E == MPI_ERRORS_RETURN ? "MPI_ERRORS_RETURN" : "another");
    printf("errhandler of a dup made before: %s, after: %s\n",
           EEarly == MPI_ERRORS_ARE_FATAL ? "MPI_ERRORS_ARE_FATAL" : "another",
           ELate == MPI_ERRORS_RETURN ? "MPI_ERRORS_RETURN" : "another");
    printf("hash %016llx\n", (unsigned long long)All);
  }
  MPI_Type_free(&Xs);
  MPI_Type_free(&Every2);
  MPI_Type_free(&Part);
  MPI_Comm_free(&Late);
  MPI_Comm_free(&Early);
  MPI_Finalize();
  return 0;
}
