program orbit
  use ccc
  use orbit_mod
  implicit none
  character(len=32) :: arg
  integer :: steps, s, i, restarts
  steps = 30000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  allocate(planets(8))
  do i = 1, 8
    planets(i)%x = [1.0d0 + 0.1d0 * i, 0.0d0]
    planets(i)%v = [0.0d0, 1.0d0 / sqrt(1.0d0 + 0.1d0 * i)]
    allocate(planets(i)%track(32))
    planets(i)%track = 0
  end do
  restarts = 0
  do s = 1, steps
    if (ccc_checkpoint_status() == CCC_RESTARTED) restarts = restarts + 1
    do i = 1, 8
      call move(planets(i), 1.0d-3)
    end do
  end do
  write(*, '(a,2es25.17e3)') 'orbit: ', &
    sum([(sum(planets(i)%x) + sum(planets(i)%track), i = 1, 8)]), &
    planets(8)%v(2)
end program
