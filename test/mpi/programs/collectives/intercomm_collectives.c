// intercomm_collectives.c - collectives on an inter-communicator across
// checkpoints, as two coupled models exchange fields: MPI_COMM_WORLD split
// into two unequal halves (at 3 ranks: 1 and 2, so a group's size differs
// from its remote group's), joined by MPI_Intercomm_create. Every step,
// on the inter-communicator: MPI_Bcast from the leader of one side to the
// other (the root's side passes MPI_ROOT and MPI_PROC_NULL), MPI_Reduce to
// the other side's leader, MPI_Allreduce, MPI_Gather and MPI_Scatter at a
// leader, MPI_Allgather, MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallw and
// MPI_Barrier; an MPI_Iallreduce and an MPI_Ibcast started before the
// first site of the step and completed after the blocking collectives. Every
// result feeds back into the state (integers: exact in any order).
//   usage: intercomm_collectives STEPS [same]
// One side checkpoints before the step's collectives, the other after
// them, the sides taking turns: under the non-blocking protocol the
// collectives cross the recovery line in both directions. With `same`
// every rank checkpoints at the end of the step (the blocking protocol's
// sites must be collective). Rank 0 prints one hash per rank.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 256, K = 4 };

static uint64_t X[N];

static uint64_t mix64(uint64_t V) {
  V ^= V >> 30;
  V *= 0xbf58476d1ce4e5b9ULL;
  V ^= V >> 27;
  V *= 0x94d049bb133111ebULL;
  return V ^ (V >> 31);
}

static void absorb(const uint64_t *V, int Count, long S) {
  for (int I = 0; I < Count; ++I)
    X[(I * 13 + S) % N] = mix64(X[(I * 13 + S) % N] ^ V[I]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Steps = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  int Same = argc > 2 && !strcmp(argv[2], "same");
  if (Size < 2 || Size > 32) {
    fprintf(stderr, "intercomm_collectives: needs 2 to 32 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int Side = Rank >= Size / 2;
  MPI_Comm Half, Inter;
  MPI_Comm_split(MPI_COMM_WORLD, Side, Rank, &Half);
  int LRank, RSize;
  MPI_Comm_rank(Half, &LRank);
  MPI_Intercomm_create(Half, 0, MPI_COMM_WORLD, Side ? 0 : Size / 2, 31,
                       &Inter);
  MPI_Comm_remote_size(Inter, &RSize);

  for (int I = 0; I < N; ++I)
    X[I] = mix64(((uint64_t)Rank << 32) | (uint64_t)I);
  uint64_t Out[32 * K], In[32 * K], Mine[K], Got[K], Send[K], Open[2][K];
  int Counts[32], Displs[32];

  for (long S = 0; S < Steps; ++S) {
    int First = (int)(S % 2); // the side that checkpoints first, and roots
    int Rooted = Side == First;
    // This side's root argument: its leader is MPI_ROOT, the others
    // MPI_PROC_NULL; the other side names the leader, remote rank 0.
    int Root = Rooted ? (LRank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int OtherRoot = !Rooted ? (LRank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request Reqs[2];
    for (int J = 0; J < K; ++J)
      Send[J] = X[(S + J) % N] >> 1;
    MPI_Iallreduce(Send, Open[0], K, MPI_UINT64_T, MPI_SUM, Inter, &Reqs[0]);
    if (Rooted)
      for (int J = 0; J < K; ++J)
        Open[1][J] = X[(S * 5 + J) % N];
    MPI_Ibcast(Open[1], K, MPI_UINT64_T, Root, Inter, &Reqs[1]);
    if (!Same && Rooted)
      ccc_checkpoint(); // the other side's collectives cross its line

    for (int J = 0; J < K; ++J)
      Mine[J] = X[(S * 3 + J) % N];
    MPI_Bcast(Mine, K, MPI_UINT64_T, Root, Inter);
    if (!Rooted)
      absorb(Mine, K, S);
    MPI_Reduce(Mine, Got, K, MPI_UINT64_T, MPI_SUM, OtherRoot, Inter);
    if (OtherRoot == MPI_ROOT)
      absorb(Got, K, S + 1);
    MPI_Allreduce(Mine, Got, K, MPI_UINT64_T, MPI_BXOR, Inter);
    absorb(Got, K, S + 2);
    MPI_Gather(Mine, K, MPI_UINT64_T, In, K, MPI_UINT64_T, Root, Inter);
    if (Root == MPI_ROOT)
      absorb(In, K * RSize, S + 3);
    for (int Q = 0; Q < RSize * K; ++Q)
      Out[Q] = mix64(X[(S + Q) % N] + (uint64_t)Q);
    MPI_Scatter(Out, K, MPI_UINT64_T, Got, K, MPI_UINT64_T, OtherRoot, Inter);
    if (Rooted)
      absorb(Got, K, S + 4);
    MPI_Allgather(Mine, K, MPI_UINT64_T, In, K, MPI_UINT64_T, Inter);
    absorb(In, K * RSize, S + 5);
    // Allgatherv: remote rank q sends q % K + 1 values.
    int Total = 0;
    for (int Q = 0; Q < RSize; ++Q) {
      Counts[Q] = Q % K + 1;
      Displs[Q] = Total;
      Total += Counts[Q];
    }
    MPI_Allgatherv(Out, LRank % K + 1, MPI_UINT64_T, In, Counts, Displs,
                   MPI_UINT64_T, Inter);
    absorb(In, Total, S + 6);
    MPI_Alltoall(Out, K, MPI_UINT64_T, In, K, MPI_UINT64_T, Inter);
    absorb(In, K * RSize, S + 7);
    // Alltoallw: a type per remote rank (the arrays have the remote
    // group's length, not this group's).
    MPI_Datatype Types[32];
    int Bytes[32];
    for (int Q = 0; Q < RSize; ++Q) {
      Types[Q] = MPI_UINT64_T;
      Counts[Q] = K;
      Bytes[Q] = Q * K * (int)sizeof(uint64_t);
    }
    MPI_Alltoallw(Out, Counts, Bytes, Types, In, Counts, Bytes, Types, Inter);
    absorb(In, K * RSize, S + 10);
    MPI_Barrier(Inter);

    MPI_Waitall(2, Reqs, MPI_STATUSES_IGNORE);
    absorb(Open[0], K, S + 8);
    if (!Rooted)
      absorb(Open[1], K, S + 9);
    for (int I = 0; I < N; ++I)
      X[I] = mix64(X[I] + (uint64_t)S);
    if (Same || !Rooted)
      ccc_checkpoint();
  }

  uint64_t Hash = 0;
  for (int I = 0; I < N; ++I)
    Hash = mix64(Hash ^ X[I]);
  uint64_t *All = malloc(Size * sizeof *All);
  MPI_Gather(&Hash, 1, MPI_UINT64_T, All, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("intercomm_collectives: ranks=%d steps=%ld\n", Size, Steps);
    for (int R = 0; R < Size; ++R)
      printf("rank %d hash %016llx\n", R, (unsigned long long)All[R]);
  }
  free(All);
  MPI_Comm_free(&Inter);
  MPI_Comm_free(&Half);
  MPI_Finalize();
  return 0;
}
