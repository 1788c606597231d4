//===- store_fuzzer.cpp - libFuzzer target of the store's record readers --===//
//
// The input's first byte says what the rest is: 'c' a commit record
// (fz.v000007.commit), 'd' a completion record (fz.completed), anything else
// a file name. The record is written into a scratch directory and read by
// commitRanks, commitThread, commitProtocol, readCompleted; the rest of the
// input, as a file name, goes to parseStoreName and is created in the
// directory beside the record, which listCommitted, highestVersion,
// `ckpt ls`, removeStaleTemporaries and pruneVersions then scan.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"

#include "rt/store/RankPruning.h"
#include "rt/store/Store.h"

#include <cstring>
#include <string>

using namespace ccc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1)
    return 0;
  fuzz::clearDir();
  const char *Dir = fuzz::workDir().c_str();
  char Kind = char(Data[0]);
  const uint8_t *Rest = Data + 1;
  size_t N = Size - 1;
  if (Kind == 'c')
    fuzz::writeFile("fz.v000007.commit", Rest, N);
  else if (Kind == 'd')
    fuzz::writeFile("fz.completed", Rest, N);

  // The rest as a file name: up to its first NUL, '/' replaced.
  std::string Name(reinterpret_cast<const char *>(Rest),
                   strnlen(reinterpret_cast<const char *>(Rest), N));
  for (char &C : Name)
    if (C == '/')
      C = '_';
  char Buf[256], Small[4], KindOut;
  uint64_t V;
  uint32_t R;
  parseStoreName(Name.c_str(), Buf, sizeof(Buf), &V, &R, &KindOut);
  parseStoreName(Name.c_str(), Small, sizeof(Small), &V, &R, &KindOut);
  if (!Name.empty() && Name.size() < 250 && Name != "." && Name != "..")
    fuzz::writeFile(Name, Rest, N < 64 ? N : 64);

  commitRanks(Dir, "fz", 7);
  commitThread(Dir, "fz", 7);
  char Proto[32];
  commitProtocol(Dir, "fz", 7, Proto, sizeof(Proto));
  commitProtocol(Dir, "fz", 7, Proto, 1);
  int64_t When;
  readCompleted(Dir, "fz", &V, &When);
  uint64_t List[4];
  listCommitted(Dir, "fz", List, 4);
  uint64_t Lowest;
  uint64_t Highest = highestVersion(Dir, "fz", 0, &Lowest);
  // Rank 0's pruning of its own files and of the commit records.
  RankFiles Own;
  Own.Dir = Own.ImageDir = Dir;
  Own.Name = "fz";
  Own.Keep = 1;
  rankFilesStart(Own, Lowest, Lowest);
  rankFilesPrune(Own, Highest);
  CommitWindow W;
  W.Dir = Dir;
  W.Name = "fz";
  W.Keep = 1;
  commitWindowStart(W);
  commitWindowAdd(W, Highest + 1);
  commitWindowEnd(W);
  fuzz::ckpt({"ls", fuzz::workDir()});
  removeStaleTemporaries(Dir, "fz", 0);
  pruneVersions(Dir, Dir, "fz", 1);
  return 0;
}
