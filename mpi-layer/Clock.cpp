//===- Clock.cpp - MPI_Wtime across restarts ------------------------------===//
//
// MPI_Wtime counts from an origin of the MPI's choosing: Open MPI's is
// MPI_Init, so a restarted job's clock began again near zero and a program
// that timed itself saw time run backwards (NPB printed negative times);
// MPICH's is the host's, so the clock jumped by the downtime, or back on
// another host. The layer's MPI_Wtime is MPI's plus an offset: zero in a
// fresh run; after a restart, such that the clock goes on from its value
// when this rank's image was taken. The work the failure lost and the
// downtime do not count: a program reads the time a run without the
// failure would have taken, plus what the restart itself took. Each rank
// keeps its own clock, as MPI's are (MPI_WTIME_IS_GLOBAL is false); under
// the non-blocking protocol ranks take their images at different moments,
// so after a restart their clocks differ by as much. MPI_Wtick is MPI's.
//
//===----------------------------------------------------------------------===//
#include "mpi-layer/Layer.h"

namespace ccc {
namespace mpi {
namespace {
// Not saved: a fresh process's MPI starts its own clock.
double Offset;
int (*RealTake)();

int clockedTake() {
  L->WtimeAtCheckpoint = PMPI_Wtime() + Offset;
  return RealTake();
}
} // namespace

int (*clockTake(int (*Take)()))() {
  if (!Take)
    return nullptr;
  RealTake = Take;
  return clockedTake;
}

void clockAfterRestore() { Offset = L->WtimeAtCheckpoint - PMPI_Wtime(); }

} // namespace mpi
} // namespace ccc

extern "C" {
double MPI_Wtime(void) { return PMPI_Wtime() + ccc::mpi::Offset; }
}
