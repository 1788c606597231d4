//===- Log.cpp - ccc runtime diagnostics ----------------------------------===//
#include "Log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace ccc {
int LogLevel = 0;
void (*OnFatal)() = nullptr;
int LogFd = 2;

static void vlog(const char *Fmt, va_list Ap) {
  char Buf[1024];
  int N = snprintf(Buf, sizeof(Buf), "ccc: ");
  int M = vsnprintf(Buf + N, sizeof(Buf) - N - 1, Fmt, Ap);
  if (M < 0)
    M = 0;
  N += M;
  if (N > (int)sizeof(Buf) - 2)
    N = sizeof(Buf) - 2;
  Buf[N++] = '\n';
  ssize_t W = write(LogFd, Buf, N);
  (void)W;
}

void logMessage(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  vlog(Fmt, Ap);
  va_end(Ap);
}

void fatal(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  vlog(Fmt, Ap);
  va_end(Ap);
  static bool Ending;
  if (OnFatal && !Ending) {
    Ending = true; // a fatal error inside OnFatal just exits
    OnFatal();
  }
  _exit(3);
}
} // namespace ccc
