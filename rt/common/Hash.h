//===- Hash.h - Checksums for image sections --------------------*- C++ -*-===//
//
// A fast 64-bit non-cryptographic hash (XXH3) used to detect corrupt or
// truncated images and to find the chunks that did not change since the
// previous checkpoint, and a way to chain
// the hashes of the pieces of a section so writer and reader agree without
// buffering the whole section.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_HASH_H
#define CCC_RT_HASH_H

#include <cstddef>
#include <cstdint>

namespace ccc {
uint64_t hashBytes(const void *Data, size_t Len, uint64_t Seed = 0);
inline uint64_t hashChain(uint64_t H, uint64_t Piece) {
  H ^= Piece + 0x9e3779b97f4a7c15ULL + (H << 6) + (H >> 2);
  return H * 0xff51afd7ed558ccdULL;
}
} // namespace ccc
#endif
