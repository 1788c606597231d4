C persistent_fortran.f - persistent requests in the Fortran 77 style of
C old stencil codes, across a restart: fixed form, mpif.h, the field in
C a COMMON block, halo columns exchanged along a periodic ring of ranks
C by persistent requests made once (MPI_RECV_INIT from both neighbours,
C MPI_SEND_INIT up, MPI_SSEND_INIT down), started each step by
C MPI_STARTALL and completed by MPI_WAITALL, or by MPI_START of each and
C MPI_WAIT, in turn. Every rank checkpoints after starting its receives
C and before starting its sends, so the receives are active at every
C checkpoint with nothing in flight to them. At the end
C MPI_REQUEST_FREE of each.
C   usage: persistent_fortran STEPS
C Rank 0 prints the global sum of the field and a checksum of it.
      PROGRAM PERSIS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NX, NY
      PARAMETER (NX = 256, NY = 32)
      DOUBLE PRECISION U(NX, 0:NY + 1), UNEW(NX, NY)
      COMMON /FIELD/ U, UNEW
      INTEGER REQ(4), STATS(MPI_STATUS_SIZE, 4)
      INTEGER RANK, NRANKS, IERR, UP, DOWN, S, I, J, K, STEPS
      DOUBLE PRECISION LOCAL, TOTAL, CSUM, CTOTAL
      CHARACTER*32 ARG

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NRANKS, IERR)
      STEPS = 1000
      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
        CALL GET_COMMAND_ARGUMENT(1, ARG)
        READ (ARG, *) STEPS
      END IF
      UP = MOD(RANK + NRANKS - 1, NRANKS)
      DOWN = MOD(RANK + 1, NRANKS)
      DO J = 0, NY + 1
        DO I = 1, NX
          U(I, J) = 0
        END DO
      END DO
      DO J = 1, NY
        DO I = 1, NX
          U(I, J) = DBLE(MOD(I * 7 + (RANK * NY + J) * 13, 101)) / 101
        END DO
      END DO

C     Columns 0 and NY + 1 are the halos.
      CALL MPI_RECV_INIT(U(1, 0), NX, MPI_DOUBLE_PRECISION, UP, 2,
     &                   MPI_COMM_WORLD, REQ(1), IERR)
      CALL MPI_RECV_INIT(U(1, NY + 1), NX, MPI_DOUBLE_PRECISION, DOWN,
     &                   1, MPI_COMM_WORLD, REQ(2), IERR)
      CALL MPI_SEND_INIT(U(1, 1), NX, MPI_DOUBLE_PRECISION, UP, 1,
     &                   MPI_COMM_WORLD, REQ(3), IERR)
      CALL MPI_SSEND_INIT(U(1, NY), NX, MPI_DOUBLE_PRECISION, DOWN, 2,
     &                    MPI_COMM_WORLD, REQ(4), IERR)

      DO S = 1, STEPS
C       Receives started before the checkpoint, sends after it.
        IF (MOD(S, 2) .EQ. 0) THEN
          CALL MPI_STARTALL(2, REQ, IERR)
          CALL CCC_CHECKPOINT()
          CALL MPI_STARTALL(2, REQ(3), IERR)
        ELSE
          CALL MPI_START(REQ(1), IERR)
          CALL MPI_START(REQ(2), IERR)
          CALL CCC_CHECKPOINT()
          CALL MPI_START(REQ(3), IERR)
          CALL MPI_START(REQ(4), IERR)
        END IF
        IF (MOD(S, 2) .EQ. 0) THEN
          CALL MPI_WAITALL(4, REQ, STATS, IERR)
        ELSE
          DO K = 1, 4
            CALL MPI_WAIT(REQ(K), STATS(1, K), IERR)
          END DO
        END IF
        IF (STATS(MPI_SOURCE, 1) .NE. UP) THEN
          PRINT *, 'persistent_fortran: bad status source',
     &             STATS(MPI_SOURCE, 1)
          CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)
        END IF
        DO J = 1, NY
          DO I = 1, NX
            UNEW(I, J) = 0.25D0 * (U(I, J - 1) + U(I, J + 1)
     &                 + U(MOD(I, NX) + 1, J)
     &                 + U(MOD(I + NX - 2, NX) + 1, J)) + 1D-3
          END DO
        END DO
        DO J = 1, NY
          DO I = 1, NX
            U(I, J) = UNEW(I, J)
          END DO
        END DO
      END DO

      DO K = 1, 4
        CALL MPI_REQUEST_FREE(REQ(K), IERR)
      END DO
      LOCAL = 0
      CSUM = 0
      DO J = 1, NY
        DO I = 1, NX
          LOCAL = LOCAL + U(I, J)
          CSUM = CSUM + U(I, J) * DBLE(MOD(I + (RANK * NY + J) * 3, 17))
        END DO
      END DO
      CALL MPI_REDUCE(LOCAL, TOTAL, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      CALL MPI_REDUCE(CSUM, CTOTAL, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &                MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
        WRITE (*, '(A, I3, A, I6, A)') 'persistent_fortran:', NRANKS,
     &    ' ranks,', STEPS, ' steps'
        WRITE (*, '(A, Z16.16)') 'sum bits ', TOTAL
        WRITE (*, '(A, Z16.16)') 'checksum bits ', CTOTAL
        WRITE (*, '(A, I3)') 'requests freed, last is null: ',
     &    MERGE(1, 0, REQ(4) .EQ. MPI_REQUEST_NULL)
      END IF
      CALL MPI_FINALIZE(IERR)
      END
