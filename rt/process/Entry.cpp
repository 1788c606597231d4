//===- Entry.cpp - Process entry: ASLR off, then the runtime's main -------===//
//
// Two things must happen before any application code runs:
//  1. Address-space layout randomisation is switched off and the program
//     re-executed, so code, data and libraries land at the same addresses in
//     every run (an ELF constructor, before other constructors).
//  2. The program's own main (renamed __ccc_user_main by the pass) runs on a
//     fixed-address stack with the heap region mapped; that is `main` below,
//     which the linker takes from this archive because the pass renamed the
//     program's.
//
//===----------------------------------------------------------------------===//
#include "Runtime.h"
#include "rt/common/Config.h"
#include "rt/common/Log.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/personality.h>
#include <sys/resource.h>
#include <unistd.h>

// The kernel places mmap_base (and with it every shared library) below the
// stack by a gap derived from RLIMIT_STACK, so the limit must be the same in
// every run. Our program stack is ours anyway.
static constexpr rlim_t kNormalStackLimit = 8 << 20;

__attribute__((constructor(101))) static void
cccReexecWithoutAslr(int Argc, char **Argv, char **Envp) {
  (void)Argc;
  (void)Envp;
  const char *Disable = getenv("CCC_DISABLE");
  if (Disable && !strcmp(Disable, "1"))
    return;
  int Pers = personality(0xffffffff);
  if (Pers == -1)
    return;
  struct rlimit RL;
  if (!getenv("CCC_STACK_RLIMIT") && getrlimit(RLIMIT_STACK, &RL) == 0) {
    char V[32];
    snprintf(V, sizeof(V), "%lld",
             RL.rlim_cur == RLIM_INFINITY ? -1LL : (long long)RL.rlim_cur);
    setenv("CCC_STACK_RLIMIT", V, 1);
  }
  bool NeedExec = !(Pers & ADDR_NO_RANDOMIZE);
  if (getrlimit(RLIMIT_STACK, &RL) == 0) {
    rlim_t Want = kNormalStackLimit;
    if (RL.rlim_max != RLIM_INFINITY && RL.rlim_max < Want)
      Want = RL.rlim_max;
    if (RL.rlim_cur != Want) {
      RL.rlim_cur = Want;
      if (setrlimit(RLIMIT_STACK, &RL) == 0)
        NeedExec = true;
    }
  }
  if (!NeedExec)
    return;
  if (personality(Pers | ADDR_NO_RANDOMIZE) == -1) {
    ccc::logMessage("cannot disable address randomisation (%s); a restart "
                    "may fail the layout check",
                    strerror(errno));
    return;
  }
  // Through the real path, or the process would be renamed "exe".
  char Exe[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Exe, sizeof(Exe) - 1);
  if (N <= 0)
    return;
  Exe[N] = 0;
  extern char **environ;
  execve(Exe, Argv, environ);
  ccc::logMessage("cannot re-execute %s (%s); a restart may fail the layout "
                  "check",
                  Exe, strerror(errno));
}

// Every instrumented site calls this (see CheckpointSites.cpp), so linking
// a site links this object, whose main overrides the weak fallback main the
// pass leaves in the program. Programs built without the pass call
// ccc_checkpoint(), which does not bring this main in.
extern "C" int __ccc_checkpoint_slow(int Kind) {
  return ccc::checkpointSlow(Kind);
}

int main(int Argc, char **Argv, char **Envp) {
  ccc::configInit();
  if (ccc::Cfg.Disabled)
    return __ccc_user_main(Argc, Argv, Envp);
  ccc::runtimeStart(__ccc_user_main, Argv, Envp);
}
