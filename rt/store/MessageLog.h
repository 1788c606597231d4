//===- MessageLog.h - The protocol's message log file -----------*- C++ -*-===//
//
// NAME.vSEQ.rRANK.log: what one rank received or decided after its
// checkpoint SEQ while the checkpoint was open (late messages, wildcard
// matches, non-deterministic events, outputs of collectives that crossed
// the recovery line), replayed when the job restarts from SEQ. Written by
// the MPI layer (mpi-layer/protocol/Protocol.cpp); read by it at a restart and
// by `ckpt verify`, through readMessageLog, which checks every byte a replay
// will use before anything is replayed.
//
// Layout: a LogHeader, then Bytes bytes of records, each a LogRecord
// followed by its payload:
//   Late, Wild  the message's packed bytes (Bytes of them)
//   Event       NVals 8-byte values (Bytes == 8 * NVals)
//   Coll        per output block, its length (8 bytes) and its bytes
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_MESSAGELOG_H
#define CCC_RT_MESSAGELOG_H

#include <cstddef>
#include <cstdint>

namespace ccc {

constexpr uint64_t kLogMagic = 0x31474f4c43434343ULL; // "CCCCLOG1"

struct LogHeader {
  uint64_t Magic;
  uint64_t Version;
  uint32_t Rank, NRanks;
  uint64_t Bytes; // of records after the header
  uint64_t Sum;   // logChecksum of those bytes
};

enum class RecKind : uint8_t { Late, Wild, Event, Coll };
constexpr unsigned kRecKinds = 4;

struct LogRecord {
  RecKind Kind;
  uint8_t Ev;     // Event: which; Coll: 1 for a non-blocking one open at
                  // this rank's checkpoint
  uint16_t NVals; // Event
  int32_t Src;    // Late, Wild: rank in the communicator
  int32_t Tag;
  uint32_t Pad;
  uint64_t Op;    // receive operation (Late, Wild); collective number (Coll)
  uint64_t Comm;  // program handle bits (Late, Wild, Coll)
  uint64_t Bytes; // of payload after the record
};

uint64_t logChecksum(const char *P, size_t N);

// What a reader expects of a log; kAny where it does not know.
constexpr uint64_t kAny = ~0ULL;
struct LogExpect {
  uint64_t Version = kAny;
  uint64_t Rank = kAny;
  uint64_t NRanks = kAny;
};

// Reads Path and checks its header against the file and E, the checksum,
// and every record's structure (kinds, sizes within the file, events'
// value counts, collectives' blocks, sources within the job). Returns the
// records (Header->Bytes of them) in memory from Alloc, or null with the
// reason in Why. Header may be null.
char *readMessageLog(const char *Path, const LogExpect &E, LogHeader *Header,
                     size_t *Len, void *(*Alloc)(size_t), void (*Free)(void *),
                     char *Why, size_t Cap);

// Checks records already in memory (what readMessageLog does after the
// checksum); NRanks bounds the sources. Counts them per kind into Count
// (kRecKinds entries) if given.
bool checkLogRecords(const char *Data, size_t Len, uint32_t NRanks,
                     size_t *Count, char *Why, size_t Cap);

// Visits the checked records in order: Fn(const LogRecord &, const char
// *Payload).
template <typename F>
size_t forEachLogRecord(const char *Data, size_t Len, F Fn) {
  size_t N = 0;
  for (size_t Off = 0; Off + sizeof(LogRecord) <= Len; ++N) {
    LogRecord R;
    __builtin_memcpy(&R, Data + Off, sizeof(R));
    Fn(R, Data + Off + sizeof(R));
    Off += sizeof(R) + R.Bytes;
  }
  return N;
}

// The next output block of a checked Coll record's payload at P (before
// End): its bytes and length. False when none is left.
bool nextCollBlock(const char *&P, const char *End, const char **Block,
                   uint64_t *Len);

} // namespace ccc
#endif
