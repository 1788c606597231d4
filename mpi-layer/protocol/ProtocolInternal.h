//===- ProtocolInternal.h - the protocol's shared parts ---------*- C++ -*-===//
//
// What Protocol.cpp (modes, message log, control messages, sends and
// receives, sites, restart) shares with ProtocolCollectives.cpp. Internal
// to the layer.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_MPI_PROTOCOLINTERNAL_H
#define CCC_MPI_PROTOCOLINTERNAL_H

#include "mpi-layer/Layer.h"

#include "rt/common/Log.h"
#include "rt/process/Parallel.h"
#include "rt/store/MessageLog.h"

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

// The records of the message log (rt/store/MessageLog.h).
using Record = LogRecord;

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

// Every message starts with the sender's header: its epoch and logging bit,
// its sequence number to this receiver, and under CCC_CHECK_PLACES its
// place on the channel (HeaderBytes, NonBlockingProtocol.h: one of these).
constexpr int kBaseHeaderBytes = 8;
constexpr int kMaxHeaderBytes = 16;
// Tags of the layer's point-to-point messages on Private: 0 carries the
// node-local partner copies (NodeLocal.cpp), kEarlyTag the early
// registries at a restart (exchangeEarly).
constexpr int kEarlyTag = 1;

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

// ProtocolControl.cpp: the control messages (a tree of the world ranks).
// A communicator's key names it in them: its tag and its lowest world rank
// (see Object::CollTag); Min and Max, the least and largest number of
// collectives its members had started on it at their checkpoints.
struct CutEntry {
  uint64_t Key, Min, Max;
};
// What this rank's control messages cost (CCC_MPI_COUNTS). Of Msgs,
// StartsUp went to rank 0 because this rank began a checkpoint on its own,
// Inits were INITs: bench/mpi/growth.py checks the rest against the tree.
struct CtrlCounts {
  uint64_t Msgs, Bytes, MsgsIn, StartsUp, Inits;
};
extern MPI_Comm Ctrl;
extern bool AllSeen; // ALL of this epoch came: every rank checkpointed
extern CtrlCounts Counts;
void ctrlInit(uint32_t Epoch);
bool ctrlOpen();     // this rank's part in a commit is not done
bool ctrlStopping(); // the job ends once the open checkpoint is committed
void pollCtrl();
// At this rank's checkpoint: before its image (START, INITs to the ranks
// it sent OldSent[q] > 0 messages in the epoch that ends), and after it
// (DONE with this rank's cuts, sorted by key).
void ctrlCheckpointStarted(bool OnItsOwn, const uint64_t *OldSent);
void ctrlCheckpointWritten(const Buffer &Cuts);
void ctrlPeriodEnded(Outcome O);
void ctrlFinish();
void abandonVersion(uint64_t V, int Finisher);
void reportCounts();

// ProtocolCollectives.cpp: at this rank's checkpoint, its cuts; when ALL
// came, the communicators whose collectives crossed the line (key, largest
// cut) pairs; whether every collective this rank must log was; at
// MPI_Finalize, giving up on those that never will be; after a restart.
void collCheckpoint(Buffer &Cuts);
void collApplyCuts(const uint64_t *Crossed, size_t N);
bool collDebtsPaid();
void collForgiveDebts();
void collRestoreOpen(Request &R);
void collAfterRestore();
uint64_t collLoggedBytes();
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
// ProtocolCollectives.cpp: communicator keys in the control messages.
constexpr uint64_t kWorldKey = 1ULL << 32; // tag 1, rank 0
uint64_t keyOf(const Object &O);
} // namespace nb

// Places.cpp: a channel (communicator, this rank and world rank Peer, tag)
// and its counts since MPI_Init, both ways. Comm is the communicator's key
// in the control messages, the same on every rank.
struct Channel {
  uint64_t Comm;
  int32_t Peer, Tag;
  bool Used;     // false: a free slot of the table
  uint64_t Sent; // messages this rank sent on it: the next one's place
  uint64_t Got;  // places settled of the messages it received
};
// A message received whose place waits for an earlier posting's outcome:
// Posted its receive's posting number, Claimed the sender's place
// (CCC_CHECK_PLACES) or ~0; from rank Src of Comm (world rank W).
struct Unsettled {
  uint64_t Posted, Claimed;
  MPI_Comm Comm; // program handle
  int Src, Tag, W;
};

namespace nb {
// Places.cpp: each message's place on its channel (communicator, sender,
// receiver, tag). CCC_CHECK_PLACES read (at MPI_Init and at a restart);
// the counter of this rank's sends on (C, world rank W, Tag), the next
// send's place (valid until the next call here); a message received for
// the posting numbered Posted, from rank Src of C with Tag (Hdr: its
// header, or null from the log); a receive posting ended without a
// message (cancelled), or a restart posted the open ones again; the
// check's figures in the trace.
extern bool CheckPlaces;
void placesInit();
uint64_t &sentOn(MPI_Comm C, int W, int Tag);
void placeReceived(MPI_Comm C, int Src, int Tag, uint64_t Posted,
                   const uint32_t *Hdr);
void postingEnded();
void reportPlaces();
inline uint64_t newPosting() { return ++L->Postings; }
} // namespace nb
void postReceive(Request &R);
} // namespace mpi
} // namespace ccc
#endif
