// no_byte_added.c - the layer hands MPI what the program sends and
// receives, nothing more (issue 43): for each point-to-point operation the
// program makes, the PMPI calls the layer made for it (recorded below the
// layer by pmpi_bytes.c) carry the program's buffer, count and a datatype
// of the program's size and extent; a buffered send (which the layer packs
// into MPI_PACKED as MPI would into the attached buffer) the same number of
// bytes. A header joined to a message, copied with it into one buffer or
// joined by a struct datatype, changes the count or the datatype's size.
//
// Two ranks: rank 0 sends with each mode (standard small and large,
// non-contiguous, synchronous, ready, persistent, buffered), rank 1
// receives with Recv, Irecv and a persistent receive; both Sendrecv. Each
// rank then checks its own operations and prints one line; a mismatch
// prints a ccc: line for each and the exit status is 1.
#include "pmpi_bytes.h"

#include "ccc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kLarge = 8192 }; // 64 KiB of doubles: the layer's large-message path

typedef struct {
  int Kind; // kPmpiSend or kPmpiRecv
  int Tag;
  int Peer;
  const void *Buf;
  int Count;
  MPI_Datatype Type;
  int Calls;  // PMPI calls expected (a persistent one: one per start)
  int Packed; // a buffered send: bytes only
  const char *What;
} Op;

static Op Ops[32];
static int NOps;
static int Rank;

static void expect(int Kind, int Tag, int Peer, const void *Buf, int Count,
                   MPI_Datatype Type, int Calls, int Packed, const char *What) {
  Op O = {Kind, Tag, Peer, Buf, Count, Type, Calls, Packed, What};
  Ops[NOps++] = O;
}

// Compares the PMPI calls of operation O with its arguments; the number of
// mismatches.
static int check(const Op *O, const PmpiCall *Calls, int NCalls) {
  int Size, Bad = 0, Found = 0;
  const char *Name = "";
  MPI_Aint Lb, Extent;
  MPI_Type_size(O->Type, &Size);
  MPI_Type_get_extent(O->Type, &Lb, &Extent);
  long Bytes = (long)Size * O->Count;
  for (int I = 0; I < NCalls; ++I) {
    const PmpiCall *P = &Calls[I];
    if (P->Kind != O->Kind || P->Tag != O->Tag || P->Peer != O->Peer)
      continue;
    ++Found;
    Name = P->Name;
    long Got = (long)P->TypeSize * P->Count;
    int Same = Got == Bytes;
    if (!O->Packed)
      Same = Same && P->Buf == O->Buf && P->Count == O->Count &&
             P->TypeSize == Size && P->Extent == Extent;
    if (!Same) {
      printf("ccc: rank %d, %s (tag %d): the layer handed %s %d element(s) "
             "of %d bytes, extent %ld (%ld bytes) at %p; the program gave %d "
             "of %d bytes, extent %ld (%ld bytes) at %p\n",
             Rank, O->What, O->Tag, P->Name, P->Count, P->TypeSize,
             (long)P->Extent, Got, P->Buf, O->Count, Size, (long)Extent, Bytes,
             O->Buf);
      ++Bad;
    }
  }
  // A persistent operation may reach MPI once, as its PMPI_*_init.
  int Once = Found == 1 && O->Calls > 1 && strstr(Name, "_init") != NULL;
  if (Found != O->Calls && !Once) {
    printf("ccc: rank %d, %s (tag %d): %d PMPI call(s) for it, expected %d\n",
           Rank, O->What, O->Tag, Found, O->Calls);
    ++Bad;
  }
  return Bad;
}

static void fill(int *A, int N, int Base) {
  for (int I = 0; I < N; ++I)
    A[I] = Base + I;
}

static int Small[4], Vec[12], Rdy[3], Pers[5], Buffered[6], Swap[7], Back[7];
static char Chars[10];
static double Large[kLarge], Mid[100];

