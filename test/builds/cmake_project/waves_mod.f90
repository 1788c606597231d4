module waves_mod
  implicit none
  real(8), allocatable :: u(:), uold(:), unew(:)
  integer :: nsteps = 0
contains
  subroutine init(n)
    integer, intent(in) :: n
    integer :: i
    allocate(u(n), uold(n), unew(n))
    do i = 1, n
      u(i) = exp(-((i - n / 3) / 20.0d0)**2)
    end do
    uold = u
  end subroutine
  subroutine advance(c)
    real(8), intent(in) :: c
    integer :: n
    n = size(u)
    unew(2:n-1) = 2 * u(2:n-1) - uold(2:n-1) &
                  + c * (u(1:n-2) - 2 * u(2:n-1) + u(3:n))
    unew(1) = 0
    unew(n) = 0
    uold = u
    u = unew
    nsteps = nsteps + 1
  end subroutine
end module
