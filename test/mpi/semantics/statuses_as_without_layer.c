// statuses_as_without_layer.c - what a program reads from MPI_Status after
// a receive is the same with ccc's layer as without it.
//
// Under the non-blocking protocol every message carries an 8-byte header
// that the layer strips: it sets the status's byte count itself (from the
// implementation's own status fields, for speed). This program receives
// messages of every path the layer takes (empty, packed small messages up
// to and past the 4 KiB packing limit, the datatype path, a strided
// datatype, fewer elements than posted, truncation, wildcards, probes,
// every completion call) and prints, per receive, everything a program can
// learn from the status. The test runs it with and without the layer and
// requires the same output.
//
// usage: mpirun -np 2 statuses_as_without_layer [no-truncation|truncation]
//   (output on rank 0). no-truncation leaves out the truncated receives,
//   truncation does only those: MPICH delivers nothing of a truncated
//   message, not even the non-blocking protocol's header, which the layer
//   refuses with a ccc: error (tested on its own).
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ccc.h"

enum { kMax = 1 << 17 };
static double Out[kMax], In[kMax];

// Everything the status says, for a receive of element type T into Buf
// (part of In).
static void showAt(const char *What, int Err, MPI_Status *S, MPI_Datatype T,
                   const double *Buf) {
  int Count, Elems, Bytes, Cancelled, Class;
  MPI_Count BytesX;
  MPI_Get_count(S, T, &Count);
  MPI_Get_elements(S, T, &Elems);
  MPI_Get_count(S, MPI_BYTE, &Bytes);
  MPI_Get_elements_x(S, MPI_BYTE, &BytesX);
  MPI_Test_cancelled(S, &Cancelled);
  MPI_Error_class(Err, &Class);
  printf("%-28s err %s source %d tag %d count %d elements %d bytes %d/%lld "
         "cancelled %d\n",
         What, Class == MPI_SUCCESS ? "ok" : Class == MPI_ERR_TRUNCATE
                                                ? "truncate"
                                                : "other",
         S->MPI_SOURCE, S->MPI_TAG, Count == MPI_UNDEFINED ? -1 : Count,
         Elems == MPI_UNDEFINED ? -1 : Elems, Bytes, (long long)BytesX,
         Cancelled);
  // The data that arrived, by a checksum of the bytes the status names.
  unsigned long long H = 1469598103934665603ull;
  const unsigned char *P = (const unsigned char *)Buf;
  for (MPI_Count I = 0; I < BytesX; ++I)
    H = (H ^ P[I]) * 1099511628211ull;
  printf("%-28s data %016llx\n", What, H);
}

static void show(const char *What, int Err, MPI_Status *S, MPI_Datatype T) {
  showAt(What, Err, S, T, In);
  memset(In, 0, sizeof(In));
}

// A receive of Posted doubles with tag Tag that MPI truncates. MPI leaves
// the status's count and the data then to the implementation (Open MPI
// reports the message's length, MPICH the buffer's, or nothing), so only
// the error, source and tag are compared; and nothing may be written past
// the posted buffer.
static void truncated(const char *What, int Posted, int Tag) {
  MPI_Status S;
  for (int I = Posted; I < kMax; ++I)
    In[I] = -1;
  int Err = MPI_Recv(In, Posted, MPI_DOUBLE, 1, Tag, MPI_COMM_WORLD, &S);
  int Class, Intact = 1;
  MPI_Error_class(Err, &Class);
  for (int I = Posted; I < kMax; ++I)
    Intact &= In[I] == -1;
  printf("%-28s err %s source %d tag %d past the buffer %s\n", What,
         Class == MPI_ERR_TRUNCATE ? "truncate" : "other", S.MPI_SOURCE,
         S.MPI_TAG, Intact ? "untouched" : "WRITTEN");
  memset(In, 0, sizeof(In));
}

