// mprobe_bsend_workers.c - proves matched probes and buffered sends across
// a restart: rank 0 hands out NITEMS work items per round (dynamic
// scheduling: the next item goes to whoever answered) and takes every
// answer with a matched probe from MPI_ANY_SOURCE and MPI_ANY_TAG, sizing
// the buffer from the probe's MPI_Get_count: MPI_Mprobe + MPI_Mrecv in even
// rounds, MPI_Improbe polling + MPI_Imrecv + MPI_Wait in odd ones. Workers
// answer from a buffer attached once (MPI_Buffer_attach): a result of
// variable length by MPI_Bsend, then a one-int progress note by MPI_Ibsend
// (the request completed by MPI_Wait at once, the note still in flight).
// Every rank checkpoints at the end of a round (the sites are collective
// under the blocking protocol): the master once it has every result and
// sent the end of the round, a worker once it received that, so progress
// notes (buffered messages) are in flight at checkpoints, drained or
// logged as late messages, and the master takes them after; one of them
// it matches (MPI_Mprobe) before its checkpoint and receives (MPI_Mrecv)
// after it, so a restart finds a matched message in the image. Arrival
// order depends on timing, the printed results do not: they are stored by
// item id, and each round's items depend on the previous round's checksum.
// At the end each worker detaches its buffer (MPI_Buffer_detach returns the
// attached one) and rank 0 sends itself a message with MPI_Bsend that it
// takes with MPI_Mprobe.
//   usage: mprobe_bsend_workers ROUNDS   (at least 2 ranks)
// Rank 0 prints the item count, the checksum in hex, the sum of all results
// bit-exactly, the progress notes counted and the detach checks.
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  NITEMS = 40,  // work items per round
  MAXLEN = 600, // most values in one result (some above the eager limit)
  STEPS = 300,  // logistic-map steps per value: the work
  TAG_WORK = 1, // {item id, round, seed}
  TAG_RESULT = 2,
  TAG_NOTE = 3,
  TAG_END = 4
};

static double Results[NITEMS][MAXLEN + 1];
static int Lengths[NITEMS];
static uint64_t Checksum = 0x1234;
static long Notes;

static uint64_t mix64(uint64_t X) {
  X ^= X >> 30;
  X *= 0xbf58476d1ce4e5b9ULL;
  X ^= X >> 27;
  X *= 0x94d049bb133111ebULL;
  return X ^ (X >> 31);
}

static int lengthOf(uint64_t Seed) { return 1 + (int)(Seed % MAXLEN); }

static void work(const uint64_t *Item, double *Out, int *Len) {
  int N = lengthOf(Item[2]);
  Out[0] = (double)Item[0];
  for (int K = 0; K < N; ++K) {
    double X = (double)(mix64(Item[2] + K) >> 11) * 0x1p-53;
    for (int S = 0; S < STEPS; ++S)
      X = 3.9 * X * (1 - X);
    Out[K + 1] = X;
  }
  *Len = N + 1;
}

