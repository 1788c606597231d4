! fortran_unit.f90 - what a checkpoint with Fortran units open takes and
! refuses (rt/files/FortranUnits.cpp). Forced checkpoints: with unit 10
! (results.txt) open between records, taken; with a STATUS='SCRATCH' unit
! open (its file deleted when opened), refused; with unit 10 inside a record
! a non-advancing WRITE left open, refused; once the record is complete,
! taken. Prints what each returned.
program fortran_unit
  implicit none
  integer, external :: ccc_checkpoint_force
  integer :: r1, r2, r3, r4, i
  open(unit=10, file='results.txt', status='replace', action='write')
  do i = 1, 3
    write(10, '(a,i0)') 'line ', i
  end do
  r1 = ccc_checkpoint_force()
  open(unit=11, status='scratch')
  write(11, *) 'scratch'
  r2 = ccc_checkpoint_force()
  close(11)
  write(10, '(a)', advance='no') 'line '
  r3 = ccc_checkpoint_force()
  write(10, '(i0)') 4
  r4 = ccc_checkpoint_force()
  close(10)
  print '(4(a,i0))', 'unit: ', r1, ' scratch: ', r2, ' record: ', r3, &
    ' after: ', r4
end program
