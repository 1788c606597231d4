//===- image_fuzzer.cpp - libFuzzer target of the image readers -----------===//
//
// The input (see ImageModel.h) is written into a scratch directory as
// fz.vVERSION.rRANK.ccc files, named from each image's own header, so an
// incremental image finds the older ones it refers to; then `ckpt verify`
// (ImageReader::open, verifyAll, ChunkTable::load, readReferencedChunks),
// `ckpt info` (the map section), `ckpt diff` of the first two images and
// `ckpt ls` (headers of every image) run on them, and pruneVersions with a
// commit record per image. The custom mutator changes the images'
// structure and fixes up their sizes and checksums (ImageModel.cpp).
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "ImageModel.h"

#include "rt/image/Image.h"
#include "rt/store/Store.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <set>

using namespace ccc;
using namespace fuzz;

extern "C" size_t LLVMFuzzerMutate(uint8_t *Data, size_t Size, size_t Max);

static std::string imageName(const Bytes &B, size_t I) {
  ImageHeader H;
  char N[96];
  if (B.size() >= sizeof(H)) {
    memcpy(&H, B.data(), sizeof(H));
    snprintf(N, sizeof(N), "fz.v%06llu.r%u.ccc", (unsigned long long)H.Version,
             H.Rank);
  } else {
    snprintf(N, sizeof(N), "fz.v%06zu.r0.ccc", I + 1);
  }
  return N;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::vector<Bytes> Images = splitImages(Data, Size);
  clearDir();
  std::vector<std::string> Names;
  std::set<std::string> Seen;
  std::set<uint64_t> Versions;
  for (size_t I = 0; I < Images.size(); ++I) {
    std::string N = imageName(Images[I], I);
    if (!Seen.insert(N).second)
      continue;
    writeFile(N, Images[I].data(), Images[I].size());
    Names.push_back(workDir() + "/" + N);
    uint64_t V;
    uint32_t R;
    char Name[8], Kind;
    if (parseStoreName(N.c_str(), Name, sizeof(Name), &V, &R, &Kind))
      Versions.insert(V);
  }
  if (Names.empty())
    return 0;
  ckpt({"verify", Names[0]});
  // The input's size picks the other commands (mutations change it).
  size_t Pick = Size ^ (Size >> 3);
  if (Pick & 1)
    ckpt({"info", Names[0]});
  else if (Pick & 8)
    ckpt({"info", "--json", Names[0]});
  if (Names.size() > 1 && (Pick & 2))
    ckpt({"diff", Names[0], Names[1]});
  if ((Pick & 0x34) == 0x34) {
    char Err[256];
    for (uint64_t V : Versions)
      writeCommit(workDir().c_str(), "fz", V, 1, Err, sizeof(Err));
    ckpt({"ls", workDir()});
    pruneVersions(workDir().c_str(), workDir().c_str(), "fz", 1);
  }
  return 0;
}

//===-- Structure-aware mutation ------------------------------------------===//

