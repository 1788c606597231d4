! mpi.f90 - `use mpi` for flang: the MPI's own mpif.h in a module (the mpi.mod
! MPIs ship is gfortran's, unreadable by flang). Built once per MPI with
! that MPI's include directory; its calls reach ccc's Fortran entry points.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
