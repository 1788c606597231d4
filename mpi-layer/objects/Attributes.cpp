//===- Attributes.cpp - keyvals and attributes across restarts ------------===//
//
// A keyval the program creates is a ccc handle (an int encoding its index
// in LayerState::Keyvals); MPI gets the layer's copy and delete functions,
// which call the program's with its own communicator (or datatype) and
// keyval handles. Every attribute value set on a communicator or datatype
// (MPI_COMM_WORLD and MPI_COMM_SELF included) is recorded, and so is every
// value MPI's copy callbacks put on a duplicate (MPI_Comm_dup,
// MPI_Comm_dup_with_info, MPI_Type_dup): the value is a pointer into
// program memory, or an integer, which the image restores.
//
// After a restart the keyvals are created again first, then each object's
// recorded attributes are set right after the object is re-created, and
// those of MPI_COMM_WORLD and MPI_COMM_SELF last. The rule: while a restart
// re-creates objects, the program's callbacks are never called. Replaying
// MPI_Comm_dup makes MPI call the copy callbacks of the parent's attributes
// again, and replaying a freed communicator's MPI_Comm_free its delete
// callbacks; the program ran them in the first run already and the image
// holds their effects on program memory (a counter they increment, a
// reference count, a copy they allocated), so running them again would
// apply those effects twice. The layer's callbacks therefore do nothing
// (copy: the attribute is not copied) while restoring, and the recorded
// values, which include what the copy callbacks returned, are set instead.
// Predefined attributes (MPI_TAG_UB, MPI_WTIME_IS_GLOBAL, ...) pass through.
//
//===----------------------------------------------------------------------===//
#include "CommunicatorCalls.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include <cstring>

