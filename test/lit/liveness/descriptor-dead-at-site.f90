! ccc-descriptor-liveness on flang-new's own output: which module
! allocatables the pass marks dead at the site (__ccc_dead_at_site, named
! "array (module m)"). scratch is overwritten whole after the site before
! any read, unew's interior (not its ghost cells: the range starts 8 bytes
! in, n elements) before move_alloc swaps it with u; hist is read before
! it is overwritten whole,
! maybe overwritten on some paths only, passed overwritten whole but its
! address goes to an external procedure (which may keep it), sized is overwritten over nlen elements, a global
! whose address goes to an external procedure (nlen may change unseen),
! the pointer p, overwritten whole but pointing at another array (read
! through its own name): those stay saved. The same with the overwrites
! inlined into the program and left in their procedures, and nothing at
! all when unseen code (an external call of the program's) runs first.
! scr, a main-program array overwritten after the site, too (flang's
! descriptor split into its fields by the optimizer, as nothing else sees
! it). The arrays' length n is a module variable: inlined, the loops' guards
! read it after the site, where the pass recomputes them.
! RUN: %flang -O2 -fpass-plugin=%plugin -S -emit-llvm %s -o - \
! RUN:   | FileCheck %s --implicit-check-not='(module m)'
! RUN: %flang -O2 -mllvm -inline-threshold=-1000 -fpass-plugin=%plugin \
! RUN:   -S -emit-llvm %s -o - | FileCheck %s --implicit-check-not='(module m)'
! RUN: %flang -O2 -cpp -DUNSEEN -fpass-plugin=%plugin -S -emit-llvm %s -o - \
! RUN:   | FileCheck %s --check-prefix=UNSEEN
! CHECK: c"scratch (module m)\00"
! CHECK: c"unew (module m)\00"
! CHECK: c"scr (main program)\00"
! CHECK-LABEL: define void @_QQmain(
! unew from one element past its lower bound (unew(1); unew(0) is a ghost
! cell), n elements, if the checks hold (LLVM 22 prints the constant GEP
! inbounds nuw):
! CHECK: %[[U:.*]] = load ptr, ptr @_QMmEunew
! CHECK: %[[LB:.*]] = load i64, ptr getelementptr inbounds {{(nuw )?}}(i8, ptr @_QMmEunew, i64 24)
! CHECK: %[[LB8:.*]] = shl i64 %[[LB]], 3
! CHECK: %[[OFF:.*]] = sub i64 8, %[[LB8]]
! CHECK: %[[OK:.*]] = select i1 %{{.*}}, i64 %{{.*}}, i64 0
! CHECK: %[[AT:.*]] = getelementptr i8, ptr %[[U]], i64 %[[OFF]]
! CHECK: call void @__ccc_dead_at_site(ptr %[[AT]], i64 %[[OK]]
! CHECK: call i32 @__ccc_checkpoint_slow(
! UNSEEN-NOT: __ccc_dead_at_site(
module m
  implicit none
  integer :: n ! a variable: loop bounds are loads after the site
  real(8), allocatable :: scratch(:), u(:), unew(:), hist(:), maybe(:)
  real(8), allocatable :: passed(:), sized(:)
  integer :: nlen
  real(8), target :: fixed(4096)
  real(8), pointer :: p(:)
contains
  subroutine setup()
    n = 4096
    allocate(scratch(n), u(0:n + 1), unew(0:n + 1), hist(n), maybe(n))
    allocate(passed(n))
    nlen = n
    allocate(sized(nlen))
    p => fixed
    u = 1
    unew = 1
    hist = 0
    maybe = 0
    passed = 0
  end subroutine

  subroutine fill(s)
    integer, intent(in) :: s
    integer :: i
    do i = 1, n
      scratch(i) = i * s
    end do
  end subroutine

  subroutine sweep()
    integer :: i
    do i = 1, n
      unew(i) = 0.5d0 * (u(i - 1) + u(i + 1))
    end do
  end subroutine

  subroutine fill_sized(s)
    integer, intent(in) :: s
    integer :: i
    do i = 1, nlen
      sized(i) = s
    end do
  end subroutine

  subroutine fill_passed(s)
    integer, intent(in) :: s
    integer :: i
    do i = 1, n
      passed(i) = s
    end do
  end subroutine

  subroutine keep(s)
    integer, intent(in) :: s
    integer :: i
    do i = 1, n
      hist(i) = scratch(i) * s
    end do
  end subroutine

  subroutine refill(s)
    integer, intent(in) :: s
    integer :: i
    if (mod(s, 2) == 0) then
      do i = 1, n
        maybe(i) = s
      end do
    end if
  end subroutine
end module

program p
  use m
  implicit none
  real(8), allocatable :: tmp(:), scr(:)
  integer :: s, i
  real(8) :: t
  interface
    subroutine consume(a, k)
      real(8) :: a(*)
      integer :: k
    end subroutine
    subroutine count(k)
      integer :: k
    end subroutine
  end interface
  call setup()
  allocate(scr(n))
  t = 0
  do s = 1, 100
    call ccc_checkpoint()
#ifdef UNSEEN
    call consume(hist, 0)
#endif
    t = t + hist(mod(s, n) + 1)
    call fill(s)
    call sweep()
    call refill(s)
    call fill_sized(s)
    t = t + maybe(s) + unew(s) + sized(s)
    call keep(s)
    p = s
    t = t + fixed(s)
    do i = 1, n
      scr(i) = t * i
    end do
    t = t + scr(s)
    call fill_passed(s)
    call count(nlen)
    call consume(passed, s)
    call move_alloc(u, tmp)
    call move_alloc(unew, u)
    call move_alloc(tmp, unew)
  end do
  print *, t, u(1)
end program
