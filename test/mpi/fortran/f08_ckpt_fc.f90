! f08_ckpt_fc.f90 - compiled and linked by the installed ckpt-fc (test/tools/
! ckpt_fc_mpi_f08_test.sh): `use mpi_f08` must read ccc's flang module, not
! the MPI's gfortran one, and the procedures must reach the layer.
program f08_ckpt_fc
  use mpi_f08
  implicit none
  type(MPI_Comm) :: dup
  type(MPI_Status) :: status
  type(MPI_Request) :: req, reqs(3)
  integer :: rank, n, err
  real(8) :: x(4), y(4), total
  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_rank(dup, rank, err)
  x = rank
  call MPI_Isend(x, 4, MPI_DOUBLE_PRECISION, rank, 1, dup, req)
  call MPI_Recv(x, 4, MPI_DOUBLE_PRECISION, rank, 1, dup, status)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n)
  ! The ignore sentinels reach the entry points as mpif.h's: nothing may
  ! write them (a status array there would overrun).
  call MPI_Isend(x, 4, MPI_DOUBLE_PRECISION, rank, 7, dup, reqs(1))
  call MPI_Isend(x, 4, MPI_DOUBLE_PRECISION, rank, 7, dup, reqs(2))
  call MPI_Recv(y, 4, MPI_DOUBLE_PRECISION, rank, 7, dup, MPI_STATUS_IGNORE)
  call MPI_Irecv(y, 4, MPI_DOUBLE_PRECISION, rank, 7, dup, reqs(3))
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE)
  if (MPI_STATUS_IGNORE%MPI_TAG == 7 .or. MPI_STATUSES_IGNORE(1)%MPI_TAG == 7) &
    error stop 'MPI_STATUS(ES)_IGNORE written'
  call MPI_Allreduce(sum(x), total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, dup)
  if (rank == 0) print '(a,i0,a,i0,a,i0)', 'source ', status%MPI_SOURCE, &
    ' count ', n, ' total ', nint(total)
  call ccc_checkpoint_force()
  call MPI_Comm_free(dup)
  call MPI_Finalize()
end program
