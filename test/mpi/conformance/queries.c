// queries.c - conformance: the layer's generated `pass` wrappers and the
// hand-written request functions no other program calls, each called in
// every iteration of a loop with a site, before and after a restart, on
// objects the program made before the loop (a named duplicate of
// MPI_COMM_WORLD, a named vector datatype, a group). Every answer goes into
// a running hash; rank 0 prints the hash, so any answer that differs from
// the plain build's in any iteration shows.
//   usage: queries ITERATIONS   (2 ranks or more)
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0 // Open MPI: declare the MPI-1 names
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t H = 0x9e3779b97f4a7c15ULL;

static void mix(uint64_t V) {
  H ^= V + 0x9e3779b97f4a7c15ULL + (H << 6) + (H >> 2);
  H *= 0xbf58476d1ce4e5b9ULL;
}

static void mixBytes(const void *P, size_t N) {
  const unsigned char *B = P;
  for (size_t I = 0; I < N; ++I)
    mix(B[I]);
}

static void check(int Err, const char *What) {
  if (Err != MPI_SUCCESS) {
    fprintf(stderr, "queries: %s failed (%d)\n", What, Err);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

static void sumInts(void *In, void *Inout, int *Len, MPI_Datatype *T) {
  (void)T;
  for (int I = 0; I < *Len; ++I)
    ((int *)Inout)[I] += ((int *)In)[I];
}

// Datatype queries on T (a program handle made before the loop).
static void typeQueries(MPI_Datatype T) {
  int Size, NI, NA, ND, Comb;
  MPI_Count SizeX, LbX, ExtX;
  MPI_Aint Lb, Ext;
  check(MPI_Type_size(T, &Size), "MPI_Type_size");
  check(MPI_Type_size_x(T, &SizeX), "MPI_Type_size_x");
  check(MPI_Type_get_extent(T, &Lb, &Ext), "MPI_Type_get_extent");
  check(MPI_Type_get_extent_x(T, &LbX, &ExtX), "MPI_Type_get_extent_x");
  mix(Size), mix(SizeX), mix(Lb), mix(Ext), mix(LbX), mix(ExtX);
  check(MPI_Type_get_true_extent(T, &Lb, &Ext), "MPI_Type_get_true_extent");
  check(MPI_Type_get_true_extent_x(T, &LbX, &ExtX),
        "MPI_Type_get_true_extent_x");
  mix(Lb), mix(Ext), mix(LbX), mix(ExtX);
  check(MPI_Type_get_envelope(T, &NI, &NA, &ND, &Comb),
        "MPI_Type_get_envelope");
  mix(NI), mix(NA), mix(ND), mix(Comb == MPI_COMBINER_VECTOR);
  char Name[MPI_MAX_OBJECT_NAME];
  int Len;
  check(MPI_Type_get_name(T, Name, &Len), "MPI_Type_get_name");
  mixBytes(Name, Len);
}

// Packing Count elements of T from Buf, both ways and in external32.
static void packing(MPI_Datatype T, MPI_Comm C, const double *Buf, int N) {
  int Size, Pos = 0;
  check(MPI_Pack_size(2, T, C, &Size), "MPI_Pack_size");
  mix(Size);
  char *Packed = malloc(Size);
  check(MPI_Pack(Buf, 2, T, Packed, Size, &Pos, C), "MPI_Pack");
  mix(Pos);
  double *Back = calloc(N, sizeof *Back);
  int Pos2 = 0;
  check(MPI_Unpack(Packed, Size, &Pos2, Back, 2, T, C), "MPI_Unpack");
  mixBytes(Back, N * sizeof *Back);
  MPI_Aint ESize, EPos = 0, EPos2 = 0;
  check(MPI_Pack_external_size("external32", 2, T, &ESize),
        "MPI_Pack_external_size");
  char *Ext = malloc(ESize);
  check(MPI_Pack_external("external32", Buf, 2, T, Ext, ESize, &EPos),
        "MPI_Pack_external");
  mixBytes(Ext, EPos); // big-endian bytes: the same everywhere
  memset(Back, 0, N * sizeof *Back);
  check(MPI_Unpack_external("external32", Ext, ESize, &EPos2, Back, 2, T),
        "MPI_Unpack_external");
  mixBytes(Back, N * sizeof *Back);
  free(Ext);
  free(Back);
  free(Packed);
}

static void groupQueries(MPI_Group G, MPI_Comm C) {
  int Size, Rank, Res;
  check(MPI_Group_size(G, &Size), "MPI_Group_size");
  check(MPI_Group_rank(G, &Rank), "MPI_Group_rank");
  mix(Size), mix(Rank);
  MPI_Group Whole;
  check(MPI_Comm_group(C, &Whole), "MPI_Comm_group");
  check(MPI_Group_compare(G, Whole, &Res), "MPI_Group_compare");
  mix(Res);
  int From[2] = {0, Size - 1}, To[2];
  check(MPI_Group_translate_ranks(G, 2, From, Whole, To),
        "MPI_Group_translate_ranks");
  mix(To[0]), mix(To[1]);
  check(MPI_Group_free(&Whole), "MPI_Group_free");
}

static void commQueries(MPI_Comm C) {
  int Res, Flag, Len;
  check(MPI_Comm_compare(C, MPI_COMM_WORLD, &Res), "MPI_Comm_compare");
  mix(Res);
  check(MPI_Comm_test_inter(C, &Flag), "MPI_Comm_test_inter");
  mix(Flag);
  char Name[MPI_MAX_OBJECT_NAME];
  check(MPI_Comm_get_name(C, Name, &Len), "MPI_Comm_get_name");
  mixBytes(Name, Len);
  MPI_Comm Parent;
  check(MPI_Comm_get_parent(&Parent), "MPI_Comm_get_parent");
  mix(Parent == MPI_COMM_NULL);
  int Dims[1] = {2}, Periods[1] = {0}, NewRank;
  check(MPI_Cart_map(C, 1, Dims, Periods, &NewRank), "MPI_Cart_map");
  mix(NewRank == MPI_UNDEFINED ? 99 : NewRank);
}

static void statusQueries(MPI_Datatype T) {
  MPI_Status S;
  memset(&S, 0, sizeof S);
  int Flag, Count;
  check(MPI_Status_set_elements(&S, MPI_INT, 5), "MPI_Status_set_elements");
  check(MPI_Get_count(&S, MPI_INT, &Count), "MPI_Get_count");
  mix(Count);
  check(MPI_Status_set_elements_x(&S, T, 4), "MPI_Status_set_elements_x");
  check(MPI_Get_elements(&S, MPI_DOUBLE, &Count), "MPI_Get_elements");
  mix(Count);
  check(MPI_Status_set_cancelled(&S, 1), "MPI_Status_set_cancelled");
  check(MPI_Test_cancelled(&S, &Flag), "MPI_Test_cancelled");
  mix(Flag);
  MPI_Fint F[32]; // MPI_STATUS_SIZE (Fortran only) is 6 or 5
  MPI_Status Back;
  check(MPI_Status_c2f(&S, F), "MPI_Status_c2f");
  check(MPI_Status_f2c(F, &Back), "MPI_Status_f2c");
  check(MPI_Test_cancelled(&Back, &Flag), "MPI_Test_cancelled");
  mix(Flag);
}

// Each handle through its Fortran integer and back must be the same
// handle: the program may keep only the integer across a checkpoint.
static void handleConversions(MPI_Comm C, MPI_Datatype T, MPI_Group G,
                              MPI_Op Op, MPI_Info Info) {
  mix(MPI_Comm_f2c(MPI_Comm_c2f(C)) == C);
  mix(MPI_Type_f2c(MPI_Type_c2f(T)) == T);
  mix(MPI_Group_f2c(MPI_Group_c2f(G)) == G);
  mix(MPI_Op_f2c(MPI_Op_c2f(Op)) == Op);
  mix(MPI_Info_f2c(MPI_Info_c2f(Info)) == Info);
  mix(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) ==
      MPI_ERRORS_RETURN);
  MPI_Request R = MPI_REQUEST_NULL;
  mix(MPI_Request_f2c(MPI_Request_c2f(R)) == MPI_REQUEST_NULL);
}

// Point-to-point modes and request completions no other program uses:
// ring neighbours exchange with Ssend, Issend, Irsend (the receive is
// posted and a barrier passed first), Sendrecv_replace; completions by
// Testall/Testany/Testsome polling and Request_get_status; a receive
// cancelled, and a completed request freed.
static void pointToPoint(MPI_Comm C, long It) {
  int Rank, Size;
  MPI_Comm_rank(C, &Rank);
  MPI_Comm_size(C, &Size);
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  int Out[4] = {Rank, (int)It, Rank * 7, 3}, In[4][4];
  MPI_Request R[4];
  int Flag = 0, Index, NDone, Done[4];

  MPI_Irecv(In[0], 4, MPI_INT, Prev, 1, C, &R[0]);
  MPI_Irecv(In[1], 4, MPI_INT, Prev, 2, C, &R[1]);
  MPI_Irecv(In[2], 4, MPI_INT, Prev, 3, C, &R[2]);
  MPI_Barrier(C); // every ready-mode receive is posted
  MPI_Issend(Out, 4, MPI_INT, Next, 1, C, &R[3]);
  MPI_Ssend(Out, 4, MPI_INT, Next, 2, C);
  MPI_Request RS;
  MPI_Irsend(Out, 4, MPI_INT, Next, 3, C, &RS);
  MPI_Wait(&RS, MPI_STATUS_IGNORE);
  while (!Flag)
    check(MPI_Testall(2, &R[2], &Flag, MPI_STATUSES_IGNORE), "MPI_Testall");
  int Left = 2;
  while (Left > 0) {
    check(MPI_Testsome(2, R, &NDone, Done, MPI_STATUSES_IGNORE),
          "MPI_Testsome");
    if (NDone != MPI_UNDEFINED)
      Left -= NDone;
  }
  for (int K = 0; K < 3; ++K)
    mixBytes(In[K], sizeof In[K]);

  // Rsend: the receive is posted before the barrier the sender waits on.
  MPI_Request RR;
  MPI_Irecv(In[3], 4, MPI_INT, Prev, 4, C, &RR);
  MPI_Barrier(C);
  MPI_Rsend(Out, 4, MPI_INT, Next, 4, C);
  Flag = 0;
  MPI_Status St;
  while (!Flag)
    check(MPI_Request_get_status(RR, &Flag, &St), "MPI_Request_get_status");
  mix(St.MPI_SOURCE), mix(St.MPI_TAG);
  check(MPI_Wait(&RR, MPI_STATUS_IGNORE), "MPI_Wait");
  Flag = 0;
  while (!Flag)
    check(MPI_Testany(1, &RR, &Index, &Flag, MPI_STATUS_IGNORE), "MPI_Testany");
  mix(Index == MPI_UNDEFINED);
  mixBytes(In[3], sizeof In[3]);

  int Buf[4] = {Rank, Rank + 1, Rank + 2, (int)It};
  check(MPI_Sendrecv_replace(Buf, 4, MPI_INT, Next, 5, Prev, 5, C,
                             MPI_STATUS_IGNORE),
        "MPI_Sendrecv_replace");
  mixBytes(Buf, sizeof Buf);

  // A receive nobody matches, cancelled; a send whose request is freed
  // before it completes, then matched by a blocking receive.
  MPI_Request RC;
  MPI_Irecv(In[0], 4, MPI_INT, Prev, 99, C, &RC);
  check(MPI_Cancel(&RC), "MPI_Cancel");
  check(MPI_Wait(&RC, &St), "MPI_Wait");
  MPI_Test_cancelled(&St, &Flag);
  mix(Flag);
  MPI_Request RF;
  MPI_Isend(Out, 4, MPI_INT, Next, 6, C, &RF);
  check(MPI_Request_free(&RF), "MPI_Request_free");
  MPI_Recv(In[0], 4, MPI_INT, Prev, 6, C, MPI_STATUS_IGNORE);
  mixBytes(In[0], sizeof In[0]);
  check(MPI_Wait(&R[3], MPI_STATUS_IGNORE), "MPI_Wait");
}

// Attributes set and deleted in every iteration, through the MPI-2 calls
// and the MPI-1 names; the delete callbacks count into program memory.
static int Deletes = 0;
static int countDelete(MPI_Comm C, int K, void *V, void *Extra) {
  (void)C, (void)K, (void)V, (void)Extra;
  ++Deletes;
  return MPI_SUCCESS;
}
static int countTypeDelete(MPI_Datatype T, int K, void *V, void *Extra) {
  (void)T, (void)K, (void)V, (void)Extra;
  ++Deletes;
  return MPI_SUCCESS;
}

static void attributes(MPI_Comm C, MPI_Datatype T, long It) {
  static long Val[3];
  Val[0] = It, Val[1] = 2 * It, Val[2] = 3 * It;
  int CK, TK, LK, Flag;
  void *Got;
  check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, countDelete, &CK, NULL),
        "MPI_Comm_create_keyval");
  check(
      MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, countTypeDelete, &TK, NULL),
      "MPI_Type_create_keyval");
  check(MPI_Keyval_create(MPI_NULL_COPY_FN, countDelete, &LK, NULL),
        "MPI_Keyval_create");
  check(MPI_Comm_set_attr(C, CK, &Val[0]), "MPI_Comm_set_attr");
  check(MPI_Type_set_attr(T, TK, &Val[1]), "MPI_Type_set_attr");
  check(MPI_Attr_put(C, LK, &Val[2]), "MPI_Attr_put");
  check(MPI_Comm_get_attr(C, CK, &Got, &Flag), "MPI_Comm_get_attr");
  mix(Flag ? *(long *)Got : -1);
  check(MPI_Type_get_attr(T, TK, &Got, &Flag), "MPI_Type_get_attr");
  mix(Flag ? *(long *)Got : -1);
  check(MPI_Attr_get(C, LK, &Got, &Flag), "MPI_Attr_get");
  mix(Flag ? *(long *)Got : -1);
  check(MPI_Comm_delete_attr(C, CK), "MPI_Comm_delete_attr");
  check(MPI_Type_delete_attr(T, TK), "MPI_Type_delete_attr");
  check(MPI_Attr_delete(C, LK), "MPI_Attr_delete");
  check(MPI_Comm_get_attr(C, CK, &Got, &Flag), "MPI_Comm_get_attr");
  mix(Flag), mix(Deletes);
  check(MPI_Comm_free_keyval(&CK), "MPI_Comm_free_keyval");
  check(MPI_Type_free_keyval(&TK), "MPI_Type_free_keyval");
  check(MPI_Keyval_free(&LK), "MPI_Keyval_free");
}

