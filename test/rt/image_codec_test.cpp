//===- image_codec_test.cpp - Unit test of the memory section codecs ------===//
//
// Writes a heap section under each codec (zstd alone, after the shuffle of
// 8-byte elements, after differences then that shuffle, after the shuffle
// of 24- and 64-byte records) with ranges whose lengths are not multiples
// of 8, of the record or of the transform block, and under the per-block
// codec with regions of other codecs (one covering part of a range), reads
// it back and compares the bytes; checks that the codec is recorded, that
// an invalid record size is refused, that a corrupt block tag is refused
// by name, that version 2 images (before codecs 3 to 5) are still read and
// that a newer version is refused with its number.
//
//===----------------------------------------------------------------------===//
#include "rt/image/Image.h"
#include "unit_check.h"

#include <zstd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

using namespace ccc;

// Lengths around the 8-byte element and the 64 KiB block.
static const uint64_t Lens[] = {1, 7, 8, 13, 65536, 65536 + 12, 3 * 65536 + 5};

struct Range {
  uint64_t Addr;
  std::vector<unsigned char> Bytes, Back;
};

static void *sink(uint64_t Addr, uint64_t Len, void *Ctx) {
  for (Range &R : *static_cast<std::vector<Range> *>(Ctx))
    if (R.Addr == Addr && R.Bytes.size() == Len) {
      R.Back.assign(Len, 0);
      return R.Back.data();
    }
  return nullptr;
}

static bool writeImage(const char *Path, uint32_t Codec,
                       std::vector<Range> &Ranges,
                       const std::vector<CodecRegion> &Regions = {},
                       uint32_t Default = CodecZstd) {
  ImageWriter W;
  W.setBlockCodecs(Regions.data(), Regions.size(), Default);
  if (!W.open(Path, 3, 0) || !W.beginSection(SecHeap, true, Codec))
    return false;
  for (Range &R : Ranges)
    if (!W.addRange(R.Addr, R.Bytes.data(), R.Bytes.size()))
      return false;
  return W.endSection() && W.finish();
}

// Rewrites the heap section of the image at Path (its only section) with
// the tag of the first block of its first range set to Tag: the bytes a
// corrupt image could hold, behind a valid frame and header.
static void setFirstBlockTag(const char *Path, uint8_t Tag) {
  FILE *F = fopen(Path, "rb");
  CHECK(F && fseek(F, 0, SEEK_END) == 0);
  std::vector<unsigned char> File(ftell(F));
  rewind(F);
  CHECK(fread(File.data(), 1, File.size(), F) == File.size());
  fclose(F);
  ImageHeader H;
  memcpy(&H, File.data(), sizeof(H));
  SectionEntry &S = H.Sections[0];
  CHECK(H.SectionCount == 1 && S.Codec == CodecZstdPerBlock &&
        S.Offset + S.StoredSize == File.size());
  std::vector<unsigned char> Raw(S.RawSize);
  size_t N = ZSTD_decompress(Raw.data(), Raw.size(), File.data() + S.Offset,
                             S.StoredSize);
  CHECK(N == Raw.size());
  Raw[sizeof(RangeHeader)] = Tag;
  std::vector<unsigned char> Z(ZSTD_compressBound(Raw.size()));
  size_t ZN = ZSTD_compress(Z.data(), Z.size(), Raw.data(), Raw.size(), 3);
  CHECK(!ZSTD_isError(ZN));
  File.resize(S.Offset);
  File.insert(File.end(), Z.begin(), Z.begin() + ZN);
  S.StoredSize = ZN;
  H.FileSize = File.size();
  H.HeaderChecksum = headerChecksum(H);
  memcpy(File.data(), &H, sizeof(H));
  F = fopen(Path, "wb");
  CHECK(F && fwrite(File.data(), 1, File.size(), F) == File.size());
  fclose(F);
}

// Sets the header's format version (and its checksum) in place.
static void setVersion(const char *Path, uint32_t V) {
  FILE *F = fopen(Path, "r+b");
  ImageHeader H;
  CHECK(F && fread(&H, sizeof(H), 1, F) == 1);
  H.FormatVersion = V;
  H.HeaderChecksum = headerChecksum(H);
  CHECK(fseek(F, 0, SEEK_SET) == 0 && fwrite(&H, sizeof(H), 1, F) == 1);
  fclose(F);
}

