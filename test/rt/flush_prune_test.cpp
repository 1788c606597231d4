//===- flush_prune_test.cpp - What pruning keeps of flushed versions ------===//
//
// CCC_FLUSH_EVERY with CCC_LOCAL_DIR: a shared directory holds the commit
// records of versions 1..7 and the files flushed there for versions 2, 4
// and 6 of two ranks (4 an incremental image on 3, which was flushed with
// it; 2 on 1). With flushes every 4 versions the newest flushed committed
// version is 4: rank 0's pruning (CCC_KEEP=2) must keep the commit records
// of 7, 6 and 4, and the flushed files 4 needs (images 3 and 4, log 4) and
// those of a newer version (6: a flush in progress), and delete the rest.
//
//===----------------------------------------------------------------------===//
#include "Image.h"
#include "Store.h"
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

int main() {
  char Shared[] = "/tmp/ccc-flush-prune-XXXXXX";
  char Local[] = "/tmp/ccc-flush-prune-local-XXXXXX";
  CHECK(mkdtemp(Shared) && mkdtemp(Local));
  char Err[256];
  for (uint64_t V = 1; V <= 7; ++V)
    CHECK(writeCommit(Shared, Name, V, 2, Err, sizeof(Err)));
  const uint64_t Flushed[][2] = {{1, 1}, {2, 1}, {3, 3}, {4, 3}, {6, 6}};
  for (const auto &F : Flushed)
    for (uint32_t R = 0; R < 2; ++R)
      writeImageFile(Shared, F[0], R, F[1]);
  for (uint64_t V : {2, 4, 6})
    for (uint32_t R = 0; R < 2; ++R)
      writeLog(Shared, V, R);

  CHECK(newestFlushed(Shared, Name, 2) == 6);
  CHECK(newestFlushed(Shared, Name, 4) == 4);
  CHECK(newestFlushed(Shared, Name, 8) == 0);
  CHECK(newestFlushed(Shared, Name, 0) == 0);

  uint64_t Keep = newestFlushed(Shared, Name, 4);
  pruneVersions(Shared, Local, Name, 2, true, Keep);
  pruneFlushed(Shared, Name, Keep);
  for (uint64_t V = 1; V <= 7; ++V)
    CHECK(hasCommit(Shared, V) == (V == 7 || V == 6 || V == 4));
  for (uint32_t R = 0; R < 2; ++R) {
    CHECK(!hasImage(Shared, 1, R) && !hasImage(Shared, 2, R));
    CHECK(hasImage(Shared, 3, R) && hasImage(Shared, 4, R));
    CHECK(hasImage(Shared, 6, R));
    CHECK(!hasLog(Shared, 2, R) && hasLog(Shared, 4, R) &&
          hasLog(Shared, 6, R));
  }
  // Nothing flushed: nothing of the shared directory's files is touched.
  pruneFlushed(Shared, Name, 0);
  CHECK(hasImage(Shared, 3, 0) && hasLog(Shared, 4, 1));

  char Cmd[2 * sizeof(Shared) + 32];
  snprintf(Cmd, sizeof(Cmd), "rm -rf %s %s", Shared, Local);
  CHECK(system(Cmd) == 0);
  if (Failures)
    fprintf(stderr, "%d check(s) failed\n", Failures);
  return Failures ? 1 : 0;
}
