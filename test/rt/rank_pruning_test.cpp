//===- rank_pruning_test.cpp - What each rank's pruning keeps -------------===//
//
// An MPI job's pruning is spread over its ranks (RankPruning.h): rank 0
// keeps a window of commit records, each rank deletes its own files. Four
// cases, on real files in temporary directories:
// - the commit window (CCC_KEEP=2, then 1 with CCC_FLUSH_EVERY) deletes the
//   records that leave it and keeps the newest flushed one;
// - a shared directory with two ranks' incremental chains: a rank deletes
//   only its own files, keeps the chain bases of what it keeps (from the
//   headers), deletes nothing of a version whose commit record it still
//   sees, nothing while nothing is committed, and nothing below an
//   unreadable header;
// - a newer image's chain (the one the next image refers to) stays;
// - CCC_FLUSH_EVERY with CCC_LOCAL_DIR: of the files flushed to the shared
//   directory a rank keeps those of the newest committed flushed version
//   (and of a newer one being flushed) and deletes the rest of its own.
//
//===----------------------------------------------------------------------===//
#include "rt/image/Image.h"
#include "rt/store/RankPruning.h"
#include "rt/store/Store.h"
#include "unit_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <sys/stat.h>
#include <unistd.h>

using namespace ccc;

static const char *const Name = "prog";

static void writeImageFile(const char *Dir, uint64_t V, uint32_t Rank,
                           uint64_t Base) {
  char P[kPathMax];
  imagePath(P, Dir, Name, V, Rank);
  ImageWriter W;
  CHECK(W.open(P, 0, 0));
  W.header().Version = V;
  W.header().Rank = Rank;
  W.header().NRanks = 2;
  W.header().ChainBase = Base;
  uint64_t Word = V;
  CHECK(W.beginSection(SecGlobals, false));
  CHECK(W.addRange(0x1000, &Word, sizeof(Word)));
  CHECK(W.endSection() && W.finish());
}

static void writeLog(const char *Dir, uint64_t V, uint32_t Rank) {
  char P[kPathMax];
  logPath(P, Dir, Name, V, Rank);
  FILE *F = fopen(P, "w");
  CHECK(F && fputs("log", F) >= 0);
  if (F)
    fclose(F);
}

static bool exists(const char *P) {
  struct stat St;
  return stat(P, &St) == 0;
}

static bool hasImage(const char *Dir, uint64_t V, uint32_t Rank) {
  char P[kPathMax];
  imagePath(P, Dir, Name, V, Rank);
  return exists(P);
}

static bool hasLog(const char *Dir, uint64_t V, uint32_t Rank) {
  char P[kPathMax];
  logPath(P, Dir, Name, V, Rank);
  return exists(P);
}

static bool hasCommit(const char *Dir, uint64_t V) {
  char P[kPathMax];
  commitPath(P, Dir, Name, V);
  return exists(P);
}

static void removeCommit(const char *Dir, uint64_t V) {
  char P[kPathMax];
  commitPath(P, Dir, Name, V);
  CHECK(unlink(P) == 0);
}

static void writeCommits(const char *Dir, uint64_t From, uint64_t To) {
  char Err[256];
  for (uint64_t V = From; V <= To; ++V)
    CHECK(writeCommit(Dir, Name, V, 2, Err, sizeof(Err)));
}

static RankFiles rankFiles(const char *Dir, const char *ImageDir, uint32_t Rank,
                           int Keep) {
  RankFiles F;
  F.Dir = Dir;
  F.ImageDir = ImageDir;
  F.Name = Name;
  F.Rank = Rank;
  F.Keep = Keep;
  return F;
}

// A rank of a shared directory whose files start at version 1.
static RankFiles startedRank(const char *Dir, uint32_t Rank) {
  RankFiles F = rankFiles(Dir, Dir, Rank, 2);
  rankFilesStart(F, 1, 1);
  return F;
}

static void commitWindow(const char *Dir) {
  writeCommits(Dir, 1, 3);
  CommitWindow W;
  W.Dir = Dir;
  W.Name = Name;
  W.Keep = 2;
  // Finds 1..3, of which 1 is outside the window: it stays until this
  // run commits (a restart refused before then changes nothing).
  commitWindowStart(W);
  CHECK(hasCommit(Dir, 1) && hasCommit(Dir, 2) && hasCommit(Dir, 3));
  writeCommits(Dir, 4, 4);
  commitWindowAdd(W, 4);
  CHECK(!hasCommit(Dir, 1) && !hasCommit(Dir, 2) && hasCommit(Dir, 3) &&
        hasCommit(Dir, 4));
  commitWindowEnd(W);

  // CCC_KEEP=1, a version in 4 flushed: the newest flushed record stays
  // until a newer flushed one is committed.
  W.Keep = 1;
  W.FlushEvery = 4;
  commitWindowStart(W);
  CHECK(hasCommit(Dir, 3) && hasCommit(Dir, 4));
  for (uint64_t V = 5; V <= 8; ++V) {
    writeCommits(Dir, V, V);
    commitWindowAdd(W, V);
    CHECK(hasCommit(Dir, V) && hasCommit(Dir, 4) == (V < 8));
    CHECK(!hasCommit(Dir, V - 1) || V - 1 == 4);
    CHECK(!hasCommit(Dir, 3));
  }
  commitWindowEnd(W);
}

