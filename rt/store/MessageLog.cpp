//===- MessageLog.cpp - Reading and checking message log files ------------===//
//
// A restart replays a log's records into the program's buffers, so every
// length it will use is checked here first: a damaged log must end in a
// clear message (and the restart fall back to an older version), never in
// a read past the file's bytes.
//
//===----------------------------------------------------------------------===//
#include "MessageLog.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {

uint64_t logChecksum(const char *P, size_t N) {
  // FNV-1a: the log is small next to the image, and this needs no state.
  uint64_t H = 0xcbf29ce484222325ULL;
  for (size_t I = 0; I < N; ++I)
    H = (H ^ (unsigned char)P[I]) * 0x100000001b3ULL;
  return H;
}

static bool fail(char *Why, size_t Cap, const char *Fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *Why, size_t Cap, const char *Fmt, ...) {
  va_list A;
  va_start(A, Fmt);
  vsnprintf(Why, Cap, Fmt, A);
  va_end(A);
  return false;
}

static bool checkCollBlocks(const char *P, const char *End, size_t I, char *Why,
                            size_t Cap) {
  while (P < End) {
    uint64_t Len;
    if ((size_t)(End - P) < sizeof(Len))
      return fail(Why, Cap,
                  "collective record %zu: a block's length is cut "
                  "short",
                  I);
    memcpy(&Len, P, sizeof(Len));
    P += sizeof(Len);
    if (Len > (uint64_t)(End - P))
      return fail(Why, Cap,
                  "collective record %zu: a block of %llu bytes "
                  "where %zu are left",
                  I, (unsigned long long)Len, (size_t)(End - P));
    P += Len;
  }
  return true;
}

bool checkLogRecords(const char *Data, size_t Len, uint32_t NRanks,
                     size_t *Count, char *Why, size_t Cap) {
  if (Count)
    memset(Count, 0, kRecKinds * sizeof(size_t));
  for (size_t Off = 0, I = 0; Off < Len; ++I) {
    LogRecord R;
    if (Len - Off < sizeof(R))
      return fail(Why, Cap, "record %zu is cut short (%zu bytes of %zu)", I,
                  Len - Off, sizeof(R));
    memcpy(&R, Data + Off, sizeof(R));
    Off += sizeof(R);
    if ((unsigned)R.Kind >= kRecKinds)
      return fail(Why, Cap, "record %zu has unknown kind %u", I,
                  (unsigned)R.Kind);
    if (R.Bytes > Len - Off)
      return fail(Why, Cap, "record %zu claims %llu bytes where %zu are left",
                  I, (unsigned long long)R.Bytes, Len - Off);
    switch (R.Kind) {
    case RecKind::Late:
    case RecKind::Wild:
      if (R.Src < 0 || (uint32_t)R.Src >= NRanks)
        return fail(Why, Cap, "record %zu: source rank %d in a job of %u", I,
                    R.Src, NRanks);
      break;
    case RecKind::Event:
      if (R.Bytes != 8ULL * R.NVals)
        return fail(Why, Cap, "event record %zu: %u values in %llu bytes", I,
                    (unsigned)R.NVals, (unsigned long long)R.Bytes);
      break;
    case RecKind::Coll:
      if (!checkCollBlocks(Data + Off, Data + Off + R.Bytes, I, Why, Cap))
        return false;
      break;
    }
    if (Count)
      Count[(unsigned)R.Kind]++;
    Off += R.Bytes;
  }
  return true;
}

bool nextCollBlock(const char *&P, const char *End, const char **Block,
                   uint64_t *Len) {
  if (P >= End)
    return false;
  memcpy(Len, P, sizeof(*Len));
  *Block = P + sizeof(*Len);
  P = *Block + *Len;
  return true;
}

static bool checkHeader(const LogHeader &H, uint64_t FileBytes,
                        const LogExpect &E, char *Why, size_t Cap) {
  if (H.Magic != kLogMagic)
    return fail(Why, Cap, "not a ccc message log (magic %016llx)",
                (unsigned long long)H.Magic);
  if (H.Bytes != FileBytes - sizeof(H))
    return fail(Why, Cap,
                "truncated or extended: its header counts %llu "
                "bytes of records, the file has %llu",
                (unsigned long long)H.Bytes,
                (unsigned long long)(FileBytes - sizeof(H)));
  if (H.NRanks == 0 || H.Rank >= H.NRanks)
    return fail(Why, Cap, "its header names rank %u of %u", H.Rank, H.NRanks);
  if (E.Version != kAny && H.Version != E.Version)
    return fail(Why, Cap, "written for version %llu, not %llu",
                (unsigned long long)H.Version, (unsigned long long)E.Version);
  if (E.Rank != kAny && H.Rank != E.Rank)
    return fail(Why, Cap, "written by rank %u, not %llu", H.Rank,
                (unsigned long long)E.Rank);
  if (E.NRanks != kAny && H.NRanks != E.NRanks)
    return fail(Why, Cap, "written in a job of %u ranks, not %llu", H.NRanks,
                (unsigned long long)E.NRanks);
  return true;
}

char *readMessageLog(const char *Path, const LogExpect &E, LogHeader *Header,
                     size_t *Len, void *(*Alloc)(size_t), void (*Free)(void *),
                     char *Why, size_t Cap) {
  char Reason[512];
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0) {
    snprintf(Why, Cap, "message log %s: %s", Path, strerror(errno));
    return nullptr;
  }
  LogHeader H;
  struct stat St;
  char *Data = nullptr;
  bool Ok = false;
  if (fstat(Fd, &St) != 0 || St.st_size < (off_t)sizeof(H) ||
      read(Fd, &H, sizeof(H)) != (ssize_t)sizeof(H)) {
    snprintf(Reason, sizeof(Reason), "shorter than its header (%zu bytes)",
             sizeof(H));
  } else if (checkHeader(H, (uint64_t)St.st_size, E, Reason, sizeof(Reason))) {
    // The size was checked against the file before it is allocated.
    Data = static_cast<char *>(Alloc(H.Bytes ? H.Bytes : 1));
    size_t Got = 0;
    while (Data && Got < H.Bytes) {
      ssize_t R = read(Fd, Data + Got, H.Bytes - Got);
      if (R <= 0)
        break;
      Got += R;
    }
    if (!Data)
      snprintf(Reason, sizeof(Reason), "no memory for %llu bytes",
               (unsigned long long)H.Bytes);
    else if (Got != H.Bytes)
      snprintf(Reason, sizeof(Reason),
               "only %zu of its %llu bytes could be "
               "read",
               Got, (unsigned long long)H.Bytes);
    else if (logChecksum(Data, H.Bytes) != H.Sum)
      snprintf(Reason, sizeof(Reason), "its checksum does not match");
    else
      Ok = checkLogRecords(Data, H.Bytes, H.NRanks, nullptr, Reason,
                           sizeof(Reason));
  }
  close(Fd);
  if (!Ok) {
    if (Data)
      Free(Data);
    snprintf(Why, Cap, "message log %s is damaged: %s", Path, Reason);
    return nullptr;
  }
  if (Header)
    *Header = H;
  *Len = H.Bytes;
  return Data;
}

} // namespace ccc
