//===- LinkWrap.S - __wrap_NAME for code compiled without the pass -------===//
//
// With -Wl,--wrap=malloc (the link flags ccc gives out), every call to
// malloc from an object the pass did not see (flang's runtime library, a
// static library built without the plugin) goes to __wrap_malloc, which
// tail-jumps to the runtime's __ccc_malloc with the arguments untouched.
//
//===----------------------------------------------------------------------===//
#include "ccc/abi.h"

#define CCC_WRAP(Name)                                                         \
  .globl __wrap_##Name;                                                        \
  .type __wrap_##Name, @function;                                              \
  __wrap_##Name:                                                               \
  jmp __ccc_##Name;                                                            \
  .size __wrap_##Name, .- __wrap_##Name;

  .text
CCC_WRAPPED_FUNCTIONS(CCC_WRAP)

// HeapRegion.cpp refers to this, so that linking the allocator always links
// the __wrap_ functions, even when the only callers come from archives the
// linker reads after libccc_rt.a (flang's runtime).
  .globl __ccc_link_wrap_anchor
  .type __ccc_link_wrap_anchor, @object
  .section .rodata
__ccc_link_wrap_anchor:
  .byte 0
  .size __ccc_link_wrap_anchor, 1

  .section .note.GNU-stack, "", @progbits
