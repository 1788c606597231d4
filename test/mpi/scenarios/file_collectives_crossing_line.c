// file_collectives_crossing_line.c - MPI-IO collectives crossing one
// recovery line of three ranks: ranks 0 and 2 checkpoint first (forced
// sites), then all three write and read a file open across the line with
// each kind of data collective (write_at_all, write_all through a view,
// the split and non-blocking forms, read_at_all, sync), rank 1 still
// before its checkpoint, which it takes after the last one. Rank 1
// SIGKILLs itself after the commit (first run, CROSSING_LINE_KILL set); on
// restart ranks 0 and 2 are behind: they run those 7 collectives as the
// independent reads and writes at the same places, without rank 1, and
// the file and what every rank read must be what an uninterrupted run
// gives (rank 0 prints a hash of the whole file).
//   usage: file_collectives_crossing_line   (exactly 3 ranks)
#include "ccc.h"

#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { N = 64 }; // doubles per rank per write

static double Acc = 1.0;

static void take(const double *V, int Count) {
  for (int I = 0; I < Count; ++I)
    Acc = Acc * 1.000001 + V[I];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  if (Size != 3) {
    if (Rank == 0)
      fprintf(stderr, "file_collectives_crossing_line: run with 3 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_File F;
  MPI_File_open(MPI_COMM_WORLD, "crossing.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
                MPI_INFO_NULL, &F);
  MPI_File_set_size(F, 0);
  // The view for the pointer-based writes: every rank its own N doubles of
  // each block of 3N.
  MPI_Datatype Block, Tiled;
  MPI_Type_contiguous(N, MPI_DOUBLE, &Block);
  MPI_Type_create_resized(Block, 0, 3 * N * sizeof(double), &Tiled);
  MPI_Type_commit(&Tiled);
  MPI_File_set_view(F, (MPI_Offset)Rank * N * sizeof(double), MPI_DOUBLE, Tiled,
                    "native", MPI_INFO_NULL);
  MPI_Type_free(&Tiled);
  MPI_Type_free(&Block);
  double Mine[N], Got[3 * N];
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank != 1)
    ccc_checkpoint_force(); // the line of ranks 0 and 2

  for (int I = 0; I < N; ++I)
    Mine[I] = 1.0 / (3 + Rank * N + I);
  MPI_File_write_all(F, Mine, N, MPI_DOUBLE, MPI_STATUS_IGNORE); // 1
  for (int I = 0; I < N; ++I)
    Mine[I] *= 2;
  MPI_File_write_all_begin(F, Mine, N, MPI_DOUBLE); // 2
  MPI_File_write_all_end(F, Mine, MPI_STATUS_IGNORE);
  for (int I = 0; I < N; ++I)
    Mine[I] += Rank;
  MPI_Request Req;
  MPI_File_iwrite_all(F, Mine, N, MPI_DOUBLE, &Req); // 3
  MPI_Wait(&Req, MPI_STATUS_IGNORE);
  MPI_File_sync(F); // 4
  // Explicit offsets are in etypes of the view (doubles, from the
  // displacement): rank R's 4th block.
  MPI_File_write_at_all(F, 9 * N, Mine, N, MPI_DOUBLE, MPI_STATUS_IGNORE); // 5
  MPI_File_sync(F);                                                        // 6
  // This rank's first three blocks, read back.
  MPI_Status St;
  MPI_File_read_at_all(F, 0, Got, 3 * N, MPI_DOUBLE, &St); // 7
  int Count;
  MPI_Get_count(&St, MPI_DOUBLE, &Count);
  take(Got, Count);
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank == 1)
    ccc_checkpoint(); // rank 1's line: the others have started a checkpoint

  // Let the period end and rank 0 commit, then kill rank 1.
  for (int I = 0; I < 40; ++I) {
    double V = I + Rank;
    MPI_Allreduce(MPI_IN_PLACE, &V, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    take(&V, 1);
    usleep(5000);
  }
  if (Rank == 1 && !ccc_restarted() && getenv("CROSSING_LINE_KILL"))
    raise(SIGKILL);
  MPI_Offset Bytes;
  MPI_File_get_size(F, &Bytes);
  MPI_File_close(&F);
  double All;
  MPI_Reduce(&Acc, &All, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (Rank == 0) {
    // The whole file's bytes, hashed (FNV-1a).
    FILE *In = fopen("crossing.dat", "rb");
    uint64_t H = 1469598103934665603ULL;
    int C;
    while (In && (C = fgetc(In)) != EOF)
      H = (H ^ (uint64_t)C) * 1099511628211ULL;
    if (In)
      fclose(In);
    printf("file_collectives_crossing_line: %a, %lld bytes, hash %016llx\n",
           All, (long long)Bytes, (unsigned long long)H);
  }
  MPI_Finalize();
  return 0;
}
