//===- LibraryThreads.h - Saved libraries' threads and keys -----*- C++ -*-===//
//
// What saved libraries (rt/layout/Libraries.h) hold in libc and the kernel
// besides files: threads, which refuse a checkpoint while they run, and
// thread-local keys, made again at a restart (LibraryThreads.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_LIBRARYTHREADS_H
#define CCC_RT_LIBRARYTHREADS_H

#include <cstddef>
#include <cstdint>

namespace ccc {
// False (with Why) while a thread a saved library started is running: the
// checkpoint is refused (LibraryThreads.cpp).
bool checkLibraryThreads(char *Why, size_t Cap);
// Once the libraries are sorted: counts the threads started and keeps the
// keys made before, by libraries' constructors, that are saved libraries'.
void sortEarlyLibraryState();
// Allocates the block below, in the region (a checkpoint holds the heap's
// lock): once the region serves libraries.
void reserveLibraryKeys();
// Checkpoint (before the image): the thread-local keys saved libraries
// created, with this thread's values, into a block of the heap region;
// returns its address for RuntimeState::LibraryKeys (0: none).
uint64_t saveLibraryKeys();
// Restart, once memory is back: creates those keys again under the same
// numbers and sets their values. False (with Why) if a number is taken.
bool restoreLibraryKeys(uint64_t Block, char *Why, size_t Cap);
} // namespace ccc
#endif
