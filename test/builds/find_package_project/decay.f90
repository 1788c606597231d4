program decay
  use ccc
  implicit none
  real(8), allocatable :: n(:)
  character(len=32) :: arg
  integer :: steps, s
  steps = 4000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read(arg, *) steps
  end if
  allocate(n(50000))
  n = 1
  do s = 1, steps
    call ccc_checkpoint()
    n(2:) = n(2:) + 1.0d-3 * n(:size(n) - 1) - 1.0d-3 * n(2:)
    n(1) = n(1) * (1 - 1.0d-3)
  end do
  write(*, '(a,es25.17e3)') 'decay: ', sum(n * [(s, s = 1, size(n))])
end program
