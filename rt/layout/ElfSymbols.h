//===- ElfSymbols.h - The executable's own symbol table ---------*- C++ -*-===//
//
// The running executable (/proc/self/exe) mapped read-only, with its
// section headers and .symtab: the unsaved-globals check lists data
// objects from it, and images name the stack frames of a checkpoint with
// its function symbols. Shared libraries' files are read the same way for
// the pass's records (Libraries.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_ELFSYMBOLS_H
#define CCC_RT_ELFSYMBOLS_H

#include <cstddef>
#include <cstdint>
#include <elf.h>

namespace ccc {
struct ElfFile {
  const char *Base = nullptr; // null: not mapped
  size_t Size = 0;
  const Elf64_Ehdr *Eh = nullptr;
  const Elf64_Shdr *Sh = nullptr;
  const char *ShStr = nullptr;
  const Elf64_Sym *Syms = nullptr; // null: stripped
  size_t NSyms = 0;
  const char *Str = nullptr;
  uintptr_t Bias = 0; // load address of the executable (PIE)

  // Maps /proc/self/exe; false if it is not a readable 64-bit ELF file.
  bool openSelf();
  // Maps the file Path (Bias stays 0: the caller knows where it is loaded).
  bool openFile(const char *Path);
  // The section header named Name, or null.
  const Elf64_Shdr *section(const char *Name) const;
  void close();
};

// Objects of a compiler runtime linked into the executable whose values a
// restarted program must see (flang's RANDOM_NUMBER generator), found by
// name in its symbol table: up to Cap of them, returned in Addr and Size.
// A stripped executable has none to find.
size_t compilerRuntimeState(uintptr_t *Addr, uint64_t *Size, size_t Cap);

// The function of the executable containing address IP, or null. The
// symbols are read once and kept.
const char *executableFunctionAt(uintptr_t IP);
// IP as "function+0xOFFSET [0xADDRESS]" (the address in the executable file,
// for addr2line), or "[0xADDRESS]" without a symbol, into Out.
void describeExecutableAddress(uintptr_t IP, char *Out, size_t Cap);
} // namespace ccc
#endif
