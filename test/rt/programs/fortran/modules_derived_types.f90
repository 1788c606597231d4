! modules_derived_types.f90 - proves Fortran module state survives restart:
! variables of several modules (one using the others), derived types with
! allocatable array, character and nested derived-type components, type
! extension (two levels) with class(...) polymorphism and type-bound
! procedures (deferred, overridden, select type, allocate(child :: x),
! allocate(x, source=child(...))), arrays of derived type grown and shrunk
! by reallocation on assignment and move_alloc, and an allocatable
! derived-type variable deep-copied and replaced during the run. Sites are
! in the main loop and inside a type-bound procedure reached by dynamic
! dispatch, with the polymorphic object live across the site.

module rng_mod
  implicit none
  private
  public :: rnext, runif, rint, mix, bits
  integer(8), save :: rng_state = 88172645463325252_8
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

  function bits(x) result(b)
    real(8), intent(in) :: x
    integer(8) :: b
    b = transfer(x, b)
  end function
end module rng_mod

module shapes_mod
  use rng_mod
  implicit none
  type, abstract :: shape_t
    integer :: id = 0
    real(8) :: origin(2) = 0
  contains
    procedure(area_i), deferred :: area
    procedure :: grow => shape_grow
    procedure :: move => shape_move
    procedure :: settle => shape_settle
    procedure :: hash => shape_hash
  end type

  abstract interface
    function area_i(self) result(a)
      import :: shape_t
      class(shape_t), intent(in) :: self
      real(8) :: a
    end function
  end interface

  type, extends(shape_t) :: circle_t
    real(8) :: r = 1
  contains
    procedure :: area => circle_area
    procedure :: grow => circle_grow
  end type

  type, extends(shape_t) :: rect_t
    real(8) :: w = 1, h = 1
  contains
    procedure :: area => rect_area
    procedure :: grow => rect_grow
  end type

  type, extends(rect_t) :: square_t
    integer :: flips = 0
  contains
    procedure :: grow => square_grow
  end type

  type, extends(shape_t) :: poly_t
    real(8), allocatable :: xy(:, :)
  contains
    procedure :: area => poly_area
    procedure :: grow => poly_grow
  end type

  type :: holder_t
    class(shape_t), allocatable :: s
  end type

  integer :: shapes_made = 0
  integer(8) :: settle_hash = 1
contains
  function circle_area(self) result(a)
    class(circle_t), intent(in) :: self
    real(8) :: a
    a = 3.141592653589793d0 * self%r**2
  end function

  function rect_area(self) result(a)
    class(rect_t), intent(in) :: self
    real(8) :: a
    a = self%w * self%h
  end function

  function poly_area(self) result(a)
    class(poly_t), intent(in) :: self
    real(8) :: a
    integer :: i, j, n
    n = size(self%xy, 2)
    a = 0
    do i = 1, n
      j = merge(1, i + 1, i == n)
      a = a + self%xy(1, i) * self%xy(2, j) - self%xy(1, j) * self%xy(2, i)
    end do
    a = 0.5d0 * abs(a)
  end function

  subroutine shape_grow(self)
    class(shape_t), intent(inout) :: self
    self%origin = self%origin * 0.5d0
  end subroutine

  subroutine circle_grow(self)
    class(circle_t), intent(inout) :: self
    self%r = self%r * 1.01d0 + 0.001d0
    if (self%r > 10) self%r = runif()
  end subroutine

  subroutine rect_grow(self)
    class(rect_t), intent(inout) :: self
    self%w = self%w * 1.02d0
    self%h = self%h * 0.99d0 + runif() * 0.01d0
    if (self%w > 8) self%w = 1
  end subroutine

  subroutine square_grow(self)
    class(square_t), intent(inout) :: self
    call self%rect_t%grow()
    self%h = self%w
    self%flips = self%flips + 1
  end subroutine

  subroutine poly_grow(self)
    class(poly_t), intent(inout) :: self
    real(8), allocatable :: tmp(:, :)
    integer :: n
    n = size(self%xy, 2)
    if (n >= 48) then
      self%xy = self%xy(:, 1:3)
      return
    end if
    allocate(tmp(2, n + 1))
    tmp(:, 1:n) = self%xy
    tmp(1, n + 1) = cos(n * 0.3d0) * (1 + runif())
    tmp(2, n + 1) = sin(n * 0.3d0) * (1 + runif())
    call move_alloc(tmp, self%xy)
  end subroutine

  subroutine shape_move(self, dx, dy)
    class(shape_t), intent(inout) :: self
    real(8), intent(in) :: dx, dy
    self%origin(1) = self%origin(1) + dx
    self%origin(2) = self%origin(2) + dy
  end subroutine

  ! A site reached by dynamic dispatch; self and the locals are used after.
  subroutine shape_settle(self, it)
    class(shape_t), intent(inout) :: self
    integer, intent(in) :: it
    real(8) :: before
    integer(8) :: h
    before = self%area()
    h = self%hash()
    call ccc_checkpoint()
    call self%grow()
    call mix(settle_hash, h)
    call mix(settle_hash, bits(self%area() - before))
    call mix(settle_hash, int(it, 8))
  end subroutine

  function shape_hash(self) result(h)
    class(shape_t), intent(in) :: self
    integer(8) :: h
    integer :: i
    h = int(self%id, 8)
    call mix(h, bits(self%origin(1)))
    call mix(h, bits(self%origin(2)))
    select type (self)
    type is (circle_t)
      call mix(h, 11_8)
      call mix(h, bits(self%r))
    type is (square_t)
      call mix(h, 13_8)
      call mix(h, bits(self%w))
      call mix(h, int(self%flips, 8))
    class is (rect_t)
      call mix(h, 12_8)
      call mix(h, bits(self%w))
      call mix(h, bits(self%h))
    type is (poly_t)
      call mix(h, 14_8)
      call mix(h, int(size(self%xy, 2), 8))
      do i = 1, size(self%xy, 2)
        call mix(h, bits(self%xy(1, i)))
        call mix(h, bits(self%xy(2, i)))
      end do
    class default
      h = -1
    end select
  end function

  ! A fresh random shape in h%s (whatever it held before is dropped).
  subroutine make_shape(hd)
    type(holder_t), intent(inout) :: hd
    integer :: k, i, n
    if (allocated(hd%s)) deallocate(hd%s)
    shapes_made = shapes_made + 1
    k = rint(4)
    select case (k)
    case (1)
      allocate(circle_t :: hd%s)
      select type (s => hd%s)
      type is (circle_t)
        s%r = 0.5d0 + runif()
      end select
    case (2)
      allocate(hd%s, source=rect_t(w=1 + runif(), h=1 + runif()))
    case (3)
      allocate(square_t :: hd%s)
      select type (s => hd%s)
      class is (rect_t)
        s%w = 0.5d0 + runif()
        s%h = s%w
      end select
    case default
      allocate(poly_t :: hd%s)
      select type (s => hd%s)
      type is (poly_t)
        n = 3 + rint(5)
        allocate(s%xy(2, n))
        do i = 1, n
          s%xy(1, i) = cos(i * 6.283185307179586d0 / n) * (1 + runif())
          s%xy(2, i) = sin(i * 6.283185307179586d0 / n) * (1 + runif())
        end do
      end select
    end select
    hd%s%id = shapes_made
    hd%s%origin = [runif(), runif()]
  end subroutine
