//===- OpenFiles.cpp - The program's open files, reopened on restart ------===//
//
// A restarted process has none of the descriptors the program had open. The
// pass routes the program's open/close calls (CCC_FILE_FUNCTIONS in
// ccc/abi.h) here; they keep a table of its descriptors, which is itself a
// saved global (registered below like the pass registers the program's).
// At each checkpoint the table gets every file's path (as /proc names it
// then: renames are followed), flags, offset and size; a restart reopens
// each file at its descriptor number, cuts a file open for writing back to
// its size at the checkpoint (what was written after it is not part of the
// restored run) and seeks to the checkpoint's offset, so the files after a
// restarted run are byte-identical to an uninterrupted run's.
//
// Streams: the FILE that fopen returns is made in the saved heap
// (heap/LibraryHeap.cpp) with its buffer, so the program's pointer is valid after
// a restart, its buffered input is still there, and only its link into
// stdio's list of streams (so that exit() flushes it) is made again.
//
// Descriptors 0-2 are the new process's. What cannot be reopened (a pipe, a
// socket, a deleted file, a path too long for the table) makes the
// checkpoint fail with a message naming the descriptor: the previous
// committed checkpoint stays.
//
//===----------------------------------------------------------------------===//
#include "OpenFiles.h"
#include "rt/heap/HeapRegion.h"

#include "ccc/abi.h"

#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// glibc's libio: links a stream into _IO_list_all (what exit and
// fflush(NULL) walk); it links only a stream without _IO_LINKED.
extern "C" void _IO_link_in(FILE *);
// Allocates a stream's buffer now (as its first read or write would).
extern "C" int _IO_doallocbuf(FILE *);
constexpr int kIoLinked = 0x0080;
constexpr unsigned kIoMagic = 0xfbad0000u; // _IO_MAGIC, in every open FILE

namespace ccc {
namespace {
constexpr int kMaxFiles = 128;
constexpr int kPathCap = 1024;
constexpr int kLostFds = 4096; // descriptors the table had no room for

struct OpenFile {
  int32_t Used;
  int32_t Fd;
  int32_t Flags;   // F_GETFL at the checkpoint
  int32_t FdFlags; // F_GETFD at the checkpoint (FD_CLOEXEC)
  // The file when it was opened: a descriptor closed or replaced without
  // the runtime seeing it is forgotten, not reopened as something else.
  uint64_t Dev, Ino;
  FILE *Stream; // the program's FILE over Fd, or null
  // Stream was made outside the saved heap (before main, when there is
  // none): its pointer would dangle after a restart.
  int32_t StreamOutside;
  int64_t Offset, Size;
  uint32_t Mode;
  // At the checkpoint, Fd shared its open file (and offset) with this
  // earlier descriptor of the table (dup), or -1: reopened as a dup of it.
  int32_t SharedFd;
  char Path[kPathCap];
};

struct FileTable {
  OpenFile F[kMaxFiles];
  uint64_t Lost[kLostFds / 64];
};

FileTable Files;
// Saved with the program's globals: the restored table is the checkpoint's.
__attribute__((used, section(CCC_GLOBALS_SECTION), aligned(8)))
ccc_global_record FilesRecord = {&Files, sizeof(Files), "ccc open files", 0, 0};

pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;
struct Locked {
  Locked() { pthread_mutex_lock(&Lock); }
  ~Locked() { pthread_mutex_unlock(&Lock); }
};

OpenFile *find(int Fd) {
  for (OpenFile &E : Files.F)
    if (E.Used && E.Fd == Fd)
      return &E;
  return nullptr;
}

void setLost(int Fd, bool On) {
  if (Fd < 0 || Fd >= kLostFds)
    return;
  uint64_t Bit = uint64_t(1) << (Fd % 64);
  if (On)
    Files.Lost[Fd / 64] |= Bit;
  else
    Files.Lost[Fd / 64] &= ~Bit;
}

void untrackLocked(int Fd) {
  if (OpenFile *E = find(Fd))
    memset(E, 0, sizeof(*E));
  setLost(Fd, false);
}

void track(int Fd, FILE *Stream) {
  // Descriptors 0-2 belong to the new process: not reopened; a stream the
  // program made over one (fdopen(1, ...)) is only linked back into stdio.
  if (Fd < 3 && !Stream)
    return;
  struct stat St;
  if (fstat(Fd, &St) != 0)
    return;
  Locked L;
  untrackLocked(Fd);
  OpenFile *E = nullptr;
  for (OpenFile &X : Files.F)
    if (!X.Used) {
      E = &X;
      break;
    }
  if (!E) {
    setLost(Fd, true);
    return;
  }
  E->Used = 1;
  E->Fd = Fd;
  E->Dev = St.st_dev;
  E->Ino = St.st_ino;
  E->Stream = Stream;
  E->StreamOutside = Stream && !heapContains(Stream);
}

void untrack(int Fd) {
  Locked L;
  untrackLocked(Fd);
}

// Descriptor To now refers to what From does (dup and friends).
void copyEntry(int From, int To) {
  bool Tracked;
  {
    Locked L;
    Tracked = find(From) != nullptr;
  }
  if (Tracked)
    track(To, nullptr);
  else
    untrack(To);
}

const char *unreopenable(const struct stat &St, const char *Path) {
  if (S_ISFIFO(St.st_mode))
    return "a pipe";
  if (S_ISSOCK(St.st_mode))
    return "a socket";
  if (S_ISBLK(St.st_mode))
    return "a block device";
  if (!S_ISREG(St.st_mode) && !S_ISCHR(St.st_mode) && !S_ISDIR(St.st_mode))
    return "not a file with a name";
  if (St.st_nlink == 0)
    return "a deleted file";
  if (Path[0] != '/')
    return "not a file with a name";
  if (!strncmp(Path, "/proc/", 6)) // names the old process
    return "a file of /proc";
  if (strlen(Path) >= size_t(kPathCap - 1))
    return "a file whose path is too long for ccc's table";
  return nullptr;
}

// Whether descriptors A and B of this process share one open file (dup);
// without kcmp(2), taken as not shared.
bool sameOpenFile(int A, int B) {
  const int KcmpFile = 0;
  pid_t P = getpid();
  return syscall(SYS_kcmp, P, P, KcmpFile, A, B) == 0;
}

void nameOf(int Fd, char *Out, size_t Cap) {
  char Proc[40];
  snprintf(Proc, sizeof(Proc), "/proc/self/fd/%d", Fd);
  ssize_t N = readlink(Proc, Out, Cap - 1);
  Out[N > 0 ? N : 0] = 0;
}
} // namespace
} // namespace ccc

