! halo_use_mpi.f90 - proves a Fortran MPI program (`use mpi`, flang) goes
! through ccc's Fortran entry points and survives a restart: a 1-D periodic
! heat equation whose state lives in a module. Every step, on every rank:
! halo values on a duplicated communicator (MPI_IRECV/MPI_ISEND), then the
! checkpoint site with those requests pending (sites are collective: all
! ranks reach the same sites in the same order), completed in turn by
! MPI_WAITALL (statuses or MPI_STATUSES_IGNORE), MPI_WAITANY or MPI_TEST
! polling; a token passed right with MPI_SENDRECV; a message of varying
! length received after MPI_PROBE and MPI_GET_COUNT; MPI_ALLREDUCE with
! MPI_IN_PLACE (MPI_SUM) and MPI_MAX. Every 8th step: a strided datatype
! (MPI_TYPE_VECTOR, made before the first checkpoint and used after
! restarts), MPI_BCAST, MPI_REDUCE, MPI_GATHER(V), MPI_SCATTER(V) and
! MPI_ALLGATHER(V), MPI_ALLTOALL(V) on a communicator from MPI_COMM_SPLIT,
! MPI_BARRIER, and a datatype made and freed (MPI_TYPE_CONTIGUOUS).
! The communicators and datatypes are Fortran integers kept in the module
! across restarts.
!   usage: halo_use_mpi ITERATIONS
! Rank 0 prints hashes in hex (the same from run to run at one rank count).

