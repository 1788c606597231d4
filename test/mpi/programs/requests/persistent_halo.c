// persistent_halo.c - proves persistent and generalized requests across a
// restart: a 1-D periodic heat-type stencil whose halo rows move by
// persistent requests made once, before the step loop (MPI_Recv_init from
// both neighbours, MPI_Send_init up, MPI_Ssend_init down, and a
// MPI_Bsend_init of the rank's boundary sum to the next rank, from an
// attached buffer), started each step by MPI_Startall and completed by
// MPI_Waitall, MPI_Waitany or MPI_Request_get_status polling then
// MPI_Wait, in turn. Every rank checkpoints after starting its receives
// (MPI_Start) and before starting its sends (MPI_Startall), so receives are
// active at every checkpoint with no message in flight to them (active
// persistent requests live again after a restart, inactive ones
// restartable), and under the non-blocking protocol sends started after a
// peer's checkpoint cross its line too. Each step's
// interior update is wrapped in a generalized request
// (MPI_Grequest_start ... MPI_Grequest_complete, completed with the halo
// requests; its query callback reports the step as the status tag), never
// open at a checkpoint. At the end: MPI_Start of a receive no one matches,
// MPI_Cancel, MPI_Test_cancelled; MPI_Request_free of every persistent
// request; MPI_Buffer_detach returning the attached buffer.
//   usage: persistent_halo STEPS
// Rank 0 prints an XOR hash of the grid, the sum of the received boundary
// sums, the generalized requests' status tags and callback counts, and the
// cancel/detach checks.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 64, NY = 512, TAG_UP = 1, TAG_DOWN = 2, TAG_SUM = 3 };

static double *U, *UNew;
static double SumOut, SumIn, SumTotal;
static long QueryCalls, FreeCalls, TagSum;
static uint64_t TagHash;

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

static void updateRow(int I) {
  const double *A = U + (I - 1) * NY, *M = U + I * NY, *B = U + (I + 1) * NY;
  double *O = UNew + I * NY;
  for (int J = 0; J < NY; ++J) {
    int JM = J ? J - 1 : NY - 1, JP = J == NY - 1 ? 0 : J + 1;
    O[J] = 0.2 * (A[J] + B[J] + M[JM] + M[JP] + M[J]) + 1e-3;
  }
}

