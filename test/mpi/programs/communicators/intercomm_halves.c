// intercomm_halves.c - proves inter-communicators and the other
// communicator constructors made before a checkpoint are re-created on
// restart and work after it, as a coupled code uses them: MPI_COMM_WORLD is
// split into two halves (two "models"), joined by MPI_Intercomm_create
// (leaders 0 and the first rank of the other half, bridged by
// MPI_COMM_WORLD), and every step exchanges a halo across the
// inter-communicator (MPI_Irecv from the remote ranks that send here,
// MPI_Send to remote rank rank % remote size, MPI_Waitall), reduces within
// its half (MPI_Allreduce on the local communicator), and sends a small
// "back" message from the first half to the second. The even world ranks
// also have a communicator from MPI_Comm_create_group (called by them only)
// and MPI_Comm_dup_with_info of it, reduced on every 4th step. At the end
// the inter-communicator is merged (MPI_Intercomm_merge, the second half
// high) and reduced on.
//   usage: intercomm_halves STEPS [same]
// The first half checkpoints after its sends, before it waits for its
// receives, the second at the end of the step: halo messages from the
// second half are late and the back messages early (non-blocking protocol).
// With `same` both halves checkpoint at the end of the step (the blocking
// protocol's sites must be collective).
// Rank 0 prints the queries' answers (MPI_Comm_test_inter,
// MPI_Comm_remote_size, MPI_Comm_remote_group's world ranks, the merged
// communicator's order) and one hash per rank, after the last step.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 512, HALO = 32, TAG_HALO = 7, TAG_BACK = 8 };

static MPI_Comm Half, Inter, Evens, EvensDup;
static uint64_t X[N];

