! swapped_allocatables.f90 - ccc_exclude from Fortran (`use ccc`) for what
! the pass does not prove dead in flang's allocatables: a 1-D Jacobi
! iteration whose new field unew is swapped with u by move_alloc every
! step, and a diagnostic array recomputed whole every step. diag is
! excluded once; unew's interior around each site only (after the swap it
! is u's memory, live). unew's ghost cells hold the boundary values and are
! kept. The images hold u, not the 4 MiB of scratch; a restart must give
! the uninterrupted result (it would not if the promise outlived the swap).
program swapped_allocatables
  use ccc
  use, intrinsic :: iso_c_binding, only: c_loc, c_size_t
  implicit none
  integer, parameter :: n = 262144 ! 2 MiB of doubles per array
  real(8), allocatable, target :: u(:), unew(:), diag(:), tmp(:)
  integer :: s, i, steps
  real(8) :: flow
  character(len=32) :: arg

  steps = 100
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  allocate(u(0:n + 1), unew(0:n + 1), diag(n))
  u(0) = 1
  unew(0) = 1
  u(n + 1) = -1
  unew(n + 1) = -1
  do i = 1, n
    u(i) = real(iand(int(i, 8) * 2654435761_8, 255_8), 8) / 256
  end do
  if (ccc_exclude(c_loc(diag), int(8, c_size_t) * n) /= 0) stop 'diag'
  flow = 0
  do s = 1, steps
    if (ccc_exclude(c_loc(unew(1)), int(8, c_size_t) * n) /= 0) stop 'unew'
    call ccc_checkpoint()
    if (ccc_include(c_loc(unew(1))) /= 0) stop 'include'
    do i = 1, n
      unew(i) = u(i) + 0.25d0 * (u(i - 1) - 2 * u(i) + u(i + 1))
      diag(i) = u(i - 1) - u(i)
    end do
    flow = flow + diag(1) + diag(n / 2)
    call move_alloc(u, tmp)
    call move_alloc(unew, u)
    call move_alloc(tmp, unew)
  end do
  print '(a,i0,a,es22.15,a,es22.15)', 'steps ', steps, ' sum ', sum(u(1:n)), &
    ' flow ', flow
end program
