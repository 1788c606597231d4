//===- Datatypes.cpp - the datatype constructors of MPI-2 and MPI-3 -------===//
//
// Datatypes made by MPI_Type_create_hindexed_block, _darray and the
// Fortran 90 parameterised types get a ccc handle and a recipe, like those
// of Objects.cpp, so a restart makes them again (an f90 type is MPI's own
// object, made on first use, with no promise that its handle is the same
// in another process). MPI_Type_get_contents hands out handles the
// program may keep and free: for a datatype the program made from another
// one of its own, each is a new ccc object with the inner datatype's
// recipe, so it too survives a restart, even after the program freed the
// inner datatype.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {

MPI_Datatype typeArgOf(const Object &O, int K) {
  return realType(handleFromBits<MPI_Datatype>(O.Handles[K]));
}

int makeDatatype(Object &O) {
  const int *I = O.Ints;
  switch (O.How) {
  case Recipe::TypeHindexedBlock:
    return PMPI_Type_create_hindexed_block(I[0], I[1], O.Aints, typeArgOf(O, 0),
                                           &O.Real.Type);
  case Recipe::TypeDarray: {
    int N = I[2];
    return PMPI_Type_create_darray(I[0], I[1], N, I + 4, I + 4 + N,
                                   I + 4 + 2 * N, I + 4 + 3 * N, I[3],
                                   typeArgOf(O, 0), &O.Real.Type);
  }
  case Recipe::TypeF90Integer:
    return PMPI_Type_create_f90_integer(I[0], &O.Real.Type);
  case Recipe::TypeF90Real:
    return PMPI_Type_create_f90_real(I[0], I[1], &O.Real.Type);
  case Recipe::TypeF90Complex:
    return PMPI_Type_create_f90_complex(I[0], I[1], &O.Real.Type);
  default:
    return MPI_ERR_INTERN;
  }
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Type_create_hindexed_block(int Count, int Block,
                                   const MPI_Aint Displs[], MPI_Datatype Old,
                                   MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_hindexed_block(Count, Block, Displs, Old, Out);
  int I[] = {Count, Block};
  uint64_t H[] = {handleBits(Old)};
  return createType(Recipe::TypeHindexedBlock, Out, 2, I, Count > 0 ? Count : 0,
                    Displs, 1, H);
}

int MPI_Type_create_darray(int Size, int Rank, int NDims, const int GSizes[],
                           const int Distribs[], const int DArgs[],
                           const int PSizes[], int Order, MPI_Datatype Old,
                           MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_darray(Size, Rank, NDims, GSizes, Distribs, DArgs,
                                   PSizes, Order, Old, Out);
  if (NDims < 0)
    return PMPI_Type_create_darray(Size, Rank, NDims, GSizes, Distribs, DArgs,
                                   PSizes, Order, realType(Old), Out);
  int N = 4 + 4 * NDims;
  int *I = static_cast<int *>(scratch(N * sizeof(int)));
  I[0] = Size;
  I[1] = Rank;
  I[2] = NDims;
  I[3] = Order;
  const int *Arrays[] = {GSizes, Distribs, DArgs, PSizes};
  for (int A = 0; A < 4; ++A)
    if (NDims)
      memcpy(I + 4 + A * NDims, Arrays[A], NDims * sizeof(int));
  uint64_t H[] = {handleBits(Old)};
  int R = createType(Recipe::TypeDarray, Out, N, I, 0, nullptr, 1, H);
  scratchFree(I);
  return R;
}

int MPI_Type_create_f90_integer(int R, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_f90_integer(R, Out);
  int I[] = {R};
  return createType(Recipe::TypeF90Integer, Out, 1, I, 0, nullptr, 0, nullptr);
}

int MPI_Type_create_f90_real(int P, int R, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_f90_real(P, R, Out);
  int I[] = {P, R};
  return createType(Recipe::TypeF90Real, Out, 2, I, 0, nullptr, 0, nullptr);
}

int MPI_Type_create_f90_complex(int P, int R, MPI_Datatype *Out) {
  if (Bypass)
    return PMPI_Type_create_f90_complex(P, R, Out);
  int I[] = {P, R};
  return createType(Recipe::TypeF90Complex, Out, 2, I, 0, nullptr, 0, nullptr);
}

// MPI answers from the real datatype, which was made by the program's own
// call (the recipe is that call); only the datatypes it returns need
// translating: a predefined one is the same handle, a derived one is MPI's
// new handle, which becomes a new ccc object with the recipe of the
// program's inner datatype.
int MPI_Type_get_contents(MPI_Datatype T, int MaxInts, int MaxAddrs,
                          int MaxTypes, int Ints[], MPI_Aint Addrs[],
                          MPI_Datatype Types[]) {
  if (Bypass)
    return PMPI_Type_get_contents(T, MaxInts, MaxAddrs, MaxTypes, Ints, Addrs,
                                  Types);
  Object *O = object(T);
  if (!O)
    return PMPI_Type_get_contents(T, MaxInts, MaxAddrs, MaxTypes, Ints, Addrs,
                                  Types);
  uint32_t Idx = O - L->Objs;
  int R = PMPI_Type_get_contents(O->Real.Type, MaxInts, MaxAddrs, MaxTypes,
                                 Ints, Addrs, Types);
  if (R != MPI_SUCCESS)
    return R;
  int NI, NA, ND, Combiner;
  PMPI_Type_get_envelope(L->Objs[Idx].Real.Type, &NI, &NA, &ND, &Combiner);
  for (int K = 0; K < ND && K < MaxTypes; ++K) {
    if (K >= L->Objs[Idx].NHandles)
      break;
    Object *In = object(L->Objs[Idx].Handles[K]);
    if (!In)
      continue; // predefined: MPI returned it as it is
    uint32_t Copy = cloneObject(In - L->Objs);
    L->Objs[Copy].Real.Type = Types[K];
    Types[K] = objectHandle<MPI_Datatype>(Copy);
  }
  return R;
}
}
