//===- Incremental.h - Chunked sections, incremental images -----*- C++ -*-===//
//
// A checkpoint cuts every memory range at multiples of the chunk size
// (absolute addresses, so a chunk is the same memory from one checkpoint to
// the next) and hashes each piece. A piece whose address, length and hash
// equal those of a piece the previous image of this rank described is not
// written again: the new image's chunk table names the older image that
// holds its bytes. A restart reads the newest image, then the pieces it
// refers to from older images of the same rank; each of those is read whole,
// so its checksums are checked too, and every piece must hash as recorded.
//
// The chain is bounded (a full image every CCC_FULL_EVERY versions), and
// pruning keeps every image a kept version refers to (ImageHeader::ChainBase
// is the oldest one).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_INCREMENTAL_H
#define CCC_RT_INCREMENTAL_H

#include "rt/image/Image.h"

#include <cstddef>
#include <cstdint>

namespace ccc {
// Pieces shorter than this are always stored and left out of the table: an
// entry (40 bytes) would cost more than the bytes it saves.
constexpr uint64_t kMinTableChunk = 4096;

// The chunk table of one image, sorted by (section, address). Lives in
// libc's heap: it is runtime state, never part of an image's memory.
class ChunkTable {
public:
  ChunkTable() = default;
  ~ChunkTable();
  ChunkTable(const ChunkTable &) = delete;
  ChunkTable &operator=(const ChunkTable &) = delete;

  void clear() { N = 0; }
  bool push(const ChunkEntry &E);
  void sort();
  // The entry of Section starting at Addr, or null (after sort()).
  const ChunkEntry *find(uint32_t Section, uint64_t Addr) const;
  size_t size() const { return N; }
  const ChunkEntry &operator[](size_t I) const { return E[I]; }
  const ChunkEntry *data() const { return E; }
  void swap(ChunkTable &O);
  // Reads and sorts an image's SecChunks section.
  bool load(ImageReader &R, const SectionEntry &S);

private:
  ChunkEntry *E = nullptr;
  size_t N = 0, Cap = 0;
};

struct ChunkStats {
  uint64_t StoredBytes = 0, StoredPieces = 0;
  uint64_t ReferencedBytes = 0, ReferencedPieces = 0;
  // Of a full image written with a previous table to compare with: bytes
  // stored although unchanged (what an incremental one would have left
  // out); Compared says whether there was such a table.
  uint64_t UnchangedBytes = 0;
  bool Compared = false;
};

// Writes memory ranges as chunks into W's open memory section, leaving out
// those unchanged since Prev (null: nothing to compare with), unless Full:
// then every chunk is stored and the unchanged ones are only counted.
// Out receives the table.
class ChunkedWriter {
public:
  ChunkedWriter(ImageSink &W, const ChunkTable *Prev, bool Full,
                uint64_t Version, uint64_t ChunkSize, ChunkTable &Out)
      : W(W), Prev(Prev), Full(Full || !Prev), Version(Version),
        ChunkSize(ChunkSize), Out(Out) {
    Out.clear();
    Stats.Compared = Prev != nullptr;
  }
  bool addRange(uint32_t Section, uint64_t Addr, uint64_t Len);
  // The bytes of [Lo, Lo + Len) are read from Copy instead of memory (a
  // sanitized runtime's copy of the stack, ImageContents.cpp); Copy null:
  // from memory again.
  void readFromCopy(uint64_t Lo, uint64_t Len, const void *Copy) {
    CopyLo = Lo;
    CopyLen = Copy ? Len : 0;
    this->Copy = static_cast<const unsigned char *>(Copy);
  }
  // Writes the SecChunks section and the header's chain fields.
  bool finish(uint32_t ChainLength);
  const ChunkStats &stats() const { return Stats; }
  // Called after each chunk (the MPI layer lets the library progress).
  void (*BetweenChunks)() = nullptr;

private:
  ImageSink &W;
  const ChunkTable *Prev;
  bool Full;
  uint64_t Version, ChunkSize;
  ChunkTable &Out;
  ChunkStats Stats;
  uint64_t CopyLo = 0, CopyLen = 0;
  const unsigned char *Copy = nullptr;
};

// Where a referenced chunk goes: its destination (Len bytes), or null with
// the reason in Why (the restore is refused).
typedef void *(*ChunkSink)(uint32_t Section, uint64_t Addr, uint64_t Len,
                           void *Ctx);

// The chunks of T that Newest (an image of NAME in DIR) refers to in older
// images. With Sink null, only checks that each of those images exists and
// belongs to the same program, build and rank. Otherwise reads them and
// delivers every referenced chunk to Sink, checking its hash. False with
// the reason in Why.
bool readReferencedChunks(const char *Dir, const char *Name,
                          const ImageHeader &Newest, const ChunkTable &T,
                          ChunkSink Sink, void *Ctx, char *Why, size_t Cap);
} // namespace ccc
#endif
