//===- Process.cpp - What identifies this process's layout ----------------===//
#include "Process.h"
#include "ElfSymbols.h"
#include "Libraries.h"
#include "ProgramStack.h"
#include "rt/common/Hash.h"
#include "rt/common/LibcHeap.h"
#include "rt/common/Log.h"

#include "ccc/abi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

// Linker-made bounds of the records the pass emits; weak so a program with
// no instrumented module still links.
extern "C" {
extern const ccc_global_record __start_ccc_globals[] __attribute__((weak));
extern const ccc_global_record __stop_ccc_globals[] __attribute__((weak));
}

namespace ccc {
StackRange ProgramStack;

namespace {
struct BuildIdSearch {
  uint8_t *Out;
  uint32_t Cap, Len;
};
} // namespace

static int findBuildId(struct dl_phdr_info *Info, size_t, void *Data) {
  auto *S = static_cast<BuildIdSearch *>(Data);
  // The first object is the executable.
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    if (P.p_type != PT_NOTE)
      continue;
    const char *N = reinterpret_cast<const char *>(Info->dlpi_addr + P.p_vaddr);
    const char *End = N + P.p_memsz;
    while (N + sizeof(ElfW(Nhdr)) <= End) {
      auto *H = reinterpret_cast<const ElfW(Nhdr) *>(N);
      const char *Name = N + sizeof(*H);
      const char *Desc = Name + ((H->n_namesz + 3) & ~3u);
      if (H->n_type == NT_GNU_BUILD_ID && H->n_namesz == 4 &&
          !memcmp(Name, "GNU", 4)) {
        S->Len = H->n_descsz < S->Cap ? H->n_descsz : S->Cap;
        memcpy(S->Out, Desc, S->Len);
        return 1;
      }
      N = Desc + ((H->n_descsz + 3) & ~3u);
    }
  }
  return 1; // only the executable
}

uint32_t executableBuildId(uint8_t *Out, uint32_t Cap) {
  BuildIdSearch S = {Out, Cap, 0};
  dl_iterate_phdr(findBuildId, &S);
  if (S.Len)
    return S.Len;
  // No build id note: hash the executable's bytes instead.
  int Fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  uint64_t H = 0x6e6f2d6964;
  if (Fd >= 0) {
    static char Buf[1 << 16];
    ssize_t N;
    while ((N = read(Fd, Buf, sizeof(Buf))) > 0)
      H = hashChain(H, hashBytes(Buf, N));
    close(Fd);
  }
  uint32_t L = Cap < 8 ? Cap : 8;
  memcpy(Out, &H, L);
  return L;
}

size_t currentLoadMap(char *Buf, size_t Cap) {
  size_t Len = 0;
  Buf[0] = 0;
  FILE *F = fopen("/proc/self/maps", "re");
  if (!F)
    return 0;
  char Line[4096 + 128];
  while (fgets(Line, sizeof(Line), F)) {
    unsigned long Start, End, Off;
    char Perm[8];
    int PathPos = 0;
    if (sscanf(Line, "%lx-%lx %7s %lx %*s %*s %n", &Start, &End, Perm, &Off,
               &PathPos) < 4 ||
        !PathPos)
      continue;
    char *Path = Line + PathPos;
    Path[strcspn(Path, "\n")] = 0;
    bool File = Path[0] == '/' && Off == 0;
    if (!File && strcmp(Path, "[vdso]") != 0)
      continue;
    int N = snprintf(Buf + Len, Cap - Len, "%lx %s\n", Start, Path);
    if (N < 0 || (size_t)N >= Cap - Len)
      break;
    Len += N;
  }
  fclose(F);
  return Len;
}

// Finds "addr path" for Path in Map; returns the address or 0.
static unsigned long addressOf(const char *Map, const char *Path,
                               size_t PathLen) {
  for (const char *L = Map; *L;) {
    const char *Nl = strchr(L, '\n');
    size_t LineLen = Nl ? (size_t)(Nl - L) : strlen(L);
    const char *Sp = static_cast<const char *>(memchr(L, ' ', LineLen));
    if (Sp && (size_t)(L + LineLen - Sp - 1) == PathLen &&
        !memcmp(Sp + 1, Path, PathLen))
      return strtoul(L, nullptr, 16);
    L += LineLen + (Nl ? 1 : 0);
  }
  return 0;
}

bool loadMapsCompatible(const char *Saved, const char *Now, char *Why,
                        size_t WhyCap) {
  for (const char *L = Saved; *L;) {
    const char *Nl = strchr(L, '\n');
    size_t LineLen = Nl ? (size_t)(Nl - L) : strlen(L);
    const char *Sp = static_cast<const char *>(memchr(L, ' ', LineLen));
    if (Sp) {
      unsigned long Was = strtoul(L, nullptr, 16);
      size_t PathLen = L + LineLen - Sp - 1;
      unsigned long Is = addressOf(Now, Sp + 1, PathLen);
      // A library not mapped yet may still be loaded later (dlopen); one
      // mapped elsewhere means pointers into it would be wrong.
      if (Is && Is != Was) {
        snprintf(Why, WhyCap,
                 "%.*s is mapped at 0x%lx, the image expects 0x%lx",
                 (int)PathLen, Sp + 1, Is, Was);
        return false;
      }
    }
    L += LineLen + (Nl ? 1 : 0);
  }
  return true;
}

