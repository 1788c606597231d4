//===- RankPruning.h - Each rank deletes its own old files ------*- C++ -*-===//
//
// An MPI job's pruning (CCC_KEEP) is spread over its ranks so that no step
// of a commit grows with the job. Each rank deletes its own images and
// message logs: at each of its checkpoints, after a commit it learns of and
// when the job ends. Rank 0 deletes only the commit records that leave the
// CCC_KEEP window, from a list it keeps in memory.
//
// A rank learns which versions are committed by stat of their commit
// records, newest first, until it has found CCC_KEEP of them: O(CCC_KEEP)
// calls, never a listing of CCC_DIR. A view that lags behind rank 0's keeps
// more files, never fewer. And since rank 0 deletes a commit record before
// any rank deletes that version's files (a rank deletes nothing of a
// version whose record it still sees), a crash never leaves a committed
// version without its images, as with a single pruner.
//
// The same guard covers a host's directory under CCC_LOCAL_DIR, pruned by
// listing it (it holds partner copies of other ranks' files): the bound is
// the oldest version below the CCC_KEEP window whose record a rank still
// sees, except the newest flushed version (CCC_FLUSH_EVERY), whose record
// stays on purpose and whose files are in CCC_DIR.
//
// What a rank has deleted is a low-water mark per kind of file: every one
// of its files below it is gone. Each prune deletes from the mark up to the
// new bound, so the work is O(1) per checkpoint, amortised. The marks start
// at the lowest version of the rank's files that the listing at start found.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_RANKPRUNING_H
#define CCC_RT_RANKPRUNING_H

#include <cstddef>
#include <cstdint>

namespace ccc {

struct RankFiles {
  const char *Dir = nullptr;      // CCC_DIR: commit records, flushed files
  const char *ImageDir = nullptr; // where the rank writes images and logs
  const char *Name = nullptr;
  uint32_t Rank = 0;
  int Keep = 2;
  // CCC_LOCAL_DIR set: ImageDir is the host's directory, pruned by listing
  // it (it holds partner copies of other ranks too); the marks then apply
  // to the files flushed to Dir every FlushEvery versions (0: none).
  bool NodeLocal = false;
  uint64_t FlushEvery = 0;

  // Every file of this rank below these versions is deleted: images and
  // logs in ImageDir (Dir shared), or those flushed to Dir (NodeLocal).
  uint64_t LowImage = 0, LowLog = 0;
  // No version below this one is to be kept: the oldest kept version the
  // last prune found (the Keep-th newest committed one only moves up), or
  // (NodeLocal) an older one whose commit record was still there.
  uint64_t Floor = 1;
  // Chain bases of this rank's images (the oldest image each refers to),
  // as written or read from a header, for the newest few versions.
  static constexpr unsigned kBases = 64;
  struct Base {
    uint64_t Version, ChainBase;
  } Bases[kBases] = {};
  unsigned NextSlot = 0;
  // The chain base of the image the next one may refer to (0: none): it
  // stays even if its version is never committed.
  uint64_t Tip = 0;
};

// Before the first prune: Lowest is the lowest version of any of the rank's
// files in ImageDir, LowestFlushed of those flushed to Dir (NodeLocal); 0
// if none.
void rankFilesStart(RankFiles &F, uint64_t Lowest, uint64_t LowestFlushed);
// The rank wrote (or restored) its image of V, whose chain base is Base;
// the next image may refer to it.
void rankFilesImage(RankFiles &F, uint64_t V, uint64_t Base);
// Deletes what no kept version needs of this rank's files; Newest is the
// highest version that may have one.
void rankFilesPrune(RankFiles &F, uint64_t Newest);
// The Keep-th newest version in [Low, Newest] with a commit record in Dir
// (fewer found: the oldest found; none: 0), by stat newest first.
uint64_t oldestKeptVersion(const char *Dir, const char *Name, int Keep,
                           uint64_t Low, uint64_t Newest);

// Rank 0's commit records: the committed versions, oldest first, of which it
// deletes all but the newest Keep and, with FlushEvery, the newest multiple
// of it (a version flushed to CCC_DIR).
struct CommitWindow {
  const char *Dir = nullptr;
  const char *Name = nullptr;
  int Keep = 2;
  uint64_t FlushEvery = 0;
  uint64_t *Versions = nullptr;
  size_t N = 0, Cap = 0;
};
// Seeds the window with the records in Dir (one listing, at start); those
// beyond Keep are deleted at the next commitWindowAdd, not here.
void commitWindowStart(CommitWindow &W);
// Version V was just committed: adds it and deletes the records that left
// the window (O(1) amortised).
void commitWindowAdd(CommitWindow &W, uint64_t V);
// Frees the window's list.
void commitWindowEnd(CommitWindow &W);

} // namespace ccc
#endif
