//===- Legacy.cpp - MPI-1 names through their MPI-2 replacements ----------===//
//
// The MPI-1 functions removed in MPI-3.0 (MPI_Address, MPI_Type_struct,
// MPI_Errhandler_set...) and the attribute functions deprecated in MPI-2.0
// are still exported by Open MPI and MPICH, and old codes call them. Left
// unwrapped they would reach MPI with ccc handles; passed to PMPI_ they
// would create objects the layer cannot re-create after a restart. Each one
// here calls the layer's own replacement instead, so it gets the
// replacement's handle translation, its recipe for restarts (a datatype
// from MPI_Type_struct is re-created by MPI_Type_create_struct) and, while
// the replacement is refused, its refusal, under both names.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include <cstdio>

namespace ccc {
namespace mpi {
namespace {

// The legacy function being served on this thread, if any.
thread_local const char *Legacy;

// Marks a call of a legacy function for the refusals of its replacement.
class Serving {
public:
  explicit Serving(const char *Name) : Prev(Legacy) { Legacy = Name; }
  ~Serving() { Legacy = Prev; }

private:
  const char *Prev;
};

} // namespace

// Name for a refusal of Name: says which legacy name the program called.
const char *calledAs(const char *Name) {
  static thread_local char Buf[128];
  if (!Legacy)
    return Name;
  snprintf(Buf, sizeof(Buf), "%s (through %s)", Legacy, Name);
  return Buf;
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Address(void *Location, MPI_Aint *Address) {
  Serving S("MPI_Address");
  return MPI_Get_address(Location, Address);
}

// MPI_Type_extent, _lb, _ub: MPI-1's ub is lb + extent.
int MPI_Type_extent(MPI_Datatype T, MPI_Aint *Extent) {
  Serving S("MPI_Type_extent");
  MPI_Aint Lb;
  return MPI_Type_get_extent(T, &Lb, Extent);
}

int MPI_Type_lb(MPI_Datatype T, MPI_Aint *Lb) {
  Serving S("MPI_Type_lb");
  MPI_Aint Extent;
  return MPI_Type_get_extent(T, Lb, &Extent);
}

int MPI_Type_ub(MPI_Datatype T, MPI_Aint *Ub) {
  Serving S("MPI_Type_ub");
  MPI_Aint Lb, Extent;
  int R = MPI_Type_get_extent(T, &Lb, &Extent);
  if (R == MPI_SUCCESS)
    *Ub = Lb + Extent;
  return R;
}

int MPI_Type_hvector(int Count, int Block, MPI_Aint Stride, MPI_Datatype Old,
                     MPI_Datatype *Out) {
  Serving S("MPI_Type_hvector");
  return MPI_Type_create_hvector(Count, Block, Stride, Old, Out);
}

int MPI_Type_hindexed(int Count, int Blocks[], MPI_Aint Displs[],
                      MPI_Datatype Old, MPI_Datatype *Out) {
  Serving S("MPI_Type_hindexed");
  return MPI_Type_create_hindexed(Count, Blocks, Displs, Old, Out);
}

int MPI_Type_struct(int Count, int Blocks[], MPI_Aint Displs[],
                    MPI_Datatype Types[], MPI_Datatype *Out) {
  Serving S("MPI_Type_struct");
  return MPI_Type_create_struct(Count, Blocks, Displs, Types, Out);
}

// MPI_Handler_function and MPI_Comm_errhandler_function have the same
// parameters (MPI-2.0 renamed the type).
int MPI_Errhandler_create(MPI_Handler_function *Fn, MPI_Errhandler *Out) {
  Serving S("MPI_Errhandler_create");
  return MPI_Comm_create_errhandler(
      reinterpret_cast<MPI_Comm_errhandler_function *>(Fn), Out);
}

int MPI_Errhandler_get(MPI_Comm C, MPI_Errhandler *Out) {
  Serving S("MPI_Errhandler_get");
  return MPI_Comm_get_errhandler(C, Out);
}

int MPI_Errhandler_set(MPI_Comm C, MPI_Errhandler E) {
  Serving S("MPI_Errhandler_set");
  return MPI_Comm_set_errhandler(C, E);
}

// MPI_Copy_function and MPI_Delete_function are MPI-2.0's communicator
// callback types under their MPI-1 names.
int MPI_Keyval_create(MPI_Copy_function *Copy, MPI_Delete_function *Delete,
                      int *Keyval, void *Extra) {
  Serving S("MPI_Keyval_create");
  return MPI_Comm_create_keyval(
      reinterpret_cast<MPI_Comm_copy_attr_function *>(Copy),
      reinterpret_cast<MPI_Comm_delete_attr_function *>(Delete), Keyval, Extra);
}

int MPI_Keyval_free(int *Keyval) {
  Serving S("MPI_Keyval_free");
  return MPI_Comm_free_keyval(Keyval);
}

int MPI_Attr_put(MPI_Comm C, int Keyval, void *Value) {
  Serving S("MPI_Attr_put");
  return MPI_Comm_set_attr(C, Keyval, Value);
}

int MPI_Attr_delete(MPI_Comm C, int Keyval) {
  Serving S("MPI_Attr_delete");
  return MPI_Comm_delete_attr(C, Keyval);
}

// MPI_Attr_get is in Collectives.cpp, beside MPI_Comm_get_attr.
}
