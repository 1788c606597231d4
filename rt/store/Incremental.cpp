//===- Incremental.cpp - Chunked memory sections, incremental images ------===//
#include "Incremental.h"
#include "Store.h"
#include "rt/common/Hash.h"
#include "rt/common/LibcHeap.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ccc {

//===-- ChunkTable --------------------------------------------------------===//

ChunkTable::~ChunkTable() { __libc_free(E); }

bool ChunkTable::push(const ChunkEntry &X) {
  if (N == Cap) {
    size_t NewCap = Cap ? 2 * Cap : 1024;
    auto *P = static_cast<ChunkEntry *>(
        __libc_realloc(E, NewCap * sizeof(ChunkEntry)));
    if (!P)
      return false;
    E = P;
    Cap = NewCap;
  }
  E[N++] = X;
  return true;
}

static bool before(const ChunkEntry &A, uint32_t Section, uint64_t Addr) {
  return A.Section != Section ? A.Section < Section : A.Addr < Addr;
}

void ChunkTable::sort() {
  if (N < 2) // (E may be null: an empty table read from an image)
    return;
  qsort(E, N, sizeof(ChunkEntry), [](const void *A, const void *B) {
    auto *X = static_cast<const ChunkEntry *>(A);
    auto *Y = static_cast<const ChunkEntry *>(B);
    if (before(*X, Y->Section, Y->Addr))
      return -1;
    return before(*Y, X->Section, X->Addr) ? 1 : 0;
  });
}

const ChunkEntry *ChunkTable::find(uint32_t Section, uint64_t Addr) const {
  size_t Lo = 0, Hi = N;
  while (Lo < Hi) {
    size_t Mid = Lo + (Hi - Lo) / 2;
    if (before(E[Mid], Section, Addr))
      Lo = Mid + 1;
    else
      Hi = Mid;
  }
  if (Lo < N && E[Lo].Section == Section && E[Lo].Addr == Addr)
    return &E[Lo];
  return nullptr;
}

void ChunkTable::swap(ChunkTable &O) {
  ChunkEntry *TE = E;
  size_t TN = N, TC = Cap;
  E = O.E, N = O.N, Cap = O.Cap;
  O.E = TE, O.N = TN, O.Cap = TC;
}

bool ChunkTable::load(ImageReader &R, const SectionEntry &S) {
  N = 0;
  if (S.RawSize % sizeof(ChunkEntry))
    return R.readBlob(S, nullptr, 0); // reports the size as corrupt
  // The size comes from the file: the table grows as its bytes arrive.
  void *Buf = E;
  uint64_t Bytes = Cap * sizeof(ChunkEntry);
  bool Ok = R.readBlobGrowing(S, &Buf, &Bytes);
  E = static_cast<ChunkEntry *>(Buf);
  Cap = Bytes / sizeof(ChunkEntry);
  if (!Ok)
    return false;
  N = S.RawSize / sizeof(ChunkEntry);
  sort();
  return true;
}

//===-- Writing -----------------------------------------------------------===//

bool ChunkedWriter::addRange(uint32_t Section, uint64_t Addr, uint64_t Len) {
  uint64_t End = Addr + Len;
  while (Addr < End) {
    uint64_t Next = (Addr / ChunkSize + 1) * ChunkSize;
    if (Next > End)
      Next = End;
    uint64_t L = Next - Addr;
    const void *Data = reinterpret_cast<const void *>(Addr);
    if (Addr >= CopyLo && Addr - CopyLo < CopyLen)
      Data = Copy + (Addr - CopyLo);
    uint64_t H = hashBytes(Data, L);
    ChunkEntry E = {Addr, L, H, Version, Section, 0};
    if (Prev && L >= kMinTableChunk) {
      const ChunkEntry *P = Prev->find(Section, Addr);
      if (P && P->Len == L && P->Hash == H) {
        if (Full)
          Stats.UnchangedBytes += L;
        else
          E.Version = P->Version;
      }
    }
    if (E.Version == Version) {
      if (!W.addRange(Addr, Data, L, &H))
        return false;
      Stats.StoredBytes += L;
      Stats.StoredPieces++;
    } else {
      Stats.ReferencedBytes += L;
      Stats.ReferencedPieces++;
    }
    if (L >= kMinTableChunk && !Out.push(E)) {
      errno = ENOMEM;
      return false;
    }
    Addr = Next;
    if (BetweenChunks)
      BetweenChunks();
  }
  return true;
}

