//===- Supervision.h - `ckpt run`, preemption, hooks ------------*- C++ -*-===//
//
// What a process shares with a supervisor and with the program beyond its
// memory: its pid, heartbeat and events in CCC_RUN_DIR (read by `ckpt run`),
// SIGTERM as "checkpoint and stop", fault injection for tests, the
// program's checkpoint/continue/restart hooks and standard output captured
// into files that a restart cuts back to the checkpoint.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_SUPERVISION_H
#define CCC_RT_SUPERVISION_H

#include <cstdint>

namespace ccc {
// Exit status of every process of a job that checkpointed and stopped
// because it was sent SIGTERM (EX_TEMPFAIL: run the same command again).
constexpr int kExitStopped = 75;

// At start, before a restart is tried: the run directory's files, the
// capture of standard output, SIGTERM, the heartbeat.
void supervisionStart();
// No image was restored: the run starts from the beginning.
void supervisionFresh();
// A restored process, before it resumes: cuts captured output back and
// runs the restart hooks.
void supervisionRestored(uint64_t Version);
// A restart attempt of Version failed (Why): reported to the supervisor.
void noteRestoreFailed(uint64_t Version, const char *Why);
// At a checkpoint, before the program's output is flushed: the checkpoint
// hooks. After the flush: the captured outputs' sizes.
void supervisionBeforeFlush();
void supervisionAfterFlush();
// After this process's image was written (Ok) or not: the continue hooks
// and the event.
void supervisionImageWritten(uint64_t Version, bool Ok, double Seconds);
// CCC_ASYNC: the two halves. The event when the background write of
// Version ended (Seconds from the site; safe on the writer thread: one
// write()), and at the site the continue hooks and a "stall V SECONDS"
// event, the time the program waited there.
void noteImageWritten(uint64_t Version, bool Ok, double Seconds);
void supervisionStalled(uint64_t Version, double Seconds);
// The job's checkpoint Version was committed (by the committing process).
void noteCommitted(uint64_t Version);

// Fault injection (CCC_INJECT): kills this process with SIGKILL while it
// writes an image (the temporary file cut in half) or before it writes a
// commit record, once, when due.
void injectWhileWriting(const char *TmpPath);
void injectBeforeCommit();

// SIGTERM was received (and CCC_ON_TERM=checkpoint): the next checkpoint
// ends the job.
bool stopRequested();
// This process's part of checkpoint Version is done and Version committed:
// exits with kExitStopped (no exit handlers: output after the checkpoint
// is the restart's to print).
[[noreturn]] void exitStopped(uint64_t Version);

// CCC_INTERVAL=auto chose Seconds between checkpoints.
void noteInterval(double Seconds);
// An on_exit handler: the process's exit status as an event, so that
// `ckpt run` can tell a job whose ranks all finished from a failed one when
// the launcher does not end after them. Registered before the completion
// record's handler, so it runs after it.
void noteExitStatus(int Status, void *);

// The heartbeat is due (set by its thread, read at sites).
extern volatile int HeartbeatDue;
void heartbeat();
} // namespace ccc
#endif
