//===- RunOptions.cpp - ckpt run: options and injected faults -------------===//
//
// The usage of `ckpt run`, its numbers, and the fault specifications of
// --inject (RunOptions.h).
//
//===----------------------------------------------------------------------===//
#include "RunOptions.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int runUsage() {
  fprintf(stderr,
          "usage: ckpt run [--retries N] [--backoff S] [--hang-timeout S]\n"
          "                [--launcher-grace S]\n"
          "                [--stdout FILE] [--stderr FILE] [--run-dir DIR]\n"
          "                [--hosts H1,H2,... | --hostfile FILE]\n"
          "                [--probe COMMAND] [--probe-timeout S]\n"
          "                [--inject SPEC]... -- COMMAND [ARG...]\n"
          "  SPEC: kill:rank=R,after=S | random:mtbf=S[,count=N][,seed=X]\n"
          "        | write[:rank=R] | commit\n"
          "  {hosts} in COMMAND: the hosts still in use, from --hosts or\n"
          "  --hostfile, or in a Slurm job from its allocation\n");
  return 2;
}

bool parseSeconds(const char *S, double *Out) {
  char *End;
  errno = 0;
  double X = strtod(S, &End);
  if (errno || *End || !(X >= 0) || X > 1e9)
    return false;
  *Out = X;
  return true;
}

namespace {

bool keyValue(const std::string &Part, const char *Key, std::string *Value) {
  size_t L = strlen(Key);
  if (Part.compare(0, L, Key) || Part.size() <= L || Part[L] != '=')
    return false;
  *Value = Part.substr(L + 1);
  return true;
}

} // namespace

bool parseInject(const char *Spec, Options &O) {
  std::string S = Spec, Head = S.substr(0, S.find(':')),
              Rest = S.find(':') == std::string::npos
                         ? ""
                         : S.substr(S.find(':') + 1);
  std::vector<std::string> Parts;
  for (size_t P = 0; !Rest.empty() && P != std::string::npos;) {
    size_t C = Rest.find(',', P);
    Parts.push_back(Rest.substr(P, C == std::string::npos ? C : C - P));
    P = C == std::string::npos ? C : C + 1;
  }
  Fault F;
  double X;
  std::string V;
  if (Head == "kill" || Head == "write") {
    F.K = Head == "kill" ? Fault::Kill : Fault::Write;
    bool HaveAfter = false;
    for (auto &P : Parts) {
      if (keyValue(P, "rank", &V) && parseSeconds(V.c_str(), &X) &&
          X == floor(X))
        F.Rank = (unsigned)X;
      else if (F.K == Fault::Kill && keyValue(P, "after", &V) &&
               parseSeconds(V.c_str(), &X))
        F.After = X, HaveAfter = true;
      else
        return false;
    }
    if (F.K == Fault::Kill && !HaveAfter)
      return false;
    O.Faults.push_back(F);
    return true;
  }
  if (Head == "commit" && Parts.empty()) {
    F.K = Fault::Commit;
    O.Faults.push_back(F);
    return true;
  }
  if (Head == "random") {
    for (auto &P : Parts) {
      if (keyValue(P, "mtbf", &V) && parseSeconds(V.c_str(), &X) && X > 0)
        O.Mtbf = X;
      else if (keyValue(P, "count", &V) && parseSeconds(V.c_str(), &X) &&
               X == floor(X))
        O.RandomCount = (int)X;
      else if (keyValue(P, "seed", &V) && parseSeconds(V.c_str(), &X) &&
               X == floor(X))
        O.Seed = (unsigned long)X, O.SeedGiven = true;
      else
        return false;
    }
    return O.Mtbf > 0;
  }
  return false;
}
