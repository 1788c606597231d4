! relax_module.f90 - Jacobi relaxation of a 1-D bar split over the ranks,
! in modern Fortran: the state lives in a module, `use mpi` and `use ccc`,
! rank 0 writes progress with write(*,...) and every rank writes its part
! of the solution to its own file at the end. A checkpoint hook (a module
! subroutine) flushes standard output. Under `ckpt run` with injected
! failures the output and the files must equal an uninterrupted run's.
!   usage: relax_module STEPS CELLS
module bar
  implicit none
  integer :: nsteps = 3000, ncells = 2000
  double precision, allocatable :: u(:), v(:)
  integer :: hooks = 0
contains
  subroutine flush_output()
    flush(6)
    hooks = hooks + 1
  end subroutine
end module bar

program relax_module
  use mpi
  use ccc
  use bar
  implicit none
  integer :: ierr, rank, nranks, left, right, step, i
  integer :: status(MPI_STATUS_SIZE)
  double precision :: res, total
  character(len=32) :: arg
  character(len=64) :: fname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (command_argument_count() >= 2) then
    call get_command_argument(1, arg)
    read (arg, *) nsteps
    call get_command_argument(2, arg)
    read (arg, *) ncells
  end if
  left = rank - 1
  right = rank + 1
  if (left < 0) left = MPI_PROC_NULL
  if (right >= nranks) right = MPI_PROC_NULL
  call ccc_on_checkpoint(flush_output)

  allocate (u(0:ncells + 1), v(0:ncells + 1))
  u = 0d0
  if (rank == 0) u(0) = 1d0
  if (rank == nranks - 1) u(ncells + 1) = -1d0
  do step = 1, nsteps
    call ccc_checkpoint()
    call MPI_Sendrecv(u(ncells), 1, MPI_DOUBLE_PRECISION, right, 1, &
                      u(0), 1, MPI_DOUBLE_PRECISION, left, 1, &
                      MPI_COMM_WORLD, status, ierr)
    call MPI_Sendrecv(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, &
                      u(ncells + 1), 1, MPI_DOUBLE_PRECISION, right, 2, &
                      MPI_COMM_WORLD, status, ierr)
    do i = 1, ncells
      v(i) = 0.5d0 * (u(i - 1) + u(i + 1))
    end do
    res = sum(abs(v(1:ncells) - u(1:ncells)))
    u(1:ncells) = v(1:ncells)
    call MPI_Allreduce(res, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                       MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. mod(step, 100) == 0) &
      write (*, '(a,i6,a,es22.14)') 'step ', step, ' residual ', total
  end do
  write (fname, '(a,i0,a)') 'relax.', rank, '.out'
  open (unit=20, file=fname, status='replace', action='write')
  do i = 1, ncells, 50
    write (20, '(i6,es24.16)') i, u(i)
  end do
  close (20)
  if (rank == 0) write (*, '(a,es24.16)') 'relaxed, u(1) = ', u(1)
  write (0, '(a,i0,a,i0,a)') 'rank ', rank, ': checkpoint hook ran ', &
    hooks, ' times'
  deallocate (u, v)
  call MPI_Finalize(ierr)
end program relax_module
