! records_f77.f - MPI-IO in a Fortran 77 style code (fixed form, INCLUDE
! 'mpif.h', state in COMMON): every rank keeps a record of NREC values,
! checkpoints (CCC_CHECKPOINT) at every step and every 10 steps writes
! its record into RECORDS.DAT (open on MPI_COMM_WORLD, atomic mode,
! preallocated) at its own explicit offset, alternately with the split
! and the non-blocking collective, reads it back four ways (independent,
! non-blocking, split and non-blocking collective), and every 50 steps
! goes through the individual file pointer (SEEK, READ, READ_ALL and its
! split form, IREAD, IREAD_ALL, WRITE, IWRITE). Its journal
! (JOURNAL.R.DAT, open on MPI_COMM_SELF) gets three values through the
! shared file pointer (WRITE_SHARED, IWRITE_SHARED, the split
! WRITE_ORDERED), read back through it after SEEK_SHARED. At the end the
! queries (view, group, amode, atomicity, byte offset, type extent,
! error handler, info, size). After kills and restarts the output and
! the files must be byte-identical to a plain build's run.
!   usage: records_f77 STEPS
      PROGRAM RECORDS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NREC
      PARAMETER (NREC = 16)
      DOUBLE PRECISION REC(NREC), SUMS
      INTEGER RANK, NRANKS, FH, JH
      COMMON /STATE/ REC, SUMS
      COMMON /PAR/ RANK, NRANKS, FH, JH
      DOUBLE PRECISION BACK(NREC), V(3), SALL
      INTEGER STATUS(MPI_STATUS_SIZE), REQ, IERR, IT, NIT, I, K, SH
      INTEGER(KIND=MPI_OFFSET_KIND) OFF, POS, SZ, BOFF, DISP
      INTEGER(KIND=MPI_ADDRESS_KIND) EXT
      INTEGER GRP, GSIZE, AMODE, INFO, NKEYS, EH, ET, FT
      LOGICAL ATOM
      CHARACTER*32 ARG, JNAME
      CHARACTER*64 DREP
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NRANKS, IERR)
      CALL GET_COMMAND_ARGUMENT(1, ARG)
      READ (ARG, *) NIT
!     A scratch file made and deleted before the loop.
      IF (RANK .EQ. 0) THEN
         CALL MPI_FILE_OPEN(MPI_COMM_SELF, 'scratch.dat',
     &        MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, SH,
     &        IERR)
         CALL MPI_FILE_CLOSE(SH, IERR)
         CALL MPI_FILE_DELETE('scratch.dat', MPI_INFO_NULL, IERR)
      END IF
      CALL MPI_FILE_OPEN(MPI_COMM_WORLD, 'records.dat',
     &     MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, FH, IERR)
      IF (IERR .NE. MPI_SUCCESS) STOP 'open records.dat'
      CALL MPI_FILE_SET_SIZE(FH, 0_MPI_OFFSET_KIND, IERR)
      CALL MPI_FILE_PREALLOCATE(FH, 4096_MPI_OFFSET_KIND, IERR)
      CALL MPI_FILE_SET_ATOMICITY(FH, .TRUE., IERR)
      CALL MPI_FILE_SET_INFO(FH, MPI_INFO_NULL, IERR)
      CALL MPI_FILE_SET_ERRHANDLER(FH, MPI_ERRORS_ARE_FATAL, IERR)
      WRITE (JNAME, '(A,I0,A)') 'journal.', RANK, '.dat'
      CALL MPI_FILE_OPEN(MPI_COMM_SELF, JNAME,
     &     MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, JH, IERR)
      CALL MPI_FILE_SET_SIZE(JH, 0_MPI_OFFSET_KIND, IERR)
      DO 10 I = 1, NREC
         REC(I) = DBLE(MOD(I * 7 + RANK * 13, 101)) / 101D0
   10 CONTINUE
      SUMS = 0
      DO 20 IT = 1, NIT
         CALL CCC_CHECKPOINT()
         DO 21 I = 1, NREC
            REC(I) = REC(I) * 0.999D0 + DBLE(MOD(IT + I, 17)) * 1D-3
   21    CONTINUE
         IF (MOD(IT, 10) .NE. 0) GOTO 20
         K = IT / 10 - 1
         OFF = (INT(K, MPI_OFFSET_KIND) * NRANKS + RANK) * NREC * 8
         IF (MOD(K, 2) .EQ. 0) THEN
            CALL MPI_FILE_WRITE_AT_ALL_BEGIN(FH, OFF, REC, NREC,
     &           MPI_DOUBLE_PRECISION, IERR)
            CALL MPI_FILE_WRITE_AT_ALL_END(FH, REC, STATUS, IERR)
         ELSE
            CALL MPI_FILE_IWRITE_AT_ALL(FH, OFF, REC, NREC,
     &           MPI_DOUBLE_PRECISION, REQ, IERR)
            CALL MPI_WAIT(REQ, STATUS, IERR)
         END IF
         CALL MPI_FILE_READ_AT(FH, OFF, BACK, NREC,
     &        MPI_DOUBLE_PRECISION, STATUS, IERR)
         CALL TAKE(BACK, NREC)
         CALL MPI_FILE_IREAD_AT(FH, OFF, BACK, NREC,
     &        MPI_DOUBLE_PRECISION, REQ, IERR)
         CALL MPI_WAIT(REQ, STATUS, IERR)
         CALL TAKE(BACK, NREC)
         CALL MPI_FILE_READ_AT_ALL_BEGIN(FH, OFF, BACK, NREC,
     &        MPI_DOUBLE_PRECISION, IERR)
         CALL MPI_FILE_READ_AT_ALL_END(FH, BACK, STATUS, IERR)
         CALL TAKE(BACK, NREC)
         CALL MPI_FILE_IREAD_AT_ALL(FH, OFF, BACK, NREC,
     &        MPI_DOUBLE_PRECISION, REQ, IERR)
         CALL MPI_WAIT(REQ, STATUS, IERR)
         CALL TAKE(BACK, NREC)
