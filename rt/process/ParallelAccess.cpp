//===- ParallelAccess.cpp - What the runtime lends the MPI layer ----------===//
//
// The accessors Parallel.h declares: the layer reads and sets the
// runtime's state through these, never through its globals.
//
//===----------------------------------------------------------------------===//
#include "Parallel.h"
#include "RuntimeGlobals.h"
#include "rt/common/Config.h"
#include "rt/store/RankPruning.h"

namespace ccc {
namespace {
RankFiles OwnFiles;         // this rank's images and logs
CommitWindow CommitRecords; // rank 0's
} // namespace

void startRankPruning(uint64_t Lowest, uint64_t LowestFlushed) {
  OwnFiles.Dir = Cfg.Dir;
  OwnFiles.ImageDir = imageDir();
  OwnFiles.Name = Cfg.Name;
  OwnFiles.Rank = RT.Rank;
  OwnFiles.Keep = Cfg.Keep;
  OwnFiles.NodeLocal = nodeLocalStorage();
  OwnFiles.FlushEvery = nodeLocalStorage() ? Cfg.FlushEvery : 0;
  rankFilesStart(OwnFiles, Lowest, LowestFlushed);
  if (RT.Rank != 0)
    return;
  CommitRecords.Dir = Cfg.Dir;
  CommitRecords.Name = Cfg.Name;
  CommitRecords.Keep = Cfg.Keep;
  CommitRecords.FlushEvery = OwnFiles.FlushEvery;
  commitWindowStart(CommitRecords);
}
void noteOwnImage(uint64_t V, uint64_t ChainBase) {
  rankFilesImage(OwnFiles, V, ChainBase);
}
void pruneOwnFiles() { rankFilesPrune(OwnFiles, RT.NextVersion - 1); }
void pruneCommitRecords(uint64_t V) { commitWindowAdd(CommitRecords, V); }

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
