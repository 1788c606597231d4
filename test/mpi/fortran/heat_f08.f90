! heat_f08.f90 - a modern Fortran MPI code (`use mpi_f08`, derived-type
! handles, TYPE(MPI_Status), no ierror arguments) crossing checkpoints: a
! 2-D heat equation on a periodic grid of ranks from MPI_Dims_create and
! MPI_Cart_create, neighbours from MPI_Cart_shift; the halo moves by
! MPI_Irecv/MPI_Isend/MPI_Waitall, rows as contiguous runs and columns as
! an MPI_Type_vector; MPI_Allreduce sums the field each step. The solver
! state (communicator, datatype, allocatable fields) lives in a module, so
! it is in the images; every rank checkpoints at the top of the step loop.
! Each step checks the statuses Waitall filled in (source and tag of every
! halo message), and a Sendrecv's status the same way.
!   usage: heat_f08 STEPS
! Rank 0 prints the grid, each rank's coordinates and neighbours, the sum
! history hash and the field hash.
module heat_state
  use mpi_f08
  implicit none
  integer, parameter :: nx = 48, ny = 48   ! points per rank
  type(MPI_Comm) :: grid
  type(MPI_Datatype) :: column
  integer :: rank, nranks, dims(2), coords(2)
  integer :: west, east, south, north      ! dimension 1: x, 2: y
  real(8), allocatable :: u(:, :), unew(:, :)   ! (0:nx+1, 0:ny+1)
  integer(8) :: sumhash = 0
contains
  pure function mix(x) result(y)
    integer(8), intent(in) :: x
    integer(8) :: y
    integer :: k
    y = x
    do k = 1, 2
      y = ieor(y, ishft(y, 13))
      y = ieor(y, ishft(y, -7))
      y = ieor(y, ishft(y, 17))
    end do
  end function

  subroutine setup()
    logical :: periods(2)
    integer :: i, j
    integer(8) :: g
    dims = 0
    periods = .true.
    call MPI_Dims_create(nranks, 2, dims)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., grid)
    if (grid == MPI_COMM_NULL) error stop 'no grid communicator'
    call MPI_Comm_rank(grid, rank)
    call MPI_Cart_coords(grid, rank, 2, coords)
    call MPI_Cart_shift(grid, 0, 1, west, east)
    call MPI_Cart_shift(grid, 1, 1, south, north)
    ! One column of the interior: ny values nx + 2 apart.
    call MPI_Type_vector(ny, 1, nx + 2, MPI_DOUBLE_PRECISION, column)
    call MPI_Type_commit(column)
    allocate(u(0:nx + 1, 0:ny + 1), unew(0:nx + 1, 0:ny + 1))
    u = 0
    do j = 1, ny
      do i = 1, nx
        g = int(coords(1) * nx + i, 8) * 100003_8 + coords(2) * ny + j
        u(i, j) = real(ishft(mix(g), -11), 8) * 2.0d0**(-53)
      end do
    end do
  end subroutine

  subroutine exchange(it)
    integer(8), intent(in) :: it
    type(MPI_Request) :: reqs(8)
    type(MPI_Status) :: stats(8)
    integer :: k, from(4), tags(4)
    ! Receives first: west/east columns, south/north rows.
    call MPI_Irecv(u(0, 1), 1, column, west, 1, grid, reqs(1))
    call MPI_Irecv(u(nx + 1, 1), 1, column, east, 2, grid, reqs(2))
    call MPI_Irecv(u(1, 0), nx, MPI_DOUBLE_PRECISION, south, 3, grid, reqs(3))
    call MPI_Irecv(u(1, ny + 1), nx, MPI_DOUBLE_PRECISION, north, 4, grid, &
                   reqs(4))
    call MPI_Isend(u(nx, 1), 1, column, east, 1, grid, reqs(5))
    call MPI_Isend(u(1, 1), 1, column, west, 2, grid, reqs(6))
    call MPI_Isend(u(1, ny), nx, MPI_DOUBLE_PRECISION, north, 3, grid, reqs(7))
    call MPI_Isend(u(1, 1), nx, MPI_DOUBLE_PRECISION, south, 4, grid, reqs(8))
    call MPI_Waitall(8, reqs, stats)
    from = (/ west, east, south, north /)
    tags = (/ 1, 2, 3, 4 /)
    do k = 1, 4
      if (stats(k)%MPI_SOURCE /= from(k) .or. stats(k)%MPI_TAG /= tags(k)) then
        print *, 'step', it, 'halo', k, 'status', stats(k)%MPI_SOURCE, &
          stats(k)%MPI_TAG
        error stop 'wrong halo status'
      end if
    end do
    do k = 1, 8
      if (reqs(k) /= MPI_REQUEST_NULL) error stop 'request not freed by Waitall'
    end do
  end subroutine

  subroutine step(it)
    integer(8), intent(in) :: it
    integer :: i, j, count
    real(8) :: local, total, token(2)
    type(MPI_Status) :: status
    call exchange(it)
    do j = 1, ny
      do i = 1, nx
        unew(i, j) = u(i, j) + 0.2d0 * (u(i - 1, j) + u(i + 1, j) + &
                     u(i, j - 1) + u(i, j + 1) - 4 * u(i, j))
      end do
    end do
    u(1:nx, 1:ny) = unew(1:nx, 1:ny)
    local = sum(u(1:nx, 1:ny))
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, grid)
    sumhash = mix(ieor(ieor(sumhash, transfer(total, 0_8)), it))
    ! Around the ring of the first dimension: a status of our own.
    token = (/ total, real(rank, 8) /)
    call MPI_Sendrecv_replace(token, 2, MPI_DOUBLE_PRECISION, east, 9, west, &
                              9, grid, status)
    call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count)
    if (status%MPI_SOURCE /= west .or. count /= 2 .or. token(1) /= total) &
      error stop 'wrong ring status'
  end subroutine
end module

program heat_f08
  use heat_state
  implicit none
  integer :: i, j, ierr, mine(5)
  integer, allocatable :: all(:)
  integer(8) :: it, steps, hash, ghash
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  steps = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call setup()
  do it = 1, steps
    call ccc_checkpoint()
    call step(it)
  end do

  mine = (/ rank, coords(1), coords(2), west, north /)
  allocate(all(5 * nranks))
  call MPI_Gather(mine, 5, MPI_INTEGER, all, 5, MPI_INTEGER, 0, grid, ierr)
  if (ierr /= MPI_SUCCESS) error stop 'Gather failed'
  hash = 0
  do j = 1, ny
    do i = 1, nx
      hash = ieor(hash, mix(ieor(transfer(u(i, j), 0_8), int(i * 1000 + j, 8))))
    end do
  end do
  call MPI_Reduce(hash, ghash, 1, MPI_INTEGER8, MPI_BXOR, 0, grid)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0)') 'heat_f08: grid ', dims(1), 'x', dims(2), &
      ' steps ', steps
    do i = 0, nranks - 1
      write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'rank ', all(5 * i + 1), &
        ' coords ', all(5 * i + 2), ',', all(5 * i + 3), ' west ', &
        all(5 * i + 4), ' north ', all(5 * i + 5)
    end do
    write (*, '(a,z16.16)') 'sum hash ', sumhash
    write (*, '(a,z16.16)') 'field hash ', ghash
  end if
  call MPI_Type_free(column)
  call MPI_Comm_free(grid)
  if (grid /= MPI_COMM_NULL) error stop 'Comm_free left a handle'
  call MPI_Finalize()
end program
