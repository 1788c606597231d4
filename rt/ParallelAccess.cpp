//===- ParallelAccess.cpp - What the runtime lends the MPI layer ----------===//
//
// The accessors Parallel.h declares: the layer reads and sets the
// runtime's state through these, never through its globals.
//
//===----------------------------------------------------------------------===//
#include "Config.h"
#include "Parallel.h"
#include "RuntimeGlobals.h"

namespace ccc {

ParallelLayer *Parallel = nullptr;
uint32_t processRank() { return RT.Rank; }
uint32_t processCount() { return RT.NRanks; }
uint64_t nextVersion() { return RT.NextVersion; }
void setNextVersion(uint64_t V) { RT.NextVersion = V; }
void *parallelState() {
  return reinterpret_cast<void *>(RT.State.ParallelState);
}
void setParallelState(void *P) {
  RT.State.ParallelState = reinterpret_cast<uint64_t>(P);
}
const char *storeDir() { return Cfg.Dir; }
const char *imageDir() { return Cfg.LocalDir[0] ? Cfg.LocalDir : Cfg.Dir; }
bool nodeLocalStorage() { return Cfg.LocalDir[0] != 0; }
uint64_t flushEvery() { return Cfg.FlushEvery; }
const char *storeName() { return Cfg.Name; }
int keepVersions() { return Cfg.Keep; }
bool runtimeReady() { return RT.Ready; }
bool nonblockingProtocol() { return Cfg.NonBlocking; }
bool protocolTrace() { return Cfg.ProtocolTrace; }
bool takeRequest() {
  bool R = Requested;
  Requested = 0;
  return R;
}
} // namespace ccc
