! diffusion.f90 - 3-D heat diffusion in a heterogeneous medium: explicit
! Jacobi sweeps of div(k grad u) + f with a conductivity k per point, planes
! split over the ranks (bench/size). Modern Fortran: the state is a
! module's allocatable arrays, the new field is swapped in by move_alloc.
!
! At the site: u (with ghost planes), the conductivity k (with ghost
! planes, computed, not exchanged) and the source f are live; k and f are
! written once. unew (overwritten whole before it is read, then swapped
! with u) and flux (a diagnostic temporary) are dead.
! usage: diffusion [MB per rank] [steps]
!
! The measurement moment is moment.h's, through moment_f.c (bind(c)); the
! site is here, as in a real code. Preprocessed (-cpp): the plain build
! (-DBENCH_PLAIN, unless -DBENCH_NO_ORACLE: bench/overhead) names the live
! arrays for the oracle and stops at the moment for run.py's system-level
! images, the build with the
! author's promises (-DBENCH_PROMISES) makes them; the ccc build without
! either holds no call that passes an array's address out (the pass's
! analysis alone).
module diffusion_state
  use mpi
  use, intrinsic :: iso_c_binding, only: c_double, c_int, c_int64_t, c_long
  implicit none
  integer, parameter :: nx = 160, ny = 160
  integer :: rank, nranks, nz, up, down
  ! u, unew, k: (nx, ny, 0:nz + 1); f, flux: (nx, ny, nz).
  real(8), allocatable :: u(:, :, :), unew(:, :, :), k(:, :, :)
  real(8), allocatable :: f(:, :, :), flux(:, :, :)

  interface
    function bench_forced(step) bind(c, name="bench_forced_f")
      import :: c_int, c_long
      integer(c_long), value :: step
      integer(c_int) :: bench_forced
    end function
    subroutine bench_after_site(step, rank, oracle) &
        bind(c, name="bench_after_site_f")
      import :: c_double, c_int, c_long
      integer(c_long), value :: step
      integer(c_int), value :: rank
      real(c_double), value :: oracle
    end subroutine
    ! moment.h's bench_exclude / bench_include (BENCH_EXCLUDE=1): a is
    ! the first element of the memory (sequence association: its address).
    subroutine bench_exclude(a, nbytes) bind(c, name="bench_exclude_f")
      import :: c_double, c_int64_t
      real(c_double), intent(in) :: a(*)
      integer(c_int64_t), value :: nbytes
    end subroutine
    subroutine bench_include(a) bind(c, name="bench_include_f")
      import :: c_double
      real(c_double), intent(in) :: a(*)
    end subroutine
    subroutine bench_live(a, nbytes) bind(c, name="bench_live_f")
      import :: c_double, c_int64_t
      real(c_double), intent(in) :: a(*)
      integer(c_int64_t), value :: nbytes
    end subroutine
    function bench_noise(g) bind(c, name="bench_noise_f")
      import :: c_double, c_int64_t
      integer(c_int64_t), value :: g
      real(c_double) :: bench_noise
    end function
  end interface

