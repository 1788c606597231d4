C legacy_mpi1_fortran.f - the MPI-1 style of old Fortran codes across
C a restart: fixed form, mpif.h, a COMMON block sent as one datatype
C made by MPI_TYPE_STRUCT from MPI_ADDRESS differences, with MPI_LB and
C MPI_UB markers setting its bounds; MPI_TYPE_HVECTOR and
C MPI_TYPE_HINDEXED types; MPI_TYPE_EXTENT/LB/UB printed before and
C after the checkpoints; MPI_ERRHANDLER_SET(MPI_COMM_WORLD,
C MPI_ERRORS_RETURN) still in force after a restart (an invalid call at
C the end returns MPI_ERR_TYPE instead of aborting); MPI_ATTR_GET of
C MPI_TAG_UB.
C   usage: legacy_mpi1_fortran ITERATIONS   (at least 2 ranks)
C Rank 0 prints the bounds, the error class and a hash of all it
C received.
      PROGRAM LEGACY
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NP
      PARAMETER (NP = 8)
      INTEGER IDS(NP), IRECV(NP)
      DOUBLE PRECISION XS(3, NP), XRECV(3, NP), XCOL(3, NP / 2)
      COMMON /PART/ IDS, XS
      COMMON /RECV/ IRECV, XRECV
      INTEGER RANK, NRANKS, IERR, NEXT, PREV, IT, I, K, ITERS
      INTEGER BLOCKS(4), DISPS(4), TYPES(4), BASE, ADDR
      INTEGER HBLK(3), HDSP(3), IHX(4)
      INTEGER TPART, TCOL, THIX, STATUS(MPI_STATUS_SIZE)
      INTEGER EXT, LB, UB, TAGUB, ICLASS, IERR2, IEH
      INTEGER BEFORE(6, 3), AFTER(6, 3)
      LOGICAL FLAG
      INTEGER*8 HASH, ALL, MIX
      CHARACTER*32 ARG
      EXTERNAL MIX

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NRANKS, IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      ITERS = 1000
      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
        CALL GET_COMMAND_ARGUMENT(1, ARG)
        READ (ARG, *) ITERS
      END IF
      NEXT = MOD(RANK + 1, NRANKS)
      PREV = MOD(RANK + NRANKS - 1, NRANKS)

C     /PART/ as one datatype: lb 8 bytes before IDS, ub 16 after XS.
      CALL MPI_ADDRESS(IDS, BASE, IERR)
      BLOCKS(1) = 1
      TYPES(1) = MPI_LB
      DISPS(1) = -8
      BLOCKS(2) = NP
      TYPES(2) = MPI_INTEGER
      DISPS(2) = 0
      CALL MPI_ADDRESS(XS, ADDR, IERR)
      BLOCKS(3) = 3 * NP
      TYPES(3) = MPI_DOUBLE_PRECISION
      DISPS(3) = ADDR - BASE
      CALL MPI_ADDRESS(XS(3, NP), ADDR, IERR)
      BLOCKS(4) = 1
      TYPES(4) = MPI_UB
      DISPS(4) = ADDR - BASE + 8 + 16
      CALL MPI_TYPE_STRUCT(4, BLOCKS, DISPS, TYPES, TPART, IERR)
      CALL MPI_TYPE_COMMIT(TPART, IERR)
C     X of every other particle.
      CALL MPI_TYPE_HVECTOR(NP / 2, 3, 48, MPI_DOUBLE_PRECISION, TCOL,
     &                      IERR)
      CALL MPI_TYPE_COMMIT(TCOL, IERR)
C     IDS(1), IDS(3), IDS(6:7).
      HBLK(1) = 1
      HBLK(2) = 1
      HBLK(3) = 2
      HDSP(1) = 0
      HDSP(2) = 8
      HDSP(3) = 20
      CALL MPI_TYPE_HINDEXED(3, HBLK, HDSP, MPI_INTEGER, THIX, IERR)
      CALL MPI_TYPE_COMMIT(THIX, IERR)
