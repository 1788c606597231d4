//===- RuntimeGlobals.h - the runtime's per-process state -------*- C++ -*-===//
//
// What Runtime.cpp (start, sites), Checkpoint.cpp, ImageContents.cpp,
// CodecChoice.cpp and Restart.cpp share: the process's runtime state and the
// checkpoint trigger flags. Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_RUNTIMEGLOBALS_H
#define CCC_RT_RUNTIMEGLOBALS_H

#include "Runtime.h"
#include "rt/image/Image.h"
#include "rt/store/ChainPolicy.h"
#include "rt/store/Incremental.h"

#include <atomic>
#include <cstdint>
#include <ctime>

namespace ccc {
// Set with __ccc_pending by the timer and the signal: a checkpoint was asked
// for (the MPI layer keeps __ccc_pending set for its own reasons).
extern volatile int Requested;
// CLOCK_MONOTONIC ns when the last checkpoint ended (the timer counts from
// there).
extern std::atomic<uint64_t> LastCheckpointEnd;
// Seconds the last checkpoint took this process (CCC_INTERVAL=auto).
extern std::atomic<double> LastCheckpointCost;

struct RuntimeGlobals {
  bool Ready = false; // main runs on our stack: sites may checkpoint
  uint32_t Rank = 0, NRanks = 1;
  bool Restarted = false; // this process was restored from an image
  uint64_t NextVersion = 1;
  RuntimeState State{};
  uint8_t BuildId[64];
  uint32_t BuildIdLen = 0;
  char LoadMap[1 << 16];
  size_t LoadMapLen = 0;
  SavedContext Ctx{};
  // Chunks of the last image written (Prev: the one the next image may
  // refer to; Next: the one being written) and the chain length of Prev.
  ChunkTable Prev, Next;
  uint32_t ChainLength = 0;
  ChunkStats LastStats;
  ChainPolicy Policy; // full or incremental, from the sizes measured
  // Codecs of the globals and heap sections (transforms before zstd), measured
  // at each image (kept when an image samples nothing).
  uint32_t GlobalsCodec = CodecZstd, HeapCodec = CodecZstd;
  // Under CodecZstdPerBlock: the large heap blocks' own codecs, and the
  // codec of the rest of the heap.
  static constexpr size_t kMaxCodecRegions = 64;
  CodecRegion HeapRegions[kMaxCodecRegions];
  size_t NHeapRegions = 0;
  uint32_t HeapDefault = CodecZstd;
};
extern RuntimeGlobals RT;

inline uint64_t nowNs(clockid_t C) {
  struct timespec T;
  clock_gettime(C, &T);
  return (uint64_t)T.tv_sec * 1000000000ull + T.tv_nsec;
}

// main's arguments, copied into the heap region (RuntimeState.MainArgs).
struct MainArgs {
  int Argc;
  char **Argv, **Envp;
  UserMain Main;
};

// Why the main thread's site is inside an OpenMP parallel region or task,
// where no checkpoint may be taken; null outside (OpenMP.cpp).
const char *openMPConstructAtSite();
// At the restored site, before the program goes on: registers the main
// thread with the OpenMP runtime, if there is one (OpenMP.cpp).
void initOpenMPAfterRestart();

// Starts the checkpoint timer and signal (Triggers.cpp).
void startTriggers();
// Starts a detached thread with a small stack and every signal blocked
// (the timer, the heartbeat); false if it cannot.
bool startHelperThread(void *(*Fn)(void *));

// The codecs of the next image's globals and heap sections, measured on
// samples of what it will hold (Prev: the image it may refer to); -1 when
// nothing was sampled (CodecChoice.cpp). heapCodec also fills
// RT.HeapRegions and RT.HeapDefault.
int64_t globalsCodec(const ChunkTable *Prev);
int64_t heapCodec(const ChunkTable *Prev);

// Saves the context and writes, commits and prunes a checkpoint at the
// main thread's site; CCC_TAKEN, CCC_NONE, or CCC_RESTARTED when it returns
// in a restored process (Checkpoint.cpp).
int takeCheckpoint();
// The dead locals of the frames between the site and main, marked for this
// image; and the image of the process at its saved context, written to W
// (ImageContents.cpp).
void markDeadLocalsOfCallers();
bool writeImage(ImageSink &W, uint64_t Version);
// An upper bound of the bytes writeImage would stage now (CCC_ASYNC).
uint64_t imageMemoryBound();
// CCC_ASYNC: waits for the background write of the last checkpoint, if one
// runs (at the next site and at exit; Checkpoint.cpp).
void waitForBackgroundWrite();

// Restores the newest image every rank can restore, if CCC_RESTART allows,
// and never returns then (Restart.cpp).
void restartIfPossible();

} // namespace ccc
#endif
