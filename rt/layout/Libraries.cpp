//===- Libraries.cpp - Which shared libraries' state images hold ----------===//
//
// A library is saved if the executable needs it (the closure of DT_NEEDED
// from the executable: what the program was linked with, the libraries
// those need, and so on) and it is not one a new process re-creates:
//  - the loader, libc and its parts, the compiler runtimes (libstdc++,
//    libgcc_s, libomp, libgomp, libgfortran, flang's), the sanitizers, and
//    ccc's own dependencies: the list below, by file name;
//  - the MPI library and everything it needs: the closure of the libraries
//    that define PMPI_Init or the Fortran bindings' pmpi_init_ (found by
//    symbol, never by a path's spelling). MPI_Init builds all of it anew in
//    a restarted process, and a restore must not overwrite it;
//  - what is loaded with dlopen (MPI's components above all): not in the
//    executable's closure, it may not be loaded when a restart restores.
// Addresses are the same in every run (randomisation is off and the load
// map is checked), so a saved library's data is written back where it was.
//
// In a saved library's writable segment, two parts are left out: what
// becomes read-only after relocation (PT_GNU_RELRO) and the PLT's table of
// resolved addresses (DT_PLTGOT), which the loader of the new process has
// filled for its own link maps.
//
// A library compiled with the pass carries ccc_globals records as the
// executable does, found by section name in its file. Its globals are then
// saved as the program's are (left out when never written or dead at every
// site, thread-locals per thread, by name in `ckpt info`), through
// registeredGlobals; the rest of its writable data (objects compiled without
// the pass) stays saved whole.
//
//===----------------------------------------------------------------------===//
#include "Libraries.h"

#include "ElfSymbols.h"

#include "rt/common/Config.h"
#include "rt/common/LibcHeap.h"
#include "rt/common/Log.h"

#include "ccc/abi.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <link.h>

