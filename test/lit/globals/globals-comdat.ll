; A global in a comdat gets its record in the same comdat, so the record is
; dropped with the discarded copy at link time.
; RUN: %opt -passes=ccc-globals -S %s | FileCheck %s

$inl = comdat any
@inl = linkonce_odr global i32 0, comdat
; CHECK: @__ccc_gr.inl = private global {{.*}} section "ccc_globals", comdat($inl), align 8