static uint64_t mix64(uint64_t V) {
  V ^= V >> 30;
  V *= 0xbf58476d1ce4e5b9ULL;
  V ^= V >> 27;
  V *= 0x94d049bb133111ebULL;
  return V ^ (V >> 31);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Steps = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  int Same = argc > 2 && !strcmp(argv[2], "same");
  if (Size < 2) {
    fprintf(stderr, "intercomm_halves: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int Side = Rank >= Size / 2; // 0: first half, 1: second
  MPI_Comm_split(MPI_COMM_WORLD, Side, Rank, &Half);
  int LRank, LSize, RSize;
  MPI_Comm_rank(Half, &LRank);
  MPI_Comm_size(Half, &LSize);
  MPI_Intercomm_create(Half, 0, MPI_COMM_WORLD, Side ? 0 : Size / 2, 99,
                       &Inter);
  MPI_Comm_remote_size(Inter, &RSize);

  MPI_Group World, EvenGroup;
  MPI_Comm_group(MPI_COMM_WORLD, &World);
  int NEven = (Size + 1) / 2, Ev[64];
  for (int I = 0; I < NEven; ++I)
    Ev[I] = 2 * I;
  MPI_Group_incl(World, NEven, Ev, &EvenGroup);
  Evens = EvensDup = MPI_COMM_NULL;
  if (Rank % 2 == 0) {
    MPI_Info Hint;
    MPI_Info_create(&Hint);
    MPI_Info_set(Hint, "mpi_assert_no_any_tag", "false");
    MPI_Comm_create_group(MPI_COMM_WORLD, EvenGroup, 5, &Evens);
    MPI_Comm_dup_with_info(Evens, Hint, &EvensDup);
    MPI_Info_free(&Hint);
  }

  for (int I = 0; I < N; ++I)
    X[I] = mix64(((uint64_t)Rank << 32) | (uint64_t)I);
  // Remote ranks that send here: q with q % LSize == LRank.
  int NFrom = 0;
  for (int Q = 0; Q < RSize; ++Q)
    NFrom += Q % LSize == LRank;
  uint64_t In[8][HALO], Back[4];
  MPI_Request Reqs[8];

  for (long S = 0; S < Steps; ++S) {
    for (int Q = 0, K = 0; Q < RSize; ++Q)
      if (Q % LSize == LRank)
        MPI_Irecv(In[K], HALO, MPI_UINT64_T, Q, TAG_HALO, Inter, &Reqs[K]), ++K;
    MPI_Send(&X[(S * HALO) % N], HALO, MPI_UINT64_T, LRank % RSize, TAG_HALO,
             Inter);
    if (Side == 0 && !Same)
      ccc_checkpoint(); // the second half's halos arrive late
    MPI_Waitall(NFrom, Reqs, MPI_STATUSES_IGNORE);
    for (int K = 0; K < NFrom; ++K)
      for (int J = 0; J < HALO; ++J)
        X[(J * 7 + S + K) % N] = mix64(X[(J * 7 + S + K) % N] ^ In[K][J]);
    for (int I = 0; I < N; ++I)
      X[I] = mix64(X[I] + (uint64_t)S);

    uint64_t Mine = X[S % N], Sum;
    MPI_Allreduce(&Mine, &Sum, 1, MPI_UINT64_T, MPI_SUM, Half);
    X[(S + 1) % N] ^= Sum;
    if (Evens != MPI_COMM_NULL && S % 4 == 0) {
      uint64_t Max;
      MPI_Allreduce(&Mine, &Max, 1, MPI_UINT64_T, MPI_MAX,
                    S % 8 ? Evens : EvensDup);
      X[(S + 2) % N] += Max;
    }

    // The first half tells its partner something after its checkpoint:
    // early at the second half, which checkpoints below.
    if (Side == 0) {
      for (int J = 0; J < 4; ++J)
        Back[J] = X[(S + J) % N];
      MPI_Send(Back, 4, MPI_UINT64_T, LRank % RSize, TAG_BACK, Inter);
    }
    for (int Q = 0; Side == 1 && Q < RSize; ++Q)
      if (Q % LSize == LRank) {
        MPI_Recv(Back, 4, MPI_UINT64_T, Q, TAG_BACK, Inter, MPI_STATUS_IGNORE);
        for (int J = 0; J < 4; ++J)
          X[(S * 3 + J) % N] ^= mix64(Back[J]);
      }
    if (Side == 1 || Same)
      ccc_checkpoint();
  }

  int IsInter = 0, Remote[64], RemoteWorld[64];
  MPI_Comm_test_inter(Inter, &IsInter);
  MPI_Group RG, WG;
  MPI_Comm_remote_group(Inter, &RG);
  MPI_Comm_group(MPI_COMM_WORLD, &WG);
  for (int Q = 0; Q < RSize; ++Q)
    Remote[Q] = Q;
  MPI_Group_translate_ranks(RG, RSize, Remote, WG, RemoteWorld);
  MPI_Group_free(&RG);
  MPI_Group_free(&WG);
  MPI_Comm Merged;
  MPI_Intercomm_merge(Inter, Side, &Merged);
  int MRank;
  MPI_Comm_rank(Merged, &MRank);
  uint64_t Hash = 0, Total;
  for (int I = 0; I < N; ++I)
    Hash = mix64(Hash ^ X[I]);
  MPI_Allreduce(&Hash, &Total, 1, MPI_UINT64_T, MPI_BXOR, Merged);

  int Info[4] = {IsInter, RSize, MRank, RemoteWorld[0]};
  int *AllInfo = malloc(4 * Size * sizeof *AllInfo);
  uint64_t *All = malloc(Size * sizeof *All);
  MPI_Gather(Info, 4, MPI_INT, AllInfo, 4, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(&Hash, 1, MPI_UINT64_T, All, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    printf("intercomm_halves: ranks=%d steps=%ld\n", Size, Steps);
    for (int R = 0; R < Size; ++R)
      printf("rank %d inter %d remote_size %d merged_rank %d remote0_world "
             "%d hash %016llx\n",
             R, AllInfo[4 * R], AllInfo[4 * R + 1], AllInfo[4 * R + 2],
             AllInfo[4 * R + 3], (unsigned long long)All[R]);
    printf("merged xor %016llx\n", (unsigned long long)Total);
  }
  free(AllInfo);
  free(All);
  MPI_Comm_free(&Merged);
  if (Evens != MPI_COMM_NULL) {
    MPI_Comm_free(&EvensDup);
    MPI_Comm_free(&Evens);
  }
  MPI_Comm_free(&Inter);
  MPI_Comm_free(&Half);
  MPI_Group_free(&EvenGroup);
  MPI_Group_free(&World);
  MPI_Finalize();
  return 0;
}
