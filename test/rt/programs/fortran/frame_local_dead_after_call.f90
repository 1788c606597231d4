! frame_local_dead_after_call.f90 - issue 18, serial: a time-step loop
! calls advance, whose 64 KiB local work is overwritten whole after the call
! to site_step (frame_local_dead_after_call_site.f90: the site, every step;
! in another file so that it stays a call), then read. The pass records
! work as dead while site_step runs: images leave it out, and restarts must
! still give the uninterrupted output. keep (8 KiB), taken before the call
! and read after it, stays saved: a record with a wrong offset would lose
! it and change the output. State in a COMMON block.
!   usage: frame_local_dead_after_call STEPS
program frame_local_dead_after_call
  implicit none
  integer, parameter :: n = 8192
  real(8) :: u(n), t, s
  common /st/ u, t
  integer :: it, nit, i
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) nit
  do i = 1, n
    u(i) = dble(mod(i * 7, 101)) / 101d0
  end do
  t = 0
  do it = 1, nit
    call advance(it)
  end do
  s = 0
  do i = 1, n
    s = s + u(i) * i
  end do
  print '(a, es24.16, a, es24.16)', 'sum ', s, ' t ', t
end program

! The shape of issue 18: a >= 4 KiB local overwritten whole after a call
! that may reach a site.
subroutine advance(it)
  implicit none
  integer, intent(in) :: it
  integer, parameter :: n = 8192
  real(8) :: u(n), t
  common /st/ u, t
  real(8) :: work(n), keep(n / 8)
  integer :: i
  keep = u(1:n:8)
  call site_step(it)
  do i = 1, n
    work(i) = u(i) + t
  end do
  do i = 1, n
    u(i) = 0.5d0 * work(n + 1 - i) + 0.25d0 * keep(mod(i - 1, n / 8) + 1)
  end do
end subroutine
