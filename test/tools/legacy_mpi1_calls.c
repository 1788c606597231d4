/* legacy_mpi1_calls.c - C written for an MPI-1 or MPI-2 library, as older
 * proxy applications are: the error handler set with MPI_Errhandler_set,
 * a message struct described with MPI_Address and MPI_Type_struct, its
 * size checked with MPI_Type_extent. Open MPI 4 no longer declares these
 * (MPI-3.0 removed them); ccc's layer implements them, and ckpt-cc must
 * build this file as the older MPI did. No #define asks for them here.
 */
#include <mpi.h>
#include <stdio.h>

#include "ccc.h"

struct Face {
  int Owner;
  double Values[6];
};

int main(int argc, char **argv) {
  struct Face F;
  MPI_Aint Base, Disp[2], Extent;
  int Lengths[2] = {1, 6};
  MPI_Datatype Types[2] = {MPI_INT, MPI_DOUBLE}, FaceType;
  MPI_Init(&argc, &argv);
  MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Address(&F, &Base);
  MPI_Address(&F.Owner, &Disp[0]);
  MPI_Address(F.Values, &Disp[1]);
  Disp[0] -= Base;
  Disp[1] -= Base;
  MPI_Type_struct(2, Lengths, Disp, Types, &FaceType);
  MPI_Type_commit(&FaceType);
  MPI_Type_extent(FaceType, &Extent);
  ccc_checkpoint();
  printf("face extent %ld\n", (long)Extent);
  MPI_Type_free(&FaceType);
  MPI_Finalize();
  return 0;
}