end module shapes_mod

module particles_mod
  use rng_mod
  implicit none
  type :: tag_t
    character(len=:), allocatable :: name
    integer, allocatable :: codes(:)
  end type

  type :: particle_t
    real(8) :: pos(3) = 0
    real(8), allocatable :: hist(:)
    type(tag_t) :: tag
    type(tag_t), allocatable :: extra
  end type

  type(particle_t), allocatable :: parts(:)
  integer :: n_resizes = 0
contains
  function new_particle(k) result(p)
    integer, intent(in) :: k
    type(particle_t) :: p
    p%pos = [runif(), runif(), runif()]
    allocate(p%hist(1 + mod(k, 5)))
    p%hist = real(k, 8)
    p%tag%name = 'p'
    p%tag%codes = [k, k + 1]
  end function

  subroutine particles_step(it)
    integer, intent(in) :: it
    integer :: i, n
    character(len=1) :: c
    do i = 1, size(parts)
      associate (p => parts(i))
        p%pos = p%pos * 0.999d0 + [runif(), runif(), runif()] * 1d-3
        if (size(p%hist) >= 64) then
          p%hist = p%hist(33:)
        end if
        p%hist = [p%hist, sum(p%pos)]
        c = achar(iachar('a') + mod(it + i, 26))
        if (len(p%tag%name) >= 40) then
          p%tag%name = p%tag%name(21:) // c
        else
          p%tag%name = p%tag%name // c
        end if
        p%tag%codes(1 + mod(it, size(p%tag%codes))) = it + i
        if (mod(it + i, 7) == 0) p%tag%codes = [p%tag%codes, i]
        if (size(p%tag%codes) > 20) p%tag%codes = p%tag%codes(11:)
        if (allocated(p%extra)) then
          if (mod(it + i, 3) == 0) then
            deallocate(p%extra)
          else
            p%extra%name = p%extra%name // c
            p%extra%codes = p%extra%codes + 1
          end if
        else if (mod(it + i, 5) == 0) then
          allocate(p%extra)
          p%extra%name = 'x' // c
          allocate(p%extra%codes(1 + mod(i, 9)), source=it)
        end if
      end associate
    end do
    if (mod(it, 37) == 0) then
      n_resizes = n_resizes + 1
      n = size(parts)
      if (n > 60 .or. (n > 10 .and. rint(2) == 1)) then
        parts = parts(1 + rint(5):)
      else
        parts = [parts, new_particle(it), new_particle(it + 1)]
      end if
    end if
  end subroutine

  function particles_hash() result(h)
    integer(8) :: h
    integer :: i, j
    h = int(size(parts), 8)
    call mix(h, int(n_resizes, 8))
    do i = 1, size(parts)
      associate (p => parts(i))
        do j = 1, 3
          call mix(h, bits(p%pos(j)))
        end do
        do j = 1, size(p%hist)
          call mix(h, bits(p%hist(j)))
        end do
        do j = 1, len(p%tag%name)
          call mix(h, int(iachar(p%tag%name(j:j)), 8))
        end do
        do j = 1, size(p%tag%codes)
          call mix(h, int(p%tag%codes(j), 8))
        end do
        if (allocated(p%extra)) then
          call mix(h, int(len(p%extra%name), 8))
          call mix(h, int(sum(p%extra%codes), 8))
        end if
      end associate
    end do
  end function
