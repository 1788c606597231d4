//===- ChainPolicy.cpp - Full or incremental, per image -------------------===//
#include "ChainPolicy.h"

namespace ccc {

// "Clearly smaller": an increment must take at most half of what a full
// image takes.
constexpr double kMaxIncrementShare = 0.5;

bool ChainPolicy::wantFull(bool HavePrev, uint32_t ChainLength,
                           uint32_t FullEvery) const {
  if (!HavePrev || ChainLength + 1 >= FullEvery)
    return true;
  if (FullBytes == 0)
    return false;        // nothing measured yet: try an increment
  if (LastIncBytes == 0) // the last image was full
    return LastChanged >= kMaxIncrementShare;
  return LastIncBytes > kMaxIncrementShare * FullBytes ||
         ChainBytes + LastIncBytes > FullBytes;
}

void ChainPolicy::written(bool Full, uint64_t FileBytes, const ChunkStats &S) {
  if (Full) {
    FullBytes = FileBytes;
    ChainBytes = LastIncBytes = 0;
    uint64_t Total = S.StoredBytes + S.ReferencedBytes;
    LastChanged = S.Compared && Total
                      ? 1.0 - double(S.UnchangedBytes) / double(Total)
                      : -1;
    return;
  }
  ChainBytes += FileBytes;
  LastIncBytes = FileBytes ? FileBytes : 1;
}

void ChainPolicy::restored(uint32_t ChainLength, uint64_t BaseBytes,
                           uint64_t ChainBytesIn, uint64_t LastBytes) {
  FullBytes = BaseBytes;
  LastChanged = -1;
  if (ChainLength == 0) {
    ChainBytes = LastIncBytes = 0;
    return;
  }
  ChainBytes = ChainBytesIn;
  LastIncBytes = LastBytes ? LastBytes : 1;
}
} // namespace ccc