bool ChunkedWriter::finish(uint32_t ChainLength) {
  uint64_t Base = Version;
  for (size_t I = 0; I < Out.size(); ++I)
    if (Out[I].Version < Base)
      Base = Out[I].Version;
  ImageHeader &H = W.header();
  H.ChainBase = Base;
  H.ChainLength = Base == Version ? 0 : ChainLength;
  H.ChunkSize = (uint32_t)ChunkSize;
  // Written in address order, so the table needs no sort when read back
  // (load() sorts anyway: a reader trusts nothing).
  Out.sort();
  return W.beginSection(SecChunks, true) &&
         W.addBytes(Out.data(), Out.size() * sizeof(ChunkEntry)) &&
         W.endSection();
}

//===-- Reading references ------------------------------------------------===//

namespace {
struct RefRead {
  const ChunkTable *T;
  uint64_t Version; // the older image being read
  const char *Path;
  uint32_t Section; // its section being read
  ChunkSink Sink;
  void *Ctx;
  uint64_t Found;
  bool Bad;
  char *Why;
  size_t Cap;
};

const ChunkEntry *wanted(RefRead &R, uint64_t Addr, uint64_t Len) {
  const ChunkEntry *E = R.T->find(R.Section, Addr);
  return E && E->Version == R.Version && E->Len == Len ? E : nullptr;
}

void *refSink(uint64_t Addr, uint64_t Len, void *C) {
  auto &R = *static_cast<RefRead *>(C);
  if (R.Bad || !wanted(R, Addr, Len))
    return nullptr;
  void *Dst = R.Sink(R.Section, Addr, Len, R.Ctx);
  if (!Dst)
    R.Bad = true;
  return Dst;
}

void refDone(uint64_t Addr, uint64_t Len, void *, uint64_t Hash, void *C) {
  auto &R = *static_cast<RefRead *>(C);
  const ChunkEntry *E = wanted(R, Addr, Len);
  if (E && E->Hash == Hash) {
    R.Found++;
    return;
  }
  if (!R.Bad)
    snprintf(R.Why, R.Cap,
             "the chunk at 0x%llx (%llu bytes) in %s is not the one this "
             "image refers to (corrupt or replaced image)",
             (unsigned long long)Addr, (unsigned long long)Len, R.Path);
  R.Bad = true;
}
} // namespace

bool readReferencedChunks(const char *Dir, const char *Name,
                          const ImageHeader &Newest, const ChunkTable &T,
                          ChunkSink Sink, void *Ctx, char *Why, size_t Cap) {
  // Each older version once, oldest first; the table is small next to the
  // bytes, so scanning it per version is cheap.
  uint64_t Done = 0;
  for (;;) {
    uint64_t V = UINT64_MAX, Count = 0;
    for (size_t I = 0; I < T.size(); ++I) {
      uint64_t X = T[I].Version;
      if (X < Newest.Version && X > Done && X < V)
        V = X;
    }
    if (V == UINT64_MAX)
      return true;
    for (size_t I = 0; I < T.size(); ++I)
      Count += T[I].Version == V;
    Done = V;

    char Path[kPathMax];
    imagePath(Path, Dir, Name, V, Newest.Rank);
    ImageReader R;
    if (!R.open(Path)) {
      snprintf(Why, Cap,
               "it refers to %llu unchanged chunks stored in %s, which "
               "cannot be used: %s",
               (unsigned long long)Count, Path, R.error());
      return false;
    }
    const ImageHeader &H = R.header();
    if (H.Version != V || H.Rank != Newest.Rank || H.NRanks != Newest.NRanks ||
        H.BuildIdLen != Newest.BuildIdLen ||
        memcmp(H.BuildId, Newest.BuildId, H.BuildIdLen) != 0) {
      snprintf(Why, Cap,
               "it refers to chunks stored in %s, which belongs to another "
               "build, rank or version",
               Path);
      return false;
    }
    if (!Sink)
      continue;
    RefRead RR = {&T, V, Path, 0, Sink, Ctx, 0, false, Why, Cap};
    static const uint32_t Memory[] = {SecGlobals, SecHeap, SecStack};
    for (uint32_t Sec : Memory) {
      bool Any = false;
      for (size_t I = 0; I < T.size() && !Any; ++I)
        Any = T[I].Version == V && T[I].Section == Sec;
      if (!Any)
        continue;
      const SectionEntry *S = R.find(static_cast<SectionType>(Sec));
      RR.Section = Sec;
      if (!S) {
        snprintf(Why, Cap, "%s has no %s section", Path, sectionName(Sec));
        return false;
      }
      if (!R.readRanges(*S, refSink, &RR, refDone)) {
        if (!RR.Bad)
          snprintf(Why, Cap, "%s: %s", Path, R.error());
        return false;
      }
      if (RR.Bad)
        return false;
    }
    if (RR.Found != Count) {
      snprintf(Why, Cap,
               "%s holds %llu of the %llu chunks the newer image refers to",
               Path, (unsigned long long)RR.Found, (unsigned long long)Count);
      return false;
    }
  }
}
} // namespace ccc
