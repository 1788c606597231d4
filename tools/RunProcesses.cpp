//===- RunProcesses.cpp - ckpt run: the job's processes -------------------===//
//
// The run directory's events and pid files, the job's processes found in
// /proc, and how an attempt's processes are killed (RunProcesses.h).
//
//===----------------------------------------------------------------------===//
#include "RunProcesses.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

std::string localHost() {
  char H[256] = "";
  gethostname(H, sizeof(H) - 1);
  return H;
}

} // namespace

std::vector<Event> readEvents(const std::string &Dir, off_t *Offset) {
  std::vector<Event> Out;
  FILE *F = fopen((Dir + "/events").c_str(), "r");
  if (!F)
    return Out;
  fseeko(F, *Offset, SEEK_SET);
  char Line[256];
  while (fgets(Line, sizeof(Line), F)) {
    if (!strchr(Line, '\n'))
      break; // a line still being written: read it next time
    *Offset += strlen(Line);
    Event E{};
    char What[64];
    E.Figure = -1;
    if (sscanf(Line, "%lf %u %63s %llu %lf", &E.T, &E.Rank, What, &E.Version,
               &E.Figure) >= 4) {
      E.What = What;
      Out.push_back(E);
    }
  }
  fclose(F);
  return Out;
}

std::map<unsigned, Proc> readProcs(const std::string &Dir) {
  static const std::string Me = localHost(); // read every 50 ms: once
  std::map<unsigned, Proc> Out;
  DIR *D = opendir(Dir.c_str());
  if (!D)
    return Out;
  while (dirent *E = readdir(D)) {
    unsigned R;
    char Tail;
    if (sscanf(E->d_name, "rank.%u%c", &R, &Tail) != 1)
      continue;
    std::string P = Dir + "/" + E->d_name;
    FILE *F = fopen(P.c_str(), "r");
    int Pid = 0;
    char Host[256] = "";
    struct stat St;
    if (F && fscanf(F, "%d %255s", &Pid, Host) >= 1 && Pid > 0 &&
        stat(P.c_str(), &St) == 0)
      Out[R] = {Pid, St.st_mtim.tv_sec + St.st_mtim.tv_nsec / 1e9,
                !*Host || Host == Me};
    if (F)
      fclose(F);
  }
  closedir(D);
  return Out;
}

void clearProcs(const std::string &Dir) {
  DIR *D = opendir(Dir.c_str());
  if (!D)
    return;
  while (dirent *E = readdir(D))
    if (!strncmp(E->d_name, "rank.", 5))
      unlink((Dir + "/" + E->d_name).c_str());
  closedir(D);
}

namespace {

// This host's processes whose environment names this run directory: the
// job's ranks, found even before they write their pid files. Open MPI puts
// each rank in a process group of its own, so killing the launcher's group
// does not reach them, and a rank that outlives its launcher may hold the
// checkpoint directory's locks or spin on the cores the next attempt needs.
std::vector<pid_t> jobProcesses(const std::string &RunDir) {
  std::vector<pid_t> Out;
  std::string Entry = "CCC_RUN_DIR=" + RunDir;
  DIR *D = opendir("/proc");
  if (!D)
    return Out;
  std::vector<char> Buf(1 << 18);
  // A process of another UTS namespace is another host's (a container, or
  // a host of test/harness/netns_cluster.py): not this host's to kill.
  char Uts[64] = "", Its[64];
  ssize_t UtsLen = readlink("/proc/self/ns/uts", Uts, sizeof(Uts));
  while (dirent *E = readdir(D)) {
    char *End;
    long Pid = strtol(E->d_name, &End, 10);
    if (*End || Pid <= 0 || Pid == getpid())
      continue;
    std::string P = std::string("/proc/") + E->d_name + "/ns/uts";
    if (UtsLen > 0 && (readlink(P.c_str(), Its, sizeof(Its)) != UtsLen ||
                       memcmp(Its, Uts, UtsLen)))
      continue;
    P = std::string("/proc/") + E->d_name + "/environ";
    int Fd = open(P.c_str(), O_RDONLY | O_CLOEXEC);
    if (Fd < 0)
      continue;
    ssize_t N = read(Fd, Buf.data(), Buf.size() - 1);
    close(Fd);
    for (ssize_t I = 0; I < N;) {
      const char *V = Buf.data() + I;
      size_t L = strnlen(V, N - I);
      if (L == Entry.size() && !memcmp(V, Entry.data(), L)) {
        Out.push_back((pid_t)Pid);
        break;
      }
      I += L + 1;
    }
  }
  closedir(D);
  return Out;
}

} // namespace

bool dying(pid_t Pid) {
  char Path[64], Buf[4096];
  snprintf(Path, sizeof(Path), "/proc/%d/stat", (int)Pid);
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  ssize_t N = Fd < 0 ? -1 : read(Fd, Buf, sizeof(Buf) - 1);
  if (Fd >= 0)
    close(Fd);
  if (N <= 0)
    return true;
  Buf[N] = 0;
  const char *P = strrchr(Buf, ')');
  char State;
  unsigned long Flags;
  if (!P || sscanf(P + 1, " %c %*d %*d %*d %*d %*d %lu", &State, &Flags) != 2)
    return false;
  if (State == 'Z' || State == 'X' || (Flags & 0x4 /* PF_EXITING */))
    return true;
  snprintf(Path, sizeof(Path), "/proc/%d/status", (int)Pid);
  Fd = open(Path, O_RDONLY | O_CLOEXEC);
  N = Fd < 0 ? -1 : read(Fd, Buf, sizeof(Buf) - 1);
  if (Fd >= 0)
    close(Fd);
  if (N <= 0)
    return true;
  Buf[N] = 0;
  for (const char *Field : {"\nSigPnd:", "\nShdPnd:"})
    if (const char *F = strstr(Buf, Field))
      if (strtoull(F + strlen(Field), nullptr, 16) & 1ULL << (SIGKILL - 1))
        return true;
  return false;
}

size_t killJob(pid_t Child, const std::map<unsigned, Proc> &Procs,
               const std::string &RunDir) {
  for (auto &KV : Procs)
    if (KV.second.Local)
      kill(KV.second.Pid, SIGKILL);
  kill(-Child, SIGKILL);
  size_t Others = 0;
  for (pid_t P : jobProcesses(RunDir)) {
    bool Known = false;
    for (auto &KV : Procs)
      Known |= KV.second.Local && KV.second.Pid == P;
    Others += !Known && !dying(P);
    kill(P, SIGKILL);
  }
  return Others;
}
