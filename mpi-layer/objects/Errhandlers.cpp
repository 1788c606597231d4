//===- Errhandlers.cpp - error handlers and error classes across restarts -===//
//
// Error handlers: MPI's predefined ones (MPI_ERRORS_RETURN...) are MPI's
// own handles, the same in every run. One the program creates with a
// function (MPI_Comm_create_errhandler) is a ccc handle (an Object of kind
// Errh, made again in creation order after a restart): MPI gets the layer's
// function, which finds the program's by the handler MPI says the
// communicator has, and calls it with the program's communicator handle
// (a Fortran integer for a Fortran handler). C function addresses are the
// same after a restart (address randomisation is off).
//
// Setting one must survive a restart: a code that set MPI_ERRORS_RETURN
// on MPI_COMM_WORLD and checks return codes would otherwise abort on its
// first error after a restart. Each setting is recorded with the number of
// objects that existed then and replayed at that point while the objects
// are re-created, so a communicator made later inherits it again from its
// parent, and one made earlier does not.
//
// Error classes, codes and strings the program added are recorded in order
// and added again in that order after a restart, before any object, so they
// get the same numbers (checked: the job stops if MPI gives others).
//
//===----------------------------------------------------------------------===//
#include "CommunicatorCalls.h"
#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"

#include <cstring>