// Generalized request callbacks: the "operation" is the interior update.
static int query(void *Extra, MPI_Status *S) {
  ++QueryCalls;
  MPI_Status_set_elements(S, MPI_BYTE, 0);
  MPI_Status_set_cancelled(S, 0);
  S->MPI_SOURCE = MPI_UNDEFINED;
  S->MPI_TAG = *(int *)Extra;
  return MPI_SUCCESS;
}
static int freeFn(void *Extra) {
  (void)Extra;
  ++FreeCalls;
  return MPI_SUCCESS;
}
static int cancelFn(void *Extra, int Complete) {
  (void)Extra;
  (void)Complete;
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Steps = argc > 1 ? atoi(argv[1]) : 100;
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Up = (Rank + Size - 1) % Size, Down = (Rank + 1) % Size;

  U = calloc((NX + 2) * NY, sizeof(double));
  UNew = calloc((NX + 2) * NY, sizeof(double));
  for (int I = 1; I <= NX; ++I)
    for (int J = 0; J < NY; ++J)
      U[I * NY + J] =
          (double)(mix64((uint64_t)(Rank * NX + I) * NY + J) >> 11) * 0x1p-53;

  int BufSize = 4 * (sizeof(double) + MPI_BSEND_OVERHEAD);
  void *Attached = malloc(BufSize);
  MPI_Buffer_attach(Attached, BufSize);

  // 0, 1: receives (halo rows 0 and NX + 1); 2, 3: sends; 4, 5: the sums.
  MPI_Request Req[6];
  MPI_Recv_init(U, NY, MPI_DOUBLE, Up, TAG_DOWN, MPI_COMM_WORLD, &Req[0]);
  MPI_Recv_init(U + (NX + 1) * NY, NY, MPI_DOUBLE, Down, TAG_UP, MPI_COMM_WORLD,
                &Req[1]);
  MPI_Send_init(U + NY, NY, MPI_DOUBLE, Up, TAG_UP, MPI_COMM_WORLD, &Req[2]);
  MPI_Ssend_init(U + NX * NY, NY, MPI_DOUBLE, Down, TAG_DOWN, MPI_COMM_WORLD,
                 &Req[3]);
  MPI_Bsend_init(&SumOut, 1, MPI_DOUBLE, Down, TAG_SUM, MPI_COMM_WORLD,
                 &Req[4]);
  MPI_Recv_init(&SumIn, 1, MPI_DOUBLE, Up, TAG_SUM, MPI_COMM_WORLD, &Req[5]);

  for (int S = 0; S < Steps; ++S) {
    SumOut = 0;
    for (int J = 0; J < NY; ++J)
      SumOut += U[NY + J] + U[NX * NY + J];
    // Receives first, as codes pre-post them: at the checkpoint they are
    // active with nothing in flight to them, and the sends active (started
    // just after their peers' checkpoints or before) too.
    MPI_Start(&Req[0]);
    MPI_Start(&Req[1]);
    MPI_Start(&Req[5]);
    ccc_checkpoint();
    MPI_Startall(3, Req + 2);
    // The interior, as a generalized request.
    MPI_Request G;
    int StepTag = S;
    MPI_Grequest_start(query, freeFn, cancelFn, &StepTag, &G);
    for (int I = 2; I < NX; ++I)
      updateRow(I);
    MPI_Grequest_complete(G);
    MPI_Status GS;
    switch (S % 3) {
    case 0:
      MPI_Waitall(6, Req, MPI_STATUSES_IGNORE);
      updateRow(1);
      updateRow(NX);
      break;
    case 1: {
      for (int K = 0; K < 2; ++K) {
        int Which;
        MPI_Waitany(2, Req, &Which, MPI_STATUS_IGNORE);
        updateRow(Which == 0 ? 1 : NX);
      }
      MPI_Waitall(4, Req + 2, MPI_STATUSES_IGNORE);
      // Both receives are inactive now: Waitany reports none.
      int None;
      MPI_Waitany(2, Req, &None, MPI_STATUS_IGNORE);
      if (None != MPI_UNDEFINED) {
        fprintf(stderr,
                "persistent_halo: Waitany on inactive requests "
                "gave %d\n",
                None);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      break;
    }
    default:
      for (int K = 0; K < 6; ++K) {
        int Flag = 0;
        MPI_Status St;
        while (!Flag)
          MPI_Request_get_status(Req[K], &Flag, &St);
        MPI_Wait(&Req[K], MPI_STATUS_IGNORE);
      }
      updateRow(1);
      updateRow(NX);
      break;
    }
    MPI_Wait(&G, &GS);
    TagSum += GS.MPI_TAG;
    TagHash = mix64(TagHash ^ (uint64_t)GS.MPI_TAG);
    SumTotal += SumIn;
    // The persistent requests name fixed buffers: no pointer swap.
    memcpy(U + NY, UNew + NY, NX * NY * sizeof(double));
  }

  // A started receive no one matches, cancelled.
  double Never;
  MPI_Request C;
  MPI_Recv_init(&Never, 1, MPI_DOUBLE, Up, 99, MPI_COMM_WORLD, &C);
  MPI_Start(&C);
  MPI_Cancel(&C);
  MPI_Status CS;
  MPI_Wait(&C, &CS);
  int Cancelled = 0;
  MPI_Test_cancelled(&CS, &Cancelled);
  MPI_Request_free(&C);
  for (int K = 0; K < 6; ++K)
    MPI_Request_free(&Req[K]);
  void *Back;
  int BackSize;
  MPI_Buffer_detach(&Back, &BackSize);
  int DetachOk = Back == Attached && BackSize == BufSize;

  uint64_t H = 0, GH;
  for (int I = 1; I <= NX; ++I)
    for (int J = 0; J < NY; ++J) {
      uint64_t B;
      memcpy(&B, &U[I * NY + J], 8);
      H ^= mix64(B ^ mix64((uint64_t)(Rank * NX + I) * NY + J));
    }
  MPI_Reduce(&H, &GH, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
  double AllSums;
  MPI_Reduce(&SumTotal, &AllSums, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  long Counts[5] = {QueryCalls, FreeCalls, TagSum, Cancelled, DetachOk}, All[5];
  MPI_Reduce(Counts, All, 5, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("persistent_halo: %d ranks, %d steps\ngrid hash %016llx\nsums %a\n"
           "grequest: %ld queries, %ld frees, tag sum %ld, tag hash %016llx\n"
           "cancelled %ld of %d, buffer detached %ld of %d\n",
           Size, Steps, (unsigned long long)GH, AllSums, All[0], All[1], All[2],
           (unsigned long long)TagHash, All[3], Size, All[4], Size);
  free(Attached);
  MPI_Finalize();
  return 0;
}
