! scratch_array_dead_at_site.f90 - the Fortran form of
! scratch_global_dead_at_site.c: an 8 MiB main-program array (a global in
! flang's IR) filled whole by a loop before every read is dead at the site,
! so images leave it out; the small state carried between steps is saved.
program scratch_array_dead_at_site
  implicit none
  integer, parameter :: n = 1048576
  real(8) :: scratch(n)
  integer(8) :: state(4096), h
  integer :: s, i, steps
  character(len=32) :: arg
  steps = 100
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  state = 1
  do s = 1, steps
    call ccc_checkpoint()
    do i = 1, n
      scratch(i) = dble(mod(i * 7 + s, 65536)) * 0.5d0
    end do
    do i = 1, 4096
      state(i) = mod(state(i) * 31 + int(scratch(mod(i * 977 + s, n) + 1), 8), &
                     1000000007_8)
    end do
  end do
  h = 0
  do i = 1, 4096
    h = mod(h * 1000003 + state(i), 2147483647_8)
  end do
  print '(a,i0,a,i0)', 'steps ', steps, ' state ', h
end program
