! f08_refused_call.f90 - a `use mpi_f08` call ccc cannot checkpoint
! (one-sided communication) stops the job with a ccc: error naming the
! Fortran function: mpi_f08's MPI_Win_create reached the layer's entry
! point, not MPI's.
program f08_refused_call
  use mpi_f08
  implicit none
  type(MPI_Win) :: win
  integer(kind=MPI_ADDRESS_KIND) :: size
  real(8) :: buf(4)
  call MPI_Init()
  buf = 0
  size = 32
  call MPI_Win_create(buf, size, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  print *, 'not reached'
  call MPI_Win_free(win)
  call MPI_Finalize()
end program
