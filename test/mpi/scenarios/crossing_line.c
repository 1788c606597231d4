// crossing_line.c - forces, in a fixed order, every case of C3's
// non-blocking protocol across one recovery line of three ranks, then
// SIGKILLs rank 1 (in the first run, when CROSSING_LINE_KILL is set) after
// the line is committed; the restart must replay the log and print what an
// uninterrupted run prints.
//
// Ranks 0 and 2 checkpoint first (forced sites). Rank 1 checkpoints last,
// so until then ranks 0 and 2 are in NonDet-Log mode and:
//   early    0 -> 1 (tag 2, and the release, tag 11): sent after 0's line,
//            received before 1's; registered, and suppressed on restart;
//   late     1 -> 0 (tag 1): sent before 1's line, received after 0's;
//            logged with its data, replayed from the log; also two of a
//            strided datatype (tags 3 and 4), the first of them 3 doubles
//            that end inside the receive's 4-double element;
//   request  rank 0 posts a receive (tag 5) before its line that a late
//            message completes after it: completed from the log on restart;
//   wildcard 2 -> 0 (tags 7, 8) received with MPI_ANY_TAG: the choice is
//            logged and replayed;
//   test     rank 0 tests a receive from 2 three times while 2 waits (they
//            fail), then until it succeeds: the outcomes are replayed;
//   collective an Allreduce that rank 1 enters before its line and ranks 0
//            and 2 after theirs: late and early collective messages.
//   usage: crossing_line   (exactly 3 ranks)
#include "ccc.h"

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double Acc = 1.0; // every received value goes in; order matters

static void take(double V) { Acc = Acc * 1.000001 + V; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != 3) {
    if (Rank == 0)
      fprintf(stderr, "crossing_line: run with 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double Got, X, Sum, Mine = 1.0 + Rank;
  MPI_Request R;
  MPI_Status S;
  MPI_Datatype Four; // 4 doubles, every other one
  MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &Four);
  MPI_Type_commit(&Four);
  if (Rank == 0)
    MPI_Irecv(&X, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, &R);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 0) {
    ccc_checkpoint_force(); // rank 0's line
    double Early = 3.125;
    MPI_Send(&Early, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
    for (int I = 0; I < 2; ++I) {
      MPI_Recv(&Got, 1, MPI_DOUBLE, 2, MPI_ANY_TAG, MPI_COMM_WORLD, &S);
      take(Got * S.MPI_TAG);
    }
    double Y;
    MPI_Request T;
    MPI_Irecv(&Y, 1, MPI_DOUBLE, 2, 9, MPI_COMM_WORLD, &T);
    int Flag = 0, Fails = 0;
    for (int I = 0; I < 3; ++I) { // rank 2 waits for Go: these fail
      MPI_Test(&T, &Flag, MPI_STATUS_IGNORE);
      Fails += !Flag;
    }
    int Go = 1;
    MPI_Send(&Go, 1, MPI_INT, 2, 10, MPI_COMM_WORLD);
    while (!Flag)
      MPI_Test(&T, &Flag, MPI_STATUS_IGNORE);
    take(Y + Fails);
    MPI_Recv(&Got, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    take(Got);
    for (int Tag = 3; Tag <= 4; ++Tag) {
      double In[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      int Elements;
      MPI_Recv(In, 1, Four, 1, Tag, MPI_COMM_WORLD, &S);
      MPI_Get_elements(&S, MPI_DOUBLE, &Elements);
      for (int I = 0; I < 8; ++I)
        take(In[I] * (I + 1));
      take(Elements);
    }
    MPI_Wait(&R, MPI_STATUS_IGNORE);
    take(X);
    MPI_Send(&Go, 1, MPI_INT, 1, 11, MPI_COMM_WORLD); // release rank 1
    MPI_Allreduce(&Mine, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (Rank == 1) {
    MPI_Recv(&Got, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    take(Got);
    double Late = 11.5, Req = 17.25;
    MPI_Send(&Late, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    MPI_Send(&Req, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
    double Three[3] = {1.5, 2.5, 3.5}, Strided[8] = {4, -1, 5, -1, 6, -1, 7};
    MPI_Send(Three, 3, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    MPI_Send(Strided, 1, Four, 0, 4, MPI_COMM_WORLD);
    int Go;
    MPI_Recv(&Go, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&Mine, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ccc_checkpoint(); // rank 1's line: others have started a checkpoint
  } else {
    ccc_checkpoint_force(); // rank 2's line
    double A = 7.0, B = 8.0, C = 9.0;
    MPI_Send(&A, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    MPI_Send(&B, 1, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
    int Go;
    MPI_Recv(&Go, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&C, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD);
    MPI_Allreduce(&Mine, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  take(Sum);
  // Let the checkpoint period end and rank 0 commit, then kill rank 1.
  for (int I = 0; I < 40; ++I) {
    double V = I + Rank;
    MPI_Allreduce(MPI_IN_PLACE, &V, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    take(V);
    usleep(5000);
  }
  if (Rank == 1 && !ccc_restarted() && getenv("CROSSING_LINE_KILL"))
    raise(SIGKILL);
  double All;
  MPI_Reduce(&Acc, &All, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0)
    printf("crossing_line: %a\n", All);
  MPI_Type_free(&Four);
  MPI_Finalize();
  return 0;
}
