! flang-new writing objects with the pass (issue 18): a procedure whose
! 32 KiB local z is overwritten whole after a call that may reach a site
! gets one 20-byte record in ccc_dead_locals naming it, at -O1 to -O3. The
! records are inline asm, and flang-new registers no assembler parser: it
! aborted ("Inline asm not supported by this streamer") until the pass
! registered one. keep's 8 KiB h is read after the call (no record), and
! COMMON storage is not a local (no record).
! RUN: %flang -O1 -fpass-plugin=%plugin -c %s -o %t1.o
! RUN: llvm-readelf -S -p .rodata %t1.o | FileCheck %s
! RUN: %flang -O2 -fpass-plugin=%plugin -c %s -o %t2.o
! RUN: llvm-readelf -S -p .rodata %t2.o | FileCheck %s
! RUN: %flang -O3 -fpass-plugin=%plugin -c %s -o %t3.o
! RUN: llvm-readelf -S -p .rodata %t3.o | FileCheck %s
! CHECK: ccc_dead_locals PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 000014
! CHECK-NOT: bytes in
! CHECK: a local of 32768 bytes in s_
! CHECK-NOT: bytes in
subroutine s(a)
  integer i
  double precision a(4096), z(4096)
  call ext()
  do i = 1, 4096
    z(i) = a(i)
  end do
  do i = 1, 4096
    a(i) = z(4097-i) * 2
  end do
end subroutine

subroutine keep(a)
  integer i
  double precision a(1024), h(1024), w(8192)
  common /blk/ w
  h(1) = a(1)
  call ext()
  do i = 2, 1024
    h(i) = h(i-1) + a(i)
  end do
  do i = 1, 1024
    a(i) = h(1025-i) + w(i)
  end do
end subroutine
