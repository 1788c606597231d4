//===- Errhandlers.cpp - communicators' error handlers across restarts ----===//
//
// Error handlers with user functions cannot be created under ccc yet
// (MPI_Comm_create_errhandler is refused), so every error handler the
// program can hold is one of MPI's predefined ones (MPI_ERRORS_RETURN...):
// MPI's own handle, the same in every run, never a ccc handle. Getting one
// and freeing the reference so obtained need only the communicator
// translated.
//
// Setting one must survive a restart: a code that set MPI_ERRORS_RETURN
// on MPI_COMM_WORLD and checks return codes would otherwise abort on its
// first error after a restart. Each setting is recorded with the number of
// objects that existed then and replayed at that point while the objects
// are re-created, so a communicator made later inherits it again from its
// parent, and one made earlier does not.
//
//===----------------------------------------------------------------------===//
#include "Layer.h"

#include <cstring>

namespace ccc {
namespace mpi {

void replayErrhandlers(uint32_t NObjs) {
  for (uint32_t I = 0; I < L->NErrhSets; ++I) {
    const ErrhSet &S = L->ErrhSets[I];
    if (S.NObjs != NObjs)
      continue;
    MPI_Comm C = handleFromBits<MPI_Comm>(S.Comm);
    Object *O = object(C);
    if (O && !O->Live)
      continue; // freed since; its children were made from it already
    PMPI_Comm_set_errhandler(realComm(C),
                             handleFromBits<MPI_Errhandler>(S.Errh));
  }
}

} // namespace mpi
} // namespace ccc

using namespace ccc::mpi;

namespace {

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
  int R = PMPI_Comm_set_errhandler(realComm(C), E);
  if (R == MPI_SUCCESS && L)
    record(C, E);
  return R;
}

int MPI_Comm_get_errhandler(MPI_Comm C, MPI_Errhandler *Out) {
  if (Bypass)
    return PMPI_Comm_get_errhandler(C, Out);
  return PMPI_Comm_get_errhandler(realComm(C), Out);
}

int MPI_Errhandler_free(MPI_Errhandler *E) { return PMPI_Errhandler_free(E); }
}
