//===- Config.cpp - ccc runtime configuration -----------------------------===//
#include "Config.h"
#include "Log.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>

namespace ccc {
Config Cfg;

static const char *env(const char *Name) {
  const char *V = getenv(Name);
  return (V && *V) ? V : nullptr;
}

static long long envInt(const char *Name, long long Def, long long Min,
                        long long Max) {
  const char *V = env(Name);
  if (!V)
    return Def;
  char *End;
  errno = 0;
  long long X = strtoll(V, &End, 10);
  if (errno || *End || X < Min || X > Max)
    fatal("%s=%s: expected an integer in [%lld, %lld]", Name, V, Min, Max);
  return X;
}

void configInit() {
  Cfg.Disabled = envInt("CCC_DISABLE", 0, 0, 1);
  // CCC_VERBOSE=protocol: level 1 plus a trace of the MPI protocol's mode
  // changes and message classes (the MPI tests assert on it).
  if (const char *V = env("CCC_VERBOSE"); V && !strcmp(V, "protocol")) {
    Cfg.ProtocolTrace = true;
    LogLevel = 1;
  } else {
    LogLevel = envInt("CCC_VERBOSE", 0, 0, 3);
  }

  const char *Dir = env("CCC_DIR");
  if (!Dir)
    Dir = "./ccc-ckpt";
  if (strlen(Dir) >= sizeof(Cfg.Dir) - 64)
    fatal("CCC_DIR is too long");
  strcpy(Cfg.Dir, Dir);
  Cfg.LocalDir[0] = 0;
  if (const char *Local = env("CCC_LOCAL_DIR"); Local && *Local) {
    if (strlen(Local) >= sizeof(Cfg.LocalDir) - 64)
      fatal("CCC_LOCAL_DIR is too long");
    strcpy(Cfg.LocalDir, Local);
  }

  const char *Name = env("CCC_NAME");
  char Exe[PATH_MAX];
  if (!Name) {
    ssize_t N = readlink("/proc/self/exe", Exe, sizeof(Exe) - 1);
    Exe[N > 0 ? N : 0] = 0;
    const char *Slash = strrchr(Exe, '/');
    Name = Slash ? Slash + 1 : (N > 0 ? Exe : "program");
  }
  if (strlen(Name) >= sizeof(Cfg.Name) || strchr(Name, '/'))
    fatal("CCC_NAME=%s: must be a file name of at most 255 bytes", Name);
  strcpy(Cfg.Name, Name);

  Cfg.Interval = 0;
  Cfg.Mtbf = 0;
  const char *IntervalV = env("CCC_INTERVAL");
  if (IntervalV && !strcmp(IntervalV, "auto")) {
    const char *M = env("CCC_MTBF");
    char *End;
    errno = 0;
    double X = M ? strtod(M, &End) : 0;
    if (!M || errno || *End || !(X > 0) || X > 1e12)
      fatal("CCC_INTERVAL=auto needs CCC_MTBF, the mean time between "
            "failures in seconds (e.g. 86400)%s%s",
            M ? "; got " : "", M ? M : "");
    Cfg.Mtbf = X;
  } else if (const char *V = IntervalV) {
    char *End;
    errno = 0;
    double X = strtod(V, &End);
    if (errno || *End || !(X >= 0) || X > 1e9)
      fatal("CCC_INTERVAL=%s: expected seconds >= 0 (e.g. 60 or 0.5) or auto",
            V);
    Cfg.Interval = X;
  }
  Cfg.Keep = envInt("CCC_KEEP", 2, 1, 1000000);
  Cfg.FlushEvery = envInt("CCC_FLUSH_EVERY", 0, 0, 1000000000);

  // A firewall between hosts may leave only some ports open.
  Cfg.PartnerPortLow = Cfg.PartnerPortHigh = 0;
  if (const char *V = env("CCC_PARTNER_PORTS")) {
    char *End;
    errno = 0;
    long Lo = strtol(V, &End, 10), Hi = Lo;
    if (!errno && *End == '-' && End > V)
      Hi = strtol(End + 1, &End, 10);
    if (errno || *End || Lo < 1 || Hi > 65535 || Lo > Hi)
      fatal("CCC_PARTNER_PORTS=%s: expected a port or a range LOW-HIGH "
            "within 1-65535 (e.g. 40000-40063)",
            V);
    Cfg.PartnerPortLow = (int)Lo;
    Cfg.PartnerPortHigh = (int)Hi;
  }

  Cfg.Restart = RestartMode::Auto;
  if (const char *V = env("CCC_RESTART")) {
    if (!strcmp(V, "auto"))
      Cfg.Restart = RestartMode::Auto;
    else if (!strcmp(V, "never"))
      Cfg.Restart = RestartMode::Never;
    else if (!strcmp(V, "require"))
      Cfg.Restart = RestartMode::Require;
    else
      fatal("CCC_RESTART=%s: expected auto, never or require", V);
  }
  Cfg.Unsaved = UnsavedPolicy::Error;
  if (const char *V = env("CCC_UNSAVED")) {
    if (!strcmp(V, "error"))
      Cfg.Unsaved = UnsavedPolicy::Error;
    else if (!strcmp(V, "warn"))
      Cfg.Unsaved = UnsavedPolicy::Warn;
    else if (!strcmp(V, "ignore"))
      Cfg.Unsaved = UnsavedPolicy::Ignore;
    else
      fatal("CCC_UNSAVED=%s: expected error, warn or ignore", V);
  }
  Cfg.SaveLibraries = true;
  if (const char *V = env("CCC_LIBRARIES")) {
    if (!strcmp(V, "off"))
      Cfg.SaveLibraries = false;
    else if (strcmp(V, "save"))
      fatal("CCC_LIBRARIES=%s: expected save or off", V);
  }
  Cfg.NonBlocking = true;
  if (const char *V = env("CCC_PROTOCOL")) {
    if (!strcmp(V, "blocking"))
      Cfg.NonBlocking = false;
    else if (strcmp(V, "nonblocking"))
      fatal("CCC_PROTOCOL=%s: expected blocking or nonblocking", V);
  }
  Cfg.CompressLevel = envInt("CCC_COMPRESS", 3, 0, 19);
  Cfg.Shuffle = -1;
  if (const char *V = env("CCC_SHUFFLE")) {
    if (!strcmp(V, "auto") || !strcmp(V, "always") || !strcmp(V, "never"))
      Cfg.Shuffle = V[0] == 'a' ? (V[1] == 'u' ? -1 : 1) : 0;
    else
      fatal("CCC_SHUFFLE=%s: expected auto, always or never", V);
  }
  Cfg.FullEvery = envInt("CCC_FULL_EVERY", 8, 1, 1000000);
  Cfg.ChunkSize = envInt("CCC_CHUNK_SIZE", 65536, 4096, 1 << 20);
  if (Cfg.ChunkSize & (Cfg.ChunkSize - 1))
    fatal("CCC_CHUNK_SIZE=%llu: expected a power of two from 4096 to 1048576",
          (unsigned long long)Cfg.ChunkSize);
  long Cores = sysconf(_SC_NPROCESSORS_ONLN);
  Cfg.Threads =
      envInt("CCC_THREADS", Cores < 1 ? 1 : (Cores > 4 ? 4 : Cores), 0, 64);

  Cfg.Async = envInt("CCC_ASYNC", 0, 0, 1);
  Cfg.AsyncMemory = 0;
  if (const char *V = env("CCC_ASYNC_MEMORY")) {
    char *End;
    errno = 0;
    unsigned long long X = strtoull(V, &End, 10);
    int Shift = *End == 'K' ? 10 : *End == 'M' ? 20 : *End == 'G' ? 30 : 0;
    if (Shift)
      ++End;
    if (errno || *End || End == V || X == 0 || X > (1ull << 50) >> Shift)
      fatal("CCC_ASYNC_MEMORY=%s: expected bytes > 0, or with a suffix K, M "
            "or G (e.g. 512M)",
            V);
    Cfg.AsyncMemory = X << Shift;
  }

  Cfg.Signal = SIGUSR1;
  if (const char *V = env("CCC_SIGNAL")) {
    if (!strcmp(V, "USR1") || !strcmp(V, "SIGUSR1"))
      Cfg.Signal = SIGUSR1;
    else if (!strcmp(V, "USR2") || !strcmp(V, "SIGUSR2"))
      Cfg.Signal = SIGUSR2;
    else if (!strcmp(V, "none"))
      Cfg.Signal = 0;
    else
      fatal("CCC_SIGNAL=%s: expected USR1, USR2 or none", V);
  }

  // The re-exec normalised RLIMIT_STACK (see Entry.cpp) and left the user's
  // original soft limit in CCC_STACK_RLIMIT: size our stack from that.
  long long Orig = envInt("CCC_STACK_RLIMIT", -1, -1, LLONG_MAX);
  size_t Def = Orig < 0 ? (1ULL << 30) : (size_t)Orig;
  if (Def < (8u << 20))
    Def = 8u << 20;
  Cfg.StackSize =
      envInt("CCC_STACK_SIZE", Def, 1 << 20, 1LL << 40) & ~(size_t)4095;
  Cfg.HeapReserve = envInt("CCC_HEAP_RESERVE", 64LL << 30, 1 << 24, 1LL << 46) &
                    ~(size_t)4095;
}
} // namespace ccc
