// rma_shared.c - MPI-3 shared-memory windows across checkpoints (issue 23;
// both protocols: under the non-blocking one the window's members
// checkpoint together, issue 46): the ranks of a node (MPI_Comm_split_type,
// MPI_COMM_TYPE_SHARED) each own a part of unequal size of one
// MPI_Win_allocate_shared window, find their neighbours' parts with
// MPI_Win_shared_query and read their edge cells by plain loads, in a
// lock_all epoch (MPI_MODE_NOCHECK) held across every checkpoint,
// synchronised by MPI_Win_sync and barriers, as shared-memory halo codes
// do. A second window's attribute (a keyval with a delete callback), its
// error handler (MPI_ERRORS_RETURN, then one of the program's, called with
// MPI_Win_call_errhandler), group, info (hints set by MPI_Win_set_info) and
// MPI_WIN_BASE/MPI_WIN_SIZE are checked after every restart.
//   usage: rma_shared STEPS [one]
// Rank 0 prints checksums of every part (read through its own pointers).
#include "ccc.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int Deleted, Handled;

static int deleteFn(MPI_Win W, int K, void *Val, void *Extra) {
  (void)W, (void)K, (void)Extra;
  Deleted += *(int *)Val;
  return MPI_SUCCESS;
}

static void handler(MPI_Win *W, int *Code, ...) {
  (void)W;
  Handled += *Code == MPI_ERR_OTHER;
}

