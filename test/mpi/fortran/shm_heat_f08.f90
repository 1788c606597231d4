! shm_heat_f08.f90 - MPI+MPI shared memory from `use mpi_f08` under the
! non-blocking protocol (issue 46, item 6), in the style of the PRK MPISHM
! kernels: the ranks of a node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED)
! hold a 1-D rod in one MPI_Win_allocate_shared window, each rank its own
! segment (of unequal sizes), and see their neighbours' segments through
! MPI_Win_shared_query and C_F_POINTER. Each step every rank reads the
! neighbours' edge cells by plain loads, updates its own cells, and orders
! the stores with the loads by MPI_Win_sync, MPI_Barrier, MPI_Win_sync, in a
! lock_all epoch (MPI_MODE_NOCHECK) held across every checkpoint; a
! counter in the first cell of rank 0's segment is bumped by
! MPI_Fetch_and_op. ccc_checkpoint() opens each step on every rank: the
! window's members checkpoint together there.
!   usage: shm_heat_f08 STEPS
! Rank 0 prints the counter and checksums of every segment.
program shm_heat_f08
  use mpi_f08
  use iso_c_binding
  implicit none
  interface
    subroutine ccc_checkpoint() bind(C, name="ccc_checkpoint")
    end subroutine
  end interface
  type(MPI_Comm) :: node
  type(MPI_Win) :: win
  type(c_ptr) :: base, lbase, rbase, cbase
  integer :: rank, nranks, left, right, n, ln, rn, step, steps, i, unit
  integer(kind=MPI_ADDRESS_KIND) :: bytes, lbytes, rbytes, cbytes, zero
  real(8), pointer :: mine(:), lft(:), rgt(:), ctr(:)
  real(8), allocatable :: next(:)
  real(8) :: one, old, total, weighted, sums(2), all(2)
  character(len=32) :: arg

  call MPI_Init()
  steps = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, &
                           MPI_INFO_NULL, node)
  call MPI_Comm_rank(node, rank)
  call MPI_Comm_size(node, nranks)
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  n = 24 + 8 * rank
  bytes = 8 * n
  call MPI_Win_allocate_shared(bytes, 8, MPI_INFO_NULL, node, base, win)
  call c_f_pointer(base, mine, [n])
  call MPI_Win_shared_query(win, left, lbytes, unit, lbase)
  call MPI_Win_shared_query(win, right, rbytes, unit, rbase)
  call MPI_Win_shared_query(win, 0, cbytes, unit, cbase)
  ln = int(lbytes / 8)
  rn = int(rbytes / 8)
  call c_f_pointer(lbase, lft, [ln])
  call c_f_pointer(rbase, rgt, [rn])
  call c_f_pointer(cbase, ctr, [1])
  do i = 1, n
    mine(i) = dble(mod(rank * 29 + i * 13, 23))
  end do
  if (rank == 0) mine(1) = 0
  allocate (next(n))
  call MPI_Win_lock_all(MPI_MODE_NOCHECK, win)
  call MPI_Win_sync(win)
  call MPI_Barrier(node)
  call MPI_Win_sync(win)

  one = 1
  zero = 0
  do step = 1, steps
    call ccc_checkpoint()
    ! Rank 0's first cell is the counter, not part of the rod.
    do i = 1, n
      if (rank == 0 .and. i == 1) then
        next(i) = mine(i)
        cycle
      end if
      if (i > 1 .and. .not. (rank == 0 .and. i == 2)) then
        next(i) = 0.25d0 * mine(i - 1) + 0.5d0 * mine(i)
      else
        next(i) = 0.25d0 * lft(ln) + 0.5d0 * mine(i)
      end if
      if (i < n) then
        next(i) = next(i) + 0.25d0 * mine(i + 1)
      else if (right == 0) then
        next(i) = next(i) + 0.25d0 * rgt(2)
      else
        next(i) = next(i) + 0.25d0 * rgt(1)
      end if
    end do
    ! Every load of this step before any store.
    call MPI_Win_sync(win)
    call MPI_Barrier(node)
    call MPI_Win_sync(win)
    do i = 1, n
      if (rank /= 0 .or. i /= 1) mine(i) = next(i)
    end do
    call MPI_Fetch_and_op(one, old, MPI_DOUBLE_PRECISION, 0, zero, MPI_SUM, &
                          win)
    call MPI_Win_flush(0, win)
    ! Every store (and every count) of this step before the next loads.
    call MPI_Win_sync(win)
    call MPI_Barrier(node)
    call MPI_Win_sync(win)
  end do
  call MPI_Win_unlock_all(win)

  total = 0
  weighted = 0
  do i = 1, n
    if (rank == 0 .and. i == 1) cycle
    total = total + mine(i)
    weighted = weighted + mine(i) * i
  end do
  sums = [total, weighted]
  call MPI_Reduce(sums, all, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, node)
  if (rank == 0) then
    print '(a, i0, a, i0)', 'ranks ', nranks, ' counter ', nint(ctr(1))
    print '(a, z16.16, a, z16.16)', 'sum ', transfer(all(1), 0_8), &
          ' weighted ', transfer(all(2), 0_8)
  end if
  call MPI_Win_free(win)
  call MPI_Comm_free(node)
  call MPI_Finalize()
end program
