//===- dirty.c - Change detection: content hashing vs dirty pages ---------===//
//
// An incremental checkpoint stores only the 64 KiB chunks that changed since
// the previous image. ccc finds them by hashing every chunk (XXH3-64) at
// every checkpoint; the alternative is to have the kernel, or page
// protection, record which pages were written between two checkpoints. This
// program measures both on the same memory and the same writes:
//   - the time at the checkpoint (find the changed chunks, re-arm the tracker),
//   - the time the tracking adds to the computation between checkpoints
//     (the fault each tracked page takes on its first write), against the
//     same step with no tracking (the hashing method's step),
//   - how many chunks each method reports, against how many really changed
//     (a byte comparison with a copy taken at the previous checkpoint).
//
// Methods: hash (ccc today), soft-dirty (clear_refs + /proc/self/pagemap),
// uffd-wp (userfaultfd asynchronous write-protect, read by the PAGEMAP_SCAN
// ioctl), mprotect (read-only pages, a SIGSEGV handler that records the
// chunk and makes it writable). Each tracker is probed first; one that does
// not work on this kernel is said so and not trusted.
//
// Usage: dirty [MiB] [intervals]     (default 256 MiB, 9 intervals per case)
// Exit status 1 when a method misses a chunk whose bytes changed, or when
// hashing reports a chunk that did not change.
//===----------------------------------------------------------------------===//
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

// Debian 12's kernel headers (6.1) predate asynchronous uffd-wp and
// PAGEMAP_SCAN (Linux 6.7); the running kernel decides whether they work.
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1ULL << 15)
#endif
#ifndef PAGEMAP_SCAN
struct page_region {
  uint64_t start, end, categories;
};
struct pm_scan_arg {
  uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages,
      category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_WRITTEN (1 << 1)
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PM_SCAN_CHECK_WPASYNC (1 << 1)
#endif

enum {
  kPage = 4096,
  kChunk = 65536, // CCC_CHUNK_SIZE's default
  kPagesPerChunk = kChunk / kPage,
  kDoublesPerPage = kPage / sizeof(double),
  kMaxIntervals = 64,
};
static const uint64_t kSoftDirtyBit = 1ULL << 55;

static void die(const char *what) {
  fprintf(stderr, "dirty: %s: %s\n", what, strerror(errno));
  exit(2);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void *map_pages(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    die("mmap");
  // 4 KiB pages: a huge page would make a tracker report 2 MiB per write.
  madvise(p, bytes, MADV_NOHUGEPAGE);
  return p;
}

// Sets flags[i] for every unit of `unit` bytes from `base` that [start, end)
// touches.
static void mark_units(unsigned char *flags, uintptr_t base, size_t unit,
                       uintptr_t start, uintptr_t end) {
  for (size_t u = (start - base) / unit; u <= (end - 1 - base) / unit; ++u)
    flags[u] = 1;
}

//===-- soft-dirty: clear_refs and /proc/self/pagemap ---------------------===//

static int clear_refs_fd = -1, pagemap_fd = -1;

static void clear_soft_dirty(void) {
  // "4" clears the soft-dirty bit of every page of the process (and
  // write-protects them, so the next write sets it again).
  if (write(clear_refs_fd, "4", 1) != 1)
    die("write 4 to /proc/self/clear_refs");
}

static void read_pagemap(const void *base, size_t count, uint64_t *out) {
  char *dst = (char *)out;
  size_t left = count * sizeof(uint64_t);
  off_t off = (uintptr_t)base / kPage * sizeof(uint64_t);
  while (left) {
    ssize_t n = pread(pagemap_fd, dst, left, off);
    if (n <= 0)
      die("read /proc/self/pagemap");
    dst += n, left -= n, off += n;
  }
}

//===-- uffd-wp: asynchronous userfaultfd write-protect -------------------===//

// In asynchronous mode the kernel resolves the write fault itself (no
// handler thread) and only clears the page's write-protect bit, which
// PAGEMAP_SCAN reports as PAGE_IS_WRITTEN and can set again in the same walk.
static int uffd = -1;
static bool uffd_user_mode_only; // the flag an unprivileged process needs

static bool uffd_open(char *why, size_t cap) {
  uffd_user_mode_only = true;
  uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
  if (uffd < 0) {
    uffd_user_mode_only = false;
    uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  }
  if (uffd < 0) {
    snprintf(why, cap, "userfaultfd: %s", strerror(errno));
    return false;
  }
  struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC};
  if (ioctl(uffd, UFFDIO_API, &api) != 0) {
    snprintf(why, cap, "UFFDIO_API with UFFD_FEATURE_WP_ASYNC: %s (Linux < 6.7?)",
             strerror(errno));
    close(uffd);
    uffd = -1;
    return false;
  }
  return true;
}

static bool uffd_register(void *base, size_t len) {
  struct uffdio_register reg = {.range = {(uintptr_t)base, len},
                                .mode = UFFDIO_REGISTER_MODE_WP};
  return ioctl(uffd, UFFDIO_REGISTER, &reg) == 0;
}

static void uffd_unregister(void *base, size_t len) {
  struct uffdio_range range = {(uintptr_t)base, len};
  if (ioctl(uffd, UFFDIO_UNREGISTER, &range) != 0)
    die("UFFDIO_UNREGISTER");
}

static bool uffd_protect(void *base, size_t len, bool on) {
  struct uffdio_writeprotect wp = {.range = {(uintptr_t)base, len},
                                   .mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0};
  return ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) == 0;
}