namespace ccc {
namespace mpi {

MPI_Errhandler realErrhandler(MPI_Errhandler E) {
  Object *O = object(E);
  return O && O->Kind == ObjKind::Errh ? O->Real.Errh : E;
}

namespace {

// The program's function for the handler MPI runs on a communicator (or
// window): the newest handler object with that MPI handle (MPI may reuse a
// freed one's).
Object *handlerFor(MPI_Errhandler E) {
  Object *Found = nullptr;
  for (uint32_t I = L->NObjs; I-- > 0 && !Found;)
    if (L->Objs[I].Kind == ObjKind::Errh && L->Objs[I].Real.Errh == E)
      Found = &L->Objs[I];
  // The reference get_errhandler added; the object keeps its own.
  PMPI_Errhandler_free(&E);
  return Found;
}

Object *handlerOf(MPI_Comm Real) {
  MPI_Errhandler E;
  if (PMPI_Comm_get_errhandler(Real, &E) != MPI_SUCCESS)
    return nullptr;
  return handlerFor(E);
}

Object *handlerOfWin(MPI_Win Real) {
  MPI_Errhandler E;
  if (PMPI_Win_get_errhandler(Real, &E) != MPI_SUCCESS)
    return nullptr;
  return handlerFor(E);
}

void callProgramWinHandler(MPI_Win *Real, int *Code, ...) {
  Object *O = handlerOfWin(*Real);
  if (!O)
    fatal("an MPI error handler ran on a window whose handler ccc does not "
          "know (error code %d)",
          *Code);
  MPI_Win W = programWin(*Real);
  reinterpret_cast<MPI_Win_errhandler_function *>(O->Fn)(&W, Code);
}

void callProgramHandler(MPI_Comm *Real, int *Code, ...) {
  Object *O = handlerOf(*Real);
  if (!O)
    fatal("an MPI error handler ran on a communicator whose handler ccc "
          "does not know (error code %d)",
          *Code);
  MPI_Comm C = programComm(*Real);
  if (O->Fortran) {
    MPI_Fint FC = MPI_Comm_c2f(C), FCode = *Code;
    reinterpret_cast<void (*)(MPI_Fint *, MPI_Fint *)>(O->Fn)(&FC, &FCode);
    return;
  }
  reinterpret_cast<MPI_Comm_errhandler_function *>(O->Fn)(&C, Code);
}

void errorAdd(uint8_t Op, int Arg, int Result, const char *Str) {
  if (L->NErrorAdds == L->CapErrorAdds) {
    uint32_t Cap = L->CapErrorAdds ? 2 * L->CapErrorAdds : 8;
    auto *N = static_cast<ErrorAdd *>(saved(Cap * sizeof(ErrorAdd)));
    if (L->NErrorAdds)
      memcpy(N, L->ErrorAdds, L->NErrorAdds * sizeof(ErrorAdd));
    __ccc_free(L->ErrorAdds);
    L->ErrorAdds = N;
    L->CapErrorAdds = Cap;
  }
  ErrorAdd &A = L->ErrorAdds[L->NErrorAdds++];
  A = {Op, Arg, Result, nullptr};
  if (Str) {
    A.Str = static_cast<char *>(saved(strlen(Str) + 1));
    strcpy(A.Str, Str);
  }
}

} // namespace

// A file's program handle: the open file object over MPI's Real (the
// handler set on MPI_FILE_NULL runs with it).
MPI_File programFile(MPI_File Real) {
  for (uint32_t I = L->NObjs; Real != MPI_FILE_NULL && I-- > 0;) {
    const Object &O = L->Objs[I];
    if (O.Kind == ObjKind::File && O.How == Recipe::FileOpen && O.Live &&
        O.Real.File == Real)
      return objectHandle<MPI_File>(I);
  }
  return Real;
}

Object *handlerOfFile(MPI_File Real) {
  MPI_Errhandler E;
  if (PMPI_File_get_errhandler(Real, &E) != MPI_SUCCESS)
    return nullptr;
  return handlerFor(E);
}

void callProgramFileHandler(MPI_File *Real, int *Code, ...) {
  Object *O = handlerOfFile(*Real);
  if (!O)
    fatal("an MPI error handler ran on a file whose handler ccc does not "
          "know (error code %d)",
          *Code);
  MPI_File F = programFile(*Real);
  reinterpret_cast<MPI_File_errhandler_function *>(O->Fn)(&F, Code);
}

int makeErrhandler(Object &O) {
  if (O.How == Recipe::FileErrhCreate)
    return PMPI_File_create_errhandler(callProgramFileHandler, &O.Real.Errh);
  if (O.How == Recipe::WinErrhCreate)
    return PMPI_Win_create_errhandler(callProgramWinHandler, &O.Real.Errh);
  return PMPI_Comm_create_errhandler(callProgramHandler, &O.Real.Errh);
}

int createErrhandler(void *Fn, bool Fortran, MPI_Errhandler *Out, Recipe How) {
  uint32_t Idx = newObject(ObjKind::Errh, How);
  Object &O = L->Objs[Idx];
  O.Fn = reinterpret_cast<MPI_User_function *>(Fn);
  O.Fortran = Fortran;
  int R = makeErrhandler(O);
  if (R != MPI_SUCCESS) {
    L->NObjs--;
    return R;
  }
  *Out = objectHandle<MPI_Errhandler>(Idx);
  return R;
}

void replayErrorClasses() {
  for (uint32_t I = 0; I < L->NErrorAdds; ++I) {
    const ErrorAdd &A = L->ErrorAdds[I];
    int Got = A.Result;
    if (A.Op == 0)
      PMPI_Add_error_class(&Got);
    else if (A.Op == 1)
      PMPI_Add_error_code(A.Arg, &Got);
    else
      PMPI_Add_error_string(A.Arg, A.Str);
    if (Got != A.Result)
      fatal("MPI gave the error %s added again after the restart the number "
            "%d, the first run had %d",
            A.Op == 0 ? "class" : "code", Got, A.Result);
  }
}

void replayErrhandlers(uint32_t NObjs) {
  replayAttributes(NObjs);
  for (uint32_t I = 0; I < L->NErrhSets; ++I) {
    const ErrhSet &S = L->ErrhSets[I];
    if (S.NObjs != NObjs)
      continue;
    MPI_Comm C = handleFromBits<MPI_Comm>(S.Comm);
    Object *O = object(C);
    if (O && !O->Live)
      continue; // freed since; its children were made from it already
    PMPI_Comm_set_errhandler(
        realComm(C), realErrhandler(handleFromBits<MPI_Errhandler>(S.Errh)));
  }
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

namespace {

// A handler the program created, as *_get_errhandler returns it: its ccc
// handle, counted so that freeing this reference leaves the program's own
// one valid.
int programHandler(Object &O, MPI_Errhandler *Out) {
  O.Refs++;
  *Out = objectHandle<MPI_Errhandler>((uint32_t)(&O - L->Objs));
  return MPI_SUCCESS;
}

void record(MPI_Comm C, MPI_Errhandler E) {
  uint64_t Comm = handleBits(C);
  // A later setting of the same communicator before any new object
  // replaces the earlier one: a loop of settings does not grow the log.
  for (uint32_t I = L->NErrhSets; I-- > 0;) {
    ErrhSet &S = L->ErrhSets[I];
    if (S.NObjs != L->NObjs)
      break;
    if (S.Comm == Comm) {
      S.Errh = handleBits(E);
      return;
    }
  }
  if (L->NErrhSets == L->CapErrhSets) {
    uint32_t Cap = L->CapErrhSets ? 2 * L->CapErrhSets : 8;
    auto *N = static_cast<ErrhSet *>(saved(Cap * sizeof(ErrhSet)));
    if (L->NErrhSets)
      memcpy(N, L->ErrhSets, L->NErrhSets * sizeof(ErrhSet));
    __ccc_free(L->ErrhSets);
    L->ErrhSets = N;
    L->CapErrhSets = Cap;
  }
  L->ErrhSets[L->NErrhSets++] = {Comm, handleBits(E), L->NObjs};
}

} // namespace

extern "C" {

int MPI_Comm_set_errhandler(MPI_Comm C, MPI_Errhandler E) {
  if (Bypass)
    return PMPI_Comm_set_errhandler(C, E);
  int R = PMPI_Comm_set_errhandler(realComm(C), realErrhandler(E));
  if (R == MPI_SUCCESS && L)
    record(C, E);
  return R;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *Fn,
                               MPI_Errhandler *Out) {
  if (Bypass || !L)
    return PMPI_Comm_create_errhandler(Fn, Out);
  return createErrhandler(reinterpret_cast<void *>(Fn), false, Out);
}

int MPI_Comm_get_errhandler(MPI_Comm C, MPI_Errhandler *Out) {
  if (Bypass || !L)
    return PMPI_Comm_get_errhandler(C, Out);
  Object *O = handlerOf(realComm(C));
  return O ? programHandler(*O, Out)
           : PMPI_Comm_get_errhandler(realComm(C), Out);
}

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *Fn,
                              MPI_Errhandler *Out) {
  if (Bypass || !L)
    return PMPI_Win_create_errhandler(Fn, Out);
  return createErrhandler(reinterpret_cast<void *>(Fn), false, Out,
                          Recipe::WinErrhCreate);
}

int MPI_Win_get_errhandler(MPI_Win W, MPI_Errhandler *Out) {
  if (Bypass || !L)
    return PMPI_Win_get_errhandler(W, Out);
  Object *O = handlerOfWin(realWin(W));
  return O ? programHandler(*O, Out) : PMPI_Win_get_errhandler(realWin(W), Out);
}

int MPI_File_create_errhandler(MPI_File_errhandler_function *Fn,
                               MPI_Errhandler *Out) {
  if (Bypass || !L)
    return PMPI_File_create_errhandler(Fn, Out);
  return createErrhandler(reinterpret_cast<void *>(Fn), false, Out,
                          Recipe::FileErrhCreate);
}

int MPI_File_get_errhandler(MPI_File F, MPI_Errhandler *Out) {
  if (Bypass || !L)
    return PMPI_File_get_errhandler(F, Out);
  Object *O = handlerOfFile(realFile(F));
  return O ? programHandler(*O, Out)
           : PMPI_File_get_errhandler(realFile(F), Out);
}

int MPI_Errhandler_free(MPI_Errhandler *E) {
  if (Bypass)
    return PMPI_Errhandler_free(E);
  Object *O = object(*E);
  if (!O || O->Kind != ObjKind::Errh)
    return PMPI_Errhandler_free(E);
  if (O->Refs > 0)
    O->Refs--;
  else if (O->Live) {
    O->Live = false;
    freeOther(*O);
  } else
    return MPI_ERR_ARG;
  *E = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Add_error_class(int *Class) {
  int R = PMPI_Add_error_class(Class);
  if (R == MPI_SUCCESS && L && !Bypass)
    errorAdd(0, 0, *Class, nullptr);
  return R;
}

int MPI_Add_error_code(int Class, int *Code) {
  int R = PMPI_Add_error_code(Class, Code);
  if (R == MPI_SUCCESS && L && !Bypass)
    errorAdd(1, Class, *Code, nullptr);
  return R;
}

int MPI_Add_error_string(int Code, const char *Str) {
  int R = PMPI_Add_error_string(Code, Str);
  if (R == MPI_SUCCESS && L && !Bypass)
    errorAdd(2, Code, 0, Str);
  return R;
}
}
