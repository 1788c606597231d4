! errhandler_call.f90 - a Fortran MPI call ccc cannot checkpoint
! (MPI_FILE_CREATE_ERRHANDLER with a program subroutine) runs, and the next
! checkpoint stops the job with a ccc: error naming the Fortran function:
! the layer's Fortran entry point, not MPI's, received the call.
program errhandler_call
  use mpi
  implicit none
  integer :: ierr, errh
  external :: on_file_error
  call MPI_INIT(ierr)
  call MPI_FILE_CREATE_ERRHANDLER(on_file_error, errh, ierr)
  call ccc_checkpoint_force()
  print *, 'not reached'
  call MPI_ERRHANDLER_FREE(errh, ierr)
  call MPI_FINALIZE(ierr)
end program

subroutine on_file_error(fh, code)
  integer :: fh, code
end subroutine
