! types_fortran.f90 - proves a Fortran program's datatypes and communicators
! made from inputs it freed are re-created on restart through the layer's
! Fortran entry points (use mpi): MPI_TYPE_CREATE_F90_REAL gives the
! REAL(KIND=SELECTED_REAL_KIND(15, 300)) type, a pair of them
! (MPI_TYPE_CONTIGUOUS) is the inner type of an MPI_TYPE_CREATE_HINDEXED_BLOCK
! and an MPI_TYPE_CREATE_DARRAY (block-distributed columns of a global
! array) and is freed once they are made; MPI_COMM_GROUP,
! MPI_GROUP_RANGE_INCL with one range (every other rank from the last) and
! MPI_COMM_CREATE make a communicator whose groups are freed at once. Every
! step, after the site, the hindexed_block type carries values round the
! ring of ranks (MPI_SENDRECV), the darray type copies this rank's columns
! of the global array into a buffer (MPI_PACK), and the communicator sums a
! checksum (MPI_ALLREDUCE). The objects live in a module (saved in the
! image).
!   usage: types_fortran STEPS
! Rank 0 prints each type's size and combiner, the communicator's size and
! the checksum history.
module types_state
  use mpi
  implicit none
  integer, parameter :: dp = selected_real_kind(15, 300)
  integer, parameter :: ng = 24          ! global rows and columns
  integer :: f90type, blocks, columns, evens, rank, nranks
  real(dp) :: src(64), dst(64), global(ng * ng)
  character(len=8 * ng * ng) :: packed
  integer(8) :: hash = 0
contains
  ! Shifts and xors only: no signed overflow.
  pure function mix(x, v) result(y)
    integer(8), intent(in) :: x, v
    integer(8) :: y
    y = ieor(x, v)
    y = ieor(y, ishft(y, 13))
    y = ieor(y, ishft(y, -7))
    y = ieor(y, ishft(y, 17))
  end function

  subroutine setup()
    integer :: ierr, pair, world, group, gsizes(2), distribs(2), dargs(2)
    integer :: psizes(2), ranges(3, 1)
    integer(kind=MPI_ADDRESS_KIND) :: displs(3)
    call MPI_TYPE_CREATE_F90_REAL(15, 300, f90type, ierr)
    call MPI_TYPE_CONTIGUOUS(2, f90type, pair, ierr)
    displs = (/ 0_MPI_ADDRESS_KIND, 64_MPI_ADDRESS_KIND, 160_MPI_ADDRESS_KIND /)
    call MPI_TYPE_CREATE_HINDEXED_BLOCK(3, 2, displs, pair, blocks, ierr)
    call MPI_TYPE_COMMIT(blocks, ierr)
    gsizes = (/ ng, ng / 2 /)
    distribs = (/ MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK /)
    dargs = (/ MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG /)
    psizes = (/ 1, nranks /)
    call MPI_TYPE_CREATE_DARRAY(nranks, rank, 2, gsizes, distribs, dargs, &
                                psizes, MPI_ORDER_FORTRAN, pair, columns, ierr)
    call MPI_TYPE_COMMIT(columns, ierr)
    call MPI_TYPE_FREE(pair, ierr)
    call MPI_COMM_GROUP(MPI_COMM_WORLD, world, ierr)
    ranges(:, 1) = (/ nranks - 1, 0, -2 /)
    call MPI_GROUP_RANGE_INCL(world, 1, ranges, group, ierr)
    call MPI_GROUP_FREE(world, ierr)
    call MPI_COMM_CREATE(MPI_COMM_WORLD, group, evens, ierr)
    call MPI_GROUP_FREE(group, ierr)
  end subroutine

  subroutine step(s)
    integer, intent(in) :: s
    integer :: ierr, i, next, prev, pos
    integer(8) :: mine, total
    next = mod(rank + 1, nranks)
    prev = mod(rank + nranks - 1, nranks)
    do i = 1, 64
      src(i) = real(mod(s * 31 + i * 7 + rank * 13, 1000), dp) / 8
    end do
    do i = 1, ng * ng
      global(i) = real(mod(s + i * 3, 977), dp) / 4
    end do
    dst = 0
    call MPI_SENDRECV(src, 1, blocks, next, 1, dst, 1, blocks, prev, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    pos = 0
    call MPI_PACK(global, 1, columns, packed, len(packed), pos, &
                  MPI_COMM_WORLD, ierr)
    mine = int(pos, 8)
    do i = 1, 64
      mine = mix(mine, int(dst(i) * 8, 8))
    end do
    do i = 1, pos, 8
      mine = mix(mine, int(ichar(packed(i:i)), 8))
    end do
    total = mine
    if (evens /= MPI_COMM_NULL) then
      call MPI_ALLREDUCE(mine, total, 1, MPI_INTEGER8, MPI_SUM, evens, ierr)
    end if
    call MPI_BCAST(total, 1, MPI_INTEGER8, nranks - 1, MPI_COMM_WORLD, ierr)
    hash = mix(hash, total)
  end subroutine
end module

program types_fortran
  use types_state
  implicit none
  integer :: ierr, steps, s, k, n, ni, na, nd, comb, esize
  integer :: types(3)
  character(len=16) :: arg
  call get_command_argument(1, arg)
  read (arg, *) steps
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  call setup()
  do s = 1, steps
    call ccc_checkpoint()
    call step(s)
  end do
  esize = -1
  if (evens /= MPI_COMM_NULL) call MPI_COMM_SIZE(evens, esize, ierr)
  if (rank == nranks - 1) then
    types = (/ f90type, blocks, columns /)
    do k = 1, 3
      call MPI_TYPE_SIZE(types(k), n, ierr)
      call MPI_TYPE_GET_ENVELOPE(types(k), ni, na, nd, comb, ierr)
      write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'type ', k, ': size ', n, &
        ' combiner ', comb, ' ints ', ni, ' addresses ', na, ' types ', nd
    end do
    write (*, '(a,i0)') 'every other rank from the last: ', esize
    write (*, '(a,z16.16)') 'hash ', hash
  end if
  call MPI_TYPE_FREE(blocks, ierr)
  call MPI_TYPE_FREE(columns, ierr)
  if (evens /= MPI_COMM_NULL) call MPI_COMM_FREE(evens, ierr)
  call MPI_FINALIZE(ierr)
end program
