! nbc_f08.f90 - the non-blocking collectives from modern Fortran (`use
! mpi_f08`: derived-type handles, no ierror): MPI_Ibarrier, Ibcast (a
! strided vector type), Igather(v), Iscatter(v), Iallgather(v),
! Ialltoall(v,w), Ireduce, Iallreduce, Ireduce_scatter(_block) (in place),
! Iscan, Iexscan every iteration on MPI_COMM_WORLD and a duplicate, roots
! rotating; seven started before ccc_checkpoint() and completed after it
! by MPI_Waitall, the rest by an MPI_Testall loop and MPI_Wait. Every
! tenth iteration the duplicate is replaced: MPI_Comm_idup open across the
! site, MPI_Comm_disconnect of the old one. The buffers live in a module
! (ASYNCHRONOUS, saved in the image); every output's bits go into a hash
! that draws the next iteration's data.
!   usage: nbc_f08 ITERATIONS   (1 to 8 ranks; tests use 3)
! Rank 0 prints every rank's hash and final data in hexadecimal.
module nbc_state
  use mpi_f08
  implicit none
  integer, parameter :: k = 6, maxp = 8, nbuf = 4 * maxp * k
  integer, parameter :: barrier = 1, bcast = 2, gather = 3, scatterv = 4, &
    allreduce = 5, alltoall = 6, iscan = 7, & ! open across the site
    gatherv = 8, scatter = 9, allgather = 10, allgatherv = 11, &
    alltoallv = 12, reduce = 13, reduce_scatter = 14, rsblock = 15, &
    exscan = 16, alltoallw = 17, nops = 17
  integer(8) :: hash
  real(8) :: x(k)
  integer :: ints(k)
  real(8), asynchronous :: inb(nbuf, nops), outb(nbuf, nops)
  integer, asynchronous :: iout(k)
  type(MPI_Datatype) :: strided
  type(MPI_Comm) :: dup
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
      ints(i) = int(mod(ishft(r, -40), 1000_8)) - 500
    end do
  end subroutine

  integer function cnt(r, j)
    integer, intent(in) :: r, j
    cnt = mod(r + 2 * j, 3) + 1
  end function
end module

