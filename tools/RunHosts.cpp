//===- RunHosts.cpp - ckpt run: the hosts a job may run on ----------------===//
#include "RunHosts.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

bool hostNameOk(const std::string &N) {
  if (N.empty() || N.size() > 253 || N[0] == '-')
    return false;
  for (char C : N)
    if (!isalnum((unsigned char)C) && C != '-' && C != '.' && C != '_')
      return false;
  return true;
}

bool slotsOk(const std::string &S) {
  if (S.empty() || S.size() > 6)
    return false;
  for (char C : S)
    if (!isdigit((unsigned char)C))
      return false;
  return S != "0" && S[0] != '0';
}

// NAME or NAME:SLOTS.
bool addHost(const std::string &Entry, HostList &H, std::string &Err) {
  size_t C = Entry.find(':');
  HostList::Host Host;
  Host.Name = Entry.substr(0, C);
  if (C != std::string::npos)
    Host.Slots = Entry.substr(C + 1);
  if (!hostNameOk(Host.Name)) {
    Err = "'" + Entry + "' is not a host name";
    return false;
  }
  if (C != std::string::npos && !slotsOk(Host.Slots)) {
    Err = "'" + Entry + "': the slots after ':' must be a count above 0";
    return false;
  }
  for (const HostList::Host &O : H.Hosts)
    if (O.Name == Host.Name) {
      Err = "host " + Host.Name + " is named twice";
      return false;
    }
  H.Hosts.push_back(Host);
  return true;
}

bool isThisHost(const std::string &Name) {
  char Me[256] = "";
  gethostname(Me, sizeof(Me) - 1);
  std::string Full = Me, Short = Full.substr(0, Full.find('.'));
  return Name == Full || Name == Short || Name == "localhost";
}

double monotonic() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec / 1e9;
}

pid_t startProbe(const std::string &Probe, const std::string &Host) {
  std::string Cmd;
  for (size_t I = 0; I < Probe.size(); ++I)
    if (Probe.compare(I, 2, "{}") == 0)
      Cmd += Host, ++I;
    else
      Cmd += Probe[I];
  pid_t P = fork();
  if (P == 0) {
    setpgid(0, 0);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    int Null = open("/dev/null", O_RDWR);
    if (Null >= 0) {
      dup2(Null, 0);
      dup2(Null, 1);
      dup2(Null, 2);
    }
    execl("/bin/sh", "sh", "-c", Cmd.c_str(), (char *)nullptr);
    _exit(127);
  }
  if (P > 0)
    setpgid(P, P);
  return P;
}

} // namespace

std::string HostList::live() const {
  std::string Out;
  for (const Host &H : Hosts)
    if (!H.Lost)
      Out += (Out.empty() ? "" : ",") + H.Name +
             (H.Slots.empty() ? "" : ":" + H.Slots);
  return Out;
}

size_t HostList::liveCount() const {
  size_t N = 0;
  for (const Host &H : Hosts)
    N += !H.Lost;
  return N;
}

bool parseHostList(const std::string &List, HostList &H, std::string &Err) {
  size_t P = 0;
  for (;;) {
    size_t C = List.find(',', P);
    if (!addHost(List.substr(P, C == std::string::npos ? C : C - P), H, Err))
      return false;
    if (C == std::string::npos)
      return true;
    P = C + 1;
  }
}

bool readHostfile(const char *Path, HostList &H, std::string &Err) {
  FILE *F = fopen(Path, "r");
  if (!F) {
    Err = std::string(Path) + ": " + strerror(errno);
    return false;
  }
  char Line[1024];
  int No = 0;
  bool Ok = true;
  while (Ok && fgets(Line, sizeof(Line), F)) {
    ++No;
    if (char *Hash = strchr(Line, '#'))
      *Hash = 0;
    char Name[300], Rest[300];
    int N = sscanf(Line, " %299s %299s", Name, Rest);
    if (N <= 0)
      continue;
    std::string Entry = Name;
    if (N == 2) {
      // Open MPI's "NAME slots=N"; anything else on the line is not ours.
      if (strncmp(Rest, "slots=", 6) != 0 || Entry.find(':') != Entry.npos) {
        Err = std::string(Path) + ":" + std::to_string(No) +
              ": expected NAME, NAME:SLOTS or NAME slots=SLOTS";
        Ok = false;
        break;
      }
      Entry += std::string(":") + (Rest + 6);
    }
    if (!addHost(Entry, H, Err)) {
      Err = std::string(Path) + ":" + std::to_string(No) + ": " + Err;
      Ok = false;
    }
  }
  fclose(F);
  if (Ok && H.Hosts.empty()) {
    Err = std::string(Path) + ": no host in it";
    Ok = false;
  }
  return Ok;
}