// Info on a communicator: set, read back through MPI_Comm_get_info (the
// keys MPI keeps are its own business: only the count of ours is hashed).
static void commInfo(MPI_Comm C) {
  MPI_Info In, Out;
  check(MPI_Info_create(&In), "MPI_Info_create");
  check(MPI_Info_set(In, "queries_hint", "on"), "MPI_Info_set");
  check(MPI_Comm_set_info(C, In), "MPI_Comm_set_info");
  check(MPI_Info_free(&In), "MPI_Info_free");
  check(MPI_Comm_get_info(C, &Out), "MPI_Comm_get_info");
  int N, Len, Flag;
  check(MPI_Info_get_nkeys(Out, &N), "MPI_Info_get_nkeys");
  mix(N >= 0);
  check(MPI_Info_create(&In), "MPI_Info_create");
  check(MPI_Info_set(In, "key", "sixteen-bytes-xy"), "MPI_Info_set");
  check(MPI_Info_get_valuelen(In, "key", &Len, &Flag), "MPI_Info_get_valuelen");
  mix(Len), mix(Flag);
  check(MPI_Info_free(&In), "MPI_Info_free");
  check(MPI_Info_free(&Out), "MPI_Info_free");
}

static void onError(MPI_Comm *C, int *Code, ...) { (void)C, (void)Code; }

