//===- Names.cpp - names of communicators and datatypes across restarts ---===//
//
// MPI_Comm_set_name and MPI_Type_set_name name this process's MPI object;
// a restart makes the objects again and MPI would answer MPI_Comm_get_name
// with the default (or nothing), so a code that prints or checks a name it
// set before the checkpoint would see another. Each setting is kept in the
// layer's saved state, the last one per handle, and set again once the
// objects exist after a restart (names are not inherited by duplicates, so
// the order among objects does not matter).
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

#include <cstring>

using namespace ccc::mpi;

namespace {

enum : uint8_t { NameOfComm, NameOfType };

void remember(uint8_t Kind, uint64_t Handle, const char *Name) {
  for (uint32_t I = 0; I < L->NNames; ++I) {
    ObjectName &N = L->Names[I];
    if (N.Kind == Kind && N.Handle == Handle) {
      strncpy(N.Name, Name, sizeof(N.Name) - 1);
      return;
    }
  }
  if (L->NNames == L->CapNames) {
    uint32_t Cap = L->CapNames ? 2 * L->CapNames : 8;
    auto *New = static_cast<ObjectName *>(saved(Cap * sizeof(ObjectName)));
    if (L->NNames)
      memcpy(New, L->Names, L->NNames * sizeof(ObjectName));
    __ccc_free(L->Names);
    L->Names = New;
    L->CapNames = Cap;
  }
  ObjectName &N = L->Names[L->NNames++];
  N.Kind = Kind;
  N.Handle = Handle;
  strncpy(N.Name, Name, sizeof(N.Name) - 1);
}

} // namespace

namespace ccc {
namespace mpi {

void replayNames() {
  for (uint32_t I = 0; I < L->NNames; ++I) {
    const ObjectName &N = L->Names[I];
    Object *O = object(N.Handle);
    if (O && !O->Live)
      continue; // freed; its handle may name another object since
    if (N.Kind == NameOfComm)
      PMPI_Comm_set_name(realComm(handleFromBits<MPI_Comm>(N.Handle)), N.Name);
    else
      PMPI_Type_set_name(realType(handleFromBits<MPI_Datatype>(N.Handle)),
                         N.Name);
  }
}

} // namespace mpi
} // namespace ccc

extern "C" {

int MPI_Comm_set_name(MPI_Comm C, const char *Name) {
  int Err = PMPI_Comm_set_name(realComm(C), Name);
  if (Err == MPI_SUCCESS && L && !Bypass)
    remember(NameOfComm, handleBits(C), Name);
  return Err;
}

int MPI_Type_set_name(MPI_Datatype T, const char *Name) {
  int Err = PMPI_Type_set_name(realType(T), Name);
  if (Err == MPI_SUCCESS && L && !Bypass)
    remember(NameOfType, handleBits(T), Name);
  return Err;
}

} // extern "C"
