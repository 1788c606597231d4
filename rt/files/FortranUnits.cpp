//===- FortranUnits.cpp - Fortran units open at a checkpoint --------------===//
//
// flang's runtime keeps its table of units (which unit number is which open
// file, its position, its buffer) in globals of the runtime library, which
// images do not hold (rt/layout/UnsavedGlobals.cpp), and in its heap
// blocks, which they do but which nothing points to after a restart: the
// restarted runtime starts with no unit open. So ccc gives the units back
// itself, through flang's public I/O interface (io-api.h, the calls that
// compiled OPEN, INQUIRE and FLUSH statements make):
//
// - At each checkpoint, for every file the runtime has open: INQUIRE
//   (FILE=) its unit number, ACCESS, FORM, ACTION, the changeable modes,
//   RECL and POS; FLUSH the unit, so that its file holds every record
//   written before the checkpoint; note the file's size. This table is a
//   saved global.
// - At a restart, once the program resumes at its checkpoint site
//   (FortranUnitsRestore.cpp): cut a file open for writing back to its
//   size at the checkpoint (what the lost run wrote after it is not part of
//   the restored run), OPEN each unit again with the same number and
//   specifiers, STATUS='OLD', POSITION='APPEND' or 'REWIND', and read whole
//   records again up to its position when that was inside the file. Units
//   of OPEN(NEWUNIT=) get their numbers back from NEWUNIT itself.
//
// Why not save the runtime's own state whole (its globals and heap, with
// the descriptors reopened)? That would depend on everything flang keeps
// being in memory ccc saves and on its internals staying put across flang
// releases (ckpt-fc supports more than one); the interface above is what
// every compiled Fortran program relies on, and each step is checked (the
// unit's number and POS= after the restart) rather than trusted.
//
// What cannot be given back is refused, with the unit and its file named,
// and the previous committed checkpoint stays: a STATUS='SCRATCH' unit (its
// file is deleted when opened), a unit inside a record a non-advancing
// READ/WRITE left open (FortranRecords.cpp; flang 19's FLUSH there also
// corrupts the record), and a write-only sequential unit positioned inside
// its file (neither at its start nor its end).
//
// The files are found at their opening: every ccc link wraps open, mkstemp
// (STATUS='SCRATCH') and close (CCC_OBSERVED_FUNCTIONS in ccc/abi.h), and a
// call from flang's runtime, recognised by the symbol of its return address
// (as in AllocationSite.cpp; reading the symbol table opens the executable
// through here too, which ElfSymbols.cpp answers with no symbol), is noted
// here with the path as the runtime gave it (the unit's FILE=, which
// INQUIRE(FILE=) matches). The program's own calls are routed by the pass
// to rt/files/OpenFiles.cpp instead and never come here.
//
//===----------------------------------------------------------------------===//
#include "FortranUnits.h"
#include "FortranIo.h"
#include "rt/layout/ElfSymbols.h"

#include "ccc/abi.h"

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
int __real_open(const char *Path, int Flags, ...);
int __real_mkstemp(char *Template);
int __real_close(int Fd);
}

