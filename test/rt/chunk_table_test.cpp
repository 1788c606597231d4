//===- chunk_table_test.cpp - An image's chunk table against its sizes ----===//
//
// Writes an image whose chunk table (SecChunks) holds a few entries and
// reads it back sorted; then claims, in a header with a valid checksum, a
// table of 40 GiB and of 40 TiB that the file does not hold. Under an
// address-space limit of 1 GiB the reader must refuse both with a message
// that names the section, having allocated no more than the bytes really
// there: the size a damaged file claims never sizes an allocation alone.
//
//===----------------------------------------------------------------------===//
#include "rt/image/Image.h"
#include "rt/store/Incremental.h"
#include "unit_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <sys/resource.h>
#include <unistd.h>

using namespace ccc;

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCC_TEST_ASAN 1
#endif
#endif
#ifdef CCC_TEST_ASAN
// ASan reserves terabytes of address space for its shadow, so the 1 GiB
// limit below would stop ASan itself: under ASan its allocator stands in
// for the limit, failing (returning null) what exceeds 1 GiB.
extern "C" const char *__asan_default_options() {
  return "max_allocation_size_mb=1024:allocator_may_return_null=1";
}
#endif

// Sets the chunk table's claimed raw size (and the header checksum).
static void claimRawSize(const char *Path, uint64_t Raw) {
  FILE *F = fopen(Path, "r+b");
  ImageHeader H;
  CHECK(F && fread(&H, sizeof(H), 1, F) == 1);
  for (uint32_t I = 0; I < H.SectionCount; ++I)
    if (H.Sections[I].Type == SecChunks)
      H.Sections[I].RawSize = Raw;
  H.HeaderChecksum = headerChecksum(H);
  CHECK(fseek(F, 0, SEEK_SET) == 0 && fwrite(&H, sizeof(H), 1, F) == 1);
  fclose(F);
}

int main() {
  char Path[] = "/tmp/ccc-chunk-table-XXXXXX";
  int Fd = mkstemp(Path);
  CHECK(Fd >= 0);
  close(Fd);
  // Entries out of order: load() sorts them by section and address.
  ChunkEntry In[3] = {{0x3000, 4096, 11, 1, SecHeap, 0},
                      {0x1000, 4096, 22, 1, SecHeap, 0},
                      {0x9000, 8192, 33, 2, SecGlobals, 0}};
  {
    ImageWriter W;
    CHECK(W.open(Path, 3, 0));
    CHECK(W.beginSection(SecChunks, false, CodecZstd));
    CHECK(W.addBytes(In, sizeof(In)));
    CHECK(W.endSection() && W.finish());
  }
  {
    ImageReader R;
    ChunkTable T;
    const SectionEntry *S = R.open(Path) ? R.find(SecChunks) : nullptr;
    CHECK(S && T.load(R, *S));
    CHECK(T.size() == 3);
    const ChunkEntry *E = T.find(SecHeap, 0x1000);
    CHECK(E && E->Hash == 22);
    CHECK(T.find(SecGlobals, 0x9000) && !T.find(SecHeap, 0x2000));
  }
#ifndef CCC_TEST_ASAN
  rlimit Lim = {1ull << 30, 1ull << 30};
  CHECK(setrlimit(RLIMIT_AS, &Lim) == 0);
#endif
  for (uint64_t Entries : {1ull << 30, 1ull << 40}) {
    claimRawSize(Path, Entries * sizeof(ChunkEntry));
    ImageReader R;
    ChunkTable T;
    const SectionEntry *S = R.open(Path) ? R.find(SecChunks) : nullptr;
    CHECK(S != nullptr);
    CHECK(S && !T.load(R, *S));
    CHECK(strstr(R.error(), "chunks section") != nullptr);
    if (!strstr(R.error(), "chunks section"))
      fprintf(stderr, "error for %llu entries: '%s'\n",
              (unsigned long long)Entries, R.error());
  }
  unlink(Path);
  if (Failures)
    fprintf(stderr, "%d failure(s)\n", Failures);
  else
    printf("ok: chunk table read back; claimed sizes of 40 GiB and 40 TiB "
           "refused by name under a 1 GiB address-space limit\n");
  return Failures ? 1 : 0;
}