namespace ccc {
namespace {

constexpr int kMaxLibs = 512;
constexpr int kMaxNeeded = 64;

struct Lib {
  const char *Path; // the loader's string: stable while loaded
  const char *Soname;
  uintptr_t Bias;
  const ElfW(Phdr) * Ph;
  int NPh;
  const char *Needed[kMaxNeeded];
  int NNeeded;
  bool InClosure, MpiOwned, Listed, Saved;
  // The pass's records of a library compiled with it, else null.
  const ccc_global_record *RecBegin, *RecEnd;
};

struct CodeRange {
  uintptr_t Lo, Hi;
  bool Executable;
};
struct DataRange {
  uintptr_t Lo, Hi;
  int Lib;
};

Lib Libs[kMaxLibs];
int NLibs;
CodeRange Code[kMaxLibs];
int NCode; // published with a release store, read lock-free
DataRange Data[2 * kMaxLibs];
int NData;

// Libraries a new process re-creates, by file name (a prefix up to ".so").
// Keep it short: every name here is state a restart does not bring back.
const char *const kRecreated[] = {
    "ld-linux",   "linux-vdso", "libc.so",     "libm.so",     "libmvec.so",
    "libpthread", "libdl.so",   "librt.so",    "libutil.so",  "libresolv",
    "libanl.so",  "libnss_",    "libgcc_s",    "libstdc++",   "libatomic",
    "libomp.so",  "libgomp",    "libgfortran", "libquadmath", "libflang",
    "libFortran", "libpgmath",  "libasan",     "libubsan",    "liblsan",
    "libtsan",    "libzstd",    "libunwind",   "libccc"};

const char *baseName(const char *P) {
  const char *S = strrchr(P, '/');
  return S ? S + 1 : P;
}

bool listedRecreated(const char *Path) {
  const char *B = baseName(Path);
  for (const char *N : kRecreated)
    if (!strncmp(B, N, strlen(N)))
      return true;
  return false;
}

int findLib(const char *Name) {
  for (int I = 0; I < NLibs; ++I)
    if ((Libs[I].Soname && !strcmp(Libs[I].Soname, Name)) ||
        !strcmp(baseName(Libs[I].Path), Name))
      return I;
  return -1;
}

int libAt(uintptr_t A) {
  for (int I = 0; I < NLibs; ++I)
    for (int K = 0; K < Libs[I].NPh; ++K) {
      const ElfW(Phdr) &P = Libs[I].Ph[K];
      uintptr_t Lo = Libs[I].Bias + P.p_vaddr;
      if (P.p_type == PT_LOAD && A >= Lo && A - Lo < P.p_memsz)
        return I;
    }
  return -1;
}

// A dynamic entry's address: glibc relocates most of them in place, the
// vDSO's are not.
uintptr_t dynAddr(const Lib &L, ElfW(Addr) P) {
  return P < L.Bias ? L.Bias + P : P;
}

int noteLib(dl_phdr_info *Info, size_t, void *) {
  if (NLibs == kMaxLibs)
    return 1;
  Lib &L = Libs[NLibs++];
  L = Lib{};
  L.Path = Info->dlpi_name ? Info->dlpi_name : "";
  L.Bias = Info->dlpi_addr;
  L.Ph = Info->dlpi_phdr;
  L.NPh = Info->dlpi_phnum;
  const ElfW(Dyn) *Dyn = nullptr;
  for (int K = 0; K < L.NPh; ++K)
    if (L.Ph[K].p_type == PT_DYNAMIC)
      Dyn = reinterpret_cast<const ElfW(Dyn) *>(L.Bias + L.Ph[K].p_vaddr);
  if (!Dyn || !strncmp(baseName(L.Path), "linux-vdso", 10))
    return 0;
  const char *Str = nullptr;
  for (const ElfW(Dyn) *D = Dyn; D->d_tag != DT_NULL; ++D)
    if (D->d_tag == DT_STRTAB)
      Str = reinterpret_cast<const char *>(dynAddr(L, D->d_un.d_ptr));
  if (!Str)
    return 0;
  for (const ElfW(Dyn) *D = Dyn; D->d_tag != DT_NULL; ++D) {
    if (D->d_tag == DT_SONAME)
      L.Soname = Str + D->d_un.d_val;
    else if (D->d_tag == DT_NEEDED && L.NNeeded < kMaxNeeded)
      L.Needed[L.NNeeded++] = Str + D->d_un.d_val;
  }
  return 0;
}

// Marks I and everything it needs with the flag Member.
void markClosure(int I, bool Lib::*Member) {
  if (I < 0 || Libs[I].*Member)
    return;
  Libs[I].*Member = true;
  for (int K = 0; K < Libs[I].NNeeded; ++K)
    markClosure(findLib(Libs[I].Needed[K]), Member);
}

// The libraries of the MPI implementation: those defining the profiling
// entry points (the C library and the Fortran bindings' own).
void markMpi() {
  static const char *const Entry[] = {"PMPI_Init", "pmpi_init_", "pmpi_init__",
                                      "PMPI_INIT"};
  for (const char *E : Entry) {
    void *P = dlsym(RTLD_DEFAULT, E);
    int I = P ? libAt(reinterpret_cast<uintptr_t>(P)) : -1;
    if (I > 0) // not the executable
      markClosure(I, &Lib::MpiOwned);
  }
}

void addRange(uintptr_t Lo, uintptr_t Hi, int LibIdx) {
  if (Hi > Lo && NData < 2 * kMaxLibs)
    Data[NData++] = {Lo, Hi, LibIdx};
}

// Adds [Lo, Hi) less the holes H, sorted by start (they may overlap).
void addWithout(uintptr_t Lo, uintptr_t Hi, const CodeRange *H, int NH,
                int LibIdx) {
  for (int K = 0; K < NH && Lo < Hi; ++K) {
    if (H[K].Hi <= Lo || H[K].Lo >= Hi)
      continue;
    if (H[K].Lo > Lo)
      addRange(Lo, H[K].Lo, LibIdx);
    Lo = H[K].Hi;
  }
  if (Lo < Hi)
    addRange(Lo, Hi, LibIdx);
}

void addCode(int I) {
  const Lib &L = Libs[I];
  for (int K = 0; K < L.NPh; ++K) {
    const ElfW(Phdr) &P = L.Ph[K];
    int N = NCode;
    if (P.p_type == PT_LOAD && (P.p_flags & PF_X) && N < kMaxLibs) {
      Code[N] = {L.Bias + P.p_vaddr, L.Bias + P.p_vaddr + P.p_memsz, I == 0};
      NCode = N + 1;
    }
  }
}

// The records of the pass in library I: its section ccc_globals, found in
// the library's file (the linker exports its bounds only when something in
// the library refers to them).
void findRecords(int I) {
  Lib &L = Libs[I];
  ElfFile F;
  if (!F.openFile(L.Path))
    return;
  const Elf64_Shdr *S = F.section(CCC_GLOBALS_SECTION);
  if (S && (S->sh_flags & SHF_ALLOC) &&
      S->sh_size >= sizeof(ccc_global_record)) {
    L.RecBegin =
        reinterpret_cast<const ccc_global_record *>(L.Bias + S->sh_addr);
    L.RecEnd = L.RecBegin + S->sh_size / sizeof(ccc_global_record);
    if (libAt(reinterpret_cast<uintptr_t>(L.RecBegin)) != I)
      L.RecBegin = L.RecEnd = nullptr; // not the file that is loaded
  }
  F.close();
}

int byLo(const void *A, const void *B) {
  uintptr_t X = static_cast<const CodeRange *>(A)->Lo;
  uintptr_t Y = static_cast<const CodeRange *>(B)->Lo;
  return X < Y ? -1 : X > Y;
}

void addSavedLibrary(int I) {
  Lib &L = Libs[I];
  findRecords(I);
  // Holes: RELRO, the PLT's GOT, and the objects the pass's records
  // describe (saved, or left out, as globals).
  int MaxHoles = 2 + int(L.RecEnd - L.RecBegin);
  auto *Holes =
      static_cast<CodeRange *>(__libc_malloc(MaxHoles * sizeof(CodeRange)));
  if (!Holes)
    fatal("out of memory");
  int NH = 0;
  const ElfW(Dyn) *Dyn = nullptr;
  for (int K = 0; K < L.NPh; ++K) {
    const ElfW(Phdr) &P = L.Ph[K];
    if (P.p_type == PT_GNU_RELRO)
      Holes[NH++] = {L.Bias + P.p_vaddr, L.Bias + P.p_vaddr + P.p_memsz, false};
    if (P.p_type == PT_DYNAMIC)
      Dyn = reinterpret_cast<const ElfW(Dyn) *>(L.Bias + P.p_vaddr);
  }
  uintptr_t PltGot = 0, PltRelSz = 0;
  for (const ElfW(Dyn) *D = Dyn; D && D->d_tag != DT_NULL; ++D) {
    if (D->d_tag == DT_PLTGOT)
      PltGot = dynAddr(L, D->d_un.d_ptr);
    if (D->d_tag == DT_PLTRELSZ)
      PltRelSz = D->d_un.d_val;
  }
  if (PltGot)
    Holes[NH++] = {PltGot, PltGot + 8 * (3 + PltRelSz / sizeof(ElfW(Rela))),
                   false};
  for (const ccc_global_record *R = L.RecBegin; R != L.RecEnd; ++R)
    if (R->addr && R->size && !(R->flags & CCC_GLOBAL_TLS)) {
      uintptr_t A = reinterpret_cast<uintptr_t>(R->addr);
      Holes[NH++] = {A, A + R->size, false};
    }
  qsort(Holes, NH, sizeof(CodeRange), byLo);
  for (int K = 0; K < L.NPh; ++K) {
    const ElfW(Phdr) &P = L.Ph[K];
    if (P.p_type != PT_LOAD)
      continue;
    uintptr_t Lo = L.Bias + P.p_vaddr, Hi = Lo + P.p_memsz;
    if (P.p_flags & PF_W)
      addWithout(Lo, Hi, Holes, NH, I);
  }
  __libc_free(Holes);
  addCode(I);
}

} // namespace

bool librariesSaved() { return Cfg.SaveLibraries; }

static bool Scanned;
bool librariesScanned() { return Scanned; }

void scanLibraries() {
  if (Scanned)
    return;
  Scanned = true;
  if (!Cfg.SaveLibraries)
    return;
  dl_iterate_phdr(noteLib, nullptr);
  if (NLibs == 0)
    return;
  markClosure(0, &Lib::InClosure); // the executable comes first
  markMpi();
  // The executable's code counts as a saved library's: its own calls reach
  // the region through --wrap, and a return address in it reaching malloc
  // is a library's tail call (fftw_alloc_complex ends in a jump to
  // memalign) made on the program's behalf.
  addCode(0);
  int NSaved = 0;
  for (int I = 1; I < NLibs; ++I) {
    Lib &L = Libs[I];
    L.Listed = listedRecreated(L.Path);
    L.Saved = L.InClosure && !L.MpiOwned && !L.Listed && L.Path[0];
    if (L.Saved) {
      addSavedLibrary(I);
      ++NSaved;
    }
    CCC_DEBUG("library %s: %s", L.Path,
              L.RecBegin   ? "saved (compiled with ccc: its globals precisely)"
              : L.Saved    ? "saved"
              : L.Listed   ? "re-created (ccc's list)"
              : L.MpiOwned ? "re-created (MPI's)"
                           : "not linked (dlopen)");
  }
  std::sort(Data, Data + NData,
            [](const DataRange &A, const DataRange &B) { return A.Lo < B.Lo; });
  int N = NCode;
  NCode = 0; // unpublished while sorting
  std::sort(Code, Code + N,
            [](const CodeRange &A, const CodeRange &B) { return A.Lo < B.Lo; });
  // Published last: savedLibraryCode reads without a lock.
  __atomic_store_n(&NCode, N, __ATOMIC_RELEASE);
  CCC_DEBUG("%d of %d libraries saved", NSaved, NLibs - 1);
}

// Not instrumented: malloc asks, also before the sanitizer's shadow exists.
__attribute__((no_sanitize("address"))) CodeOwner codeOwner(uintptr_t PC) {
  int N = __atomic_load_n(&NCode, __ATOMIC_ACQUIRE);
  int Lo = 0, Hi = N;
  while (Lo < Hi) {
    int M = (Lo + Hi) / 2;
    if (PC < Code[M].Lo)
      Hi = M;
    else if (PC >= Code[M].Hi)
      Lo = M + 1;
    else
      return Code[M].Executable ? CodeOwner::Executable
                                : CodeOwner::SavedLibrary;
  }
  return CodeOwner::Other;
}

void forEachSavedLibraryRange(void (*Fn)(uintptr_t, size_t, const char *,
                                         void *),
                              void *Ctx) {
  for (int I = 0; I < NData; ++I)
    Fn(Data[I].Lo, Data[I].Hi - Data[I].Lo, Libs[Data[I].Lib].Path, Ctx);
}

bool inSavedLibraryData(uintptr_t Addr, uint64_t Len) {
  for (int I = 0; I < NData; ++I)
    if (Addr >= Data[I].Lo && Addr < Data[I].Hi && Len <= Data[I].Hi - Addr)
      return true;
  return false;
}

void forEachLibraryRecordTable(void (*Fn)(const ccc_global_record *Begin,
                                          const ccc_global_record *End,
                                          void *Ctx),
                               void *Ctx) {
  for (int I = 1; I < NLibs; ++I)
    if (Libs[I].Saved && Libs[I].RecBegin)
      Fn(Libs[I].RecBegin, Libs[I].RecEnd, Ctx);
}

bool inLibrary(uintptr_t Addr) { return libAt(Addr) > 0; }

const char *savedLibraryAt(uintptr_t Addr) {
  int I = libAt(Addr);
  return I > 0 && Libs[I].Saved ? Libs[I].Path : nullptr;
}

} // namespace ccc
