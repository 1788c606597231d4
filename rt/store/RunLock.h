//===- RunLock.h - One run per CCC_DIR, program and rank --------*- C++ -*-===//
//
// Each rank of a run holds an flock on NAME.rRANK.lock in CCC_DIR, so two
// runs never write the same images. A run started right after a failure
// may find the lock still held by the dead run: a killed process keeps its
// files open until its last thread has torn down its memory, which takes
// a while for a large process on a loaded node. Such a holder is waited
// for; a live one is an error that names it.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_RUNLOCK_H
#define CCC_RT_RUNLOCK_H

#include <sys/types.h>

namespace ccc {
// Locks Path (created if missing) for this process and returns its
// descriptor; waits while the holder is a process that is exiting or being
// killed. Stops with a ccc: error if another live process holds it.
int lockRun(const char *Path, const char *What);

// The process /proc/locks names as holding an flock on the file open as
// Fd, or 0 if none is listed.
pid_t flockHolder(int Fd);
// Whether Pid is gone or going: its leader exited (the other threads may
// still hold its files), it is exiting, or a SIGKILL is pending for it.
bool processExiting(pid_t Pid);
} // namespace ccc
#endif
