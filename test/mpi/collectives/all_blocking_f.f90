! all_blocking_f.f90 - every blocking collective family from Fortran
! (`use mpi`), every iteration, on MPI_COMM_WORLD, on a split of it with the
! ranks in reverse order and on a split into even and odd ranks: BARRIER,
! BCAST (a strided vector type), GATHER(V) (the root in place), SCATTER (a
! contiguous pair type), SCATTERV, ALLGATHER(V), ALLTOALL(V), REDUCE (SUM,
! MINLOC, MAX in place at the root), ALLREDUCE, REDUCE_SCATTER(_BLOCK),
! SCAN, EXSCAN, ALLTOALLW (byte displacements, a type per peer), roots
! rotating. Not a user op: ccc's Fortran bindings refuse MPI_OP_CREATE (a
! procedure argument); all_blocking.c calls it from C.
! Every result's bits go into a hash that draws the next iteration's data;
! the state lives in a module (saved in the image).
!   usage: all_blocking_f ITERATIONS   (1 to 8 ranks; tests use 3)
! Rank 0 prints every rank's hash and final data in hexadecimal.
module coll_state
  use mpi
  implicit none
  integer, parameter :: k = 6, maxp = 8, nbuf = 4 * maxp * k
  integer(8) :: hash
  real(8) :: x(k)
  integer :: ints(k)
  integer :: strided, pair
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

  subroutine take_ints(v, n)
    integer, intent(in) :: n
    integer, intent(in) :: v(n)
    integer :: i
    do i = 1, n
      hash = mix(ieor(hash, int(v(i), 8) * 65599_8 + i))
    end do
  end subroutine

  subroutine draw()
    integer :: i
    integer(8) :: r
    do i = 1, k
      r = mix(ieor(hash, int(i, 8)))
      x(i) = (real(ishft(r, -11), 8) * 2.0d0**(-53) - 0.5d0) * 8.0d0**(i - 1)
      ints(i) = int(mod(ishft(r, -40), 1000_8)) - 500
    end do
  end subroutine

  ! Doubles rank r sends to rank j in ALLTOALLV: 1..3.
  integer function cnt(r, j)
    integer, intent(in) :: r, j
    cnt = mod(r + 2 * j, 3) + 1
  end function

  subroutine families(comm, it)
    integer, intent(in) :: comm
    integer(8), intent(in) :: it
    integer :: p, r, root, ierr, i, j, at, d, s
    real(8) :: a(nbuf), b(nbuf), loc(2), minv(2)
    integer :: ib(k), ia(2 * maxp)
    integer :: counts(maxp), displs(maxp), rcounts(maxp), rdispls(maxp)
    integer :: wtypes(maxp)

    call MPI_COMM_SIZE(comm, p, ierr)
    call MPI_COMM_RANK(comm, r, ierr)
    root = int(mod(it, int(p, 8)))

    call MPI_BARRIER(comm, ierr)

    ! BCAST of 3 doubles through the strided vector (every second of 5).
    a(1:5) = -1
    if (r == root) a(1:5) = x(1:5)
    call MPI_BCAST(a, 1, strided, root, comm, ierr)
    call take(a, 5)

    ! GATHER of 2; GATHERV of r+1 in reverse rank order with gaps, the
    ! root in place.
    call MPI_GATHER(x, 2, MPI_DOUBLE_PRECISION, b, 2, MPI_DOUBLE_PRECISION, &
                    root, comm, ierr)
    if (r == root) call take(b, 2 * p)
    at = 0
    do j = p - 1, 0, -1
      counts(j + 1) = j + 1
      displs(j + 1) = at
      at = at + j + 2
    end do
    b(1:at) = 7
    if (r == root) then
      b(displs(r + 1) + 1:displs(r + 1) + r + 1) = x(1:r + 1)
      call MPI_GATHERV(MPI_IN_PLACE, 0, MPI_DOUBLE_PRECISION, b, counts, &
                       displs, MPI_DOUBLE_PRECISION, root, comm, ierr)
      call take(b, at)
    else
      call MPI_GATHERV(x, r + 1, MPI_DOUBLE_PRECISION, b, counts, displs, &
                       MPI_DOUBLE_PRECISION, root, comm, ierr)
    end if

    ! SCATTER of one pair per rank; SCATTERV of j+1 to rank j.
    do i = 1, 6 * p
      a(i) = x(mod(i - 1, k) + 1) * i
    end do
    call MPI_SCATTER(a, 1, pair, b, 2, MPI_DOUBLE_PRECISION, root, comm, ierr)
    call take(b, 2)
    d = 0
    do j = 0, p - 1
      counts(j + 1) = j + 1
      displs(j + 1) = d
      d = d + j + 1
    end do
    call MPI_SCATTERV(a, counts, displs, MPI_DOUBLE_PRECISION, b, r + 1, &
                      MPI_DOUBLE_PRECISION, root, comm, ierr)
    call take(b, r + 1)

    ! ALLGATHER of 2 integers; ALLGATHERV of mod(j,2)+1 doubles, gaps.
    call MPI_ALLGATHER(ints, 2, MPI_INTEGER, ia, 2, MPI_INTEGER, comm, ierr)
    call take_ints(ia, 2 * p)
    d = 0
    do j = 0, p - 1
      counts(j + 1) = mod(j, 2) + 1
      displs(j + 1) = d
      d = d + mod(j, 2) + 2
    end do
    b(1:3 * p) = 0
    call MPI_ALLGATHERV(x(3), mod(r, 2) + 1, MPI_DOUBLE_PRECISION, b, counts, &
                        displs, MPI_DOUBLE_PRECISION, comm, ierr)
    call take(b, 3 * p)

    ! ALLTOALL of 2 per peer; ALLTOALLV of cnt(r, j).
    do i = 1, 3 * p
      a(i) = x(mod(i - 1, k) + 1) + i
    end do
    call MPI_ALLTOALL(a, 2, MPI_DOUBLE_PRECISION, b, 2, MPI_DOUBLE_PRECISION, &
                      comm, ierr)
    call take(b, 2 * p)
    s = 0
    d = 0
    do j = 0, p - 1
      counts(j + 1) = cnt(r, j)
      displs(j + 1) = s
      s = s + 3
      rcounts(j + 1) = cnt(j, r)
      rdispls(j + 1) = d
      d = d + rcounts(j + 1)
    end do
    call MPI_ALLTOALLV(a, counts, displs, MPI_DOUBLE_PRECISION, b, rcounts, &
                       rdispls, MPI_DOUBLE_PRECISION, comm, ierr)
    call take(b, d)
    ! The same exchange again by ALLTOALLW (other data, byte displacements).
    do j = 0, p - 1
      displs(j + 1) = 8 * displs(j + 1)
      rdispls(j + 1) = 8 * rdispls(j + 1)
      wtypes(j + 1) = MPI_DOUBLE_PRECISION
      a(j * 3 + 1:j * 3 + 3) = -a(j * 3 + 1:j * 3 + 3) * 0.5d0
    end do
    b(1:d) = 0
    call MPI_ALLTOALLW(a, counts, displs, wtypes, b, rcounts, rdispls, &
                       wtypes, comm, ierr)
    call take(b, d)

    ! REDUCE: SUM, MINLOC of (value, rank), MAX in place at the root.
    call MPI_REDUCE(x, b, k, MPI_DOUBLE_PRECISION, MPI_SUM, root, comm, ierr)
    if (r == root) call take(b, k)
    loc = (/ x(4), real(r, 8) /)
    call MPI_REDUCE(loc, minv, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, root, &
                    comm, ierr)
    if (r == root) call take(minv, 2)
    b(1:k) = x
    if (r == root) then
      call MPI_REDUCE(MPI_IN_PLACE, b, k, MPI_DOUBLE_PRECISION, MPI_MAX, &
                      root, comm, ierr)
      call take(b, k)
    else
      call MPI_REDUCE(b, a, k, MPI_DOUBLE_PRECISION, MPI_MAX, root, comm, &
                      ierr)
    end if

    ! ALLREDUCE: SUM, MAX of integers in place, MIN.
    call MPI_ALLREDUCE(x, b, k, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    call take(b, k)
    ib = ints
    call MPI_ALLREDUCE(MPI_IN_PLACE, ib, k, MPI_INTEGER, MPI_MAX, comm, ierr)
    call take_ints(ib, k)
    call MPI_ALLREDUCE(x, b, k, MPI_DOUBLE_PRECISION, MPI_MIN, comm, ierr)
    call take(b, k)

    ! REDUCE_SCATTER (j+1 to rank j), REDUCE_SCATTER_BLOCK (2, in place).
    do i = 1, max(p * (p + 1) / 2, 2 * p)
      a(i) = x(mod(i - 1, k) + 1) * (mod(i - 1, 3) + 1)
    end do
    do j = 0, p - 1
      counts(j + 1) = j + 1
    end do
    call MPI_REDUCE_SCATTER(a, b, counts, MPI_DOUBLE_PRECISION, MPI_SUM, &
                            comm, ierr)
    call take(b, r + 1)
    call MPI_REDUCE_SCATTER_BLOCK(MPI_IN_PLACE, a, 2, MPI_DOUBLE_PRECISION, &
                                  MPI_SUM, comm, ierr)
    call take(a, 2)

    ! SCAN (PROD); EXSCAN of integers (undefined at rank 0).
    call MPI_SCAN(x, b, k, MPI_DOUBLE_PRECISION, MPI_PROD, comm, ierr)
    call take(b, k)
    call MPI_EXSCAN(ints, ib, k, MPI_INTEGER, MPI_SUM, comm, ierr)
    if (r > 0) call take_ints(ib, k)
  end subroutine
end module

program all_blocking_f
  use coll_state
  implicit none
  integer :: ierr, rank, nranks, rev, parity, two, i, j
  integer(8) :: it, iters
  integer(8), allocatable :: hashes(:)
  real(8), allocatable :: data(:)
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  iters = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (nranks > maxp) then
    if (rank == 0) write (0, '(a)') 'all_blocking_f: at most 8 ranks'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, 0, nranks - rank, rev, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), rank, parity, ierr)
  call MPI_TYPE_VECTOR(3, 1, 2, MPI_DOUBLE_PRECISION, strided, ierr)
  call MPI_TYPE_COMMIT(strided, ierr)
  call MPI_TYPE_CONTIGUOUS(2, MPI_DOUBLE_PRECISION, two, ierr)
  call MPI_TYPE_CREATE_RESIZED(two, 0_MPI_ADDRESS_KIND, 24_MPI_ADDRESS_KIND, &
                               pair, ierr)
  call MPI_TYPE_COMMIT(pair, ierr)
  call MPI_TYPE_FREE(two, ierr)

  hash = mix(int(4660 + rank, 8))
  call draw()
  do it = 0, iters - 1
    call ccc_checkpoint()
    call families(MPI_COMM_WORLD, it)
    call families(rev, it)
    call families(parity, it)
    call draw()
  end do

  allocate(hashes(nranks), data(k * nranks))
  call MPI_GATHER(hash, 1, MPI_INTEGER8, hashes, 1, MPI_INTEGER8, 0, &
                  MPI_COMM_WORLD, ierr)
  call MPI_GATHER(x, k, MPI_DOUBLE_PRECISION, data, k, MPI_DOUBLE_PRECISION, &
                  0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0)') 'all_blocking_f: ranks=', nranks, &
      ' iterations=', iters
    do i = 0, nranks - 1
      write (*, '(a,i0,a,z16.16,a,6(1x,z16.16))') 'rank ', i, ' hash ', &
        hashes(i + 1), ' data', (transfer(data(i * k + j), 0_8), j = 1, k)
    end do
  end if
  call MPI_TYPE_FREE(pair, ierr)
  call MPI_TYPE_FREE(strided, ierr)
  call MPI_COMM_FREE(parity, ierr)
  call MPI_COMM_FREE(rev, ierr)
  call MPI_FINALIZE(ierr)
end program
