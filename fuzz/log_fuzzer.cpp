//===- log_fuzzer.cpp - libFuzzer target of the message log reader --------===//
//
// The input is a message log file (rt/store/MessageLog.h). It is written into a
// scratch directory as fz.v000002.r1.log and read by readMessageLog, as a
// restart of rank 1 at version 2 reads it; what the reader accepts is then
// used as the replay uses it (every late message's bytes, every event's
// values, every block of every collective result copied out), so a length
// the check let through that runs past the buffer is an ASan report. `ckpt
// verify` runs on the file too.
//
// The custom mutator decodes the records and changes their kinds, sources,
// value counts, payload lengths (claimed or real) and collective blocks,
// inserts, drops and repeats records, or changes header fields, then sets
// the header's size and checksum to match (1 in 8 left as they were), so
// the record checks are reached rather than stopped at the checksum.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"

#include "rt/store/MessageLog.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace ccc;

extern "C" size_t LLVMFuzzerMutate(uint8_t *Data, size_t Size, size_t Max);

static const char *const kName = "fz.v000002.r1.log";

// What the replay does with accepted records, with the exact lengths it
// would use (mpi-layer/protocol/ProtocolMessages.cpp, ProtocolCollectives.cpp).
static uint64_t replay(const char *Data, size_t Len) {
  uint64_t Sum = 0;
  auto Copy = [&](const char *P, uint64_t N) {
    char *Buf = static_cast<char *>(malloc(N ? N : 1));
    memcpy(Buf, P, N);
    for (uint64_t I = 0; I < N; I += 64)
      Sum += (unsigned char)Buf[I];
    free(Buf);
  };
  forEachLogRecord(Data, Len, [&](const LogRecord &R, const char *P) {
    switch (R.Kind) {
    case RecKind::Late:
    case RecKind::Wild:
      Copy(P, R.Bytes);
      break;
    case RecKind::Event:
      Copy(P, 8ULL * R.NVals);
      break;
    case RecKind::Coll: {
      const char *Block, *End = P + R.Bytes;
      uint64_t N;
      while (nextCollBlock(P, End, &Block, &N))
        Copy(Block, N);
      break;
    }
    }
  });
  return Sum;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  fuzz::clearDir();
  fuzz::writeFile(kName, Data, Size);
  std::string Path = fuzz::workDir() + "/" + kName;
  LogExpect E;
  E.Version = 2;
  E.Rank = 1;
  LogHeader H;
  size_t Len;
  char Why[8192];
  char *Records =
      readMessageLog(Path.c_str(), E, &H, &Len, malloc, free, Why, sizeof(Why));
  if (Records) {
    volatile uint64_t Sink = replay(Records, Len);
    (void)Sink;
    free(Records);
  }
  fuzz::ckpt({"verify", Path});
  return 0;
}

//===-- Structure-aware mutation ------------------------------------------===//

namespace {
std::minstd_rand Rng;
uint64_t pick(uint64_t N) { return N ? Rng() % N : 0; }

struct Rec {
  LogRecord R;
  std::string Payload;
};

struct Log {
  LogHeader H;
  std::vector<Rec> Recs;

  // False if Data is not a header followed by records whose lengths fit;
  // what is in the records (kinds, sources, blocks) may be anything.
  bool decode(const uint8_t *Data, size_t Size) {
    if (Size < sizeof(H))
      return false;
    memcpy(&H, Data, sizeof(H));
    const char *P = reinterpret_cast<const char *>(Data) + sizeof(H);
    size_t Len = Size - sizeof(H);
    for (size_t Off = 0; Off < Len;) {
      Rec X;
      if (Len - Off < sizeof(X.R))
        return false;
      memcpy(&X.R, P + Off, sizeof(X.R));
      Off += sizeof(X.R);
      if (X.R.Bytes > Len - Off)
        return false;
      X.Payload.assign(P + Off, X.R.Bytes);
      Off += X.R.Bytes;
      Recs.push_back(X);
    }
    return true;
  }