static struct page_region *scan_regions;
static size_t scan_capacity;

// Marks the units written since the last scan and write-protects them again
// (one page-table walk). Returns false if the ioctl fails.
static bool uffd_collect(void *base, size_t len, size_t unit,
                         unsigned char *flags) {
  uintptr_t start = (uintptr_t)base, end = start + len;
  while (start < end) {
    struct pm_scan_arg arg = {
        .size = sizeof arg,
        .flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC,
        .start = start,
        .end = end,
        .vec = (uintptr_t)scan_regions,
        .vec_len = scan_capacity,
        .category_mask = PAGE_IS_WRITTEN,
        .return_mask = PAGE_IS_WRITTEN,
    };
    long n = ioctl(pagemap_fd, PAGEMAP_SCAN, &arg);
    if (n < 0)
      return false;
    for (long i = 0; i < n; ++i)
      mark_units(flags, (uintptr_t)base, unit, scan_regions[i].start,
                 scan_regions[i].end);
    start = arg.walk_end; // below `end` only when the vector filled up
  }
  return true;
}

//===-- mprotect: read-only pages and a SIGSEGV handler -------------------===//

// The handler unprotects the whole unit (a chunk in the benchmark) on its
// first write: one fault per chunk, and at most one mapping split per chunk
// (per page, 65536 splits would pass vm.max_map_count).
static unsigned char *prot_base;
static size_t prot_len, prot_unit;
static unsigned char *volatile prot_flags; // null: no tracking

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  (void)ctx;
  uintptr_t addr = (uintptr_t)info->si_addr, base = (uintptr_t)prot_base;
  unsigned char *flags = prot_flags;
  if (flags && addr - base < prot_len) {
    size_t u = (addr - base) / prot_unit;
    if (mprotect(prot_base + u * prot_unit, prot_unit,
                 PROT_READ | PROT_WRITE) == 0) {
      flags[u] = 1;
      return;
    }
  }
  signal(sig, SIG_DFL); // not ours: the retried access crashes as it should
}

static void prot_arm(unsigned char *base, size_t len, size_t unit,
                     unsigned char *flags) {
  prot_base = base, prot_len = len, prot_unit = unit;
  prot_flags = flags;
  if (mprotect(base, len, PROT_READ) != 0)
    die("mprotect");
}

static void prot_disarm(void) {
  if (mprotect(prot_base, prot_len, PROT_READ | PROT_WRITE) != 0)
    die("mprotect");
  prot_flags = NULL;
}

//===-- Probes: does each tracker see the writes on this kernel? ----------===//

enum method { HASH, SOFT_DIRTY, UFFD_WP, MPROTECT, kMethods };
static const char *const method_name[kMethods] = {"hash", "soft-dirty",
                                                  "uffd-wp", "mprotect"};
static bool method_works[kMethods]; // reported chunks trusted and checked
static bool method_timed[kMethods]; // measured at all
static char method_note[kMethods][320];
static int probe_failures; // a working tracker that missed the kernel's write

