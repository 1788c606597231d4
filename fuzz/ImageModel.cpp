//===- ImageModel.cpp - Images as the structure-aware mutator sees them ---===//
#include "ImageModel.h"

#include "rt/common/Hash.h"
#include "rt/image/Image.h"

#include <cstring>
#include <zstd.h>

using namespace ccc;

namespace fuzz {

// Decoded streams larger than this are kept as stored bytes.
constexpr size_t kMaxDecoded = 8 << 20;

std::vector<Bytes> splitImages(const uint8_t *Data, size_t Size, size_t Max) {
  std::vector<Bytes> Out;
  size_t Off = 0;
  while (Off < Size && Out.size() < Max) {
    size_t Len = Size - Off;
    ImageHeader H;
    if (Len >= sizeof(H) && Out.size() + 1 < Max) {
      memcpy(&H, Data + Off, sizeof(H));
      if (!memcmp(H.Magic, kImageMagic, 8) && H.FileSize >= sizeof(H) &&
          H.FileSize <= Len)
        Len = H.FileSize;
    }
    Out.emplace_back(Data + Off, Data + Off + Len);
    Off += Len;
  }
  return Out;
}

static uint64_t hashPieces(uint64_t H, const uint8_t *P, uint64_t Len) {
  while (Len) {
    uint64_t N = Len < kHashBlock ? Len : kHashBlock;
    H = hashChain(H, hashBytes(P, N));
    P += N;
    Len -= N;
  }
  return H;
}

uint64_t sectionChecksum(uint32_t Type, uint32_t Codec, const Bytes &Raw) {
  uint64_t H = 0x5ec710 + Type;
  if (Type != SecGlobals && Type != SecHeap && Type != SecStack)
    return hashPieces(H, Raw.data(), Raw.size());
  if (!validCodec(Codec))
    return H; // the reader refuses the image before (no record size: R 0)
  // As ImageReader::readRanges: range headers, then each range's data
  // decoded from its blocks (a tag byte before each under per-block).
  size_t Pos = 0, Size = Raw.size();
  Bytes Plain;
  while (Size - Pos >= sizeof(RangeHeader)) {
    RangeHeader RH;
    memcpy(&RH, &Raw[Pos], sizeof(RH));
    H = hashPieces(H, &Raw[Pos], sizeof(RH));
    Pos += sizeof(RH);
    if (RH.Len > Size - Pos)
      break; // the reader stops here
    if (!transforms(Codec)) {
      H = hashPieces(H, &Raw[Pos], RH.Len);
      Pos += RH.Len;
      continue;
    }
    Plain.resize(RH.Len);
    for (uint64_t Off = 0; Off < RH.Len; Off += kShuffleBlock) {
      uint64_t N = RH.Len - Off < kShuffleBlock ? RH.Len - Off : kShuffleBlock;
      uint32_t C = Codec;
      if (C == CodecZstdPerBlock) {
        if (Pos >= Size || !(C = tagCodec(Raw[Pos])))
          return H;
        ++Pos;
      }
      if (N > Size - Pos)
        return H;
      if (C == CodecZstd)
        memcpy(&Plain[Off], &Raw[Pos], N);
      else
        untransformBlock(C, &Raw[Pos], &Plain[Off], N);
      Pos += N;
    }
    H = hashPieces(H, Plain.data(), Plain.size());
  }
  return H;
}

bool Image::decode(const Bytes &In) {
  if (In.size() < sizeof(H))
    return false;
  memcpy(&H, In.data(), sizeof(H));
  if (memcmp(H.Magic, kImageMagic, 8) || H.SectionCount > kMaxSections)
    return false;
  S.clear();
  for (uint32_t I = 0; I < H.SectionCount; ++I) {
    const SectionEntry &E = H.Sections[I];
    if (E.Offset > In.size() || E.StoredSize > In.size() - E.Offset)
      return false;
    Section X;
    X.E = E;
    const uint8_t *P = In.data() + E.Offset;
    X.Raw.assign(P, P + E.StoredSize);
    if (E.Codec != CodecRaw) {
      unsigned long long R = ZSTD_getFrameContentSize(P, E.StoredSize);
      if (R <= kMaxDecoded) {
        Bytes Out(R);
        size_t N = ZSTD_decompress(Out.data(), R, P, E.StoredSize);
        if (!ZSTD_isError(N) && N == R)
          X.Raw.swap(Out);
        else
          X.Decoded = false;
      } else {
        X.Decoded = false;
      }
    }
    S.push_back(std::move(X));
  }
  return true;
}

Bytes Image::encode(const Spoil &Sp) const {
  ImageHeader Out = H;
  Bytes File(sizeof(ImageHeader));
  uint32_t N = S.size() < kMaxSections ? uint32_t(S.size()) : kMaxSections;
  memset(Out.Sections, 0, sizeof(Out.Sections));
  for (uint32_t I = 0; I < N; ++I) {
    const Section &X = S[I];
    SectionEntry E = X.E;
    E.Offset = File.size();
    if (!X.Decoded || X.E.Codec == CodecRaw) {
      File.insert(File.end(), X.Raw.begin(), X.Raw.end());
    } else {
      Bytes Z(ZSTD_compressBound(X.Raw.size()));
      size_t ZN =
          ZSTD_compress(Z.data(), Z.size(), X.Raw.data(), X.Raw.size(), 1);
      if (ZSTD_isError(ZN))
        ZN = 0;
      File.insert(File.end(), Z.begin(), Z.begin() + ZN);
    }
    E.StoredSize = File.size() - E.Offset;
    if (X.Decoded) {
      E.RawSize = X.Raw.size() + (int(I) == Sp.SectionSizes);
      if (int(I) != Sp.SectionChecksum)
        E.Checksum = sectionChecksum(E.Type, E.Codec, X.Raw);
    }
    Out.Sections[I] = E;
  }
  if (!Sp.SectionCount)
    Out.SectionCount = N;
  if (!Sp.FileSize)
    Out.FileSize = File.size();
  Out.HeaderSize = sizeof(ImageHeader);
  if (!Sp.HeaderChecksum)
    Out.HeaderChecksum = headerChecksum(Out);
  memcpy(File.data(), &Out, sizeof(Out));
  return File;
}
} // namespace fuzz
