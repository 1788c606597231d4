// halo_isend_irecv.c - proves nonblocking requests that are pending at a
// checkpoint complete correctly after a restart: a 2-D Jacobi-type stencil
// on a periodic NX x NY grid split into row blocks, whose halo rows move by
// MPI_Irecv/MPI_Isend. Every rank checkpoints after posting its four
// requests and before completing them, so halo messages are in flight (late)
// at every checkpoint. The requests are completed three ways in turn:
// MPI_Waitall; MPI_Waitany on the receives (each boundary row updated as its
// halo arrives) then MPI_Waitall on the sends; MPI_Test polling while the
// interior is updated (failed tests are counted in a variable never
// printed: that count depends on timing).
//   usage: halo_isend_irecv ITERATIONS   (at most NX/2 ranks)
// Rank 0 prints an XOR hash of the grid (same at every rank count) and the
// grid's sum (depends on the rank count), bit-exactly.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 512, NY = 512, TAG_UP = 10, TAG_DOWN = 11 };

// Rows 1..NLoc are ours, rows 0 and NLoc + 1 the halos; NY values a row.
static int NLoc;
static double *U, *UNew, *Src;
unsigned long TestFailures; // MPI_Test calls that found nothing: not printed

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

// A value in [0, 1) from the global position (so independent of the split).
static double unit(uint64_t Seed, long G, int J) {
  return (double)(mix64(Seed ^ ((uint64_t)G * NY + J)) >> 11) * 0x1p-53;
}

static void updateRow(int I) {
  const double *Up = U + (I - 1) * NY, *Mid = U + I * NY,
               *Down = U + (I + 1) * NY;
  double *Out = UNew + I * NY;
  const double *S = Src + I * NY;
  for (int J = 0; J < NY; ++J) {
    int JM = J == 0 ? NY - 1 : J - 1, JP = J == NY - 1 ? 0 : J + 1;
    Out[J] = 0.25 * (Up[J] + Down[J] + Mid[JM] + Mid[JP]) + S[J];
  }
}

// MPI_Test each receive not yet complete; update its boundary row if done.
static void pollRecvs(MPI_Request *Req, int *Done) {
  for (int K = 0; K < 2; ++K) {
    if (Done[K])
      continue;
    MPI_Test(&Req[K], &Done[K], MPI_STATUS_IGNORE);
    if (Done[K])
      updateRow(K == 0 ? 1 : NLoc);
    else
      ++TestFailures;
  }
}

// The three ways of completing the exchange; each updates every row.
static void finishWaitall(MPI_Request *Req) {
  for (int I = 2; I < NLoc; ++I)
    updateRow(I);
  MPI_Waitall(4, Req, MPI_STATUSES_IGNORE);
  updateRow(1);
  updateRow(NLoc);
}

static void finishWaitany(MPI_Request *Req) {
  for (int I = 2; I < NLoc; ++I)
    updateRow(I);
  for (int K = 0; K < 2; ++K) { // each boundary row as soon as its halo is in
    int Which;
    MPI_Waitany(2, Req, &Which, MPI_STATUS_IGNORE);
    updateRow(Which == 0 ? 1 : NLoc);
  }
  MPI_Waitall(2, Req + 2, MPI_STATUSES_IGNORE);
}

static void finishTest(MPI_Request *Req) {
  int Done[2] = {0, 0};
  for (int I = 2; I < NLoc; ++I) { // poll the receives now and then
    updateRow(I);
    if (I % 16 == 0)
      pollRecvs(Req, Done);
  }
  while (!Done[0] || !Done[1])
    pollRecvs(Req, Done);
  for (int K = 2; K < 4; ++K) { // then poll the sends
    int Flag;
    MPI_Test(&Req[K], &Flag, MPI_STATUS_IGNORE);
    for (; !Flag; MPI_Test(&Req[K], &Flag, MPI_STATUS_IGNORE))
      ++TestFailures;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  if (Size > NX / 2) {
    fprintf(stderr, "halo_isend_irecv: at most %d ranks\n", NX / 2);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  NLoc = NX / Size + (Rank < NX % Size);
  long Row0 = (long)Rank * (NX / Size) + (Rank < NX % Size ? Rank : NX % Size);
  int Up = (Rank + Size - 1) % Size, Down = (Rank + 1) % Size;

  size_t N = (size_t)(NLoc + 2) * NY;
  U = calloc(N, sizeof *U);
  UNew = calloc(N, sizeof *UNew);
  Src = calloc(N, sizeof *Src);
  for (int I = 1; I <= NLoc; ++I)
    for (int J = 0; J < NY; ++J) {
      U[I * NY + J] = unit(1, Row0 + I - 1, J);
      Src[I * NY + J] = 1e-3 * (unit(2, Row0 + I - 1, J) - 0.5);
    }

  for (long It = 0; It < Iters; ++It) {
    // Req[0], Req[1]: halo rows from above and below; Req[2], Req[3]: ours.
    MPI_Request Req[4];
    MPI_Irecv(U, NY, MPI_DOUBLE, Up, TAG_DOWN, MPI_COMM_WORLD, &Req[0]);
    MPI_Irecv(U + (NLoc + 1) * NY, NY, MPI_DOUBLE, Down, TAG_UP, MPI_COMM_WORLD,
              &Req[1]);
    MPI_Isend(U + NY, NY, MPI_DOUBLE, Up, TAG_UP, MPI_COMM_WORLD, &Req[2]);
    MPI_Isend(U + NLoc * NY, NY, MPI_DOUBLE, Down, TAG_DOWN, MPI_COMM_WORLD,
              &Req[3]);
    ccc_checkpoint(); // four requests pending, halos in flight

    switch (It % 3) {
    case 0:
      finishWaitall(Req);
      break;
    case 1:
      finishWaitany(Req);
      break;
    default:
      finishTest(Req);
    }
    double *T = U;
    U = UNew;
    UNew = T;
  }

  // Order-independent hash of (global position, value) pairs, and the sum.
  uint64_t Hash = 0;
  double Sum = 0;
  for (int I = 1; I <= NLoc; ++I)
    for (int J = 0; J < NY; ++J) {
      uint64_t Bits;
      memcpy(&Bits, &U[I * NY + J], sizeof Bits);
      Hash ^= mix64(Bits + mix64((uint64_t)(Row0 + I - 1) * NY + J));
      Sum += U[I * NY + J];
    }
  uint64_t GHash;
  double GSum;
  MPI_Reduce(&Hash, &GHash, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  MPI_Reduce(&Sum, &GSum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("halo_isend_irecv: %dx%d grid, ranks=%d iterations=%ld\n", NX, NY,
           Size, Iters);
    printf("grid hash %016llx\n", (unsigned long long)GHash);
    printf("grid sum %a\n", GSum);
  }
  free(U);
  free(UNew);
  free(Src);
  MPI_Finalize();
  return 0;
}
