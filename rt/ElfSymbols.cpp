//===- ElfSymbols.cpp - The executable's own symbol table -----------------===//
#include "ElfSymbols.h"

#include "LibcHeap.h"

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {
namespace {
int firstObjectBias(struct dl_phdr_info *Info, size_t, void *Out) {
  *static_cast<uintptr_t *>(Out) = Info->dlpi_addr;
  return 1; // the first object is the executable
}
} // namespace

bool ElfFile::openSelf() {
  int Fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  struct stat St;
  if (Fd < 0 || fstat(Fd, &St) != 0) {
    if (Fd >= 0)
      ::close(Fd);
    return false;
  }
  void *Map = mmap(nullptr, St.st_size, PROT_READ, MAP_PRIVATE, Fd, 0);
  ::close(Fd);
  if (Map == MAP_FAILED)
    return false;
  Base = static_cast<const char *>(Map);
  Size = St.st_size;
  Eh = reinterpret_cast<const Elf64_Ehdr *>(Base);
  if (Size < sizeof(Elf64_Ehdr) || memcmp(Eh->e_ident, ELFMAG, SELFMAG) ||
      Eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      Eh->e_shoff + (size_t)Eh->e_shnum * sizeof(Elf64_Shdr) > Size) {
    close();
    return false;
  }
  Sh = reinterpret_cast<const Elf64_Shdr *>(Base + Eh->e_shoff);
  ShStr = Base + Sh[Eh->e_shstrndx].sh_offset;
  for (unsigned I = 0; I < Eh->e_shnum; ++I)
    if (Sh[I].sh_type == SHT_SYMTAB) {
      Syms = reinterpret_cast<const Elf64_Sym *>(Base + Sh[I].sh_offset);
      NSyms = Sh[I].sh_size / sizeof(Elf64_Sym);
      Str = Base + Sh[Sh[I].sh_link].sh_offset;
    }
  dl_iterate_phdr(firstObjectBias, &Bias);
  return true;
}

void ElfFile::close() {
  if (Base)
    munmap(const_cast<char *>(Base), Size);
  *this = ElfFile();
}

namespace {
struct FunctionSym {
  uintptr_t Lo, Hi;
  const char *Name; // in strings copied out of the file
};
} // namespace

// The executable's functions, read once; null if none.
static const FunctionSym *functionSymAt(uintptr_t IP, uintptr_t *BiasOut) {
  static FunctionSym *Funcs;
  static size_t NFuncs;
  static uintptr_t Bias;
  static bool Loaded;
  if (!Loaded) {
    Loaded = true;
    ElfFile E;
    if (!E.openSelf())
      return nullptr;
    size_t N = 0, Bytes = 0;
    for (size_t I = 0; E.Syms && I < E.NSyms; ++I)
      if (ELF64_ST_TYPE(E.Syms[I].st_info) == STT_FUNC && E.Syms[I].st_size) {
        ++N;
        Bytes += strlen(E.Str + E.Syms[I].st_name) + 1;
      }
    Funcs = static_cast<FunctionSym *>(
        __libc_malloc(N * sizeof(FunctionSym) + Bytes + 1));
    char *Names = reinterpret_cast<char *>(Funcs + N);
    for (size_t I = 0; Funcs && E.Syms && I < E.NSyms; ++I) {
      const Elf64_Sym &S = E.Syms[I];
      if (ELF64_ST_TYPE(S.st_info) != STT_FUNC || !S.st_size)
        continue;
      size_t L = strlen(E.Str + S.st_name) + 1;
      memcpy(Names, E.Str + S.st_name, L);
      Funcs[NFuncs++] = {E.Bias + S.st_value, E.Bias + S.st_value + S.st_size,
                         Names};
      Names += L;
    }
    Bias = E.Bias;
    E.close();
    std::sort(Funcs, Funcs + NFuncs,
              [](const FunctionSym &X, const FunctionSym &Y) {
                return X.Lo < Y.Lo;
              });
  }
  const FunctionSym *Above = std::upper_bound(
      Funcs, Funcs + NFuncs, IP,
      [](uintptr_t V, const FunctionSym &F) { return V < F.Lo; });
  if (BiasOut)
    *BiasOut = Bias;
  return Above != Funcs && IP < Above[-1].Hi ? &Above[-1] : nullptr;
}

const char *executableFunctionAt(uintptr_t IP) {
  const FunctionSym *F = functionSymAt(IP, nullptr);
  return F ? F->Name : nullptr;
}

void describeExecutableAddress(uintptr_t IP, char *Out, size_t Cap) {
  uintptr_t Bias = 0;
  const FunctionSym *F = functionSymAt(IP, &Bias);
  unsigned long long Rel = IP - Bias;
  if (F)
    snprintf(Out, Cap, "%s+0x%llx [0x%llx]", F->Name,
             (unsigned long long)(IP - F->Lo), Rel);
  else
    snprintf(Out, Cap, "[0x%llx]", Rel);
}
} // namespace ccc
