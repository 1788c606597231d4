! neighbours_f.f90 - neighbourhood collectives from Fortran (`use mpi`): a
! periodic ring from MPI_CART_CREATE and a distributed graph from
! MPI_DIST_GRAPH_CREATE_ADJACENT whose edges are not symmetric (rank r
! sends to r+1, and even ranks also to r-2). Every iteration starts
! MPI_INEIGHBOR_ALLTOALL on the ring and MPI_INEIGHBOR_ALLGATHER on the
! graph before ccc_checkpoint() and completes them after it (MPI_WAITALL),
! having called MPI_NEIGHBOR_ALLGATHER on the ring and
! MPI_NEIGHBOR_ALLTOALLV (per-edge counts) on the graph in between. The
! state lives in a module; every output's bits go into a hash that draws
! the next iteration's data.
!   usage: neighbours_f ITERATIONS   (3 or more ranks; tests use 4)
! Rank 0 prints every rank's hash and final data in hexadecimal.
module nb_state
  use mpi
  implicit none
  integer, parameter :: k = 6, maxn = 4
  integer(8) :: hash
  real(8) :: x(k)
  integer :: ring, graph, nin, nout, srcs(maxn), dsts(maxn)
  real(8) :: sendo(2 * maxn), recvo(2 * maxn), sendg(2), recvg(2 * maxn)
contains
  pure function mix(v) result(y)
    integer(8), intent(in) :: v
    integer(8) :: y
    integer :: i
    y = v
    do i = 1, 3
      y = ieor(y, ishft(y, 13))
      y = ieor(y, ishft(y, -7))
      y = ieor(y, ishft(y, 17))
    end do
  end function

  subroutine take(v, n)
    integer, intent(in) :: n
    real(8), intent(in) :: v(n)
    integer :: i
    do i = 1, n
      hash = mix(ieor(hash, ieor(transfer(v(i), 0_8), int(i, 8))))
    end do
  end subroutine

  subroutine draw()
    integer :: i
    integer(8) :: r
    do i = 1, k
      r = mix(ieor(hash, int(i, 8)))
      x(i) = (real(ishft(r, -11), 8) * 2.0d0**(-53) - 0.5d0) * 8.0d0**(i - 1)
    end do
  end subroutine

  ! The graph's out-neighbours of rank r of p: r+1, and r-2 if r is even.
  subroutine outs(r, p, o, n)
    integer, intent(in) :: r, p
    integer, intent(out) :: o(2), n
    o(1) = mod(r + 1, p)
    n = 1
    if (mod(r, 2) == 0) then
      o(2) = mod(r + p - 2, p)
      n = 2
    end if
  end subroutine

  ! Doubles on the graph edge s -> d in NEIGHBOR_ALLTOALLV: 1 or 2.
  integer function cnt(s, d)
    integer, intent(in) :: s, d
    cnt = mod(s + d, 2) + 1
  end function
end module

program neighbours_f
  use nb_state
  implicit none
  integer :: ierr, rank, p, s, i, j, n, o(2), dims(1), reqs(2)
  integer :: sc(maxn), sd(maxn), rc(maxn), rd(maxn), vtotal
  logical :: periods(1)
  real(8) :: sendv(3 * maxn), recvv(2 * maxn), ag(2), agout(4)
  integer(8) :: it, iters
  integer(8), allocatable :: hashes(:)
  real(8), allocatable :: data(:)
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, p, ierr)
  iters = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (p < 3) then
    if (rank == 0) write (0, '(a)') 'neighbours_f: run with 3 or more ranks'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  dims = p
  periods = .true.
  call MPI_CART_CREATE(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call outs(rank, p, dsts, nout)
  nin = 0
  do s = 0, p - 1  ! in-neighbours in rank order
    call outs(s, p, o, n)
    do i = 1, n
      if (o(i) == rank) then
        nin = nin + 1
        srcs(nin) = s
      end if
    end do
  end do
  call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, nin, srcs, &
    MPI_UNWEIGHTED, nout, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL, .false., &
    graph, ierr)
  vtotal = 0
  do j = 1, nout
    sc(j) = cnt(rank, dsts(j))
    sd(j) = 3 * (j - 1)
  end do
  do i = 1, nin
    rc(i) = cnt(srcs(i), rank)
    rd(i) = vtotal
    vtotal = vtotal + rc(i)
  end do

  hash = mix(int(39612 + rank, 8))
  call draw()
  do it = 0, iters - 1
    ! Open across the site: 2 doubles to each ring neighbour, 2 to every
    ! graph out-neighbour.
    sendo(1:4) = x(1:4) + it
    recvo = -1
    sendg = x(5:6)
    recvg = -1
    call MPI_INEIGHBOR_ALLTOALL(sendo, 2, MPI_DOUBLE_PRECISION, recvo, 2, &
                                MPI_DOUBLE_PRECISION, ring, reqs(1), ierr)
    call MPI_INEIGHBOR_ALLGATHER(sendg, 2, MPI_DOUBLE_PRECISION, recvg, 2, &
                                 MPI_DOUBLE_PRECISION, graph, reqs(2), ierr)
    call ccc_checkpoint()
    ag = x(2:3) * 3
    call MPI_NEIGHBOR_ALLGATHER(ag, 2, MPI_DOUBLE_PRECISION, agout, 2, &
                                MPI_DOUBLE_PRECISION, ring, ierr)
    do i = 1, 3 * maxn
      sendv(i) = x(mod(i, k) + 1) - i
    end do
    recvv = 0
    call MPI_NEIGHBOR_ALLTOALLV(sendv, sc, sd, MPI_DOUBLE_PRECISION, recvv, &
                                rc, rd, MPI_DOUBLE_PRECISION, graph, ierr)
    call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
    call take(recvo, 4)
    call take(recvg, 2 * nin)
    call take(agout, 4)
    call take(recvv, vtotal)
    call draw()
  end do

  allocate(hashes(p), data(k * p))
  call MPI_GATHER(hash, 1, MPI_INTEGER8, hashes, 1, MPI_INTEGER8, 0, &
                  MPI_COMM_WORLD, ierr)
  call MPI_GATHER(x, k, MPI_DOUBLE_PRECISION, data, k, MPI_DOUBLE_PRECISION, &
                  0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,i0)') 'neighbours_f: ranks=', p, &
      ' iterations=', iters, ' graph in ', nin, ' out ', nout
    do i = 0, p - 1
      write (*, '(a,i0,a,z16.16,a,6(1x,z16.16))') 'rank ', i, ' hash ', &
        hashes(i + 1), ' data', (transfer(data(i * k + j), 0_8), j = 1, k)
    end do
  end if
  call MPI_COMM_FREE(graph, ierr)
  call MPI_COMM_FREE(ring, ierr)
  call MPI_FINALIZE(ierr)
end program
