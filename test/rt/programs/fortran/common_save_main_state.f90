! common_save_main_state.f90 - proves static Fortran state survives
! restart: large fixed-size main-program arrays and scalars, named and
! blank COMMON blocks shared between subroutines (one seen with different
! layouts by different units), a COMMON block initialized in BLOCK DATA,
! SAVEd locals (explicit SAVE attribute, a bare SAVE statement, locals
! implicitly SAVE by initialization or by DATA statements) and main-program
! DATA, all mutated every step. Sites are in the main loop and inside a
! subroutine whose SAVEd and automatic locals are used after the site.

block data cfg_init
  implicit none
  integer :: nwin, seedc
  real(8) :: decay(4)
  common /cfg/ nwin, seedc, decay
  data nwin /1500/, seedc /12345/
  data decay /0.5d0, 0.75d0, 0.875d0, 0.9375d0/
end block data cfg_init

module hash_util
  implicit none
contains
  ! Folds v into the hash h (shifts and xors only: no signed overflow).
  subroutine mix(h, v)
    integer(8), intent(inout) :: h
    integer(8), intent(in) :: v
    h = ieor(ishftc(h, 9), v)
    h = ieor(h, ishft(h, 13))
    h = ieor(h, ishft(h, -7))
    h = ieor(h, ishft(h, 17))
  end subroutine

  function bits(x) result(b)
    real(8), intent(in) :: x
    integer(8) :: b
    b = transfer(x, b)
  end function

  function hash_real(x) result(h)
    real(8), intent(in) :: x(:)
    integer(8) :: h
    integer :: i
    h = 3
    do i = 1, size(x)
      call mix(h, bits(x(i)))
    end do
  end function

  function hash_int(x) result(h)
    integer, intent(in) :: x(:)
    integer(8) :: h
    integer :: i
    h = 5
    do i = 1, size(x)
      call mix(h, int(x(i), 8))
    end do
  end function
end module hash_util

! The random number generator keeps its state in a named COMMON block.
function rnext() result(r)
  implicit none
  integer(8) :: r
  integer(8) :: s
  common /rngc/ s
  s = ieor(s, ishft(s, 13))
  s = ieor(s, ishft(s, -7))
  s = ieor(s, ishft(s, 17))
  r = s
end function

function runif() result(u)
  implicit none
  real(8) :: u
  integer(8), external :: rnext
  u = real(ishft(rnext(), -11), 8) * 2d0**(-53)
end function

function rint(n) result(k)
  implicit none
  integer, intent(in) :: n
  integer :: k
  integer(8), external :: rnext
  k = int(modulo(ishft(rnext(), -1), int(n, 8))) + 1
end function

! /phys/ seen as one array here ...
subroutine phys_relax(it)
  implicit none
  integer, intent(in) :: it
  real(8) :: field(4000)
  integer :: nrelax
  common /phys/ field, nrelax
  integer :: i, lo
  integer, external :: rint
  lo = rint(3000)
  do i = lo, lo + 999
    field(i) = 0.5d0 * (field(i) + field(i + 1)) + 1d-3 * mod(it, 17)
  end do
  nrelax = nrelax + 1
end subroutine

! ... and as two halves here (storage association).
subroutine phys_swap()
  implicit none
  real(8) :: left(2000), right(2000)
  integer :: nrelax
  common /phys/ left, right, nrelax
  real(8) :: t
  integer :: i
  integer, external :: rint
  i = rint(2000)
  t = left(i)
  left(i) = right(2001 - i)
  right(2001 - i) = t * 1.0001d0
  nrelax = nrelax + 2
end subroutine

! Blank COMMON shared with the main program.
subroutine blank_update(it)
  implicit none
  integer, intent(in) :: it
  real(8) :: bx(5000)
  integer :: bn(100)
  common bx, bn
  real(8), external :: runif
  integer, external :: rint
  integer :: k
  k = rint(5000)
  bx(k) = bx(k) + runif()
  bn(1 + mod(it, 100)) = bn(1 + mod(it, 100)) + k
end subroutine

! Locals made SAVE in every way the language allows.
subroutine saved_locals(it, hout)
  use hash_util
  implicit none
  integer, intent(in) :: it
  integer(8), intent(out) :: hout
  real(8), save :: acc(1000)            ! explicit SAVE, zero at start
  integer :: calls = 0                  ! initialized: implicitly SAVE
  logical :: first = .true.             ! initialized: implicitly SAVE
  integer :: tbl(8)                     ! DATA: implicitly SAVE
  character(len=8) :: word              ! DATA: implicitly SAVE
  integer(8), save :: h = 17
  real(8), external :: runif
  integer, external :: rint
  data tbl /1, 1, 2, 3, 5, 8, 13, 21/
  data word /'abcdefgh'/
  integer :: k
  if (first) then
    acc = 1
    first = .false.
  end if
  calls = calls + 1
  k = rint(1000)
  acc(k) = acc(k) * 0.999d0 + runif()
  tbl(1 + mod(calls, 8)) = tbl(1 + mod(calls, 8)) + tbl(1 + mod(calls + 3, 8))
  tbl = mod(tbl, 1000003)
  word(1 + mod(calls, 8):1 + mod(calls, 8)) = achar(97 + mod(it + k, 26))
  call mix(h, bits(acc(k)))
  call mix(h, int(tbl(1 + mod(calls, 8)), 8))
  call mix(h, int(calls, 8))
  do k = 1, len(word)
    call mix(h, int(iachar(word(k:k)), 8))
  end do
  hout = h
