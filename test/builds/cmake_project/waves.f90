program waves
  use waves_mod
  implicit none
  character(len=32) :: arg
  integer :: steps, s
  steps = 3000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  call init(20000)
  do s = 1, steps
    call ccc_checkpoint()
    call advance(0.25d0)
  end do
  write(*, '(a,i0,a,es25.17e3)') 'waves: steps ', nsteps, ' energy ', &
    sum(u * u) + sum((u - uold)**2)
end program
