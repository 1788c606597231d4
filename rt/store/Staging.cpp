//===- Staging.cpp - An image staged in memory, written out later ---------===//
#include "Staging.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ccc {
namespace {
enum RecordKind : uint32_t {
  KindBegin,
  KindCodecs,
  KindRange,
  KindBytes,
  KindEnd,
};
} // namespace

StagingWriter::~StagingWriter() {
  if (Buf)
    munmap(Buf, Cap);
}

bool StagingWriter::reserve(uint64_t Bytes) {
  if (Buf)
    return true;
  // Address space only: pages are taken as the first images touch them
  // and kept for the next ones (no page faults after the first).
  void *P = mmap(nullptr, Bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (P == MAP_FAILED)
    return false;
  Buf = static_cast<unsigned char *>(P);
  Cap = Bytes;
  return true;
}

void StagingWriter::reset() {
  Used = 0;
  Overflow = false;
  Hdr = ImageHeader{};
}

bool StagingWriter::push(const Record &R, const void *Data) {
  uint64_t Need = sizeof(Record) + ((R.Len + 7) & ~uint64_t(7));
  if (Need > Cap - Used) {
    Overflow = true;
    errno = ENOMEM;
    return false;
  }
  memcpy(Buf + Used, &R, sizeof(R));
  if (R.Len)
    memcpy(Buf + Used + sizeof(R), Data, R.Len);
  Used += Need;
  return true;
}

bool StagingWriter::beginSection(SectionType Type, bool Compress,
                                 uint32_t Codec) {
  return push({KindBegin, uint32_t(Type), Codec, Compress, 0, 0, 0}, nullptr);
}

void StagingWriter::setBlockCodecs(const CodecRegion *R, size_t N,
                                   uint32_t Default) {
  // The regions are copied: the caller's array may change before the
  // writer reaches them. A failure shows at the next record (full).
  push({KindCodecs, Default, 0, 0, 0, N * sizeof(CodecRegion), 0}, R);
}

bool StagingWriter::addRange(uint64_t Addr, const void *Data, uint64_t Len,
                             const uint64_t *Hash) {
  return !Overflow &&
         push({KindRange, 0, 0, Hash != nullptr, Addr, Len, Hash ? *Hash : 0},
              Data);
}

bool StagingWriter::addBytes(const void *Data, uint64_t Len) {
  return !Overflow && push({KindBytes, 0, 0, 0, 0, Len, 0}, Data);
}

bool StagingWriter::endSection() {
  return !Overflow && push({KindEnd, 0, 0, 0, 0, 0, 0}, nullptr);
}

bool StagingWriter::replay(ImageWriter &W) const {
  // The staged header's fields, less what open() set and what the writer
  // fills itself (the section table, the sizes and checksum).
  ImageHeader &H = W.header();
  ImageHeader Opened = H;
  H = Hdr;
  memcpy(H.Magic, Opened.Magic, sizeof(H.Magic));
  H.FormatVersion = Opened.FormatVersion;
  H.HeaderSize = Opened.HeaderSize;
  H.SectionCount = 0;
  for (uint64_t Off = 0; Off < Used;) {
    Record R;
    memcpy(&R, Buf + Off, sizeof(R));
    const unsigned char *Data = Buf + Off + sizeof(R);
    Off += sizeof(R) + ((R.Len + 7) & ~uint64_t(7));
    bool Ok = true;
    switch (R.Kind) {
    case KindBegin:
      Ok = W.beginSection(SectionType(R.Arg0), R.HasHash, R.Arg1);
      break;
    case KindCodecs:
      // Aligned: records and their data start at multiples of 8.
      W.setBlockCodecs(reinterpret_cast<const CodecRegion *>(Data),
                       R.Len / sizeof(CodecRegion), R.Arg0);
      break;
    case KindRange:
      Ok = W.addRange(R.Addr, Data, R.Len, R.HasHash ? &R.Hash : nullptr);
      break;
    case KindBytes:
      Ok = W.addBytes(Data, R.Len);
      break;
    case KindEnd:
      Ok = W.endSection();
      break;
    }
    if (!Ok)
      return false;
  }
  return true;
}

uint64_t memoryAvailable() {
  int Fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return 0;
  char Text[4096];
  ssize_t N = read(Fd, Text, sizeof(Text) - 1);
  close(Fd);
  if (N <= 0)
    return 0;
  Text[N] = 0;
  const char *P = strstr(Text, "MemAvailable:");
  unsigned long long Kb;
  if (!P || sscanf(P, "MemAvailable: %llu kB", &Kb) != 1)
    return 0;
  return Kb * 1024;
}
} // namespace ccc
