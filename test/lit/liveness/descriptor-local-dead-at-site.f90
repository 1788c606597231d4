! ccc-descriptor-liveness on a procedure's own allocatables (descriptors on
! its stack, linked by move_alloc): unew's interior is overwritten after
! the site before the swap, so it is marked dead there, named by its
! variable when flang gives debug information; u is read first and stays.
! Under flang 22 the pass finds nothing dead here (its IR differs: e.g. it
! inlines sum, which flang 19 calls; the cause is not found yet), so images
! keep unew (correct, larger). Module and main-program allocatables
! (descriptor-dead-at-site.f90) are found.
! XFAIL: llvm22
! RUN: %flang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - \
! RUN:   | FileCheck %s --check-prefixes=CHECK,NODEBUG
! RUN: %flang -O2 -g -fpass-plugin=%plugin -S -emit-llvm %s -o - \
! RUN:   | FileCheck %s --check-prefixes=CHECK,DEBUG
! NODEBUG: c"an allocatable (in relax)\00"
! DEBUG: c"unew (in relax)\00"
! CHECK-LABEL: define void @relax_(
! CHECK: ccc.slow:
! CHECK: call void @__ccc_dead_at_site(
! CHECK-NOT: call void @__ccc_dead_at_site(
! CHECK: call i32 @__ccc_checkpoint_slow(
subroutine relax(steps)
  implicit none
  integer, intent(in) :: steps
  integer, parameter :: n = 4096
  real(8), allocatable :: u(:), unew(:), tmp(:)
  integer :: s, i
  allocate(u(0:n + 1), unew(0:n + 1))
  u = 1
  unew = 1
  do s = 1, steps
    call ccc_checkpoint()
    do i = 1, n
      unew(i) = 0.5d0 * (u(i - 1) + u(i + 1))
    end do
    call move_alloc(u, tmp)
    call move_alloc(unew, u)
    call move_alloc(tmp, unew)
  end do
  print *, sum(u)
end subroutine
