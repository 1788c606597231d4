//===- LegacyFortran.cpp - Fortran MPI-1 names with INTEGER addresses -----===//
//
// The Fortran bindings of MPI-1's MPI_ADDRESS, MPI_TYPE_EXTENT/LB/UB,
// MPI_TYPE_HVECTOR/HINDEXED/STRUCT and MPI_ATTR_GET take a default INTEGER
// where C takes an MPI_Aint (or a pointer): gen_fortran.py cannot derive
// them from the C prototypes. Each converts its arguments and calls the C
// legacy function (Legacy.cpp), hence the layer's replacement, as the
// generated entry points do. The other legacy names are generated.
//
// Addresses and extents are truncated to INTEGER as Open MPI's bindings do
// (differences of truncated addresses stay right); MPICH's MPI_ADDRESS
// reports an address that does not fit, so under MPICH the layer does too.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"
#include "mpi-layer/objects/CommunicatorCalls.h"

namespace ccc {
namespace mpi {
void *fortranBuffer(void *B); // Fortran.cpp
} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

// The other three names both MPIs export for a Fortran entry point.
#define CCC_FORTRAN_ALIASES(low, UP, params)                                   \
  void low params __attribute__((alias(#low "_")));                            \
  void low##__ params __attribute__((alias(#low "_")));                        \
  void UP params __attribute__((alias(#low "_")));

namespace {

MPI_Aint *aintArray(int N, const MPI_Fint *F) {
  auto *A =
      static_cast<MPI_Aint *>(scratch((N > 0 ? N : 1) * sizeof(MPI_Aint)));
  for (int I = 0; I < N; ++I)
    A[I] = F[I];
  return A;
}

} // namespace

extern "C" {

void mpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror) {
  MPI_Aint A = 0;
  int R = MPI_Address(fortranBuffer(location), &A);
  if (R == MPI_SUCCESS) {
    *address = (MPI_Fint)A;
#ifndef OPEN_MPI
    if ((MPI_Aint)*address != A) { // as MPICH's binding: does not fit
      PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
      R = MPI_ERR_ARG;
    }
#endif
  }
  *ierror = R;
}
CCC_FORTRAN_ALIASES(mpi_address, MPI_ADDRESS, (void *, MPI_Fint *, MPI_Fint *))

// MPI_TYPE_EXTENT, _LB and _UB: one INTEGER out.
static void typeBound(int (*Fn)(MPI_Datatype, MPI_Aint *), MPI_Fint *type,
                      MPI_Fint *out, MPI_Fint *ierror) {
  MPI_Aint A = 0;
  int R = Fn(MPI_Type_f2c(*type), &A);
  if (R == MPI_SUCCESS)
    *out = (MPI_Fint)A;
  *ierror = R;
}

void mpi_type_extent_(MPI_Fint *type, MPI_Fint *extent, MPI_Fint *ierror) {
  typeBound(MPI_Type_extent, type, extent, ierror);
}
CCC_FORTRAN_ALIASES(mpi_type_extent, MPI_TYPE_EXTENT,
                    (MPI_Fint *, MPI_Fint *, MPI_Fint *))

void mpi_type_lb_(MPI_Fint *type, MPI_Fint *lb, MPI_Fint *ierror) {
  typeBound(MPI_Type_lb, type, lb, ierror);
}
CCC_FORTRAN_ALIASES(mpi_type_lb, MPI_TYPE_LB,
                    (MPI_Fint *, MPI_Fint *, MPI_Fint *))

void mpi_type_ub_(MPI_Fint *type, MPI_Fint *ub, MPI_Fint *ierror) {
  typeBound(MPI_Type_ub, type, ub, ierror);
}
CCC_FORTRAN_ALIASES(mpi_type_ub, MPI_TYPE_UB,
                    (MPI_Fint *, MPI_Fint *, MPI_Fint *))

void mpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                       MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror) {
  MPI_Datatype Out;
  int R = MPI_Type_hvector(*count, *blocklength, (MPI_Aint)*stride,
                           MPI_Type_f2c(*oldtype), &Out);
  if (R == MPI_SUCCESS)
    *newtype = MPI_Type_c2f(Out);
  *ierror = R;
}
CCC_FORTRAN_ALIASES(mpi_type_hvector, MPI_TYPE_HVECTOR,
                    (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                     MPI_Fint *))

void mpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths,
                        MPI_Fint *displacements, MPI_Fint *oldtype,
                        MPI_Fint *newtype, MPI_Fint *ierror) {
  MPI_Aint *D = aintArray(*count, displacements);
  MPI_Datatype Out;
  int R =
      MPI_Type_hindexed(*count, blocklengths, D, MPI_Type_f2c(*oldtype), &Out);
  scratchFree(D);
  if (R == MPI_SUCCESS)
    *newtype = MPI_Type_c2f(Out);
  *ierror = R;
}
CCC_FORTRAN_ALIASES(mpi_type_hindexed, MPI_TYPE_HINDEXED,
                    (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                     MPI_Fint *))

void mpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths,
                      MPI_Fint *displacements, MPI_Fint *types,
                      MPI_Fint *newtype, MPI_Fint *ierror) {
  int N = *count;
  MPI_Aint *D = aintArray(N, displacements);
  auto *T = static_cast<MPI_Datatype *>(
      scratch((N > 0 ? N : 1) * sizeof(MPI_Datatype)));
  for (int I = 0; I < N; ++I)
    T[I] = MPI_Type_f2c(types[I]);
  MPI_Datatype Out;
  int R = MPI_Type_struct(N, blocklengths, D, T, &Out);
  scratchFree(D);
  scratchFree(T);
  if (R == MPI_SUCCESS)
    *newtype = MPI_Type_c2f(Out);
  *ierror = R;
}
CCC_FORTRAN_ALIASES(mpi_type_struct, MPI_TYPE_STRUCT,
                    (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                     MPI_Fint *))

// MPI's predefined attributes (MPI_TAG_UB...) have C values pointing to an
// int; a keyval the program made holds the integer itself (Fortran.cpp).
void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *attribute_val,
                   MPI_Fint *flag, MPI_Fint *ierror) {
  void *P = nullptr;
  int Flag = 0;
  int R = MPI_Attr_get(MPI_Comm_f2c(*comm), *keyval, &P, &Flag);
  if (R == MPI_SUCCESS) {
    *flag = Flag;
    if (Flag)
      *attribute_val = realKeyvalOf(*keyval, 0) != *keyval
                           ? (MPI_Fint) reinterpret_cast<MPI_Aint>(P)
                           : *static_cast<int *>(P);
  }
  *ierror = R;
}
CCC_FORTRAN_ALIASES(mpi_attr_get, MPI_ATTR_GET,
                    (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                     MPI_Fint *))
}
