! module_allocatables_dead_at_site.f90 - flang allocatables of a module
! that the pass proves dead at the site: a 1-D Jacobi iteration whose new
! field unew is swapped with u by move_alloc every step, and a diagnostic
! array diag, both written by a module procedure (sweep) before anything
! reads them. At the site unew's interior and all of diag are dead; unew's
! ghost cells hold the boundary values (after the swap they are u's) and
! must be kept. The images hold u, not the 4 MiB of scratch; a restart must
! give the uninterrupted result.
module jacobi_state
  implicit none
  integer, parameter :: n = 262144 ! 2 MiB of doubles per array
  real(8), allocatable :: u(:), unew(:), diag(:)
contains
  subroutine setup()
    integer :: i
    allocate(u(0:n + 1), unew(0:n + 1), diag(n))
    u(0) = 1
    unew(0) = 1
    u(n + 1) = -1
    unew(n + 1) = -1
    do i = 1, n
      u(i) = real(iand(int(i, 8) * 2654435761_8, 255_8), 8) / 256
    end do
  end subroutine

  ! One sweep of u into unew; returns a diagnostic of the flow, from diag.
  subroutine sweep(flow)
    real(8), intent(out) :: flow
    integer :: i
    do i = 1, n
      unew(i) = u(i) + 0.25d0 * (u(i - 1) - 2 * u(i) + u(i + 1))
      diag(i) = u(i - 1) - u(i)
    end do
    flow = diag(1) + diag(n / 2)
  end subroutine
end module

program module_allocatables_dead_at_site
  use jacobi_state
  implicit none
  real(8), allocatable :: tmp(:)
  integer :: s, steps
  real(8) :: flow, total
  character(len=32) :: arg

  steps = 100
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call setup()
  total = 0
  do s = 1, steps
    call ccc_checkpoint()
    call sweep(flow)
    total = total + flow
    call move_alloc(u, tmp)
    call move_alloc(unew, u)
    call move_alloc(tmp, unew)
  end do
  print '(a,i0,a,es22.15,a,es22.15)', 'steps ', steps, ' sum ', sum(u(1:n)), &
    ' flow ', total
end program