using namespace ccc;

void ccc::trackOpenFile(int Fd, FILE *Stream) { track(Fd, Stream); }

void ccc::forgetStream(FILE *F) {
  Locked L;
  for (OpenFile &E : Files.F)
    if (E.Used && E.Stream == F)
      memset(&E, 0, sizeof(E));
}

// The stream's buffer is allocated now, inside the wrapper, so that it is in
// the saved heap too (stdio would otherwise allocate it at the first I/O).
FILE *ccc::leaveStreamHeap(FILE *F) {
  if (F)
    _IO_doallocbuf(F);
  streamHeapLeave();
  return F;
}

bool ccc::recordOpenFiles(char *Why, size_t WhyCap) {
  Locked L;
  for (OpenFile &E : Files.F) {
    if (!E.Used)
      continue;
    struct stat St;
    // Closed where the runtime could not see it (a stream by libstdc++'s
    // fclose; its memory freed: glibc's magic number gone): forgotten.
    bool StreamClosed =
        E.Stream && !E.StreamOutside &&
        ((unsigned(E.Stream->_flags) & 0xffff0000u) != kIoMagic ||
         E.Stream->_fileno != E.Fd);
    if (StreamClosed || fstat(E.Fd, &St) != 0 || St.st_dev != E.Dev ||
        St.st_ino != E.Ino) {
      memset(&E, 0, sizeof(E));
      continue;
    }
    nameOf(E.Fd, E.Path, sizeof(E.Path));
    if (E.StreamOutside) {
      snprintf(Why, WhyCap,
               "descriptor %d (%s) is a stream opened before main, outside "
               "the saved heap, which a restart cannot restore; open it in "
               "main",
               E.Fd, E.Path);
      return false;
    }
    if (E.Fd < 3) // a stream over a standard descriptor: only relinked
      continue;
    if (const char *What = unreopenable(St, E.Path)) {
      snprintf(Why, WhyCap,
               "descriptor %d (%s) is %s, which a restart cannot reopen; "
               "close it before the checkpoint site",
               E.Fd, E.Path, What);
      return false;
    }
    E.Flags = fcntl(E.Fd, F_GETFL);
    E.FdFlags = fcntl(E.Fd, F_GETFD);
    E.Mode = St.st_mode;
    E.Size = St.st_size;
    E.Offset = S_ISREG(St.st_mode) ? lseek(E.Fd, 0, SEEK_CUR) : 0;
  }
  for (int I = 0; I < kMaxFiles; ++I) {
    OpenFile &E = Files.F[I];
    if (!E.Used)
      continue;
    E.SharedFd = -1;
    if (E.Fd < 3)
      continue;
    for (int J = 0; J < I && E.SharedFd < 0; ++J)
      if (Files.F[J].Used && Files.F[J].Fd >= 3 && Files.F[J].Ino == E.Ino &&
          Files.F[J].Dev == E.Dev && sameOpenFile(Files.F[J].Fd, E.Fd))
        E.SharedFd = Files.F[J].Fd;
  }
  for (int Fd = 0; Fd < kLostFds; ++Fd)
    if ((Files.Lost[Fd / 64] >> (Fd % 64) & 1) && fcntl(Fd, F_GETFD) != -1) {
      char Path[kPathCap];
      nameOf(Fd, Path, sizeof(Path));
      snprintf(Why, WhyCap,
               "descriptor %d (%s) is one file too many for ccc's table of "
               "%d open files, so a restart cannot reopen it",
               Fd, Path, kMaxFiles);
      return false;
    }
  return true;
}

