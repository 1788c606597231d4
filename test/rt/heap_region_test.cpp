//===- heap_region_test.cpp - Unit test of the fixed-address heap ---------===//
//
// Checks every heap function, alignment, reuse, large blocks and extent
// merging, foreign pointers, and the property a checkpoint relies on: after
// writing the used ranges back into a zeroed region, the allocator behaves
// exactly as it did after the snapshot.
//
//===----------------------------------------------------------------------===//
#include "rt/common/LibcHeap.h"
#include "rt/heap/HeapRegion.h"
#include "unit_check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <vector>

using namespace ccc;

static uint64_t Rng = 12345;
static uint64_t rnd() {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}

static void fill(void *P, size_t N) {
  for (size_t I = 0; I < N; ++I)
    static_cast<unsigned char *>(P)[I] = (unsigned char)((uintptr_t)P + I);
}
static bool intact(void *P, size_t N) {
  for (size_t I = 0; I < N; ++I)
    if (static_cast<unsigned char *>(P)[I] != (unsigned char)((uintptr_t)P + I))
      return false;
  return true;
}

// This binary links the runtime, so operator new allocates in the region
// under test; the test's own bookkeeping must live outside it (the snapshot
// test below wipes the region).
template <typename T> struct LibcAlloc {
  using value_type = T;
  LibcAlloc() = default;
  template <typename U> LibcAlloc(const LibcAlloc<U> &) {}
  T *allocate(size_t N) {
    return static_cast<T *>(__libc_malloc(N * sizeof(T)));
  }
  void deallocate(T *P, size_t) { __libc_free(P); }
  bool operator==(const LibcAlloc &) const { return true; }
  bool operator!=(const LibcAlloc &) const { return false; }
};
template <typename T> using Vec = std::vector<T, LibcAlloc<T>>;

struct Snap {
  Vec<std::pair<uintptr_t, Vec<char>>> R;
};

int main() {
  void *A = __ccc_malloc(10);
  CHECK(heapContains(A) && (uintptr_t)A % 16 == 0);
  CHECK(heapBase() == kHeapBase);
  for (size_t Al : {32, 64, 4096, 65536}) {
    void *P = __ccc_aligned_alloc(Al, 100);
    CHECK(heapContains(P) && (uintptr_t)P % Al == 0);
    void *Q;
    CHECK(__ccc_posix_memalign(&Q, Al, 5000) == 0 && (uintptr_t)Q % Al == 0);
    CHECK(__ccc_malloc_usable_size(Q) >= 5000);
    __ccc_free(P);
    __ccc_free(Q);
  }
  // realloc keeps contents through growth and shrink.
  char *R = static_cast<char *>(__ccc_malloc(1));
  R[0] = 7;
  for (size_t N = 2; N < (8 << 20); N *= 3) {
    R = static_cast<char *>(__ccc_realloc(R, N));
    CHECK(R[0] == 7);
    R[N - 1] = 9;
  }
  R = static_cast<char *>(__ccc_realloc(R, 3));
  CHECK(R[0] == 7);
  __ccc_free(R);
  // calloc zeroes reused memory.
  void *D = __ccc_malloc(4000);
  memset(D, 0xff, 4000);
  __ccc_free(D);
  unsigned char *Z = static_cast<unsigned char *>(__ccc_calloc(1000, 4));
  bool AllZero = true;
  for (int I = 0; I < 4000; ++I)
    AllZero &= Z[I] == 0;
  CHECK(AllZero);
  CHECK(__ccc_calloc(SIZE_MAX / 2, 4) == nullptr);
  // Foreign pointers go to libc. (Plain malloc is wrapped in this binary
  // too, so the foreign block comes from glibc's internal name.)
  void *Libc = __libc_malloc(100);
  CHECK(!heapContains(Libc));
  Libc = __ccc_realloc(Libc, 200);
  __ccc_free(Libc);
  char *S = __ccc_strdup("hello");
  CHECK(heapContains(S) && !strcmp(S, "hello"));
  char *S2 = __ccc_strndup("hello", 3);
  CHECK(!strcmp(S2, "hel"));
  char *S3;
  CHECK(__ccc_asprintf(&S3, "%d-%s", 42, "x") == 4 && !strcmp(S3, "42-x"));
  CHECK(heapContains(S3));
  FILE *F = tmpfile();
  fputs("line one\nsecond\n", F);
  rewind(F);
  char *Line = nullptr;
  size_t Cap = 0;
  CHECK(__ccc_getline(&Line, &Cap, F) == 9 && !strcmp(Line, "line one\n"));
  CHECK(heapContains(Line));
  CHECK(__ccc_getline(&Line, &Cap, F) == 7);
  CHECK(__ccc_getline(&Line, &Cap, F) == -1);
  fclose(F);

  // Random alloc/free with content checks; large blocks included.
  Vec<std::pair<void *, size_t>> Live;
  for (int I = 0; I < 200000; ++I) {
    if (Live.size() < 2000 && rnd() % 3) {
      size_t N = rnd() % 100 < 2 ? rnd() % (1 << 20) : rnd() % 2000;
      void *P = __ccc_malloc(N);
      CHECK(P != nullptr);
      fill(P, N);
      Live.push_back({P, N});
    } else if (!Live.empty()) {
      size_t K = rnd() % Live.size();
      CHECK(intact(Live[K].first, Live[K].second));
      __ccc_free(Live[K].first);
      Live[K] = Live.back();
      Live.pop_back();
    }
  }
  // Large free extents are not reported as used.
  size_t Before = heapUsedBytes();
  void *Big = __ccc_malloc(64 << 20);
  memset(Big, 1, 64 << 20);
  CHECK(heapUsedBytes() >= Before + (64 << 20));
  __ccc_free(Big);
  CHECK(heapUsedBytes() < Before + (1 << 20));

  // Snapshot, go on, restore into a zeroed region: same future.
  Snap Sn;
  heapForEachUsedRange(
      [](uintptr_t A, size_t L, void *C) {
        static_cast<Snap *>(C)->R.push_back(
            {A, Vec<char>((char *)A, (char *)A + L)});
      },
      &Sn);
  uint64_t Seed = Rng;
  Vec<uintptr_t> First;
  auto Replay = [&](Vec<uintptr_t> &Out) {
    Rng = Seed;
    for (int I = 0; I < 1000; ++I) {
      void *P = __ccc_malloc(rnd() % 70000);
      Out.push_back((uintptr_t)P);
      if (I % 3 == 0)
        __ccc_free(P);
    }
  };
  Replay(First);
  madvise((void *)heapBase(), heapReserve(), MADV_DONTNEED);
  for (auto &R : Sn.R)
    memcpy((void *)R.first, R.second.data(), R.second.size());
  for (auto &L : Live)
    CHECK(intact(L.first, L.second));
  Vec<uintptr_t> Second;
  Replay(Second);
  CHECK(First == Second);
  if (Failures)
    fprintf(stderr, "%d failure(s)\n", Failures);
  else
    printf("heap_region_test: ok\n");
  return Failures != 0;
}
