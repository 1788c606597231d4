! unit_logs.f90 - Fortran units open across checkpoints, as a modern serial
! code keeps them (rt/files/FortranUnits.cpp): a module opens them all with
! NEWUNIT= before the time loop, and each step writes a formatted log line;
! every 50 steps an unformatted sequential record, every 100 a direct-access
! record (RECL=), a line appended to a file opened with POSITION='APPEND',
! and a record read from an input file (written and closed before, open
! for reading across the loop, so it is inside its file at checkpoints).
! SIGKILL and restart must leave every file byte-identical to an
! uninterrupted plain run's.
!   usage: unit_logs STEPS   (STEPS <= 200000)
module sim
  implicit none
  integer, parameter :: n = 64
  real(8) :: u(n)
  integer :: log_unit, bin_unit, snap_unit, app_unit, in_unit
contains
  subroutine setup()
    integer :: i, w
    do i = 1, n
      u(i) = sin(0.1d0 * i)
    end do
    open(newunit=w, file='input.txt', status='replace', action='write')
    do i = 1, 2000
      write(w, '(i6,1x,f12.6)') i, 0.001d0 * i
    end do
    close(w)
    open(newunit=w, file='append.txt', status='replace')
    write(w, '(a)') '# appended every 100 steps'
    close(w)
    open(newunit=log_unit, file='log.txt', status='replace', action='write')
    open(newunit=bin_unit, file='fields.bin', status='replace', &
         form='unformatted', action='write')
    open(newunit=snap_unit, file='snap.dat', status='replace', &
         access='direct', form='unformatted', recl=8 * n)
    open(newunit=app_unit, file='append.txt', status='old', &
         position='append', action='write')
    open(newunit=in_unit, file='input.txt', status='old', action='read')
  end subroutine

  subroutine step(it)
    integer, intent(in) :: it
    integer :: i, k
    real(8) :: x
    do i = 2, n - 1
      u(i) = u(i) + 0.25d0 * (u(i - 1) - 2 * u(i) + u(i + 1))
    end do
    write(log_unit, '(a,i0,a,es22.14)') 'step ', it, ' sum ', sum(u)
    if (mod(it, 50) == 0) write(bin_unit) it, u
    if (mod(it, 100) == 0) then
      write(snap_unit, rec=mod(it / 100, 7) + 1) u
      read(in_unit, *) k, x
      u(1) = u(1) + x
      write(app_unit, *) it, k, x
    end if
  end subroutine
end module

program unit_logs
  use sim
  implicit none
  integer :: it, nsteps
  character(32) :: arg
  call get_command_argument(1, arg)
  read(arg, *) nsteps
  call setup()
  do it = 1, nsteps
    call step(it)
    call ccc_checkpoint()
  end do
  close(log_unit)
  close(bin_unit)
  close(snap_unit)
  close(app_unit)
  close(in_unit)
  print '(a,es22.14)', 'sum ', sum(u)
end program
