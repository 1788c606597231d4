//===- Hash.cpp - Checksums for image sections ----------------------------===//
#include "Hash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace ccc {
// XXH3 (libxxhash's header, compiled in: nothing to link): ~2x the speed of
// a 64-bit multiply-rotate hash, so hashing every chunk at every checkpoint
// stays far below the cost of compressing it.
uint64_t hashBytes(const void *Data, size_t Len, uint64_t Seed) {
  return XXH3_64bits_withSeed(Data, Len, Seed);
}
} // namespace ccc
