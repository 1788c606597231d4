// refused_calls.c - calls MPI functions ccc cannot checkpoint (the spec's
// `refuse` ones: a data representation with program functions) and others
// that were refused when this was written, as programs use them, with ccc
// handles among their arguments: one-sided (Win_create, fence, Put, Get,
// Accumulate with a derived datatype, Win_get_group whose group the
// layer's Group_free frees), MPI-IO on a temporary file (open, set_view with a
// derived filetype, write_at_all, sync, get_size, read_at, close, delete),
// non-blocking collectives (Ibarrier, Iallreduce with a user op on a dup of
// MPI_COMM_WORLD, Ialltoallw with derived datatypes), persistent requests
// (Send_init, Recv_init, Startall, Waitall, Request_free) and a matched
// probe (Mprobe, Mrecv) -- refused when this was written, supported since --
// and neighbourhood collectives on a Cartesian
// communicator (Neighbor_allgather, Neighbor_alltoallw with derived
// datatypes). Dynamic processes (Comm_spawn, ports) cannot run in a test
// and are left out. Rank 0 prints what every call produced.
//
// Built without NO_SITES, a forced checkpoint before the calls commits one
// version and one after them must stop the job (the calls' state would be
// missing from it); with CCC_DISABLE=1 it runs through. Built with
// NO_SITES it has no site at all: it must run as without ccc. The
// argument no-p2p leaves the persistent and matched-probe calls out.
//   usage: refused_calls [no-p2p]
#ifndef NO_SITES
#include "ccc.h"
#endif

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int Rank, Size;

static void maxAbs(void *In, void *InOut, int *Len, MPI_Datatype *T) {
  (void)T;
  double *A = In, *B = InOut;
  for (int I = 0; I < *Len; ++I) {
    double X = A[I] < 0 ? -A[I] : A[I], Y = B[I] < 0 ? -B[I] : B[I];
    B[I] = X > Y ? X : Y;
  }
}

static void report(const char *What, const double *V, int N) {
  double All[64];
  MPI_Gather(V, N, MPI_DOUBLE, All, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (Rank)
    return;
  printf("%s:", What);
  for (int I = 0; I < N * Size; ++I)
    printf(" %g", All[I]);
  printf("\n");
}

static int extentOf(MPI_Datatype T, MPI_Aint *Extent, void *Extra) {
  (void)Extra;
  MPI_Aint Lb;
  return MPI_Type_get_extent(T, &Lb, Extent);
}

static void oneSided(MPI_Datatype Pair) {
  double Base[8] = {0}, Got[2] = {0, 0};
  MPI_Win Win;
  MPI_Win_create(Base, sizeof Base, sizeof(double), MPI_INFO_NULL,
                 MPI_COMM_WORLD, &Win);
  int Next = (Rank + 1) % Size;
  double Mine[2] = {Rank + 0.5, Rank * 10.0};
  MPI_Win_fence(0, Win);
  MPI_Put(Mine, 1, Pair, Next, 0, 1, Pair, Win);
  MPI_Win_fence(0, Win);
  MPI_Get(Got, 2, MPI_DOUBLE, Next, 0, 2, MPI_DOUBLE, Win);
  MPI_Accumulate(Mine, 1, Pair, Next, 2, 1, Pair, MPI_SUM, Win);
  MPI_Win_fence(0, Win);
  MPI_Group G;
  int GSize;
  MPI_Win_get_group(Win, &G);
  MPI_Group_size(G, &GSize);
  MPI_Group_free(&G);
  MPI_Win_free(&Win);
  // Still refused: the first call the next checkpoint names.
  MPI_Register_datarep("ccc_refused_calls_rep", MPI_CONVERSION_FN_NULL,
                       MPI_CONVERSION_FN_NULL, extentOf, NULL);
  double V[5] = {Base[0], Base[1], Got[0] + Got[1], Base[2] + Base[3], GSize};
  report("one-sided", V, 5);
}

static void fileIo(MPI_Datatype Pair) {
  char Name[256];
  if (Rank == 0) {
    const char *Dir = getenv("TMPDIR");
    snprintf(Name, sizeof Name, "%s/ccc-refused-calls-%d.dat",
             Dir ? Dir : "/tmp", (int)getpid());
  }
  MPI_Bcast(Name, sizeof Name, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_File F;
  MPI_File_open(MPI_COMM_WORLD, Name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                MPI_INFO_NULL, &F);
  MPI_File_set_view(F, 0, MPI_DOUBLE, Pair, "native", MPI_INFO_NULL);
  double Out[2] = {Rank * 2.0 + 1, Rank * 2.0 + 2};
  // Offsets count etypes (doubles): each rank its own pair.
  MPI_File_write_at_all(F, 2 * Rank, Out, 1, Pair, MPI_STATUS_IGNORE);
  MPI_File_sync(F);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Offset Bytes;
  MPI_File_get_size(F, &Bytes);
  double In[2] = {0, 0};
  MPI_File_read_at(F, 2 * ((Rank + 1) % Size), In, 1, Pair, MPI_STATUS_IGNORE);
  MPI_File_close(&F);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 0)
    MPI_File_delete(Name, MPI_INFO_NULL);
  double V[3] = {In[0], In[1], (double)Bytes};
  report("MPI-IO", V, 3);
}

static void nonBlockingCollectives(MPI_Datatype Pair) {
  MPI_Comm Dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &Dup);
  MPI_Op MaxAbs;
  MPI_Op_create(maxAbs, 1, &MaxAbs);
  MPI_Request Rs[3];
  MPI_Ibarrier(Dup, &Rs[0]);
  double X[2] = {Rank % 2 ? -Rank - 1.5 : Rank + 1.0, 3 - Rank}, Max[2];
  MPI_Iallreduce(X, Max, 2, MPI_DOUBLE, MaxAbs, Dup, &Rs[1]);
  double Send[32], Recv[32];
  int Counts[16], Displs[16];
  MPI_Datatype Types[16];
  for (int I = 0; I < Size; ++I) {
    Send[2 * I] = Rank * 100 + I;
    Send[2 * I + 1] = -Send[2 * I];
    Counts[I] = 1;
    Displs[I] = I * 2 * (int)sizeof(double);
    Types[I] = Pair;
  }
  MPI_Ialltoallw(Send, Counts, Displs, Types, Recv, Counts, Displs, Types, Dup,
                 &Rs[2]);
  MPI_Waitall(3, Rs, MPI_STATUSES_IGNORE);
  MPI_Op_free(&MaxAbs);
  MPI_Comm_free(&Dup);
  double V[4] = {Max[0], Max[1], Recv[0], Recv[2 * Size - 1]};
  report("non-blocking collectives", V, 4);
}

