//===- ProgramStack.h - Where the program's main runs -----------*- C++ -*-===//
//
// The program's main runs on a stack ccc maps at a fixed address
// (process/Runtime.cpp). The heap's exclusions and the image writer ask
// whether a range lies in it; the range is kept here, below both, so that
// the heap does not depend on the process start.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_RT_PROGRAMSTACK_H
#define CCC_RT_PROGRAMSTACK_H

#include <cstdint>

namespace ccc {
// [Low, High), the stack growing down from High; zero until it is mapped.
struct StackRange {
  uintptr_t Low = 0, High = 0;
};
extern StackRange ProgramStack;

// Whether [A, A+L) lies in the program stack.
inline bool inProgramStack(uintptr_t A, uint64_t L) {
  return ProgramStack.Low && A >= ProgramStack.Low && A < ProgramStack.High &&
         L <= ProgramStack.High - A;
}
} // namespace ccc
#endif
