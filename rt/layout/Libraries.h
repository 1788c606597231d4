//===- Libraries.h - Shared libraries whose state images hold ---*- C++ -*-===//
//
// Code the pass compiled is saved precisely; the shared libraries a program
// links (HDF5, PETSc, FFTW, ...) keep state the pass never sees: their
// writable data (.data, .bss) and the heap memory they allocate. Both are
// saved whole, for every library except those a new process re-creates
// correctly (docs/languages.md, "State of libraries"): the dynamic loader,
// libc, the compiler runtimes ccc handles, ccc's own dependencies, the MPI
// library with everything it needs, and what is loaded with dlopen.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_LIBRARIES_H
#define CCC_RT_LIBRARIES_H

#include <cstddef>
#include <cstdint>

struct ccc_global_record;

namespace ccc {
// Sorts the loaded libraries into saved and re-created. Once, at start,
// before any restore (a restart checks restored ranges against it).
void scanLibraries();
bool librariesScanned();
// Whose code is at PC: a library whose state images hold, the executable,
// or anyone else (the MPI library, libc, ...). Lock-free; Other before the
// scan. A heap allocation returning to the first two goes to the saved
// region (one returning to the executable is a library's tail call made on
// the program's behalf: the executable's own calls reach the region by
// --wrap); files and threads are followed for saved libraries only.
enum class CodeOwner { Other, Executable, SavedLibrary };
CodeOwner codeOwner(uintptr_t PC);
inline bool savedLibraryCode(uintptr_t PC) {
  return codeOwner(PC) != CodeOwner::Other;
}
// Calls Fn for every range of writable data of the saved libraries, in
// address order, with the library's file name.
void forEachSavedLibraryRange(void (*Fn)(uintptr_t Addr, size_t Len,
                                         const char *Library, void *Ctx),
                              void *Ctx);
// Calls Fn with the pass's records of each saved library compiled with the
// pass (after scanLibraries; registeredGlobals takes them in).
void forEachLibraryRecordTable(void (*Fn)(const ccc_global_record *Begin,
                                          const ccc_global_record *End,
                                          void *Ctx),
                               void *Ctx);
// Whether Addr lies in a shared library's mapping (not the executable's).
bool inLibrary(uintptr_t Addr);
// Whether [Addr, Addr+Len) lies inside one of those ranges.
bool inSavedLibraryData(uintptr_t Addr, uint64_t Len);
// The saved library whose code or data holds Addr, or null.
const char *savedLibraryAt(uintptr_t Addr);
// CCC_LIBRARIES=off: libraries' state is not saved (as before ccc 0.9).
bool librariesSaved();
} // namespace ccc
#endif
