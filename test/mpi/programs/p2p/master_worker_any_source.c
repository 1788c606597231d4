// master_worker_any_source.c - proves wildcard receives survive a restart:
// rank 0 hands out NITEMS work items per round and receives the results with
// MPI_ANY_SOURCE, answering status.MPI_SOURCE with the next item; a result's
// length varies with the item and is read with MPI_Get_count; workers
// receive with MPI_ANY_TAG and tell a work item from the zero-length
// end-of-round message by status.MPI_TAG. Arrival order depends on timing,
// the printed results do not: they are stored by item id and combined in id
// order, and each round's items depend on the previous round's checksum.
// The master checkpoints once its first items are out (workers are busy,
// items in flight); a worker at the end of its round, so the results it sent
// are late messages and the items it received after the master's checkpoint
// are early ones.
//   usage: master_worker_any_source ROUNDS   (at least 2 ranks)
// Rank 0 prints the item count, the final checksum in hex and the sum of all
// results bit-exactly; all are the same at every rank count.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  NITEMS = 48,    // work items per round
  MAXLEN = 64,    // most values in one result
  STEPS = 2000,   // logistic-map steps per value: the work
  TAG_WORK = 1,   // {item id, round, seed}: 3 words
  TAG_RESULT = 2, // {item id, values...}: 9 to 65 doubles
  TAG_END = 3     // end of round: no data
};

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

// The work: Out[0] = item id, then 8 to 64 values. Returns the length.
static int doItem(const uint64_t Work[3], double *Out) {
  uint64_t Key = mix64(Work[0] ^ mix64(Work[1] ^ mix64(Work[2])));
  int Len = 8 + (int)(Key % (MAXLEN - 7));
  Out[0] = (double)Work[0];
  for (int K = 1; K <= Len; ++K) {
    double X = 0.05 + 0.9 * (double)(mix64(Key + K) >> 11) * 0x1p-53;
    for (int S = 0; S < STEPS; ++S)
      X = 3.9 * X * (1 - X);
    Out[K] = X;
  }
  return Len + 1;
}

static void sendItem(int Worker, uint64_t Id, uint64_t Round, uint64_t Seed) {
  uint64_t Work[3] = {Id, Round, Seed};
  MPI_Send(Work, 3, MPI_UINT64_T, Worker, TAG_WORK, MPI_COMM_WORLD);
}

static void worker(long Rounds) {
  uint64_t Work[3];
  double Out[MAXLEN + 1];
  for (long Round = 0; Round < Rounds; ++Round) {
    for (;;) {
      MPI_Status St;
      MPI_Recv(Work, 3, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &St);
      if (St.MPI_TAG == TAG_END)
        break;
      int Len = doItem(Work, Out);
      MPI_Send(Out, Len, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
    ccc_checkpoint(); // our results may not have reached the master yet
  }
}

static void master(long Rounds, int Size) {
  uint64_t Seed = 0x5eed, Hash[NITEMS];
  double Sum[NITEMS], Total = 0, Buf[MAXLEN + 1];
  long Received = 0, Bad = 0;
  for (long Round = 0; Round < Rounds; ++Round) {
    int Seen[NITEMS] = {0};
    uint64_t Next = 0;
    int Busy = 0;
    for (int W = 1; W < Size; ++W) {
      if (Next < NITEMS) {
        sendItem(W, Next++, (uint64_t)Round, Seed);
        ++Busy;
      } else {
        MPI_Send(NULL, 0, MPI_UINT64_T, W, TAG_END, MPI_COMM_WORLD);
      }
    }
    ccc_checkpoint(); // first items in flight or being worked on
    while (Busy > 0) {
      MPI_Status St;
      int Count;
      MPI_Recv(Buf, MAXLEN + 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT,
               MPI_COMM_WORLD, &St);
      MPI_Get_count(&St, MPI_DOUBLE, &Count);
      int Id = (int)Buf[0];
      if (Id < 0 || Id >= NITEMS || Seen[Id]++) {
        ++Bad;
        continue;
      }
      Hash[Id] = (uint64_t)Count;
      Sum[Id] = 0;
      for (int K = 1; K < Count; ++K) {
        uint64_t Bits;
        memcpy(&Bits, &Buf[K], sizeof Bits);
        Hash[Id] = mix64(Hash[Id] ^ Bits);
        Sum[Id] += Buf[K];
      }
      ++Received;
      if (Next < NITEMS) {
        sendItem(St.MPI_SOURCE, Next++, (uint64_t)Round, Seed);
      } else {
        MPI_Send(NULL, 0, MPI_UINT64_T, St.MPI_SOURCE, TAG_END, MPI_COMM_WORLD);
        --Busy;
      }
    }
    for (int Id = 0; Id < NITEMS; ++Id) { // in id order: deterministic
      Bad += !Seen[Id];
      Seed = mix64(Seed ^ Hash[Id]);
      Total += Sum[Id];
    }
  }
  printf("master_worker_any_source: %d items x %ld rounds\n", NITEMS, Rounds);
  printf("received %ld bad %ld\n", Received, Bad);
  printf("checksum %016llx\n", (unsigned long long)Seed);
  printf("sum %a\n", Total);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  if (Size < 2) {
    fprintf(stderr, "master_worker_any_source: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (Rank == 0)
    master(Rounds, Size);
  else
    worker(Rounds);
  MPI_Finalize();
  return 0;
}
