//===- Parallel.h - What the runtime asks of the MPI layer ------*- C++ -*-===//
//
// The runtime saves and restores one process; a parallel layer (mpi-layer/,
// libccc_mpi) makes the processes of a job agree: on which version to
// restart from, on when a checkpoint is taken and on when it counts as
// committed. The layer registers itself from a static constructor; a serial
// program has no layer and the runtime does everything alone.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_PARALLEL_H
#define CCC_RT_PARALLEL_H

#include <cstddef>
#include <cstdint>

namespace ccc {
struct ParallelLayer {
  // This process's rank and the job's size, from the launcher's
  // environment (before the communication library is initialised).
  void (*launchRank)(uint32_t *Rank, uint32_t *NRanks);
  // Restart, before any memory is restored: initialise the communication
  // library as the checkpointed run had it (Blob: that image's SecParallel).
  void (*initForRestart)(const void *Blob, size_t Len);
  // The minimum of Local over all ranks (collective).
  uint64_t (*allMin)(uint64_t Local);
  // The image's memory is back (the layer's saved state with it); rebuild
  // library objects before the program resumes at its site.
  void (*afterRestore)();
  // A site's slow path (Kind: CCC_SITE_*). Take() checkpoints this process
  // and returns CCC_TAKEN, CCC_NONE (not written) or CCC_RESTARTED.
  int (*site)(int Kind, int (*Take)());
  // What the layer needs to restart before memory is restored (thread
  // level...): written as the image's SecParallel section. Returns bytes.
  size_t (*stateBlob)(void *Buf, size_t Cap);
  // Restart: whether this rank has everything else the layer needs to
  // restart from Version (the non-blocking protocol's message log). May be
  // null.
  bool (*checkVersion)(uint64_t Version, char *Why, size_t Cap);
  // Called between chunks while this process writes an image: lets the
  // communication library move the messages other ranks wait for (a large
  // send's rendezvous needs its sender's progress). May be null.
  void (*duringWrite)();
  // Node-local storage (CCC_LOCAL_DIR): Path, one of this rank's images,
  // was just made durable there; the layer copies it to the partner rank
  // on another host before the image counts as written. False (with Why)
  // if the copy failed: the version must not be committed. May be null.
  bool (*imageWritten)(const char *Path, char *Why, size_t Cap);
  // Restart with node-local storage, before anything else: initialise the
  // communication library (instead of initForRestart) and bring every
  // rank's files of the committed Versions (newest first, N of them) to
  // its host and its partner's, from whichever hosts still hold them.
  void (*gatherImages)(const uint64_t *Versions, int N);
  // A fatal error of this process: ends the whole job, also before the
  // communication library is initialised (the other ranks would wait for
  // this one there: MPICH's launcher waits for ever). May be null.
  void (*abortJob)();
};

// Set by the layer's constructor; null in a serial program.
extern ParallelLayer *Parallel;

// For the layer.
uint32_t processRank();
uint32_t processCount();
// The next checkpoint version number (the layer makes ranks agree on it).
uint64_t nextVersion();
void setNextVersion(uint64_t V);
// The layer's saved state: a block in the heap region, restored with it.
void *parallelState();
void setParallelState(void *P);
// CCC_DIR and the program's name there (for commit records).
const char *storeDir();
// Where images and message logs go: CCC_LOCAL_DIR if set, else CCC_DIR.
const char *imageDir();
bool nodeLocalStorage();
// CCC_FLUSH_EVERY (0: none).
uint64_t flushEvery();
const char *storeName();
int keepVersions();
// Pruning (RankPruning.h). At start, before a restart: the lowest version of
// this rank's files in imageDir() and of those flushed to storeDir().
void startRankPruning(uint64_t Lowest, uint64_t LowestFlushed);
// This rank's image of V (chain base ChainBase) was written or restored.
void noteOwnImage(uint64_t V, uint64_t ChainBase);
// Deletes what CCC_KEEP no longer needs of this rank's files.
void pruneOwnFiles();
// Rank 0, after the commit record of V: deletes those out of CCC_KEEP.
void pruneCommitRecords(uint64_t V);
bool runtimeReady();
bool nonblockingProtocol();
bool protocolTrace();
// A detached thread of the runtime's own (no signals), running Fn.
bool startHelperThread(void *(*Fn)(void *));
// True once per timer tick or signal since the last call.
bool takeRequest();
} // namespace ccc
#endif
