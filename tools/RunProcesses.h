//===- RunProcesses.h - ckpt run: the job's processes -----------*- C++ -*-===//
//
// How `ckpt run` sees the processes of a job: the events they append to the
// run directory, their pid files (each one's mtime its heartbeat), and
// every process of this host that carries the run directory, which is
// killed with the launcher's group when an attempt ends.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_TOOLS_RUNPROCESSES_H
#define CCC_TOOLS_RUNPROCESSES_H

#include <cstddef>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

// What the job's processes wrote into the run directory.
struct Event {
  double T;
  unsigned Rank;
  std::string What;
  unsigned long long Version;
  double Figure;
};

// The events appended since *Offset, which moves past them.
std::vector<Event> readEvents(const std::string &Dir, off_t *Offset);

// Rank -> pid, and the heartbeat (mtime) of each, from the pid files. A
// pid is signalled only when the process runs on this host.
struct Proc {
  pid_t Pid;
  double Beat;
  bool Local;
};

std::map<unsigned, Proc> readProcs(const std::string &Dir);
// Removes the pid files (before an attempt).
void clearProcs(const std::string &Dir);

// A process already on its way out: a zombie, exiting, or with SIGKILL
// pending (the launcher's own kill, not yet delivered).
bool dying(pid_t Pid);

// Every process of the attempt: the launcher's group, the ranks named by
// pid files on this host, and any other process of this host that carries
// the run directory. Returns how many of the last kind there were.
size_t killJob(pid_t Child, const std::map<unsigned, Proc> &Procs,
               const std::string &RunDir);

#endif
