//===- ImageModel.h - Images as the structure-aware mutator sees them -*- C++//
//
// A fuzz input is one image or several concatenated (the newest first, then
// the older images it refers to), each cut at its header's FileSize. The
// mutator decodes an image into its header and its sections' raw streams
// (decompressed, still transformed: what the codec's checksum walk reads),
// changes fields or bytes, and encodes it again: payloads laid out after
// the header, zstd where the codec says so, sizes, section checksums, file
// size and header checksum recomputed, so that the mutated image gets past
// the reader's checks to the code behind them (unless the mutation itself
// spoils one of them, which it also does now and then).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_FUZZ_IMAGEMODEL_H
#define CCC_FUZZ_IMAGEMODEL_H

#include "rt/image/ImageFormat.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fuzz {
using Bytes = std::vector<uint8_t>;

// Splits an input into images (at most Max): a piece that starts with a
// header whose FileSize fits is cut there, anything else is the last piece.
std::vector<Bytes> splitImages(const uint8_t *Data, size_t Size,
                               size_t Max = 4);

struct Section {
  ccc::SectionEntry E;
  Bytes Raw;           // the decoded stream (if Decoded) or the stored bytes
  bool Decoded = true; // false: stored bytes kept as they are
};

struct Image {
  ccc::ImageHeader H;
  std::vector<Section> S;
  bool decode(const Bytes &In);
  // Options of encode(): which of the checks to leave wrong.
  struct Spoil {
    int SectionChecksum = -1; // this section's checksum is left as it was
    int SectionSizes = -1;    // this section's RawSize is off by one
    bool FileSize = false, HeaderChecksum = false, SectionCount = false;
  };
  Bytes encode(const Spoil &Sp) const;
};

// The checksum the reader computes over a section's decoded stream.
uint64_t sectionChecksum(uint32_t Type, uint32_t Codec, const Bytes &Raw);
} // namespace fuzz
#endif