// Error handlers: the one set on C read back and freed; an MPI-1 handler
// made, set on a duplicate, freed.
static void errhandlers(MPI_Comm C) {
  MPI_Errhandler E, Mine;
  check(MPI_Comm_get_errhandler(C, &E), "MPI_Comm_get_errhandler");
  mix(E == MPI_ERRORS_RETURN);
  check(MPI_Errhandler_free(&E), "MPI_Errhandler_free");
  check(MPI_Errhandler_create(onError, &Mine), "MPI_Errhandler_create");
  MPI_Comm D;
  MPI_Comm_dup(C, &D);
  check(MPI_Comm_set_errhandler(D, Mine), "MPI_Comm_set_errhandler");
  check(MPI_Errhandler_free(&Mine), "MPI_Errhandler_free");
  MPI_Comm_free(&D);
}

// A ready-mode persistent send, and a matched message whose handle goes
// through its Fortran integer before it is received.
static void persistentAndMatched(MPI_Comm C, long It) {
  int Rank, Size;
  MPI_Comm_rank(C, &Rank);
  MPI_Comm_size(C, &Size);
  int Next = (Rank + 1) % Size, Prev = (Rank + Size - 1) % Size;
  int Out[2] = {Rank, (int)It}, In[2];
  MPI_Request Send, Recv;
  check(MPI_Rsend_init(Out, 2, MPI_INT, Next, 7, C, &Send), "MPI_Rsend_init");
  MPI_Irecv(In, 2, MPI_INT, Prev, 7, C, &Recv);
  MPI_Barrier(C);
  check(MPI_Start(&Send), "MPI_Start");
  MPI_Wait(&Recv, MPI_STATUS_IGNORE);
  MPI_Wait(&Send, MPI_STATUS_IGNORE);
  MPI_Request_free(&Send);
  mixBytes(In, sizeof In);

  MPI_Send(Out, 2, MPI_INT, Next, 8, C);
  MPI_Message M;
  MPI_Status St;
  check(MPI_Mprobe(Prev, 8, C, &M, &St), "MPI_Mprobe");
  MPI_Message Back = MPI_Message_f2c(MPI_Message_c2f(M));
  mix(Back == M);
  check(MPI_Mrecv(In, 2, MPI_INT, &Back, MPI_STATUS_IGNORE), "MPI_Mrecv");
  mixBytes(In, sizeof In);
}

