//===- ElfSymbols.cpp - The executable's own symbol table -----------------===//
#include "ElfSymbols.h"

#include "rt/common/LibcHeap.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
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
  if (!openFile("/proc/self/exe"))
    return false;
  dl_iterate_phdr(firstObjectBias, &Bias);
  return true;
}

bool ElfFile::openFile(const char *Path) {
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
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
  return true;
}

const Elf64_Shdr *ElfFile::section(const char *Name) const {
  for (unsigned I = 0; Sh && I < Eh->e_shnum; ++I)
    if (Sh[I].sh_name < Size && !strcmp(ShStr + Sh[I].sh_name, Name))
      return &Sh[I];
  return nullptr;
}

void ElfFile::close() {
  if (Base)
    munmap(const_cast<char *>(Base), Size);
  *this = ElfFile();
}

size_t compilerRuntimeState(uintptr_t *Addr, uint64_t *Size, size_t Cap) {
  ElfFile E;
  if (!E.openSelf())
    return 0;
  // flang's RANDOM_NUMBER generator: Fortran::runtime::random::generator
  // and its cached nextValue (not its mutex). RANDOM_SEED(PUT=) and every
  // RANDOM_NUMBER move it; the rest of the runtime's state is rebuilt.
  static const char Prefix[] = "_ZN7Fortran7runtime6random";
  size_t N = 0;
  for (size_t I = 0; E.Syms && I < E.NSyms && N < Cap; ++I) {
    const Elf64_Sym &S = E.Syms[I];
    const char *Name = E.Str + S.st_name;
    if (ELF64_ST_TYPE(S.st_info) != STT_OBJECT || !S.st_size ||
        S.st_shndx == SHN_UNDEF || strncmp(Name, Prefix, sizeof(Prefix) - 1) ||
        !strcmp(Name + sizeof(Prefix) - 1, "4lockE"))
      continue;
    Addr[N] = E.Bias + S.st_value;
    Size[N++] = S.st_size;
  }
  E.close();
  return N;
}

namespace {
struct FunctionSym {
  uintptr_t Lo, Hi;
  const char *Name; // in strings copied out of the file
};
} // namespace

static FunctionSym *Funcs;
static size_t NFuncs;
static uintptr_t ExeBias;

// Set on the thread reading the symbols: reading opens and maps the
// executable, which can come back here (the open of a ccc link is wrapped,
// rt/files/FortranUnits.cpp, and asks whose call it is): such a question gets
// no answer rather than waiting for the read it is part of.
static thread_local bool LoadingHere;

// Reads the executable's functions (once: the allocator may ask from any
// thread, see AllocationSite.cpp).
static void loadFunctionSyms() {
  struct Loading {
    Loading() { LoadingHere = true; }
    ~Loading() { LoadingHere = false; }
  } L;
  ElfFile E;
  if (!E.openSelf())
    return;
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
  ExeBias = E.Bias;
  E.close();
  std::sort(
      Funcs, Funcs + NFuncs,
      [](const FunctionSym &X, const FunctionSym &Y) { return X.Lo < Y.Lo; });
}

// The executable's function containing IP; null if none.
static const FunctionSym *functionSymAt(uintptr_t IP, uintptr_t *BiasOut) {
  static pthread_once_t Once = PTHREAD_ONCE_INIT;
  if (LoadingHere)
    return nullptr;
  pthread_once(&Once, loadFunctionSyms);
  if (!Funcs)
    return nullptr;
  const FunctionSym *Above = std::upper_bound(
      Funcs, Funcs + NFuncs, IP,
      [](uintptr_t V, const FunctionSym &F) { return V < F.Lo; });
  if (BiasOut)
    *BiasOut = ExeBias;
  return Above != Funcs && IP < Above[-1].Hi ? &Above[-1] : nullptr;
}

const char *executableFunctionAt(uintptr_t IP) {
  const FunctionSym *F = functionSymAt(IP, nullptr);
  return F ? F->Name : nullptr;
}

// flang's names of procedures as Fortran spells them: _QPname (external),
// _QMmodPname (module procedure), _QMmodFhostPname (internal), _QQmain
// (the main program); into Out, or false if Name is not one of them.
static bool fortranProcedureName(const char *Name, char *Out, size_t Cap) {
  if (!strcmp(Name, "_QQmain")) {
    snprintf(Out, Cap, "main program");
    return true;
  }
  if (strncmp(Name, "_Q", 2) != 0)
    return false;
  // Lower-case letters, digits and '_' only: flang mangles nothing else
  // into these names, and a capital letter starts the next component.
  const char *P = Name + 2;
  size_t N = 0;
  bool Proc = false;
  while (*P && N + 3 < Cap) {
    char Kind = *P++;
    if (Kind != 'M' && Kind != 'F' && Kind != 'P')
      return false;
    const char *Start = P;
    while ((*P >= 'a' && *P <= 'z') || (*P >= '0' && *P <= '9') || *P == '_')
      ++P;
    if (P == Start)
      return false;
    if (N) {
      Out[N++] = ':';
      Out[N++] = ':';
    }
    for (const char *C = Start; C < P && N + 1 < Cap; ++C)
      Out[N++] = *C;
    Proc = Kind == 'P';
  }
  Out[N] = 0;
  return Proc && !*P;
}

void describeExecutableAddress(uintptr_t IP, char *Out, size_t Cap) {
  uintptr_t Bias = 0;
  const FunctionSym *F = functionSymAt(IP, &Bias);
  unsigned long long Rel = IP - Bias;
  char Fortran[128];
  if (F && fortranProcedureName(F->Name, Fortran, sizeof(Fortran)))
    snprintf(Out, Cap, "%s+0x%llx [0x%llx]", Fortran,
             (unsigned long long)(IP - F->Lo), Rel);
  else if (F)
    snprintf(Out, Cap, "%s+0x%llx [0x%llx]", F->Name,
             (unsigned long long)(IP - F->Lo), Rel);
  else
    snprintf(Out, Cap, "[0x%llx]", Rel);
}
} // namespace ccc