  std::string encode(bool FixBytes, bool FixSum) const {
    std::string Body;
    for (const Rec &X : Recs) {
      Body.append(reinterpret_cast<const char *>(&X.R), sizeof(X.R));
      Body += X.Payload;
    }
    LogHeader Out = H;
    if (FixBytes)
      Out.Bytes = Body.size();
    if (FixSum)
      Out.Sum = logChecksum(Body.data(), Body.size());
    return std::string(reinterpret_cast<const char *>(&Out), sizeof(Out)) +
           Body;
  }
};

std::string randomBytes(size_t N) {
  std::string S(N, '\0');
  for (char &C : S)
    C = char(pick(256));
  return S;
}

std::string collPayload() {
  std::string S;
  for (uint64_t N = pick(4); N--;) {
    uint64_t Len = pick(4) ? pick(40) : 8 * pick(64);
    S.append(reinterpret_cast<const char *>(&Len), sizeof(Len));
    S += randomBytes(Len);
  }
  return S;
}

Rec newRecord(uint32_t NRanks) {
  Rec X;
  memset(&X.R, 0, sizeof(X.R));
  X.R.Kind = RecKind(pick(kRecKinds));
  X.R.Src = int32_t(pick(NRanks ? NRanks : 1));
  X.R.Tag = int32_t(pick(100));
  X.R.Op = pick(1000);
  X.R.Comm = 0x44000000 + pick(4);
  switch (X.R.Kind) {
  case RecKind::Late:
    X.Payload = randomBytes(pick(200));
    break;
  case RecKind::Wild:
    break;
  case RecKind::Event:
    X.R.Ev = uint8_t(pick(8));
    X.R.NVals = uint16_t(pick(5));
    X.Payload = randomBytes(8 * X.R.NVals);
    break;
  case RecKind::Coll:
    X.R.Ev = uint8_t(pick(2));
    X.Payload = collPayload();
    break;
  }
  X.R.Bytes = X.Payload.size();
  return X;
}

// A length near the edges a reader could get wrong.
uint64_t edgyLength(uint64_t Real) {
  switch (pick(6)) {
  case 0:
    return Real + 1 + pick(16);
  case 1:
    return Real ? Real - 1 - pick(Real) : 0;
  case 2:
    return ~0ULL - pick(64);
  case 3:
    return 1ULL << (32 + pick(31));
  default:
    return pick(1 << 16);
  }
}

void mutateRecord(Rec &X, uint32_t NRanks) {
  switch (pick(7)) {
  case 0:
    X.R.Kind = RecKind(pick(kRecKinds + 2));
    break;
  case 1:
    X.R.Src = pick(2) ? int32_t(NRanks + pick(3)) : -int32_t(pick(3));
    break;
  case 2:
    X.R.NVals = pick(2) ? uint16_t(X.R.NVals + 1) : uint16_t(pick(65536));
    break;
  case 3: // claimed length only: the payload stays as it is
    X.R.Bytes = edgyLength(X.R.Bytes);
    break;
  case 4: // the payload changes, its claimed length with it
    X.Payload.resize(pick(2 * X.Payload.size() + 16), char(pick(256)));
    X.R.Bytes = X.Payload.size();
    break;
  case 5: { // one collective block's length
    if (X.Payload.size() < 8)
      break;
    uint64_t At = 0, Len;
    for (uint64_t Skip = pick(3); Skip-- && At + 8 <= X.Payload.size();) {
      memcpy(&Len, &X.Payload[At], 8);
      if (Len > X.Payload.size() - At - 8)
        break;
      At += 8 + Len;
    }
    if (At + 8 > X.Payload.size())
      At = 0;
    memcpy(&Len, &X.Payload[At], 8);
    Len = edgyLength(Len);
    memcpy(&X.Payload[At], &Len, 8);
    break;
  }
  default: { // payload bytes, by libFuzzer
    if (X.Payload.empty())
      break;
    std::string B = X.Payload;
    B.resize(B.size() * 2);
    size_t N = LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(&B[0]),
                                X.Payload.size(), B.size());
    B.resize(N);
    X.Payload = B;
    X.R.Bytes = B.size();
    break;
  }
  }
}

// False if it changed the size, which must then not be set to match.
bool mutateHeader(LogHeader &H) {
  switch (pick(5)) {
  case 0:
    H.Version = pick(2) ? 2 : pick(4);
    break;
  case 1:
    H.Rank = uint32_t(pick(4));
    break;
  case 2:
    H.NRanks = uint32_t(pick(6));
    break;
  case 3:
    H.Magic ^= 1ULL << pick(64);
    break;
  default:
    H.Bytes = edgyLength(H.Bytes);
    return false;
  }
  return true;
}
} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *Data, size_t Size,
                                          size_t MaxSize, unsigned Seed) {
  Rng.seed(Seed);
  Log G;
  if (!G.decode(Data, Size) || pick(16) == 0)
    return LLVMFuzzerMutate(Data, Size, MaxSize);
  uint32_t NRanks = G.H.NRanks;
  bool FixSum = pick(8) != 0, FixBytes = true;
  for (uint64_t N = 1 + pick(3); N--;) {
    switch (G.Recs.empty() ? 0 : pick(6)) {
    case 0:
      G.Recs.insert(G.Recs.begin() + pick(G.Recs.size() + 1),
                    newRecord(NRanks));
      break;
    case 1:
      G.Recs.erase(G.Recs.begin() + pick(G.Recs.size()));
      break;
    case 2:
      G.Recs.push_back(G.Recs[pick(G.Recs.size())]);
      break;
    case 3:
      FixBytes &= mutateHeader(G.H);
      break;
    default:
      mutateRecord(G.Recs[pick(G.Recs.size())], NRanks);
      break;
    }
  }
  std::string Out = G.encode(FixBytes, FixSum);
  if (Out.size() > MaxSize)
    return LLVMFuzzerMutate(Data, Size, MaxSize);
  memcpy(Data, Out.data(), Out.size());
  return Out.size();
}
