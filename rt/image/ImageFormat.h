//===- ImageFormat.h - On-disk layout of a ccc checkpoint image -*- C++ -*-===//
//
// The byte layout described in docs/image-format.md. Shared by the runtime's
// writer and reader and by the `ckpt` tool. All integers little-endian.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_IMAGEFORMAT_H
#define CCC_RT_IMAGEFORMAT_H

#include <cstdint>

namespace ccc {

constexpr char kImageMagic[8] = {'\x89', 'C', 'C', 'C', 'I', 'M', 'G', '\n'};
// 2: incremental images (ChainBase, SecChunks).
// 3 added CodecZstdDiffShuffle8, 4 CodecZstdShuffleRecord, 5
// CodecZstdPerBlock; images of version 2 and later are read as well.
constexpr uint32_t kImageFormatVersion = 5;
constexpr uint32_t kOldestReadableFormat = 2;
constexpr uint32_t kMaxSections = 16;
// Checksums of memory sections chain the hashes of blocks of this many bytes,
// so a reader can verify a section in bounded memory.
constexpr uint64_t kHashBlock = 1 << 20;

enum SectionType : uint32_t {
  SecContext = 1,  // struct SavedContext: registers, errno, signal mask
  SecGlobals = 2,  // memory ranges of registered globals and thread-locals
  SecHeap = 3,     // memory ranges of the heap region in use
  SecStack = 4,    // the live part of the fixed-address stack
  SecLoadMap = 5,  // text: "start-end path" of every file mapping
  SecRuntime = 6,  // struct RuntimeState
  SecParallel = 7, // the MPI layer's restart parameters (Parallel.h)
  SecChunks = 8,   // ChunkEntry[]: every chunk of memory the image describes
  SecMap = 9,      // MapRecord[]: what the memory holds, for `ckpt info`
};

// SecMap: one record per registered global, per range the program excluded,
// per heap object and local variable left out at this site, per stack frame of
// the site's call chain and per large heap block in use (256 at most), each
// followed by its name (NameLen bytes, padded to 8). Only `ckpt info` reads it;
// a restart does not need it.
enum MapKind : uint32_t {
  MapGlobal = 1,             // saved; name: the symbol
  MapGlobalNeverWritten = 2, // left out: comes back from the binary
  MapGlobalDeadAtSites = 3,  // left out: dead at every site (pass)
  MapExcluded = 4,           // left out: ccc_exclude (heap or global)
  MapHeapDeadAtSite = 5,     // left out: dead at this site; name: allocation
  MapStackFrame = 6,         // saved; name: the function
  MapHeapBlock = 7,          // saved: a large heap block in use; name: the
                             // allocating call, "fn+0xOFF [0xADDR]" (ADDR
                             // in the executable: `addr2line -e PROG ADDR`)
  MapStackDeadAtSite = 8,    // left out: a local variable of the site's
                             // function dead at this site; name: "VAR in FN"
  MapGlobalOpenMP = 9,       // left out: the OpenMP runtime's (lock, cache)
  MapLibraryData = 10,       // saved: writable data of a shared library
                             // (in SecGlobals); name: the library's file
};
struct MapRecord {
  uint64_t Addr, Len;
  uint32_t Kind, NameLen;
};
static_assert(sizeof(MapRecord) == 24, "layout");

// CodecZstdShuffle8: zstd of the raw stream with the data of every memory
// range byte-transposed in blocks of kShuffleBlock bytes (byte k of every
// 8-byte element together): the sign/exponent bytes of doubles then lie
// side by side and compress, where byte-wise they barely do.
// CodecZstdDiffShuffle8: the same, after replacing every 8-byte element of
// a block but the first by its difference (mod 2^64) from the one before:
// neighbouring values of a smooth field differ in their low bits only.
// CodecZstdShuffleRecord: the byte transposition of elements of R bytes, R =
// Codec >> 8 (16 to 255): the records of an array of structs (a particle's
// position, velocity, id, ...), each byte of a record with the same byte of
// the others.
// CodecZstdPerBlock: each block of kShuffleBlock bytes of range data is
// preceded by a tag byte naming its own transform (blockTag): memory of
// several kinds in one section (a smooth field beside a source term that
// repeats), each block coded as the allocation holding it measured best.
enum Codec : uint32_t {
  CodecRaw = 0,
  CodecZstd = 1,
  CodecZstdShuffle8 = 2,
  CodecZstdDiffShuffle8 = 3,
  CodecZstdShuffleRecord = 4,
  CodecZstdPerBlock = 5,
};
constexpr uint32_t codecKind(uint32_t C) { return C & 0xff; }
constexpr uint32_t codecRecord(uint32_t C) { return C >> 8; }
constexpr uint32_t shuffleRecordCodec(uint32_t R) {
  return CodecZstdShuffleRecord | R << 8;
}
constexpr bool validCodec(uint32_t C) {
  return codecKind(C) == CodecZstdShuffleRecord
             ? codecRecord(C) >= 16 && codecRecord(C) <= 255
             : C <= CodecZstdPerBlock;
}
// CodecZstdPerBlock's tag of a block coded as under codec C (CodecZstd,
// CodecZstdShuffle8, CodecZstdDiffShuffle8 or a record codec): 0, 1, 2, or
// the record size; and back (0 for an invalid tag).
constexpr uint8_t blockTag(uint32_t C) {
  return codecKind(C) == CodecZstdShuffleRecord ? uint8_t(codecRecord(C))
                                                : uint8_t(C - CodecZstd);
}
constexpr uint32_t tagCodec(uint8_t T) {
  return T >= 16 ? shuffleRecordCodec(T) : T <= 2 ? CodecZstd + T : 0;
}
// Whether a codec transforms range data (in blocks of kShuffleBlock).
constexpr bool transforms(uint32_t C) {
  return codecKind(C) >= CodecZstdShuffle8;
}
constexpr uint64_t kShuffleBlock = 1 << 16;

struct SectionEntry {
  uint32_t Type;
  uint32_t Codec;
  uint64_t Offset;     // from the start of the file
  uint64_t StoredSize; // bytes in the file
  uint64_t RawSize;    // bytes after decompression
  uint64_t Checksum;   // of the raw bytes (see Hash.h, kHashBlock)
  uint64_t Reserved;
};
static_assert(sizeof(SectionEntry) == 48, "layout");

struct ImageHeader {
  char Magic[8];
  uint32_t FormatVersion;
  uint32_t HeaderSize; // sizeof(ImageHeader)
  uint64_t Version;    // checkpoint sequence number
  uint32_t Rank, NRanks;
  uint32_t Protocol; // 0 serial, 1 MPI blocking, 2 MPI non-blocking
  uint32_t SectionCount;
  uint64_t Epoch;
  uint64_t CreatedNs; // CLOCK_REALTIME
  // Incremental images: the oldest version whose image holds a chunk this
  // one refers to (== Version for a full image), how many incremental
  // images lie between this one and the last full one, and the chunk size.
  uint64_t ChainBase;
  uint32_t ChainLength;
  uint32_t ChunkSize;
  uint32_t BuildIdLen;
  uint8_t BuildId[64];
  char ProgramName[64];
  uint32_t AbiVersion;
  uint64_t FileSize; // total bytes, detects truncation
  SectionEntry Sections[kMaxSections];
  uint64_t HeaderChecksum; // hashBytes of everything above
};

// One piece of a memory section: a range cut at multiples of the chunk size
// (absolute addresses). Version is the image that stores its bytes: this
// one, or an older image of the same rank (an unchanged chunk).
struct ChunkEntry {
  uint64_t Addr;
  uint64_t Len;
  uint64_t Hash; // chunkHash() of the bytes
  uint64_t Version;
  uint32_t Section; // SecGlobals, SecHeap or SecStack
  uint32_t Pad;
};
static_assert(sizeof(ChunkEntry) == 40, "layout");

// A memory section's raw bytes are a sequence of {RangeHeader, Len bytes}.
struct RangeHeader {
  uint64_t Addr;
  uint64_t Len;
};

struct SavedContext {
  // Order fixed by Context.S.
  uint64_t Rbx, Rbp, R12, R13, R14, R15, Rsp, Rip;
  uint32_t Mxcsr;
  uint16_t FpuCw;
  uint16_t Pad;
  // Not registers, but per-thread state the program can observe.
  int32_t Errno;
  uint32_t Pad2;
  uint64_t SigMask[16];         // sigset_t
  uint64_t StackCanary;         // %fs:0x28
  uint64_t StackLow, StackHigh; // the saved stack range
};

struct RuntimeState {
  uint64_t Version;     // this checkpoint's sequence number
  uint64_t Checkpoints; // taken by this run (and its restarted ancestors)
  uint64_t Restarts;    // how many times the run was restarted
  uint64_t HeapBase, HeapReserve;
  uint64_t StackBase, StackSize;
  uint64_t MainArgs;      // main's arguments, in the heap region
  uint64_t ParallelState; // the MPI layer's state, in the heap region
  uint64_t Exclusions;    // ccc_exclude's table, in the heap region
  uint64_t Supervision;   // hooks and captured output sizes, in the heap
                          // region (Supervision.cpp); absent before it
  char Host[64];          // the host that wrote the image (for messages
                          // when a restart moves a process); absent before
  // A bit per descriptor 3..1023 the program had open (OpenFiles.cpp), so a
  // restart keeps those numbers free while MPI opens its own; absent before.
  uint64_t ProgramFds[16];
  // Thread-local keys saved libraries created (LibraryThreads.cpp), in the
  // heap region; absent before.
  uint64_t LibraryKeys;
};

} // namespace ccc
#endif
