//===- SlurmHosts.h - ckpt run: the hosts of a Slurm allocation -*- C++ -*-===//
//
// Inside a Slurm job, `ckpt run -- mpirun --host {hosts} ...` needs no
// --hosts: the allocation's nodes (SLURM_JOB_NODELIST, with the task counts
// of SLURM_TASKS_PER_NODE) are the hosts, and a node that fails is left out
// of the next attempt as with --hosts. Slurm writes node lists compressed
// ("n[01-04,07],login1"); they are expanded here rather than by running
// `scontrol show hostnames`, so the list is known before any attempt and
// the same on every cluster.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_TOOLS_SLURMHOSTS_H
#define CCC_TOOLS_SLURMHOSTS_H

#include <string>
#include <vector>

struct HostList;

// "n[01-03,7],x" -> n01 n02 n03 n7 x: ranges keep the width of their lower
// bound (leading zeros), several bracket groups in one name multiply. False
// with Err set for a list that is not of that form or expands to more than
// a million names.
bool expandSlurmNodeList(const std::string &List, std::vector<std::string> &Out,
                         std::string &Err);
// "2(x3),1" -> 2 2 2 1 (SLURM_TASKS_PER_NODE's form). False with Err set
// when malformed.
bool expandSlurmCounts(const std::string &Counts, std::vector<unsigned> &Out,
                       std::string &Err);
// The hosts of the allocation this process runs in, when there is one
// (SLURM_JOB_NODELIST set): true with H filled (slots from
// SLURM_TASKS_PER_NODE when it gives more than one task to a node), and the
// probe set to an `srun` step on the node unless Probe was given. False
// with Err empty outside Slurm, with Err set when the variables cannot be
// read.
bool hostsFromSlurm(HostList &H, bool ProbeGiven, std::string &Err);

#endif