static void persistentAndMatched(void) {
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  double Out = Rank, In = -1, Sum = 0;
  MPI_Request Rs[2];
  MPI_Send_init(&Out, 1, MPI_DOUBLE, Next, 7, MPI_COMM_WORLD, &Rs[0]);
  MPI_Recv_init(&In, 1, MPI_DOUBLE, Prev, 7, MPI_COMM_WORLD, &Rs[1]);
  for (int Round = 0; Round < 3; ++Round) {
    Out = Rank * 10 + Round;
    MPI_Startall(2, Rs);
    MPI_Waitall(2, Rs, MPI_STATUSES_IGNORE);
    Sum += In;
  }
  MPI_Request_free(&Rs[0]);
  MPI_Request_free(&Rs[1]);
  MPI_Message M;
  MPI_Status S;
  double Got = 0;
  MPI_Request R;
  MPI_Isend(&Out, 1, MPI_DOUBLE, Next, 8, MPI_COMM_WORLD, &R);
  MPI_Mprobe(Prev, 8, MPI_COMM_WORLD, &M, &S);
  MPI_Mrecv(&Got, 1, MPI_DOUBLE, &M, &S);
  MPI_Wait(&R, MPI_STATUS_IGNORE);
  double V[3] = {Sum, Got, S.MPI_SOURCE};
  report("persistent and matched", V, 3);
}

static void neighbourhood(MPI_Datatype Pair) {
  int Dims[1] = {Size}, Periods[1] = {1};
  MPI_Comm Ring;
  MPI_Cart_create(MPI_COMM_WORLD, 1, Dims, Periods, 0, &Ring);
  double Mine = Rank + 0.25, Both[2];
  MPI_Neighbor_allgather(&Mine, 1, MPI_DOUBLE, Both, 1, MPI_DOUBLE, Ring);
  double Send[4] = {Rank, Rank + 0.5, -Rank, -Rank - 0.5}, Recv[4] = {0};
  int Counts[2] = {1, 1};
  MPI_Aint Displs[2] = {0, 2 * sizeof(double)};
  MPI_Datatype Types[2] = {Pair, Pair};
  MPI_Neighbor_alltoallw(Send, Counts, Displs, Types, Recv, Counts, Displs,
                         Types, Ring);
  MPI_Comm_free(&Ring);
  double V[4] = {Both[0], Both[1], Recv[0], Recv[3]};
  report("neighbourhood", V, 4);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
#ifndef NO_SITES
  ccc_checkpoint_force(); // a committed checkpoint that must survive
#endif
  MPI_Datatype Pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &Pair);
  MPI_Type_commit(&Pair);
  oneSided(Pair);
  fileIo(Pair);
  nonBlockingCollectives(Pair);
  neighbourhood(Pair);
  if (argc < 2 || strcmp(argv[1], "no-p2p"))
    persistentAndMatched();
  MPI_Type_free(&Pair);
#ifndef NO_SITES
  ccc_checkpoint_force(); // must stop the job: the calls above ran
#endif
  if (Rank == 0)
    printf("not reached under checkpointing\n");
  MPI_Finalize();
  return 0;
}
