#include <ccc.h>
#include <cstdio>
#include <cstdlib>
#include <string>

void tally(const std::string &Key);
unsigned long tallyDigest();

int main(int argc, char **argv) {
  long Steps = argc > 1 ? std::atol(argv[1]) : 3000;
  unsigned long Rng = 0x2545F4914F6CDD1DUL;
  for (long S = 0; S < Steps; ++S) {
    ccc_checkpoint();
    for (int K = 0; K < 100; ++K) {
      Rng ^= Rng << 13, Rng ^= Rng >> 7, Rng ^= Rng << 17;
      tally("key-" + std::to_string(Rng % 5000) + "-long-enough-for-heap");
    }
  }
  std::printf("histo: %lu\n", tallyDigest());
  return 0;
}
