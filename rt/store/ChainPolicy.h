//===- ChainPolicy.h - Full or incremental, per image -----------*- C++ -*-===//
//
// An incremental image pays only when little of the memory changed since
// the previous image: when almost every chunk changes (a spectral code
// rewrites its whole state each step), an increment is as large as a full
// image, or larger (later data may compress worse), and keeping its chain's
// base as well doubles the disk used. Each rank therefore measures, and
// writes a full image when an increment would not be clearly smaller:
//
//  - after a full image: if at least half of its memory bytes had changed
//    since the image before it (counted while writing it), the next image
//    is full too;
//  - after an increment: if it took more than half the bytes of the chain's
//    full image, or if the increments of the chain would then exceed one
//    full image in all, the next image is full.
//
// A chain (its full base and increments) then never holds more than about
// two full images, and with CCC_KEEP versions kept the directory holds
// about CCC_KEEP + 1 full images per rank (docs/configuration.md).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_CHAINPOLICY_H
#define CCC_RT_CHAINPOLICY_H

#include "Incremental.h"

#include <cstdint>

namespace ccc {
class ChainPolicy {
public:
  // Whether the next image is written in full. HavePrev: an image to refer
  // to exists; ChainLength: that image's place in its chain (0 = full).
  bool wantFull(bool HavePrev, uint32_t ChainLength, uint32_t FullEvery) const;
  // An image is durable: its file's size, whether it was full, and what its
  // writer counted.
  void written(bool Full, uint64_t FileBytes, const ChunkStats &S);
  // After a restart from an image of chain length ChainLength: the sizes of
  // its chain's full image and of the increments after it (the restored
  // image included).
  void restored(uint32_t ChainLength, uint64_t BaseBytes, uint64_t ChainBytes,
                uint64_t LastBytes);

private:
  uint64_t FullBytes = 0;    // the current chain's full image
  uint64_t ChainBytes = 0;   // its increments, in all
  uint64_t LastIncBytes = 0; // the last increment (0: the last was full)
  // Of the last full image: the fraction of its memory bytes that changed
  // since the image before it; negative if not measured.
  double LastChanged = -1;
};
} // namespace ccc
#endif
