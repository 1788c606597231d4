module orbit_mod
  implicit none
  type :: planet
    real(8) :: x(2), v(2)
    real(8), allocatable :: track(:)
  end type
  type(planet), allocatable :: planets(:)
contains
  subroutine move(p, dt)
    type(planet), intent(inout) :: p
    real(8), intent(in) :: dt
    real(8) :: r3
    r3 = sqrt(sum(p%x**2))**3
    p%v = p%v - p%x / r3 * dt
    p%x = p%x + p%v * dt
    p%track = [p%track(2:), p%x(1)]
  end subroutine
end module