// Three pages: the first written by the program, the second left alone, the
// third written by the kernel (read(2) from /dev/zero), as a read() or an
// MPI receive into tracked memory would.
static unsigned char *probe_pages(int *zero_fd) {
  unsigned char *p = map_pages(3 * kPage);
  memset(p, 1, 3 * kPage);
  *zero_fd = open("/dev/zero", O_RDONLY);
  if (*zero_fd < 0)
    die("open /dev/zero");
  return p;
}

static void probe_soft_dirty(void) {
  int zero;
  volatile unsigned char *p = probe_pages(&zero);
  uint64_t e[3];
  clear_soft_dirty();
  p[0] = 2;
  ssize_t kernel_write = read(zero, (void *)(p + 2 * kPage), 64);
  read_pagemap((void *)p, 3, e);
  bool user = e[0] & kSoftDirtyBit, clean = !(e[1] & kSoftDirtyBit),
       kernel = kernel_write == 64 && (e[2] & kSoftDirtyBit);
  method_works[SOFT_DIRTY] = user && clean;
  method_timed[SOFT_DIRTY] = true; // clear_refs and the pagemap read cost anyway
  probe_failures += method_works[SOFT_DIRTY] && !kernel;
  if (method_works[SOFT_DIRTY])
    snprintf(method_note[SOFT_DIRTY], sizeof method_note[0],
             "works (a written page has bit 55, an untouched one not); "
             "a write by the kernel (read(2)) is %s",
             kernel ? "seen" : "MISSED");
  else
    snprintf(method_note[SOFT_DIRTY], sizeof method_note[0],
             "DOES NOT WORK on this kernel: after clear_refs, the written page "
             "has bit 55 %s and the untouched one %s (kernel built without "
             "CONFIG_MEM_SOFT_DIRTY?); its rows time clear_refs + the pagemap "
             "read only, its chunk counts mean nothing",
             user ? "set" : "clear", clean ? "clear" : "set");
  munmap((void *)p, 3 * kPage);
  close(zero);
}

static void probe_uffd(void) {
  char why[200];
  method_timed[UFFD_WP] = false;
  if (!uffd_open(why, sizeof why)) {
    snprintf(method_note[UFFD_WP], sizeof method_note[0],
             "NOT AVAILABLE: %s", why);
    return;
  }
  int zero;
  volatile unsigned char *p = probe_pages(&zero);
  unsigned char flags[3] = {0};
  bool ok = uffd_register((void *)p, 3 * kPage) &&
            uffd_protect((void *)p, 3 * kPage, true);
  if (!ok) {
    snprintf(method_note[UFFD_WP], sizeof method_note[0],
             "NOT AVAILABLE: UFFDIO_REGISTER/WRITEPROTECT: %s", strerror(errno));
  } else {
    p[0] = 2;
    ssize_t kernel_write = read(zero, (void *)(p + 2 * kPage), 64);
    if (!uffd_collect((void *)p, 3 * kPage, kPage, flags)) {
      snprintf(method_note[UFFD_WP], sizeof method_note[0],
               "NOT AVAILABLE: PAGEMAP_SCAN: %s (Linux < 6.7?)", strerror(errno));
    } else {
      method_works[UFFD_WP] = method_timed[UFFD_WP] = flags[0] && !flags[1];
      probe_failures += method_works[UFFD_WP] && !(kernel_write == 64 && flags[2]);
      snprintf(method_note[UFFD_WP], sizeof method_note[0],
               "%s (UFFD_FEATURE_WP_ASYNC + PAGEMAP_SCAN, %s); a write by the "
               "kernel (read(2)) is %s",
               method_works[UFFD_WP] ? "works" : "DOES NOT WORK",
               uffd_user_mode_only ? "UFFD_USER_MODE_ONLY: no privilege needed"
                                   : "needs privilege here",
               kernel_write == 64 && flags[2] ? "seen" : "MISSED");
    }
    uffd_protect((void *)p, 3 * kPage, false);
    uffd_unregister((void *)p, 3 * kPage);
  }
  munmap((void *)p, 3 * kPage);
  close(zero);
}