namespace {
std::minstd_rand Rng;

uint64_t pick(uint64_t N) { return N ? Rng() % N : 0; }

uint64_t interesting(uint64_t Cur) {
  static const uint64_t V[] = {0,
                               1,
                               2,
                               4096,
                               65535,
                               65536,
                               65537,
                               1 << 20,
                               0x7fffffff,
                               0xffffffff,
                               0x100000000ull,
                               0x7fffffffffffffffull,
                               ~0ull,
                               ~0ull - 15};
  switch (pick(4)) {
  case 0:
    return V[pick(sizeof(V) / sizeof(V[0]))];
  case 1:
    return Cur + 1 - 2 * pick(2);
  case 2:
    return Cur ^ (1ull << pick(64));
  default:
    return (uint64_t(Rng()) << 32) ^ Rng();
  }
}

template <typename T> void tweak(T &F) { F = T(interesting(F)); }

// A position in S's stream of a range header, chunk entry or map record.
bool isMemory(uint32_t T) {
  return T == SecGlobals || T == SecHeap || T == SecStack;
}

// Offsets of the range headers (and, under per-block, the tag bytes) in a
// memory section's stream.
void walkRanges(const Section &X, std::vector<size_t> &Hdrs,
                std::vector<size_t> &Tags) {
  size_t Pos = 0, Size = X.Raw.size();
  while (Size - Pos >= sizeof(RangeHeader)) {
    RangeHeader RH;
    memcpy(&RH, &X.Raw[Pos], sizeof(RH));
    Hdrs.push_back(Pos);
    Pos += sizeof(RH);
    if (RH.Len > Size - Pos)
      return;
    if (X.E.Codec == CodecZstdPerBlock)
      for (uint64_t Off = 0; Off < RH.Len && Pos < Size; Off += kShuffleBlock) {
        Tags.push_back(Pos);
        uint64_t N =
            RH.Len - Off < kShuffleBlock ? RH.Len - Off : kShuffleBlock;
        Pos += 1 + N;
      }
    else
      Pos += RH.Len;
    if (Pos > Size)
      return;
  }
}

uint32_t randomCodec() {
  static const uint32_t R[] = {8, 15, 16, 17, 24, 32, 40, 128, 255, 256};
  switch (pick(3)) {
  case 0:
    return shuffleRecordCodec(R[pick(sizeof(R) / sizeof(R[0]))]);
  case 1:
    return uint32_t(pick(7));
  default:
    return uint32_t(pick(6));
  }
}

// One structural change of image I (others: the other images of the
// input, for values that make sense across them).
void mutateImage(Image &Im, const std::vector<Image> &All, size_t MaxSize) {
  ImageHeader &H = Im.H;
  Section *X = Im.S.empty() ? nullptr : &Im.S[pick(Im.S.size())];
  switch (pick(12)) {
  case 0: { // a header field
    switch (pick(12)) {
    case 0:
      tweak(H.Version);
      break;
    case 1:
      tweak(H.Rank);
      break;
    case 2:
      tweak(H.NRanks);
      break;
    case 3:
      tweak(H.Protocol);
      break;
    case 4:
      tweak(H.Epoch);
      break;
    case 5:
      tweak(H.ChainBase);
      break;
    case 6:
      tweak(H.ChainLength);
      break;
    case 7:
      tweak(H.ChunkSize);
      break;
    case 8:
      tweak(H.BuildIdLen);
      break;
    case 9:
      tweak(H.AbiVersion);
      break;
    case 10:
      H.FormatVersion = uint32_t(pick(7));
      break;
    default:
      H.BuildId[pick(64)] ^= uint8_t(1 + pick(255));
      break;
    }
    break;
  }
  case 1: { // another image's version, rank or build, or self-reference
    const Image &O = All[pick(All.size())];
    if (pick(2))
      H.ChainBase = pick(2) ? O.H.Version : H.Version;
    else
      H.Version = O.H.Version + pick(3) - 1;
    break;
  }
  case 2: // a section's type or codec
    if (!X)
      break;
    if (pick(2))
      X->E.Codec = randomCodec();
    else
      X->E.Type = uint32_t(pick(11));
    break;
  case 3: // delete, duplicate or reorder sections
    if (!X)
      break;
    switch (pick(3)) {
    case 0:
      Im.S.erase(Im.S.begin() + (X - Im.S.data()));
      break;
    case 1:
      if (Im.S.size() < kMaxSections + 1)
        Im.S.push_back(*X);
      break;
    default:
      std::swap(*X, Im.S[pick(Im.S.size())]);
      break;
    }
    break;
  case 4:
  case 5: { // a range header or a per-block tag of a memory section
    if (!X || !X->Decoded || !isMemory(X->E.Type))
      break;
    std::vector<size_t> Hdrs, Tags;
    walkRanges(*X, Hdrs, Tags);
    if (!Tags.empty() && pick(3) == 0) {
      static const uint8_t T[] = {0, 1, 2, 3, 15, 16, 32, 255};
      X->Raw[Tags[pick(Tags.size())]] = T[pick(sizeof(T))];
      break;
    }
    if (Hdrs.empty())
      break;
    RangeHeader RH;
    size_t At = Hdrs[pick(Hdrs.size())];
    memcpy(&RH, &X->Raw[At], sizeof(RH));
    if (pick(3))
      tweak(RH.Len);
    else
      tweak(RH.Addr);
    memcpy(&X->Raw[At], &RH, sizeof(RH));
    break;
  }
  case 6:
  case 7: { // a chunk table entry
    Section *C = nullptr;
    for (Section &Y : Im.S)
      if (Y.E.Type == SecChunks && Y.Decoded)
        C = &Y;
    if (!C || C->Raw.size() < sizeof(ChunkEntry))
      break;
    ChunkEntry E;
    size_t At = pick(C->Raw.size() / sizeof(E)) * sizeof(E);
    memcpy(&E, &C->Raw[At], sizeof(E));
    switch (pick(6)) {
    case 0: {
      const Image &O = All[pick(All.size())];
      E.Version = O.H.Version + pick(3) - 1;
      break;
    }
    case 1:
      tweak(E.Version);
      break;
    case 2:
      tweak(E.Len);
      break;
    case 3:
      tweak(E.Addr);
      break;
    case 4:
      E.Hash ^= 1ull << pick(64);
      break;
    default:
      E.Section = uint32_t(pick(10));
      break;
    }
    memcpy(&C->Raw[At], &E, sizeof(E));
    break;
  }
  case 8: { // a map record
    Section *M = nullptr;
    for (Section &Y : Im.S)
      if (Y.E.Type == SecMap && Y.Decoded)
        M = &Y;
    if (!M || M->Raw.size() < sizeof(MapRecord))
      break;
    // Walk the records to pick one.
    std::vector<size_t> Recs;
    for (size_t P = 0; M->Raw.size() - P >= sizeof(MapRecord);) {
      MapRecord R;
      memcpy(&R, &M->Raw[P], sizeof(R));
      Recs.push_back(P);
      P += sizeof(R) + ((uint64_t(R.NameLen) + 7) & ~7ull);
      if (P > M->Raw.size())
        break;
    }
    MapRecord R;
    size_t At = Recs[pick(Recs.size())];
    memcpy(&R, &M->Raw[At], sizeof(R));
    switch (pick(4)) {
    case 0:
      tweak(R.Addr);
      break;
    case 1:
      tweak(R.Len);
      break;
    case 2:
      R.Kind = uint32_t(pick(11));
      break;
    default:
      tweak(R.NameLen);
      break;
    }
    memcpy(&M->Raw[At], &R, sizeof(R));
    break;
  }
  default: { // bytes of a section's stream (libFuzzer's own mutations)
    if (!X)
      break;
    size_t Old = X->Raw.size();
    size_t Cap = Old + 64 < MaxSize ? Old + 64 : MaxSize;
    if (Cap < 1)
      break;
    X->Raw.resize(Cap);
    X->Raw.resize(LLVMFuzzerMutate(X->Raw.data(), Old, Cap));
    break;
  }
  }
}
} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *Data, size_t Size,
                                          size_t MaxSize, unsigned Seed) {
  Rng.seed(Seed);
  std::vector<Bytes> Pieces = splitImages(Data, Size);
  std::vector<Image> Images(Pieces.size());
  bool Ok = !Pieces.empty();
  for (size_t I = 0; I < Pieces.size() && Ok; ++I)
    Ok = Images[I].decode(Pieces[I]);
  // Not images (or 1 in 16): libFuzzer's byte-level mutations.
  if (!Ok || pick(16) == 0)
    return LLVMFuzzerMutate(Data, Size, MaxSize);
  size_t Which = pick(Images.size());
  if (Images.size() > 1 && pick(16) == 0) { // drop an older image
    Images.erase(Images.begin() + 1 + pick(Images.size() - 1));
    Which = 0;
  } else {
    for (uint64_t N = 1 + pick(3); N--;)
      mutateImage(Images[Which], Images, MaxSize);
  }
  Bytes Out;
  for (size_t I = 0; I < Images.size(); ++I) {
    Image::Spoil Sp;
    if (I == Which && pick(8) == 0) {
      int N = int(Images[I].S.size());
      switch (pick(5)) {
      case 0:
        Sp.SectionChecksum = int(pick(N));
        break;
      case 1:
        Sp.SectionSizes = int(pick(N));
        break;
      case 2:
        Sp.FileSize = true;
        break;
      case 3:
        Sp.HeaderChecksum = true;
        break;
      default:
        Sp.SectionCount = true;
        break;
      }
    }
    // Images left alone keep their bytes (encoding costs a compression).
    Bytes B = I == Which ? Images[I].encode(Sp) : Pieces[I];
    // Now and then, compressed bytes are damaged after the fact.
    if (I == Which && B.size() > sizeof(ImageHeader) && pick(16) == 0)
      B[sizeof(ImageHeader) + pick(B.size() - sizeof(ImageHeader))] ^=
          uint8_t(1 + pick(255));
    Out.insert(Out.end(), B.begin(), B.end());
  }
  if (Out.size() > MaxSize)
    return LLVMFuzzerMutate(Data, Size, MaxSize);
  memcpy(Data, Out.data(), Out.size());
  return Out.size();
}
