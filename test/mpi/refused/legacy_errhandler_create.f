C legacy_errhandler_create.f - MPI_ERRHANDLER_CREATE (removed in MPI-3.0)
C is refused from Fortran for the reason its replacement
C MPI_COMM_CREATE_ERRHANDLER is: not that the name is old.
      PROGRAM ERRCRE
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IEH, IERR
      EXTERNAL HANDLER
      CALL MPI_INIT(IERR)
      CALL MPI_ERRHANDLER_CREATE(HANDLER, IEH, IERR)
      PRINT *, 'not reached'
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE HANDLER(COMM, CODE)
      INTEGER COMM, CODE
      PRINT *, 'error', CODE
      END
