! f08_refused_call.f90 - a `use mpi_f08` call ccc cannot checkpoint (a
! dynamic-process name lookup, failing with MPI_ERRORS_RETURN: no such
! service) runs, and the next checkpoint stops the job with a ccc: error
! naming the Fortran function: mpi_f08's MPI_Lookup_name reached the
! layer's entry point, not MPI's.
program f08_refused_call
  use mpi_f08
  implicit none
  character(len=MPI_MAX_PORT_NAME) :: port
  integer :: ierr
  call MPI_Init()
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  call MPI_Lookup_name('ccc-no-such-service', MPI_INFO_NULL, port, ierr)
  if (ierr == MPI_SUCCESS) print *, 'found a service that does not exist'
  call ccc_checkpoint_force()
  print *, 'not reached'
  call MPI_Finalize()
end program