program nbc_f08
  use nbc_state
  implicit none
  integer :: r, p, root, root2, i, j, o, total
  integer :: up(maxp), upd(maxp), par(maxp), pard(maxp), partotal
  integer :: sc(maxp), sd(maxp), rc(maxp), rd(maxp), avtotal
  integer :: sdb(maxp), rdb(maxp) ! ALLTOALLW: displacements in bytes
  type(MPI_Datatype) :: wtypes(maxp)
  type(MPI_Request) :: q(nops), qdup
  type(MPI_Comm) :: nxt, spare
  logical :: done
  integer(8) :: it, iters
  integer(8), allocatable :: hashes(:)
  real(8), allocatable :: data(:)
  character(len=32) :: arg

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, r)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  iters = 100
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  if (p > maxp) then
    if (r == 0) write (0, '(a)') 'nbc_f08: at most 8 ranks'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  ! Duplicated without blocking: no other collective may be open on it
  ! (Open MPI 4.1 starts the duplication's own collectives on the parent
  ! while progressing, in any order with the program's).
  call MPI_Comm_dup(MPI_COMM_WORLD, spare)
  call MPI_Type_vector(3, 1, 2, MPI_DOUBLE_PRECISION, strided)
  call MPI_Type_commit(strided)
  total = 0
  partotal = 0
  avtotal = 0
  do j = 0, p - 1
    up(j + 1) = j + 1
    upd(j + 1) = total
    total = total + j + 1
    par(j + 1) = mod(j, 2) + 1
    pard(j + 1) = partotal
    partotal = partotal + mod(j, 2) + 2  ! a gap after each block
    sc(j + 1) = cnt(r, j)
    sd(j + 1) = 3 * j
    rc(j + 1) = cnt(j, r)
    rd(j + 1) = avtotal
    avtotal = avtotal + rc(j + 1)
    sdb(j + 1) = 8 * sd(j + 1)
    rdb(j + 1) = 8 * rd(j + 1)
    wtypes(j + 1) = MPI_DOUBLE_PRECISION
  end do

  hash = mix(int(22136 + r, 8))
  call draw()
  do it = 0, iters - 1
    root = int(mod(it, int(p, 8)))
    root2 = int(mod(it + 1, int(p, 8)))
    do o = 1, nops
      do i = 1, nbuf
        inb(i, o) = x(mod(i + o, k) + 1) * (mod(i, 5) + 1) + o
      end do
      outb(:, o) = -1
    end do
    iout = 0

    ! Open across the site.
    call MPI_Ibarrier(MPI_COMM_WORLD, q(barrier))
    if (r /= root) inb(1:5, bcast) = 0
    call MPI_Ibcast(inb(:, bcast), 1, strided, root, MPI_COMM_WORLD, &
                    q(bcast))
    call MPI_Igather(inb(:, gather), 2, MPI_DOUBLE_PRECISION, &
                     outb(:, gather), 2, MPI_DOUBLE_PRECISION, root2, dup, &
                     q(gather))
    call MPI_Iscatterv(inb(:, scatterv), up, upd, MPI_DOUBLE_PRECISION, &
                       outb(:, scatterv), r + 1, MPI_DOUBLE_PRECISION, root, &
                       MPI_COMM_WORLD, q(scatterv))
    call MPI_Iallreduce(inb(:, allreduce), outb(:, allreduce), k, &
                        MPI_DOUBLE_PRECISION, MPI_SUM, dup, q(allreduce))
    call MPI_Ialltoall(inb(:, alltoall), 2, MPI_DOUBLE_PRECISION, &
                       outb(:, alltoall), 2, MPI_DOUBLE_PRECISION, &
                       MPI_COMM_WORLD, q(alltoall))
    call MPI_Iscan(inb(:, iscan), outb(:, iscan), k, MPI_DOUBLE_PRECISION, &
                   MPI_SUM, dup, q(iscan))
    ! Every tenth iteration the duplicate is replaced: duplicated without
    ! blocking across the site, the old one disconnected once its
    ! collectives completed.
    if (mod(it, 10_8) == 0) call MPI_Comm_idup(spare, nxt, qdup)
    call ccc_checkpoint()

    if (r == root) then  ! in place at the root
      outb(upd(r + 1) + 1:upd(r + 1) + r + 1, gatherv) = inb(1:r + 1, gatherv)
      call MPI_Igatherv(MPI_IN_PLACE, 0, MPI_DOUBLE_PRECISION, &
                        outb(:, gatherv), up, upd, MPI_DOUBLE_PRECISION, &
                        root, MPI_COMM_WORLD, q(gatherv))
    else
      call MPI_Igatherv(inb(:, gatherv), r + 1, MPI_DOUBLE_PRECISION, &
                        outb(:, gatherv), up, upd, MPI_DOUBLE_PRECISION, &
                        root, MPI_COMM_WORLD, q(gatherv))
    end if
    call MPI_Iscatter(inb(:, scatter), 2, MPI_DOUBLE_PRECISION, &
                      outb(:, scatter), 2, MPI_DOUBLE_PRECISION, root2, dup, &
                      q(scatter))
    call MPI_Iallgather(inb(:, allgather), 3, MPI_DOUBLE_PRECISION, &
                        outb(:, allgather), 3, MPI_DOUBLE_PRECISION, &
                        MPI_COMM_WORLD, q(allgather))
    call MPI_Iallgatherv(inb(:, allgatherv), mod(r, 2) + 1, &
                         MPI_DOUBLE_PRECISION, outb(:, allgatherv), par, &
                         pard, MPI_DOUBLE_PRECISION, dup, q(allgatherv))
    call MPI_Ialltoallv(inb(:, alltoallv), sc, sd, MPI_DOUBLE_PRECISION, &
                        outb(:, alltoallv), rc, rd, MPI_DOUBLE_PRECISION, &
                        MPI_COMM_WORLD, q(alltoallv))
    call MPI_Ireduce(inb(:, reduce), outb(:, reduce), k, &
                     MPI_DOUBLE_PRECISION, MPI_SUM, root2, dup, q(reduce))
    call MPI_Ireduce_scatter(inb(:, reduce_scatter), &
                             outb(:, reduce_scatter), up, &
                             MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, &
                             q(reduce_scatter))
    call MPI_Ireduce_scatter_block(MPI_IN_PLACE, inb(:, rsblock), 2, &
                                   MPI_DOUBLE_PRECISION, MPI_SUM, dup, &
                                   q(rsblock))
    call MPI_Iexscan(ints, iout, k, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                     q(exscan))
    call MPI_Ialltoallw(inb(:, alltoallw), sc, sdb, wtypes, &
                        outb(:, alltoallw), rc, rdb, wtypes, &
                        MPI_COMM_WORLD, q(alltoallw))

    call MPI_Waitall(iscan, q, MPI_STATUSES_IGNORE)
    done = .false.
    do while (.not. done)
      call MPI_Testall(reduce - gatherv + 1, q(gatherv:reduce), done, &
                       MPI_STATUSES_IGNORE)
    end do
    do o = reduce_scatter, nops
      call MPI_Wait(q(o), MPI_STATUS_IGNORE)
    end do
    if (mod(it, 10_8) == 0) then
      call MPI_Wait(qdup, MPI_STATUS_IGNORE)
      call MPI_Comm_disconnect(dup)
      dup = nxt
    end if

    call take(inb(:, bcast), 5)
    if (r == root2) call take(outb(:, gather), 2 * p)
    call take(outb(:, scatterv), r + 1)
    call take(outb(:, allreduce), k)
    call take(outb(:, alltoall), 2 * p)
    call take(outb(:, iscan), k)
    if (r == root) call take(outb(:, gatherv), total)
    call take(outb(:, scatter), 2)
    call take(outb(:, allgather), 3 * p)
    call take(outb(:, allgatherv), partotal)
    call take(outb(:, alltoallv), avtotal)
    call take(outb(:, alltoallw), avtotal)
    if (r == root2) call take(outb(:, reduce), k)
    call take(outb(:, reduce_scatter), r + 1)
    call take(inb(:, rsblock), 2)
    if (r > 0) then
      do i = 1, k
        hash = mix(ieor(hash, int(iout(i), 8) * 65599_8 + i))
      end do
    end if
    call draw()
  end do

  allocate(hashes(p), data(k * p))
  call MPI_Gather(hash, 1, MPI_INTEGER8, hashes, 1, MPI_INTEGER8, 0, &
                  MPI_COMM_WORLD)
  call MPI_Gather(x, k, MPI_DOUBLE_PRECISION, data, k, MPI_DOUBLE_PRECISION, &
                  0, MPI_COMM_WORLD)
  if (r == 0) then
    write (*, '(a,i0,a,i0)') 'nbc_f08: ranks=', p, ' iterations=', iters
    do i = 0, p - 1
      write (*, '(a,i0,a,z16.16,a,6(1x,z16.16))') 'rank ', i, ' hash ', &
        hashes(i + 1), ' data', (transfer(data(i * k + j), 0_8), j = 1, k)
    end do
  end if
  call MPI_Type_free(strided)
  call MPI_Comm_free(dup)
  call MPI_Comm_free(spare)
  call MPI_Finalize()
end program
