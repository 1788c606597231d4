// pmpi_bytes.c - records the buffer, count and datatype of every
// point-to-point PMPI call the layer makes on the program's communicators,
// then calls MPI's own. Linked into the test program (not through the
// pass): the layer is a static library, so its PMPI_* calls bind to these
// definitions, and each finds MPI's function with dlsym(RTLD_NEXT) (as
// bench/mpi/pmpicount.c does from LD_PRELOAD).
#define _GNU_SOURCE
#include "pmpi_bytes.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxCalls = 512 };
static PmpiCall Calls[kMaxCalls];
static int NCalls;

int pmpiBytesCalls(const PmpiCall **Out) {
  *Out = Calls;
  return NCalls;
}

static void *next(const char *Name) {
  void *F = dlsym(RTLD_NEXT, Name);
  if (!F) {
    fprintf(stderr, "ccc: pmpi_bytes: %s not found after the program\n", Name);
    abort();
  }
  return F;
}

// The program's communicators are MPI_COMM_WORLD (the layer may hand MPI a
// handle of its own for it, identical in group and context); the layer's
// control communicator is a duplicate, congruent only.
static int programComm(MPI_Comm C) {
  int R;
  if (C == MPI_COMM_WORLD)
    return 1;
  PMPI_Comm_compare(C, MPI_COMM_WORLD, &R);
  return R == MPI_IDENT;
}

static void note(int Kind, const char *Name, const void *B, int N,
                 MPI_Datatype T, int Peer, int Tag, MPI_Comm C) {
  if (!programComm(C))
    return;
  if (NCalls == kMaxCalls) {
    fprintf(stderr, "ccc: pmpi_bytes: more than %d calls\n", kMaxCalls);
    abort();
  }
  PmpiCall *P = &Calls[NCalls++];
  MPI_Aint Lb;
  P->Kind = Kind;
  P->Name = Name;
  P->Buf = B;
  P->Count = N;
  PMPI_Type_size(T, &P->TypeSize);
  PMPI_Type_get_extent(T, &Lb, &P->Extent);
  P->Packed = T == MPI_PACKED;
  P->Peer = Peer;
  P->Tag = Tag;
}

#define SEND_PARAMS                                                            \
  (const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C)
#define ISEND_PARAMS                                                           \
  (const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C,           \
   MPI_Request *Q)
#define RECV_PARAMS                                                            \
  (void *B, int N, MPI_Datatype T, int S, int Tag, MPI_Comm C, MPI_Status *St)
#define IRECV_PARAMS                                                           \
  (void *B, int N, MPI_Datatype T, int S, int Tag, MPI_Comm C, MPI_Request *Q)

#define WRAP(KIND, NAME, PARAMS, ARGS, PEER)                                   \
  int NAME PARAMS {                                                            \
    static int(*F) PARAMS;                                                     \
    if (!F)                                                                    \
      F = (int(*) PARAMS)next(#NAME);                                          \
    note(KIND, #NAME, B, N, T, PEER, Tag, C);                                  \
    return F ARGS;                                                             \
  }

WRAP(kPmpiSend, PMPI_Send, SEND_PARAMS, (B, N, T, D, Tag, C), D)
WRAP(kPmpiSend, PMPI_Ssend, SEND_PARAMS, (B, N, T, D, Tag, C), D)
WRAP(kPmpiSend, PMPI_Rsend, SEND_PARAMS, (B, N, T, D, Tag, C), D)
WRAP(kPmpiSend, PMPI_Bsend, SEND_PARAMS, (B, N, T, D, Tag, C), D)
WRAP(kPmpiSend, PMPI_Isend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiSend, PMPI_Issend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiSend, PMPI_Irsend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiSend, PMPI_Ibsend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiSend, PMPI_Send_init, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiSend, PMPI_Ssend_init, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiSend, PMPI_Rsend_init, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiSend, PMPI_Bsend_init, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), D)
WRAP(kPmpiRecv, PMPI_Recv, RECV_PARAMS, (B, N, T, S, Tag, C, St), S)
WRAP(kPmpiRecv, PMPI_Irecv, IRECV_PARAMS, (B, N, T, S, Tag, C, Q), S)
WRAP(kPmpiRecv, PMPI_Recv_init, IRECV_PARAMS, (B, N, T, S, Tag, C, Q), S)

int PMPI_Sendrecv(const void *SB, int SN, MPI_Datatype ST, int D, int STag,
                  void *RB, int RN, MPI_Datatype RT, int S, int RTag,
                  MPI_Comm C, MPI_Status *St) {
  static int (*F)(const void *, int, MPI_Datatype, int, int, void *, int,
                  MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
  if (!F)
    F = (int (*)(const void *, int, MPI_Datatype, int, int, void *, int,
                 MPI_Datatype, int, int, MPI_Comm,
                 MPI_Status *))next("PMPI_Sendrecv");
  note(kPmpiSend, "PMPI_Sendrecv", SB, SN, ST, D, STag, C);
  note(kPmpiRecv, "PMPI_Sendrecv", RB, RN, RT, S, RTag, C);
  return F(SB, SN, ST, D, STag, RB, RN, RT, S, RTag, C, St);
}
