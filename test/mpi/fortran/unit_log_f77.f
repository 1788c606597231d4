! unit_log_f77.f - a Fortran 77 style MPI code (fixed form, INCLUDE
! 'mpif.h', state in COMMON) keeping its log units open across the time
! loop (rt/files/FortranUnits.cpp): each rank opens unit 10 (log.RANK.txt)
! before the loop and writes a list-directed line every step; rank 0 also
! writes an edited line to unit 11 (hist.txt) every 10 steps. SIGKILL and
! restart must leave the files byte-identical to an uninterrupted plain
! run's.
!   usage: unit_log_f77 STEPS
      PROGRAM ULOG
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER N
      PARAMETER (N = 256)
      DOUBLE PRECISION U(N), T
      INTEGER RANK, NRANKS
      COMMON /STATE/ U, T
      COMMON /PAR/ RANK, NRANKS
      INTEGER IT, NIT, I, IERR
      DOUBLE PRECISION S, SALL
      CHARACTER*32 ARG, FNAME
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NRANKS, IERR)
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) NIT
      WRITE (FNAME, '(A, I0, A)') 'log.', RANK, '.txt'
      OPEN (10, FILE=FNAME, STATUS='REPLACE')
      IF (RANK .EQ. 0) OPEN (11, FILE='hist.txt', STATUS='REPLACE',
     &                       FORM='FORMATTED', ACTION='WRITE')
      DO 10 I = 1, N
         U(I) = DBLE(MOD(I * 7 + RANK * 13, 101)) / 101D0
   10 CONTINUE
      T = 0
      DO 30 IT = 1, NIT
         DO 20 I = 2, N - 1
            U(I) = U(I) + 0.25D0 * (U(I - 1) - 2 * U(I) + U(I + 1))
   20    CONTINUE
         T = T + 1D-3
         S = 0
         DO 25 I = 1, N
            S = S + U(I) * I
   25    CONTINUE
         CALL MPI_ALLREDUCE(S, SALL, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                      MPI_COMM_WORLD, IERR)
         WRITE (10, *) IT, T, S, SALL
         IF (RANK .EQ. 0 .AND. MOD(IT, 10) .EQ. 0)
     &      WRITE (11, '(I8, 1X, ES24.16)') IT, SALL
         CALL CCC_CHECKPOINT()
   30 CONTINUE
      CLOSE (10)
      IF (RANK .EQ. 0) CLOSE (11)
      IF (RANK .EQ. 0) WRITE (*, '(A, ES24.16)') 'SUM ', SALL
      CALL MPI_FINALIZE(IERR)
      END
