//===- UnsavedGlobals.cpp - Find writable data no checkpoint would save ---===//
//
// Only globals described by the pass (ccc_globals records) are saved. An
// object compiled without the plugin links fine, but its globals would come
// back from a restart with their initial values: silent corruption. So at
// start the runtime reads the executable's symbol table and lists every
// writable data object (.data/.bss) no record covers, minus the state of
// libraries that is knowingly not saved (the C start files, the Fortran
// runtime, the ccc runtime itself, copy-relocated library variables).
// CCC_UNSAVED=error (default) stops with that list; warn reports and runs.
//
//===----------------------------------------------------------------------===//
#include "UnsavedGlobals.h"

#include "ElfSymbols.h"
#include "Process.h"
#include "rt/common/Config.h"
#include "rt/common/LibcHeap.h"
#include "rt/common/Log.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {
namespace {

// Library state that is deliberately not saved: it is rebuilt by its own
// initialisation on every start (see docs/languages.md).
bool isLibraryState(const char *Name, const char *File) {
  static const char *const Prefixes[] = {
      "__ccc_", "_ZN3ccc", "_ZZN3ccc", "_ZGVZN3ccc",
      // Flang's runtime (Fortran::runtime, Fortran::decimal, _FortranA*).
      "_ZN7Fortran", "_ZZN7Fortran", "_ZGVZN7Fortran",
      // The C/C++ start files and unwinder glue.
      "__dso_handle", "__TMC_END__", "DW.ref.", "completed.", "__cpu_model",
      "__cpu_features",
      // A sanitized runtime's bookkeeping (ODR indicators, the registered
      // flag of its globals), set again by the sanitizer's constructors.
      "__odr_asan_gen_", "___asan_globals_registered"};
  for (const char *P : Prefixes)
    if (!strncmp(Name, P, strlen(P)))
      return true;
  // Function-local statics of the runtimes: _ZZ<len>__ccc_... and
  // _ZZ<len>_FortranA...
  if (!strncmp(Name, "_ZZ", 3) || !strncmp(Name, "_ZGVZ", 5)) {
    const char *P = Name + (Name[2] == 'Z' ? 3 : 5);
    while (*P >= '0' && *P <= '9')
      ++P;
    if (!strncmp(P, "__ccc_", 6) || !strncmp(P, "_FortranA", 9))
      return true;
  }
  return File && !strcmp(File, "crtstuff.c");
}

struct Range {
  uintptr_t Lo, Hi;
};

int byLo(const void *A, const void *B) {
  uintptr_t X = static_cast<const Range *>(A)->Lo;
  uintptr_t Y = static_cast<const Range *>(B)->Lo;
  return X < Y ? -1 : X > Y;
}

// Whether [Lo, Hi) lies inside one of the sorted, disjoint ranges.
bool covered(const Range *R, size_t N, uintptr_t Lo, uintptr_t Hi) {
  const Range *Above = std::upper_bound(
      R, R + N, Lo, [](uintptr_t V, const Range &X) { return V < X.Lo; });
  return Above != R && Lo < Above[-1].Hi && Hi <= Above[-1].Hi;
}

// Writable data the program may change after start (.data.rel.ro is made
// read-only once relocated).
bool isSavedDataSection(const char *Name) {
  if (!strncmp(Name, ".data.rel.ro", 12))
    return false;
  return !strcmp(Name, ".data") || !strcmp(Name, ".bss") ||
         !strncmp(Name, ".data.", 6) || !strncmp(Name, ".bss.", 5);
}

} // namespace

