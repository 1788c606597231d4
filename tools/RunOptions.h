//===- RunOptions.h - ckpt run: options and injected faults -----*- C++ -*-===//
//
// What `ckpt run` was asked to do: its options and the faults --inject
// plans (kill:, write:, commit:, random:), parsed by RunOptions.cpp;
// RunCommand.cpp reads the command line into Options and runs the job.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_TOOLS_RUNOPTIONS_H
#define CCC_TOOLS_RUNOPTIONS_H

#include "RunHosts.h"

#include <string>
#include <vector>

// One injected fault. Kill: SIGKILL to rank Rank After seconds into an
// attempt. Write/Commit: the attempt's runtime kills itself during its
// first image write (of rank Rank) or before its first commit record.
struct Fault {
  enum Kind { Kill, Write, Commit } K;
  unsigned Rank = 0;
  bool AnyRank = false; // random: Rank modulo the job's size
  double After = 0;
};

struct Options {
  int Retries = 5;
  double Backoff = 1, HangTimeout = 0;
  // How long the launcher may go on once every process of its job has
  // ended (0: for ever). mpirun and mpiexec end within a second or two of
  // their last rank; Open MPI 4.1's mpirun was seen to deadlock in its own
  // finalization instead (about 1 run in 25 after a rank was killed).
  double LauncherGrace = 10;
  std::string Stdout, Stderr, RunDir;
  HostList Hosts;            // --hosts/--hostfile: {hosts} in the command
  std::vector<Fault> Faults; // in order, one an attempt at most
  double Mtbf = 0;           // random faults
  int RandomCount = 5;
  unsigned long Seed = 0;
  bool SeedGiven = false;
  char **Command = nullptr;
};

// Prints the usage of `ckpt run`; returns 2, ckpt's status for it.
int runUsage();
// A number in [0, 1e9] (seconds, or a count the caller checks is whole).
bool parseSeconds(const char *S, double *Out);
// One --inject SPEC: a fault appended to O.Faults, or random faults set in
// O. False if SPEC is not understood.
bool parseInject(const char *Spec, Options &O);

#endif
