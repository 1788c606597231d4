// user_replaced_operator_new.cpp - proves a program that replaces the global
// operator new/delete itself (here a counting allocator over malloc) links
// with the runtime, whose replacements yield to the program's (the array
// forms, not replaced here, still come from the runtime), and that the
// objects it allocates (a std::map of long std::strings, rebuilt and
// trimmed every step) are saved and restored with the allocator's counters.
#include "ccc.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>
#include <string>

static unsigned long Allocs, Frees;

void *operator new(std::size_t N) {
  ++Allocs;
  if (void *P = std::malloc(N ? N : 1))
    return P;
  throw std::bad_alloc();
}
void operator delete(void *P) noexcept {
  if (P)
    ++Frees;
  std::free(P);
}
void operator delete(void *P, std::size_t) noexcept { operator delete(P); }

int main(int argc, char **argv) {
  long Steps = argc > 1 ? std::atol(argv[1]) : 20000;
  std::map<uint32_t, std::string> Words;
  uint64_t X = 88172645463325252ULL;
  uint64_t *Ring[8] = {};
  for (long S = 0; S < Steps; ++S) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    std::string W(40 + X % 60, char('a' + X % 26));
    W += std::to_string(S);
    Words[uint32_t(X % 4096)] = W;
    if (Words.size() > 3000)
      Words.erase(Words.begin());
    if (S % 64 == 0) {
      delete[] Ring[S / 64 % 8];
      Ring[S / 64 % 8] = new uint64_t[1 + X % 200]();
      Ring[S / 64 % 8][0] = X;
    }
    ccc_checkpoint();
  }
  uint64_t H = 1469598103934665603ULL;
  for (auto &KV : Words)
    for (char C : KV.second)
      H = (H ^ uint8_t(C)) * 1099511628211ULL ^ KV.first;
  for (uint64_t *R : Ring)
    H = (H ^ (R ? R[0] : 0)) * 1099511628211ULL;
  std::printf("words %zu hash %016llx allocs %lu frees %lu\n", Words.size(),
              (unsigned long long)H, Allocs, Frees);
  return 0;
}
