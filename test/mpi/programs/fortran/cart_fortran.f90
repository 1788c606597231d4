! cart_fortran.f90 - proves a Fortran program's Cartesian communicators
! (mpif.h) are re-created on restart through the layer's Fortran entry
! points: MPI_DIMS_CREATE and MPI_CART_CREATE (periodic, REORDER .TRUE.)
! make an N x 1 grid of ranks, MPI_CART_COORDS gives a rank its block of a
! periodic 1-D heat equation, MPI_CART_SHIFT its neighbours, with which the
! halo values move by MPI_SENDRECV; MPI_CART_SUB keeping the first
! dimension makes a communicator of every rank whose MPI_ALLREDUCE must
! give what the same MPI_ALLREDUCE on the grid gives. A ring from
! MPI_DIST_GRAPH_CREATE_ADJACENT with MPI_UNWEIGHTED (Fortran's sentinel)
! must still say it is unweighted after a restart. Every rank
! checkpoints at the top of the step loop; the communicators live in a
! module (saved in the image).
!   usage: cart_fortran STEPS
! Rank 0 prints the grid as MPI_CART_GET gives it after the last step, each
! rank's coordinates and neighbours, the sum history hash and the field hash.

module cart_state
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 4096        ! global points
  integer :: comm_grid, comm_line, comm_ring, rank, nranks, nloc, first
  integer :: left, right, dims(2), coords(2)
  real(8), allocatable :: u(:), unew(:)  ! 0..nloc+1
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
    logical :: periods(2), remain(2)
    integer :: ierr, i
    dims = 0
    periods = .true.
    remain = (/ .true., .false. /)
    call MPI_DIMS_CREATE(nranks, 2, dims, ierr)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .true., &
                         comm_grid, ierr)
    call MPI_COMM_RANK(comm_grid, rank, ierr)
    call MPI_CART_COORDS(comm_grid, rank, 2, coords, ierr)
    call MPI_CART_SHIFT(comm_grid, 0, 1, left, right, ierr)
    call MPI_CART_SUB(comm_grid, remain, comm_line, ierr)
    call MPI_DIST_GRAPH_CREATE_ADJACENT(comm_grid, 1, (/ left /), &
      MPI_UNWEIGHTED, 1, (/ right /), MPI_UNWEIGHTED, MPI_INFO_NULL, &
      .false., comm_ring, ierr)
    nloc = n / dims(1)
    first = coords(1) * nloc
    allocate(u(0:nloc + 1), unew(0:nloc + 1))
    u = 0
    do i = 1, nloc
      u(i) = real(ishft(mix(int(first + i, 8)), -11), 8) * 2.0d0**(-53)
    end do
  end subroutine

  subroutine step(it)
    integer(8), intent(in) :: it
    integer :: ierr, i, status(MPI_STATUS_SIZE)
    real(8) :: local(1), global(1), mine(1)
    call MPI_SENDRECV(u(nloc), 1, MPI_DOUBLE_PRECISION, right, 1, &
                      u(0), 1, MPI_DOUBLE_PRECISION, left, 1, comm_grid, &
                      status, ierr)
    call MPI_SENDRECV(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, &
                      u(nloc + 1), 1, MPI_DOUBLE_PRECISION, right, 2, &
                      comm_grid, status, ierr)
    do i = 1, nloc
      unew(i) = u(i) + 0.25d0 * (u(i - 1) - 2 * u(i) + u(i + 1))
    end do
    u(1:nloc) = unew(1:nloc)
    local(1) = sum(u(1:nloc))
    call MPI_ALLREDUCE(local, mine, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                       comm_line, ierr)
    call MPI_ALLREDUCE(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                       comm_grid, ierr)
    if (mine(1) /= global(1)) stop 'the row sum is not the grid sum'
    sumhash = mix(ieor(ieor(sumhash, transfer(global(1), 0_8)), it))
  end subroutine
end module

program cart_fortran
  use cart_state
  implicit none
  integer :: ierr, i, ndims, topo, gdims(2), gcoords(2), cl, cr, csize
  logical :: gperiods(2), weighted
  integer :: nin, nout
  integer :: mine(4)
  integer, allocatable :: all(:)
  integer(8) :: it, steps, hash, ghash
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  steps = 200
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call setup()
  do it = 1, steps
    call ccc_checkpoint()
    call step(it)
  end do

  call MPI_TOPO_TEST(comm_grid, topo, ierr)
  call MPI_CARTDIM_GET(comm_grid, ndims, ierr)
  call MPI_CART_GET(comm_grid, 2, gdims, gperiods, gcoords, ierr)
  call MPI_CART_SHIFT(comm_grid, 0, 1, cl, cr, ierr)
  call MPI_COMM_SIZE(comm_line, csize, ierr)
  call MPI_DIST_GRAPH_NEIGHBORS_COUNT(comm_ring, nin, nout, weighted, ierr)
  mine = (/ rank, gcoords(1), cl, cr /)
  allocate(all(4 * nranks))
  call MPI_GATHER(mine, 4, MPI_INTEGER, all, 4, MPI_INTEGER, 0, comm_grid, &
                  ierr)
  hash = 0
  do i = 1, nloc
    hash = ieor(hash, mix(ieor(transfer(u(i), 0_8), int(first + i, 8))))
  end do
  call MPI_REDUCE(hash, ghash, 1, MPI_INTEGER8, MPI_BXOR, 0, comm_grid, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,2l1,a,l1,a,i0,a,i0)') 'cart_fortran: dims ',&
      gdims(1), 'x', gdims(2), ' ndims ', ndims, ' periodic ', gperiods, &
      ' cart ', &
      topo == MPI_CART, ' sub size ', csize, ' steps ', steps
    do i = 0, nranks - 1
      write (*, '(a,i0,a,i0,a,i0,a,i0)') 'rank ', all(4 * i + 1), &
        ' coords ', all(4 * i + 2), ' left ', all(4 * i + 3), ' right ', &
        all(4 * i + 4)
    end do
    write (*, '(a,i0,a,i0,a,l1)') 'ring in ', nin, ' out ', nout, &
      ' weighted ', weighted
    write (*, '(a,z16.16)') 'sum hash ', sumhash
    write (*, '(a,z16.16)') 'field hash ', ghash
  end if
  call MPI_COMM_FREE(comm_ring, ierr)
  call MPI_COMM_FREE(comm_line, ierr)
  call MPI_COMM_FREE(comm_grid, ierr)
  call MPI_FINALIZE(ierr)
end program
