! automatic_arrays_recursion.f90 - proves a checkpoint taken deep inside
! Fortran recursion resumes correctly: sites in a recursive subroutine
! (depth varies per step, sometimes thousands of frames) and a recursive
! function, automatic arrays sized by dummies and by size() of assumed-
! shape arguments live on every frame of the path to the site, assumed-
! shape arguments that are reversed or strided sections of the caller's
! automatic arrays, copy-in/copy-out temporaries for a strided section
! passed to an explicit-shape dummy and an expression passed as an actual
! argument (both live across a site), internal procedures using host
! variables (of a recursive host and of the main program, one passed as an
! actual argument), and intent(inout) arguments live across the sites.

module rec_util
  implicit none
  integer(8) :: rng_state = 88172645463325252_8
  integer(8) :: visits = 0, leaves = 0
contains
  function rnext() result(r)
    integer(8) :: r
    rng_state = ieor(rng_state, ishft(rng_state, 13))
    rng_state = ieor(rng_state, ishft(rng_state, -7))
    rng_state = ieor(rng_state, ishft(rng_state, 17))
    r = rng_state
  end function

  function runif() result(u)
    real(8) :: u
    u = real(ishft(rnext(), -11), 8) * 2d0**(-53)
  end function

  function rint(n) result(k)
    integer, intent(in) :: n
    integer :: k
    k = int(modulo(ishft(rnext(), -1), int(n, 8))) + 1
  end function

  ! Folds v into the hash h (shifts and xors only: no signed overflow).
  subroutine mix(h, v)
    integer(8), intent(inout) :: h
    integer(8), intent(in) :: v
    h = ieor(ishftc(h, 9), v)
    h = ieor(h, ishft(h, 13))
    h = ieor(h, ishft(h, -7))
    h = ieor(h, ishft(h, 17))
  end subroutine

  subroutine mixr(h, x)
    integer(8), intent(inout) :: h
    real(8), intent(in) :: x(:)
    integer :: i
    call mix(h, int(size(x), 8))
    do i = 1, size(x)
      call mix(h, transfer(x(i), 0_8))
    end do
  end subroutine
end module rec_util

module rec_mod
  use rec_util
  implicit none
contains
  ! Explicit-shape dummy: a strided actual arrives as a copy-in/copy-out
  ! temporary that is live across the site.
  subroutine leaf(y, n, acc)
    integer, intent(in) :: n
    real(8), intent(inout) :: y(n)
    integer(8), intent(inout) :: acc
    real(8) :: t(2 * n + 1)
    integer :: i
    leaves = leaves + 1
    do i = 1, size(t)
      t(i) = y(1 + mod(i - 1, n)) + i * 1d-3
    end do
    call ccc_checkpoint()
    y = y * 0.5d0 + t(n + 2:) * 0.5d0
    call mix(acc, transfer(t(2 * n + 1), 0_8))
  end subroutine

  recursive subroutine descend(depth, maxd, x, acc, energy)
    integer, intent(in) :: depth, maxd
    real(8), intent(inout) :: x(:)
    integer(8), intent(inout) :: acc
    real(8), intent(inout) :: energy
    real(8) :: work(min(size(x) + mod(depth, 7), 64))
    integer :: marks(1 + mod(depth, 5))
    integer :: i, m
    m = size(work)
    do i = 1, m
      work(i) = x(1 + mod(i - 1, size(x))) * 0.5d0 + depth
    end do
    marks = depth
    visits = visits + 1
    if (mod(depth, 5) == 0) call ccc_checkpoint()
    if (depth < maxd) then
      if (mod(depth, 2) == 0) then
        ! The callee works on this frame's automatic array.
        call descend(depth + 1, maxd, work(1:m - 1), acc, energy)
      else
        ! ... or on a reversed section of the caller's array.
        call descend(depth + 1, maxd, x(size(x):1:-1), acc, energy)
      end if
    else
      call leaf(x(1::2), size(x(1::2)), acc)
    end if
    call fold()
    energy = energy * 0.999d0 + sum(work) * 1d-6 + sum(marks) * 1d-9
  contains
    subroutine fold()
      integer :: j
      do j = 1, size(x)
        x(j) = x(j) * 0.75d0 + work(1 + mod(j - 1, m)) * 0.25d0
      end do
      call mix(acc, transfer(work(m), 0_8))
      call mix(acc, int(depth + marks(size(marks)), 8))
    end subroutine
  end subroutine

  recursive function tri(k, v) result(r)
    integer, intent(in) :: k
    real(8), intent(in) :: v(:)
    real(8) :: r
    real(8) :: w(k + 1)
    w = v(1 + mod(k, size(v))) + k
    if (mod(k, 9) == 4) call ccc_checkpoint()
    if (k == 0) then
      r = w(1)
    else
      r = 0.5d0 * tri(k - 1, v) + sum(w) * 1d-3
    end if
  end function

  ! An expression passed as the actual argument: a temporary live across
  ! the site.
  subroutine observe(v, acc)
    real(8), intent(in) :: v(:)
    integer(8), intent(inout) :: acc
    real(8) :: first
    first = v(1)
    call ccc_checkpoint()
    call mixr(acc, v)
    call mix(acc, transfer(first, 0_8))
  end subroutine

  subroutine apply(f, x)
    interface
      function f(a) result(b)
        real(8), intent(in) :: a
        real(8) :: b
      end function
    end interface
    real(8), intent(inout) :: x(:)
    integer :: i
    call ccc_checkpoint()
    do i = 1, size(x)
      x(i) = f(x(i))
    end do
  end subroutine
end module rec_mod

program automatic_arrays_recursion
  use rec_util
  use rec_mod
  implicit none
  real(8) :: state(48), energy, factor, tsum
  integer(8) :: acc
  integer :: it, steps, deepest
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read(arg, *) steps
  state = [(it * 0.125d0, it = 1, size(state))]
  energy = 0
  acc = 1
  factor = 1
  tsum = 0
  deepest = 0
  do it = 1, steps
    call ccc_checkpoint()
    call main_step(it)
  end do
  write(*, '(a,i0,1x,i0,1x,i0)') 'visits ', visits, leaves, deepest
  write(*, '(a,es25.17e3,1x,es25.17e3)') 'energy ', energy, tsum
  write(*, '(a,i0)') 'acc ', acc
  call mixr(acc, state)
  write(*, '(a,i0)') 'state ', acc
contains
  subroutine main_step(it)
    integer, intent(in) :: it
    integer :: maxd, n
    maxd = 5 + rint(60)
    if (mod(it, 200) == 0) maxd = 1500 + rint(1500)
    deepest = max(deepest, maxd)
    n = 8 + rint(size(state) - 8)
    call descend(0, maxd, state(1:n), acc, energy)
    ! Array temporaries for overlapping right-hand sides.
    state = state(size(state):1:-1) * 0.5d0 + cshift(state, 1) * 0.5d0
    if (mod(it, 3) == 0) call observe(state * 2d0 + it, acc)
    if (mod(it, 4) == 0) then
      factor = 0.9d0 + 0.2d0 * runif()
      call apply(scale, state)
    end if
    if (mod(it, 5) == 0) tsum = tsum * 0.5d0 + tri(rint(40), state)
  end subroutine

  function scale(a) result(b)
    real(8), intent(in) :: a
    real(8) :: b
    b = a * factor + 1d-3 * energy
  end function
end program automatic_arrays_recursion
