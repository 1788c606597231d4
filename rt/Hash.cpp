//===- Hash.cpp - Checksums for image sections ----------------------------===//
#include "Hash.h"

#include <cstring>

namespace ccc {
static constexpr uint64_t K1 = 0x9e3779b185ebca87ULL;
static constexpr uint64_t K2 = 0xc2b2ae3d27d4eb4fULL;
static constexpr uint64_t K3 = 0x165667b19e3779f9ULL;

static inline uint64_t rotl(uint64_t X, int R) {
  return (X << R) | (X >> (64 - R));
}
static inline uint64_t load64(const unsigned char *P) {
  uint64_t V;
  memcpy(&V, P, 8);
  return V;
}
static inline uint64_t lane(uint64_t Acc, uint64_t In) {
  return rotl(Acc + In * K2, 31) * K1;
}

uint64_t hashBytes(const void *Data, size_t Len, uint64_t Seed) {
  const unsigned char *P = static_cast<const unsigned char *>(Data);
  const unsigned char *End = P + Len;
  uint64_t H;
  if (Len >= 32) {
    uint64_t A = Seed + K1 + K2, B = Seed + K2, C = Seed, D = Seed - K1;
    for (; P + 32 <= End; P += 32) {
      A = lane(A, load64(P));
      B = lane(B, load64(P + 8));
      C = lane(C, load64(P + 16));
      D = lane(D, load64(P + 24));
    }
    H = rotl(A, 1) + rotl(B, 7) + rotl(C, 12) + rotl(D, 18);
    H = (H ^ lane(0, A)) * K1 + K3;
    H = (H ^ lane(0, B)) * K1 + K3;
    H = (H ^ lane(0, C)) * K1 + K3;
    H = (H ^ lane(0, D)) * K1 + K3;
  } else {
    H = Seed + K3;
  }
  H += Len;
  for (; P + 8 <= End; P += 8)
    H = rotl(H ^ lane(0, load64(P)), 27) * K1 + K3;
  for (; P < End; ++P)
    H = rotl(H ^ (*P * K3), 11) * K1;
  H ^= H >> 33;
  H *= K2;
  H ^= H >> 29;
  H *= K3;
  H ^= H >> 32;
  return H;
}
} // namespace ccc