static void probe_mprotect(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, NULL) != 0)
    die("sigaction");
  int zero;
  volatile unsigned char *p = probe_pages(&zero);
  unsigned char flags[3] = {0};
  prot_arm((unsigned char *)p, 3 * kPage, kPage, flags);
  p[0] = 2;
  // The kernel does not fault on the program's behalf: it fails the call.
  ssize_t kernel_write = read(zero, (void *)(p + 2 * kPage), 64);
  int kernel_errno = errno;
  prot_disarm();
  method_works[MPROTECT] = method_timed[MPROTECT] = flags[0] && !flags[1];
  // A failed read() is the program's problem, reported; a successful one
  // the tracker did not see is a missed write.
  probe_failures += method_works[MPROTECT] && kernel_write == 64 && !flags[2];
  char kernel[120];
  if (kernel_write == 64)
    snprintf(kernel, sizeof kernel, "%s", flags[2] ? "seen" : "MISSED");
  else
    snprintf(kernel, sizeof kernel, "FAILS (%s): a read() or MPI receive "
             "into tracked memory breaks", strerror(kernel_errno));
  snprintf(method_note[MPROTECT], sizeof method_note[0],
           "%s (one fault per 64 KiB chunk); a write by the kernel (read(2)) %s",
           method_works[MPROTECT] ? "works" : "DOES NOT WORK", kernel);
  munmap((void *)p, 3 * kPage);
  close(zero);
}

//===-- The simulated program and its checkpoints -------------------------===//

static double *state;          // the program's memory
static unsigned char *shadow;  // its bytes at the previous checkpoint
static size_t state_bytes, npages, nchunks;
static uint64_t *chunk_hash;   // per chunk, as of the previous checkpoint
static uint64_t *pagemap_buf;
static unsigned char *reported, *confirmed, *changed;
static uint32_t *written_pages; // this interval's, in address order
static unsigned char *page_pick;

// One interval's computation: add `delta` to every double of the listed
// pages, in address order, as a code sweeping over part of its arrays does.
// delta 0 stores the same values (a code recomputing an unchanged region).
__attribute__((noinline)) static void step(double *mem, const uint32_t *pages,
                                           size_t n, double delta) {
  for (size_t i = 0; i < n; ++i) {
    double *x = mem + (size_t)pages[i] * kDoublesPerPage;
    for (size_t j = 0; j < kDoublesPerPage; ++j)
      x[j] += delta;
  }
}

static uint64_t hash_chunk(size_t c) {
  return XXH3_64bits((const char *)state + c * kChunk, kChunk);
}