// Message sizes in doubles: empty, packed (the header fits up to the 4 KiB
// limit: 511 doubles and 512 are either side), the datatype path, large.
static const int Sizes[] = {0, 1, 3, 511, 512, 513, 4096, 131072};
enum { kNSizes = sizeof(Sizes) / sizeof(Sizes[0]) };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ccc_checkpoint(); // a site: the layer runs the protocol of CCC_PROTOCOL
  int Rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int I = 0; I < kMax; ++I)
    Out[I] = I * 0.5 + 1;
  MPI_Datatype Strided; // every other double
  MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &Strided);
  MPI_Type_commit(&Strided);
  MPI_Comm Dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MPI_Comm_set_errhandler(Dup, MPI_ERRORS_RETURN);
  char What[64];
  MPI_Status S;
  int Err;
  int Truncation = argc < 2 || strcmp(argv[1], "no-truncation") != 0;
  if (argc > 1 && strcmp(argv[1], "truncation") == 0) {
    if (Rank == 1) {
      MPI_Send(Out, 5, MPI_DOUBLE, 0, 51, MPI_COMM_WORLD);
    } else if (Rank == 0) {
      truncated("5 into 3 (truncated)", 3, 51);
      printf("not reached under the non-blocking protocol with MPICH\n");
    }
    MPI_Finalize();
    return 0;
  }

  if (Rank == 1) {
    for (int K = 0; K < kNSizes; ++K)
      MPI_Send(Out, Sizes[K], MPI_DOUBLE, 0, 10 + K, MPI_COMM_WORLD);
    for (int K = 0; K < kNSizes; ++K)
      MPI_Send(Out, Sizes[K], MPI_DOUBLE, 0, 30 + K, Dup);
    MPI_Send(Out, 3, MPI_DOUBLE, 0, 50, MPI_COMM_WORLD); // fewer than posted
    if (Truncation) {
      MPI_Send(Out, 5, MPI_DOUBLE, 0, 51, MPI_COMM_WORLD);
      MPI_Send(Out, 505, MPI_DOUBLE, 0, 52, MPI_COMM_WORLD);
    }
    MPI_Send(Out, 2, Strided, 0, 53, MPI_COMM_WORLD);
    MPI_Send(Out, 6, MPI_DOUBLE, 0, 54, MPI_COMM_WORLD); // into the strided
    MPI_Send(Out, 7, MPI_DOUBLE, 0, 55, MPI_COMM_WORLD); // wildcards
    MPI_Send(Out, 9, MPI_DOUBLE, 0, 56, MPI_COMM_WORLD); // probed
    MPI_Send(Out, 700, MPI_DOUBLE, 0, 57, MPI_COMM_WORLD); // iprobed
    for (int K = 0; K < 4; ++K) // nonblocking receives
      MPI_Send(Out + K, 1 + 200 * K, MPI_DOUBLE, 0, 60 + K, MPI_COMM_WORLD);
    double X = 42;
    MPI_Sendrecv(&X, 1, MPI_DOUBLE, 0, 70, In, 4, MPI_DOUBLE, 0, 71,
                 MPI_COMM_WORLD, &S);
  } else if (Rank == 0) {
    for (int K = 0; K < kNSizes; ++K) {
      Err = MPI_Recv(In, kMax, MPI_DOUBLE, 1, 10 + K, MPI_COMM_WORLD, &S);
      snprintf(What, sizeof(What), "recv %d doubles", Sizes[K]);
      show(What, Err, &S, MPI_DOUBLE);
    }
    for (int K = 0; K < kNSizes; ++K) {
      MPI_Request R;
      MPI_Irecv(In, kMax, MPI_DOUBLE, 1, 30 + K, Dup, &R);
      Err = MPI_Wait(&R, &S);
      snprintf(What, sizeof(What), "irecv+wait %d doubles (dup)", Sizes[K]);
      show(What, Err, &S, MPI_DOUBLE);
    }
    Err = MPI_Recv(In, 10, MPI_DOUBLE, 1, 50, MPI_COMM_WORLD, &S);
    show("3 of 10 posted", Err, &S, MPI_DOUBLE);
    if (Truncation) {
      truncated("5 into 3 (truncated)", 3, 51);
      truncated("505 into 500 (truncated)", 500, 52);
    }
    Err = MPI_Recv(In, 8, MPI_DOUBLE, 1, 53, MPI_COMM_WORLD, &S);
    show("2 strided as 8 doubles", Err, &S, MPI_DOUBLE);
    Err = MPI_Recv(In, 2, Strided, 1, 54, MPI_COMM_WORLD, &S);
    show("6 doubles into strided", Err, &S, Strided);
    Err = MPI_Recv(In, 20, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                   MPI_COMM_WORLD, &S);
    show("any source, any tag", Err, &S, MPI_DOUBLE);
    MPI_Probe(1, 56, MPI_COMM_WORLD, &S);
    show("probe", MPI_SUCCESS, &S, MPI_DOUBLE);
    Err = MPI_Recv(In, 20, MPI_DOUBLE, 1, 56, MPI_COMM_WORLD, &S);
    show("recv after probe", Err, &S, MPI_DOUBLE);
    int Flag = 0;
    while (!Flag)
      MPI_Iprobe(MPI_ANY_SOURCE, 57, MPI_COMM_WORLD, &Flag, &S);
    show("iprobe", MPI_SUCCESS, &S, MPI_DOUBLE);
    Err = MPI_Recv(In, 1000, MPI_DOUBLE, 1, 57, MPI_COMM_WORLD, &S);
    show("recv after iprobe", Err, &S, MPI_DOUBLE);

    // Completion by Test, Waitany, Waitsome and Waitall, each into its own
    // part of In.
    MPI_Request R[4];
    MPI_Status Ss[4];
    for (int K = 0; K < 4; ++K)
      MPI_Irecv(In + 1024 * K, 1000, MPI_DOUBLE, 1, 60 + K, MPI_COMM_WORLD,
                &R[K]);
    Flag = 0;
    while (!Flag)
      MPI_Test(&R[0], &Flag, &S);
    showAt("irecv+test", MPI_SUCCESS, &S, MPI_DOUBLE, In + 0);
    int Index;
    MPI_Waitany(1, &R[1], &Index, &S);
    showAt("irecv+waitany", MPI_SUCCESS, &S, MPI_DOUBLE, In + 1024);
    int Done = 0, Indices[1];
    while (Done == 0)
      MPI_Waitsome(1, &R[2], &Done, Indices, &S);
    showAt("irecv+waitsome", MPI_SUCCESS, &S, MPI_DOUBLE, In + 2048);
    MPI_Waitall(1, &R[3], Ss);
    showAt("irecv+waitall", MPI_SUCCESS, &Ss[0], MPI_DOUBLE, In + 3072);
    memset(In, 0, sizeof(In));

    double X = 7;
    Err = MPI_Sendrecv(&X, 1, MPI_DOUBLE, 1, 71, In, 4, MPI_DOUBLE, 1, 70,
                       MPI_COMM_WORLD, &S);
    show("sendrecv", Err, &S, MPI_DOUBLE);
  }
  MPI_Comm_free(&Dup);
  MPI_Type_free(&Strided);
  MPI_Finalize();
  return 0;
}
