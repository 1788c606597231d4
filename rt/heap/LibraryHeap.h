//===- LibraryHeap.h - Libraries' allocations in the saved heap -*- C++ -*-===//
//
// The runtime defines the process's malloc family (glibc's documented way
// of replacing malloc; glibc's own calls reach it too). Memory comes from
// the saved region for the shared libraries whose state images hold
// (rt/layout/Libraries.h), and for glibc inside the runtime's fopen-like
// wrappers; from glibc's allocator for everything else (the MPI library,
// libc itself, the runtime's own buffers).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_LIBRARYHEAP_H
#define CCC_RT_LIBRARYHEAP_H

namespace ccc {
// From now on saved libraries allocate in the region: at main in a fresh
// run, once the image is back in a restarted one (what a library allocated
// in the region before would be lost when the region is replaced).
void openLibraryHeap();
// While entered, glibc's allocations on this thread come from the region
// (the runtime's wrappers of fopen and its kin, rt/files/OpenFiles.cpp).
void streamHeapEnter();
void streamHeapLeave();
} // namespace ccc
#endif