static void sharedDirectory(const char *Dir) {
  // Chains per rank: 1 <- 2, 3 <- 4 <- 5, and a log per version. Versions
  // 3 and 4 are committed (1 and 2 were, their records are gone), 5 is in
  // flight.
  const uint64_t Images[][2] = {{1, 1}, {2, 1}, {3, 3}, {4, 3}, {5, 3}};
  for (uint32_t R = 0; R < 2; ++R)
    for (const auto &I : Images) {
      writeImageFile(Dir, I[0], R, I[1]);
      writeLog(Dir, I[0], R);
    }
  RankFiles F0 = startedRank(Dir, 0), F1 = startedRank(Dir, 1);
  // Nothing committed yet: nothing deleted.
  rankFilesPrune(F1, 5);
  CHECK(hasImage(Dir, 1, 1) && hasLog(Dir, 1, 1));

  writeCommits(Dir, 2, 4);
  // Rank 1: version 2's record is still there (rank 0 has not dropped it):
  // its files stay, version 1's go.
  rankFilesPrune(F1, 5);
  CHECK(!hasImage(Dir, 1, 1) && !hasLog(Dir, 1, 1));
  CHECK(hasImage(Dir, 2, 1) && hasLog(Dir, 2, 1));
  removeCommit(Dir, 2);
  rankFilesPrune(F1, 5);
  CHECK(!hasImage(Dir, 2, 1) && !hasLog(Dir, 2, 1));
  for (uint64_t V = 3; V <= 5; ++V)
    CHECK(hasImage(Dir, V, 1) && hasLog(Dir, V, 1));
  // Rank 1's pruning touched none of rank 0's files.
  for (uint64_t V = 1; V <= 5; ++V)
    CHECK(hasImage(Dir, V, 0) && hasLog(Dir, V, 0));

  // Version 5 committed, 3 out of the window: rank 1's log 3 goes, image 3
  // stays (4 and 5 refer to it).
  writeCommits(Dir, 5, 5);
  removeCommit(Dir, 3);
  rankFilesPrune(F1, 5);
  CHECK(!hasLog(Dir, 3, 1) && hasImage(Dir, 3, 1) && hasImage(Dir, 4, 1));

  // Rank 0 with an unreadable header in a kept image: its older images
  // stay, its older logs go.
  char P[kPathMax];
  imagePath(P, Dir, Name, 4, 0);
  FILE *Bad = fopen(P, "w");
  CHECK(Bad && fputs("not an image", Bad) >= 0);
  if (Bad)
    fclose(Bad);
  rankFilesPrune(F0, 5);
  CHECK(hasImage(Dir, 1, 0) && hasImage(Dir, 2, 0) && hasImage(Dir, 3, 0));
  CHECK(!hasLog(Dir, 3, 0) && hasLog(Dir, 4, 0));
}

static void tipStays(const char *Dir) {
  // The rank's last image (6, uncommitted) refers to 1; the next one may
  // refer to it too. 7 and 8 are committed, written by a restarted run
  // from another chain (7 <- 8).
  writeImageFile(Dir, 1, 0, 1);
  writeImageFile(Dir, 6, 0, 1);
  writeImageFile(Dir, 7, 0, 7);
  writeImageFile(Dir, 8, 0, 7);
  writeCommits(Dir, 7, 8);
  RankFiles F = startedRank(Dir, 0);
  rankFilesImage(F, 6, 1);
  rankFilesPrune(F, 8);
  CHECK(hasImage(Dir, 1, 0) && hasImage(Dir, 6, 0));
  // Once the rank's last image is 8, 1 and 6 go.
  rankFilesImage(F, 8, 7);
  rankFilesPrune(F, 8);
  CHECK(!hasImage(Dir, 1, 0) && !hasImage(Dir, 6, 0) && hasImage(Dir, 7, 0));
}