!        The journal, through its shared file pointer.
         CALL MPI_FILE_WRITE_SHARED(JH, REC(1), 1,
     &        MPI_DOUBLE_PRECISION, STATUS, IERR)
         CALL MPI_FILE_IWRITE_SHARED(JH, REC(2), 1,
     &        MPI_DOUBLE_PRECISION, REQ, IERR)
         CALL MPI_WAIT(REQ, STATUS, IERR)
         CALL MPI_FILE_WRITE_ORDERED_BEGIN(JH, REC(3), 1,
     &        MPI_DOUBLE_PRECISION, IERR)
         CALL MPI_FILE_WRITE_ORDERED_END(JH, REC(3), STATUS, IERR)
         IF (MOD(IT, 50) .EQ. 0) CALL POINTERS(OFF)
   20 CONTINUE
!     The journal read back: its first three values three ways.
      CALL MPI_FILE_SEEK_SHARED(JH, 0_MPI_OFFSET_KIND, MPI_SEEK_SET,
     &     IERR)
      CALL MPI_FILE_READ_SHARED(JH, V(1), 1, MPI_DOUBLE_PRECISION,
     &     STATUS, IERR)
      CALL MPI_FILE_IREAD_SHARED(JH, V(2), 1, MPI_DOUBLE_PRECISION,
     &     REQ, IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL MPI_FILE_READ_ORDERED(JH, V(3), 1, MPI_DOUBLE_PRECISION,
     &     STATUS, IERR)
      CALL TAKE(V, 3)
      CALL MPI_FILE_READ_ORDERED_BEGIN(JH, V, 3, MPI_DOUBLE_PRECISION,
     &     IERR)
      CALL MPI_FILE_READ_ORDERED_END(JH, V, STATUS, IERR)
      CALL TAKE(V, 3)
      CALL MPI_FILE_GET_POSITION_SHARED(JH, POS, IERR)
      SUMS = SUMS + DBLE(POS)
!     Queries.
      CALL MPI_FILE_GET_VIEW(FH, DISP, ET, FT, DREP, IERR)
      CALL MPI_FILE_GET_GROUP(FH, GRP, IERR)
      CALL MPI_GROUP_SIZE(GRP, GSIZE, IERR)
      CALL MPI_GROUP_FREE(GRP, IERR)
      CALL MPI_FILE_GET_AMODE(FH, AMODE, IERR)
      CALL MPI_FILE_GET_ATOMICITY(FH, ATOM, IERR)
      CALL MPI_FILE_GET_BYTE_OFFSET(FH, 5_MPI_OFFSET_KIND, BOFF, IERR)
      CALL MPI_FILE_GET_TYPE_EXTENT(FH, MPI_DOUBLE_PRECISION, EXT,
     &     IERR)
      CALL MPI_FILE_GET_ERRHANDLER(FH, EH, IERR)
      IF (EH .NE. MPI_ERRORS_ARE_FATAL) STOP 'errhandler'
      CALL MPI_FILE_SET_ERRHANDLER(FH, MPI_ERRORS_RETURN, IERR)
      CALL MPI_FILE_CALL_ERRHANDLER(FH, MPI_ERR_OTHER, IERR)
      CALL MPI_FILE_GET_INFO(FH, INFO, IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      CALL MPI_INFO_FREE(INFO, IERR)
!     Every rank's writes done before the size is read (MPI's
!     sync-barrier-sync).
      CALL MPI_FILE_SYNC(FH, IERR)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_FILE_SYNC(FH, IERR)
      CALL MPI_FILE_GET_SIZE(FH, SZ, IERR)
      CALL MPI_FILE_CLOSE(FH, IERR)
      CALL MPI_FILE_CLOSE(JH, IERR)
      CALL MPI_REDUCE(SUMS, SALL, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         WRITE (*, '(A,ES24.16)') 'sums ', SALL
         WRITE (*, '(A,I0,A,A,A,I0,A,I0,A,L1)') 'view disp ', DISP,
     &        ' datarep ', TRIM(DREP), ' group ', GSIZE, ' amode ',
     &        AMODE, ' atomic ', ATOM
         WRITE (*, '(A,I0,A,I0,A,I0)') 'byte offset ', BOFF,
     &        ' extent ', EXT, ' size ', SZ
      END IF
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE TAKE(X, N)
      IMPLICIT NONE
      INTEGER N, I
      DOUBLE PRECISION X(N)
      INTEGER NREC
      PARAMETER (NREC = 16)
      DOUBLE PRECISION REC(NREC), SUMS
      COMMON /STATE/ REC, SUMS
      DO 10 I = 1, N
         SUMS = SUMS * 1.000001D0 + X(I) * I
   10 CONTINUE
      END

!     Through the individual file pointer: the record at OFF read four
!     ways and written again three times (the same bytes).
      SUBROUTINE POINTERS(OFF)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_OFFSET_KIND) OFF, POS
      INTEGER NREC
      PARAMETER (NREC = 16)
      DOUBLE PRECISION REC(NREC), SUMS, BACK(NREC)
      INTEGER RANK, NRANKS, FH, JH
      COMMON /STATE/ REC, SUMS
      COMMON /PAR/ RANK, NRANKS, FH, JH
      INTEGER STATUS(MPI_STATUS_SIZE), REQ, IERR
      CALL MPI_FILE_SEEK(FH, OFF, MPI_SEEK_SET, IERR)
      CALL MPI_FILE_READ(FH, BACK, NREC, MPI_DOUBLE_PRECISION, STATUS,
     &     IERR)
      CALL TAKE(BACK, NREC)
      CALL MPI_FILE_GET_POSITION(FH, POS, IERR)
      IF (POS .NE. OFF + NREC * 8) STOP 'position'
      CALL MPI_FILE_SEEK(FH, OFF, MPI_SEEK_SET, IERR)
      CALL MPI_FILE_READ_ALL(FH, BACK, NREC, MPI_DOUBLE_PRECISION,
     &     STATUS, IERR)
      CALL TAKE(BACK, NREC)
      CALL MPI_FILE_SEEK(FH, -NREC * 8_MPI_OFFSET_KIND, MPI_SEEK_CUR,
     &     IERR)
      CALL MPI_FILE_READ_ALL_BEGIN(FH, BACK, NREC, MPI_DOUBLE_PRECISION,
     &     IERR)
      CALL MPI_FILE_READ_ALL_END(FH, BACK, STATUS, IERR)
      CALL TAKE(BACK, NREC)
      CALL MPI_FILE_SEEK(FH, OFF, MPI_SEEK_SET, IERR)
      CALL MPI_FILE_IREAD(FH, BACK, NREC, MPI_DOUBLE_PRECISION, REQ,
     &     IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL TAKE(BACK, NREC)
      CALL MPI_FILE_SEEK(FH, OFF, MPI_SEEK_SET, IERR)
      CALL MPI_FILE_IREAD_ALL(FH, BACK, NREC, MPI_DOUBLE_PRECISION,
     &     REQ, IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL TAKE(BACK, NREC)
      CALL MPI_FILE_SEEK(FH, OFF, MPI_SEEK_SET, IERR)
      CALL MPI_FILE_WRITE(FH, REC, NREC, MPI_DOUBLE_PRECISION, STATUS,
     &     IERR)
      CALL MPI_FILE_SEEK(FH, OFF, MPI_SEEK_SET, IERR)
      CALL MPI_FILE_IWRITE(FH, REC, NREC, MPI_DOUBLE_PRECISION, REQ,
     &     IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL MPI_FILE_WRITE_AT(FH, OFF, REC, NREC, MPI_DOUBLE_PRECISION,
     &     STATUS, IERR)
      END