C     Kept in the image, printed at the end.
      CALL BOUNDS(TPART, BEFORE(1, 1))
      CALL BOUNDS(TCOL, BEFORE(1, 2))
      CALL BOUNDS(THIX, BEFORE(1, 3))

      HASH = 0
      DO IT = 0, ITERS - 1
        DO I = 1, NP
          IDS(I) = IT * NP + I + RANK
          DO K = 1, 3
            XS(K, I) = DBLE(IT + I) * 0.5D0 + K + RANK
          END DO
        END DO
        CALL MPI_SENDRECV(IDS, 1, TPART, NEXT, 1, IRECV, 1, TPART,
     &                    PREV, 1, MPI_COMM_WORLD, STATUS, IERR)
        CALL MPI_SENDRECV(XS, 1, TCOL, NEXT, 2, XCOL, 3 * (NP / 2),
     &                    MPI_DOUBLE_PRECISION, PREV, 2, MPI_COMM_WORLD,
     &                    STATUS, IERR)
        CALL MPI_SENDRECV(IDS, 1, THIX, NEXT, 3, IHX, 4, MPI_INTEGER,
     &                    PREV, 3, MPI_COMM_WORLD, STATUS, IERR)
        DO I = 1, NP
          HASH = MIX(IEOR(HASH, INT(IRECV(I), 8)))
          HASH = MIX(IEOR(HASH, INT(XRECV(1, I) + 3 * XRECV(2, I)
     &                              + 7 * XRECV(3, I), 8)))
        END DO
        DO I = 1, NP / 2
          HASH = MIX(IEOR(HASH, INT(XCOL(1, I) * 4 + XCOL(3, I), 8)))
        END DO
        DO I = 1, 4
          HASH = MIX(IEOR(HASH, INT(IHX(I), 8)))
        END DO
        CALL CCC_CHECKPOINT()
      END DO

C     Still MPI_ERRORS_RETURN after a restart: an error code, no abort.
      CALL MPI_TYPE_EXTENT(MPI_DATATYPE_NULL, EXT, IERR2)
      CALL MPI_ERROR_CLASS(IERR2, ICLASS, IERR)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, IEH, IERR)
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, TAGUB, FLAG, IERR)
      CALL MPI_REDUCE(HASH, ALL, 1, MPI_INTEGER8, MPI_BXOR, 0,
     &                MPI_COMM_WORLD, IERR)
      CALL BOUNDS(TPART, AFTER(1, 1))
      CALL BOUNDS(TCOL, AFTER(1, 2))
      CALL BOUNDS(THIX, AFTER(1, 3))
      IF (RANK .EQ. 0) THEN
        WRITE (*, '(A)') 'extent lb ub (errors) of struct hvector '
     &    // 'hindexed, before the checkpoints and after:'
        WRITE (*, '(3I8,3I3)') BEFORE
        WRITE (*, '(3I8,3I3)') AFTER
        WRITE (*, '(A,L2,A,L2)') 'MPI_ERR_TYPE:',
     &    ICLASS .EQ. MPI_ERR_TYPE,
     &    ' MPI_ERRORS_RETURN:', IEH .EQ. MPI_ERRORS_RETURN
        WRITE (*, '(A,L2,A,L2)') 'tag ub found:', FLAG,
     &    ' at least 32767:', TAGUB .GE. 32767
        WRITE (*, '(A,Z16.16)') 'hash ', ALL
      END IF
      CALL MPI_TYPE_FREE(THIX, IERR)
      CALL MPI_TYPE_FREE(TCOL, IERR)
      CALL MPI_TYPE_FREE(TPART, IERR)
      CALL MPI_FINALIZE(IERR)
      END

C     V: extent, lb, ub of T and the three calls' error codes.
      SUBROUTINE BOUNDS(T, V)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER T, V(6)
      V(1) = -1
      V(2) = -1
      V(3) = -1
      CALL MPI_TYPE_EXTENT(T, V(1), V(4))
      CALL MPI_TYPE_LB(T, V(2), V(5))
      CALL MPI_TYPE_UB(T, V(3), V(6))
      END

C     xorshift64 twice: shifts only, so no integer overflow.
      INTEGER*8 FUNCTION MIX(X)
      IMPLICIT NONE
      INTEGER*8 X, Y
      INTEGER K
      Y = X
      DO K = 1, 2
        Y = IEOR(Y, ISHFT(Y, 13))
        Y = IEOR(Y, ISHFT(Y, -7))
        Y = IEOR(Y, ISHFT(Y, 17))
      END DO
      MIX = Y
      END
