//===- CodecChoice.cpp - ccc runtime: which codec suits each section ------===//
//
// Before an image is written, blocks of the memory it will hold are sampled
// and every codec (transform + zstd) tried on them; each section takes the
// best, and the heap may take one per large block (CodecZstdPerBlock).
//
//===----------------------------------------------------------------------===//
#include "RuntimeGlobals.h"
#include "rt/common/Config.h"
#include "rt/common/Hash.h"
#include "rt/common/Log.h"
#include "rt/heap/Exclusions.h"
#include "rt/heap/HeapRegion.h"
#include "rt/layout/Process.h"
#include "rt/layout/UnsavedGlobals.h"

namespace ccc {
namespace {

// Up to 16 blocks of kShuffleBlock bytes at evenly spaced offsets of the
// parts of a memory section that an image would hold (ccc_exclude and dead
// ranges left out; parts shorter than a block are not sampled), to measure
// which codec suits it. Fed every range twice: to count, then to pick.
// For an incremental image (Prev: the previous image's chunk table) the
// samples are taken among four times as many candidates, keeping those
// whose chunk changed since Prev: the chunks the image will store (a
// field rewritten every step next to read-only data of another kind).
struct Sampler {
  static constexpr int Max = 16;
  const ChunkTable *Prev = nullptr;
  uint32_t Section = 0;
  uint64_t Total = 0, Seen = 0, Candidates = 0;
  bool Picking = false;
  const void *P[Max];
  size_t N = 0;

  void offer(uintptr_t A, uint64_t L) {
    forEachIncludedPart(
        A, L,
        [](uint64_t A, uint64_t L, void *C) {
          static_cast<Sampler *>(C)->offerPart(A, L);
          return true;
        },
        this);
  }
  void offerPart(uintptr_t A, uint64_t L) {
    if (L < kShuffleBlock)
      return;
    if (!Picking) {
      Total += L;
      return;
    }
    uint64_t Want = Prev ? 4 * Max : Max, Step = Total / Want;
    while (N < Max && Candidates < Want && Candidates * Step < Seen + L) {
      uint64_t At = Candidates++ * Step;
      uint64_t Off = At > Seen ? At - Seen : 0;
      if (Off > L - kShuffleBlock)
        Off = L - kShuffleBlock;
      if (!Prev || changed(A, L, A + Off))
        P[N++] = reinterpret_cast<const void *>(A + Off);
    }
    Seen += L;
  }
  // Whether the piece of [A, A+L) holding X, cut as ChunkedWriter cuts
  // it, differs from the one Prev describes.
  bool changed(uintptr_t A, uint64_t L, uintptr_t X) const {
    uint64_t CS = Cfg.ChunkSize;
    uint64_t Lo = X / CS * CS, Hi = Lo + CS;
    Lo = Lo < A ? A : Lo;
    Hi = Hi > A + L ? A + L : Hi;
    const ChunkEntry *E = Prev->find(Section, Lo);
    return !E || E->Len != Hi - Lo ||
           E->Hash != hashBytes(reinterpret_cast<const void *>(Lo), Hi - Lo);
  }
  // The codec to use, or -1 when nothing was sampled (the previous
  // choice stays); the measurements in T.
  int64_t codec(CodecTrials &T) const {
    if (Cfg.Shuffle >= 0)
      return Cfg.Shuffle ? CodecZstdShuffle8 : CodecZstd;
    if (!N)
      return -1;
    T.measure(P, N, kShuffleBlock, Cfg.CompressLevel, /*AllTransforms=*/true);
    uint32_t C = T.bestOfAll();
    CCC_DEBUG("codec of section %u measured on %zu blocks (%s): %s", Section, N,
              Prev ? "chunks changed since the previous image" : "all",
              codecName(C));
    return C;
  }
};

void sampleGlobals(Sampler &S) {
  size_t NG;
  const GlobalRange *G = registeredGlobals(&NG);
  for (size_t I = 0; I < NG; ++I)
    if (!G[I].TlsGetter && !G[I].unsaved())
      S.offer(G[I].address(), G[I].Size);
}

} // namespace

// The globals' codec, or -1 for no samples.
int64_t globalsCodec(const ChunkTable *Prev) {
  Sampler S;
  S.Prev = Prev;
  S.Section = SecGlobals;
  sampleGlobals(S);
  S.Picking = true;
  sampleGlobals(S);
  CodecTrials T;
  return S.codec(T);
}

// The heap's codec, or -1 for no samples. Large heap blocks (arrays) may
// hold data of different kinds (a smooth field, a source term that
// repeats): each one holding samples gets the codec its own samples
// measure best, and the rest of the heap (small blocks, allocator pages)
// the codec of the other samples, if at least 5 % smaller on them than the
// whole heap's (a few samples of an array may miss what the others see:
// zeros code alike under every codec); large blocks without samples, the
// whole heap's. If they differ, the heap is coded per block
// (CodecZstdPerBlock); with more large blocks than the table holds, not.
int64_t heapCodec(const ChunkTable *Prev) {
  Sampler S;
  S.Prev = Prev;
  S.Section = SecHeap;
  auto Offer = [](uintptr_t A, size_t L, void *C) {
    static_cast<Sampler *>(C)->offer(A, L);
  };
  heapForEachUsedRange(Offer, &S);
  S.Picking = true;
  heapForEachUsedRange(Offer, &S);
  CodecTrials T;
  int64_t C = S.codec(T);
  if (C < 0 || Cfg.Shuffle >= 0)
    return C;
  struct Regions {
    const Sampler &S;
    const CodecTrials &T;
    uint32_t C, Outside;
    bool Overflow;
  } R = {S, T, uint32_t(C), uint32_t((1u << T.NSamples) - 1), false};
  RT.NHeapRegions = 0;
  heapForEachPlacedBlock(
      [](uintptr_t A, size_t L, uintptr_t, void *Ctx) {
        auto *R = static_cast<Regions *>(Ctx);
        uint32_t In = 0;
        for (size_t I = 0; I < R->T.NSamples; ++I) {
          auto P = reinterpret_cast<uintptr_t>(R->S.P[I]);
          In |= uint32_t(P >= A && P - A < L) << I;
        }
        if (RT.NHeapRegions == RT.kMaxCodecRegions) {
          R->Overflow = true;
          return;
        }
        // A large block with no samples (none of its chunks changed, or
        // too few samples to reach it) keeps the whole heap's codec.
        R->Outside &= ~In;
        RT.HeapRegions[RT.NHeapRegions++] = {
            A, A + L, In ? R->T.betterThan(R->C, In) : R->C};
      },
      &R);
  if (R.Overflow) {
    RT.NHeapRegions = 0;
    return C;
  }
  RT.HeapDefault =
      R.Outside ? T.betterThan(uint32_t(C), R.Outside) : uint32_t(C);
  for (size_t I = 0; I < RT.NHeapRegions; ++I)
    if (RT.HeapRegions[I].Codec != RT.HeapDefault) {
      CCC_DEBUG("heap coded per block (%zu large blocks)", RT.NHeapRegions);
      return CodecZstdPerBlock;
    }
  return RT.HeapDefault;
}

} // namespace ccc
