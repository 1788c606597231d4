! rma_shared_f.f90 - an MPI-3 shared-memory window from Fortran across
! checkpoints (`use mpi`, issue 23; CCC_PROTOCOL=blocking): the node's ranks
! (MPI_COMM_SPLIT_TYPE) each own a part of unequal size of one
! MPI_WIN_ALLOCATE_SHARED window, seen as Fortran pointer arrays through
! C_F_POINTER (their own part and, from MPI_WIN_SHARED_QUERY, their
! neighbours'), kept in a module across restarts. A 1-D smoothing reads the
! neighbours' edge cells by plain loads; MPI_WIN_SYNC and barriers order
! them with the stores, in a lock_all epoch (MPI_MODE_NOCHECK) held across
! every checkpoint, as shared-memory Fortran codes do.
!   usage: rma_shared_f STEPS
! Rank 0 prints the sum and a weighted sum of every part.

module shared_state
  use mpi
  use iso_c_binding
  implicit none
  integer :: node, rank, nranks, win
  real(8), pointer :: mine(:), lft(:), rgt(:)
  real(8), allocatable :: next(:)
end module

program rma_shared_f
  use shared_state
  implicit none
  integer :: ierr, step, steps, i, n, unit, p
  integer(kind=MPI_ADDRESS_KIND) :: bytes, ptr
  character(len=32) :: arg
  real(8) :: a, b, total, weighted
  real(8), pointer :: part(:)

  call MPI_INIT(ierr)
  steps = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, &
                           MPI_INFO_NULL, node, ierr)
  call MPI_COMM_RANK(node, rank, ierr)
  call MPI_COMM_SIZE(node, nranks, ierr)
  n = 40 + 16 * rank
  bytes = 8 * n
  call MPI_WIN_ALLOCATE_SHARED(bytes, 8, MPI_INFO_NULL, node, ptr, win, ierr)
  call c_f_pointer(transfer(ptr, c_null_ptr), mine, [n])
  call neighbour(mod(rank + nranks - 1, nranks), lft)
  call neighbour(mod(rank + 1, nranks), rgt)
  do i = 1, n
    mine(i) = dble(mod(rank * 37 + i * 11, 19))
  end do
  allocate (next(n))
  call MPI_WIN_LOCK_ALL(MPI_MODE_NOCHECK, win, ierr)
  call MPI_WIN_SYNC(win, ierr)
  call MPI_BARRIER(node, ierr)

  do step = 1, steps
    call ccc_checkpoint()
    do i = 1, n
      a = lft(size(lft))
      if (i > 1) a = mine(i - 1)
      b = rgt(1)
      if (i < n) b = mine(i + 1)
      next(i) = 0.5d0 * mine(i) + 0.25d0 * (a + b) + 1d-3 * (rank + 1)
    end do
    call MPI_WIN_SYNC(win, ierr)
    call MPI_BARRIER(node, ierr)
    mine = next
    call MPI_WIN_SYNC(win, ierr)
    call MPI_BARRIER(node, ierr)
  end do
  call MPI_WIN_UNLOCK_ALL(win, ierr)

  if (rank == 0) then
    total = 0
    weighted = 0
    do p = 0, nranks - 1
      call MPI_WIN_SHARED_QUERY(win, p, bytes, unit, ptr, ierr)
      call c_f_pointer(transfer(ptr, c_null_ptr), part, [int(bytes / 8)])
      do i = 1, size(part)
        total = total + part(i)
        weighted = weighted + part(i) * i * (p + 1)
      end do
    end do
    print '(a,i0,a,es24.16,a,es24.16)', 'parts ', nranks, ' sum ', total, &
      ' weighted ', weighted
  end if
  call MPI_WIN_FREE(win, ierr)
  call MPI_COMM_FREE(node, ierr)
  call MPI_FINALIZE(ierr)

contains

  subroutine neighbour(r, view)
    integer, intent(in) :: r
    real(8), pointer, intent(out) :: view(:)
    integer(kind=MPI_ADDRESS_KIND) :: nbytes, base
    integer :: du, e
    call MPI_WIN_SHARED_QUERY(win, r, nbytes, du, base, e)
    call c_f_pointer(transfer(base, c_null_ptr), view, [int(nbytes / 8)])
  end subroutine
end program
