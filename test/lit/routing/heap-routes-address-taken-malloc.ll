; A stored &malloc / &free is routed too (function pointers).
; RUN: %opt -passes=ccc-heap -S %s | FileCheck %s

declare ptr @malloc(i64)
declare void @free(ptr)
@alloc_fn = global ptr @malloc
@free_fn = global ptr @free
; CHECK: @alloc_fn = global ptr @__ccc_malloc
; CHECK: @free_fn = global ptr @__ccc_free
