//===- ReservedFds.cpp - Descriptor numbers kept free for a restart -------===//
//
// Descriptors the program had open in the images checked so far, and the
// placeholders (/dev/null) that keep those numbers free while an MPI
// library initialised for the restart opens its own: on another host, or
// in another order, its sockets would otherwise take the numbers the
// program's files must come back at.
//
// Always linked (Restart.cpp uses it); OpenFiles.cpp, linked only when the
// program opens files, asks it which numbers hold a placeholder.
//
//===----------------------------------------------------------------------===//
#include "OpenFiles.h"

#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ccc {
namespace {
uint64_t WantedFds[16], ReservedFds[16];
} // namespace

void wantProgramFds(const uint64_t *Mask) {
  for (int I = 0; I < 16; ++I)
    WantedFds[I] |= Mask[I];
}

void reserveProgramFds() {
  for (int Fd = 3; Fd < 64 * 16; ++Fd) {
    uint64_t Bit = 1ULL << (Fd % 64);
    if (!(WantedFds[Fd / 64] & Bit) || (ReservedFds[Fd / 64] & Bit) ||
        fcntl(Fd, F_GETFD) != -1)
      continue;
    int N = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (N < 0)
      return;
    if (N == Fd || dup2(N, Fd) == Fd) {
      fcntl(Fd, F_SETFD, FD_CLOEXEC);
      ReservedFds[Fd / 64] |= Bit;
    }
    if (N != Fd)
      close(N);
  }
}

bool fdReservedForRestore(int Fd) {
  return Fd >= 3 && Fd < 64 * 16 && (ReservedFds[Fd / 64] >> (Fd % 64) & 1);
}

// After the program's files are back: the placeholders none of them took
// are closed (the restored table may be another version's than the one
// whose numbers were kept free).
void releaseReservedFds() {
  uint64_t Keep[16] = {0};
  if (programFds)
    programFds(Keep, 16);
  for (int Fd = 3; Fd < 64 * 16; ++Fd)
    if (fdReservedForRestore(Fd) && !(Keep[Fd / 64] >> (Fd % 64) & 1))
      close(Fd);
  memset(ReservedFds, 0, sizeof(ReservedFds));
}
} // namespace ccc