contains
  ! Sizes the arrays to mb MB per rank in all (five arrays of nz planes).
  subroutine setup(mb)
    real(8), intent(in) :: mb
    integer :: x, y, z, gz
    integer(8) :: g
    nz = max(2, int(mb * 1048576d0 / (real(nx * ny, 8) * 5 * 8)))
    up = merge(rank + 1, MPI_PROC_NULL, rank + 1 < nranks)
    down = merge(rank - 1, MPI_PROC_NULL, rank > 0)
    allocate(u(nx, ny, 0:nz + 1), unew(nx, ny, 0:nz + 1))
    allocate(k(nx, ny, 0:nz + 1), f(nx, ny, nz), flux(nx, ny, nz))
    ! Ghost planes of u and unew at the ends of the domain stay 0 (a cold
    ! wall); inner ones are received every step.
    u = 0
    unew = 0
    do z = 0, nz + 1
      gz = rank * nz + z
      do y = 1, ny
        do x = 1, nx
          ! A smooth variation times hashed noise: a heterogeneous medium,
          ! as incompressible as measured data; the ghost planes hold the
          ! neighbours' values (the same function of the global index).
          g = (int(gz, 8) * ny + y) * nx + x
          k(x, y, z) = (1 + 0.5d0 * sin(1d-3 * real(g, 8))) * &
                       (0.75d0 + 0.5d0 * bench_noise(g))
        end do
      end do
    end do
    do z = 1, nz
      gz = rank * nz + z
      do y = 1, ny
        do x = 1, nx
          f(x, y, z) = 1d-3 * exp(-((x - 80d0)**2 + (y - 80d0)**2 + &
                                    (gz - 40d0)**2) / 800d0)
          u(x, y, z) = 0.1d0 * sin(0.05d0 * x) * cos(0.05d0 * y)
        end do
      end do
    end do
  end subroutine

  ! The boundary planes of u to the neighbours, theirs into the ghosts.
  subroutine exchange()
    integer :: ierr
    call MPI_SENDRECV(u(1, 1, nz), nx * ny, MPI_DOUBLE_PRECISION, up, 1, &
                      u(1, 1, 0), nx * ny, MPI_DOUBLE_PRECISION, down, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_SENDRECV(u(1, 1, 1), nx * ny, MPI_DOUBLE_PRECISION, down, 2, &
                      u(1, 1, nz + 1), nx * ny, MPI_DOUBLE_PRECISION, up, 2, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  end subroutine

  ! Heat flowing from neighbour n into c through their common face (the
  ! face's conductivity: the mean of the two).
  pure real(8) function inflow(kc, kn, uc, un)
    real(8), intent(in) :: kc, kn, uc, un
    inflow = 0.5d0 * (kc + kn) * (un - uc)
  end function

  ! One sweep into unew (insulated sides in x and y: no flow through them);
  ! returns the sum of the upward flux, a diagnostic.
  subroutine sweep(local)
    real(8), intent(out) :: local
    integer :: x, y, z
    real(8) :: c, kc, s
    do z = 1, nz
      do y = 1, ny
        do x = 1, nx
          c = u(x, y, z)
          kc = k(x, y, z)
          s = inflow(kc, k(x, y, z - 1), c, u(x, y, z - 1)) + &
              inflow(kc, k(x, y, z + 1), c, u(x, y, z + 1))
          if (x > 1) s = s + inflow(kc, k(x - 1, y, z), c, u(x - 1, y, z))
          if (x < nx) s = s + inflow(kc, k(x + 1, y, z), c, u(x + 1, y, z))
          if (y > 1) s = s + inflow(kc, k(x, y - 1, z), c, u(x, y - 1, z))
          if (y < ny) s = s + inflow(kc, k(x, y + 1, z), c, u(x, y + 1, z))
          ! 0.1 x 6 faces x k < 1.5: stable.
          unew(x, y, z) = c + 0.1d0 * s + f(x, y, z)
          flux(x, y, z) = inflow(kc, k(x, y, z + 1), c, u(x, y, z + 1))
        end do
      end do
    end do
    local = 0
    do z = 1, nz
      do y = 1, ny
        do x = 1, nx
          local = local + flux(x, y, z)
        end do
      end do
    end do
  end subroutine
end module

program diffusion
  use diffusion_state
  implicit none
  integer :: ierr, step, steps, z
  real(8) :: mb, oracle, local, total, usum
  real(8), allocatable :: tmp(:, :, :)
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  mb = 120
  steps = 40
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) mb
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) steps
  end if
  call setup(mb)
  ! Live at the site: u and k with their ghost planes, f.
  oracle = 8d0 * nx * ny * (2d0 * (nz + 2) + nz)
#ifdef BENCH_PROMISES
  ! What the author knows: flux is recomputed whole every step, and unew's
  ! interior planes are rewritten by the next sweep (its ghost planes
  ! become u's: kept). unew is another array after each move_alloc, so its
  ! promise is withdrawn after the site. (The pass proves the same.)
  call bench_exclude(flux(1, 1, 1), int(8 * size(flux, kind=8), c_int64_t))
#endif
  total = 0
  do step = 0, steps - 1
#ifdef BENCH_PROMISES
    call bench_exclude(unew(1, 1, 1), int(8 * nx * ny, c_int64_t) * nz)
#endif
#if defined(BENCH_PLAIN) && !defined(BENCH_NO_ORACLE)
    call bench_live(u(1, 1, 0), int(8 * size(u, kind=8), c_int64_t))
    call bench_live(k(1, 1, 0), int(8 * size(k, kind=8), c_int64_t))
    call bench_live(f(1, 1, 1), int(8 * size(f, kind=8), c_int64_t))
#endif
    if (bench_forced(int(step, c_long)) /= 0) then
      call ccc_checkpoint_force()
    else
      call ccc_checkpoint()
    end if
#if defined(BENCH_PLAIN) && !defined(BENCH_NO_ORACLE)
    ! The moment's handshake (run.py images the plain build; in a ccc build
    ! it does nothing, and as a call of unseen code it would keep the pass
    ! from proving anything dead across it).
    call bench_after_site(int(step, c_long), rank, oracle)
#endif
#ifdef BENCH_PROMISES
    call bench_include(unew(1, 1, 1))
#endif
    call exchange()
    call sweep(local)
    call MPI_ALLREDUCE(MPI_IN_PLACE, local, 1, MPI_DOUBLE_PRECISION, &
                       MPI_SUM, MPI_COMM_WORLD, ierr)
    total = total + local
    call move_alloc(u, tmp)
    call move_alloc(unew, u)
    call move_alloc(tmp, unew)
  end do
  usum = 0
  do z = 1, nz
    usum = usum + sum(u(:, :, z))
  end do
  call MPI_ALLREDUCE(MPI_IN_PLACE, usum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,i0,a,es21.13e3,a,es14.6e3)') 'diffusion: ', &
    nx * ny * nz, ' points per rank, sum(u) ', usum, ', flux ', total
  call MPI_FINALIZE(ierr)
end program
