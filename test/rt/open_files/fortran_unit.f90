! fortran_unit.f90 - a Fortran unit open at a checkpoint, then closed.
! A forced checkpoint while unit 10 (results.txt) is open must be refused
! with a ccc: message naming the file (a restart could not give the unit
! back); the one after CLOSE must be taken. Prints what each returned.
program fortran_unit
  implicit none
  integer, external :: ccc_checkpoint_force
  integer :: r1, r2, i
  open(unit=10, file='results.txt', status='replace', action='write')
  do i = 1, 3
    write(10, '(a,i0)') 'line ', i
  end do
  r1 = ccc_checkpoint_force()
  close(10)
  r2 = ccc_checkpoint_force()
  print '(a,i0,a,i0)', 'open: ', r1, ' closed: ', r2
end program
