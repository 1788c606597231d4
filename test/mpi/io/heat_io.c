// heat_io.c - a 2-D heat stencil on a Cartesian grid of ranks that writes
// its results with MPI-IO through files open across checkpoints:
//   field.dat  every OUT steps the whole field, each rank's block through a
//              subarray view (filetype freed right after set_view, as
//              codes do), collective writes through the individual pointer
//              (write_all, and its split form every other time);
//   log.txt    a line per rank per output through write_ordered (the
//              shared pointer), emptied with set_size at the start; its
//              error handler is the program's, called at every output;
//   rank.R.dat each rank's own file on MPI_COMM_SELF, a non-blocking write
//              left open across the next site (waited for after it).
// At the end every rank reads field.dat back (read_at_all), rank 0 prints
// checksums, the files' sizes and pointers. After kills and restarts the
// output and the files must be byte-identical to a plain build's run.
//   usage: heat_io STEPS [OUT]
#include "ccc.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 48, NY = 32 }; // the global grid

static void check(int Err, const char *What) {
  if (Err != MPI_SUCCESS) {
    char Msg[MPI_MAX_ERROR_STRING];
    int Len;
    MPI_Error_string(Err, Msg, &Len);
    fprintf(stderr, "%s: %s\n", What, Msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

// log.txt's error handler, one of the program's: called by
// MPI_File_call_errhandler at every output, with the program's handle.
static MPI_File LogFile;
static long Handled;
static void onLogError(MPI_File *F, int *Code, ...) {
  if (*F != LogFile || *Code != MPI_ERR_OTHER)
    MPI_Abort(MPI_COMM_WORLD, 5);
  ++Handled;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Size, Rank;
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  int Dims[2] = {0, 0}, Periods[2] = {0, 0};
  MPI_Dims_create(Size, 2, Dims);
  MPI_Comm Grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, Dims, Periods, 1, &Grid);
  MPI_Comm_rank(Grid, &Rank);
  int Coords[2];
  MPI_Cart_coords(Grid, Rank, 2, Coords);
  long Steps = argc > 1 ? atol(argv[1]) : 400;
  long Out = argc > 2 ? atol(argv[2]) : 25;

  // This rank's block (rows split along dimension 0, columns along 1).
  int Rows = NX / Dims[0], Cols = NY / Dims[1];
  int R0 = Coords[0] * Rows, C0 = Coords[1] * Cols;
  double *T = calloc((size_t)(Rows + 2) * (Cols + 2), sizeof(double));
  double *N = calloc((size_t)(Rows + 2) * (Cols + 2), sizeof(double));
  double *Block = malloc((size_t)Rows * Cols * sizeof(double));
#define AT(A, I, J) (A)[(size_t)(I) * (Cols + 2) + (J)]
  for (int I = 1; I <= Rows; ++I)
    for (int J = 1; J <= Cols; ++J)
      AT(T, I, J) = ((R0 + I) * 7 + (C0 + J) * 3) % 11;

  int Up, Down, Left, Right;
  MPI_Cart_shift(Grid, 0, 1, &Up, &Down);
  MPI_Cart_shift(Grid, 1, 1, &Left, &Right);
  MPI_Datatype Column;
  MPI_Type_vector(Rows, 1, Cols + 2, MPI_DOUBLE, &Column);
  MPI_Type_commit(&Column);

  MPI_File Field, Log, Mine;
  check(MPI_File_open(Grid, "field.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                      MPI_INFO_NULL, &Field),
        "open field.dat");
  int Sizes[2] = {NX, NY}, Sub[2] = {Rows, Cols}, Starts[2] = {R0, C0};
  MPI_Datatype Filetype;
  MPI_Type_create_subarray(2, Sizes, Sub, Starts, MPI_ORDER_C, MPI_DOUBLE,
                           &Filetype);
  MPI_Type_commit(&Filetype);
  check(MPI_File_set_view(Field, 0, MPI_DOUBLE, Filetype, "native",
                          MPI_INFO_NULL),
        "set_view field.dat");
  MPI_Type_free(&Filetype);
  check(MPI_File_open(Grid, "log.txt", MPI_MODE_CREATE | MPI_MODE_WRONLY,
                      MPI_INFO_NULL, &Log),
        "open log.txt");
  check(MPI_File_set_size(Log, 0), "set_size log.txt"); // a fresh log
  MPI_Errhandler LogErrors;
  MPI_File_create_errhandler(onLogError, &LogErrors);
  MPI_File_set_errhandler(Log, LogErrors);
  MPI_Errhandler_free(&LogErrors); // the file keeps it
  LogFile = Log;
  char Name[32];
  snprintf(Name, sizeof(Name), "rank.%d.dat", Rank);
  check(MPI_File_open(MPI_COMM_SELF, Name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                      MPI_INFO_NULL, &Mine),
        "open rank file");
  MPI_File_set_size(Mine, 0);
  MPI_File_set_errhandler(Mine, MPI_ERRORS_ARE_FATAL);
  // A handle through Fortran's integer and back is the same handle.
  if (MPI_File_f2c(MPI_File_c2f(Mine)) != Mine)
    MPI_Abort(MPI_COMM_WORLD, 4);

  MPI_Request Pending = MPI_REQUEST_NULL;
  double Stamp[2];
  long Outputs = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    if (Pending != MPI_REQUEST_NULL) { // open across the site
      MPI_Status St;
      MPI_Wait(&Pending, &St);
      int Got;
      MPI_Get_count(&St, MPI_DOUBLE, &Got);
      if (Got != 2)
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Sendrecv(&AT(T, 1, 1), Cols, MPI_DOUBLE, Up, 0, &AT(T, Rows + 1, 1),
                 Cols, MPI_DOUBLE, Down, 0, Grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(T, Rows, 1), Cols, MPI_DOUBLE, Down, 1, &AT(T, 0, 1), Cols,
                 MPI_DOUBLE, Up, 1, Grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(T, 1, 1), 1, Column, Left, 2, &AT(T, 1, Cols + 1), 1,
                 Column, Right, 2, Grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(T, 1, Cols), 1, Column, Right, 3, &AT(T, 1, 0), 1, Column,
                 Left, 3, Grid, MPI_STATUS_IGNORE);
    for (int I = 1; I <= Rows; ++I)
      for (int J = 1; J <= Cols; ++J)
        AT(N, I, J) =
            AT(T, I, J) +
            0.1 * (AT(T, I - 1, J) + AT(T, I + 1, J) + AT(T, I, J - 1) +
                   AT(T, I, J + 1) - 4 * AT(T, I, J)) +
            0.001 * ((R0 + I + C0 + J) % 7); // sources
    double *Swap = T;
    T = N;
    N = Swap;
    if (S % Out != Out - 1)
      continue;
    for (int I = 0; I < Rows; ++I)
      memcpy(Block + (size_t)I * Cols, &AT(T, I + 1, 1), Cols * sizeof(double));
    if (Outputs % 2 == 0) {
      check(MPI_File_write_all(Field, Block, Rows * Cols, MPI_DOUBLE,
                               MPI_STATUS_IGNORE),
            "write_all");
    } else {
      check(MPI_File_write_all_begin(Field, Block, Rows * Cols, MPI_DOUBLE),
            "write_all_begin");
      check(MPI_File_write_all_end(Field, Block, MPI_STATUS_IGNORE),
            "write_all_end");
    }
    double Local = 0;
    for (int K = 0; K < Rows * Cols; ++K)
      Local += Block[K];
    char Line[96];
    int Len = snprintf(Line, sizeof(Line), "step %6ld rank %d sum %.12f\n", S,
                       Rank, Local);
    check(MPI_File_write_ordered(Log, Line, Len, MPI_CHAR, MPI_STATUS_IGNORE),
          "write_ordered");
    Stamp[0] = (double)S;
    Stamp[1] = Local;
    // Appended at the file's end, as its size says (the file is cut back
    // to its size at the checkpoint on restart, or this would append
    // twice what the run wrote after it).
    MPI_Offset End;
    MPI_File_get_size(Mine, &End);
    check(MPI_File_iwrite_at(Mine, End, Stamp, 2, MPI_DOUBLE, &Pending),
          "iwrite_at");
    ++Outputs;
    MPI_File_call_errhandler(Log, MPI_ERR_OTHER);
  }
  if (Pending != MPI_REQUEST_NULL)
    MPI_Wait(&Pending, MPI_STATUS_IGNORE);

  // Every rank's writes done before the sizes are read.
  MPI_File_sync(Field);
  MPI_File_sync(Log);
  MPI_Barrier(Grid);
  MPI_File_sync(Field);
  MPI_File_sync(Log);
  MPI_Offset Pos, FieldSize, LogSize, MineSize;
  MPI_File_get_position(Field, &Pos);
  MPI_File_get_size(Field, &FieldSize);
  MPI_File_get_size(Log, &LogSize);
  MPI_File_get_size(Mine, &MineSize);
  MPI_File_close(&Field);
  MPI_File_close(&Log);
  MPI_File_close(&Mine);

  // Read back the last snapshot of the whole field on every rank.
  check(
      MPI_File_open(Grid, "field.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &Field),
      "reopen field.dat");
  double *All = malloc(sizeof(double) * NX * NY);
  MPI_Offset Last =
      Outputs ? (Outputs - 1) * (MPI_Offset)sizeof(double) * NX * NY : 0;
  MPI_Status St;
  check(MPI_File_read_at_all(Field, Last, All, Outputs ? NX * NY : 0,
                             MPI_DOUBLE, &St),
        "read_at_all");
  MPI_File_close(&Field);
  double Check = 0;
  for (int K = 0; K < NX * NY; ++K)
    Check += All[K] * (1 + K % 13);
  if (Rank == 0)
    printf("outputs %ld field %lld bytes log %lld bytes rank file %lld bytes "
           "position %lld checksum %.12f handled %ld\n",
           Outputs, (long long)FieldSize, (long long)LogSize,
           (long long)MineSize, (long long)Pos, Check, Handled);
  MPI_Type_free(&Column);
  MPI_Comm_free(&Grid);
  free(All);
  free(Block);
  free(T);
  free(N);
  MPI_Finalize();
  return 0;
}