void ccc::programFds(uint64_t *Mask, int Words) {
  memset(Mask, 0, Words * sizeof(uint64_t));
  for (OpenFile &E : Files.F)
    if (E.Used && E.Fd >= 3 && E.Fd < 64 * Words)
      Mask[E.Fd / 64] |= 1ULL << (E.Fd % 64);
}

bool ccc::reopenOpenFiles(char *Why, size_t WhyCap) {
  int Done[kMaxFiles], NDone = 0;
  bool Ok = true;
  for (OpenFile &E : Files.F) {
    if (!E.Used || E.Fd < 3)
      continue;
    if (fcntl(E.Fd, F_GETFD) != -1 && !fdReservedForRestore(E.Fd)) {
      char Holder[kPathCap];
      nameOf(E.Fd, Holder, sizeof(Holder));
      snprintf(Why, WhyCap,
               "descriptor %d (%s) cannot be reopened: the restarted process "
               "already uses that number (for %s)",
               E.Fd, E.Path, Holder);
      Ok = false;
      break;
    }
    if (E.SharedFd >= 0) { // a dup of one reopened before it
      if (dup2(E.SharedFd, E.Fd) < 0) {
        snprintf(Why, WhyCap, "descriptor %d (%s) cannot be reopened: %s", E.Fd,
                 E.Path, strerror(errno));
        Ok = false;
        break;
      }
      fcntl(E.Fd, F_SETFD, E.FdFlags);
      Done[NDone++] = E.Fd;
      continue;
    }
    int T = open(E.Path, E.Flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY));
    if (T < 0) {
      snprintf(Why, WhyCap, "descriptor %d (%s) cannot be reopened: %s", E.Fd,
               E.Path, strerror(errno));
      Ok = false;
      break;
    }
    struct stat St;
    const char *Bad = nullptr;
    if (fstat(T, &St) != 0)
      Bad = strerror(errno);
    else if ((St.st_mode & S_IFMT) != (E.Mode & S_IFMT))
      Bad = "it is no longer the same kind of file";
    else if (S_ISREG(St.st_mode)) {
      bool Writer = (E.Flags & O_ACCMODE) != O_RDONLY;
      if (St.st_size < E.Size)
        Bad = "it is shorter than at the checkpoint (changed since)";
      else if (Writer && St.st_size > E.Size && ftruncate(T, E.Size) != 0)
        Bad = strerror(errno);
      else if (lseek(T, E.Offset, SEEK_SET) < 0)
        Bad = strerror(errno);
    }
    if (!Bad && T != E.Fd && dup2(T, E.Fd) < 0)
      Bad = strerror(errno);
    if (T != E.Fd)
      close(T);
    if (Bad) {
      snprintf(Why, WhyCap, "descriptor %d (%s) cannot be reopened: %s", E.Fd,
               E.Path, Bad);
      Ok = false;
      break;
    }
    fcntl(E.Fd, F_SETFD, E.FdFlags);
    Done[NDone++] = E.Fd;
  }
  if (!Ok) {
    for (int I = 0; I < NDone; ++I)
      close(Done[I]);
    return false;
  }
  // The restored streams are not in the new process's list of streams.
  for (OpenFile &E : Files.F)
    if (E.Used && E.Stream) {
      E.Stream->_flags &= ~kIoLinked;
      _IO_link_in(E.Stream);
    }
  return true;
}