void checkUnsavedGlobals() {
  if (Cfg.Unsaved == UnsavedPolicy::Ignore)
    return;
  ElfFile E;
  if (!E.openSelf())
    return;
  const char *Base = E.Base;
  const Elf64_Ehdr *Eh = E.Eh;
  const Elf64_Shdr *Sh = E.Sh;
  const char *ShStr = E.ShStr;
  if (!E.Syms) {
    CCC_INFO("the executable has no symbol table (stripped): cannot check "
             "that every object was compiled with the ccc pass");
    E.close();
    return;
  }
  uintptr_t Bias = E.Bias;

  // Copy-relocated library variables (stdout, std::cout in non-PIE
  // executables) live in our .bss but belong to their libraries.
  size_t NCopies = 0, CopyCap = 0;
  uint64_t *Copies = nullptr;
  for (unsigned I = 0; I < Eh->e_shnum; ++I) {
    if (Sh[I].sh_type != SHT_RELA)
      continue;
    auto *R = reinterpret_cast<const Elf64_Rela *>(Base + Sh[I].sh_offset);
    for (size_t K = 0; K < Sh[I].sh_size / sizeof(Elf64_Rela); ++K) {
      if (ELF64_R_TYPE(R[K].r_info) != R_X86_64_COPY)
        continue;
      if (NCopies == CopyCap) {
        CopyCap = CopyCap ? 2 * CopyCap : 16;
        Copies = static_cast<uint64_t *>(
            __libc_realloc(Copies, CopyCap * sizeof(uint64_t)));
      }
      Copies[NCopies++] = R[K].r_offset;
    }
  }

  size_t NGlobals;
  const GlobalRange *G = registeredGlobals(&NGlobals);
  Range *Saved =
      static_cast<Range *>(__libc_malloc((NGlobals + 1) * sizeof(Range)));
  size_t NSaved = 0;
  for (size_t I = 0; I < NGlobals; ++I)
    if (!G[I].TlsGetter)
      Saved[NSaved++] = {G[I].Addr, G[I].Addr + G[I].Size};
  qsort(Saved, NSaved, sizeof(Range), byLo);
  size_t Out = 0; // merge into disjoint ranges
  for (size_t I = 0; I < NSaved; ++I) {
    if (Out && Saved[I].Lo <= Saved[Out - 1].Hi) {
      if (Saved[I].Hi > Saved[Out - 1].Hi)
        Saved[Out - 1].Hi = Saved[I].Hi;
      continue;
    }
    Saved[Out++] = Saved[I];
  }
  NSaved = Out;

  const Elf64_Sym *Syms = E.Syms;
  size_t NSyms = E.NSyms;
  const char *Str = E.Str;
  const char *File = nullptr;
  size_t Unsaved = 0;
  uint64_t UnsavedBytes = 0;
  char List[1024];
  size_t Len = 0;
  List[0] = 0;
  for (size_t I = 0; I < NSyms; ++I) {
    const Elf64_Sym &S = Syms[I];
    const char *Name = Str + S.st_name;
    if (ELF64_ST_TYPE(S.st_info) == STT_FILE) {
      File = Name;
      continue;
    }
    if (ELF64_ST_TYPE(S.st_info) != STT_OBJECT || S.st_size == 0 ||
        S.st_shndx == SHN_UNDEF || S.st_shndx >= SHN_LORESERVE ||
        S.st_shndx >= Eh->e_shnum)
      continue;
    const Elf64_Shdr &Sec = Sh[S.st_shndx];
    if (!(Sec.sh_flags & SHF_WRITE) || !(Sec.sh_flags & SHF_ALLOC) ||
        (Sec.sh_flags & SHF_TLS) || !isSavedDataSection(ShStr + Sec.sh_name))
      continue;
    bool Local = ELF64_ST_BIND(S.st_info) == STB_LOCAL;
    if (isLibraryState(Name, Local ? File : nullptr))
      continue;
    bool Copy = false;
    for (size_t K = 0; K < NCopies && !Copy; ++K)
      Copy = Copies[K] == S.st_value;
    if (Copy)
      continue;
    uintptr_t Lo = Bias + S.st_value;
    if (covered(Saved, NSaved, Lo, Lo + S.st_size))
      continue;
    ++Unsaved;
    UnsavedBytes += S.st_size;
    if (Unsaved <= 8 && Len < sizeof(List) - 1) {
      int W = snprintf(List + Len, sizeof(List) - Len, "%s%s%s%s%s",
                       Unsaved > 1 ? ", " : "", Name, Local ? " (" : "",
                       Local ? File : "", Local ? ")" : "");
      if (W > 0)
        Len += (size_t)W < sizeof(List) - Len ? W : sizeof(List) - 1 - Len;
    }
  }
  __libc_free(Saved);
  __libc_free(Copies);
  E.close();
  if (!Unsaved)
    return;

  const char *More = Unsaved > 8 ? ", ..." : "";
  if (Cfg.Unsaved == UnsavedPolicy::Error)
    fatal("%zu writable global%s (%llu bytes) would not be saved by "
          "checkpoints: %s%s. Their objects were compiled without the ccc "
          "pass; compile every object with -fpass-plugin=libccc.so (or "
          "ckpt-cc/ckpt-c++/ckpt-fc), or set CCC_UNSAVED=warn to run anyway "
          "(after a restart they would hold their values from program "
          "start)",
          Unsaved, Unsaved == 1 ? "" : "s", (unsigned long long)UnsavedBytes,
          List, More);
  logMessage("warning: %zu writable global%s (%llu bytes) are not saved by "
             "checkpoints (objects compiled without the ccc pass): %s%s; "
             "after a restart they hold their values from program start",
             Unsaved, Unsaved == 1 ? "" : "s", (unsigned long long)UnsavedBytes,
             List, More);
}
} // namespace ccc
