! local_allocatables_dead_at_site.f90 - the allocatables of a procedure's
! own (descriptors on its stack) that the pass proves dead at the site: a
! 1-D Jacobi iteration in a subroutine whose new field unew is swapped with
! u by move_alloc every step, and a diagnostic array diag, both written
! before anything reads them after the site. unew's ghost cells hold the
! boundary values (after the swap they are u's) and must be kept. The
! images hold u, not the 4 MiB of scratch; a restart must give the
! uninterrupted result.
subroutine relax(steps)
  implicit none
  integer, intent(in) :: steps
  integer, parameter :: n = 262144 ! 2 MiB of doubles per array
  real(8), allocatable :: u(:), unew(:), diag(:), tmp(:)
  integer :: s, i
  real(8) :: flow

  allocate(u(0:n + 1), unew(0:n + 1), diag(n))
  u(0) = 1
  unew(0) = 1
  u(n + 1) = -1
  unew(n + 1) = -1
  do i = 1, n
    u(i) = real(iand(int(i, 8) * 2654435761_8, 255_8), 8) / 256
  end do
  flow = 0
  do s = 1, steps
    call ccc_checkpoint()
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
end subroutine

program local_allocatables_dead_at_site
  implicit none
  integer :: steps
  character(len=32) :: arg
  steps = 100
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call relax(steps)
end program
