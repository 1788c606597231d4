//===- UnsavedGlobals.h - Objects compiled without the pass ----*- C++ -*-===//
#ifndef CCC_RT_UNSAVEDGLOBALS_H
#define CCC_RT_UNSAVEDGLOBALS_H

namespace ccc {
// Lists writable globals of the executable that no checkpoint would save
// (objects compiled without the pass); acts on them as CCC_UNSAVED says.
void checkUnsavedGlobals();
} // namespace ccc
#endif
