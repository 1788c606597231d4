! rma_fence_f.f90 - one-sided communication across checkpoints from Fortran
! (`use mpi`, issue 23): a 1-D periodic heat-type stencil in a module whose
! halo cells move by MPI_PUT into the neighbours' window (MPI_WIN_CREATE
! over a module array), each rank reads its right neighbour's running sum
! with MPI_GET and adds a count into it with MPI_ACCUMULATE. Every fence
! epoch is opened with MPI_MODE_NOPRECEDE and closed with
! MPI_MODE_NOSUCCEED, the site between them (docs/mpi-io-windows.md). The windows are
! Fortran integers kept in the module across restarts.
!   usage: rma_fence_f STEPS
! Rank 0 prints a hash of every rank's cells, the sum of what MPI_GET read
! and the accumulated counts.

module rma_state
  use mpi
  implicit none
  integer, parameter :: n = 40
  integer :: rank, nranks, left, right, wu, ws
  real(8) :: u(0:n+1), v(0:n+1)
  real(8) :: sums(2)
  real(8) :: got = 0
end module

program rma_fence_f
  use rma_state
  implicit none
  integer :: ierr, step, steps, i
  integer(kind=MPI_ADDRESS_KIND) :: bytes, disp
  character(len=32) :: arg
  real(8) :: peer(2), add(2), total
  integer(8) :: h, b, hall

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  steps = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  do i = 0, n + 1
    u(i) = rank * 100.0d0 + i
  end do
  sums = 0
  bytes = 8 * (n + 2)
  call MPI_WIN_CREATE(u, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, wu, ierr)
  bytes = 16
  call MPI_WIN_CREATE(sums, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, ws, ierr)

  do step = 1, steps
    call ccc_checkpoint()
    call MPI_WIN_FENCE(MPI_MODE_NOPRECEDE, wu, ierr)
    disp = n + 1
    call MPI_PUT(u(1), 1, MPI_DOUBLE_PRECISION, left, disp, 1, &
                 MPI_DOUBLE_PRECISION, wu, ierr)
    disp = 0
    call MPI_PUT(u(n), 1, MPI_DOUBLE_PRECISION, right, disp, 1, &
                 MPI_DOUBLE_PRECISION, wu, ierr)
    call MPI_WIN_FENCE(MPI_MODE_NOSUCCEED, wu, ierr)
    do i = 1, n
      v(i) = 0.25d0 * u(i - 1) + 0.5d0 * u(i) + 0.25d0 * u(i + 1) + 1d-3 * step
    end do
    u(1:n) = v(1:n)

    sums(1) = sums(1) + u(1)
    call MPI_WIN_FENCE(MPI_MODE_NOPRECEDE, ws, ierr)
    disp = 0
    call MPI_GET(peer, 2, MPI_DOUBLE_PRECISION, right, disp, 2, &
                 MPI_DOUBLE_PRECISION, ws, ierr)
    call MPI_WIN_FENCE(0, ws, ierr)
    add(1) = 0
    add(2) = 1
    call MPI_ACCUMULATE(add, 2, MPI_DOUBLE_PRECISION, right, disp, 2, &
                        MPI_DOUBLE_PRECISION, MPI_SUM, ws, ierr)
    call MPI_WIN_FENCE(MPI_MODE_NOSUCCEED, ws, ierr)
    got = got + peer(1) - 0.5d0 * peer(2)
  end do

  h = 0
  do i = 0, n + 1
    b = transfer(u(i), b)
    h = ieor(h, b * (i + 1))
  end do
  call MPI_REDUCE(h, hall, 1, MPI_INTEGER8, MPI_BXOR, 0, MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(got, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, &
                  MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(sums(2), peer(1), 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, z16.16, a, es24.16, a, f10.1)') 'hash ', hall, ' got ', &
      total, ' counts ', peer(1)
  end if
  call MPI_WIN_FREE(ws, ierr)
  call MPI_WIN_FREE(wu, ierr)
  call MPI_FINALIZE(ierr)
end program
