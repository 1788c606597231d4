//===- unit_check.h - CHECK for the runtime's unit tests --------*- C++ -*-===//
//
// CHECK(C) reports a false condition with its place and counts it in
// Failures; a test exits non-zero if Failures is.
//
//===----------------------------------------------------------------------===//
#ifndef CCC_TEST_RT_UNIT_CHECK_H
#define CCC_TEST_RT_UNIT_CHECK_H

#include <cstdio>

static int Failures;
#define CHECK(C)                                                               \
  do {                                                                         \
    if (!(C)) {                                                                \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #C);             \
      ++Failures;                                                              \
    }                                                                          \
  } while (0)

#endif