end subroutine

function saved_summary() result(h)
  use hash_util
  implicit none
  integer(8) :: h
  h = -1
  call saved_peek(h, 64)
end function

! A bare SAVE statement saves every local (the automatic array, which
! cannot be SAVE, stays on the stack); a site inside, with both used after.
subroutine saved_peek(hio, n)
  use hash_util
  implicit none
  integer(8), intent(inout) :: hio
  integer, intent(in) :: n
  integer :: visits
  real(8) :: ring(64)
  integer :: pos
  save
  data visits /0/, pos /1/
  real(8), external :: runif
  real(8) :: snap(n)
  if (visits == 0) ring = 0
  visits = visits + 1
  ring(pos) = runif()
  snap = ring
  if (hio >= 0) call ccc_checkpoint()
  pos = 1 + mod(pos + 6, 64)
  hio = ieor(hio, hash_real(snap - ring))
  call mix(hio, hash_real(ring))
  call mix(hio, int(visits, 8))
end subroutine

program common_save_main_state
  use hash_util
  implicit none
  real(8) :: a(200000)
  integer :: ia(50000)
  real(8) :: energy
  integer :: step_count
  character(len=16) :: label
  integer(8) :: trace, hs
  integer :: primes(6)
  real(8) :: bx(5000)
  integer :: bn(100)
  common bx, bn
  real(8) :: field(4000)
  integer :: nrelax
  common /phys/ field, nrelax
  integer :: nwin, seedc
  real(8) :: decay(4)
  common /cfg/ nwin, seedc, decay
  integer(8) :: s
  common /rngc/ s
  data primes /2, 3, 5, 7, 11, 13/
  data label /'start'/, step_count /0/, energy /1.0d0/
  character(len=32) :: arg
  integer :: it, steps, i, lo, k
  real(8), external :: runif
  integer, external :: rint
  integer(8), external :: saved_summary

  call get_command_argument(1, arg)
  read(arg, *) steps
  s = int(seedc, 8) * 2654435761_8
  do i = 1, size(a)
    a(i) = real(mod(i, 977), 8) * 1d-3
  end do
  do i = 1, size(ia)
    ia(i) = mod(i * 7, 1009)
  end do
  do i = 1, size(field)
    field(i) = sin(i * 1d-2)
  end do
  bx = 0
  bn = 0
  nrelax = 0
  trace = 1
  do it = 1, steps
    call ccc_checkpoint()
    lo = rint(size(a) - nwin)
    do i = lo, lo + nwin - 1
      a(i) = a(i) * decay(1 + mod(it, 4)) + runif()
    end do
    k = rint(size(ia))
    ia(k) = ia(k) + primes(1 + mod(it, 6))
    primes(1 + mod(it, 6)) = mod(primes(1 + mod(it, 6)) * 3 + 1, 100003)
    energy = energy * 0.9999d0 + a(lo) * 1d-4
    step_count = step_count + 1
    label(1 + mod(it, 16):1 + mod(it, 16)) = achar(65 + mod(k, 26))
    call phys_relax(it)
    if (mod(it, 3) == 0) call phys_swap()
    call blank_update(it)
    call saved_locals(it, hs)
    call mix(trace, hs)
    if (mod(it, 5) == 0) then
      hs = 0
      call saved_peek(hs, 64)
      call mix(trace, hs)
    end if
    if (mod(it, 1000) == 0) nwin = 1000 + rint(1000)
    decay(1 + mod(it, 4)) = 0.5d0 + 0.49d0 * runif()
  end do
  write(*, '(a,i0,1x,i0,1x,a)') 'steps ', step_count, nrelax, label
  write(*, '(a,es25.17e3,1x,i0)') 'energy ', energy, hash_int(primes)
  write(*, '(a,i0,1x,i0)') 'main ', hash_real(a), hash_int(ia)
  write(*, '(a,i0,1x,i0,1x,i0)') 'common ', hash_real(field), &
    hash_real(bx), hash_int(bn)
  write(*, '(a,i0,1x,i0,1x,i0)') 'cfg ', nwin, hash_real(decay), s
  write(*, '(a,i0,1x,i0)') 'saved ', trace, saved_summary()
end program common_save_main_state
