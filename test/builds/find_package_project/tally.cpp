#include <string>
#include <unordered_map>

static std::unordered_map<std::string, long> Counts;

void tally(const std::string &Key) { ++Counts[Key]; }

unsigned long tallyDigest() {
  unsigned long H = 0;
  for (const auto &[K, N] : Counts) // order-independent digest
    H += std::hash<std::string>()(K) * (unsigned long)(N + 1);
  return H + Counts.size();
}
