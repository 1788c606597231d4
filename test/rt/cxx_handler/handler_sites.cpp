// handler_sites.cpp - sites reached inside a C++ catch handler and during
// unwinding (a destructor) must not checkpoint: libstdc++ keeps the
// exception object outside the saved state. The first site after them
// must checkpoint, and a restart resumes there.
#include "ccc.h"

#include <cstdio>
#include <stdexcept>

struct CheckpointsInDestructor {
  ~CheckpointsInDestructor() {
    std::printf("in unwinding: %d\n", ccc_checkpoint_force());
  }
};

static void thrower() {
  CheckpointsInDestructor D;
  throw std::runtime_error("unwind me");
}

int main() {
  try {
    throw std::runtime_error("caught");
  } catch (const std::exception &E) {
    std::printf("in handler: %d\n", ccc_checkpoint_force());
  }
  try {
    thrower();
  } catch (const std::exception &E) {
  }
  std::printf("after: %d\n", ccc_checkpoint_force());
  std::fflush(stdout);
  return 0;
}
