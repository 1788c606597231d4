! hybrid.f90 - a hybrid MPI + OpenMP program in Fortran (flang's OpenMP,
! libomp) survives SIGKILL and restart with its output bit for bit: per
! step, a site on the main thread outside any parallel region, a
! `parallel do` with a static schedule and a reduction over an allocatable
! array of a module, tasks (one per block, then taskwait), a threadprivate
! module variable (flang reaches it through a cache libomp fills: the main
! thread's copy is the variable itself and carries; the workers get it by
! copyin) and a critical section, then MPI_ALLREDUCE. Integer arithmetic.
!   usage: hybrid_f STEPS   (OMP_NUM_THREADS=2)
module hybrid_state
  implicit none
  integer, parameter :: n = 32768, nblocks = 8
  integer(8), allocatable :: a(:)
  integer(8) :: tp = 0
  !$omp threadprivate(tp)
  integer(8) :: hist(0:7) = 0
end module

program hybrid_f
  use mpi
  use omp_lib
  use hybrid_state
  implicit none
  integer :: ierr, rank, got, s, i, t, b, next, steps
  integer(8) :: total, mix, global, trail, part(nblocks), p, mine
  character(len=32) :: arg

  call get_command_argument(1, arg)
  read (arg, *) steps
  call mpi_init_thread(MPI_THREAD_FUNNELED, got, ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (got < MPI_THREAD_FUNNELED .or. omp_get_max_threads() /= 2) then
    write (0, *) 'hybrid_f: thread level', got, 'threads', &
      omp_get_max_threads(), '(OMP_NUM_THREADS=2 expected)'
    call mpi_abort(MPI_COMM_WORLD, 2, ierr)
  end if
  allocate (a(n))
  do i = 1, n
    a(i) = int(i, 8) * (rank + 1)
  end do
  global = 0
  trail = 0  ! every step's result
  do s = 0, steps - 1
    call ccc_checkpoint()
    total = 0
    !$omp parallel do schedule(static) reduction(+:total)
    do i = 1, n
      a(i) = iand(a(i) * 1103515245_8 + 12345_8 + i, 2147483647_8)
      total = total + a(i)
    end do
    !$omp end parallel do
    ! flang 19 gives every task the loop's last value of a firstprivate
    ! variable (measured: all 8 tasks saw t = 9): each task takes its block
    ! from a shared counter instead.
    next = 0
    !$omp parallel
    !$omp single
    do t = 1, nblocks
      !$omp task private(b, p, i) shared(part, a, next)
      !$omp atomic capture
      next = next + 1
      b = next
      !$omp end atomic
      p = 0
      do i = b, n, nblocks
        p = ieor(p, a(i))
      end do
      part(b) = p
      !$omp end task
    end do
    !$omp taskwait
    !$omp end single
    !$omp end parallel
    tp = tp + 1
    !$omp parallel copyin(tp) private(mine)
    mine = tp * (omp_get_thread_num() + 1)
    !$omp critical
    hist(iand(mine + s, 7_8)) = hist(iand(mine + s, 7_8)) + mine
    !$omp end critical
    !$omp end parallel
    mix = total
    do t = 1, nblocks
      mix = ieor(ishftc(mix, 5), part(t))
    end do
    call mpi_allreduce(mix, global, 1, MPI_INTEGER8, MPI_BXOR, &
                       MPI_COMM_WORLD, ierr)
    trail = ieor(ishftc(trail, 7), global)
  end do
  if (rank == 0) then
    ! Printed at the end only: a killed run's output is lost.
    write (*, '(a,z16.16,a,z16.16,a,i8,a,8(1x,i0))') 'final ', global, &
      ' trail ', trail, ' tp', tp, ' hist', hist
  end if
  deallocate (a)
  call mpi_finalize(ierr)
end program
