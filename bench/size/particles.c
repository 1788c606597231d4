// particles.c - molecular dynamics of a binary repulsive (WCA) fluid,
// linked cells, one periodic box per rank (an ensemble) held at a common
// temperature by a velocity-rescaling thermostat on the global kinetic
// energy (bench/size).
//
// At the site: the particles (structs on the heap: position, velocity, id,
// species, count of close encounters) are live; the cell lists (a head per
// cell, a next per particle) are rebuilt and the forces recomputed every
// step before they are read: dead. usage: particles [MB per rank] [steps]
#include "moment.h"

#include <math.h>
#include <mpi.h>
#include <stdint.h>

typedef struct {
  double X[3];     // position in [0, L)
  double V[3];     // velocity (kick-drift leapfrog: at the half step)
  int64_t Id;      // global number; tracers: Id % 997 == 0
  int32_t Species; // 0: mass 1, 1: mass 2
  int32_t Hits;    // close encounters so far
} Particle;

// The cell of coordinate X in [0, L) among NC per side.
static long cellOf(double X, double InvCell, long NC) {
  long C = (long)(X * InvCell);
  return C < NC ? C : NC - 1;
}

// The nearest periodic image of D in a box of side L.
static double image(double D, double L) {
  if (D > 0.5 * L)
    return D - L;
  if (D < -0.5 * L)
    return D + L;
  return D;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  double MB = argc > 1 ? atof(argv[1]) : 120;
  long Steps = argc > 2 ? atol(argv[2]) : 40;
  // Literal constants (no libm call that gcc and clang might fold apart):
  // the cutoff 2^(1/6), the lattice spacing (density 0.79).
  const double Rc = 1.122462048309373, Lattice = 1.08, Dt = 0.004;
  const double Temp = 1.0, Tau = 0.1, Close2 = 0.95 * 0.95;
  // Per particle: the struct, a next index, a force, about one cell head.
  long M = (long)cbrt(MB * 1048576 / (sizeof(Particle) + 4 + 24 + 4));
  if (M < 4)
    M = 4;
  long N = M * M * M;
  double L = (double)M * Lattice;
  long NC = (long)(L / Rc), NCells = NC * NC * NC;
  double InvCell = (double)NC / L;
  Particle *Part = malloc(N * sizeof(Particle));
  int32_t *Head = malloc(NCells * sizeof(int32_t));
  int32_t *Next = malloc(N * sizeof(int32_t));
  double(*Force)[3] = malloc(N * sizeof(*Force));
  // The forces are recomputed every step before they are read, but through
  // the cell lists: no analysis sees that every particle gets one. The
  // author knows (BENCH_EXCLUDE=1: ccc_exclude).
  bench_exclude(Force, N * sizeof(*Force));
  for (long I = 0; I < N; ++I) {
    Particle *P = Part + I;
    long Site[3] = {I % M, I / M % M, I / (M * M)};
    P->Id = Rank * N + I;
    P->Species = P->Id % 4 == 0;
    P->Hits = 0;
    double Scale = sqrt(Temp / (P->Species ? 2.0 : 1.0));
    for (int K = 0; K < 3; ++K) {
      uint64_t G = 8 * (uint64_t)P->Id + K;
      P->X[K] = ((double)Site[K] + 0.5 + 0.1 * bench_noise(G)) * Lattice;
      P->V[K] = 3.4 * Scale * bench_noise(G + 3); // variance 3.4^2/12 ~ 1
    }
  }
  double Oracle = (double)N * sizeof(Particle);
  double Global[3] = {0, 0, 0}; // kinetic energy, potential, pairs
  for (long S = 0; S < Steps; ++S) {
    bench_live(Part, N * sizeof(Particle));
    bench_site(S, Rank, Oracle);
    for (long C = 0; C < NCells; ++C)
      Head[C] = -1;
    for (long I = 0; I < N; ++I) {
      const double *X = Part[I].X;
      long C = (cellOf(X[2], InvCell, NC) * NC + cellOf(X[1], InvCell, NC)) *
                   NC + cellOf(X[0], InvCell, NC);
      Next[I] = Head[C];
      Head[C] = (int32_t)I;
    }
    // Forces: every particle against the 27 cells around its own (each
    // pair seen from both sides).
    double Epot = 0;
    long Pairs = 0;
    for (long Cz = 0; Cz < NC; ++Cz)
      for (long Cy = 0; Cy < NC; ++Cy)
        for (long Cx = 0; Cx < NC; ++Cx)
          for (int32_t I = Head[(Cz * NC + Cy) * NC + Cx]; I >= 0;
               I = Next[I]) {
            Particle *P = Part + I;
            double F[3] = {0, 0, 0};
            for (int Dz = -1; Dz <= 1; ++Dz)
              for (int Dy = -1; Dy <= 1; ++Dy)
                for (int Dx = -1; Dx <= 1; ++Dx) {
                  long Nz = (Cz + Dz + NC) % NC, Ny = (Cy + Dy + NC) % NC;
                  long Nx = (Cx + Dx + NC) % NC;
                  for (int32_t J = Head[(Nz * NC + Ny) * NC + Nx]; J >= 0;
                       J = Next[J]) {
                    if (J == I)
                      continue;
                    double D[3], R2 = 0;
                    for (int K = 0; K < 3; ++K) {
                      D[K] = image(P->X[K] - Part[J].X[K], L);
                      R2 += D[K] * D[K];
                    }
                    if (R2 >= Rc * Rc)
                      continue;
                    double Ir2 = 1 / R2, Ir6 = Ir2 * Ir2 * Ir2;
                    double FOverR = 24 * Ir2 * Ir6 * (2 * Ir6 - 1);
                    for (int K = 0; K < 3; ++K)
                      F[K] += FOverR * D[K];
                    Epot += 0.5 * (4 * Ir6 * (Ir6 - 1) + 1);
                    ++Pairs;
                    if (R2 < Close2)
                      ++P->Hits;
                  }
                }
            for (int K = 0; K < 3; ++K)
              Force[I][K] = F[K];
          }
    // Kick, then the thermostat on the global kinetic energy, then drift.
    double Local[3] = {0, Epot, 0.5 * (double)Pairs};
    for (long I = 0; I < N; ++I) {
      Particle *P = Part + I;
      double Mass = P->Species ? 2.0 : 1.0;
      for (int K = 0; K < 3; ++K) {
        P->V[K] += Dt * Force[I][K] / Mass;
        Local[0] += 0.5 * Mass * P->V[K] * P->V[K];
      }
    }
    MPI_Allreduce(Local, Global, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double T = 2 * Global[0] / (3.0 * (double)N * Size);
    double Lambda = sqrt(1 + Dt / Tau * (Temp / T - 1));
    for (long I = 0; I < N; ++I) {
      Particle *P = Part + I;
      for (int K = 0; K < 3; ++K) {
        P->V[K] *= Lambda;
        double X = P->X[K] + Dt * P->V[K];
        P->X[K] = X >= L ? X - L : X < 0 ? X + L : X;
      }
    }
  }
  double Sum[2] = {0, 0}; // tracer coordinates, hits
  for (long I = 0; I < N; ++I) {
    if (Part[I].Id % 997 == 0)
      Sum[0] += Part[I].X[0] + Part[I].X[1] + Part[I].X[2];
    Sum[1] += Part[I].Hits;
  }
  MPI_Allreduce(MPI_IN_PLACE, Sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("particles: %ld per rank, %ld cells, T %.12e, epot %.12e, pairs "
           "%.0f, hits %.0f, tracers %.12e\n",
           N, NCells, 2 * Global[0] / (3.0 * (double)N * Size), Global[1],
           Global[2], Sum[1], Sum[0]);
  MPI_Finalize();
  return 0;
}