int main() {
  char Path[] = "/tmp/ccc-image-codec-XXXXXX";
  int Fd = mkstemp(Path);
  CHECK(Fd >= 0);
  close(Fd);
  std::vector<Range> Ranges;
  uint64_t Addr = 0x200000000000ull, I = 0;
  for (uint64_t L : Lens) {
    Range R;
    R.Addr = Addr;
    for (uint64_t K = 0; K < L; ++K, ++I) {
      // A smooth field's bytes (doubles of sin), as the codecs meet them.
      double D = std::sin(1e-3 * (double)(I / 8));
      unsigned char B[8];
      memcpy(B, &D, 8);
      R.Bytes.push_back(B[I % 8]);
    }
    Ranges.push_back(R);
    Addr += L + 4096;
  }
  const uint32_t Codecs[] = {CodecZstd, CodecZstdShuffle8,
                             CodecZstdDiffShuffle8, shuffleRecordCodec(24),
                             shuffleRecordCodec(64)};
  for (uint32_t C : Codecs) {
    CHECK(writeImage(Path, C, Ranges));
    ImageReader Rd;
    CHECK(Rd.open(Path));
    const SectionEntry *S = Rd.find(SecHeap);
    CHECK(S && S->Codec == C);
    for (Range &R : Ranges)
      R.Back.clear();
    CHECK(S && Rd.readRanges(*S, sink, &Ranges));
    for (Range &R : Ranges)
      CHECK(R.Back == R.Bytes);
  }
  // Per block: the 64 KiB range under differences+shuffle, the first block
  // of the 3-block range as 24-byte records and its other two (and every
  // other range) under the default, shuffle8.
  std::vector<CodecRegion> Regions = {
      {Ranges[4].Addr, Ranges[4].Addr + 65536, CodecZstdDiffShuffle8},
      {Ranges[6].Addr, Ranges[6].Addr + 100, shuffleRecordCodec(24)}};
  CHECK(
      writeImage(Path, CodecZstdPerBlock, Ranges, Regions, CodecZstdShuffle8));
  {
    ImageReader Rd;
    CHECK(Rd.open(Path));
    const SectionEntry *S = Rd.find(SecHeap);
    CHECK(S && S->Codec == CodecZstdPerBlock);
    for (Range &R : Ranges)
      R.Back.clear();
    CHECK(S && Rd.readRanges(*S, sink, &Ranges));
    for (Range &R : Ranges)
      CHECK(R.Back == R.Bytes);
    // A tag byte per block on top of the range headers and data.
    uint64_t Raw = 0;
    for (Range &R : Ranges)
      Raw += 16 + R.Bytes.size() + (R.Bytes.size() + 65535) / 65536;
    CHECK(S && S->RawSize == Raw);
  }
  // A block tag naming no codec (3..15) is refused by name; rewritten to a
  // valid one (1, shuffle8, which the range of 1 byte does not change), the
  // same image reads back.
  for (uint8_t Tag : {uint8_t(7), uint8_t(1)}) {
    CHECK(writeImage(Path, CodecZstdPerBlock, Ranges, Regions,
                     CodecZstdShuffle8));
    setFirstBlockTag(Path, Tag);
    ImageReader Rd;
    CHECK(Rd.open(Path));
    const SectionEntry *S = Rd.find(SecHeap);
    bool Read = S && Rd.readRanges(*S, sink, &Ranges);
    CHECK(Read == (Tag == 1));
    if (Tag == 7)
      CHECK(strstr(Rd.error(), "heap section: corrupt block codec tag 7"));
  }
  for (uint32_t C : Codecs)
    CHECK(tagCodec(blockTag(C)) == C);
  CHECK(tagCodec(3) == 0 && tagCodec(15) == 0);
  CHECK(strcmp(codecName(shuffleRecordCodec(64)), "zstd+shuffle64") == 0);
  // Records of fewer than 16 bytes are no codec of the format.
  CHECK(!validCodec(shuffleRecordCodec(8)) && !validCodec(6));

  // The same image as format version 2 is read; a newer one is refused.
  setVersion(Path, 2);
  {
    ImageReader Rd;
    CHECK(Rd.open(Path));
  }
  setVersion(Path, kImageFormatVersion + 1);
  {
    ImageReader Rd;
    CHECK(!Rd.open(Path));
    char Want[64];
    snprintf(Want, sizeof(Want), "image format version %u",
             kImageFormatVersion + 1);
    CHECK(strstr(Rd.error(), Want) != nullptr);
  }
  unlink(Path);
  if (Failures)
    fprintf(stderr, "%d failure(s)\n", Failures);
  else
    printf("ok: codecs round-trip, versions 2 to %u read, newer refused\n",
           kImageFormatVersion);
  return Failures ? 1 : 0;
}
