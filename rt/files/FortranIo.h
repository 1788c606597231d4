//===- FortranIo.h - flang's public I/O API, as the runtime uses it -*- C++
//-*-===//
//
// The entry points of flang's I/O runtime (flang/Runtime/io-api.h, the
// interface compiled Fortran calls for OPEN, INQUIRE, FLUSH, READ) that
// FortranUnits*.cpp use, declared here rather than included: the header
// needs flang's own include tree, which a ccc build does not. All are
// weak: a C program links none of them (and libFortranRuntime.a's
// io-api.o, which holds them all, is linked only when the program does
// Fortran I/O). Every call passes a source file, so that a runtime error
// names ccc rather than no place.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_FORTRANIO_H
#define CCC_RT_FORTRANIO_H

#include <cstddef>
#include <cstdint>

namespace ccc::fio {
using Cookie = void *;
using Hash = uint64_t;

// io-api.h's HashInquiryKeyword: the keywords of INQUIRE in base 26.
constexpr Hash hash(const char *P) {
  Hash H = 1;
  for (; *P; ++P)
    H = 26 * H + uint64_t(*P >= 'a' && *P <= 'z' ? *P - 'a' : *P - 'A');
  return H;
}
} // namespace ccc::fio

#define CCC_FIO_WEAK __attribute__((weak))
extern "C" {
using ccc::fio::Cookie;
using ccc::fio::Hash;
Cookie _FortranAioBeginInquireFile(const char *, size_t, const char *,
                                   int) CCC_FIO_WEAK;
Cookie _FortranAioBeginInquireUnit(int, const char *, int) CCC_FIO_WEAK;
bool _FortranAioInquireCharacter(Cookie, Hash, char *, size_t) CCC_FIO_WEAK;
bool _FortranAioInquireLogical(Cookie, Hash, bool &) CCC_FIO_WEAK;
bool _FortranAioInquireInteger64(Cookie, Hash, int64_t &, int) CCC_FIO_WEAK;
Cookie _FortranAioBeginFlush(int, const char *, int) CCC_FIO_WEAK;
Cookie _FortranAioBeginOpenUnit(int, const char *, int) CCC_FIO_WEAK;
Cookie _FortranAioBeginOpenNewUnit(const char *, int) CCC_FIO_WEAK;
bool _FortranAioGetNewUnit(Cookie, int &, int) CCC_FIO_WEAK;
Cookie _FortranAioBeginClose(int, const char *, int) CCC_FIO_WEAK;
Cookie _FortranAioBeginExternalListInput(int, const char *, int) CCC_FIO_WEAK;
Cookie _FortranAioBeginUnformattedInput(int, const char *, int) CCC_FIO_WEAK;
void _FortranAioEnableHandlers(Cookie, bool, bool, bool, bool,
                               bool) CCC_FIO_WEAK;
void _FortranAioGetIoMsg(Cookie, char *, size_t) CCC_FIO_WEAK;
int _FortranAioEndIoStatement(Cookie) CCC_FIO_WEAK;
bool _FortranAioSetFile(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetStatus(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetPosition(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetRecl(Cookie, size_t) CCC_FIO_WEAK;
bool _FortranAioSetAccess(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetForm(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetAction(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetBlank(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetDecimal(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetDelim(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetPad(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetRound(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetSign(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetEncoding(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetConvert(Cookie, const char *, size_t) CCC_FIO_WEAK;
bool _FortranAioSetAsynchronous(Cookie, const char *, size_t) CCC_FIO_WEAK;
}
#undef CCC_FIO_WEAK

namespace ccc {
constexpr int kFortranPathCap = 1024;

// The connection specifiers a restart gives back, as INQUIRE names them
// and OPEN sets them (same order in both tables).
enum FortranOpt {
  OptAccess,
  OptForm,
  OptAction,
  OptBlank,
  OptDecimal,
  OptDelim,
  OptPad,
  OptRound,
  OptSign,
  OptEncoding,
  OptConvert,
  OptAsynchronous,
  kFortranOpts
};
extern const char *const FortranOptNames[kFortranOpts];

// Where a restart puts a unit: at its file's end, its start, after whole
// records read again, or anywhere (direct access: every transfer says REC=).
enum FortranWhere : int32_t { AtEnd = 1, AtStart, AfterRecords, Direct };

// One descriptor that flang's runtime opened for a unit; the fields after
// Given are filled at each checkpoint.
struct FortranUnit {
  int32_t Used;
  int32_t Fd;
  int32_t Number;     // the unit
  FortranWhere Where; // where the unit was at the checkpoint
  int64_t Pos;        // INQUIRE(POS=) at the checkpoint: 1 + offset
  int64_t Size;       // the file's size then, its output flushed
  int64_t Recl;       // RECL= given at OPEN, or 0
  uint64_t Dev, Ino;
  uint32_t Mode;
  char Opts[kFortranOpts][24];
  char Given[kFortranPathCap]; // the path flang opened (FILE= as written)
  char Path[kFortranPathCap];  // /proc's name for it at the checkpoint
};

constexpr int kMaxFortranUnits = 64;
struct FortranUnitTable {
  FortranUnit U[kMaxFortranUnits];
  // Descriptors the runtime opened with no room left in U: a checkpoint
  // with one still open is refused.
  int32_t Lost;
};
// rt/files/FortranUnits.cpp: saved with the program's globals.
extern FortranUnitTable FortranUnits;

// FortranRecords.cpp (weak: linked only into programs that do formatted
// Fortran I/O): whether unit N may be inside a record that a non-advancing
// READ or WRITE left open.
bool fortranUnitInRecord(int Unit) __attribute__((weak));

// Whether an INQUIRE'd value says nothing OPEN could set.
bool fortranOptUnset(const char *V);
} // namespace ccc
#endif
