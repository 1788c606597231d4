! allocate_paths.f90 - proves every Fortran allocation path survives
! restart: ALLOCATE with stat=/errmsg= (including a failing double
! allocation), source= and mold=, POINTER arrays allocated through the
! pointer, associated with allocatable targets and strided sections,
! aliased, nullified and deallocated, a linked list of pointer nodes with
! allocatable payloads, deferred-length character scalars grown by
! concatenation and deferred-length character arrays, reallocation on
! assignment (a = [a, x]), move_alloc, allocatable scalars, multi-
! dimensional allocatables with non-default bounds, and local allocatables
! of varying (sometimes large) size allocated and freed every step and
! live across a site.

module ap_state
  implicit none
  type :: node_t
    integer :: key = 0
    real(8), allocatable :: payload(:)
    type(node_t), pointer :: next => null()
  end type

  real(8), allocatable, target :: tgt(:)
  real(8), pointer :: pv(:) => null()
  real(8), pointer :: psec(:) => null()
  real(8), pointer :: powned(:, :) => null()
  real(8), pointer :: palias(:) => null()
  real(8), allocatable :: grow(:)
  real(8), allocatable :: m2(:, :), m3(:, :, :)
  character(len=:), allocatable :: text
  character(len=:), allocatable :: words(:)
  integer, allocatable :: ascalar
  real(8), allocatable :: rscalar
  type(node_t), pointer :: head => null()
  integer :: nnodes = 0, fails = 0, big = 0
  integer(8) :: trace = 1
  integer(8) :: rng_state = 88172645463325252_8
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

  subroutine mixs(h, s)
    integer(8), intent(inout) :: h
    character(len=*), intent(in) :: s
    integer :: i
    call mix(h, int(len(s), 8))
    do i = 1, len(s)
      call mix(h, int(iachar(s(i:i)), 8))
    end do
  end subroutine

  ! Points pv at all of tgt and psec at every third element of it.
  subroutine repoint()
    pv => tgt
    psec => tgt(2::3)
  end subroutine

  subroutine push_node(key)
    integer, intent(in) :: key
    type(node_t), pointer :: n
    allocate(n)
    n%key = key
    allocate(n%payload(1 + mod(key, 37)))
    n%payload = key * 0.5d0
    n%next => head
    head => n
    nnodes = nnodes + 1
  end subroutine

  ! Unlinks and frees the k-th node.
  subroutine drop_node(k)
    integer, intent(in) :: k
    type(node_t), pointer :: p, prev
    integer :: i
    prev => null()
    p => head
    do i = 2, k
      prev => p
      p => p%next
    end do
    if (associated(prev)) then
      prev%next => p%next
    else
      head => p%next
    end if
    deallocate(p%payload)
    deallocate(p)
    nnodes = nnodes - 1
  end subroutine

  subroutine step(it)
    integer, intent(in) :: it
    real(8), allocatable :: loc(:), loc2(:, :), lmold(:, :), newt(:)
    character(len=:), allocatable :: tmpc
    character(len=80) :: msg
    type(node_t), pointer :: p
    integer :: n1, st, i, j, k, nw, lw, n0

    ! A local of varying size, sometimes large, with stat= and errmsg=.
    n1 = rint(4000)
    if (mod(it, 500) == 0) then
      n1 = 200000 + rint(100000)
      big = big + 1
    end if
    msg = 'none'
    allocate(loc(n1), stat=st, errmsg=msg)
    if (st /= 0) stop 'allocate failed'
    loc = [(real(i + it, 8) * 1d-3, i = 1, n1)]
    ! Allocating it again must fail and say why, without harm.
    if (mod(it, 16) == 0) then
      allocate(loc(3), stat=st, errmsg=msg)
      if (st /= 0) fails = fails + 1
      call mix(trace, int(st, 8))
      call mixs(trace, trim(msg))
    end if

    ! source= and mold=.
    k = 1 + rint(20)
    allocate(loc2, source=reshape(loc(1:min(n1, k * 4)), [k, 4], &
      pad=[1d0, 2d0]))
    allocate(lmold, mold=loc2)
    lmold = loc2 * 2 + runif()
    allocate(character(len=1 + mod(it, 13)) :: tmpc)
    tmpc = repeat('q', len(tmpc))

    ! Locals are live across the site.
    call ccc_checkpoint()

    call mix(trace, transfer(sum(loc) + sum(lmold - loc2), 0_8))
    call mixs(trace, tmpc)
    deallocate(loc2)

    ! Reallocation on assignment.
    if (size(grow) >= 3000) grow = grow(size(grow) / 2:)
    grow = [grow, loc(rint(n1)), runif()]
    deallocate(loc)

    ! Deferred-length character grown by concatenation.
    text = text // achar(97 + mod(it, 26))
    if (len(text) >= 2000) text = text(1001:) // '|'
    if (mod(it, 10) == 0) then
      nw = 1 + rint(30)
      lw = 1 + rint(12)
      if (allocated(words)) deallocate(words)
      allocate(character(len=lw) :: words(nw))
      do j = 1, nw
        words(j) = text(max(1, len(text) - j - lw):)
      end do
    end if

    ! Pointers into an allocatable target; the target is moved now and then.
    psec = psec * 0.999d0 + runif() * 1d-3
    k = rint(size(pv))
    pv(k) = pv(k) + 1
    if (mod(it, 25) == 0) then
      n0 = size(tgt)
      allocate(newt(300 + rint(700)))
      newt = 0
      newt(1:min(n0, size(newt))) = tgt(1:min(n0, size(newt)))
      call move_alloc(newt, tgt)
      call repoint()
    end if

    ! A pointer array allocated through the pointer, with an alias.
    if (mod(it, 7) == 0) then
      if (associated(palias)) call mixr(trace, palias)
      nullify(palias)
      deallocate(powned)
      allocate(powned(1 + rint(40), 2 + rint(5)))
      powned = it
    end if
    j = rint(size(powned, 2))
    powned(:, j) = powned(:, j) + runif()
    if (mod(it, 3) == 0) palias => powned(:, 1 + mod(it, size(powned, 2)))

    ! A linked list of pointer nodes with allocatable payloads.
    if (nnodes < 5 .or. (nnodes < 200 .and. rint(2) == 1)) then
      call push_node(it)
    else
      call drop_node(rint(nnodes))
    end if
    p => head
    do while (associated(p))
      p%payload(1) = p%payload(1) + 1
      p => p%next
    end do

    ! Allocatable scalars, explicitly and by assignment.
    if (allocated(ascalar)) then
      call mix(trace, int(ascalar, 8))
      deallocate(ascalar)
    else
      allocate(ascalar, source=it * 3)
    end if
    if (mod(it, 11) == 0) deallocate(rscalar)
    if (allocated(rscalar)) then
      rscalar = rscalar * 0.5d0 + runif()
    else
      rscalar = real(it, 8)
    end if

    ! Multi-dimensional allocatables with non-default bounds.
    if (mod(it, 20) == 0) then
      deallocate(m2)
      i = rint(5)
      allocate(m2(-i:10 + rint(30), 0:3 + rint(6)))
      m2 = it
    end if
    j = lbound(m2, 2) + rint(size(m2, 2)) - 1
    m2(:, j) = m2(:, j) + runif()
    if (mod(it, 30) == 0) then
      m3 = reshape(m3, [size(m3, 3), size(m3, 1), size(m3, 2)], &
        order=[2, 3, 1])
    end if
    m3(1 + mod(it, size(m3, 1)), :, :) = m3(1 + mod(it, size(m3, 1)), :, :) &
      + 1d-2
  end subroutine

  function state_hash() result(h)
    integer(8) :: h
    type(node_t), pointer :: p
    integer :: j
    h = trace
    call mixr(h, tgt)
    call mixr(h, psec)
    call mixr(h, grow)
    do j = 1, size(powned, 2)
      call mixr(h, powned(:, j))
    end do
    do j = lbound(m2, 2), ubound(m2, 2)
      call mixr(h, m2(:, j))
    end do
    call mix(h, int(lbound(m2, 1), 8))
    call mixr(h, reshape(m3, [size(m3)]))
    call mix(h, int(size(m3, 1) * 10000 + size(m3, 2) * 100 + size(m3, 3), 8))
    call mixs(h, text)
    do j = 1, size(words)
      call mixs(h, words(j))
    end do
    p => head
    do while (associated(p))
      call mix(h, int(p%key, 8))
      call mixr(h, p%payload)
      p => p%next
    end do
    if (allocated(ascalar)) call mix(h, int(ascalar, 8))
    if (allocated(rscalar)) call mix(h, transfer(rscalar, 0_8))
  end function
end module ap_state

program allocate_paths
  use ap_state
  implicit none
  character(len=32) :: arg
  integer :: it, steps, i
  call get_command_argument(1, arg)
  read(arg, *) steps
  allocate(tgt(500))
  tgt = [(i * 0.25d0, i = 1, 500)]
  call repoint()
  allocate(grow(0))
  text = ''
  allocate(character(len=4) :: words(2))
  words = ['abcd', 'efgh']
  allocate(powned(4, 4), source=1d0)
  allocate(m2(0:9, 1:5), source=0d0)
  allocate(m3(3, 4, 5))
  m3 = reshape([(i * 1d-1, i = 1, 60)], shape(m3))
  rscalar = 1
  do it = 1, steps
    call ccc_checkpoint()
    call step(it)
  end do
  write(*, '(a,i0,1x,i0,1x,i0,1x,i0)') 'counts ', nnodes, fails, big, &
    len(text)
  write(*, '(a,i0,1x,i0,1x,i0)') 'sizes ', size(tgt), size(grow), &
    size(words)
  write(*, '(a,es25.17e3)') 'sum ', sum(tgt) + sum(powned) + sum(m2)
  write(*, '(a,i0)') 'hash ', state_hash()
end program allocate_paths