//===-- The program's calls (routed by the pass) --------------------------===//

extern "C" {
int __ccc_open(const char *Path, int Flags, ...) {
  mode_t Mode = 0;
  if (Flags & (O_CREAT | O_TMPFILE)) {
    va_list Ap;
    va_start(Ap, Flags);
    Mode = va_arg(Ap, int);
    va_end(Ap);
  }
  int Fd = open(Path, Flags, Mode);
  if (Fd >= 0)
    track(Fd, nullptr);
  return Fd;
}

int __ccc_openat(int Dir, const char *Path, int Flags, ...) {
  mode_t Mode = 0;
  if (Flags & (O_CREAT | O_TMPFILE)) {
    va_list Ap;
    va_start(Ap, Flags);
    Mode = va_arg(Ap, int);
    va_end(Ap);
  }
  int Fd = openat(Dir, Path, Flags, Mode);
  if (Fd >= 0)
    track(Fd, nullptr);
  return Fd;
}

int __ccc_creat(const char *Path, mode_t Mode) {
  return __ccc_open(Path, O_CREAT | O_WRONLY | O_TRUNC, Mode);
}

int __ccc_close(int Fd) {
  untrack(Fd);
  return close(Fd);
}

int __ccc_dup(int Fd) {
  int R = dup(Fd);
  if (R >= 0)
    copyEntry(Fd, R);
  return R;
}

int __ccc_dup2(int Fd, int To) {
  int R = dup2(Fd, To);
  if (R >= 0 && Fd != To)
    copyEntry(Fd, To);
  return R;
}

int __ccc_dup3(int Fd, int To, int Flags) {
  int R = dup3(Fd, To, Flags);
  if (R >= 0)
    copyEntry(Fd, To);
  return R;
}

int __ccc_pipe(int Fds[2]) {
  int R = pipe(Fds);
  if (R == 0) {
    track(Fds[0], nullptr);
    track(Fds[1], nullptr);
  }
  return R;
}

int __ccc_pipe2(int Fds[2], int Flags) {
  int R = pipe2(Fds, Flags);
  if (R == 0) {
    track(Fds[0], nullptr);
    track(Fds[1], nullptr);
  }
  return R;
}

int __ccc_socket(int Domain, int Type, int Protocol) {
  int Fd = socket(Domain, Type, Protocol);
  if (Fd >= 0)
    track(Fd, nullptr);
  return Fd;
}

FILE *__ccc_fopen(const char *Path, const char *Mode) {
  ccc::streamHeapEnter();
  FILE *F = leaveStreamHeap(fopen(Path, Mode));
  if (F)
    track(fileno(F), F);
  return F;
}

FILE *__ccc_fdopen(int Fd, const char *Mode) {
  ccc::streamHeapEnter();
  FILE *F = leaveStreamHeap(fdopen(Fd, Mode));
  if (F)
    track(Fd, F);
  return F;
}

FILE *__ccc_freopen(const char *Path, const char *Mode, FILE *F) {
  // A standard stream's FILE is glibc's own, not saved: left alone.
  if (F == stdin || F == stdout || F == stderr)
    return freopen(Path, Mode, F);
  int Old = fileno(F);
  ccc::streamHeapEnter();
  FILE *R = leaveStreamHeap(freopen(Path, Mode, F));
  untrack(Old);
  if (R)
    track(fileno(R), R);
  return R;
}

int __ccc_fclose(FILE *F) {
  forgetStream(F);
  return fclose(F);
}
}