end module particles_mod

module world_mod
  use rng_mod
  use shapes_mod
  use particles_mod
  implicit none
  type :: world_t
    type(holder_t), allocatable :: shapes(:)
    class(shape_t), allocatable :: best
    integer(8) :: steps = 0
    real(8), allocatable :: area_log(:)
  end type

  type(world_t), allocatable :: w
  real(8) :: total_area = 0
  integer(8) :: trace = 7
  integer :: copies = 0
contains
  subroutine world_init()
    integer :: i
    allocate(w)
    allocate(w%shapes(16))
    do i = 1, size(w%shapes)
      call make_shape(w%shapes(i))
    end do
    allocate(w%area_log(0))
    allocate(parts(12))
    do i = 1, size(parts)
      parts(i) = new_particle(i)
    end do
  end subroutine

  subroutine world_step(it)
    integer, intent(in) :: it
    type(holder_t), allocatable :: tmp(:)
    type(world_t), allocatable :: w2
    integer :: i, k, n, kbest
    real(8) :: a, abest

    call make_shape(w%shapes(rint(size(w%shapes))))
    abest = -1
    kbest = 1
    do i = 1, size(w%shapes)
      call w%shapes(i)%s%grow()
      call w%shapes(i)%s%move(runif() - 0.5d0, runif() - 0.5d0)
      a = w%shapes(i)%s%area()
      if (a > abest) then
        abest = a
        kbest = i
      end if
    end do
    if (mod(it, 4) == 0) call w%shapes(rint(size(w%shapes)))%s%settle(it)
    if (allocated(w%best)) deallocate(w%best)
    allocate(w%best, source=w%shapes(kbest)%s)
    total_area = total_area * 0.99d0 + abest
    if (size(w%area_log) >= 200) w%area_log = w%area_log(101:)
    w%area_log = [w%area_log, abest]
    w%steps = w%steps + 1
    call mix(trace, w%best%hash())

    ! Resize the array of polymorphic holders, moving the survivors.
    if (mod(it, 50) == 0) then
      n = 8 + rint(32)
      allocate(tmp(n))
      do i = 1, min(n, size(w%shapes))
        call move_alloc(w%shapes(i)%s, tmp(i)%s)
      end do
      do i = size(w%shapes) + 1, n
        call make_shape(tmp(i))
      end do
      call move_alloc(tmp, w%shapes)
    end if

    ! Replace the whole world by a deep copy.
    if (mod(it, 97) == 0) then
      allocate(w2, source=w)
      deallocate(w)
      call move_alloc(w2, w)
      copies = copies + 1
    end if

    call particles_step(it)
    k = rint(size(parts))
    call mix(trace, bits(parts(k)%pos(1)))
  end subroutine

  function world_hash() result(h)
    integer(8) :: h
    integer :: i
    h = w%steps
    do i = 1, size(w%shapes)
      call mix(h, w%shapes(i)%s%hash())
    end do
    call mix(h, w%best%hash())
    do i = 1, size(w%area_log)
      call mix(h, bits(w%area_log(i)))
    end do
  end function
end module world_mod

program modules_derived_types
  use world_mod
  implicit none
  character(len=32) :: arg
  integer :: it, steps
  call get_command_argument(1, arg)
  read(arg, *) steps
  call world_init()
  do it = 1, steps
    call ccc_checkpoint()
    call world_step(it)
  end do
  write(*, '(a,i0,1x,i0,1x,i0,1x,i0)') 'steps ', w%steps, shapes_made, &
    copies, n_resizes
  write(*, '(a,i0,1x,i0)') 'shapes ', size(w%shapes), size(parts)
  write(*, '(a,es25.17e3)') 'area ', total_area
  write(*, '(a,i0)') 'world ', world_hash()
  write(*, '(a,i0)') 'parts ', particles_hash()
  write(*, '(a,i0,1x,i0)') 'trace ', trace, settle_hash
end program modules_derived_types
