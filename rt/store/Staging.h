//===- Staging.h - An image staged in memory, written out later -*- C++ -*-===//
//
// CCC_ASYNC: at a site the runtime fills a StagingWriter instead of the
// image file. It records the calls writeImage makes (sections, ranges with
// a copy of their bytes, blobs) in a buffer of its own mapping, outside
// the heap region, so the program may go on changing its memory; a runtime
// thread then replays them into an ImageWriter, which compresses, writes
// and fsyncs as a synchronous checkpoint would. The file is the same one
// the synchronous path writes for the same state.
//
// The buffer is reserved once (address space only, CCC_ASYNC_MEMORY bytes)
// and reused: what it costs in memory is the largest image staged so far,
// before compression. A state that does not fit fails the staging (then
// the caller writes synchronously).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_STAGING_H
#define CCC_RT_STAGING_H

#include "rt/image/Image.h"

#include <cstddef>
#include <cstdint>

namespace ccc {

class StagingWriter : public ImageSink {
public:
  StagingWriter() : ImageSink(functionsOf<StagingWriter>()) {}
  ~StagingWriter();
  StagingWriter(const StagingWriter &) = delete;
  StagingWriter &operator=(const StagingWriter &) = delete;

  // Reserves Cap bytes of address space (once; false if it cannot).
  bool reserve(uint64_t Cap);
  uint64_t capacity() const { return Cap; }
  // Starts a new image: an empty header and buffer.
  void reset();
  // True if the last image failed because the buffer was full.
  bool overflowed() const { return Overflow; }
  uint64_t used() const { return Used; }

  bool beginSection(SectionType Type, bool Compress,
                    uint32_t Codec = CodecZstd);
  void setBlockCodecs(const CodecRegion *R, size_t N, uint32_t Default);
  bool addRange(uint64_t Addr, const void *Data, uint64_t Len,
                const uint64_t *Hash = nullptr);
  bool addBytes(const void *Data, uint64_t Len);
  bool endSection();
  bool finish() { return true; }

  // Writes the staged image into W (opened, nothing written yet), header
  // fields included; the caller then calls W.finish(). Makes no heap
  // allocation of the program's and takes no lock of the runtime's: it runs
  // on the writer thread while the program computes.
  bool replay(ImageWriter &W) const;

private:
  // A record's header; Len bytes follow, padded to 8.
  struct Record {
    uint32_t Kind, Arg0;
    uint32_t Arg1, HasHash;
    uint64_t Addr, Len, Hash;
  };
  bool push(const Record &R, const void *Data);

  unsigned char *Buf = nullptr;
  uint64_t Cap = 0, Used = 0;
  bool Overflow = false;
};

// The bytes of memory available (MemAvailable of /proc/meminfo), or 0.
uint64_t memoryAvailable();
} // namespace ccc
#endif
