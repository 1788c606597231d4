//===- Image.h - Write and read ccc checkpoint images -----------*- C++ -*-===//
//
// ImageWriter streams sections (memory ranges straight from the process, or
// blobs) into a file, compressing with zstd when asked, and writes the header
// with the section table last. ImageReader validates header, size and
// checksums and decompresses memory ranges straight to their destination.
// Used by the runtime and by the `ckpt` tool; knows nothing of the process.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_IMAGE_H
#define CCC_RT_IMAGE_H

#include "ImageFormat.h"

#include <cstddef>
#include <cstdint>

typedef struct ZSTD_CCtx_s ZSTD_CCtx;
typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace ccc {

// An address range whose blocks CodecZstdPerBlock codes with Codec.
struct CodecRegion {
  uint64_t Lo, Hi;
  uint32_t Codec;
};

// What an image's sections go into: the file itself (ImageWriter), or a
// staging buffer that a runtime thread writes out later (CCC_ASYNC,
// rt/store/Staging.h). Each kind of sink has a table of its functions
// rather than virtual functions: the runtime is built without RTTI, and
// code built with -fsanitize=vptr (UBSan) would ask for the type
// information of a polymorphic class.
class ImageSink {
public:
  ImageHeader &header() { return Hdr; }
  // Codec: how a compressed section is coded (a memory section's data may
  // be transformed, in blocks of kShuffleBlock); raw if !Compress.
  bool beginSection(SectionType Type, bool Compress,
                    uint32_t Codec = CodecZstd) {
    return Fn->Begin(this, Type, Compress, Codec);
  }
  // Under CodecZstdPerBlock: a block is coded with the codec of the region
  // (N of them, kept by the caller until endSection) holding its first
  // byte, else with Default.
  void setBlockCodecs(const CodecRegion *R, size_t N, uint32_t Default) {
    Fn->Codecs(this, R, N, Default);
  }
  // Memory sections: a range header followed by the bytes. Hash, if given,
  // is hashBytes(Data, Len) already computed (Len <= kHashBlock).
  bool addRange(uint64_t Addr, const void *Data, uint64_t Len,
                const uint64_t *Hash = nullptr) {
    return Fn->Range(this, Addr, Data, Len, Hash);
  }
  // Blob sections: bytes as they are.
  bool addBytes(const void *Data, uint64_t Len) {
    return Fn->Bytes(this, Data, Len);
  }
  bool endSection() { return Fn->End(this); }
  // Completes the image (ImageWriter: the file is complete only if this
  // returns true).
  bool finish() { return Fn->Finish(this); }

protected:
  struct Functions {
    bool (*Begin)(ImageSink *, SectionType, bool, uint32_t);
    void (*Codecs)(ImageSink *, const CodecRegion *, size_t, uint32_t);
    bool (*Range)(ImageSink *, uint64_t, const void *, uint64_t,
                  const uint64_t *);
    bool (*Bytes)(ImageSink *, const void *, uint64_t);
    bool (*End)(ImageSink *);
    bool (*Finish)(ImageSink *);
  };
  // The table of T, whose functions of the same names (hiding these) do
  // the work.
  template <class T> static const Functions *functionsOf() {
    static const Functions F = {
        [](ImageSink *S, SectionType Type, bool Compress, uint32_t Codec) {
          return static_cast<T *>(S)->beginSection(Type, Compress, Codec);
        },
        [](ImageSink *S, const CodecRegion *R, size_t N, uint32_t Default) {
          static_cast<T *>(S)->setBlockCodecs(R, N, Default);
        },
        [](ImageSink *S, uint64_t Addr, const void *Data, uint64_t Len,
           const uint64_t *Hash) {
          return static_cast<T *>(S)->addRange(Addr, Data, Len, Hash);
        },
        [](ImageSink *S, const void *Data, uint64_t Len) {
          return static_cast<T *>(S)->addBytes(Data, Len);
        },
        [](ImageSink *S) { return static_cast<T *>(S)->endSection(); },
        [](ImageSink *S) { return static_cast<T *>(S)->finish(); }};
    return &F;
  }
  explicit ImageSink(const Functions *Fn) : Fn(Fn) {}
  ~ImageSink() = default;
  ImageHeader Hdr{};

private:
  const Functions *Fn;
};

class ImageWriter : public ImageSink {
public:
  ImageWriter() : ImageSink(functionsOf<ImageWriter>()) {}
  ~ImageWriter();
  // Level <= 0 stores sections raw. Threads are zstd worker threads.
  bool open(const char *Path, int Level, int Threads);
  bool beginSection(SectionType Type, bool Compress,
                    uint32_t Codec = CodecZstd);
  void setBlockCodecs(const CodecRegion *R, size_t N, uint32_t Default) {
    Regions = R;
    NRegions = N;
    DefaultCodec = Default;
  }
  bool addRange(uint64_t Addr, const void *Data, uint64_t Len,
                const uint64_t *Hash = nullptr);
  bool addBytes(const void *Data, uint64_t Len);
  bool endSection();
  // Writes the header, fsyncs and closes.
  bool finish();
  const char *error() const { return Err; }
  uint64_t bytesWritten() const { return FileOff; }

private:
  bool put(const void *Data, uint64_t Len, bool Hash);
  bool writeOut(const void *Data, size_t Len);
  bool flushZstd(bool End);
  bool fail(const char *What);

  int Fd = -1;
  int Level = 1, Threads = 0;
  SectionEntry *Cur = nullptr;
  uint64_t FileOff = 0;
  uint64_t HashState = 0;
  ZSTD_CCtx *ZC = nullptr;
  unsigned char *OutBuf = nullptr;
  size_t OutCap = 0;
  unsigned char *ShufBuf = nullptr; // kShuffleBlock bytes
  const CodecRegion *Regions = nullptr;
  size_t NRegions = 0;
  uint32_t DefaultCodec = CodecZstd;
  char Err[256] = {0};
};

// Where to put the bytes of a range being read. Return the destination (Len
// bytes), or nullptr to have the reader decompress into scratch memory and
// only verify them.
typedef void *(*RangeSink)(uint64_t Addr, uint64_t Len, void *Ctx);
// Called after a range's bytes reached the sink's destination, with
// hashBytes() of them.
typedef void (*RangeDone)(uint64_t Addr, uint64_t Len, void *Dst, uint64_t Hash,
                          void *Ctx);

class ImageReader {
public:
  ImageReader() = default;
  ~ImageReader();
  // Reads and validates header, section table and file size.
  bool open(const char *Path);
  const ImageHeader &header() const { return Hdr; }
  const SectionEntry *find(SectionType T) const;
  // Decompresses a memory section range by range into the sink's memory and
  // checks its checksum.
  bool readRanges(const SectionEntry &S, RangeSink Sink, void *Ctx,
                  RangeDone Done = nullptr);
  // Reads a whole blob section into Out (at most Cap bytes); checks it.
  bool readBlob(const SectionEntry &S, void *Out, uint64_t Cap);
  // Reads a whole blob section into *Buf (*Cap bytes, from __libc_malloc),
  // which grows (__libc_realloc) as the bytes arrive: the size the file
  // claims never sizes an allocation alone. Checks it.
  bool readBlobGrowing(const SectionEntry &S, void **Buf, uint64_t *Cap);
  // Reads every section into scratch memory and checks every checksum.
  bool verifyAll();
  const char *error() const { return Err; }
  // Blocks of CodecZstdPerBlock sections read so far, per tag (blockTag).
  uint64_t blocksTagged(uint8_t Tag) const { return TagCount[Tag]; }

private:
  bool fail(const char *Fmt, ...) __attribute__((format(printf, 2, 3)));
  bool readAt(uint64_t Off, void *Buf, size_t Len);
  bool stream(const SectionEntry &S, void *Dst, uint64_t Len);
  bool streamData(const SectionEntry &S, void *Dst, uint64_t Len);
  bool beginStream(const SectionEntry &S);

  int Fd = -1;
  ImageHeader Hdr{};
  uint64_t FileSize = 0;
  // Streaming state of the section being read.
  ZSTD_DCtx *ZD = nullptr;
  const SectionEntry *Sec = nullptr;
  uint64_t InOff = 0, InLeft = 0;
  unsigned char *InBuf = nullptr;
  size_t InCap = 0, InPos = 0, InLen = 0;
  unsigned char *ShufBuf = nullptr; // kShuffleBlock bytes
  uint64_t TagCount[256] = {0};
  char Err[512] = {0};
};

const char *sectionName(uint32_t Type);
// (In a static buffer for the record codecs.)
const char *codecName(uint32_t Codec);
// Byte transposition of the 8-byte elements of N bytes (a tail of N % 8
// bytes is copied as is), and its inverse.
void shuffle8(const unsigned char *In, unsigned char *Out, size_t N);
void unshuffle8(const unsigned char *In, unsigned char *Out, size_t N);
// The same after (before, for the inverse) replacing each element but the
// first by its difference from the one before it.
void diffShuffle8(const unsigned char *In, unsigned char *Out, size_t N);
void undiffUnshuffle8(const unsigned char *In, unsigned char *Out, size_t N);
// Byte transposition of the R-byte elements of N bytes (a tail of N % R
// bytes is copied as is), and its inverse.
void shuffleRecords(const unsigned char *In, unsigned char *Out, size_t N,
                    size_t R);
void unshuffleRecords(const unsigned char *In, unsigned char *Out, size_t N,
                      size_t R);
// The record size (16 to 128, a multiple of 8) at which bytes of these
// samples repeat most often, if they repeat at it 1.5 times as often as at
// 8 bytes (an array of structs of that size), else 0. Samples whose bytes
// mostly repeat at 8 (zeros) do not count.
size_t recordPeriod(const void *const *Samples, size_t Count, size_t Len);
// Per sample, the bytes it compresses to at zstd Level under each
// candidate: plain, shuffle8, and with AllTransforms differences then
// shuffle8 and the records' shuffle at recordPeriod (Samples: Count <= 16
// pointers to Len bytes each).
struct CodecTrials {
  static constexpr size_t kMaxSamples = 16, kMaxCandidates = 4;
  uint32_t Candidate[kMaxCandidates];
  size_t NCandidates = 0, NSamples = 0;
  size_t Bytes[kMaxSamples][kMaxCandidates];
  void measure(const void *const *Samples, size_t Count, size_t Len, int Level,
               bool AllTransforms);
  // The candidate smallest over the samples whose bit is set in Which, if
  // at least 5 % smaller than plain, else plain; plain for no samples.
  uint32_t best(uint32_t Which) const;
  // The same, but Than unless the best is at least 5 % smaller than Than
  // (a candidate) on those samples.
  uint32_t betterThan(uint32_t Than, uint32_t Which) const;
  uint32_t bestOfAll() const { return best((1u << NSamples) - 1); }
};
// CodecTrials' choice over all the samples.
uint32_t chooseCodec(const void *const *Samples, size_t Count, size_t Len,
                     int Level, bool AllTransforms);
// The transform of Codec (CodecZstd: a copy) of N bytes, and its inverse.
void transformBlock(uint32_t Codec, const unsigned char *In, unsigned char *Out,
                    size_t N);
void untransformBlock(uint32_t Codec, const unsigned char *In,
                      unsigned char *Out, size_t N);
uint64_t headerChecksum(const ImageHeader &H);

} // namespace ccc
#endif
