! split_type_attr.f90 - proves a Fortran program's node-local communicator
! and its attributes (`use mpi`) exist again after a restart, as a code
! caching per-node data on a communicator does: MPI_COMM_SPLIT_TYPE with
! MPI_COMM_TYPE_SHARED gives the ranks of this host (all of them here),
! MPI_COMM_CREATE_KEYVAL a keyval with Fortran copy and delete callbacks
! that count their calls in a module, MPI_COMM_SET_ATTR an
! INTEGER(KIND=MPI_ADDRESS_KIND) value on the node communicator, and
! MPI_COMM_DUP a working communicator whose attribute the copy callback
! derived (value + 1000). Every rank checkpoints at the top of the step
! loop, exchanges a halo value around the node ring on the dup
! (MPI_SENDRECV), sums on the node communicator (MPI_ALLREDUCE) and reads
! the attribute (MPI_COMM_GET_ATTR); every 500 steps it sets the
! attribute again (the delete callback runs on the old value).
!   usage: split_type_attr STEPS [same]
! Rank 0 prints the node communicator's size, each rank's node rank,
! attribute values and callback counts after the last step, and a hash.

module node_cache
  use mpi
  implicit none
  integer :: copies = 0, deletes = 0
  integer(kind=MPI_ADDRESS_KIND) :: deleted_sum = 0
contains
  subroutine copy_fn(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    copies = copies + 1
    val_out = val_in + 1000 + extra
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine

  subroutine delete_fn(comm, keyval, val, extra, ierr)
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    deleted_sum = deleted_sum + val
    ierr = MPI_SUCCESS
  end subroutine

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
end module node_cache

program split_type_attr
  use mpi
  use node_cache
  implicit none
  integer :: ierr, rank, nranks, node, work, nrank, nsize, key, i, next, prev
  integer :: status(MPI_STATUS_SIZE), mine(4)
  integer, allocatable :: all(:)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, seen
  integer(8) :: it, steps, x, xin, total, hash
  logical :: flag
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  steps = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  ! Reverse key: the node ranks are the world ranks reversed.
  call MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, &
                           nranks - rank, MPI_INFO_NULL, node, ierr)
  call MPI_COMM_RANK(node, nrank, ierr)
  call MPI_COMM_SIZE(node, nsize, ierr)
  extra = 7
  call MPI_COMM_CREATE_KEYVAL(copy_fn, delete_fn, key, extra, ierr)
  val = 42 + nrank
  call MPI_COMM_SET_ATTR(node, key, val, ierr)
  call MPI_COMM_DUP(node, work, ierr)
  next = mod(nrank + 1, nsize)
  prev = mod(nrank + nsize - 1, nsize)

  x = mix(int(rank + 1, 8))
  seen = 0
  do it = 1, steps
    call ccc_checkpoint()
    call MPI_SENDRECV(x, 1, MPI_INTEGER8, next, 3, xin, 1, MPI_INTEGER8, &
                      prev, 3, work, status, ierr)
    call MPI_ALLREDUCE(xin, total, 1, MPI_INTEGER8, MPI_BXOR, node, ierr)
    call MPI_COMM_GET_ATTR(work, key, val, flag, ierr)
    if (flag) seen = seen + val
    x = mix(ieor(x, total) + it + val)
    if (mod(it, 500_8) == 0) then
      val = it
      call MPI_COMM_SET_ATTR(node, key, val, ierr)
    end if
  end do

  call MPI_COMM_GET_ATTR(node, key, val, flag, ierr)
  mine = (/ nrank, int(val), copies, deletes /)
  allocate(all(4 * nranks))
  call MPI_GATHER(mine, 4, MPI_INTEGER, all, 4, MPI_INTEGER, 0, &
                  MPI_COMM_WORLD, ierr)
  hash = mix(ieor(x, seen))
  call MPI_REDUCE(hash, total, 1, MPI_INTEGER8, MPI_BXOR, 0, MPI_COMM_WORLD, &
                  ierr)
  call MPI_COMM_FREE(work, ierr)
  call MPI_COMM_FREE(node, ierr)
  call MPI_COMM_FREE_KEYVAL(key, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0)') 'split_type_attr: ranks ', nranks, &
      ' node size ', nsize, ' steps ', steps
    do i = 0, nranks - 1
      write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0)') 'rank ', i, ' node rank ', &
        all(4 * i + 1), ' attr ', all(4 * i + 2), ' copies ', &
        all(4 * i + 3), ' deletes ', all(4 * i + 4)
    end do
    write (*, '(a,i0,a,i0)') 'rank 0 after free: deletes ', deletes, &
      ' deleted sum ', deleted_sum
    write (*, '(a,z16.16)') 'hash ', total
  end if
  call MPI_FINALIZE(ierr)
end program split_type_attr
