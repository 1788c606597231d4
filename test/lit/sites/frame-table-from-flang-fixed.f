! The same in fixed form, Fortran 77 style (issue 18): COMMON state, an
! external call that may reach a site, then a 32 KiB local overwritten whole
! and read: one record at -O1 to -O3, not a crash in flang-new's backend.
! RUN: %flang -O1 -fpass-plugin=%plugin -c %s -o %t1.o
! RUN: llvm-readelf -S -p .rodata %t1.o | FileCheck %s
! RUN: %flang -O2 -fpass-plugin=%plugin -c %s -o %t2.o
! RUN: llvm-readelf -S -p .rodata %t2.o | FileCheck %s
! RUN: %flang -O3 -fpass-plugin=%plugin -c %s -o %t3.o
! RUN: llvm-readelf -S -p .rodata %t3.o | FileCheck %s
! CHECK: ccc_dead_locals PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 000014
! CHECK-NOT: bytes in
! CHECK: a local of 32768 bytes in step_
! CHECK-NOT: bytes in
      SUBROUTINE STEP(IT)
      INTEGER IT, I, N
      PARAMETER (N = 4096)
      DOUBLE PRECISION U(N), T, Z(N)
      COMMON /STATE/ U, T
      CALL EXCH(IT)
      DO 10 I = 1, N
         Z(I) = U(I) + T
   10 CONTINUE
      DO 20 I = 1, N
         U(I) = 0.5D0 * Z(N + 1 - I)
   20 CONTINUE
      END
