! f08_refused_call.f90 - a `use mpi_f08` call ccc cannot checkpoint (a
! non-blocking communicator duplication) runs, and the next checkpoint
! stops the job with a ccc: error naming the Fortran function: mpi_f08's
! MPI_Comm_idup reached the layer's entry point, not MPI's.
program f08_refused_call
  use mpi_f08
  implicit none
  type(MPI_Request) :: req
  type(MPI_Comm) :: dup
  call MPI_Init()
  call MPI_Comm_idup(MPI_COMM_WORLD, dup, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call ccc_checkpoint_force()
  print *, 'not reached'
  call MPI_Finalize()
end program