// Takes one answer by a matched probe; returns its source.
static int takeAnswer(int Round) {
  MPI_Message M;
  MPI_Status S;
  if (Round % 2 == 0) {
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &M, &S);
  } else {
    int Flag = 0;
    while (!Flag)
      MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &Flag, &M, &S);
  }
  int Count;
  if (S.MPI_TAG == TAG_NOTE) {
    MPI_Get_count(&S, MPI_INT, &Count);
    int Note;
    MPI_Mrecv(&Note, 1, MPI_INT, &M, MPI_STATUS_IGNORE);
    if (Count != 1 || M != MPI_MESSAGE_NULL || Note != S.MPI_SOURCE) {
      fprintf(stderr, "mprobe_bsend_workers: bad note\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ++Notes;
    return -1;
  }
  MPI_Get_count(&S, MPI_DOUBLE, &Count);
  double *Buf = malloc(Count * sizeof(double));
  if (Round % 2 == 0) {
    MPI_Mrecv(Buf, Count, MPI_DOUBLE, &M, MPI_STATUS_IGNORE);
  } else {
    MPI_Request R;
    MPI_Imrecv(Buf, Count, MPI_DOUBLE, &M, &R);
    MPI_Wait(&R, MPI_STATUS_IGNORE);
  }
  int Id = (int)Buf[0];
  Lengths[Id] = Count;
  memcpy(Results[Id], Buf, Count * sizeof(double));
  free(Buf);
  return S.MPI_SOURCE;
}

static void master(int Rounds, int Size) {
  for (int R = 0; R < Rounds; ++R) {
    int Next = 0, Out = 0;
    for (int W = 1; W < Size && Next < NITEMS; ++W, ++Next, ++Out) {
      uint64_t Item[3] = {Next, R, mix64(Checksum + Next)};
      MPI_Send(Item, 3, MPI_UINT64_T, W, TAG_WORK, MPI_COMM_WORLD);
    }
    while (Out > 0) {
      int W = takeAnswer(R);
      if (W < 0)
        continue; // a note
      --Out;
      if (Next < NITEMS) {
        uint64_t Item[3] = {Next, R, mix64(Checksum + Next)};
        MPI_Send(Item, 3, MPI_UINT64_T, W, TAG_WORK, MPI_COMM_WORLD);
        ++Next;
        ++Out;
      }
    }
    for (int W = 1; W < Size; ++W)
      MPI_Send(NULL, 0, MPI_BYTE, W, TAG_END, MPI_COMM_WORLD);
    // A note matched before the checkpoint, received after it.
    MPI_Message Held = MPI_MESSAGE_NULL;
    MPI_Status HS;
    if (Notes < (long)(R + 1) * NITEMS)
      MPI_Mprobe(MPI_ANY_SOURCE, TAG_NOTE, MPI_COMM_WORLD, &Held, &HS);
    ccc_checkpoint(); // with the workers': notes in flight
    if (Held != MPI_MESSAGE_NULL) {
      int Note;
      MPI_Mrecv(&Note, 1, MPI_INT, &Held, MPI_STATUS_IGNORE);
      if (Note != HS.MPI_SOURCE) {
        fprintf(stderr, "mprobe_bsend_workers: bad held note\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      ++Notes;
    }
    // Notes still coming: each worker sent one per item.
    while (Notes < (long)(R + 1) * NITEMS)
      takeAnswer(R);
    for (int I = 0; I < NITEMS; ++I)
      for (int K = 0; K < Lengths[I]; ++K) {
        uint64_t B;
        memcpy(&B, &Results[I][K], 8);
        Checksum = mix64(Checksum ^ B);
      }
  }
}

static int worker(int Rank) {
  // Room for a few answers in flight, as a real code would size it.
  int One, NoteSize;
  MPI_Pack_size(MAXLEN + 1, MPI_DOUBLE, MPI_COMM_WORLD, &One);
  MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &NoteSize);
  int Size = 4 * (One + NoteSize + 2 * MPI_BSEND_OVERHEAD);
  void *Attached = malloc(Size);
  MPI_Buffer_attach(Attached, Size);
  double *Out = malloc((MAXLEN + 1) * sizeof(double));
  for (;;) {
    uint64_t Item[3];
    MPI_Status S;
    MPI_Recv(Item, 3, MPI_UINT64_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &S);
    if (S.MPI_TAG == TAG_END) {
      ccc_checkpoint(); // its last answers in flight
      continue;
    }
    if (Item[1] == (uint64_t)-1)
      break;
    int Len;
    work(Item, Out, &Len);
    MPI_Bsend(Out, Len, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    memset(Out, 0xff, (MAXLEN + 1) * sizeof(double)); // buffered: reusable
    MPI_Request R;
    MPI_Ibsend(&Rank, 1, MPI_INT, 0, TAG_NOTE, MPI_COMM_WORLD, &R);
    MPI_Wait(&R, MPI_STATUS_IGNORE);
  }
  void *Back;
  int BackSize;
  MPI_Buffer_detach(&Back, &BackSize);
  free(Out);
  free(Attached);
  return Back == Attached && BackSize == Size;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rounds = argc > 1 ? atoi(argv[1]) : 10;
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Detached = 0;
  if (Rank == 0) {
    master(Rounds, Size);
    for (int W = 1; W < Size; ++W) {
      uint64_t Stop[3] = {0, (uint64_t)-1, 0};
      MPI_Send(Stop, 3, MPI_UINT64_T, W, TAG_WORK, MPI_COMM_WORLD);
    }
    // A buffered send to itself, taken by a matched probe.
    char Buf[64 + MPI_BSEND_OVERHEAD];
    MPI_Buffer_attach(Buf, sizeof(Buf));
    int Self = 4242, Got = 0;
    MPI_Bsend(&Self, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
    MPI_Message M;
    MPI_Status S;
    MPI_Mprobe(0, 77, MPI_COMM_WORLD, &M, &S);
    MPI_Mrecv(&Got, 1, MPI_INT, &M, MPI_STATUS_IGNORE);
    void *Back;
    int BackSize;
    MPI_Buffer_detach(&Back, &BackSize);
    Detached = Got == Self && Back == Buf;
  } else {
    Detached = worker(Rank);
  }
  int AllDetached;
  MPI_Reduce(&Detached, &AllDetached, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    double Sum = 0;
    for (int I = 0; I < NITEMS; ++I)
      for (int K = 1; K < Lengths[I]; ++K)
        Sum += Results[I][K];
    printf("mprobe_bsend_workers: %d rounds of %d items\nchecksum "
           "%016llx\nlast round sum %a\nnotes %ld\ndetach ok on %d of %d "
           "ranks\n",
           Rounds, NITEMS, (unsigned long long)Checksum, Sum, Notes,
           AllDetached, Size);
  }
  MPI_Finalize();
  return 0;
}
