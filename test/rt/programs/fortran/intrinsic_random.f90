! intrinsic_random.f90 - a Monte Carlo estimate driven by the intrinsic
! RANDOM_NUMBER, seeded once with RANDOM_SEED(PUT=), as many codes do: the
! generator's state lives in flang's runtime, not in the program, and a
! restart must continue its sequence, not start it over.
!   usage: intrinsic_random STEPS
module mc_state
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer(8) :: hits = 0, tries = 0
  real(dp) :: moment = 0
end module mc_state

program intrinsic_random
  use mc_state
  implicit none
  integer :: steps, step, n, i
  integer, allocatable :: seed(:)
  real(dp) :: xy(2, 64)
  character(len=32) :: arg

  call get_command_argument(1, arg)
  read(arg, *) steps
  call random_seed(size=n)
  allocate(seed(n))
  seed = [(7919 * i + 17, i = 1, n)]
  call random_seed(put=seed)
  do step = 1, steps
    call ccc_checkpoint()
    call random_number(xy)
    do i = 1, 64
      tries = tries + 1
      if (xy(1, i)**2 + xy(2, i)**2 <= 1) hits = hits + 1
      moment = moment + xy(1, i) * xy(2, i)
    end do
  end do
  print '(a, i0, a, i0, a, es23.16)', 'hits ', hits, ' of ', tries, &
    ' moment ', moment
end program intrinsic_random
