! module_free_step.f90 - issue 18 in free form: an MPI program (mpif.h,
! state in a COMMON block) whose time-step loop calls relax, which calls
! exchange (module_free_step_exch.f90: the site, every rank, every step,
! and MPI_ALLREDUCE) and then overwrites its 32 KiB local w whole by an
! array assignment before reading it. The pass records w as dead while
! exchange runs, so images leave it out; ckpt-fc used to abort compiling
! this in flang's backend. edge, taken before the call and read after it,
! stays saved.
!   usage: module_free_step STEPS
! Rank 0 prints the weighted sum of g over all ranks and t.
program module_free_step
  implicit none
  include 'mpif.h'
  integer, parameter :: m = 64
  real(8) :: g(m, m), t, s, sall
  integer :: rank, nranks
  common /grid/ g, t
  common /par/ rank, nranks
  integer :: it, nit, i, j, ierr
  character(len=32) :: arg
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) nit
  do j = 1, m
    do i = 1, m
      g(i, j) = dble(mod(i * 7 + j * 3 + rank * 13, 101)) / 101d0
    end do
  end do
  t = 0
  do it = 1, nit
    call relax(it)
  end do
  s = 0
  do j = 1, m
    do i = 1, m
      s = s + g(i, j) * (i + m * (j - 1))
    end do
  end do
  call MPI_ALLREDUCE(s, sall, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a, es24.16, a, es24.16)') 'sum ', sall, ' t ', t
  call MPI_FINALIZE(ierr)
end program

! The shape of issue 18, in free form with a 2-D local.
subroutine relax(it)
  implicit none
  integer, intent(in) :: it
  integer, parameter :: m = 64
  real(8) :: g(m, m), t
  common /grid/ g, t
  real(8) :: w(m, m), edge(m)
  integer :: i, j
  edge = g(:, 1)
  call exchange(it)
  w = g + t
  do j = 1, m
    do i = 1, m
      g(i, j) = 0.5d0 * w(m + 1 - i, m + 1 - j) + 0.25d0 * edge(i)
    end do
  end do
end subroutine
