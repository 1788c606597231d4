! win_create_call.f90 - a window is made (supported), then a Fortran MPI
! call ccc cannot checkpoint (MPI_WIN_GET_GROUP) runs, and the next checkpoint stops the job with a ccc:
! error naming the Fortran function: the layer's Fortran entry point, not
! MPI's, received the call.
program win_create_call
  use mpi
  implicit none
  integer :: ierr, win, group
  integer(kind=MPI_ADDRESS_KIND) :: size
  real(8) :: buf(4)
  call MPI_INIT(ierr)
  buf = 0
  size = 32
  call MPI_WIN_CREATE(buf, size, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_WIN_GET_GROUP(win, group, ierr)
  call ccc_checkpoint_force()
  print *, 'not reached'
  call MPI_WIN_FREE(win, ierr)
  call MPI_FINALIZE(ierr)
end program
