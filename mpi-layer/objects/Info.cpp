//===- Info.cpp - info objects across restarts ----------------------------===//
//
// An info object the program creates is a ccc handle (an Object of kind
// Info) whose keys and values the layer copies into the saved heap after
// every change, so that after a restart the info exists again with the
// contents it had at the checkpoint: a program that keeps an info across
// the checkpoint and reads it afterwards gets the same answers. The queries
// (MPI_Info_get, _get_nkeys, ...) are generated pass-through wrappers that
// translate the handle (realInfo). MPI_INFO_NULL and MPI_INFO_ENV pass
// through.
//
//===----------------------------------------------------------------------===//
#include "CommunicatorCalls.h"
#include "mpi-layer/Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {

MPI_Info realInfo(MPI_Info I) {
  Object *O = object(I);
  return O && O->Kind == ObjKind::Info ? O->Real.Info : I;
}

namespace {

// Copies the info's keys and values into its saved record.
void snapshot(Object &O) {
  int N = 0;
  PMPI_Info_get_nkeys(O.Real.Info, &N);
  size_t Len = 0, Cap = 256;
  char *Buf = static_cast<char *>(scratch(Cap));
  char Key[MPI_MAX_INFO_KEY + 1];
  for (int K = 0; K < N; ++K) {
    int VLen = 0, Flag = 0;
    PMPI_Info_get_nthkey(O.Real.Info, K, Key);
    PMPI_Info_get_valuelen(O.Real.Info, Key, &VLen, &Flag);
    size_t Need = Len + strlen(Key) + 1 + VLen + 1;
    if (Need > Cap) {
      Cap = 2 * Need;
      char *N2 = static_cast<char *>(scratch(Cap));
      memcpy(N2, Buf, Len);
      scratchFree(Buf);
      Buf = N2;
    }
    strcpy(Buf + Len, Key);
    Len += strlen(Key) + 1;
    PMPI_Info_get(O.Real.Info, Key, VLen, Buf + Len, &Flag);
    Buf[Len + VLen] = 0;
    Len += VLen + 1;
  }
  __ccc_free(O.Strings);
  O.Strings = static_cast<char *>(saved(Len ? Len : 1));
  memcpy(O.Strings, Buf, Len);
  O.StringsLen = (uint32_t)Len;
  scratchFree(Buf);
}

Object *infoObject(MPI_Info I) {
  Object *O = object(I);
  return O && O->Kind == ObjKind::Info && O->Live ? O : nullptr;
}

} // namespace

void adoptInfo(MPI_Info Real, MPI_Info *Out) {
  uint32_t Idx = newObject(ObjKind::Info, Recipe::InfoCreate);
  L->Objs[Idx].Real.Info = Real;
  snapshot(L->Objs[Idx]);
  *Out = objectHandle<MPI_Info>(Idx);
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Info_create(MPI_Info *Out) {
  if (Bypass || !L)
    return PMPI_Info_create(Out);
  MPI_Info Real;
  int R = PMPI_Info_create(&Real);
  if (R == MPI_SUCCESS)
    adoptInfo(Real, Out);
  return R;
}

int MPI_Info_dup(MPI_Info I, MPI_Info *Out) {
  if (Bypass || !L)
    return PMPI_Info_dup(I, Out);
  MPI_Info Real;
  int R = PMPI_Info_dup(realInfo(I), &Real);
  if (R == MPI_SUCCESS)
    adoptInfo(Real, Out);
  return R;
}

int MPI_Info_set(MPI_Info I, const char *Key, const char *Value) {
  if (Bypass)
    return PMPI_Info_set(I, Key, Value);
  int R = PMPI_Info_set(realInfo(I), Key, Value);
  if (Object *O = infoObject(I); O && R == MPI_SUCCESS)
    snapshot(*O);
  return R;
}

int MPI_Info_delete(MPI_Info I, const char *Key) {
  if (Bypass)
    return PMPI_Info_delete(I, Key);
  int R = PMPI_Info_delete(realInfo(I), Key);
  if (Object *O = infoObject(I); O && R == MPI_SUCCESS)
    snapshot(*O);
  return R;
}

int MPI_Info_free(MPI_Info *I) {
  if (Bypass)
    return PMPI_Info_free(I);
  Object *O = infoObject(*I);
  if (!O)
    return PMPI_Info_free(I);
  O->Live = false;
  freeOther(*O);
  *I = MPI_INFO_NULL;
  return MPI_SUCCESS;
}

// A new info object from MPI: the program gets a ccc handle for it too.
int MPI_Comm_get_info(MPI_Comm C, MPI_Info *Out) {
  if (Bypass || !L)
    return PMPI_Comm_get_info(C, Out);
  MPI_Info Real;
  int R = PMPI_Comm_get_info(realComm(C), &Real);
  if (R == MPI_SUCCESS)
    adoptInfo(Real, Out);
  return R;
}

#ifdef MPICH
int MPI_Info_create_env(int Argc, char *Argv[], MPI_Info *Out) {
  if (Bypass || !L)
    return PMPI_Info_create_env(Argc, Argv, Out);
  MPI_Info Real;
  int R = PMPI_Info_create_env(Argc, Argv, &Real);
  if (R == MPI_SUCCESS)
    adoptInfo(Real, Out);
  return R;
}
#endif
}
