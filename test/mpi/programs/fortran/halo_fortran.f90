! halo_fortran.f90 - proves a Fortran MPI program (mpif.h, the only MPI
! interface flang can use here) survives a restart: a 1-D periodic heat
! equation whose state lives in a module (allocatable arrays swapped with
! move_alloc every step, scalars), halo values exchanged with
! MPI_IRECV/MPI_ISEND/MPI_WAITALL, a token passed to the right with blocking
! MPI_SEND/MPI_RECV (even ranks send first) and MPI_ALLREDUCE with MPI_SUM
! and MPI_MAX every step. Even ranks checkpoint while their halo requests are
! pending; odd ranks between receiving the token and sending theirs. So the
! odd->even halo values are late messages and the even->odd tokens early
! ones.
!   usage: halo_fortran ITERATIONS
! Rank 0 prints an XOR hash of the field (the same at every rank count), the
! token hash, and the accumulated sums in hex (they depend on the rank count).

module halo_state
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 262144        ! global points
  integer :: rank, nranks, nloc, first, left, right
  real(8), allocatable :: u(:), unew(:), src(:)  ! u, unew: 0..nloc+1
  integer(8) :: token = 0
  real(8) :: energy = 0, maxchange = 0
contains
  ! xorshift64 twice: shifts only, so no integer overflow.
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

  ! A value in [0, 1) from a global position and a seed.
  pure function unit(seed, g) result(v)
    integer(8), intent(in) :: seed
    integer, intent(in) :: g
    real(8) :: v
    v = real(ishft(mix(ieor(seed, int(g, 8) + 1)), -11), 8) * 2.0d0**(-53)
  end function

  subroutine setup()
    integer :: i
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
  end subroutine

  subroutine update(lo, hi)
    integer, intent(in) :: lo, hi
    integer :: i
    do i = lo, hi
      unew(i) = u(i) + 0.25d0 * (u(i - 1) - 2 * u(i) + u(i + 1)) + src(i)
    end do
  end subroutine

  subroutine pass_token()
    integer :: ierr, status(MPI_STATUS_SIZE)
    integer(8) :: incoming
    if (mod(rank, 2) == 0) then
      call MPI_SEND(token, 1, MPI_INTEGER8, right, 3, MPI_COMM_WORLD, ierr)
      call MPI_RECV(incoming, 1, MPI_INTEGER8, left, 3, MPI_COMM_WORLD, &
                    status, ierr)
    else
      call MPI_RECV(incoming, 1, MPI_INTEGER8, left, 3, MPI_COMM_WORLD, &
                    status, ierr)
      call ccc_checkpoint()  ! the even rank sent this after its checkpoint
      call MPI_SEND(token, 1, MPI_INTEGER8, right, 3, MPI_COMM_WORLD, ierr)
    end if
    token = mix(ieor(incoming, transfer(unew(1), 0_8)))
  end subroutine

  subroutine step()
    integer :: req(4), ierr
    real(8) :: local(1), global(1)
    real(8), allocatable :: tmp(:)
    call MPI_IRECV(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, &
                   req(1), ierr)
    call MPI_IRECV(u(nloc + 1), 1, MPI_DOUBLE_PRECISION, right, 2, &
                   MPI_COMM_WORLD, req(2), ierr)
    call MPI_ISEND(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, &
                   req(3), ierr)
    call MPI_ISEND(u(nloc), 1, MPI_DOUBLE_PRECISION, right, 1, &
                   MPI_COMM_WORLD, req(4), ierr)
    if (mod(rank, 2) == 0) call ccc_checkpoint()  ! halo requests pending
    call update(2, nloc - 1)
    call MPI_WAITALL(4, req, MPI_STATUSES_IGNORE, ierr)
    call update(1, 1)
    call update(nloc, nloc)
    call pass_token()

    local(1) = sum(unew(1:nloc))
    call MPI_ALLREDUCE(local, global, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                       MPI_COMM_WORLD, ierr)
    energy = 0.5d0 * energy + global(1)
    local(1) = maxval(abs(unew(1:nloc) - u(1:nloc)))
    call MPI_ALLREDUCE(local, global, 1, MPI_DOUBLE_PRECISION, MPI_MAX, &
                       MPI_COMM_WORLD, ierr)
    maxchange = global(1)
    call move_alloc(u, tmp)
    call move_alloc(unew, u)
    call move_alloc(tmp, unew)
  end subroutine
end module

program halo_fortran
  use halo_state
  implicit none
  integer :: ierr, i
  integer(8) :: it, iters, hash, ghash, gtoken
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  iters = 1000
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  call setup()
  do it = 1, iters
    call step()
  end do

  hash = 0
  do i = 1, nloc
    hash = ieor(hash, mix(ieor(transfer(u(i), 0_8), mix(int(first + i, 8)))))
  end do
  call MPI_REDUCE(hash, ghash, 1, MPI_INTEGER8, MPI_BXOR, 0, &
                  MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(token, gtoken, 1, MPI_INTEGER8, MPI_BXOR, 0, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0)') 'halo_fortran: n=', n, ' ranks=', &
      nranks, ' iterations=', iters
    write (*, '(a,z16.16)') 'field hash ', ghash
    write (*, '(a,z16.16)') 'token hash ', gtoken
    write (*, '(a,z16.16,a,z16.16)') 'energy ', transfer(energy, 0_8), &
      ' maxchange ', transfer(maxchange, 0_8)
  end if
  deallocate(u, unew, src)
  call MPI_FINALIZE(ierr)
end program
