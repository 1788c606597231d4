//===- prune_bench.cpp - Rank 0's commit step against the job size --------===//
//
// What rank 0 does after every rank's image of version V is durable, at P
// ranks, on real files: it writes the commit record and prunes.
//
// - single: the pruning of a single pruner (what rank 0 did before pruning
//   was spread over the ranks, and what a serial program still does):
//   list CCC_DIR, read the header of every kept image, delete the commit
//   record and the P images and logs that left CCC_KEEP (pruneVersions).
// - spread: rank 0 deletes only the record that left the window
//   (commitWindowAdd); each rank deletes its own files at its next
//   checkpoint (rankFilesPrune), reported separately as one rank's cost.
//
// Each round adds version V's P images and logs (untimed, as the ranks
// would), then times the commit step of each design on its own copy of the
// directory. CCC_KEEP=2; full images of 4 KiB.
//
// usage: prune_bench [--dir DIR] [--rounds N] [P ...]   (default 16 256 4096)
//
//===----------------------------------------------------------------------===//
#include "rt/image/Image.h"
#include "rt/store/RankPruning.h"
#include "rt/store/Store.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ccc;

namespace {

const char *const Name = "bench";
constexpr int Keep = 2;

double now() {
  timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

void fail(const char *What) {
  fprintf(stderr, "prune_bench: %s\n", What);
  exit(1);
}

void writeRankFiles(const char *Dir, uint64_t V, uint32_t Rank, uint32_t P) {
  char Path[kPathMax];
  imagePath(Path, Dir, Name, V, Rank);
  ImageWriter W;
  if (!W.open(Path, 0, 0))
    fail("cannot create an image");
  W.header().Version = V;
  W.header().Rank = Rank;
  W.header().NRanks = P;
  W.header().ChainBase = V;
  static char Page[4096];
  if (!W.beginSection(SecGlobals, false) ||
      !W.addRange(0x1000, Page, sizeof(Page)) || !W.endSection() || !W.finish())
    fail("cannot write an image");
  logPath(Path, Dir, Name, V, Rank);
  FILE *F = fopen(Path, "w");
  if (!F || fputs("log", F) < 0 || fclose(F) != 0)
    fail("cannot write a log");
}

void commit(const char *Dir, uint64_t V, uint32_t P) {
  char Err[kPathMax + 128];
  if (!writeCommit(Dir, Name, V, P, Err, sizeof(Err)))
    fail(Err);
}

double median(std::vector<double> X) {
  std::sort(X.begin(), X.end());
  return X[X.size() / 2];
}

void run(const std::string &Root, uint32_t P, int Rounds) {
  std::string Single = Root + "/single", Spread = Root + "/spread";
  std::string Clean = "rm -rf '" + Single + "' '" + Spread + "'";
  if (system(Clean.c_str()) != 0 || !makeDirectories(Single.c_str()) ||
      !makeDirectories(Spread.c_str()))
    fail("cannot make the directories");
  const char *D1 = Single.c_str(), *D2 = Spread.c_str();
  // Versions 1..Keep committed, as after a job's first commits.
  for (uint64_t V = 1; V <= (uint64_t)Keep; ++V)
    for (const char *D : {D1, D2}) {
      for (uint32_t R = 0; R < P; ++R)
        writeRankFiles(D, V, R, P);
      commit(D, V, P);
    }
  CommitWindow W;
  W.Dir = D2;
  W.Name = Name;
  W.Keep = Keep;
  commitWindowStart(W);
  std::vector<RankFiles> Ranks(P);
  for (uint32_t R = 0; R < P; ++R) {
    RankFiles &F = Ranks[R];
    F.Dir = F.ImageDir = D2;
    F.Name = Name;
    F.Rank = R;
    F.Keep = Keep;
    rankFilesStart(F, 1, 1);
  }
  std::vector<double> TSingle, TSpread, TRank;
  for (int I = 0; I < Rounds; ++I) {
    uint64_t V = Keep + 1 + I;
    for (const char *D : {D1, D2})
      for (uint32_t R = 0; R < P; ++R)
        writeRankFiles(D, V, R, P);
    double T0 = now();
    commit(D1, V, P);
    pruneVersions(D1, D1, Name, Keep);
    double T1 = now();
    commit(D2, V, P);
    commitWindowAdd(W, V);
    double T2 = now();
    // Each rank at its next checkpoint: the sum over ranks is the
    // machine-wide work, spread over P processes.
    for (uint32_t R = 0; R < P; ++R)
      rankFilesPrune(Ranks[R], V);
    double T3 = now();
    TSingle.push_back(T1 - T0);
    TSpread.push_back(T2 - T1);
    TRank.push_back((T3 - T2) / P);
  }
  // Both designs must leave the same files behind.
  std::string Cmp = "diff -r '" + Single + "' '" + Spread + "' >/dev/null";
  bool Same = system(Cmp.c_str()) == 0;
  commitWindowEnd(W);
  double S = median(TSingle), N = median(TSpread), R = median(TRank);
  printf("%6u %14.3f %14.3f %10.1f %16.3f %s\n", P, S * 1e3, N * 1e3, S / N,
         R * 1e3, Same ? "same files" : "FILES DIFFER");
  if (!Same)
    fail("the designs left different files");
  if (system(Clean.c_str()) != 0)
    fail("cannot clean up");
}

} // namespace

int main(int Argc, char **Argv) {
  std::string Dir = "/tmp";
  int Rounds = 5;
  std::vector<uint32_t> Ps;
  for (int I = 1; I < Argc; ++I) {
    if (!strcmp(Argv[I], "--dir") && I + 1 < Argc)
      Dir = Argv[++I];
    else if (!strcmp(Argv[I], "--rounds") && I + 1 < Argc)
      Rounds = atoi(Argv[++I]);
    else if (atoi(Argv[I]) > 0)
      Ps.push_back(atoi(Argv[I]));
    else {
      fprintf(stderr, "usage: prune_bench [--dir DIR] [--rounds N] [P ...]\n");
      return 2;
    }
  }
  if (Ps.empty())
    Ps = {16, 256, 4096};
  if (Rounds < 1)
    Rounds = 1;
  std::string Root = Dir + "/ccc-prune-bench." + std::to_string(getpid());
  printf("rank 0's commit step (write the record, prune), CCC_KEEP=%d, median "
         "of %d rounds, in %s\n",
         Keep, Rounds, Dir.c_str());
  printf("%6s %14s %14s %10s %16s\n", "ranks", "single ms", "spread ms",
         "ratio", "each rank ms");
  for (uint32_t P : Ps)
    run(Root, P, Rounds);
  rmdir(Root.c_str());
  return 0;
}
