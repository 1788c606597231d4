//===- RankPruning.cpp - Each rank deletes its own old files --------------===//
//
// See RankPruning.h for the rules and why they keep every committed
// version restorable.
//
//===----------------------------------------------------------------------===//
#include "RankPruning.h"

#include "Store.h"

#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

extern "C" void *__libc_realloc(void *, size_t);
extern "C" void __libc_free(void *);

namespace ccc {
namespace {

bool hasCommit(const char *Dir, const char *Name, uint64_t V) {
  char P[kPathMax];
  commitPath(P, Dir, Name, V);
  struct stat St;
  return stat(P, &St) == 0;
}

void rememberBase(RankFiles &F, uint64_t V, uint64_t Base) {
  for (RankFiles::Base &B : F.Bases)
    if (B.Version == V) {
      B.ChainBase = Base;
      return;
    }
  F.Bases[F.NextSlot] = {V, Base};
  F.NextSlot = (F.NextSlot + 1) % RankFiles::kBases;
}

// The chain base of the rank's image of V in Dir: 0 if its header cannot
// be read (every older image may be needed), V + 1 if there is no such
// file (nothing to keep for it).
uint64_t chainBaseOf(RankFiles &F, const char *Dir, uint64_t V) {
  for (const RankFiles::Base &B : F.Bases)
    if (B.Version == V && V)
      return B.ChainBase;
  char P[kPathMax];
  imagePath(P, Dir, F.Name, V, F.Rank);
  uint64_t Base = imageChainBase(P, V, V + 1);
  if (Base && Base <= V)
    rememberBase(F, V, Base);
  return Base;
}

// Deletes the rank's files of one kind in Dir from *Low up to Bound
// (exclusive) and moves the mark. Guarded: stops at a version whose commit
// record is still there (rank 0 has not dropped it yet).
void deleteBelow(const RankFiles &F, const char *Dir, bool Images,
                 uint64_t *Low, uint64_t Bound, bool Guarded) {
  char P[kPathMax];
  for (; *Low < Bound; ++*Low) {
    if (Guarded && hasCommit(F.Dir, F.Name, *Low))
      return;
    (Images ? imagePath : logPath)(P, Dir, F.Name, *Low, F.Rank);
    unlink(P);
  }
}

// oldestKeptVersion from the floor up; moves the floor.
uint64_t keptFrom(RankFiles &F, uint64_t Newest) {
  uint64_t Oldest = oldestKeptVersion(F.Dir, F.Name, F.Keep, F.Floor, Newest);
  if (Oldest)
    F.Floor = Oldest;
  return Oldest;
}

// Dir shared: the rank's images and logs that no version of the CCC_KEEP
// newest committed ones, nor a newer one, needs.
void pruneShared(RankFiles &F, uint64_t Newest) {
  uint64_t Oldest = keptFrom(F, Newest);
  if (!Oldest)
    return; // nothing committed: everything may still be needed
  // Images the kept ones (and any newer, committed later or not) refer to.
  uint64_t KeepImages = Oldest;
  if (F.Tip && F.Tip < KeepImages)
    KeepImages = F.Tip;
  for (uint64_t V = Oldest; V <= Newest && KeepImages; ++V) {
    uint64_t B = chainBaseOf(F, F.ImageDir, V);
    KeepImages = B < KeepImages ? B : KeepImages;
  }
  deleteBelow(F, F.ImageDir, false, &F.LowLog, Oldest, true);
  deleteBelow(F, F.ImageDir, true, &F.LowImage, KeepImages, true);
}

// CCC_FLUSH_EVERY: of the rank's files flushed to Dir, the newest committed
// flushed version keeps its log and the images its chain needs; older ones
// go, and none of a newer version (one being flushed). Its commit record
// stays (CommitWindow) while the files in the host directories are pruned
// by CCC_KEEP, so no guard here.
void pruneFlushed(RankFiles &F, uint64_t Newest) {
  uint64_t Every = F.FlushEvery,
           Low = F.LowImage < F.LowLog ? F.LowImage : F.LowLog;
  uint64_t Flushed = 0;
  for (uint64_t V = Newest / Every * Every; V >= Low && V > 0; V -= Every)
    if (hasCommit(F.Dir, F.Name, V)) {
      Flushed = V;
      break;
    }
  if (!Flushed)
    return;
  uint64_t Base = chainBaseOf(F, F.Dir, Flushed);
  deleteBelow(F, F.Dir, false, &F.LowLog, Flushed, false);
  deleteBelow(F, F.Dir, true, &F.LowImage, Base < Flushed ? Base : Flushed,
              false);
}

} // namespace

uint64_t oldestKeptVersion(const char *Dir, const char *Name, int Keep,
                           uint64_t Low, uint64_t Newest) {
  uint64_t Oldest = 0;
  int Found = 0;
  for (uint64_t V = Newest; V >= Low && V > 0 && Found < Keep; --V)
    if (hasCommit(Dir, Name, V)) {
      Oldest = V;
      ++Found;
    }
  return Oldest;
}

void rankFilesStart(RankFiles &F, uint64_t Lowest, uint64_t LowestFlushed) {
  F.Floor = Lowest ? Lowest : 1;
  if (F.NodeLocal)
    Lowest = LowestFlushed;
  F.LowImage = F.LowLog = Lowest ? Lowest : 1;
  F.NextSlot = 0;
  F.Tip = 0;
  for (RankFiles::Base &B : F.Bases)
    B = {0, 0};
}

void rankFilesImage(RankFiles &F, uint64_t V, uint64_t Base) {
  Base = Base <= V ? Base : V;
  rememberBase(F, V, Base);
  F.Tip = Base;
}

void rankFilesPrune(RankFiles &F, uint64_t Newest) {
  if (!F.NodeLocal) {
    pruneShared(F, Newest);
    return;
  }
  // The host's directory holds partner copies of other ranks' files too:
  // listed (O(files on the host)), with the committed versions as found
  // here rather than by a listing of Dir.
  uint64_t Low = F.Floor;
  if (uint64_t Oldest = keptFrom(F, Newest)) {
    // Guarded as the shared directory's pruning is: a version whose commit
    // record is still there (rank 0 has not dropped it yet, or was killed
    // before it could) keeps its files, and is looked at again next time.
    // Not the newest flushed version, whose record stays on purpose: its
    // files are in Dir (pruneFlushed).
    uint64_t Bound = Oldest;
    for (uint64_t V = Low; V < Oldest; ++V)
      if (!(F.FlushEvery && V % F.FlushEvery == 0) &&
          hasCommit(F.Dir, F.Name, V)) {
        Bound = F.Floor = V;
        break;
      }
    pruneImages(F.ImageDir, F.Name, Bound, F.Tip);
  }
  if (F.FlushEvery)
    pruneFlushed(F, Newest);
}

void commitWindowStart(CommitWindow &W) {
  for (size_t Cap = 1024;; Cap *= 4) {
    W.Versions = static_cast<uint64_t *>(
        __libc_realloc(W.Versions, Cap * sizeof(uint64_t)));
    if (!W.Versions) {
      W.N = W.Cap = 0;
      return; // no window: records are not pruned, nothing is lost
    }
    W.Cap = Cap;
    int N = listCommitted(W.Dir, W.Name, W.Versions, (int)Cap);
    W.N = N;
    if ((size_t)N < Cap)
      break;
  }
  // Newest first from the listing; the window holds them oldest first.
  for (size_t I = 0; I < W.N / 2; ++I) {
    uint64_t T = W.Versions[I];
    W.Versions[I] = W.Versions[W.N - 1 - I];
    W.Versions[W.N - 1 - I] = T;
  }
  // What the listing found outside the window (a job killed between a
  // commit and the deletion of the record it pushed out) goes with this
  // run's first commit, not now: a restart that is then refused (a file
  // changed under it, a damaged image) leaves the directory as it found
  // it, and one that falls back past the newest versions still has them.
}

void commitWindowAdd(CommitWindow &W, uint64_t V) {
  if (W.N == W.Cap) {
    size_t Cap = W.Cap ? W.Cap * 2 : 64;
    auto *P =
        static_cast<uint64_t *>(__libc_realloc(W.Versions, Cap * sizeof(V)));
    if (!P)
      return; // the record stays; pruning resumes with the next commit
    W.Versions = P;
    W.Cap = Cap;
  }
  W.Versions[W.N++] = V;
  if (W.N <= (size_t)W.Keep)
    return;
  // The newest flushed version, if it is older than the window.
  uint64_t Flushed = 0;
  if (W.FlushEvery)
    for (size_t I = W.N; I-- > 0;)
      if (W.Versions[I] % W.FlushEvery == 0) {
        Flushed = W.Versions[I];
        break;
      }
  char P[kPathMax];
  size_t Out = 0, Drop = W.N - W.Keep;
  bool Deleted = false;
  for (size_t I = 0; I < W.N; ++I) {
    if (I >= Drop || W.Versions[I] == Flushed) {
      W.Versions[Out++] = W.Versions[I];
      continue;
    }
    commitPath(P, W.Dir, W.Name, W.Versions[I]);
    unlink(P);
    Deleted = true;
  }
  W.N = Out;
  // Durable before any rank deletes the files of these versions.
  if (Deleted)
    syncDirectory(W.Dir);
}

void commitWindowEnd(CommitWindow &W) {
  __libc_free(W.Versions);
  W.Versions = nullptr;
  W.N = W.Cap = 0;
}

} // namespace ccc
