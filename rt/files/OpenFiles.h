//===- OpenFiles.h - Open files, reopened on restart ------------*- C++ -*-===//
#ifndef CCC_RT_OPENFILES_H
#define CCC_RT_OPENFILES_H

#include "rt/heap/LibraryHeap.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace ccc {
// Both are weak: they exist only in programs whose code opened files through
// the runtime (rt/files/OpenFiles.cpp is then linked), and Checkpoint.cpp and
// Restart.cpp call them only if present.
//
// At a checkpoint, with the program's output flushed: records each open
// file's path, offset and size in the table the image saves. False, with
// Why, if one cannot be reopened by a restart (a pipe, a socket, a deleted
// file): the checkpoint must not be taken.
bool recordOpenFiles(char *Why, size_t WhyCap) __attribute__((weak));
// After an image is restored: reopens every file of the restored table at
// its descriptor number, cuts files open for writing back to their size at
// the checkpoint, seeks, and gives restored FILEs back to stdio. False, with
// Why (and nothing left open), if one cannot be reopened.
bool reopenOpenFiles(char *Why, size_t WhyCap) __attribute__((weak));

// Weak too: a bit per descriptor below 64 * Words in the table.
void programFds(uint64_t *Mask, int Words) __attribute__((weak));
// ReservedFds.cpp, for a restart: the descriptors an image's program had
// open (Mask: a bit per descriptor below 1024) are wanted; reserving puts a
// placeholder on each wanted number still free, so that what opens
// descriptors before the program's files are back (the MPI library) takes
// others. Fd holds a placeholder that keeps its number free for the
// program's file (reopenOpenFiles replaces it); releasing closes those no
// file took.
void wantProgramFds(const uint64_t *Mask);
void reserveProgramFds();
bool fdReservedForRestore(int Fd);
void releaseReservedFds();

// Descriptor Fd, with Stream the FILE over it (or null), is the program's.
void trackOpenFile(int Fd, FILE *Stream);
// The FILE F is about to be closed.
void forgetStream(FILE *F);
// After streamHeapEnter and an fopen-like call: allocates F's buffer in the
// saved heap too (stdio would at its first I/O), leaves; returns F.
FILE *leaveStreamHeap(FILE *F);
// fopen on behalf of the code at Caller (LibraryFiles.cpp): tracked if a
// saved library's, glibc's otherwise.
FILE *libraryFopen(const char *Path, const char *Mode, const void *Caller);
// Referenced by the runtime so that LibraryFiles.cpp is always linked.
extern const char LibraryFilesLinked;
} // namespace ccc
#endif
