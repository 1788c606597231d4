//===- Image.cpp - Write and read ccc checkpoint images -------------------===//
#include "Image.h"
#include "rt/common/Hash.h"
#include "rt/common/LibcHeap.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

namespace ccc {

const char *sectionName(uint32_t Type) {
  switch (Type) {
  case SecContext:
    return "context";
  case SecGlobals:
    return "globals";
  case SecHeap:
    return "heap";
  case SecStack:
    return "stack";
  case SecLoadMap:
    return "loadmap";
  case SecRuntime:
    return "runtime";
  case SecParallel:
    return "mpi";
  case SecChunks:
    return "chunks";
  case SecMap:
    return "map";
  }
  return "unknown";
}

const char *codecName(uint32_t Codec) {
  switch (Codec) {
  case CodecRaw:
    return "raw";
  case CodecZstd:
    return "zstd";
  case CodecZstdShuffle8:
    return "zstd+shuffle8";
  case CodecZstdDiffShuffle8:
    return "zstd+diff8+shuffle8";
  case CodecZstdPerBlock:
    return "zstd+per-block";
  }
  if (validCodec(Codec)) {
    static char Name[32];
    snprintf(Name, sizeof(Name), "zstd+shuffle%u", codecRecord(Codec));
    return Name;
  }
  return "unknown";
}

void shuffle8(const unsigned char *In, unsigned char *Out, size_t N) {
  size_t M = N / 8;
  for (size_t I = 0; I < M; ++I) {
    uint64_t X;
    memcpy(&X, In + 8 * I, 8);
    for (int B = 0; B < 8; ++B)
      Out[B * M + I] = (unsigned char)(X >> (8 * B));
  }
  memcpy(Out + 8 * M, In + 8 * M, N - 8 * M);
}

void unshuffle8(const unsigned char *In, unsigned char *Out, size_t N) {
  size_t M = N / 8;
  for (size_t I = 0; I < M; ++I) {
    uint64_t X = 0;
    for (int B = 0; B < 8; ++B)
      X |= (uint64_t)In[B * M + I] << (8 * B);
    memcpy(Out + 8 * I, &X, 8);
  }
  memcpy(Out + 8 * M, In + 8 * M, N - 8 * M);
}

void diffShuffle8(const unsigned char *In, unsigned char *Out, size_t N) {
  size_t M = N / 8;
  uint64_t Prev = 0;
  for (size_t I = 0; I < M; ++I) {
    uint64_t X;
    memcpy(&X, In + 8 * I, 8);
    uint64_t D = X - Prev;
    Prev = X;
    for (int B = 0; B < 8; ++B)
      Out[B * M + I] = (unsigned char)(D >> (8 * B));
  }
  memcpy(Out + 8 * M, In + 8 * M, N - 8 * M);
}

void undiffUnshuffle8(const unsigned char *In, unsigned char *Out, size_t N) {
  size_t M = N / 8;
  uint64_t Prev = 0;
  for (size_t I = 0; I < M; ++I) {
    uint64_t D = 0;
    for (int B = 0; B < 8; ++B)
      D |= (uint64_t)In[B * M + I] << (8 * B);
    Prev += D;
    memcpy(Out + 8 * I, &Prev, 8);
  }
  memcpy(Out + 8 * M, In + 8 * M, N - 8 * M);
}

void shuffleRecords(const unsigned char *In, unsigned char *Out, size_t N,
                    size_t R) {
  size_t M = N / R;
  for (size_t I = 0; I < M; ++I)
    for (size_t B = 0; B < R; ++B)
      Out[B * M + I] = In[I * R + B];
  memcpy(Out + R * M, In + R * M, N - R * M);
}

void unshuffleRecords(const unsigned char *In, unsigned char *Out, size_t N,
                      size_t R) {
  size_t M = N / R;
  for (size_t I = 0; I < M; ++I)
    for (size_t B = 0; B < R; ++B)
      Out[I * R + B] = In[B * M + I];
  memcpy(Out + R * M, In + R * M, N - R * M);
}

size_t recordPeriod(const void *const *Samples, size_t Count, size_t Len) {
  constexpr size_t kMaxPeriod = 128;
  uint64_t Same[kMaxPeriod / 8 + 1] = {0};
  // Eight samples tell a period as well as sixteen. A sample whose bytes
  // mostly repeat at 8 (zeros, a constant) is alike at every period: it
  // would only hide the others' period.
  for (size_t S = 0; S < Count && S < 8; ++S) {
    auto *P = static_cast<const unsigned char *>(Samples[S]);
    uint64_t Here[kMaxPeriod / 8 + 1] = {0};
    for (size_t K = 1; K <= kMaxPeriod / 8; ++K)
      for (size_t I = 8 * K; I < Len; ++I)
        Here[K] += P[I] == P[I - 8 * K];
    if (Here[1] * 10 > Len * 9)
      continue;
    for (size_t K = 1; K <= kMaxPeriod / 8; ++K)
      Same[K] += Here[K];
  }
  size_t Best = 2;
  for (size_t K = 3; K <= kMaxPeriod / 8; ++K)
    if (Same[K] > Same[Best])
      Best = K;
  // The smallest period repeating about as often (64, not 128).
  for (size_t K = 2; K < Best; ++K)
    if (Same[K] * 10 >= Same[Best] * 9 && Best % K == 0) {
      Best = K;
      break;
    }
  return Same[Best] * 2 >= Same[1] * 3 && Same[Best] > 0 ? 8 * Best : 0;
}

void transformBlock(uint32_t Codec, const unsigned char *In, unsigned char *Out,
                    size_t N) {
  if (Codec == CodecZstdShuffle8)
    shuffle8(In, Out, N);
  else if (Codec == CodecZstdDiffShuffle8)
    diffShuffle8(In, Out, N);
  else if (codecKind(Codec) == CodecZstdShuffleRecord)
    shuffleRecords(In, Out, N, codecRecord(Codec));
  else
    memcpy(Out, In, N);
}

void untransformBlock(uint32_t Codec, const unsigned char *In,
                      unsigned char *Out, size_t N) {
  if (Codec == CodecZstdShuffle8)
    unshuffle8(In, Out, N);
  else if (Codec == CodecZstdDiffShuffle8)
    undiffUnshuffle8(In, Out, N);
  else if (codecKind(Codec) == CodecZstdShuffleRecord)
    unshuffleRecords(In, Out, N, codecRecord(Codec));
  else
    memcpy(Out, In, N);
}

void CodecTrials::measure(const void *const *Samples, size_t Count, size_t Len,
                          int Level, bool AllTransforms) {
  NSamples = NCandidates = 0;
  if (!Count || !Len)
    return;
  Candidate[NCandidates++] = CodecZstd;
  Candidate[NCandidates++] = CodecZstdShuffle8;
  if (AllTransforms) {
    Candidate[NCandidates++] = CodecZstdDiffShuffle8;
    if (size_t Period = recordPeriod(Samples, Count, Len))
      Candidate[NCandidates++] = shuffleRecordCodec(Period);
  }
  size_t Cap = ZSTD_compressBound(Len);
  auto *Buf = static_cast<unsigned char *>(__libc_malloc(Len));
  auto *Out = static_cast<unsigned char *>(__libc_malloc(Cap));
  ZSTD_CCtx *C = ZSTD_createCCtx();
  for (size_t I = 0; Buf && Out && C && I < Count && I < kMaxSamples; ++I) {
    auto *P = static_cast<const unsigned char *>(Samples[I]);
    for (size_t K = 0; K < NCandidates; ++K) {
      transformBlock(Candidate[K], P, Buf, Len);
      size_t R = ZSTD_compressCCtx(C, Out, Cap, Buf, Len, Level);
      Bytes[I][K] = ZSTD_isError(R) ? Len : R;
    }
    ++NSamples;
  }
  ZSTD_freeCCtx(C);
  __libc_free(Buf);
  __libc_free(Out);
}

uint32_t CodecTrials::best(uint32_t Which) const {
  size_t Sum[kMaxCandidates] = {0};
  for (size_t I = 0; I < NSamples; ++I)
    if (Which >> I & 1)
      for (size_t K = 0; K < NCandidates; ++K)
        Sum[K] += Bytes[I][K];
  size_t B = 0;
  for (size_t K = 1; K < NCandidates; ++K)
    if (Sum[K] < Sum[B])
      B = K;
  return B && Sum[B] * 20 < Sum[0] * 19 ? Candidate[B] : CodecZstd;
}

uint32_t CodecTrials::betterThan(uint32_t Than, uint32_t Which) const {
  uint32_t B = best(Which);
  size_t SumB = 0, SumThan = 0;
  for (size_t K = 0; K < NCandidates; ++K)
    for (size_t I = 0; I < NSamples; ++I)
      if (Which >> I & 1) {
        SumB += Candidate[K] == B ? Bytes[I][K] : 0;
        SumThan += Candidate[K] == Than ? Bytes[I][K] : 0;
      }
  return SumB * 20 < SumThan * 19 ? B : Than;
}

uint32_t chooseCodec(const void *const *Samples, size_t Count, size_t Len,
                     int Level, bool AllTransforms) {
  CodecTrials T;
  T.measure(Samples, Count, Len, Level, AllTransforms);
  return T.bestOfAll();
}

uint64_t headerChecksum(const ImageHeader &H) {
  return hashBytes(&H, offsetof(ImageHeader, HeaderChecksum), 0x63636321);
}

// Hash Len bytes as pieces of at most kHashBlock, continuing state H.
static uint64_t hashPieces(uint64_t H, const void *Data, uint64_t Len) {
  const unsigned char *P = static_cast<const unsigned char *>(Data);
  while (Len) {
    uint64_t N = Len < kHashBlock ? Len : kHashBlock;
    H = hashChain(H, hashBytes(P, N));
    P += N;
    Len -= N;
  }
  return H;
}

//===-- ImageWriter -------------------------------------------------------===//

ImageWriter::~ImageWriter() {
  if (Fd >= 0)
    close(Fd);
  if (ZC)
    ZSTD_freeCCtx(ZC);
  __libc_free(OutBuf);
  __libc_free(ShufBuf);
}

bool ImageWriter::fail(const char *What) {
  if (!Err[0])
    snprintf(Err, sizeof(Err), "%s: %s", What, strerror(errno));
  return false;
}

bool ImageWriter::open(const char *Path, int Lvl, int Thr) {
  Level = Lvl;
  Threads = Thr;
  Fd = ::open(Path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (Fd < 0)
    return fail("cannot create image");
  memcpy(Hdr.Magic, kImageMagic, 8);
  Hdr.FormatVersion = kImageFormatVersion;
  Hdr.HeaderSize = sizeof(ImageHeader);
  // The header is written last; reserve its space now.
  FileOff = sizeof(ImageHeader);
  if (lseek(Fd, FileOff, SEEK_SET) < 0)
    return fail("seek");
  OutCap = ZSTD_CStreamOutSize() * 16;
  OutBuf = static_cast<unsigned char *>(__libc_malloc(OutCap));
  if (!OutBuf)
    return fail("out of memory");
  return true;
}

bool ImageWriter::writeOut(const void *Data, size_t Len) {
  const char *P = static_cast<const char *>(Data);
  while (Len) {
    ssize_t N = write(Fd, P, Len);
    if (N < 0) {
      if (errno == EINTR)
        continue;
      return fail("write");
    }
    if (N == 0) {
      errno = ENOSPC;
      return fail("write");
    }
    P += N;
    Len -= N;
    FileOff += N;
  }
  return true;
}

bool ImageWriter::beginSection(SectionType Type, bool Compress,
                               uint32_t Codec) {
  if (Hdr.SectionCount >= kMaxSections) {
    snprintf(Err, sizeof(Err), "too many sections");
    return false;
  }
  Cur = &Hdr.Sections[Hdr.SectionCount++];
  Cur->Type = Type;
  Cur->Codec = Compress && Level > 0 && validCodec(Codec) ? Codec : CodecRaw;
  Cur->Offset = FileOff;
  HashState = 0x5ec710 + Type;
  if (transforms(Cur->Codec) && !ShufBuf &&
      !(ShufBuf = static_cast<unsigned char *>(__libc_malloc(kShuffleBlock)))) {
    errno = ENOMEM;
    return fail("shuffle buffer");
  }
  if (Cur->Codec != CodecRaw) {
    if (!ZC) {
      ZC = ZSTD_createCCtx();
      if (!ZC) {
        errno = ENOMEM;
        return fail("zstd");
      }
    }
    ZSTD_CCtx_reset(ZC, ZSTD_reset_session_only);
    ZSTD_CCtx_setParameter(ZC, ZSTD_c_compressionLevel, Level);
    // Worker threads need libzstd built with threads; ignore if refused.
    if (Threads > 0)
      ZSTD_CCtx_setParameter(ZC, ZSTD_c_nbWorkers, Threads);
  }
  return true;
}

bool ImageWriter::flushZstd(bool End) {
  ZSTD_inBuffer In = {nullptr, 0, 0};
  for (;;) {
    ZSTD_outBuffer Out = {OutBuf, OutCap, 0};
    size_t R =
        ZSTD_compressStream2(ZC, &Out, &In, End ? ZSTD_e_end : ZSTD_e_flush);
    if (ZSTD_isError(R)) {
      snprintf(Err, sizeof(Err), "zstd: %s", ZSTD_getErrorName(R));
      return false;
    }
    if (Out.pos && !writeOut(OutBuf, Out.pos))
      return false;
    if (R == 0)
      return true;
  }
}

bool ImageWriter::put(const void *Data, uint64_t Len, bool Hash) {
  if (Hash)
    HashState = hashPieces(HashState, Data, Len);
  Cur->RawSize += Len;
  if (Cur->Codec == CodecRaw)
    return writeOut(Data, Len);
  ZSTD_inBuffer In = {Data, Len, 0};
  while (In.pos < In.size) {
    ZSTD_outBuffer Out = {OutBuf, OutCap, 0};
    size_t R = ZSTD_compressStream2(ZC, &Out, &In, ZSTD_e_continue);
    if (ZSTD_isError(R)) {
      snprintf(Err, sizeof(Err), "zstd: %s", ZSTD_getErrorName(R));
      return false;
    }
    if (Out.pos && !writeOut(OutBuf, Out.pos))
      return false;
  }
  return true;
}

bool ImageWriter::addRange(uint64_t Addr, const void *Data, uint64_t Len,
                           const uint64_t *Hash) {
  RangeHeader RH = {Addr, Len};
  if (!put(&RH, sizeof(RH), true))
    return false;
  // A known hash of a range of one hash block is that block's piece.
  if (Hash && Len && Len <= kHashBlock)
    HashState = hashChain(HashState, *Hash);
  else
    HashState = hashPieces(HashState, Data, Len);
  if (!transforms(Cur->Codec))
    return put(Data, Len, false);
  const unsigned char *P = static_cast<const unsigned char *>(Data);
  for (uint64_t Off = 0; Off < Len; Off += kShuffleBlock) {
    uint64_t N = Len - Off < kShuffleBlock ? Len - Off : kShuffleBlock;
    uint32_t C = Cur->Codec;
    if (C == CodecZstdPerBlock) {
      C = DefaultCodec;
      for (size_t I = 0; I < NRegions; ++I)
        if (Addr + Off >= Regions[I].Lo && Addr + Off < Regions[I].Hi) {
          C = Regions[I].Codec;
          break;
        }
      uint8_t Tag = blockTag(C);
      if (!put(&Tag, 1, false))
        return false;
    }
    if (C == CodecZstd) {
      if (!put(P + Off, N, false))
        return false;
      continue;
    }
    transformBlock(C, P + Off, ShufBuf, N);
    if (!put(ShufBuf, N, false))
      return false;
  }
  return true;
}

bool ImageWriter::addBytes(const void *Data, uint64_t Len) {
  return put(Data, Len, true);
}

bool ImageWriter::endSection() {
  if (Cur->Codec != CodecRaw && !flushZstd(true))
    return false;
  Cur->StoredSize = FileOff - Cur->Offset;
  Cur->Checksum = HashState;
  Cur = nullptr;
  return true;
}

bool ImageWriter::finish() {
  Hdr.FileSize = FileOff;
  Hdr.HeaderChecksum = headerChecksum(Hdr);
  if (pwrite(Fd, &Hdr, sizeof(Hdr), 0) != (ssize_t)sizeof(Hdr)) {
    if (errno == 0)
      errno = ENOSPC;
    return fail("write header");
  }
  if (fsync(Fd) != 0)
    return fail("fsync");
  int F = Fd;
  Fd = -1;
  if (close(F) != 0)
    return fail("close");
  return true;
}

//===-- ImageReader -------------------------------------------------------===//

ImageReader::~ImageReader() {
  if (Fd >= 0)
    close(Fd);
  if (ZD)
    ZSTD_freeDCtx(ZD);
  __libc_free(InBuf);
  __libc_free(ShufBuf);
}

bool ImageReader::fail(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  vsnprintf(Err, sizeof(Err), Fmt, Ap);
  va_end(Ap);
  return false;
}

bool ImageReader::readAt(uint64_t Off, void *Buf, size_t Len) {
  char *P = static_cast<char *>(Buf);
  while (Len) {
    ssize_t N = pread(Fd, P, Len, Off);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return fail("read error: %s", strerror(errno));
    if (N == 0)
      return fail("truncated (unexpected end of file)");
    P += N;
    Off += N;
    Len -= N;
  }
  return true;
}

bool ImageReader::open(const char *Path) {
  Fd = ::open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return fail("cannot open: %s", strerror(errno));
  struct stat St;
  if (fstat(Fd, &St) != 0)
    return fail("cannot stat: %s", strerror(errno));
  FileSize = St.st_size;
  if (FileSize < sizeof(ImageHeader))
    return fail("truncated (%llu bytes, smaller than a header)",
                (unsigned long long)FileSize);
  if (!readAt(0, &Hdr, sizeof(Hdr)))
    return false;
  if (memcmp(Hdr.Magic, kImageMagic, 8) != 0)
    return fail("not a ccc image (bad magic)");
  if (Hdr.FormatVersion < kOldestReadableFormat ||
      Hdr.FormatVersion > kImageFormatVersion)
    // (Version 1 images have no chunk table; the header layout changed.)
    return fail("image format version %u, this ccc reads versions %u to %u",
                Hdr.FormatVersion, kOldestReadableFormat, kImageFormatVersion);
  if (Hdr.HeaderSize != sizeof(ImageHeader) ||
      Hdr.HeaderChecksum != headerChecksum(Hdr))
    return fail("corrupt header (checksum mismatch)");
  if (Hdr.FileSize != FileSize)
    return fail("truncated or extended: %llu bytes on disk, %llu written",
                (unsigned long long)FileSize, (unsigned long long)Hdr.FileSize);
  if (Hdr.SectionCount > kMaxSections)
    return fail("corrupt header (section count)");
  // Compared over BuildIdLen bytes (readReferencedChunks).
  if (Hdr.BuildIdLen > sizeof(Hdr.BuildId))
    return fail("corrupt header (build id length %u)", Hdr.BuildIdLen);
  for (uint32_t I = 0; I < Hdr.SectionCount; ++I) {
    const SectionEntry &S = Hdr.Sections[I];
    if (S.Offset < sizeof(ImageHeader) || S.Offset > FileSize ||
        S.StoredSize > FileSize - S.Offset || !validCodec(S.Codec))
      return fail("corrupt section table (section %u)", I);
  }
  return true;
}

const SectionEntry *ImageReader::find(SectionType T) const {
  for (uint32_t I = 0; I < Hdr.SectionCount; ++I)
    if (Hdr.Sections[I].Type == T)
      return &Hdr.Sections[I];
  return nullptr;
}

bool ImageReader::beginStream(const SectionEntry &S) {
  Sec = &S;
  InOff = S.Offset;
  InLeft = S.StoredSize;
  InPos = InLen = 0;
  if (!InBuf) {
    InCap = ZSTD_DStreamInSize() * 16;
    InBuf = static_cast<unsigned char *>(__libc_malloc(InCap));
    if (!InBuf)
      return fail("out of memory");
  }
  if (transforms(S.Codec) && !ShufBuf &&
      !(ShufBuf = static_cast<unsigned char *>(__libc_malloc(kShuffleBlock))))
    return fail("out of memory");
  if (S.Codec != CodecRaw) {
    if (!ZD && !(ZD = ZSTD_createDCtx()))
      return fail("out of memory");
    ZSTD_DCtx_reset(ZD, ZSTD_reset_session_only);
  }
  return true;
}

// Produces exactly Len raw bytes of the current section at Dst.
bool ImageReader::stream(const SectionEntry &S, void *Dst, uint64_t Len) {
  if (S.Codec == CodecRaw) {
    if (Len > InLeft)
      return fail("%s section: data ends early", sectionName(S.Type));
    if (!readAt(InOff, Dst, Len))
      return false;
    InOff += Len;
    InLeft -= Len;
    return true;
  }
  ZSTD_outBuffer Out = {Dst, Len, 0};
  while (Out.pos < Out.size) {
    if (InPos == InLen) {
      if (InLeft == 0)
        return fail("%s section: compressed data ends early",
                    sectionName(S.Type));
      size_t N = InLeft < InCap ? InLeft : InCap;
      if (!readAt(InOff, InBuf, N))
        return false;
      InOff += N;
      InLeft -= N;
      InPos = 0;
      InLen = N;
    }
    ZSTD_inBuffer In = {InBuf, InLen, InPos};
    size_t R = ZSTD_decompressStream(ZD, &Out, &In);
    InPos = In.pos;
    if (ZSTD_isError(R))
      return fail("%s section: corrupt compressed data (%s)",
                  sectionName(S.Type), ZSTD_getErrorName(R));
  }
  return true;
}

// Range data: unshuffled (and summed under CodecZstdDiffShuffle8) block by
// block, from the range's start or from a multiple of kShuffleBlock into it.
bool ImageReader::streamData(const SectionEntry &S, void *Dst, uint64_t Len) {
  if (!transforms(S.Codec))
    return stream(S, Dst, Len);
  unsigned char *D = static_cast<unsigned char *>(Dst);
  for (uint64_t Off = 0; Off < Len; Off += kShuffleBlock) {
    uint64_t N = Len - Off < kShuffleBlock ? Len - Off : kShuffleBlock;
    uint32_t C = S.Codec;
    if (C == CodecZstdPerBlock) {
      uint8_t Tag;
      if (!stream(S, &Tag, 1))
        return false;
      if (!(C = tagCodec(Tag)))
        return fail("%s section: corrupt block codec tag %u",
                    sectionName(S.Type), Tag);
      ++TagCount[Tag];
    }
    if (C == CodecZstd) {
      if (!stream(S, D + Off, N))
        return false;
      continue;
    }
    if (!stream(S, ShufBuf, N))
      return false;
    untransformBlock(C, ShufBuf, D + Off, N);
  }
  return true;
}

bool ImageReader::readRanges(const SectionEntry &S, RangeSink Sink, void *Ctx,
                             RangeDone Done) {
  if (!beginStream(S))
    return false;
  uint64_t H = 0x5ec710 + S.Type, Raw = 0;
  unsigned char *Scratch = nullptr;
  bool Ok = true;
  while (Raw < S.RawSize) {
    RangeHeader RH;
    if (S.RawSize - Raw < sizeof(RH)) {
      Ok = fail("%s section: corrupt range list", sectionName(S.Type));
      break;
    }
    if (!(Ok = stream(S, &RH, sizeof(RH))))
      break;
    H = hashPieces(H, &RH, sizeof(RH));
    Raw += sizeof(RH);
    if (RH.Len > S.RawSize - Raw) {
      Ok = fail("%s section: corrupt range length", sectionName(S.Type));
      break;
    }
    void *Dst = Sink ? Sink(RH.Addr, RH.Len, Ctx) : nullptr;
    if (Dst) {
      if (!(Ok = streamData(S, Dst, RH.Len)))
        break;
      if (RH.Len && RH.Len <= kHashBlock) {
        uint64_t PH = hashBytes(Dst, RH.Len);
        H = hashChain(H, PH);
        if (Done)
          Done(RH.Addr, RH.Len, Dst, PH, Ctx);
      } else {
        H = hashPieces(H, Dst, RH.Len);
        if (Done)
          Done(RH.Addr, RH.Len, Dst, hashBytes(Dst, RH.Len), Ctx);
      }
    } else {
      if (!Scratch && !(Scratch = static_cast<unsigned char *>(
                            __libc_malloc(kHashBlock)))) {
        Ok = fail("out of memory");
        break;
      }
      for (uint64_t Done = 0; Ok && Done < RH.Len;) {
        uint64_t N = RH.Len - Done < kHashBlock ? RH.Len - Done : kHashBlock;
        if ((Ok = streamData(S, Scratch, N)))
          H = hashChain(H, hashBytes(Scratch, N));
        Done += N;
      }
      if (!Ok)
        break;
    }
    Raw += RH.Len;
    if (S.Codec == CodecZstdPerBlock) // a tag byte per block
      Raw += (RH.Len + kShuffleBlock - 1) / kShuffleBlock;
  }
  __libc_free(Scratch);
  if (Ok && H != S.Checksum)
    Ok = fail("%s section: checksum mismatch (image is corrupt)",
              sectionName(S.Type));
  return Ok;
}

bool ImageReader::readBlob(const SectionEntry &S, void *Out, uint64_t Cap) {
  if (S.RawSize > Cap)
    return fail("%s section: %llu bytes, expected at most %llu",
                sectionName(S.Type), (unsigned long long)S.RawSize,
                (unsigned long long)Cap);
  if (!beginStream(S) || !stream(S, Out, S.RawSize))
    return false;
  if (hashPieces(0x5ec710 + S.Type, Out, S.RawSize) != S.Checksum)
    return fail("%s section: checksum mismatch (image is corrupt)",
                sectionName(S.Type));
  return true;
}

bool ImageReader::readBlobGrowing(const SectionEntry &S, void **Buf,
                                  uint64_t *Cap) {
  if (!beginStream(S))
    return false;
  uint64_t H = 0x5ec710 + S.Type;
  for (uint64_t Done = 0, N; Done < S.RawSize; Done += N) {
    N = S.RawSize - Done < kHashBlock ? S.RawSize - Done : kHashBlock;
    if (Done + N > *Cap) {
      // Doubling: a corrupt size costs at most twice the bytes really
      // there before the stream runs dry.
      uint64_t Want = *Cap * 2 > Done + N ? *Cap * 2 : Done + N;
      if (Want > S.RawSize)
        Want = S.RawSize;
      void *P = __libc_realloc(*Buf, Want);
      if (!P)
        return fail("%s section: out of memory for %llu bytes",
                    sectionName(S.Type), (unsigned long long)Want);
      *Buf = P;
      *Cap = Want;
    }
    unsigned char *Dst = static_cast<unsigned char *>(*Buf) + Done;
    if (!stream(S, Dst, N))
      return false;
    H = hashChain(H, hashBytes(Dst, N));
  }
  if (H != S.Checksum)
    return fail("%s section: checksum mismatch (image is corrupt)",
                sectionName(S.Type));
  return true;
}

bool ImageReader::verifyAll() {
  for (uint32_t I = 0; I < Hdr.SectionCount; ++I) {
    const SectionEntry &S = Hdr.Sections[I];
    bool Memory =
        S.Type == SecGlobals || S.Type == SecHeap || S.Type == SecStack;
    if (Memory) {
      if (!readRanges(S, nullptr, nullptr))
        return false;
      continue;
    }
    // Read in pieces: RawSize comes from the file, a corrupt one must not
    // size an allocation. The same hash as readBlob's (hashPieces).
    uint64_t N = S.RawSize < kHashBlock ? S.RawSize : kHashBlock;
    auto *Buf = static_cast<unsigned char *>(__libc_malloc(N ? N : 1));
    if (!Buf)
      return fail("out of memory");
    bool Ok = beginStream(S);
    uint64_t H = 0x5ec710 + S.Type;
    for (uint64_t Done = 0; Ok && Done < S.RawSize; Done += N) {
      N = S.RawSize - Done < kHashBlock ? S.RawSize - Done : kHashBlock;
      if ((Ok = stream(S, Buf, N)))
        H = hashChain(H, hashBytes(Buf, N));
    }
    __libc_free(Buf);
    if (!Ok)
      return false;
    if (H != S.Checksum)
      return fail("%s section: checksum mismatch (image is corrupt)",
                  sectionName(S.Type));
  }
  return true;
}

} // namespace ccc
