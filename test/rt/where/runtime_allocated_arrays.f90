! runtime_allocated_arrays.f90 - Fortran arrays that flang allocates through
! its runtime library rather than with an inline malloc: ALLOCATE with
! SOURCE= in a module procedure (field, 4 MiB) and in the main program
! (tracer, 2 MiB). `ckpt info` must name the program's procedure that
! allocated each, not flang's Fortran::runtime::Descriptor::Allocate.
module ocean
  implicit none
  real(8), allocatable :: field(:, :)
contains
  ! Recursive (a first call with a negative size sets the positive one up)
  ! so that the optimizer keeps it a procedure of its own.
  recursive subroutine setup(n)
    integer, intent(in) :: n
    if (n < 0) then
      call setup(-n)
      return
    end if
    allocate(field(n, n), source=0.5d0)
  end subroutine

  subroutine relax()
    integer :: i, j
    do j = 2, size(field, 2) - 1
      do i = 2, size(field, 1) - 1
        field(i, j) = 0.25d0 * (field(i - 1, j) + field(i + 1, j) + &
                                field(i, j - 1) + field(i, j + 1))
      end do
    end do
  end subroutine
end module

program runtime_allocated_arrays
  use ocean
  implicit none
  real(8), allocatable :: tracer(:)
  integer :: s, steps
  character(len=32) :: arg

  steps = 100
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call setup(-724)
  allocate(tracer(262144), source=1.0d0)
  field(1, :) = 1
  do s = 1, steps
    call ccc_checkpoint()
    call relax()
    tracer(mod(s, 262144) + 1) = field(2, 2)
  end do
  print '(2es24.16)', sum(field), sum(tracer)
end program
