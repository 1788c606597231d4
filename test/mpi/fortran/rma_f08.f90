! rma_f08.f90 - one-sided communication across checkpoints through
! `use mpi_f08` (issue 23): TYPE(MPI_Win) windows kept in a module, a 1-D
! periodic stencil whose halo cells move by MPI_Put between fences opened
! with MPI_MODE_NOPRECEDE and closed with MPI_MODE_NOSUCCEED (the site
! between them), and a running total added into the right neighbour's
! window by MPI_Accumulate.
!   usage: rma_f08 STEPS
! Rank 0 prints a hash of every rank's cells and the accumulated total.

module rma_f08_state
  use mpi_f08
  implicit none
  integer, parameter :: n = 32
  integer :: rank, nranks, left, right
  type(MPI_Win) :: wu, wt
  real(8) :: u(0:n+1), v(0:n+1), total(1)
end module

program rma_f08
  use rma_f08_state
  implicit none
  integer :: step, steps, i
  integer(kind=MPI_ADDRESS_KIND) :: bytes, disp
  character(len=32) :: arg
  real(8) :: sent(1), all
  integer(8) :: h, b, hall

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  steps = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  do i = 0, n + 1
    u(i) = rank * 10.0d0 + i
  end do
  total = 0
  bytes = 8 * (n + 2)
  call MPI_Win_create(u, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, wu)
  bytes = 8
  call MPI_Win_create(total, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, wt)

  do step = 1, steps
    call ccc_checkpoint()
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, wu)
    disp = n + 1
    call MPI_Put(u(1), 1, MPI_DOUBLE_PRECISION, left, disp, 1, &
                 MPI_DOUBLE_PRECISION, wu)
    disp = 0
    call MPI_Put(u(n), 1, MPI_DOUBLE_PRECISION, right, disp, 1, &
                 MPI_DOUBLE_PRECISION, wu)
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, wu)
    do i = 1, n
      v(i) = 0.3d0 * u(i - 1) + 0.4d0 * u(i) + 0.3d0 * u(i + 1) + 1d-2
    end do
    u(1:n) = v(1:n)
    sent(1) = u(n / 2)
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, wt)
    disp = 0
    call MPI_Accumulate(sent, 1, MPI_DOUBLE_PRECISION, right, disp, 1, &
                        MPI_DOUBLE_PRECISION, MPI_SUM, wt)
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, wt)
  end do

  h = 0
  do i = 0, n + 1
    b = transfer(u(i), b)
    h = ieor(h, b * (i + 1))
  end do
  call MPI_Reduce(h, hall, 1, MPI_INTEGER8, MPI_BXOR, 0, MPI_COMM_WORLD)
  call MPI_Reduce(total, all, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, &
                  MPI_COMM_WORLD)
  if (rank == 0) then
    write (*, '(a, z16.16, a, es24.16)') 'hash ', hall, ' total ', all
  end if
  call MPI_Win_free(wt)
  call MPI_Win_free(wu)
  call MPI_Finalize()
end program
