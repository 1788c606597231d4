//===- Triggers.cpp - What makes a checkpoint due -------------------------===//
//
// The CCC_INTERVAL timer (fixed, or Young's interval for CCC_INTERVAL=auto)
// and the CCC_SIGNAL handler: both set Requested and __ccc_pending, which the
// next site reads. Split out of Runtime.cpp.
//
//===----------------------------------------------------------------------===//
#include "RuntimeGlobals.h"
#include "Supervision.h"
#include "rt/common/Config.h"
#include "rt/common/Log.h"

#include <cerrno>
#include <csignal>
#include <ctime>
#include <pthread.h>

extern "C" volatile int __ccc_pending; // Runtime.cpp

namespace ccc {
volatile int Requested = 0;
std::atomic<uint64_t> LastCheckpointEnd{0};
std::atomic<double> LastCheckpointCost{0};

namespace {

//===-- Triggers ----------------------------------------------------------===//

// CCC_INTERVAL=auto: Young's optimum sqrt(2 C M) for a checkpoint cost C
// (the last one's, 1 s before any) and the mean time between failures M
// (CCC_MTBF); reported at first and when it changes by more than a
// quarter.

// Without libm: programs link the runtime without -lm.
double squareRoot(double X) {
  double R = X > 1 ? X : 1;
  for (int I = 0; I < 64; ++I)
    R = 0.5 * (R + X / R);
  return R;
}

// See above.
uint64_t intervalNs() {
  if (Cfg.Interval > 0)
    return (uint64_t)(Cfg.Interval * 1e9);
  double C = LastCheckpointCost.load();
  double S = squareRoot(2 * (C > 0 ? C : 1.0) * Cfg.Mtbf);
  static double Reported;
  if (C > 0 && (Reported == 0 || S > Reported * 1.25 || S < Reported * 0.75)) {
    if (RT.Rank == 0)
      logMessage("CCC_INTERVAL=auto: a checkpoint costs %.3f s, CCC_MTBF is "
                 "%g s: one every %.3g s",
                 C, Cfg.Mtbf, S);
    noteInterval(S);
    Reported = S;
  }
  return (uint64_t)(S * 1e9);
}

void *timerThread(void *) {
  uint64_t Ns = intervalNs();
  struct timespec T = {(time_t)(Ns / 1000000000ull),
                       (long)(Ns % 1000000000ull)};
  for (;;) {
    while (nanosleep(&T, &T) != 0 && errno == EINTR) {
    }
    Ns = intervalNs();
    // The interval is computing time between checkpoints: a program whose
    // images take longer to write than the interval still progresses.
    uint64_t Since = nowNs(CLOCK_MONOTONIC) - LastCheckpointEnd;
    uint64_t Wait = Since < Ns ? Ns - Since : Ns;
    T = {(time_t)(Wait / 1000000000ull), (long)(Wait % 1000000000ull)};
    if (Since < Ns)
      continue;
    Requested = 1;
    __ccc_pending = 1;
  }
  return nullptr;
}

} // namespace

bool startHelperThread(void *(*Fn)(void *)) {
  pthread_t T;
  pthread_attr_t A;
  pthread_attr_init(&A);
  pthread_attr_setdetachstate(&A, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&A, 1 << 16);
  // The thread must not take signals meant for the program.
  sigset_t All, Old;
  sigfillset(&All);
  pthread_sigmask(SIG_SETMASK, &All, &Old);
  bool Ok = pthread_create(&T, &A, Fn, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  pthread_attr_destroy(&A);
  return Ok;
}

void startTriggers() {
  if ((Cfg.Interval > 0 || Cfg.Mtbf > 0) && !startHelperThread(timerThread))
    logMessage("cannot start the CCC_INTERVAL timer thread");
  if (Cfg.Signal) {
    struct sigaction SA = {};
    SA.sa_handler = [](int) {
      Requested = 1;
      __ccc_pending = 1;
    };
    SA.sa_flags = SA_RESTART;
    sigemptyset(&SA.sa_mask);
    sigaction(Cfg.Signal, &SA, nullptr);
  }
}

} // namespace ccc
