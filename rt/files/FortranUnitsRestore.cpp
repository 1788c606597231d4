//===- FortranUnitsRestore.cpp - Fortran units given back at a restart ----===//
//
// The second half of FortranUnits.cpp: in the restarted process, at the
// checkpoint site it resumed, every unit of the restored table is OPENed
// again through flang's I/O interface, with the unit number, file and
// specifiers it had, its file first cut back to its size at the
// checkpoint. Done there, on the program's stack, with its heap and
// flang's runtime initialised as after main's prologue, so the OPENs run as
// the program's own would.
//
// OPEN(NEWUNIT=) numbers cannot be asked for (OPEN(UNIT=-3) is an error):
// flang hands them out from a free list, -2, -3, ... from a fresh start. So
// the NEWUNIT units are opened in that order, each missing number filled by
// a STATUS='SCRATCH' placeholder that is closed afterwards (largest last
// opened, first closed, so the smallest is handed out next, as a fresh run
// would). Each unit's number and position are checked after its OPEN.
//
//===----------------------------------------------------------------------===//
#include "FortranIo.h"
#include "FortranUnits.h"
#include "rt/common/Log.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ccc {
extern const int FortranUnitsRestoreLinked = 1; // see FortranUnits.cpp

namespace {
using fio::Cookie;
using Setter = bool (*)(Cookie, const char *, size_t);

const Setter *setters() {
  static const Setter S[kFortranOpts] = {
      _FortranAioSetAccess,  _FortranAioSetForm,
      _FortranAioSetAction,  _FortranAioSetBlank,
      _FortranAioSetDecimal, _FortranAioSetDelim,
      _FortranAioSetPad,     _FortranAioSetRound,
      _FortranAioSetSign,    _FortranAioSetEncoding,
      _FortranAioSetConvert, _FortranAioSetAsynchronous};
  return S;
}

constexpr int kMaxPlaceholders = 4096;

// The restored table, copied out: reopening notes new descriptors in it.
FortranUnit Units[kMaxFortranUnits];
int NUnits;

[[noreturn]] void fail(const FortranUnit &U, const char *Fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fail(const FortranUnit &U, const char *Fmt, ...) {
  char Msg[512];
  va_list Ap;
  va_start(Ap, Fmt);
  vsnprintf(Msg, sizeof(Msg), Fmt, Ap);
  va_end(Ap);
  fatal("cannot give Fortran unit %d (%s) back after the restart: %s; the "
        "program would write to another file. Its checkpoints stay; "
        "CCC_RESTART=never starts afresh",
        U.Number, U.Path, Msg);
}

// Ends statement C; false with the runtime's message in Msg on an error.
bool end(Cookie C, char *Msg, size_t Cap) {
  Msg[0] = 0;
  _FortranAioGetIoMsg(C, Msg, Cap - 1);
  int Stat = _FortranAioEndIoStatement(C);
  Msg[Cap - 1] = 0;
  for (size_t N = strlen(Msg); N > 0 && Msg[N - 1] == ' '; --N)
    Msg[N - 1] = 0;
  if (Stat != 0 && !Msg[0])
    snprintf(Msg, Cap, "IOSTAT=%d", Stat);
  return Stat == 0;
}

void handlers(Cookie C, bool End) {
  _FortranAioEnableHandlers(C, true, false, End, false, true);
}

// The file as at the checkpoint: there, the same kind, not shorter, and cut
// back to its size then if the unit may write. Returns the path to OPEN:
// the unit's FILE= as written if it still names the file (INQUIRE(FILE=)
// and NAME= then answer as before), else the absolute one.
const char *prepareFile(const FortranUnit &U) {
  struct stat St;
  if (stat(U.Path, &St) != 0)
    fail(U, "%s", strerror(errno));
  if ((St.st_mode & S_IFMT) != (U.Mode & S_IFMT))
    fail(U, "it is no longer the same kind of file");
  if (S_ISREG(St.st_mode)) {
    bool Writer = strcmp(U.Opts[OptAction], "READ") != 0;
    if (St.st_size < U.Size)
      fail(U, "it is shorter than at the checkpoint (%lld bytes, then %lld)",
           (long long)St.st_size, (long long)U.Size);
    if (Writer && St.st_size > U.Size && truncate(U.Path, U.Size) != 0)
      fail(U, "cannot cut it back to %lld bytes: %s", (long long)U.Size,
           strerror(errno));
  }
  struct stat Given;
  if (stat(U.Given, &Given) == 0 && Given.st_dev == St.st_dev &&
      Given.st_ino == St.st_ino)
    return U.Given;
  return U.Path;
}

int64_t inquirePos(int Unit) {
  Cookie C = _FortranAioBeginInquireUnit(Unit, __FILE__, __LINE__);
  int64_t Pos = 0;
  _FortranAioInquireInteger64(C, fio::hash("POS"), Pos, 8);
  _FortranAioEndIoStatement(C);
  return Pos;
}

// OPEN(UNIT=U.Number, or NEWUNIT=, FILE=..., STATUS='OLD', ...).
void open(const FortranUnit &U, bool NewUnit) {
  const char *Path = prepareFile(U);
  Cookie C = NewUnit ? _FortranAioBeginOpenNewUnit(__FILE__, __LINE__)
                     : _FortranAioBeginOpenUnit(U.Number, __FILE__, __LINE__);
  handlers(C, false);
  _FortranAioSetFile(C, Path, strlen(Path));
  _FortranAioSetStatus(C, "OLD", 3);
  for (int O = 0; O < kFortranOpts; ++O) {
    const char *V = U.Opts[O];
    // ENCODING: INQUIRE says ASCII for the default, which OPEN does not
    // take (only UTF-8 and DEFAULT).
    if (fortranOptUnset(V) || (O == OptEncoding && strcmp(V, "UTF-8")))
      continue;
    setters()[O](C, V, strlen(V));
  }
  if (U.Recl > 0)
    _FortranAioSetRecl(C, size_t(U.Recl));
  if (U.Where == AtEnd)
    _FortranAioSetPosition(C, "APPEND", 6);
  else if (U.Where != Direct)
    _FortranAioSetPosition(C, "REWIND", 6);
  int Got = U.Number;
  if (NewUnit)
    _FortranAioGetNewUnit(C, Got, 4);
  char Msg[256];
  if (!end(C, Msg, sizeof(Msg)))
    fail(U, "its OPEN failed: %s", Msg);
  if (Got != U.Number)
    fail(U, "OPEN(NEWUNIT=) gave unit %d instead", Got);
  if (U.Where == Direct)
    return;
  // Inside the file: read its records again up to the position.
  bool Formatted = !strcmp(U.Opts[OptForm], "FORMATTED");
  int64_t Pos = inquirePos(U.Number);
  while (U.Where == AfterRecords && Pos < U.Pos) {
    C = Formatted
            ? _FortranAioBeginExternalListInput(U.Number, __FILE__, __LINE__)
            : _FortranAioBeginUnformattedInput(U.Number, __FILE__, __LINE__);
    handlers(C, true);
    if (!end(C, Msg, sizeof(Msg)))
      fail(U, "reading its records up to byte %lld: %s", (long long)(U.Pos - 1),
           Msg);
    int64_t Next = inquirePos(U.Number);
    if (Next <= Pos)
      fail(U, "reading its records stopped at byte %lld", (long long)Pos - 1);
    Pos = Next;
  }
  if (Pos != U.Pos)
    fail(U, "it is at byte %lld after its OPEN, and was at byte %lld",
         (long long)Pos - 1, (long long)U.Pos - 1);
}

// A placeholder taking NEWUNIT number -N; returns the number it got.
int placeholder() {
  Cookie C = _FortranAioBeginOpenNewUnit(__FILE__, __LINE__);
  handlers(C, false);
  _FortranAioSetStatus(C, "SCRATCH", 7);
  int Got = 0;
  _FortranAioGetNewUnit(C, Got, 4);
  char Msg[256];
  if (!end(C, Msg, sizeof(Msg)))
    fatal("cannot open a STATUS='SCRATCH' unit to give the NEWUNIT= units "
          "their numbers back after the restart: %s",
          Msg);
  return Got;
}

void close(int Unit) {
  Cookie C = _FortranAioBeginClose(Unit, __FILE__, __LINE__);
  handlers(C, false);
  char Msg[256];
  end(C, Msg, sizeof(Msg)); // a placeholder: nothing of the program's
}
} // namespace

void restoreFortranUnits() {
  NUnits = 0;
  for (const FortranUnit &U : FortranUnits.U)
    if (U.Used && U.Where)
      Units[NUnits++] = U;
  forgetFortranUnits(); // the old process's descriptors
  if (NUnits == 0)
    return;
  if (!_FortranAioBeginOpenUnit || !_FortranAioBeginOpenNewUnit ||
      !_FortranAioBeginExternalListInput || !_FortranAioBeginClose)
    fail(Units[0], "flang's I/O interface (OPEN) is not linked");
  int MaxNew = 0;
  for (int I = 0; I < NUnits; ++I) {
    if (Units[I].Number > -2)
      open(Units[I], false);
    else if (-Units[I].Number > MaxNew)
      MaxNew = -Units[I].Number;
  }
  // NEWUNIT numbers, -2 down to -MaxNew.
  static int Placeholders[kMaxPlaceholders];
  int NPlaceholders = 0;
  for (int N = 2; N <= MaxNew; ++N) {
    const FortranUnit *U = nullptr;
    for (int I = 0; I < NUnits && !U; ++I)
      if (Units[I].Number == -N)
        U = &Units[I];
    if (U) {
      open(*U, true);
      continue;
    }
    int Got = placeholder();
    if (Got != -N || NPlaceholders == kMaxPlaceholders)
      fatal("cannot give the NEWUNIT= units back after the restart: "
            "OPEN(NEWUNIT=) gave unit %d where %d was expected",
            Got, -N);
    Placeholders[NPlaceholders++] = Got;
  }
  while (NPlaceholders > 0)
    close(Placeholders[--NPlaceholders]);
}
} // namespace ccc
