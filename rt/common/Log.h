//===- Log.h - ccc runtime diagnostics --------------------------*- C++ -*-===//
//
// Every message a user sees starts with "ccc:" so it can be told apart from
// the application's output. Messages go to stderr with one write() so lines
// of different ranks do not interleave mid-line.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_LOG_H
#define CCC_RT_LOG_H

namespace ccc {
// Verbosity from CCC_VERBOSE (0 errors and warnings only, 1 checkpoint and
// restart events, 2 details).
extern int LogLevel;
void logMessage(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
// Prints the message, runs OnFatal (once) and exits with status 3.
[[noreturn]] void fatal(const char *Fmt, ...)
    __attribute__((format(printf, 1, 2)));
// Set by the runtime in a parallel job: ends the whole job, since the
// other processes may wait for this one (in MPI's initialisation, say).
extern void (*OnFatal)();
// Where messages go: standard error, or a copy of it when the program's
// standard error is captured into a file (Supervision.cpp).
extern int LogFd;
} // namespace ccc

#define CCC_ERR(...) ::ccc::logMessage(__VA_ARGS__)
#define CCC_INFO(...)                                                          \
  do {                                                                         \
    if (::ccc::LogLevel >= 1)                                                  \
      ::ccc::logMessage(__VA_ARGS__);                                          \
  } while (0)
#define CCC_DEBUG(...)                                                         \
  do {                                                                         \
    if (::ccc::LogLevel >= 2)                                                  \
      ::ccc::logMessage(__VA_ARGS__);                                          \
  } while (0)

#endif
