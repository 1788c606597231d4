// pmpicount.c - an LD_PRELOAD library for bench/mpi/growth.py: counts, per
// rank, the PMPI calls a ccc build makes into the MPI library, a count that
// does not rely on the layer's own (CCC_MPI_COUNTS). The layer is linked
// into the program and calls PMPI_*, which the dynamic linker binds to this
// library first; each wrapper counts and calls the MPI library's PMPI_*.
// Sends are counted on MPI_COMM_WORLD (the program's own messages: growth.c
// uses no other communicator) and on any other communicator (the layer's
// control communicator); collectives on MPI_COMM_WORLD and elsewhere.
//
// At PMPI_Finalize each rank appends one line to $PMPICOUNT_FILE:
//   rank R world_sends A other_sends B world_colls C other_colls D
#define _GNU_SOURCE
#include <mpi.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long WorldSends, OtherSends, WorldColls, OtherColls;

static int isWorld(MPI_Comm C) {
  int R;
  if (C == MPI_COMM_WORLD)
    return 1;
  // The layer may use a handle of its own for the world group's
  // communicator; a congruent communicator that is not a dup is not one.
  PMPI_Comm_compare(C, MPI_COMM_WORLD, &R);
  return R == MPI_IDENT;
}

static void *next(const char *Name) {
  void *F = dlsym(RTLD_NEXT, Name);
  if (!F) {
    fprintf(stderr, "pmpicount: %s not found\n", Name);
    abort();
  }
  return F;
}

#define SEND(C) (isWorld(C) ? ++WorldSends : ++OtherSends)
#define COLL(C) (isWorld(C) ? ++WorldColls : ++OtherColls)

// Point-to-point sends.
#define WRAP_SEND(NAME, PARAMS, ARGS, COMM)                                    \
  int NAME PARAMS {                                                            \
    static int(*F) PARAMS;                                                     \
    if (!F)                                                                    \
      F = (int(*) PARAMS)next(#NAME);                                          \
    SEND(COMM);                                                                \
    return F ARGS;                                                             \
  }

#define SEND_PARAMS                                                            \
  (const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C)
#define ISEND_PARAMS                                                           \
  (const void *B, int N, MPI_Datatype T, int D, int Tag, MPI_Comm C,           \
   MPI_Request *Q)
WRAP_SEND(PMPI_Send, SEND_PARAMS, (B, N, T, D, Tag, C), C)
WRAP_SEND(PMPI_Ssend, SEND_PARAMS, (B, N, T, D, Tag, C), C)
WRAP_SEND(PMPI_Rsend, SEND_PARAMS, (B, N, T, D, Tag, C), C)
WRAP_SEND(PMPI_Bsend, SEND_PARAMS, (B, N, T, D, Tag, C), C)
WRAP_SEND(PMPI_Isend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), C)
WRAP_SEND(PMPI_Issend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), C)
WRAP_SEND(PMPI_Irsend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), C)
WRAP_SEND(PMPI_Ibsend, ISEND_PARAMS, (B, N, T, D, Tag, C, Q), C)
WRAP_SEND(PMPI_Sendrecv,
          (const void *SB, int SN, MPI_Datatype ST, int D, int STag, void *RB,
           int RN, MPI_Datatype RT, int Src, int RTag, MPI_Comm C,
           MPI_Status *S),
          (SB, SN, ST, D, STag, RB, RN, RT, Src, RTag, C, S), C)
WRAP_SEND(PMPI_Sendrecv_replace,
          (void *B, int N, MPI_Datatype T, int D, int STag, int Src, int RTag,
           MPI_Comm C, MPI_Status *S),
          (B, N, T, D, STag, Src, RTag, C, S), C)

// The collectives growth.c and the layer use.
#define WRAP_COLL(NAME, PARAMS, ARGS, COMM)                                    \
  int NAME PARAMS {                                                            \
    static int(*F) PARAMS;                                                     \
    if (!F)                                                                    \
      F = (int(*) PARAMS)next(#NAME);                                          \
    COLL(COMM);                                                                \
    return F ARGS;                                                             \
  }
WRAP_COLL(PMPI_Allreduce,
          (const void *S, void *R, int N, MPI_Datatype T, MPI_Op O, MPI_Comm C),
          (S, R, N, T, O, C), C)
WRAP_COLL(PMPI_Iallreduce,
          (const void *S, void *R, int N, MPI_Datatype T, MPI_Op O, MPI_Comm C,
           MPI_Request *Q),
          (S, R, N, T, O, C, Q), C)
WRAP_COLL(PMPI_Reduce,
          (const void *S, void *R, int N, MPI_Datatype T, MPI_Op O, int Root,
           MPI_Comm C),
          (S, R, N, T, O, Root, C), C)
WRAP_COLL(PMPI_Bcast, (void *B, int N, MPI_Datatype T, int Root, MPI_Comm C),
          (B, N, T, Root, C), C)
WRAP_COLL(PMPI_Barrier, (MPI_Comm C), (C), C)
WRAP_COLL(PMPI_Ibarrier, (MPI_Comm C, MPI_Request *Q), (C, Q), C)
WRAP_COLL(PMPI_Allgather,
          (const void *S, int SN, MPI_Datatype ST, void *R, int RN,
           MPI_Datatype RT, MPI_Comm C),
          (S, SN, ST, R, RN, RT, C), C)
WRAP_COLL(PMPI_Gather,
          (const void *S, int SN, MPI_Datatype ST, void *R, int RN,
           MPI_Datatype RT, int Root, MPI_Comm C),
          (S, SN, ST, R, RN, RT, Root, C), C)

int PMPI_Finalize(void) {
  static int (*F)(void);
  if (!F)
    F = (int (*)(void))next("PMPI_Finalize");
  const char *Path = getenv("PMPICOUNT_FILE");
  int Rank;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  if (Path) {
    char Line[200];
    int N = snprintf(Line, sizeof(Line),
                     "rank %d world_sends %llu other_sends %llu world_colls "
                     "%llu other_colls %llu\n",
                     Rank, WorldSends, OtherSends, WorldColls, OtherColls);
    int Fd = open(Path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (Fd < 0 || write(Fd, Line, N) != N)
      perror("pmpicount");
    if (Fd >= 0)
      close(Fd);
  }
  return F();
}