static int byAddr(const void *A, const void *B) {
  const GlobalRange *X = static_cast<const GlobalRange *>(A);
  const GlobalRange *Y = static_cast<const GlobalRange *>(B);
  if (X->TlsGetter != Y->TlsGetter)
    return reinterpret_cast<uintptr_t>(X->TlsGetter) <
                   reinterpret_cast<uintptr_t>(Y->TlsGetter)
               ? -1
               : 1;
  return X->Addr < Y->Addr ? -1 : X->Addr > Y->Addr;
}

namespace {
struct RecordTables {
  const ccc_global_record *Begin[64], *End[64];
  int N;
  size_t Records;
};

void addRecordTable(const ccc_global_record *B, const ccc_global_record *E,
                    void *Ctx) {
  auto *T = static_cast<RecordTables *>(Ctx);
  for (int I = 0; I < T->N; ++I)
    if (T->Begin[I] == B)
      return; // the executable's weak bounds resolved to this library's
  if (T->N == 64)
    fatal("more than 63 shared libraries compiled with ccc");
  T->Begin[T->N] = B;
  T->End[T->N++] = E;
  T->Records += E - B;
}
} // namespace

// The executable's records, then those of the saved libraries compiled
// with the pass (scanLibraries runs first), then the compiler runtime's
// few objects a restart must bring back (compilerRuntimeState).
const GlobalRange *registeredGlobals(size_t *Count) {
  static GlobalRange *Table;
  static size_t N;
  static bool WithLibraries;
  // A static constructor's ccc_exclude may ask before the scan: built again
  // once the libraries are known.
  if (!Table || (!WithLibraries && librariesScanned())) {
    __libc_free(Table);
    N = 0;
    WithLibraries = librariesScanned();
    RecordTables T = {};
    // Weak bounds: with no instrumented module in the executable they may
    // bind to a library's exported ones, which the library's turn takes.
    if (__start_ccc_globals && __stop_ccc_globals &&
        !inLibrary(reinterpret_cast<uintptr_t>(__start_ccc_globals)))
      addRecordTable(__start_ccc_globals, __stop_ccc_globals, &T);
    forEachLibraryRecordTable(addRecordTable, &T);
    uintptr_t RtAddr[8];
    uint64_t RtSize[8];
    size_t NRt = compilerRuntimeState(RtAddr, RtSize, 8);
    Table = static_cast<GlobalRange *>(
        __libc_calloc(T.Records + NRt + 1, sizeof(GlobalRange)));
    if (!Table)
      fatal("out of memory");
    for (int K = 0; K < T.N; ++K)
      for (const ccc_global_record *R = T.Begin[K]; R != T.End[K]; ++R) {
        if (!R->addr || !R->size)
          continue;
        GlobalRange &G = Table[N++];
        G.Size = R->size;
        G.Name = R->name;
        G.Flags = R->flags;
        if (R->flags & CCC_GLOBAL_TLS)
          G.TlsGetter = reinterpret_cast<void *(*)()>(R->addr);
        else
          G.Addr = reinterpret_cast<uintptr_t>(R->addr);
      }
    for (size_t I = 0; I < NRt; ++I)
      Table[N++] = {RtAddr[I], RtSize[I], "flang RANDOM_NUMBER state", nullptr,
                    0};
    qsort(Table, N, sizeof(GlobalRange), byAddr);
    // Merge duplicates and overlaps (the same object registered by several
    // modules).
    size_t Out = 0;
    for (size_t I = 0; I < N; ++I) {
      if (Out && !Table[I].TlsGetter && !Table[Out - 1].TlsGetter &&
          Table[I].Addr < Table[Out - 1].Addr + Table[Out - 1].Size) {
        uintptr_t End = Table[I].Addr + Table[I].Size;
        if (End > Table[Out - 1].Addr + Table[Out - 1].Size)
          Table[Out - 1].Size = End - Table[Out - 1].Addr;
        // Saved if any module's record says it may be written: the
        // not-saved flags hold only if every record has them.
        const uint32_t NotSaved = CCC_GLOBAL_NEVER_WRITTEN |
                                  CCC_GLOBAL_DEAD_AT_SITES |
                                  CCC_GLOBAL_OPENMP_STATE;
        Table[Out - 1].Flags &= Table[I].Flags | ~NotSaved;
        continue;
      }
      if (Out && Table[I].TlsGetter &&
          Table[I].TlsGetter == Table[Out - 1].TlsGetter)
        continue;
      Table[Out++] = Table[I];
    }
    N = Out;
  }
  *Count = N;
  return Table;
}
} // namespace ccc
