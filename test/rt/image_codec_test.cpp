//===- image_codec_test.cpp - Unit test of the memory section codecs ------===//
//
// Writes a heap section under each transform (none, shuffle, differences
// then shuffle) with ranges whose lengths are not multiples of 8 or of the
// transform block, reads it back and compares the bytes; checks that the
// codec is recorded, that version 2 images (before codec 3) are still read
// and that a newer version is refused with its number.
//
//===----------------------------------------------------------------------===//
#include "Image.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

using namespace ccc;

static int Failures;
#define CHECK(C)                                                               \
  do {                                                                         \
    if (!(C)) {                                                                \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #C);             \
      ++Failures;                                                              \
    }                                                                          \
  } while (0)

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

static bool writeImage(const char *Path, Transform T,
                       std::vector<Range> &Ranges) {
  ImageWriter W;
  if (!W.open(Path, 3, 0) || !W.beginSection(SecHeap, true, T))
    return false;
  for (Range &R : Ranges)
    if (!W.addRange(R.Addr, R.Bytes.data(), R.Bytes.size()))
      return false;
  return W.endSection() && W.finish();
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
  const struct {
    Transform T;
    uint32_t Codec;
  } Cases[] = {{Transform::None, CodecZstd},
               {Transform::Shuffle8, CodecZstdShuffle8},
               {Transform::DiffShuffle8, CodecZstdDiffShuffle8}};
  for (const auto &C : Cases) {
    CHECK(writeImage(Path, C.T, Ranges));
    ImageReader Rd;
    CHECK(Rd.open(Path));
    const SectionEntry *S = Rd.find(SecHeap);
    CHECK(S && S->Codec == C.Codec);
    CHECK(S && Rd.readRanges(*S, sink, &Ranges));
    for (Range &R : Ranges)
      CHECK(R.Back == R.Bytes);
  }

  // The same image as format version 2 is read; version 4 is refused.
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
    printf("ok: codecs round-trip, versions 2 and 3 read, newer refused\n");
  return Failures ? 1 : 0;
}