static void fail(const char *What) {
  fprintf(stderr, "rma_shared: %s\n", What);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv) {
  int Steps = argc > 1 ? atoi(argv[1]) : 1000;
  MPI_Init(&argc, &argv);
  MPI_Comm Node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &Node);
  int Rank, Size;
  MPI_Comm_rank(Node, &Rank);
  MPI_Comm_size(Node, &Size);
  int Left = (Rank + Size - 1) % Size, Right = (Rank + 1) % Size;

  // Parts of unequal size, so that the layout is not a plain stride. With
  // "one", rank 0 allocates every rank's cells and the others none, as
  // codes sharing one array do; each finds its cells in rank 0's part.
  int One = argc > 2 && strcmp(argv[2], "one") == 0;
  int N = 64 + 24 * Rank, NL = 64 + 24 * Left, NR = 64 + 24 * Right;
  int Total = 0, Before = 0;
  for (int P = 0; P < Size; ++P) {
    Before += P < Rank ? 64 + 24 * P : 0;
    Total += 64 + 24 * P;
  }
  double *Mine;
  MPI_Win Win;
  MPI_Win_allocate_shared((One ? (Rank == 0 ? Total : 0) : N) * sizeof(double),
                          sizeof(double), MPI_INFO_NULL, Node, &Mine, &Win);
  MPI_Aint Bytes;
  int Unit;
  double *L, *R;
  if (One) {
    double *All;
    MPI_Win_shared_query(Win, 0, &Bytes, &Unit, &All);
    if (Bytes != Total * (MPI_Aint)sizeof(double))
      fail("rank 0's part");
    Mine = All + Before;
    L = Rank > 0 ? Mine - NL : All + Total - NL;
    R = Rank + 1 < Size ? Mine + N : All;
  } else {
    MPI_Win_shared_query(Win, Left, &Bytes, &Unit, &L);
    if (Bytes != NL * (MPI_Aint)sizeof(double))
      fail("left part");
    MPI_Win_shared_query(Win, Right, &Bytes, &Unit, &R);
    if (Bytes != NR * (MPI_Aint)sizeof(double))
      fail("right part");
  }
  for (int I = 0; I < N; ++I)
    Mine[I] = (double)((Rank * 131 + I * 17) % 23);
  double *Next = malloc(N * sizeof(double));
  MPI_Win_lock_all(MPI_MODE_NOCHECK, Win);
  MPI_Win_sync(Win);
  MPI_Barrier(Node);

  // The second window: program memory, an attribute, an error handler.
  int *Cells = calloc(4, sizeof(int)), *Weight = malloc(sizeof(int));
  *Weight = 1;
  MPI_Win Aux;
  MPI_Win_create(Cells, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, Node,
                 &Aux);
  int Key;
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, deleteFn, &Key, NULL);
  MPI_Win_set_attr(Aux, Key, &Cells[3]); // replaced: deleted, counts 0
  MPI_Win_delete_attr(Aux, Key);
  MPI_Win_set_attr(Aux, Key, Weight);
  MPI_Info Hints;
  MPI_Info_create(&Hints);
  MPI_Info_set(Hints, "accumulate_ordering", "none");
  MPI_Win_set_info(Aux, Hints);
  MPI_Info_free(&Hints);
  MPI_Win_set_errhandler(Aux, MPI_ERRORS_RETURN);
  MPI_Errhandler Mine_h;
  MPI_Win_create_errhandler(handler, &Mine_h);

  for (int S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (int I = 0; I < N; ++I) {
      double A = I > 0 ? Mine[I - 1] : L[NL - 1];
      double B = I + 1 < N ? Mine[I + 1] : R[0];
      Next[I] = 0.5 * Mine[I] + 0.25 * (A + B) + 1e-3 * (Rank + 1);
    }
    MPI_Win_sync(Win);
    MPI_Barrier(Node); // everyone has read the old edges
    memcpy(Mine, Next, N * sizeof(double));
    MPI_Win_sync(Win);
    MPI_Barrier(Node); // everyone's new values are visible
    if (S % 97 == 0) {
      // What the layer keeps of Aux must hold after every restart.
      void *Val;
      int Flag;
      MPI_Win_get_attr(Aux, Key, &Val, &Flag);
      if (!Flag || Val != Weight)
        fail("attribute lost");
      MPI_Win_get_attr(Aux, MPI_WIN_BASE, &Val, &Flag);
      if (!Flag || Val != Cells)
        fail("MPI_WIN_BASE is not the window's memory");
      MPI_Aint *Sz;
      MPI_Win_get_attr(Aux, MPI_WIN_SIZE, &Sz, &Flag);
      if (!Flag || *Sz != 4 * sizeof(int))
        fail("MPI_WIN_SIZE");
      MPI_Errhandler E;
      MPI_Win_get_errhandler(Aux, &E);
      if (E != (S < Steps / 2 ? MPI_ERRORS_RETURN : Mine_h))
        fail("error handler lost");
      MPI_Errhandler_free(&E);
      MPI_Group G, WG;
      MPI_Win_get_group(Aux, &G);
      int GS, Zero = 0, InNode;
      MPI_Group_size(G, &GS);
      MPI_Comm_group(Node, &WG);
      MPI_Group_translate_ranks(WG, 1, &Zero, G, &InNode);
      if (GS != Size || InNode != 0)
        fail("window group");
      MPI_Group_free(&G);
      MPI_Group_free(&WG);
      MPI_Info Info;
      MPI_Win_get_info(Aux, &Info);
      MPI_Info_free(&Info);
      if (S >= Steps / 2) {
        Cells[0]++;
        MPI_Win_call_errhandler(Aux, MPI_ERR_OTHER);
      }
    }
    if (S == Steps / 2)
      MPI_Win_set_errhandler(Aux, Mine_h);
  }
  MPI_Win_unlock_all(Win);
  MPI_Win_free(&Aux);
  MPI_Win_free_keyval(&Key);
  MPI_Errhandler_free(&Mine_h);

  // Rank 0 reads every part through its own pointers.
  if (Rank == 0) {
    double Sum = 0, Weighted = 0;
    for (int P = 0; P < Size; ++P) {
      double *B;
      MPI_Win_shared_query(Win, P, &Bytes, &Unit, &B);
      for (int I = 0; I < (int)(Bytes / sizeof(double)); ++I) {
        Sum += B[I];
        Weighted += B[I] * (I + 1) * (P + 1);
      }
    }
    printf("parts %d sum %.15e weighted %.15e\n", Size, Sum, Weighted);
    printf("handled %d deleted %d cells %d\n", Handled, Deleted, Cells[0]);
  }
  MPI_Win_free(&Win);
  free(Next);
  MPI_Comm_free(&Node);
  MPI_Finalize();
  return 0;
}
