//===- RunHosts.h - ckpt run: the hosts a job may run on --------*- C++ -*-===//
//
// `ckpt run --hosts LIST` or `--hostfile FILE` names the hosts of a job
// launched over ssh (mpirun --host, mpiexec -hosts): more than the job needs
// leaves spares. Each attempt's command gets the hosts still in use in place
// of `{hosts}`. After a failed attempt every host is probed (--probe, ssh by
// default); one that does not answer is dropped, so the next attempt runs on
// the others and the spares, and the runtime restarts the lost host's ranks
// there (from CCC_DIR, or from partner copies with CCC_LOCAL_DIR). A lost
// host that answers the probe after a later failure is used again.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_TOOLS_RUNHOSTS_H
#define CCC_TOOLS_RUNHOSTS_H

#include <string>
#include <vector>

struct HostList {
  struct Host {
    std::string Name, Slots; // Slots: "" or a count
    bool Lost = false;
  };
  std::vector<Host> Hosts;
  std::string Probe = "ssh -o BatchMode=yes -o ConnectTimeout=5 {} true";
  double ProbeTimeout = 20;

  bool given() const { return !Hosts.empty(); }
  // The hosts not lost, as launchers take them: h1,h2:4,...
  std::string live() const;
  size_t liveCount() const;
};

// "h1,h2:4,h3" (MPICH's and Open MPI's --host form). False with Err set
// when a name is not a host name.
bool parseHostList(const std::string &List, HostList &H, std::string &Err);
// One host per line: "NAME", "NAME:SLOTS" or "NAME slots=SLOTS" (Open MPI's
// hostfile); blank lines and # comments are skipped.
bool readHostfile(const char *Path, HostList &H, std::string &Err);
// Runs the probe for every host but this one, at once, and marks lost the
// live ones that fail or time out; a lost host that answers again is taken
// back, after the others (a spare). Each change is reported on stderr. If
// every live host probed fails, the probe is suspect and none is dropped
// (reported too). Returns how many hosts were dropped or taken back.
size_t probeHosts(HostList &H);
// Argv with every "{hosts}" replaced by Live.
std::vector<std::string> withHosts(char **Argv, const std::string &Live);
// Whether some argument holds "{hosts}".
bool mentionsHosts(char **Argv);

#endif