module halo_state
  use mpi
  implicit none
  integer, parameter :: n = 65536
  integer :: rank, nranks, nloc, first, left, right
  integer :: dupcomm, halfcomm, hrank, hsize, pairtype
  real(8), allocatable :: u(:), unew(:), src(:)
  integer(8) :: token = 0, mixed = 0
  real(8) :: energy = 0, maxchange = 0
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

  pure function unit(seed, g) result(v)
    integer(8), intent(in) :: seed
    integer, intent(in) :: g
    real(8) :: v
    v = real(ishft(mix(ieor(seed, int(g, 8) + 1)), -11), 8) * 2.0d0**(-53)
  end function

  subroutine check(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    if (ierr /= MPI_SUCCESS) then
      print *, 'error in ', what, ierr
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine

  subroutine setup()
    integer :: i, ierr
    nloc = n / nranks
    if (rank < mod(n, nranks)) nloc = nloc + 1
    first = rank * (n / nranks) + min(rank, mod(n, nranks))
    left = mod(rank + nranks - 1, nranks)
    right = mod(rank + 1, nranks)
    allocate(u(0:nloc + 1), unew(0:nloc + 1), src(nloc))
    u = 0
    unew = 0
    do i = 1, nloc
      u(i) = unit(11_8, first + i - 1)
      src(i) = 1.0d-4 * (unit(12_8, first + i - 1) - 0.5d0)
    end do
    token = mix(int(rank + 1, 8))
    call MPI_COMM_DUP(MPI_COMM_WORLD, dupcomm, ierr)
    call check(ierr, 'comm_dup')
    call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(rank, 2), -rank, halfcomm, ierr)
    call check(ierr, 'comm_split')
    call MPI_COMM_RANK(halfcomm, hrank, ierr)
    call MPI_COMM_SIZE(halfcomm, hsize, ierr)
    call MPI_TYPE_VECTOR(2, 1, 3, MPI_DOUBLE_PRECISION, pairtype, ierr)
    call check(ierr, 'type_vector')
    call MPI_TYPE_COMMIT(pairtype, ierr)
  end subroutine

  subroutine update(lo, hi)
    integer, intent(in) :: lo, hi
    integer :: i
    do i = lo, hi
      unew(i) = u(i) + 0.25d0 * (u(i - 1) - 2 * u(i) + u(i + 1)) + src(i)
    end do
  end subroutine

  subroutine complete(it, req)
    integer(8), intent(in) :: it
    integer, intent(inout) :: req(4)
    integer :: ierr, k, idx, statuses(MPI_STATUS_SIZE, 4)
    logical :: flag
    select case (mod(it, 4))
    case (0)
      call MPI_WAITALL(4, req, MPI_STATUSES_IGNORE, ierr)
    case (1)
      call MPI_WAITALL(4, req, statuses, ierr)
      if (statuses(MPI_SOURCE, 1) /= left .or. statuses(MPI_TAG, 2) /= 2) &
        call check(1, 'waitall statuses')
    case (2)
      do k = 1, 4
        call MPI_WAITANY(4, req, idx, MPI_STATUS_IGNORE, ierr)
        if (idx < 1 .or. idx > 4) call check(1, 'waitany index')
        if (req(idx) /= MPI_REQUEST_NULL) call check(1, 'waitany null')
      end do
    case default
      do k = 1, 4
        flag = .false.
        do while (.not. flag)
          call MPI_TEST(req(k), flag, statuses(:, k), ierr)
        end do
      end do
    end select
    call check(ierr, 'completion')
    do k = 1, 4
      if (req(k) /= MPI_REQUEST_NULL) call check(1, 'request not null')
    end do
  end subroutine

  subroutine exchange(it)
    integer(8), intent(in) :: it
    integer :: ierr, status(MPI_STATUS_SIZE), cnt, req, k
    integer(8) :: incoming, msg(8)
    call MPI_SENDRECV(token, 1, MPI_INTEGER8, right, 3, incoming, 1, &
                      MPI_INTEGER8, left, 3, MPI_COMM_WORLD, status, ierr)
    call check(ierr, 'sendrecv')
    if (status(MPI_SOURCE) /= left) call check(1, 'sendrecv source')
    token = mix(ieor(incoming, transfer(unew(1), 0_8)))
    ! A message of 1 to 8 elements, its length learnt by probing.
    cnt = int(mod(it + rank, 8_8)) + 1
    msg = [(mix(token + k), k = 1, 8)]
    call MPI_ISEND(msg, cnt, MPI_INTEGER8, right, 4, dupcomm, req, ierr)
    call MPI_PROBE(left, 4, dupcomm, status, ierr)
    call MPI_GET_COUNT(status, MPI_INTEGER8, cnt, ierr)
    call check(ierr, 'get_count')
    call MPI_RECV(msg, cnt, MPI_INTEGER8, status(MPI_SOURCE), 4, dupcomm, &
                  MPI_STATUS_IGNORE, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    mixed = mix(ieor(mixed, int(cnt, 8) + sum(msg(1:cnt))))
  end subroutine

  subroutine collectives(it)
    integer(8), intent(in) :: it
    integer :: ierr, i, contig
    integer(8) :: v, r, all(0:63), part(4), back(4)
    integer :: counts(0:63), displs(0:63)
    real(8) :: pair(2), got(2)
    ! A strided pair u(1), u(4) to the right with the vector datatype.
    call MPI_SENDRECV(u(1), 1, pairtype, right, 5, pair, 2, &
                      MPI_DOUBLE_PRECISION, left, 5, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
    call check(ierr, 'sendrecv pairtype')
    v = ieor(transfer(pair(1), 0_8), mix(transfer(pair(2), 0_8)))
    if (rank == 0) r = mix(it)
    call MPI_BCAST(r, 1, MPI_INTEGER8, 0, MPI_COMM_WORLD, ierr)
    v = mix(ieor(v, r))
    call MPI_REDUCE(v, r, 1, MPI_INTEGER8, MPI_BXOR, 0, dupcomm, ierr)
    if (rank == 0) mixed = mix(ieor(mixed, r))
    ! On the half communicator: gather, scatter, allgather, alltoall.
    call MPI_GATHER(v, 1, MPI_INTEGER8, all, 1, MPI_INTEGER8, 0, halfcomm, &
                    ierr)
    if (hrank == 0) all(0:hsize - 1) = [(mix(all(i)), i = 0, hsize - 1)]
    call MPI_SCATTER(all, 1, MPI_INTEGER8, r, 1, MPI_INTEGER8, 0, &
                     halfcomm, ierr)
    mixed = mix(ieor(mixed, r))
    do i = 0, hsize - 1
      counts(i) = i + 1
      displs(i) = i * (i + 1) / 2
    end do
    part = mix(v + hrank)
    call MPI_GATHERV(part, hrank + 1, MPI_INTEGER8, all, counts, displs, &
                     MPI_INTEGER8, 0, halfcomm, ierr)
    call MPI_SCATTERV(all, counts, displs, MPI_INTEGER8, back, hrank + 1, &
                      MPI_INTEGER8, 0, halfcomm, ierr)
    mixed = mix(ieor(mixed, sum(back(1:hrank + 1))))
    call MPI_ALLGATHER(v, 1, MPI_INTEGER8, all, 1, MPI_INTEGER8, halfcomm, &
                       ierr)
    mixed = mix(ieor(mixed, sum(all(0:hsize - 1))))
    call MPI_ALLGATHERV(part, hrank + 1, MPI_INTEGER8, all, counts, displs, &
                        MPI_INTEGER8, halfcomm, ierr)
    mixed = mix(ieor(mixed, sum(all(0:hsize * (hsize + 1) / 2 - 1))))
    all(0:hsize - 1) = [(mix(v + i), i = 0, hsize - 1)]
    call MPI_ALLTOALL(all, 1, MPI_INTEGER8, all(32), 1, MPI_INTEGER8, &
                      halfcomm, ierr)
    mixed = mix(ieor(mixed, sum(all(32:32 + hsize - 1))))
    counts(0:hsize - 1) = 1
    displs(0:hsize - 1) = [(hsize - 1 - i, i = 0, hsize - 1)]
    call MPI_ALLTOALLV(all, counts, displs, MPI_INTEGER8, all(32), counts, &
                       displs, MPI_INTEGER8, halfcomm, ierr)
    mixed = mix(ieor(mixed, sum(all(32:32 + hsize - 1))))
    call MPI_BARRIER(halfcomm, ierr)
    call check(ierr, 'collectives')
    call MPI_TYPE_CONTIGUOUS(2, MPI_DOUBLE_PRECISION, contig, ierr)
    call MPI_TYPE_COMMIT(contig, ierr)
    got = 0
    call MPI_SENDRECV(unew(1), 1, contig, left, 6, got, 1, contig, right, 6, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_TYPE_FREE(contig, ierr)
    if (contig /= MPI_DATATYPE_NULL) call check(1, 'type_free')
    mixed = mix(ieor(mixed, transfer(got(2), 0_8)))
  end subroutine

  subroutine step(it)
    integer(8), intent(in) :: it
    integer :: req(4), ierr
    real(8) :: local(1)
    real(8), allocatable :: tmp(:)
    call MPI_IRECV(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, dupcomm, &
                   req(1), ierr)
    call MPI_IRECV(u(nloc + 1), 1, MPI_DOUBLE_PRECISION, right, 2, &
                   dupcomm, req(2), ierr)
    call MPI_ISEND(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, dupcomm, &
                   req(3), ierr)
    call MPI_ISEND(u(nloc), 1, MPI_DOUBLE_PRECISION, right, 1, dupcomm, &
                   req(4), ierr)
    call ccc_checkpoint()  ! every rank, halo requests pending
    call update(2, nloc - 1)
    call complete(it, req)
    call update(1, 1)
    call update(nloc, nloc)
    call exchange(it)
    if (mod(it, 8_8) == 0) call collectives(it)

    local(1) = sum(unew(1:nloc))
    call MPI_ALLREDUCE(MPI_IN_PLACE, local, 1, MPI_DOUBLE_PRECISION, &
                       MPI_SUM, MPI_COMM_WORLD, ierr)
    energy = 0.5d0 * energy + local(1)
    local(1) = maxval(abs(unew(1:nloc) - u(1:nloc)))
    call MPI_ALLREDUCE(local(1), maxchange, 1, MPI_DOUBLE_PRECISION, &
                       MPI_MAX, dupcomm, ierr)
    call move_alloc(u, tmp)
    call move_alloc(unew, u)
    call move_alloc(tmp, unew)
  end subroutine
end module

program halo_use_mpi
  use halo_state
  implicit none
  integer :: ierr, i, provided
  integer(8) :: it, iters, hash, ghash, gtoken, gmixed
  logical :: flag
  real(8) :: t0
  character(len=32) :: arg

  call MPI_INITIALIZED(flag, ierr)
  if (flag) call check(1, 'initialized before init')
  call MPI_INIT_THREAD(MPI_THREAD_FUNNELED, provided, ierr)
  call check(ierr, 'init_thread')
  call MPI_INITIALIZED(flag, ierr)
  if (.not. flag) call check(1, 'initialized')
  t0 = MPI_WTIME()
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  iters = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  call setup()
  do it = 1, iters
    call step(it)
  end do

  hash = 0
  do i = 1, nloc
    hash = ieor(hash, mix(ieor(transfer(u(i), 0_8), mix(int(first + i, 8)))))
  end do
  call MPI_REDUCE(hash, ghash, 1, MPI_INTEGER8, MPI_BXOR, 0, &
                  MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(token, gtoken, 1, MPI_INTEGER8, MPI_BXOR, 0, &
                  MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(mixed, gmixed, 1, MPI_INTEGER8, MPI_BXOR, 0, &
                  MPI_COMM_WORLD, ierr)
  if (MPI_WTIME() < t0) call check(1, 'wtime')
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0)') 'halo_use_mpi: n=', n, ' ranks=', &
      nranks, ' iterations=', iters
    write (*, '(a,z16.16)') 'field hash ', ghash
    write (*, '(a,z16.16)') 'token hash ', gtoken
    write (*, '(a,z16.16)') 'mixed hash ', gmixed
    write (*, '(a,z16.16,a,z16.16)') 'energy ', transfer(energy, 0_8), &
      ' maxchange ', transfer(maxchange, 0_8)
  end if
  call MPI_TYPE_FREE(pairtype, ierr)
  call MPI_COMM_FREE(halfcomm, ierr)
  call MPI_COMM_FREE(dupcomm, ierr)
  if (dupcomm /= MPI_COMM_NULL) call check(1, 'comm_free')
  deallocate(u, unew, src)
  call MPI_FINALIZE(ierr)
end program
