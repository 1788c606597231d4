// hdf5_fields.c - a diffusion code's output through parallel HDF5, in the
// way such codes write it: the file is created before the time loop (MPI-IO
// driver, collective transfers), and every OUT steps a group "step_NNNNNN"
// gets the field as one dataset written collectively by hyperslabs (each
// rank its slab) and attributes (time, step, the field's sum). HDF5's
// state lives in the library (its open-object tables in .bss, its
// structures in the heap it allocates), which images must hold: without it
// every HDF5 call after a restart fails. At the end the file is closed,
// reopened and every group read back into one summary line per group; the
// output is that summary.
//   usage: hdf5_fields STEPS OUT [FILE]
#include "ccc.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { Local = 4096 };

static void check(herr_t E, const char *What) {
  if (E < 0) {
    fprintf(stderr, "hdf5_fields: %s failed\n", What);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

static void writeStep(hid_t File, long Step, const double *U, int Rank,
                      int Size, double Sum) {
  char Name[32];
  snprintf(Name, sizeof(Name), "step_%06ld", Step);
  hid_t G = H5Gcreate2(File, Name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  check(G, "H5Gcreate2");
  hsize_t Dims = (hsize_t)Local * Size, Start = (hsize_t)Local * Rank,
          Count = Local;
  hid_t FileSpace = H5Screate_simple(1, &Dims, NULL);
  hid_t Set = H5Dcreate2(G, "u", H5T_NATIVE_DOUBLE, FileSpace, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
  check(Set, "H5Dcreate2");
  check(H5Sselect_hyperslab(FileSpace, H5S_SELECT_SET, &Start, NULL, &Count,
                            NULL),
        "H5Sselect_hyperslab");
  hid_t MemSpace = H5Screate_simple(1, &Count, NULL);
  hid_t Xfer = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(Xfer, H5FD_MPIO_COLLECTIVE);
  check(H5Dwrite(Set, H5T_NATIVE_DOUBLE, MemSpace, FileSpace, Xfer, U),
        "H5Dwrite");
  hid_t Scalar = H5Screate(H5S_SCALAR);
  double Time = Step * 0.25;
  hid_t A = H5Acreate2(G, "time", H5T_NATIVE_DOUBLE, Scalar, H5P_DEFAULT,
                       H5P_DEFAULT);
  check(H5Awrite(A, H5T_NATIVE_DOUBLE, &Time), "H5Awrite");
  H5Aclose(A);
  A = H5Acreate2(G, "sum", H5T_NATIVE_DOUBLE, Scalar, H5P_DEFAULT, H5P_DEFAULT);
  check(H5Awrite(A, H5T_NATIVE_DOUBLE, &Sum), "H5Awrite");
  H5Aclose(A);
  H5Sclose(Scalar);
  H5Pclose(Xfer);
  H5Sclose(MemSpace);
  H5Sclose(FileSpace);
  H5Dclose(Set);
  H5Gclose(G);
}

// Every group's name, attributes and dataset sum, in name order.
static herr_t summarise(hid_t G, const char *Name, const H5L_info_t *Info,
                        void *Data) {
  (void)Info;
  int *N = Data;
  hid_t Sub = H5Gopen2(G, Name, H5P_DEFAULT);
  double Time = -1, Sum = -1, Read = 0;
  hid_t A = H5Aopen(Sub, "time", H5P_DEFAULT);
  H5Aread(A, H5T_NATIVE_DOUBLE, &Time);
  H5Aclose(A);
  A = H5Aopen(Sub, "sum", H5P_DEFAULT);
  H5Aread(A, H5T_NATIVE_DOUBLE, &Sum);
  H5Aclose(A);
  hid_t Set = H5Dopen2(Sub, "u", H5P_DEFAULT);
  hid_t Space = H5Dget_space(Set);
  hssize_t Len = H5Sget_simple_extent_npoints(Space);
  double *V = malloc(sizeof(double) * (size_t)Len);
  H5Dread(Set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, V);
  for (hssize_t I = 0; I < Len; ++I)
    Read += V[I];
  free(V);
  H5Sclose(Space);
  H5Dclose(Set);
  H5Gclose(Sub);
  printf("%s time %.2f sum %.12e read %.12e\n", Name, Time, Sum, Read);
  ++*N;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int Rank, Size;
  MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
  MPI_Comm_size(MPI_COMM_WORLD, &Size);
  long Steps = argc > 1 ? atol(argv[1]) : 2000;
  long Out = argc > 2 ? atol(argv[2]) : 50;
  const char *Path = argc > 3 ? argv[3] : "fields.h5";

  hid_t Fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(Fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  hid_t File = H5Fcreate(Path, H5F_ACC_TRUNC, H5P_DEFAULT, Fapl);
  check(File, "H5Fcreate");
  H5Pclose(Fapl);

  double *U = malloc(sizeof(double) * (Local + 2)),
         *V = malloc(sizeof(double) * (Local + 2));
  for (int I = 0; I < Local + 2; ++I)
    U[I] = (Rank * Local + I) % 97 == 0 ? 1.0 : 0.0;
  int Left = Rank > 0 ? Rank - 1 : MPI_PROC_NULL;
  int Right = Rank + 1 < Size ? Rank + 1 : MPI_PROC_NULL;
  double Sum = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    MPI_Sendrecv(&U[1], 1, MPI_DOUBLE, Left, 0, &U[Local + 1], 1, MPI_DOUBLE,
                 Right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&U[Local], 1, MPI_DOUBLE, Right, 1, &U[0], 1, MPI_DOUBLE, Left,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int I = 1; I <= Local; ++I)
      V[I] = U[I] + 0.2 * (U[I - 1] - 2 * U[I] + U[I + 1]);
    double *T = U;
    U = V, V = T;
    if (S % Out == Out - 1) {
      double Mine = 0;
      for (int I = 1; I <= Local; ++I)
        Mine += U[I];
      MPI_Allreduce(&Mine, &Sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      writeStep(File, S + 1, U + 1, Rank, Size, Sum);
    }
  }
  check(H5Fclose(File), "H5Fclose");

  if (Rank == 0) {
    hid_t In = H5Fopen(Path, H5F_ACC_RDONLY, H5P_DEFAULT);
    check(In, "H5Fopen");
    int N = 0;
    H5Literate(In, H5_INDEX_NAME, H5_ITER_INC, NULL, summarise, &N);
    H5Fclose(In);
    printf("groups %d sum %.12e\n", N, Sum);
  }
  free(U);
  free(V);
  MPI_Finalize();
  return 0;
}