static uint64_t rng;
static uint64_t next_random(void) { // splitmix64
  uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Picks k distinct pages at random (the same for every method of an
// interval: the seed is the case and the interval) in address order.
static size_t pick_pages(size_t k, uint64_t seed) {
  rng = seed;
  memset(page_pick, 0, npages);
  size_t picked = 0;
  if (k * 2 > npages) { // dense: pick the pages left out instead
    memset(page_pick, 1, npages);
    for (size_t left = npages - k; left;) {
      size_t p = next_random() % npages;
      if (page_pick[p])
        page_pick[p] = 0, --left;
    }
  } else {
    for (size_t left = k; left;) {
      size_t p = next_random() % npages;
      if (!page_pick[p])
        page_pick[p] = 1, --left;
    }
  }
  for (size_t p = 0; p < npages; ++p)
    if (page_pick[p])
      written_pages[picked++] = (uint32_t)p;
  return picked;
}

struct sample {
  double step_ms;    // the step between checkpoints
  double ckpt_ms;    // find the changed chunks and re-arm the tracker
  double confirm_ms; // hash the chunks a tracker reported (tracker + hash)
  size_t reported, confirmed, changed, missed, wrong;
};

// Arms the tracker as the previous checkpoint would have left it.
static void arm(enum method m) {
  switch (m) {
  case HASH:
    break;
  case SOFT_DIRTY:
    clear_soft_dirty();
    break;
  case UFFD_WP:
    if (!uffd_register(state, state_bytes) ||
        !uffd_protect(state, state_bytes, true))
      die("UFFDIO_REGISTER/WRITEPROTECT");
    break;
  case MPROTECT:
    memset(reported, 0, nchunks);
    prot_arm((unsigned char *)state, state_bytes, kChunk, reported);
    break;
  default:
    break;
  }
}

// The checkpoint's change detection, timed: sets reported[] and leaves the
// tracker armed for the next interval.
static void detect(enum method m) {
  switch (m) {
  case HASH:
    for (size_t c = 0; c < nchunks; ++c) {
      uint64_t h = hash_chunk(c);
      reported[c] = h != chunk_hash[c];
      chunk_hash[c] = h;
    }
    break;
  case SOFT_DIRTY:
    read_pagemap(state, npages, pagemap_buf);
    memset(reported, 0, nchunks);
    for (size_t p = 0; p < npages; ++p)
      if (pagemap_buf[p] & kSoftDirtyBit)
        reported[p / kPagesPerChunk] = 1;
    clear_soft_dirty();
    break;
  case UFFD_WP:
    memset(reported, 0, nchunks);
    if (!uffd_collect(state, state_bytes, kChunk, reported))
      die("PAGEMAP_SCAN");
    break;
  case MPROTECT:
    // The handler filled reported[] during the step (a runtime would copy
    // and clear 4096 bytes): what costs here is write-protecting it all again.
    if (mprotect(state, state_bytes, PROT_READ) != 0)
      die("mprotect");
    break;
  default:
    break;
  }
}

static void disarm(enum method m) {
  switch (m) {
  case SOFT_DIRTY:
    // clear_refs write-protected every page of the process: take those
    // faults now, untimed, not in the next method's step.
    if (method_works[SOFT_DIRTY])
      for (size_t p = 0; p < npages; ++p) {
        volatile double *x = state + p * kDoublesPerPage;
        *x = *x;
      }
    break;
  case UFFD_WP:
    uffd_protect(state, state_bytes, false);
    uffd_unregister(state, state_bytes);
    break;
  case MPROTECT:
    prot_disarm();
    break;
  default:
    break;
  }
}

static volatile double step_delta; // read at run time: never folded away
// chunk_hash[] and shadow[] describe the state as it is now. After an
// interval they do again if the method was hashing, or a tracker that missed
// nothing followed by hashing its chunks; otherwise the table is redone.
static bool table_current;

static void run_interval(enum method m, size_t k, double delta,
                         struct sample *s) {
  if (!table_current) // the previous checkpoint's table
    for (size_t c = 0; c < nchunks; ++c)
      chunk_hash[c] = hash_chunk(c);
  step_delta = delta;
  arm(m);
  double t0 = now_ms();
  step(state, written_pages, k, step_delta);
  double t1 = now_ms();
  detect(m);
  double t2 = now_ms();
  // A tracker followed by hashing only what it reported: exact again.
  memset(confirmed, 0, nchunks);
  if (m != HASH)
    for (size_t c = 0; c < nchunks; ++c)
      if (reported[c]) {
        uint64_t h = hash_chunk(c);
        confirmed[c] = h != chunk_hash[c];
        chunk_hash[c] = h;
      }
  double t3 = now_ms();
  disarm(m);
  *s = (struct sample){.step_ms = t1 - t0, .ckpt_ms = t2 - t1,
                       .confirm_ms = t3 - t2};
  // The truth: the bytes against the copy taken at the previous checkpoint.
  for (size_t c = 0; c < nchunks; ++c) {
    char *now = (char *)state + c * kChunk, *before = (char *)shadow + c * kChunk;
    changed[c] = memcmp(now, before, kChunk) != 0;
    if (changed[c])
      memcpy(before, now, kChunk);
    s->changed += changed[c];
    s->reported += reported[c];
    s->confirmed += confirmed[c];
    s->missed += changed[c] && !reported[c];
    // Hashing, alone or after a tracker, must be exact.
    s->wrong += m == HASH ? reported[c] != changed[c]
                          : reported[c] && confirmed[c] != changed[c];
  }
  table_current = m == HASH || (method_works[m] && !s->missed);
}

//===-- Statistics and the table ------------------------------------------===//

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, size_t n) {
  double s[kMaxIntervals];
  memcpy(s, v, n * sizeof *v);
  qsort(s, n, sizeof *s, by_value);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double minimum(const double *v, size_t n) {
  double m = v[0];
  for (size_t i = 1; i < n; ++i)
    m = v[i] < m ? v[i] : m;
  return m;
}

struct test_case {
  const char *name;
  double fraction; // of the state's pages written per interval
  double delta;    // added to each double written (0: same values)
};

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
  size_t intervals = argc > 2 ? strtoul(argv[2], NULL, 10) : 9;
  if (mib == 0 || mib > 65536 || intervals == 0 || intervals > kMaxIntervals) {
    fprintf(stderr, "usage: dirty [MiB 1..65536] [intervals 1..%d]\n",
            kMaxIntervals);
    return 2;
  }
  state_bytes = mib << 20;
  npages = state_bytes / kPage;
  nchunks = state_bytes / kChunk;

  clear_refs_fd = open("/proc/self/clear_refs", O_WRONLY);
  pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
  if (clear_refs_fd < 0 || pagemap_fd < 0)
    die("open /proc/self/clear_refs or /proc/self/pagemap");
  scan_capacity = npages / 2 + 1; // alternate written pages: the most regions
  scan_regions = malloc(scan_capacity * sizeof *scan_regions);

  method_works[HASH] = method_timed[HASH] = true;
  snprintf(method_note[HASH], sizeof method_note[0],
           "XXH3_64bits of every 64 KiB chunk, compared with the previous "
           "checkpoint's (what ccc does); its step is the plain step");
  probe_soft_dirty();
  probe_uffd();
  probe_mprotect();

  state = map_pages(state_bytes);
  shadow = map_pages(state_bytes);
  for (size_t i = 0; i < state_bytes / sizeof(double); ++i)
    state[i] = 1.0 + (double)(i % 1000) / 1000; // positive: x + 0.0 == x bitwise
  memcpy(shadow, state, state_bytes);
  chunk_hash = malloc(nchunks * sizeof *chunk_hash);
  pagemap_buf = malloc(npages * sizeof *pagemap_buf);
  reported = map_pages(nchunks);
  confirmed = malloc(nchunks);
  changed = malloc(nchunks);
  written_pages = malloc(npages * sizeof *written_pages);
  page_pick = malloc(npages);
  if (!chunk_hash || !pagemap_buf || !confirmed || !changed || !written_pages ||
      !page_pick || !scan_regions)
    die("malloc");

  static const struct test_case cases[] = {
      {"0.1%", 0.001, 1.0}, {"1%", 0.01, 1.0},   {"10%", 0.10, 1.0},
      {"50%", 0.50, 1.0},   {"100%", 1.00, 1.0}, {"10% same", 0.10, 0.0},
  };
  enum { kCases = sizeof cases / sizeof cases[0], kAllPagesCase = 4 };
  static struct sample samples[kCases][kMethods][kMaxIntervals];
  static size_t pages_written[kCases];

  struct utsname u;
  uname(&u);
  printf("dirty: %zu MiB of doubles = %zu pages of 4 KiB = %zu chunks of 64 KiB;"
         " %zu intervals per case; Linux %s\n",
         mib, npages, nchunks, intervals, u.release);
  for (int m = 0; m < kMethods; ++m)
    printf("  %-10s %s\n", method_name[m], method_note[m]);
  fflush(stdout);

  for (size_t ci = 0; ci < kCases; ++ci) {
    size_t k = (size_t)(cases[ci].fraction * npages + 0.5);
    k = k ? k : 1;
    pages_written[ci] = k;
    for (size_t r = 0; r < intervals; ++r) {
      pick_pages(k, 0x5eed0000ULL + ci * 1000 + r);
      // Methods take turns within each interval, starting with another one
      // each time, so a load that comes and goes hits them alike.
      for (int i = 0; i < kMethods; ++i) {
        enum method m = (enum method)((r + i) % kMethods);
        if (method_timed[m])
          run_interval(m, k, cases[ci].delta, &samples[ci][m][r]);
      }
    }
  }

  printf("\nper interval, in ms: median of %zu intervals, and from the minima "
         "(ckpt min + step min - plain step min), which a passing load "
         "disturbs less.\n+step: the step with the tracker minus the plain "
         "step of the same interval (median of the differences); total = "
         "ckpt + (+step); /hash: total over hashing's total\n",
         intervals);
  printf("%-9s %-16s %8s %8s %8s %8s %7s %9s %7s %9s %8s\n", "pages",
         "method", "step", "ckpt", "+step", "total", "/hash", "min total",
         "/hash", "reported", "changed");
  int failures = 0;
  for (size_t ci = 0; ci < kCases; ++ci) {
    double hash_total = 0, hash_min_total = 0;
    for (int m = 0; m < kMethods; ++m) {
      if (!method_timed[m])
        continue;
      for (int with_hash = 0; with_hash <= (m != HASH && method_works[m]);
           ++with_hash) {
        double step[kMaxIntervals], plain[kMaxIntervals], ckpt[kMaxIntervals],
            added[kMaxIntervals], rep[kMaxIntervals], chg[kMaxIntervals];
        for (size_t r = 0; r < intervals; ++r) {
          const struct sample *s = &samples[ci][m][r];
          step[r] = s->step_ms;
          plain[r] = samples[ci][HASH][r].step_ms;
          ckpt[r] = s->ckpt_ms + (with_hash ? s->confirm_ms : 0);
          added[r] = step[r] - plain[r];
          rep[r] = (double)(with_hash ? s->confirmed : s->reported);
          chg[r] = (double)s->changed;
          if (with_hash)
            continue; // checked once per method
          if (method_works[m] && s->missed) {
            fprintf(stderr, "FAIL: %s missed %zu changed chunks (%s, interval %zu)\n",
                    method_name[m], s->missed, cases[ci].name, r);
            ++failures;
          }
          if (s->wrong) {
            fprintf(stderr, "FAIL: %s%s got %zu chunks wrong (%s, interval %zu)\n",
                    method_name[m], m == HASH ? "" : " + hash", s->wrong,
                    cases[ci].name, r);
            ++failures;
          }
        }
        double ckpt_med = median(ckpt, intervals),
               added_med = median(added, intervals),
               total_med = ckpt_med + added_med,
               total_min = minimum(ckpt, intervals) + minimum(step, intervals) -
                           minimum(plain, intervals);
        if (m == HASH)
          hash_total = total_med, hash_min_total = total_min;
        char name[32], reported_text[16];
        snprintf(name, sizeof name, "%s%s", method_name[m],
                 with_hash ? " + hash" : method_works[m] ? "" : " [off]");
        if (method_works[m])
          snprintf(reported_text, sizeof reported_text, "%.0f",
                   median(rep, intervals));
        else
          snprintf(reported_text, sizeof reported_text, "n/a");
        printf("%-9s %-16s %8.2f %8.2f %8.2f %8.2f %7.3f %9.2f %7.3f %9s %8.0f\n",
               cases[ci].name, name, median(step, intervals), ckpt_med,
               added_med, total_med, total_med / hash_total, total_min,
               total_min / hash_min_total, reported_text,
               median(chg, intervals));
      }
    }
    printf("%-9s (%zu pages written per interval)\n", "", pages_written[ci]);
  }

  for (int m = 0; m < kMethods; ++m)
    if (method_timed[m] && !method_works[m])
      printf("%s [off]: does not work on this kernel; its ckpt is the "
             "cost of the calls alone (no page is write-protected, none "
             "faults), its +step the noise of the step's measurement\n",
             method_name[m]);

  // What one fault costs: uffd-wp and soft-dirty fault once per page written,
  // mprotect once per chunk, from the case that writes every page.
  const size_t all = kAllPagesCase;
  printf("\nadded step time per fault (%s case, median):", cases[all].name);
  for (int m = 0; m < kMethods; ++m)
    if (m != HASH && method_works[m]) {
      double added[kMaxIntervals];
      for (size_t r = 0; r < intervals; ++r)
        added[r] = samples[all][m][r].step_ms - samples[all][HASH][r].step_ms;
      size_t faults = m == MPROTECT ? nchunks : pages_written[all];
      printf("  %s %.2f us", method_name[m],
             median(added, intervals) * 1e3 / faults);
    }
  printf("\n");
  failures += probe_failures;
  if (failures) {
    fprintf(stderr, "dirty: %d failures: a method missed or misreported "
                    "changed chunks\n", failures);
    return 1;
  }
  printf("check: every working tracker reported every changed chunk (and the "
         "kernel's write in its probe); hashing, alone or after a tracker, "
         "reported exactly the changed ones\n");
  return 0;
}
