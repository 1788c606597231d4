//===- Config.h - ccc runtime configuration ---------------------*- C++ -*-===//
//
// All configuration comes from environment variables (Config.def lists them
// with their defaults). Parsed once, before main; bad values are fatal with a
// message naming the variable, never silently replaced.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_CONFIG_H
#define CCC_RT_CONFIG_H

#include <cstddef>
#include <cstdint>

namespace ccc {
enum class RestartMode { Auto, Never, Require };
enum class UnsavedPolicy { Error, Warn, Ignore };

struct Config {
  char Dir[4096];
  char LocalDir[4096]; // CCC_LOCAL_DIR, empty if unset
  // CCC_PARTNER_PORTS LOW-HIGH: where partner copies are received; 0, 0
  // for a port of the system's choice.
  int PartnerPortLow, PartnerPortHigh;
  // CCC_FLUSH_EVERY: with LocalDir, the versions (multiples of it) also
  // written to Dir; 0 = none.
  uint64_t FlushEvery;
  char Name[256];
  double Interval; // seconds, 0 = off (or auto: Mtbf > 0)
  double Mtbf;     // CCC_MTBF seconds, for CCC_INTERVAL=auto
  int Keep;
  RestartMode Restart;
  int CompressLevel;
  int Threads;
  bool Async;           // CCC_ASYNC=1: images written by a runtime thread
  uint64_t AsyncMemory; // CCC_ASYNC_MEMORY bytes; 0 = a quarter of MemAvailable
  int Shuffle;          // CCC_SHUFFLE: -1 auto, 0 never, 1 always
  int FullEvery;        // CCC_FULL_EVERY: 1 = no incremental images
  uint64_t ChunkSize;   // CCC_CHUNK_SIZE
  int Signal;           // 0 = none
  size_t StackSize;
  size_t HeapReserve;
  UnsavedPolicy Unsaved;
  bool SaveLibraries; // CCC_LIBRARIES=save (the default)
  bool NonBlocking;   // CCC_PROTOCOL=nonblocking (the default)
  bool ProtocolTrace; // CCC_VERBOSE=protocol
  bool Disabled;
};

extern Config Cfg;
void configInit();
} // namespace ccc
#endif