namespace ccc {
namespace mpi {

namespace {

Keyval *keyval(int K, uint8_t Kind) {
  uint32_t I;
  if (!L || !decodeHandle(K, kHandleKeyval, &I) || I >= L->NKeyvals ||
      L->Keyvals[I].Kind != Kind)
    return nullptr;
  return &L->Keyvals[I];
}
int realKeyval(int K, uint8_t Kind) {
  Keyval *V = keyval(K, Kind);
  return V ? V->Real : K;
}
uint32_t indexOf(const Keyval *V) { return (uint32_t)(V - L->Keyvals); }
int programKeyval(const Keyval *V) {
  return encodeHandle<int>(kHandleKeyval, indexOf(V));
}

MPI_Datatype programType(MPI_Datatype Real) {
  for (uint32_t I = L->NObjs; I-- > 0;)
    if (L->Objs[I].Kind == ObjKind::Type && L->Objs[I].Real.Type == Real)
      return objectHandle<MPI_Datatype>(I);
  return Real;
}

// The keyval index travels as MPI's extra_state.
Keyval &fromExtra(void *Extra) {
  return L->Keyvals[(uint32_t) reinterpret_cast<uintptr_t>(Extra)];
}

typedef void (*FortranCopy)(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *,
                            MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void (*FortranDelete)(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *,
                              MPI_Fint *);

int copyFortran(Keyval &V, MPI_Fint Obj, void *In, void *Out, int *Flag) {
  MPI_Fint K = programKeyval(&V), FFlag = 0, Err = MPI_SUCCESS;
  MPI_Aint Extra = reinterpret_cast<MPI_Aint>(V.Extra),
           AIn = reinterpret_cast<MPI_Aint>(In), AOut = 0;
  reinterpret_cast<FortranCopy>(V.Copy)(&Obj, &K, &Extra, &AIn, &AOut, &FFlag,
                                        &Err);
  *Flag = FFlag != 0;
  *static_cast<void **>(Out) = reinterpret_cast<void *>(AOut);
  return Err;
}

int deleteFortran(Keyval &V, MPI_Fint Obj, void *Val) {
  MPI_Fint K = programKeyval(&V), Err = MPI_SUCCESS;
  MPI_Aint Extra = reinterpret_cast<MPI_Aint>(V.Extra),
           AVal = reinterpret_cast<MPI_Aint>(Val);
  reinterpret_cast<FortranDelete>(V.Delete)(&Obj, &K, &AVal, &Extra, &Err);
  return Err;
}

// MPICH's MPI_*_NULL_COPY_FN and MPI_*_NULL_DELETE_FN are null pointers
// (Open MPI's are functions): no copy, nothing to delete.
int commCopy(MPI_Comm Old, int, void *Extra, void *In, void *Out, int *Flag) {
  *Flag = 0;
  if (Restoring)
    return MPI_SUCCESS;
  Keyval &V = fromExtra(Extra);
  if (!V.Copy)
    return MPI_SUCCESS;
  MPI_Comm C = programComm(Old);
  if (V.Fortran)
    return copyFortran(V, MPI_Comm_c2f(C), In, Out, Flag);
  return reinterpret_cast<MPI_Comm_copy_attr_function *>(V.Copy)(
      C, programKeyval(&V), V.Extra, In, Out, Flag);
}

int commDelete(MPI_Comm Comm, int, void *Val, void *Extra) {
  if (Restoring)
    return MPI_SUCCESS;
  Keyval &V = fromExtra(Extra);
  if (!V.Delete)
    return MPI_SUCCESS;
  MPI_Comm C = programComm(Comm);
  if (V.Fortran)
    return deleteFortran(V, MPI_Comm_c2f(C), Val);
  return reinterpret_cast<MPI_Comm_delete_attr_function *>(V.Delete)(
      C, programKeyval(&V), Val, V.Extra);
}

int typeCopy(MPI_Datatype Old, int, void *Extra, void *In, void *Out,
             int *Flag) {
  *Flag = 0;
  if (Restoring)
    return MPI_SUCCESS;
  Keyval &V = fromExtra(Extra);
  if (!V.Copy)
    return MPI_SUCCESS;
  MPI_Datatype T = programType(Old);
  if (V.Fortran)
    return copyFortran(V, MPI_Type_c2f(T), In, Out, Flag);
  return reinterpret_cast<MPI_Type_copy_attr_function *>(V.Copy)(
      T, programKeyval(&V), V.Extra, In, Out, Flag);
}

int typeDelete(MPI_Datatype Type, int, void *Val, void *Extra) {
  if (Restoring)
    return MPI_SUCCESS;
  Keyval &V = fromExtra(Extra);
  if (!V.Delete)
    return MPI_SUCCESS;
  MPI_Datatype T = programType(Type);
  if (V.Fortran)
    return deleteFortran(V, MPI_Type_c2f(T), Val);
  return reinterpret_cast<MPI_Type_delete_attr_function *>(V.Delete)(
      T, programKeyval(&V), Val, V.Extra);
}

// Windows are never duplicated: their keyvals' copy function never runs.
int winCopy(MPI_Win, int, void *, void *, void *Out, int *Flag) {
  *Flag = 0;
  *static_cast<void **>(Out) = nullptr;
  return MPI_SUCCESS;
}

int winDelete(MPI_Win Real, int, void *Val, void *Extra) {
  if (Restoring)
    return MPI_SUCCESS;
  Keyval &V = fromExtra(Extra);
  if (!V.Delete)
    return MPI_SUCCESS;
  return reinterpret_cast<MPI_Win_delete_attr_function *>(V.Delete)(
      programWin(Real), programKeyval(&V), Val, V.Extra);
}

// Creates MPI's keyval for V (index I), with the layer's callbacks.
int makeKeyval(Keyval &V, uint32_t I) {
  void *Extra = reinterpret_cast<void *>((uintptr_t)I);
  if (V.Kind == kKeyvalComm)
    return PMPI_Comm_create_keyval(commCopy, commDelete, &V.Real, Extra);
  if (V.Kind == kKeyvalWin)
    return PMPI_Win_create_keyval(winCopy, winDelete, &V.Real, Extra);
  return PMPI_Type_create_keyval(typeCopy, typeDelete, &V.Real, Extra);
}

// MPI's attribute calls on the object with program handle Obj.
int setReal(uint8_t Kind, uint64_t Obj, int RealKey, void *Val) {
  if (Kind == kKeyvalComm)
    return PMPI_Comm_set_attr(realComm(handleFromBits<MPI_Comm>(Obj)), RealKey,
                              Val);
  if (Kind == kKeyvalWin)
    return PMPI_Win_set_attr(realWin(handleFromBits<MPI_Win>(Obj)), RealKey,
                             Val);
  return PMPI_Type_set_attr(realType(handleFromBits<MPI_Datatype>(Obj)),
                            RealKey, Val);
}

int deleteReal(uint8_t Kind, uint64_t Obj, int RealKey) {
  if (Kind == kKeyvalComm)
    return PMPI_Comm_delete_attr(realComm(handleFromBits<MPI_Comm>(Obj)),
                                 RealKey);
  if (Kind == kKeyvalWin)
    return PMPI_Win_delete_attr(realWin(handleFromBits<MPI_Win>(Obj)), RealKey);
  return PMPI_Type_delete_attr(realType(handleFromBits<MPI_Datatype>(Obj)),
                               RealKey);
}

int freeReal(uint8_t Kind, int *RealKey) {
  if (Kind == kKeyvalComm)
    return PMPI_Comm_free_keyval(RealKey);
  if (Kind == kKeyvalWin)
    return PMPI_Win_free_keyval(RealKey);
  return PMPI_Type_free_keyval(RealKey);
}

void recordAttr(uint64_t Obj, uint32_t K, bool Live, void *Val) {
  for (uint32_t I = 0; I < L->NAttrs; ++I) {
    Attr &A = L->Attrs[I];
    if (A.Obj == Obj && A.Keyval == K) {
      A.Live = Live;
      A.Val = Val;
      return;
    }
  }
  if (!Live)
    return;
  if (L->NAttrs == L->CapAttrs) {
    uint32_t Cap = L->CapAttrs ? 2 * L->CapAttrs : 16;
    auto *N = static_cast<Attr *>(saved(Cap * sizeof(Attr)));
    if (L->NAttrs)
      memcpy(N, L->Attrs, L->NAttrs * sizeof(Attr));
    __ccc_free(L->Attrs);
    L->Attrs = N;
    L->CapAttrs = Cap;
  }
  L->Attrs[L->NAttrs++] = {Obj, K, true, Val};
}

// Sets again the recorded attributes of the object with program handle Obj.
void setRecorded(uint64_t Obj) {
  for (uint32_t I = 0; I < L->NAttrs; ++I) {
    const Attr &A = L->Attrs[I];
    if (A.Obj != Obj || !A.Live)
      continue;
    const Keyval &V = L->Keyvals[A.Keyval];
    setReal(V.Kind, Obj, V.Real, A.Val);
  }
}

// Freed keyvals of one kind, once the objects whose attributes still use
// them (which kept them alive in the first run) have them again.
void freeDeadKeyvals(bool Windows) {
  for (uint32_t I = 0; I < L->NKeyvals; ++I)
    if (!L->Keyvals[I].Live && (L->Keyvals[I].Kind == kKeyvalWin) == Windows)
      freeReal(L->Keyvals[I].Kind, &L->Keyvals[I].Real);
}

bool ReplayedGlobals; // this process: keyvals and error classes made again

} // namespace

int createKeyval(uint8_t Kind, void *Copy, void *Delete, void *Extra,
                 bool Fortran, int *Out) {
  if (L->NKeyvals == L->CapKeyvals) {
    uint32_t Cap = L->CapKeyvals ? 2 * L->CapKeyvals : 8;
    auto *N = static_cast<Keyval *>(saved(Cap * sizeof(Keyval)));
    if (L->NKeyvals)
      memcpy(N, L->Keyvals, L->NKeyvals * sizeof(Keyval));
    __ccc_free(L->Keyvals);
    L->Keyvals = N;
    L->CapKeyvals = Cap;
  }
  uint32_t I = L->NKeyvals;
  Keyval &V = L->Keyvals[I];
  V = {Kind, true, Fortran, Copy, Delete, Extra, 0};
  int R = makeKeyval(V, I);
  if (R != MPI_SUCCESS)
    return R;
  L->NKeyvals++;
  *Out = programKeyval(&V);
  return R;
}

// Whether MPI still has freed keyval I: a freed keyval lives on while an
// attribute set with it remains on an object the program has not freed
// (MPI-3.1, 6.7.2); once the last goes, MPI frees it, and asking for it is
// an error.
static bool keyvalHeld(uint32_t I) {
  for (uint32_t J = 0; J < L->NAttrs; ++J) {
    const Attr &A = L->Attrs[J];
    if (A.Keyval != I || !A.Live)
      continue;
    const Object *O = L->Keyvals[I].Kind == kKeyvalType
                          ? object(handleFromBits<MPI_Datatype>(A.Obj))
                          : object(handleFromBits<MPI_Comm>(A.Obj));
    if (!O || O->Live) // predefined objects are never freed
      return true;
  }
  return false;
}

void recordCopiedAttributes(uint64_t Obj, bool IsType) {
  for (uint32_t I = 0; I < L->NKeyvals; ++I) {
    const Keyval &V = L->Keyvals[I];
    if (V.Kind != IsType || (!V.Live && !keyvalHeld(I)))
      continue;
    void *Val = nullptr;
    int Flag = 0;
    if (IsType)
      PMPI_Type_get_attr(realType(handleFromBits<MPI_Datatype>(Obj)), V.Real,
                         &Val, &Flag);
    else
      PMPI_Comm_get_attr(realComm(handleFromBits<MPI_Comm>(Obj)), V.Real, &Val,
                         &Flag);
    if (Flag)
      recordAttr(Obj, I, true, Val);
  }
}

void replayAttributes(uint32_t Objects) {
  if (!ReplayedGlobals) {
    ReplayedGlobals = true;
    replayErrorClasses();
    for (uint32_t I = 0; I < L->NKeyvals; ++I)
      if (makeKeyval(L->Keyvals[I], I) != MPI_SUCCESS)
        fatal("cannot create attribute keyval %u again after restart", I);
  }
  if (Objects > 0 && L->Objs[Objects - 1].Live &&
      (L->Objs[Objects - 1].Kind == ObjKind::Comm ||
       L->Objs[Objects - 1].Kind == ObjKind::Type))
    setRecorded(handleBits(objectHandle<MPI_Comm>(Objects - 1)));
  if (Objects == L->NObjs) {
    setRecorded(handleBits(MPI_COMM_WORLD));
    setRecorded(handleBits(MPI_COMM_SELF));
    // Freed keyvals last: attributes still set with them keep them alive
    // (windows' after the windows: replayWindowAttributes).
    freeDeadKeyvals(false);
  }
}

void replayWindowAttributes(uint64_t Win, bool Last) {
  if (Win)
    setRecorded(Win);
  if (Last)
    freeDeadKeyvals(true);
}

// Attribute calls on communicators, datatypes and windows (Kind).
int setAttr(uint8_t Kind, uint64_t Obj, int K, void *Val) {
  Keyval *V = keyval(K, Kind);
  int R = setReal(Kind, Obj, realKeyval(K, Kind), Val);
  if (R == MPI_SUCCESS && V)
    recordAttr(Obj, indexOf(V), true, Val);
  return R;
}

int deleteAttr(uint8_t Kind, uint64_t Obj, int K) {
  Keyval *V = keyval(K, Kind);
  int R = deleteReal(Kind, Obj, realKeyval(K, Kind));
  if (R == MPI_SUCCESS && V)
    recordAttr(Obj, indexOf(V), false, nullptr);
  return R;
}

int freeKeyval(uint8_t Kind, int *K) {
  Keyval *V = keyval(*K, Kind);
  if (!V)
    return freeReal(Kind, K);
  if (!V->Live)
    return MPI_ERR_ARG;
  int Real = V->Real;
  int R = freeReal(Kind, &Real);
  if (R == MPI_SUCCESS) {
    V->Live = false;
    *K = MPI_KEYVAL_INVALID;
  }
  return R;
}

int realKeyvalOf(int K, uint8_t Kind) { return realKeyval(K, Kind); }

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

extern "C" {

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *Copy,
                           MPI_Comm_delete_attr_function *Delete, int *K,
                           void *Extra) {
  if (Bypass || !L)
    return PMPI_Comm_create_keyval(Copy, Delete, K, Extra);
  return createKeyval(0, reinterpret_cast<void *>(Copy),
                      reinterpret_cast<void *>(Delete), Extra, false, K);
}

int MPI_Type_create_keyval(MPI_Type_copy_attr_function *Copy,
                           MPI_Type_delete_attr_function *Delete, int *K,
                           void *Extra) {
  if (Bypass || !L)
    return PMPI_Type_create_keyval(Copy, Delete, K, Extra);
  return createKeyval(1, reinterpret_cast<void *>(Copy),
                      reinterpret_cast<void *>(Delete), Extra, false, K);
}

int MPI_Comm_free_keyval(int *K) {
  if (Bypass)
    return PMPI_Comm_free_keyval(K);
  return freeKeyval(0, K);
}

int MPI_Type_free_keyval(int *K) {
  if (Bypass || calledByMpi(__builtin_return_address(0)))
    return PMPI_Type_free_keyval(K);
  return freeKeyval(1, K);
}

int MPI_Comm_set_attr(MPI_Comm C, int K, void *Val) {
  if (Bypass || !L)
    return PMPI_Comm_set_attr(C, K, Val);
  return setAttr(0, handleBits(C), K, Val);
}

int MPI_Type_set_attr(MPI_Datatype T, int K, void *Val) {
  if (Bypass || !L)
    return PMPI_Type_set_attr(T, K, Val);
  return setAttr(1, handleBits(T), K, Val);
}

int MPI_Comm_delete_attr(MPI_Comm C, int K) {
  if (Bypass || !L)
    return PMPI_Comm_delete_attr(C, K);
  return deleteAttr(0, handleBits(C), K);
}

int MPI_Type_delete_attr(MPI_Datatype T, int K) {
  if (Bypass || !L)
    return PMPI_Type_delete_attr(T, K);
  return deleteAttr(1, handleBits(T), K);
}

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *Copy,
                          MPI_Win_delete_attr_function *Delete, int *K,
                          void *Extra) {
  if (Bypass || !L)
    return PMPI_Win_create_keyval(Copy, Delete, K, Extra);
  return createKeyval(kKeyvalWin, reinterpret_cast<void *>(Copy),
                      reinterpret_cast<void *>(Delete), Extra, false, K);
}

int MPI_Win_free_keyval(int *K) {
  if (Bypass)
    return PMPI_Win_free_keyval(K);
  return freeKeyval(kKeyvalWin, K);
}

int MPI_Win_set_attr(MPI_Win W, int K, void *Val) {
  if (Bypass || !L)
    return PMPI_Win_set_attr(W, K, Val);
  return setAttr(kKeyvalWin, handleBits(W), K, Val);
}

int MPI_Win_delete_attr(MPI_Win W, int K) {
  if (Bypass || !L)
    return PMPI_Win_delete_attr(W, K);
  return deleteAttr(kKeyvalWin, handleBits(W), K);
}

// MPI_WIN_BASE of MPI-placed memory is the program's address of its part.
int MPI_Win_get_attr(MPI_Win W, int K, void *Val, int *Flag) {
  if (Bypass || !L)
    return PMPI_Win_get_attr(W, K, Val, Flag);
  int R = PMPI_Win_get_attr(realWin(W), realKeyval(K, kKeyvalWin), Val, Flag);
  if (R == MPI_SUCCESS && *Flag)
    programWinAttr(W, K, Val);
  return R;
}

int MPI_Comm_get_attr(MPI_Comm C, int K, void *Val, int *Flag) {
  if (Bypass || !L)
    return PMPI_Comm_get_attr(C, K, Val, Flag);
  return PMPI_Comm_get_attr(realComm(C), realKeyval(K, 0), Val, Flag);
}

int MPI_Type_get_attr(MPI_Datatype T, int K, void *Val, int *Flag) {
  if (Bypass || !L)
    return PMPI_Type_get_attr(T, K, Val, Flag);
  return PMPI_Type_get_attr(realType(T), realKeyval(K, 1), Val, Flag);
}
}
