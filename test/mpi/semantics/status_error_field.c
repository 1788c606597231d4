/* status_error_field.c - the MPI_ERROR field of a status after the calls
 * that complete or find a single message.
 *
 * MPI sets MPI_ERROR only where a call returns several statuses (and then
 * only with MPI_ERR_IN_STATUS); a call that returns one status returns its
 * error as the function's value and leaves the field as the program set it
 * (MPI-3.1 section 3.2.5). A test suite checks exactly that: it sets the
 * field to a value no call returns and reads it back. This program does so
 * for every single-status call of point-to-point communication and prints,
 * per call, the function's value and whether the field kept its value; the
 * test compares the output with and without ccc.
 *
 * usage: mpirun -np 2 status_error_field  (output on rank 0)
 */
#include <mpi.h>
#include <stdio.h>

#include "ccc.h"

#define MARK 0x5a5a

static int Value[16];

static void report(const char *Call, int Err, const MPI_Status *S) {
  printf("%-24s returns %s, MPI_ERROR %s\n", Call,
         Err == MPI_SUCCESS ? "success" : "an error",
         S->MPI_ERROR == MARK ? "left alone" : "overwritten");
}

static void marked(MPI_Status *S) { S->MPI_ERROR = MARK; }

int main(int argc, char **argv) {
  int Rank, Size, Err, Flag, Index;
  MPI_Status S;
  MPI_Request R;
  MPI_Message M;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != 2) {
    if (Rank == 0)
      fprintf(stderr, "status_error_field: run with 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ccc_checkpoint();
  if (Rank == 1) {
    /* One message per receiving call below, tagged by its order. */
    for (int Tag = 1; Tag <= 13; ++Tag)
      MPI_Send(&Tag, 1, MPI_INT, 0, Tag, MPI_COMM_WORLD);
    MPI_Sendrecv(&Size, 1, MPI_INT, 0, 14, Value, 1, MPI_INT, 0, 14,
                 MPI_COMM_WORLD, &S);
  } else {
    marked(&S);
    Err = MPI_Recv(Value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &S);
    report("MPI_Recv", Err, &S);

    MPI_Irecv(Value, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &R);
    marked(&S);
    Err = MPI_Wait(&R, &S);
    report("MPI_Irecv + MPI_Wait", Err, &S);

    MPI_Irecv(Value, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &R);
    do {
      marked(&S);
      Err = MPI_Test(&R, &Flag, &S);
    } while (!Flag);
    report("MPI_Test", Err, &S);

    MPI_Irecv(Value, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &R);
    do {
      marked(&S);
      Err = MPI_Request_get_status(R, &Flag, &S);
    } while (!Flag);
    report("MPI_Request_get_status", Err, &S);
    MPI_Wait(&R, MPI_STATUS_IGNORE);

    MPI_Irecv(Value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &R);
    marked(&S);
    Err = MPI_Waitany(1, &R, &Index, &S);
    report("MPI_Waitany", Err, &S);

    MPI_Irecv(Value, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &R);
    do {
      marked(&S);
      Err = MPI_Testany(1, &R, &Index, &Flag, &S);
    } while (!Flag);
    report("MPI_Testany", Err, &S);

    marked(&S);
    Err = MPI_Probe(1, 7, MPI_COMM_WORLD, &S);
    report("MPI_Probe", Err, &S);
    MPI_Recv(Value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    do {
      marked(&S);
      Err = MPI_Iprobe(1, 8, MPI_COMM_WORLD, &Flag, &S);
    } while (!Flag);
    report("MPI_Iprobe", Err, &S);
    MPI_Recv(Value, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    marked(&S);
    Err = MPI_Mprobe(1, 9, MPI_COMM_WORLD, &M, &S);
    report("MPI_Mprobe", Err, &S);
    marked(&S);
    Err = MPI_Mrecv(Value, 1, MPI_INT, &M, &S);
    report("MPI_Mrecv", Err, &S);

    do {
      marked(&S);
      Err = MPI_Improbe(1, 10, MPI_COMM_WORLD, &Flag, &M, &S);
    } while (!Flag);
    report("MPI_Improbe", Err, &S);
    MPI_Imrecv(Value, 1, MPI_INT, &M, &R);
    marked(&S);
    Err = MPI_Wait(&R, &S);
    report("MPI_Imrecv + MPI_Wait", Err, &S);

    MPI_Recv_init(Value, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &R);
    MPI_Start(&R);
    marked(&S);
    Err = MPI_Wait(&R, &S);
    report("persistent MPI_Wait", Err, &S);
    MPI_Request_free(&R);

    /* A wildcard receive takes the path the non-blocking protocol logs. */
    marked(&S);
    Err = MPI_Recv(Value, 1, MPI_INT, MPI_ANY_SOURCE, 12, MPI_COMM_WORLD, &S);
    report("MPI_Recv any source", Err, &S);

    marked(&S);
    Err = MPI_Recv(Value, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &S);
    report("MPI_Recv any tag", Err, &S);

    marked(&S);
    Err = MPI_Sendrecv(&Rank, 1, MPI_INT, 1, 14, Value, 1, MPI_INT, 1, 14,
                       MPI_COMM_WORLD, &S);
    report("MPI_Sendrecv", Err, &S);
  }
  ccc_checkpoint();
  MPI_Finalize();
  return 0;
}