static void flushed(const char *Shared, const char *Local) {
  // Records 4, 6 and 7 (the window of CCC_KEEP=2 and the newest flushed of
  // CCC_FLUSH_EVERY=4); flushed files of 2, 4 and 6 (4 an increment on 3,
  // flushed with it; 2 on 1) of two ranks.
  for (uint64_t V : {4, 6, 7})
    writeCommits(Shared, V, V);
  const uint64_t Flushed[][2] = {{1, 1}, {2, 1}, {3, 3}, {4, 3}, {6, 6}};
  for (const auto &F : Flushed)
    for (uint32_t R = 0; R < 2; ++R)
      writeImageFile(Shared, F[0], R, F[1]);
  for (uint64_t V : {2, 4, 6})
    for (uint32_t R = 0; R < 2; ++R)
      writeLog(Shared, V, R);
  RankFiles F = rankFiles(Shared, Local, 0, 2);
  F.NodeLocal = true;
  F.FlushEvery = 4;
  rankFilesStart(F, 0, 1);
  rankFilesPrune(F, 7);
  CHECK(!hasImage(Shared, 1, 0) && !hasImage(Shared, 2, 0));
  CHECK(hasImage(Shared, 3, 0) && hasImage(Shared, 4, 0));
  CHECK(hasImage(Shared, 6, 0));
  CHECK(!hasLog(Shared, 2, 0) && hasLog(Shared, 4, 0) && hasLog(Shared, 6, 0));
  // Rank 1's are its own to prune.
  CHECK(hasImage(Shared, 1, 1) && hasLog(Shared, 2, 1));
  // The commit records are rank 0's window's to prune.
  CHECK(hasCommit(Shared, 4) && hasCommit(Shared, 6) && hasCommit(Shared, 7));
}

static void hostDirectory(const char *Shared, const char *Local) {
  // A host's directory (CCC_LOCAL_DIR) with full images and logs 1..5 of
  // two ranks (a partner copy of rank 1's among them). Records 2..4 in
  // CCC_DIR: with CCC_KEEP=2 the window is 3 and 4; 2's record is still
  // there (rank 0 has not dropped it yet), so its files stay.
  for (uint64_t V = 1; V <= 5; ++V)
    for (uint32_t R = 0; R < 2; ++R) {
      writeImageFile(Local, V, R, V);
      writeLog(Local, V, R);
    }
  writeCommits(Shared, 2, 4);
  RankFiles F = rankFiles(Shared, Local, 0, 2);
  F.NodeLocal = true;
  rankFilesStart(F, 1, 0);
  rankFilesPrune(F, 5);
  CHECK(!hasImage(Local, 1, 0) && !hasLog(Local, 1, 0));
  CHECK(hasImage(Local, 2, 0) && hasLog(Local, 2, 0));
  for (uint64_t V = 3; V <= 5; ++V)
    CHECK(hasImage(Local, V, 0) && hasLog(Local, V, 0));
  // Once the record is gone, the next prune deletes version 2's files.
  removeCommit(Shared, 2);
  rankFilesPrune(F, 5);
  CHECK(!hasImage(Local, 2, 0) && !hasLog(Local, 2, 0));
  CHECK(hasImage(Local, 3, 0) && hasLog(Local, 3, 0));
  // The newest flushed version's record stays on purpose (CCC_FLUSH_EVERY=
  // 3, records 3, 5 and 6): it does not hold back the host's files.
  writeCommits(Shared, 5, 6);
  removeCommit(Shared, 4);
  for (uint32_t R = 0; R < 2; ++R) {
    writeImageFile(Local, 6, R, 6);
    writeLog(Local, 6, R);
  }
  F.FlushEvery = 3;
  rankFilesPrune(F, 6);
  CHECK(!hasImage(Local, 3, 0) && !hasImage(Local, 4, 0));
  CHECK(hasImage(Local, 5, 0) && hasImage(Local, 6, 0));
}

static void makeDir(char *Template) { CHECK(mkdtemp(Template) != nullptr); }

static void removeDir(const char *Dir) {
  char Cmd[kPathMax];
  snprintf(Cmd, sizeof(Cmd), "rm -rf %s", Dir);
  CHECK(system(Cmd) == 0);
}

int main() {
  char Window[] = "/tmp/ccc-prune-window-XXXXXX";
  char Shared[] = "/tmp/ccc-prune-shared-XXXXXX";
  char Tip[] = "/tmp/ccc-prune-tip-XXXXXX";
  char Flush[] = "/tmp/ccc-prune-flush-XXXXXX";
  char Local[] = "/tmp/ccc-prune-local-XXXXXX";
  char Host[] = "/tmp/ccc-prune-host-XXXXXX";
  char HostShared[] = "/tmp/ccc-prune-hostshared-XXXXXX";
  for (char *D : {Window, Shared, Tip, Flush, Local, Host, HostShared})
    makeDir(D);
  commitWindow(Window);
  sharedDirectory(Shared);
  tipStays(Tip);
  flushed(Flush, Local);
  hostDirectory(HostShared, Host);
  for (const char *D : {Window, Shared, Tip, Flush, Local, Host, HostShared})
    removeDir(D);
  if (Failures)
    fprintf(stderr, "%d check(s) failed\n", Failures);
  return Failures ? 1 : 0;
}
