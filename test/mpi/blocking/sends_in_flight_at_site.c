// sends_in_flight_at_site.c - proves the blocking protocol (every rank
// checkpoints at the same collective site) restores a job whose messages
// were in flight at the site: a blocking send whose receive comes after the
// site (drained and delivered after restart), receive requests posted
// before the site and completed after it (posted again after restart), on
// a duplicated communicator and a split one, with a derived datatype, and
// collectives (Allreduce, Bcast) between sites.
//
// Usage: sends_in_flight_at_site ITERATIONS   (any number of ranks >= 2)
// Output (rank 0): a hash of the reductions and the first value, bit-exact.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Iters = argc > 1 ? atol(argv[1]) : 1000;
  MPI_Comm Ring, Half;
  MPI_Comm_dup(MPI_COMM_WORLD, &Ring);
  MPI_Comm_split(MPI_COMM_WORLD, Rank % 2, -Rank, &Half);
  MPI_Datatype Pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &Pair);
  MPI_Type_commit(&Pair);
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  int HalfRank, HalfSize;
  MPI_Comm_rank(Half, &HalfRank);
  MPI_Comm_size(Half, &HalfSize);

  double *A = malloc(N * sizeof(double)), *B = malloc(N * sizeof(double));
  for (int I = 0; I < N; ++I)
    A[I] = Rank + I * 1e-3;
  uint64_t Hash = 0, Token = (uint64_t)Rank, InToken;
  for (long It = 0; It < Iters; ++It) {
    MPI_Request Q[2];
    MPI_Irecv(B, N / 2, Pair, Prev, 7, Ring, &Q[0]);
    MPI_Isend(A, N / 2, Pair, Next, 7, Ring, &Q[1]);
    // Small enough to complete before its receive is posted.
    MPI_Send(&Token, 1, MPI_UINT64_T, Next, 8, MPI_COMM_WORLD);
    ccc_checkpoint(); // both messages may be in flight here
    MPI_Recv(&InToken, 1, MPI_UINT64_T, Prev, 8, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Waitall(2, Q, MPI_STATUSES_IGNORE);
    Token = Token * 6364136223846793005ULL + InToken;
    for (int I = 0; I < N; ++I)
      A[I] = A[I] * 0.5 + B[I] * 0.5 + 1e-9 * (double)It;
    double S = 0, T;
    for (int I = 0; I < N; ++I)
      S += A[I];
    MPI_Allreduce(&S, &T, 1, MPI_DOUBLE, MPI_SUM, Ring);
    double Lead = T * (1 + HalfRank);
    MPI_Bcast(&Lead, 1, MPI_DOUBLE, 0, Half);
    Hash = Hash * 31 + (uint64_t)(T * 1e6) + (uint64_t)(Lead * 10) + Token;
  }
  uint64_t All;
  MPI_Reduce(&Hash, &All, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("ranks %d hash %016llx a0 %a\n", Size, (unsigned long long)All,
           A[0]);
  MPI_Type_free(&Pair);
  MPI_Comm_free(&Half);
  MPI_Comm_free(&Ring);
  MPI_Finalize();
  return 0;
}
