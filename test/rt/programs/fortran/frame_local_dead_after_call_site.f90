! frame_local_dead_after_call_site.f90 - site_step of
! frame_local_dead_after_call.f90: the site, and the mean of u into t.
subroutine site_step(it)
  implicit none
  integer, intent(in) :: it
  integer, parameter :: n = 8192
  real(8) :: u(n), t
  common /st/ u, t
  call ccc_checkpoint()
  t = 0.5d0 * sum(u) / n + 1d-3 * mod(it, 7)
end subroutine
