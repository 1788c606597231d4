! common_step_f77.f - issue 18 in a Fortran 77 style MPI code (fixed form,
! INCLUDE 'mpif.h', state in COMMON blocks): the time-step loop calls STEP,
! whose 32 KiB local Z is overwritten whole after the call to EXCH, which
! checkpoints (CCC_CHECKPOINT, collective) and sums U over the ranks
! (MPI_ALLREDUCE); EXCH is in another file (common_step_f77_exch.f), as in
! such codes, so it stays a call at every -O level (in one file the
! optimizer inlines it and Z becomes a local of the site's own function).
! The pass records Z as dead while EXCH runs, so images
! leave it out; ckpt-fc used to abort compiling this in flang's backend.
! H, a 4 KiB history taken before the call and read after it, stays saved:
! a record with a wrong offset would lose it and change the output.
!   usage: common_step_f77 STEPS
! Rank 0 prints the weighted sum of U over all ranks and T.
      PROGRAM CSTEP
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N
      PARAMETER (N = 4096)
      DOUBLE PRECISION U(N), T, S, SALL
      INTEGER RANK, NRANKS
      COMMON /STATE/ U, T
      COMMON /PAR/ RANK, NRANKS
      INTEGER IT, NIT, I, IERR
      CHARACTER*32 ARG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NRANKS, IERR)
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) NIT
      DO 10 I = 1, N
         U(I) = DBLE(MOD(I * 7 + RANK * 13, 101)) / 101D0
   10 CONTINUE
      T = 0
      DO 20 IT = 1, NIT
         CALL STEP(IT)
   20 CONTINUE
      S = 0
      DO 30 I = 1, N
         S = S + U(I) * I
   30 CONTINUE
      CALL MPI_ALLREDUCE(S, SALL, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) WRITE (*, '(A, ES24.16, A, ES24.16)')
     &   'SUM ', SALL, ' T ', T
      CALL MPI_FINALIZE(IERR)
      END

! One time step: the shape of issue 18 (a >= 4 KiB local overwritten whole
! after a call that may reach a site).
      SUBROUTINE STEP(IT)
      IMPLICIT NONE
      INTEGER IT, I, K, N
      PARAMETER (N = 4096)
      DOUBLE PRECISION U(N), T, Z(N), H(512)
      COMMON /STATE/ U, T
      DO 5 K = 1, 512
         H(K) = U(K * 8)
    5 CONTINUE
      CALL EXCH(IT)
      DO 10 I = 1, N
         Z(I) = U(I) + T
   10 CONTINUE
      DO 20 I = 1, N
         U(I) = 0.5D0 * Z(N + 1 - I) + 0.25D0 * H(MOD(I - 1, 512) + 1)
   20 CONTINUE
      END
