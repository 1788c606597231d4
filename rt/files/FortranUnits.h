//===- FortranUnits.h - Fortran units across a restart ----------*- C++ -*-===//
#ifndef CCC_RT_FORTRANUNITS_H
#define CCC_RT_FORTRANUNITS_H

#include <cstddef>

namespace ccc {
// Weak: present only in programs whose links wrap open/close (every ccc
// link does; rt/files/FortranUnits.cpp is then pulled in by the wrapped
// calls).
//
// At a checkpoint: records every unit that flang's runtime has a file open
// for (number, specifiers, position) in a saved table, and flushes it.
// False, with Why naming the unit and its file, if one cannot be given back
// by a restart: the checkpoint must not be taken.
bool recordFortranUnits(char *Why, size_t WhyCap) __attribute__((weak));
// In the restarted process, at the checkpoint site it resumed (the restored
// runtime has no unit open): opens the recorded units again, each at its
// position, their files cut back to their size at the checkpoint. Ends the
// process with a `ccc:` message if one cannot be (its file gone or
// shorter): the program would otherwise write to another file.
void restoreFortranUnits() __attribute__((weak));
// Empties the table (its descriptors were the old process's).
void forgetFortranUnits();
} // namespace ccc
#endif