static void sender(MPI_Datatype VecT) {
  MPI_Request Q;
  fill(Small, 4, 10);
  fill(Vec, 12, 20);
  fill(Rdy, 3, 40);
  fill(Pers, 5, 50);
  fill(Buffered, 6, 60);
  for (int I = 0; I < kLarge; ++I)
    Large[I] = I;
  MPI_Send(Small, 4, MPI_INT, 1, 101, MPI_COMM_WORLD);
  expect(kPmpiSend, 101, 1, Small, 4, MPI_INT, 1, 0, "MPI_Send");
  MPI_Send(Large, kLarge, MPI_DOUBLE, 1, 102, MPI_COMM_WORLD);
  expect(kPmpiSend, 102, 1, Large, kLarge, MPI_DOUBLE, 1, 0,
         "MPI_Send of 64 KiB");
  MPI_Isend(Vec, 1, VecT, 1, 103, MPI_COMM_WORLD, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  expect(kPmpiSend, 103, 1, Vec, 1, VecT, 1, 0, "MPI_Isend of a vector");
  MPI_Ssend(Chars, 10, MPI_CHAR, 1, 104, MPI_COMM_WORLD);
  expect(kPmpiSend, 104, 1, Chars, 10, MPI_CHAR, 1, 0, "MPI_Ssend");
  MPI_Issend(Mid, 100, MPI_DOUBLE, 1, 105, MPI_COMM_WORLD, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  expect(kPmpiSend, 105, 1, Mid, 100, MPI_DOUBLE, 1, 0, "MPI_Issend");
  MPI_Barrier(MPI_COMM_WORLD); // rank 1 has posted the ready send's receive
  MPI_Rsend(Rdy, 3, MPI_INT, 1, 106, MPI_COMM_WORLD);
  expect(kPmpiSend, 106, 1, Rdy, 3, MPI_INT, 1, 0, "MPI_Rsend");
  MPI_Send_init(Pers, 5, MPI_INT, 1, 107, MPI_COMM_WORLD, &Q);
  for (int I = 0; I < 2; ++I) {
    MPI_Start(&Q);
    MPI_Wait(&Q, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&Q);
  expect(kPmpiSend, 107, 1, Pers, 5, MPI_INT, 2, 0,
         "MPI_Send_init, started twice");
  int Room = 1024;
  void *Attached = malloc(Room);
  MPI_Buffer_attach(Attached, Room);
  MPI_Bsend(Buffered, 6, MPI_INT, 1, 108, MPI_COMM_WORLD);
  MPI_Buffer_detach(&Attached, &Room);
  free(Attached);
  expect(kPmpiSend, 108, 1, Buffered, 6, MPI_INT, 1, 1, "MPI_Bsend");
}

// The receiver's data must be the sender's (the values fill() gave).
static int same(const int *A, int N, int Base, const char *What) {
  for (int I = 0; I < N; ++I)
    if (A[I] != Base + I) {
      printf("ccc: rank %d, %s: element %d is %d, sent %d\n", Rank, What, I,
             A[I], Base + I);
      return 1;
    }
  return 0;
}

static int receiver(MPI_Datatype VecT) {
  MPI_Request Q;
  int Bad = 0;
  memset(Vec, 0, sizeof Vec);
  MPI_Recv(Small, 4, MPI_INT, 0, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(kPmpiRecv, 101, 0, Small, 4, MPI_INT, 1, 0, "MPI_Recv");
  MPI_Irecv(Large, kLarge, MPI_DOUBLE, 0, 102, MPI_COMM_WORLD, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  expect(kPmpiRecv, 102, 0, Large, kLarge, MPI_DOUBLE, 1, 0,
         "MPI_Irecv of 64 KiB");
  MPI_Recv(Vec, 1, VecT, 0, 103, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(kPmpiRecv, 103, 0, Vec, 1, VecT, 1, 0, "MPI_Recv of a vector");
  MPI_Recv(Chars, 10, MPI_CHAR, 0, 104, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(kPmpiRecv, 104, 0, Chars, 10, MPI_CHAR, 1, 0, "MPI_Recv (Ssend)");
  MPI_Irecv(Mid, 100, MPI_DOUBLE, 0, 105, MPI_COMM_WORLD, &Q);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  expect(kPmpiRecv, 105, 0, Mid, 100, MPI_DOUBLE, 1, 0, "MPI_Irecv");
  MPI_Irecv(Rdy, 3, MPI_INT, 0, 106, MPI_COMM_WORLD, &Q);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Wait(&Q, MPI_STATUS_IGNORE);
  expect(kPmpiRecv, 106, 0, Rdy, 3, MPI_INT, 1, 0, "MPI_Irecv (Rsend)");
  MPI_Recv_init(Pers, 5, MPI_INT, 0, 107, MPI_COMM_WORLD, &Q);
  for (int I = 0; I < 2; ++I) {
    MPI_Start(&Q);
    MPI_Wait(&Q, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&Q);
  expect(kPmpiRecv, 107, 0, Pers, 5, MPI_INT, 2, 0,
         "MPI_Recv_init, started twice");
  MPI_Recv(Buffered, 6, MPI_INT, 0, 108, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(kPmpiRecv, 108, 0, Buffered, 6, MPI_INT, 1, 0, "MPI_Recv (Bsend)");
  Bad += same(Small, 4, 10, "MPI_Recv");
  for (int I = 0; I < 3; ++I)
    Bad += same(Vec + 4 * I, 2, 20 + 4 * I, "MPI_Recv of a vector");
  Bad += same(Rdy, 3, 40, "MPI_Irecv (Rsend)");
  Bad += same(Pers, 5, 50, "MPI_Recv_init");
  Bad += same(Buffered, 6, 60, "MPI_Recv (Bsend)");
  for (int I = 0; I < kLarge && !Bad; ++I)
    if (Large[I] != I) {
      printf("ccc: rank 1, MPI_Irecv of 64 KiB: element %d is %g\n", I,
             Large[I]);
      ++Bad;
    }
  return Bad;
}

int main(int argc, char **argv) {
  int Size, Bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != 2) {
    if (Rank == 0)
      fprintf(stderr, "ccc: no_byte_added runs at 2 ranks, not %d\n", Size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ccc_checkpoint(); // a site: the layer runs the protocol of CCC_PROTOCOL
  // Three blocks of two ints, four apart: a halo column's shape.
  MPI_Datatype VecT;
  MPI_Type_vector(3, 2, 4, MPI_INT, &VecT);
  MPI_Type_commit(&VecT);
  if (Rank == 0)
    sender(VecT);
  else
    Bad += receiver(VecT);
  // Both ways at once.
  int Peer = 1 - Rank;
  fill(Swap, 7, 70 + Rank);
  MPI_Sendrecv(Swap, 7, MPI_INT, Peer, 109 + Rank, Back, 7, MPI_INT, Peer,
               109 + Peer, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect(kPmpiSend, 109 + Rank, Peer, Swap, 7, MPI_INT, 1, 0,
         "MPI_Sendrecv's send");
  expect(kPmpiRecv, 109 + Peer, Peer, Back, 7, MPI_INT, 1, 0,
         "MPI_Sendrecv's receive");
  Bad += same(Back, 7, 70 + Peer, "MPI_Sendrecv's receive");

  const PmpiCall *Calls;
  int NCalls = pmpiBytesCalls(&Calls);
  for (int I = 0; I < NOps; ++I)
    Bad += check(&Ops[I], Calls, NCalls);
  printf("rank %d: %d operations, %d PMPI calls on the program's "
         "communicator: %s\n",
         Rank, NOps, NCalls, Bad ? "MISMATCH" : "nothing added");
  MPI_Type_free(&VecT);
  MPI_Finalize();
  return Bad ? 1 : 0;
}
