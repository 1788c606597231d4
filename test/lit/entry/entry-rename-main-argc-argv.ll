; main(argc, argv) is renamed and internal; __ccc_user_main forwards 2 args;
; a weak main calls __ccc_user_main.
; RUN: %opt -passes=ccc-entry -S %s | FileCheck %s

define i32 @main(i32 %argc, ptr %argv) {
  ret i32 %argc
}
; CHECK-LABEL: define internal i32 @__ccc_main_orig(i32 %argc, ptr %argv)
; CHECK-LABEL: define i32 @__ccc_user_main(i32 %0, ptr %1, ptr %2)
; CHECK-NEXT: entry:
; CHECK-NEXT: %3 = call i32 @__ccc_main_orig(i32 %0, ptr %1)
; CHECK-NEXT: ret i32 %3
; The fallback main, overridden by the runtime's when it is linked:
; CHECK-LABEL: define weak i32 @main(i32 %0, ptr %1, ptr %2)
; CHECK-NEXT: entry:
; CHECK-NEXT: %3 = call i32 @__ccc_user_main(i32 %0, ptr %1, ptr %2)
; CHECK-NEXT: ret i32 %3
; CHECK-NOT: define {{.*}} @main(
