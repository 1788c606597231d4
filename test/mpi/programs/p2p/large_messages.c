// large_messages.c - proves messages far above MPI's eager limits (0.6 to
// 1 MiB, where the non-blocking protocol joins its header to the program's
// buffer by a struct datatype) arrive whole across checkpoints, in the
// patterns codes use them, and that the layer adds no wait MPI does not
// have. Ranks form a ring; per iteration:
//  1. a strided column (MPI_Type_vector, 1 MiB of doubles) posted by
//     MPI_Irecv from the left, an MPI_Allreduce while it is open, the right
//     neighbour's contiguous MPI_Send, then MPI_Wait;
//  2. rank 0 sends each other rank a message of a size that changes every
//     iteration; they learn it by MPI_Probe from MPI_ANY_SOURCE and
//     MPI_Get_count, allocate, and MPI_Recv;
//  3. MPI_Sendrecv_replace of 600 KB around the ring;
//  4. in pairs (0,1), (2,3)...: the even rank sends 1 MiB (MPI_Isend or
//     MPI_Issend in turn) and waits for it before an MPI_Barrier; the odd
//     rank posts the MPI_Irecv before the barrier and waits for it after.
//     The even rank's wait must complete while its receiver sits in the
//     barrier (MPI's progress rule): a layer that moved large messages in
//     two steps, the second begun by the receiver's layer, would hang here.
// Even ranks checkpoint after step 1, odd ranks after step 4, so large
// messages cross recovery lines as late and early messages, and the
// probed message of step 2 may be one the layer drained at a checkpoint.
// With "same" every rank checkpoints after step 4 (the blocking protocol's
// sites are collective).
//   usage: large_messages ITERATIONS [same]   (an even number of ranks)
// Rank 0 prints every rank's hash of what it received, in hex.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1 << 17, REPLACED = 75000, TAG_COLUMN = 1, TAG_SIZED = 7 };
enum { TAG_REPLACE = 3, TAG_PAIR = 9 };

static double Columns[2 * N], Row[N], Ring[N], Pair[N];

static uint64_t fnv(const void *P, size_t Bytes, uint64_t H) {
  const unsigned char *S = P;
  for (size_t I = 0; I < Bytes; ++I)
    H = (H ^ S[I]) * 1099511628211ull;
  return H;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (argc < 2 || Size % 2) {
    if (Rank == 0)
      fprintf(stderr,
              "usage: large_messages ITERATIONS [same] (even rank count)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int Iters = atoi(argv[1]);
  int Same = argc > 2 && !strcmp(argv[2], "same");
  int Right = (Rank + 1) % Size, Left = (Rank + Size - 1) % Size;
  MPI_Datatype Column;
  MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &Column);
  MPI_Type_commit(&Column);
  for (int I = 0; I < 2 * N; ++I)
    Columns[I] = Rank + I * 1e-3;
  for (int I = 0; I < N; ++I)
    Ring[I] = Rank - I * 1e-4;
  uint64_t H = 1469598103934665603ull;
  for (int It = 0; It < Iters; ++It) {
    // 1. A strided receive open across a collective and a blocking send.
    MPI_Request Req;
    MPI_Irecv(Columns + It % 2, 1, Column, Left, TAG_COLUMN, MPI_COMM_WORLD,
              &Req);
    double Mine = Row[It % N], Sum;
    MPI_Allreduce(&Mine, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int I = 0; I < N; ++I)
      Row[I] = Columns[2 * I + 1 - It % 2] * 0.5 + Sum * 1e-9 + It;
    MPI_Send(Row, N, MPI_DOUBLE, Right, TAG_COLUMN, MPI_COMM_WORLD);
    MPI_Wait(&Req, MPI_STATUS_IGNORE);
    if (Rank % 2 == 0 && !Same)
      ccc_checkpoint();
    // 2. Sizes learnt by probing.
    if (Rank == 0) {
      for (int Q = 1; Q < Size; ++Q)
        MPI_Send(Columns, N / 2 + (It * 997 + Q * 31) % (N / 2), MPI_DOUBLE, Q,
                 TAG_SIZED, MPI_COMM_WORLD);
    } else {
      MPI_Status St;
      int Count;
      MPI_Probe(MPI_ANY_SOURCE, TAG_SIZED, MPI_COMM_WORLD, &St);
      MPI_Get_count(&St, MPI_DOUBLE, &Count);
      double *Got = malloc((size_t)Count * sizeof(double));
      MPI_Recv(Got, Count, MPI_DOUBLE, St.MPI_SOURCE, St.MPI_TAG,
               MPI_COMM_WORLD, &St);
      H = fnv(&Count, sizeof Count, fnv(Got, (size_t)Count * 8, H));
      free(Got);
    }
    // 3. In place around the ring.
    MPI_Sendrecv_replace(Ring, REPLACED, MPI_DOUBLE, Right, TAG_REPLACE, Left,
                         TAG_REPLACE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    Ring[It % REPLACED] += Columns[It % (2 * N)];
    // 4. A send waited for while its receiver is in a barrier.
    MPI_Request PairReq;
    if (Rank % 2 == 0) {
      if (It % 2)
        MPI_Issend(Row, N, MPI_DOUBLE, Rank + 1, TAG_PAIR, MPI_COMM_WORLD,
                   &PairReq);
      else
        MPI_Isend(Row, N, MPI_DOUBLE, Rank + 1, TAG_PAIR, MPI_COMM_WORLD,
                  &PairReq);
      MPI_Wait(&PairReq, MPI_STATUS_IGNORE);
    } else {
      MPI_Irecv(Pair, N, MPI_DOUBLE, Rank - 1, TAG_PAIR, MPI_COMM_WORLD,
                &PairReq);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank % 2) {
      MPI_Wait(&PairReq, MPI_STATUS_IGNORE);
      H = fnv(Pair, sizeof Pair, H);
    }
    if (Rank % 2 || Same)
      ccc_checkpoint();
  }
  H = fnv(Columns, sizeof Columns, fnv(Ring, sizeof Ring, H));
  uint64_t *All = malloc(Size * sizeof(uint64_t));
  MPI_Gather(&H, 1, MPI_UINT64_T, All, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    for (int Q = 0; Q < Size; ++Q)
      printf("rank %d: %016llx\n", Q, (unsigned long long)All[Q]);
  free(All);
  MPI_Type_free(&Column);
  MPI_Finalize();
  return 0;
}