namespace ccc {
FortranUnitTable FortranUnits;
// Saved with the program's globals: the restored table is the checkpoint's.
__attribute__((used, section(CCC_GLOBALS_SECTION), aligned(8)))
ccc_global_record FortranUnitsRecord = {&FortranUnits, sizeof(FortranUnits),
                                        "ccc Fortran units", 0, 0};

// Checkpoint.cpp's reference to restoreFortranUnits is weak, which alone
// would not link the restoring half from libccc_rt.a: this one is not.
extern const int FortranUnitsRestoreLinked;
__attribute__((used)) const int *const KeepRestore = &FortranUnitsRestoreLinked;

const char *const FortranOptNames[kFortranOpts] = {
    "ACCESS", "FORM",  "ACTION", "BLANK",    "DECIMAL", "DELIM",
    "PAD",    "ROUND", "SIGN",   "ENCODING", "CONVERT", "ASYNCHRONOUS"};

bool fortranOptUnset(const char *V) {
  return !V[0] || !strcmp(V, "UNDEFINED") || !strcmp(V, "UNKNOWN");
}

namespace {
pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;
// Entries in use: close() looks only when there are some.
std::atomic<int> Noted{0};

bool fromFortranRuntime(void *ReturnAddress) {
  const char *F =
      executableFunctionAt(reinterpret_cast<uintptr_t>(ReturnAddress) - 1);
  return F && (!strncmp(F, "_ZN7Fortran7runtime", 19) ||
               !strncmp(F, "_ZNK7Fortran7runtime", 20) ||
               !strncmp(F, "_FortranA", 9));
}

void forgetLocked(int Fd) {
  for (FortranUnit &E : FortranUnits.U)
    if (E.Used && E.Fd == Fd) {
      memset(&E, 0, sizeof(E));
      Noted.fetch_sub(1, std::memory_order_relaxed);
    }
}

void note(int Fd, const char *Given) {
  pthread_mutex_lock(&Lock);
  forgetLocked(Fd);
  FortranUnit *E = nullptr;
  for (FortranUnit &X : FortranUnits.U)
    if (!X.Used) {
      E = &X;
      break;
    }
  if (!E || strlen(Given) >= sizeof(E->Given)) {
    FortranUnits.Lost++;
  } else {
    struct stat St;
    E->Used = 1;
    E->Fd = Fd;
    if (fstat(Fd, &St) == 0) {
      E->Dev = St.st_dev;
      E->Ino = St.st_ino;
    }
    strcpy(E->Given, Given);
    Noted.fetch_add(1, std::memory_order_relaxed);
  }
  pthread_mutex_unlock(&Lock);
}

void trimmed(char *S, size_t Cap) {
  S[Cap - 1] = 0;
  for (size_t N = strlen(S); N > 0 && S[N - 1] == ' '; --N)
    S[N - 1] = 0;
}

// INQUIRE(FILE=E.Given, ...): E's unit number and specifiers. False if no
// unit has that file open.
bool inquire(FortranUnit &E) {
  using namespace fio;
  Cookie C =
      _FortranAioBeginInquireFile(E.Given, strlen(E.Given), __FILE__, __LINE__);
  bool Opened = false;
  int64_t Number = 0, Recl = 0, Pos = 0;
  _FortranAioInquireLogical(C, hash("OPENED"), Opened);
  if (Opened) {
    _FortranAioInquireInteger64(C, hash("NUMBER"), Number, 8);
    _FortranAioInquireInteger64(C, hash("RECL"), Recl, 8);
    _FortranAioInquireInteger64(C, hash("POS"), Pos, 8);
    for (int O = 0; O < kFortranOpts; ++O) {
      memset(E.Opts[O], ' ', sizeof(E.Opts[O]));
      _FortranAioInquireCharacter(C, hash(FortranOptNames[O]), E.Opts[O],
                                  sizeof(E.Opts[O]) - 1);
      trimmed(E.Opts[O], sizeof(E.Opts[O]));
    }
  }
  _FortranAioEndIoStatement(C);
  E.Number = int32_t(Number);
  // Without RECL= at OPEN, INQUIRE says the largest record (or -2 for a
  // stream): nothing to give back.
  E.Recl = Recl > 0 && Recl < INT32_MAX ? Recl : 0;
  E.Pos = Pos;
  return Opened;
}

// FLUSH(E.Number); false with the runtime's message in Msg on an error.
bool flush(FortranUnit &E, char *Msg, size_t Cap) {
  fio::Cookie C = _FortranAioBeginFlush(E.Number, __FILE__, __LINE__);
  _FortranAioEnableHandlers(C, true, false, false, false, true);
  Msg[0] = 0;
  _FortranAioGetIoMsg(C, Msg, Cap - 1);
  int Stat = _FortranAioEndIoStatement(C);
  if (Stat != 0 && !Msg[0])
    snprintf(Msg, Cap, "IOSTAT=%d", Stat);
  Msg[Cap - 1] = 0;
  trimmed(Msg, Cap);
  return Stat == 0;
}

const char *unrestorable(const struct stat &St, const char *Path) {
  if (!S_ISREG(St.st_mode) && !S_ISCHR(St.st_mode))
    return "not a file with a name (a pipe or socket)";
  if (St.st_nlink == 0)
    return "a deleted file (STATUS='SCRATCH' deletes its file when it opens "
           "it)";
  if (Path[0] != '/' || !strncmp(Path, "/proc/", 6))
    return "not a file a restart can open by name";
  return nullptr;
}

// Records E at a checkpoint; false with Why if its unit cannot be given
// back. Flushes the unit.
bool record(FortranUnit &E, const struct stat &St, char *Why, size_t Cap) {
  char Proc[40];
  snprintf(Proc, sizeof(Proc), "/proc/self/fd/%d", E.Fd);
  ssize_t N = readlink(Proc, E.Path, sizeof(E.Path) - 1);
  E.Path[N > 0 ? N : 0] = 0;
  if (const char *What = unrestorable(St, E.Path)) {
    snprintf(Why, Cap,
             "descriptor %d (%s) is a Fortran unit's file, and %s, which a "
             "restart cannot reopen: CLOSE the unit before the checkpoint "
             "site",
             E.Fd, E.Path, What);
    return false;
  }
  if (!inquire(E)) {
    snprintf(Why, Cap,
             "descriptor %d (%s) was opened by flang's runtime for no unit "
             "that INQUIRE(FILE='%s') finds, so a restart cannot give it back",
             E.Fd, E.Path, E.Given);
    return false;
  }
  if (fortranUnitInRecord && fortranUnitInRecord(E.Number)) {
    snprintf(Why, Cap,
             "Fortran unit %d (%s) is inside a record that a non-advancing "
             "READ or WRITE (ADVANCE='NO') left open, and ccc gives a unit "
             "back only between records: complete the record before the "
             "checkpoint site",
             E.Number, E.Path);
    return false;
  }
  char Msg[256];
  if (!flush(E, Msg, sizeof(Msg))) {
    snprintf(Why, Cap, "Fortran unit %d (%s) cannot be flushed: %s", E.Number,
             E.Path, Msg);
    return false;
  }
  struct stat Now;
  if (fstat(E.Fd, &Now) != 0) {
    snprintf(Why, Cap, "Fortran unit %d (%s): %s", E.Number, E.Path,
             strerror(errno));
    return false;
  }
  E.Mode = Now.st_mode;
  E.Size = S_ISREG(Now.st_mode) ? Now.st_size : 0;
  bool Sequential = !strcmp(E.Opts[OptAccess], "SEQUENTIAL");
  if (!strcmp(E.Opts[OptAccess], "DIRECT") || !S_ISREG(Now.st_mode))
    E.Where = Direct;
  else if (E.Pos - 1 == E.Size)
    E.Where = AtEnd;
  else if (E.Pos == 1)
    E.Where = AtStart;
  else if (Sequential && strcmp(E.Opts[OptAction], "WRITE") &&
           E.Pos - 1 < E.Size)
    E.Where = AfterRecords;
  else {
    snprintf(Why, Cap,
             "Fortran unit %d (%s, ACCESS='%s', ACTION='%s') is at byte %lld "
             "of its %lld, and ccc gives such a unit back only at the start "
             "or the end of its file",
             E.Number, E.Path, E.Opts[OptAccess], E.Opts[OptAction],
             (long long)(E.Pos - 1), (long long)E.Size);
    return false;
  }
  return true;
}
} // namespace

bool recordFortranUnits(char *Why, size_t WhyCap) {
  if (Noted.load(std::memory_order_relaxed) == 0 && FortranUnits.Lost == 0)
    return true;
  if (!_FortranAioBeginInquireFile || !_FortranAioBeginFlush ||
      !_FortranAioEnableHandlers || !_FortranAioGetIoMsg) {
    snprintf(Why, WhyCap,
             "flang's runtime has files open, and its I/O interface "
             "(INQUIRE, FLUSH) is not linked into the program");
    return false;
  }
  for (FortranUnit &E : FortranUnits.U) {
    if (!E.Used)
      continue;
    struct stat St;
    if (fstat(E.Fd, &St) != 0 || St.st_dev != E.Dev || St.st_ino != E.Ino) {
      // Closed (or replaced) where the wrapper could not see it.
      pthread_mutex_lock(&Lock);
      forgetLocked(E.Fd);
      pthread_mutex_unlock(&Lock);
      continue;
    }
    if (!record(E, St, Why, WhyCap))
      return false;
  }
  if (FortranUnits.Lost) {
    snprintf(Why, WhyCap,
             "flang's runtime has opened more files than ccc's table of %d "
             "Fortran units holds (or one with a path of %d bytes or more)",
             kMaxFortranUnits, kFortranPathCap);
    return false;
  }
  return true;
}

void forgetFortranUnits() {
  pthread_mutex_lock(&Lock);
  memset(&FortranUnits, 0, sizeof(FortranUnits));
  Noted.store(0, std::memory_order_relaxed);
  pthread_mutex_unlock(&Lock);
}
} // namespace ccc

using namespace ccc;

extern "C" {
int __wrap_open(const char *Path, int Flags, ...) {
  mode_t Mode = 0;
  if (Flags & (O_CREAT | O_TMPFILE)) {
    va_list Ap;
    va_start(Ap, Flags);
    Mode = va_arg(Ap, int);
    va_end(Ap);
  }
  int Fd = __real_open(Path, Flags, Mode);
  if (Fd >= 0 && fromFortranRuntime(__builtin_return_address(0)))
    note(Fd, Path);
  return Fd;
}

int __wrap_mkstemp(char *Template) {
  int Fd = __real_mkstemp(Template);
  if (Fd >= 0 && fromFortranRuntime(__builtin_return_address(0)))
    note(Fd, Template); // unlinked next: refused at a checkpoint
  return Fd;
}

int __wrap_close(int Fd) {
  // Whoever closes it, it is no longer a unit's.
  if (Noted.load(std::memory_order_relaxed) > 0) {
    pthread_mutex_lock(&Lock);
    forgetLocked(Fd);
    pthread_mutex_unlock(&Lock);
  }
  return __real_close(Fd);
}
}
