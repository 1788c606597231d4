//===- FortranUnits.h - Fortran units open at a checkpoint ------*- C++ -*-===//
#ifndef CCC_RT_FORTRANUNITS_H
#define CCC_RT_FORTRANUNITS_H

#include <cstddef>

namespace ccc {
// Weak: present only in programs whose links wrap open/close (every ccc
// link does; rt/files/FortranUnits.cpp is then pulled in by the wrapped calls).
// False, with Why, if a file that flang's runtime opened for a Fortran unit
// is open: the checkpoint must not be taken, since a restart would not give
// the unit back.
bool checkFortranUnits(char *Why, size_t WhyCap) __attribute__((weak));
} // namespace ccc
#endif
