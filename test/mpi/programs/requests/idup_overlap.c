// idup_overlap.c - communicators duplicated without blocking, as a library
// does while the program computes. Every iteration starts MPI_Comm_idup of
// MPI_COMM_WORLD (every third one of a row communicator from
// MPI_Comm_split; every fifth, of a duplicate made before the loop),
// computes, reaches ccc_checkpoint() with the duplication open, completes
// it (MPI_Wait, or an MPI_Test loop, in turn) and uses the new
// communicator: an MPI_Allreduce of the state and a ring exchange by
// MPI_Sendrecv. The previous iteration's communicator is then released by
// MPI_Comm_disconnect (by MPI_Comm_free every fourth iteration). Under
// MPICH every seventh duplication is MPI_Comm_idup_with_info (MPI-4.0),
// with an info object made before the loop. A restart from any checkpoint
// has a duplication open at it on every rank.
//   usage: idup_overlap ITERATIONS   (any rank count)
// Rank 0 prints the hash of every value received and its final state.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { K = 64 };

static uint64_t Hash;

static void mix(const void *P, size_t N) {
  const unsigned char *B = P;
  for (size_t I = 0; I < N; ++I)
    Hash = (Hash ^ B[I]) * 0x100000001b3ULL;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int R, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  MPI_Comm Row, Early;
  MPI_Comm_split(MPI_COMM_WORLD, R % 2, P - R, &Row);
  MPI_Comm_dup(MPI_COMM_WORLD, &Early);
#ifdef MPICH
  MPI_Info Info;
  MPI_Info_create(&Info);
  MPI_Info_set(Info, "mpi_assert_no_any_tag", "false");
#endif
  double X[K], Sum[K], Left[K];
  for (int I = 0; I < K; ++I)
    X[I] = 1.0 / (R + I + 1);
  Hash = 0xcbf29ce484222325ULL;
  MPI_Comm Prev = MPI_COMM_NULL;
  for (long It = 0; It < Iters; ++It) {
    MPI_Comm Parent = It % 3 == 0 ? Row : It % 5 == 0 ? Early : MPI_COMM_WORLD;
    MPI_Comm New;
    MPI_Request Q;
#ifdef MPICH
    if (It % 7 == 6)
      MPI_Comm_idup_with_info(Parent, Info, &New, &Q);
    else
#endif
      MPI_Comm_idup(Parent, &New, &Q);
    for (int I = 0; I < K; ++I) // overlapped with the duplication
      X[I] = X[I] * 0.75 + 0.25 / (I + It % 7 + 1);
    ccc_checkpoint();
    if (It % 2) {
      MPI_Wait(&Q, MPI_STATUS_IGNORE);
    } else {
      int Done = 0;
      while (!Done)
        MPI_Test(&Q, &Done, MPI_STATUS_IGNORE);
    }
    int NR, NP;
    MPI_Comm_rank(New, &NR);
    MPI_Comm_size(New, &NP);
    MPI_Allreduce(X, Sum, K, MPI_DOUBLE, MPI_SUM, New);
    MPI_Sendrecv(X, K, MPI_DOUBLE, (NR + 1) % NP, 7, Left, K, MPI_DOUBLE,
                 (NR + NP - 1) % NP, 7, New, MPI_STATUS_IGNORE);
    mix(Sum, sizeof(Sum));
    mix(Left, sizeof(Left));
    for (int I = 0; I < K; ++I)
      X[I] = 0.5 * X[I] + 0.25 * Left[I] + 0.25 * Sum[I] / NP;
    if (Prev != MPI_COMM_NULL) {
      if (It % 4 == 0)
        MPI_Comm_free(&Prev);
      else
        MPI_Comm_disconnect(&Prev);
    }
    Prev = New;
  }
  MPI_Comm_disconnect(&Prev);
  MPI_Comm_free(&Early);
#ifdef MPICH
  MPI_Info_free(&Info);
#endif
  MPI_Comm_free(&Row);
  uint64_t All[64];
  MPI_Gather(&Hash, 1, MPI_UINT64_T, All, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (R == 0) {
    for (int Q = 0; Q < P && Q < 64; ++Q)
      printf("rank %d hash %016llx\n", Q, (unsigned long long)All[Q]);
    printf("x[0] %a x[%d] %a\n", X[0], K - 1, X[K - 1]);
  }
  MPI_Finalize();
  return 0;
}