int main(int argc, char **argv) {
  int Provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &Provided);
  long Iters = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size < 2) {
    fprintf(stderr, "queries: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  // Objects made before the loop, named, used in every iteration.
  MPI_Comm C;
  MPI_Comm_dup(MPI_COMM_WORLD, &C);
  MPI_Comm_set_errhandler(C, MPI_ERRORS_RETURN);
  check(MPI_Comm_set_name(C, "queries-world"), "MPI_Comm_set_name");
  MPI_Datatype T;
  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &T);
  MPI_Type_commit(&T);
  check(MPI_Type_set_name(T, "three-pairs"), "MPI_Type_set_name");
  MPI_Group World, Firsts;
  MPI_Comm_group(C, &World);
  int Two[2] = {0, 1};
  MPI_Group_incl(World, 2, Two, &Firsts);
  // Parameterised Fortran types (MPI keeps them: they are never freed).
  MPI_Datatype F90Int, F90Complex;
  check(MPI_Type_create_f90_integer(9, &F90Int), "MPI_Type_create_f90_integer");
  check(MPI_Type_create_f90_complex(15, 300, &F90Complex),
        "MPI_Type_create_f90_complex");
  MPI_Op Op;
  check(MPI_Op_create(sumInts, 1, &Op), "MPI_Op_create");
  MPI_Info Info = MPI_INFO_NULL;
  double *Mem;
  check(MPI_Alloc_mem(24 * sizeof(double), MPI_INFO_NULL, &Mem),
        "MPI_Alloc_mem");
  for (int K = 0; K < 24; ++K)
    Mem[K] = Rank + K / 8.0;

  for (long It = 0; It < Iters; ++It) {
    ccc_checkpoint();
    typeQueries(T);
    packing(T, C, Mem, 24);
    groupQueries(Firsts, C);
    commQueries(C);
    statusQueries(T);
    handleConversions(C, T, Firsts, Op, Info);
    pointToPoint(C, It);
    persistentAndMatched(C, It);
    // These make and free objects (keyvals, infos, a duplicate): the
    // layer's table keeps a record of each, so not in every iteration.
    if (It % 2000 == 0) {
      attributes(C, T, It);
      commInfo(C);
      errhandlers(C);
    }
    int FSize;
    MPI_Type_size(F90Int, &FSize);
    mix(FSize);
    MPI_Type_size(F90Complex, &FSize);
    mix(FSize);

    int Commutes, Vals[3] = {1, 2, (int)It}, Acc[3] = {Rank, Rank, Rank};
    check(MPI_Op_commutative(Op, &Commutes), "MPI_Op_commutative");
    check(MPI_Reduce_local(Vals, Acc, 3, MPI_INT, Op), "MPI_Reduce_local");
    mix(Commutes), mixBytes(Acc, sizeof Acc);

    MPI_Aint A0, A1;
    check(MPI_Get_address(&Mem[0], &A0), "MPI_Get_address");
    check(MPI_Get_address(&Mem[5], &A1), "MPI_Get_address");
    mix(MPI_Aint_diff(A1, A0));
    mix(MPI_Aint_add(A0, 40) == A1);

    char Msg[MPI_MAX_ERROR_STRING];
    int Len, Flag, Level, Version, Sub;
    check(MPI_Error_string(MPI_ERR_TAG, Msg, &Len), "MPI_Error_string");
    mixBytes(Msg, Len);
    check(MPI_Query_thread(&Level), "MPI_Query_thread");
    check(MPI_Is_thread_main(&Flag), "MPI_Is_thread_main");
    mix(Level), mix(Flag);
    check(MPI_Get_version(&Version, &Sub), "MPI_Get_version");
    mix(Version), mix(Sub);
    char Lib[MPI_MAX_LIBRARY_VERSION_STRING];
    check(MPI_Get_library_version(Lib, &Len), "MPI_Get_library_version");
    mixBytes(Lib, Len);
    char Host[MPI_MAX_PROCESSOR_NAME];
    check(MPI_Get_processor_name(Host, &Len), "MPI_Get_processor_name");
    mix(Len > 0);
    mix(MPI_Wtick() > 0);
    check(MPI_Finalized(&Flag), "MPI_Finalized");
    mix(Flag);
    MPI_Pcontrol(1);

    for (int K = 0; K < 24; ++K)
      Mem[K] = Mem[K] * 0.5 + (double)(H >> 40) / 1e6;
  }

  uint64_t All[64];
  MPI_Gather(&H, 1, MPI_UINT64_T, All, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  MPI_Op_free(&Op);
  MPI_Group_free(&Firsts);
  MPI_Group_free(&World);
  MPI_Type_free(&T);
  MPI_Comm_free(&C);
  check(MPI_Free_mem(Mem), "MPI_Free_mem");
  if (Rank == 0) {
    for (int R = 0; R < Size && R < 64; ++R)
      printf("rank %d: %016llx\n", R, (unsigned long long)All[R]);
  }
  MPI_Finalize();
  int Flag;
  MPI_Finalized(&Flag);
  if (Rank == 0)
    printf("finalized %d\n", Flag);
  return 0;
}
