; A thread-local is registered through a getter returning its address.
; RUN: %opt -passes=ccc-globals -S %s | FileCheck %s

@tls = thread_local global i32 0
; CHECK: @__ccc_gr.tls = private global { ptr, i64, ptr, i32, i32 } { ptr @__ccc_tls_get.tls, i64 4, ptr @__ccc_gname.tls, i32 1, i32 0 }, section "ccc_globals"
; CHECK-LABEL: define internal ptr @__ccc_tls_get.tls()
; CHECK: call {{.*}}ptr @llvm.threadlocal.address.p0(ptr @tls)
