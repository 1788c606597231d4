//===- SlurmHosts.cpp - ckpt run: the hosts of a Slurm allocation ---------===//
#include "SlurmHosts.h"

#include "RunHosts.h"

#include <cstdlib>
#include <cstring>

namespace {

constexpr size_t kMaxNodes = 1000000;

// The commas of S outside brackets split it.
bool splitTopLevel(const std::string &S, std::vector<std::string> &Parts,
                   std::string &Err) {
  int Depth = 0;
  size_t From = 0;
  for (size_t I = 0; I <= S.size(); ++I) {
    char C = I < S.size() ? S[I] : ',';
    if (C == '[' && ++Depth > 1) {
      Err = "brackets inside brackets";
      return false;
    }
    if (C == ']' && --Depth < 0) {
      Err = "']' without '['";
      return false;
    }
    if (C == ',' && Depth == 0) {
      if (I == From) {
        Err = "an empty name";
        return false;
      }
      Parts.push_back(S.substr(From, I - From));
      From = I + 1;
    }
  }
  if (Depth) {
    Err = "'[' without ']'";
    return false;
  }
  return true;
}

bool number(const std::string &S, unsigned long &V) {
  if (S.empty() || S.size() > 9 ||
      S.find_first_not_of("0123456789") != std::string::npos)
    return false;
  V = strtoul(S.c_str(), nullptr, 10);
  return true;
}

// Name: text with bracket groups; each group's values replace it in turn.
bool expandName(const std::string &Name, std::vector<std::string> &Out,
                std::string &Err) {
  size_t Open = Name.find('[');
  if (Open == std::string::npos) {
    Out.push_back(Name);
    return true;
  }
  size_t Close = Name.find(']', Open);
  std::string Prefix = Name.substr(0, Open);
  std::vector<std::string> Rest;
  if (!expandName(Name.substr(Close + 1), Rest, Err))
    return false;
  std::string Inner = Name.substr(Open + 1, Close - Open - 1);
  size_t From = 0;
  for (;;) {
    size_t Comma = Inner.find(',', From);
    std::string R = Inner.substr(
        From, Comma == std::string::npos ? std::string::npos : Comma - From);
    size_t Dash = R.find('-');
    std::string Lo = R.substr(0, Dash);
    std::string Hi = Dash == std::string::npos ? Lo : R.substr(Dash + 1);
    unsigned long A, B;
    if (!number(Lo, A) || !number(Hi, B) || B < A) {
      Err = "'[" + Inner + "]': '" + R + "' is not N or N-M with N <= M";
      return false;
    }
    for (unsigned long V = A; V <= B; ++V) {
      std::string Digits = std::to_string(V);
      if (Digits.size() < Lo.size())
        Digits.insert(0, Lo.size() - Digits.size(), '0');
      for (const std::string &S : Rest) {
        if (Out.size() >= kMaxNodes) {
          Err = "more than a million names";
          return false;
        }
        Out.push_back(Prefix + Digits + S);
      }
    }
    if (Comma == std::string::npos)
      return true;
    From = Comma + 1;
  }
}

} // namespace

bool expandSlurmNodeList(const std::string &List, std::vector<std::string> &Out,
                         std::string &Err) {
  std::vector<std::string> Parts;
  if (!splitTopLevel(List, Parts, Err))
    return false;
  for (const std::string &P : Parts)
    if (!expandName(P, Out, Err))
      return false;
  return true;
}

bool expandSlurmCounts(const std::string &Counts, std::vector<unsigned> &Out,
                       std::string &Err) {
  size_t From = 0;
  for (;;) {
    size_t Comma = Counts.find(',', From);
    std::string Item = Counts.substr(
        From, Comma == std::string::npos ? std::string::npos : Comma - From);
    unsigned long N, Times = 1;
    size_t Paren = Item.find("(x");
    bool Ok = number(Item.substr(0, Paren), N);
    if (Ok && Paren != std::string::npos)
      Ok = Item.back() == ')' &&
           number(Item.substr(Paren + 2, Item.size() - Paren - 3), Times);
    if (!Ok || Times == 0 || Out.size() + Times > kMaxNodes) {
      Err = "'" + Item + "' is not N or N(xM)";
      return false;
    }
    Out.insert(Out.end(), Times, (unsigned)N);
    if (Comma == std::string::npos)
      return true;
    From = Comma + 1;
  }
}

bool hostsFromSlurm(HostList &H, bool ProbeGiven, std::string &Err) {
  Err.clear();
  const char *Nodes = getenv("SLURM_JOB_NODELIST");
  if (!Nodes || !*Nodes)
    return false;
  std::vector<std::string> Names;
  if (!expandSlurmNodeList(Nodes, Names, Err)) {
    Err = std::string("SLURM_JOB_NODELIST=") + Nodes + ": " + Err;
    return false;
  }
  // Task counts only help when they say more than one per node; a count
  // list that does not fit the nodes is not used (the names still are).
  std::vector<unsigned> Tasks;
  const char *Counts = getenv("SLURM_TASKS_PER_NODE");
  std::string Ignored;
  if (!Counts || !expandSlurmCounts(Counts, Tasks, Ignored) ||
      Tasks.size() != Names.size())
    Tasks.assign(Names.size(), 1);
  std::string List;
  for (size_t I = 0; I < Names.size(); ++I)
    List += (I ? "," : "") + Names[I] +
            (Tasks[I] > 1 ? ":" + std::to_string(Tasks[I]) : "");
  if (!parseHostList(List, H, Err)) {
    Err = std::string("SLURM_JOB_NODELIST=") + Nodes + ": " + Err;
    return false;
  }
  // A step on the node answers for it. --overlap: the step of a failed
  // attempt can hold the node's CPUs until slurmctld has given up on a
  // lost node (SlurmdTimeout), and a probe must not wait for that.
  if (!ProbeGiven)
    H.Probe = "srun --overlap --nodes=1 --ntasks=1 --nodelist={} true";
  return true;
}
