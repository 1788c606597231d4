// hdf5_series.c - a serial simulation's time series through HDF5, as small
// codes write them: the file is created before the loop with an extendable,
// chunked dataset; every OUT steps the dataset grows by one row (the state
// of a few probes) and an attribute counts the rows. Serial HDF5 keeps the
// file's descriptor and its caches in its own memory: after a restart the
// descriptor must be open again at the same number and the caches be
// HDF5's at the checkpoint. At the end the file is closed, reopened and
// summarised; the summary is the output.
//   usage: hdf5_series STEPS OUT
#include "ccc.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { Probes = 8, Cells = 2048 };

int main(int argc, char **argv) {
  long Steps = argc > 1 ? atol(argv[1]) : 20000;
  long Out = argc > 2 ? atol(argv[2]) : 100;
  hsize_t Dims[2] = {0, Probes}, Max[2] = {H5S_UNLIMITED, Probes},
          Chunk[2] = {16, Probes};
  hid_t File = H5Fcreate("series.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  hid_t Space = H5Screate_simple(2, Dims, Max);
  hid_t Dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(Dcpl, 2, Chunk);
  hid_t Set = H5Dcreate2(File, "probes", H5T_NATIVE_DOUBLE, Space, H5P_DEFAULT,
                         Dcpl, H5P_DEFAULT);
  H5Pclose(Dcpl);
  H5Sclose(Space);
  if (File < 0 || Set < 0)
    return 2;

  double *U = calloc(Cells, sizeof(double)), *V = calloc(Cells, sizeof(double));
  for (int I = 0; I < Cells; ++I)
    U[I] = sin(I * 0.01) + (I % 11) * 0.001;
  long Rows = 0;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (int I = 1; I < Cells - 1; ++I)
      V[I] = U[I] + 0.1 * (U[I - 1] - 2 * U[I] + U[I + 1]);
    double *T = U;
    U = V, V = T;
    if (S % Out != Out - 1)
      continue;
    double Row[Probes];
    for (int P = 0; P < Probes; ++P)
      Row[P] = U[(P + 1) * Cells / (Probes + 1)];
    hsize_t Size[2] = {(hsize_t)Rows + 1, Probes};
    if (H5Dset_extent(Set, Size) < 0)
      return 3;
    hid_t FileSpace = H5Dget_space(Set);
    hsize_t Start[2] = {(hsize_t)Rows, 0}, Count[2] = {1, Probes};
    H5Sselect_hyperslab(FileSpace, H5S_SELECT_SET, Start, NULL, Count, NULL);
    hid_t Mem = H5Screate_simple(2, Count, NULL);
    if (H5Dwrite(Set, H5T_NATIVE_DOUBLE, Mem, FileSpace, H5P_DEFAULT, Row) < 0)
      return 4;
    H5Sclose(Mem);
    H5Sclose(FileSpace);
    ++Rows;
  }
  hid_t Scalar = H5Screate(H5S_SCALAR);
  hid_t A = H5Acreate2(Set, "rows", H5T_NATIVE_LONG, Scalar, H5P_DEFAULT,
                       H5P_DEFAULT);
  H5Awrite(A, H5T_NATIVE_LONG, &Rows);
  H5Aclose(A);
  H5Sclose(Scalar);
  H5Dclose(Set);
  if (H5Fclose(File) < 0)
    return 5;

  hid_t In = H5Fopen("series.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t R = H5Dopen2(In, "probes", H5P_DEFAULT);
  hid_t RS = H5Dget_space(R);
  hsize_t Got[2];
  H5Sget_simple_extent_dims(RS, Got, NULL);
  double *All = malloc(sizeof(double) * Got[0] * Probes);
  H5Dread(R, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, All);
  long Stored = -1;
  A = H5Aopen(R, "rows", H5P_DEFAULT);
  H5Aread(A, H5T_NATIVE_LONG, &Stored);
  H5Aclose(A);
  double Sum = 0;
  for (hsize_t I = 0; I < Got[0] * Probes; ++I)
    Sum += All[I] * (1 + I % 7);
  printf("rows %llu (attribute %ld) weighted sum %.12e last %.12e\n",
         (unsigned long long)Got[0], Stored, Sum,
         Got[0] ? All[Got[0] * Probes - 1] : 0.0);
  H5Sclose(RS);
  H5Dclose(R);
  H5Fclose(In);
  free(All);
  free(U);
  free(V);
  return 0;
}