size_t probeHosts(HostList &H) {
  struct Probe {
    size_t Host;
    pid_t Pid;
    bool WasLost; // a lost host that may have come back
    int Status = 0;
    bool Done = false;
    bool answered() const {
      return Done && WIFEXITED(Status) && !WEXITSTATUS(Status);
    }
  };
  std::vector<Probe> Ps;
  for (size_t I = 0; I < H.Hosts.size(); ++I) {
    if (isThisHost(H.Hosts[I].Name))
      continue;
    Probe P;
    P.Host = I;
    P.WasLost = H.Hosts[I].Lost;
    P.Pid = startProbe(H.Probe, H.Hosts[I].Name);
    if (P.Pid < 0) {
      fprintf(stderr, "ckpt run: cannot probe the hosts: fork: %s\n",
              strerror(errno));
      return 0;
    }
    Ps.push_back(P);
  }
  double End = monotonic() + H.ProbeTimeout;
  for (size_t Left = Ps.size(); Left && monotonic() < End;) {
    for (Probe &P : Ps)
      if (!P.Done && waitpid(P.Pid, &P.Status, WNOHANG) == P.Pid)
        P.Done = true, --Left;
    if (Left)
      usleep(20000);
  }
  size_t Live = 0, Failed = 0;
  for (Probe &P : Ps) {
    if (!P.Done) {
      kill(-P.Pid, SIGKILL);
      waitpid(P.Pid, &P.Status, 0);
    }
    Live += !P.WasLost;
    Failed += !P.WasLost && !P.answered();
  }
  if (Failed && Failed == Live && Live > 1) {
    fprintf(stderr,
            "ckpt run: the probe failed for all %zu hosts it ran for: is "
            "--probe '%s' right? No host is dropped\n",
            Live, H.Probe.c_str());
    return 0;
  }
  size_t Changed = 0;
  std::vector<HostList::Host> Back; // taken again, after the others
  for (Probe &P : Ps) {
    HostList::Host &Ho = H.Hosts[P.Host];
    if (P.WasLost) {
      if (!P.answered())
        continue;
      fprintf(stderr,
              "ckpt run: host %s answers again: taken back, after the "
              "others\n",
              Ho.Name.c_str());
      Ho.Lost = false;
      Back.push_back(Ho);
      Ho.Name.clear(); // removed below
      ++Changed;
      continue;
    }
    if (P.answered())
      continue;
    char Why[64];
    if (!P.Done)
      snprintf(Why, sizeof(Why), "no answer in %.0f s", H.ProbeTimeout);
    else if (WIFEXITED(P.Status))
      snprintf(Why, sizeof(Why), "the probe exited %d", WEXITSTATUS(P.Status));
    else
      snprintf(Why, sizeof(Why), "the probe was killed by signal %d",
               WTERMSIG(P.Status));
    Ho.Lost = true;
    ++Changed;
    fprintf(stderr,
            "ckpt run: host %s is lost (%s): the job goes on without it\n",
            Ho.Name.c_str(), Why);
  }
  if (!Back.empty()) {
    std::vector<HostList::Host> Kept;
    for (HostList::Host &Ho : H.Hosts)
      if (!Ho.Name.empty())
        Kept.push_back(Ho);
    Kept.insert(Kept.end(), Back.begin(), Back.end());
    H.Hosts = Kept;
  }
  return Changed;
}

std::vector<std::string> withHosts(char **Argv, const std::string &Live) {
  std::vector<std::string> Out;
  for (; *Argv; ++Argv) {
    std::string A = *Argv;
    for (size_t P; (P = A.find("{hosts}")) != std::string::npos;)
      A.replace(P, 7, Live);
    Out.push_back(A);
  }
  return Out;
}

bool mentionsHosts(char **Argv) {
  for (; *Argv; ++Argv)
    if (strstr(*Argv, "{hosts}"))
      return true;
  return false;
}
