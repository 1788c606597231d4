//===- ProtocolInternal.h - the non-blocking protocol's shared parts -*- C++
//-*-===//
//
// What Protocol.cpp (modes, message log, control messages, sends and
// receives, sites, restart) shares with ProtocolCollectives.cpp. Internal
// to the layer.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_PROTOCOLINTERNAL_H
#define CCC_MPI_PROTOCOLINTERNAL_H

#include "Layer.h"

#include "../rt/Log.h"
#include "../rt/Parallel.h"

#include <cstdint>
#include <cstring>

namespace ccc {
namespace mpi {
namespace nb {

#define TRACE(...)                                                             \
  do {                                                                         \
    if (protocolTrace())                                                       \
      logMessage("protocol: rank " __VA_ARGS__);                               \
  } while (0)

// Coll: a collective that crossed the recovery line, recorded by the ranks
// past their checkpoint: every member's header word, then the data of each
// late stream (from a member before its checkpoint), packed, in rank order.
enum class RecKind : uint8_t { Late, Wild, Event, Coll };

struct Record {
  RecKind Kind;
  uint8_t Ev;     // Event
  uint16_t NVals; // Event
  int32_t Src;    // rank in the communicator
  int32_t Tag;
  uint32_t Pad;
  uint64_t Op;    // receive operation (Late, Wild); collective number (Coll)
  uint64_t Comm;  // program handle bits (Late, Wild, Coll)
  uint64_t Bytes; // Late: packed data that follows; Event: 8 * NVals
};

struct Buffer {
  char *Data = nullptr;
  size_t Len = 0, Cap = 0;
  void append(const void *P, size_t N) {
    if (Len + N > Cap) {
      size_t C = Cap ? Cap * 2 : 4096;
      while (C < Len + N)
        C *= 2;
      char *D = static_cast<char *>(__libc_realloc(Data, C));
      if (!D)
        fatal("out of memory for the message log (%zu bytes)", C);
      Data = D;
      Cap = C;
    }
    memcpy(Data + Len, P, N);
    Len += N;
  }
  void clear() { Len = 0; }
};

// What a rank reports to rank 0 when its period ends, so that rank 0 can
// say why a version is not committed: a write that failed is a lost
// checkpoint, a rank that finished first only an abandoned one. In order
// of precedence when ranks differ.
enum Outcome : uint64_t {
  kWritten = 0,     // image and log durable
  kSaid = 1,        // not committed for a reason this rank already printed
  kFinished = 2,    // reached MPI_Finalize before taking it: no image
  kWriteFailed = 3, // its image or its log could not be written
};

// The log being replayed after a restart.
struct Replay {
  Record *Recs = nullptr; // pointers into Data
  char **Payload = nullptr;
  bool *Used = nullptr;
  size_t N = 0;
  char *Data = nullptr;
  size_t NextEvent = 0; // index of the next unreplayed event record
  size_t Left = 0;      // records not yet used
};
extern Replay RP;

// Every message starts with the sender's header word(s), padded to this.
constexpr int kHeaderBytes = 8;

// Sends this rank must suppress while it re-executes: per destination, the
// sorted sequence numbers of its messages that the receiver got early.
struct WasEarly {
  uint64_t *Seqs = nullptr;
  uint32_t N = 0, Next = 0;
};
extern WasEarly *WE;
extern uint64_t WasEarlyLeft;

extern Buffer Log;
extern Outcome TakeResult;
const char *modeName(Mode M);
void setMode(Mode M, const char *Why);
void record(RecKind K, uint8_t Ev, uint64_t Op, uint64_t Comm, int Src, int Tag,
            const void *Data, uint64_t Bytes, uint16_t NVals);
void toRecvOnly(const char *Why);
void checkPeriod();
void use(size_t I);
// Ends Restore mode once the log is replayed and early sends suppressed.
void maybeEndRestore();
// ProtocolMessages.cpp: after a restart, the log read back and the early
// sends to suppress agreed; a receive request posted again (its header
// block, MPI's request).
void loadReplay(char *Data, size_t Len);
void exchangeEarly();
} // namespace nb
void postReceive(Request &R);
namespace nb {} // namespace nb
} // namespace mpi
} // namespace ccc
#endif
