! common_step_f77_exch.f - EXCH of common_step_f77.f: the site (every rank
! checkpoints here, every step) and the sum of U over the ranks into T.
      SUBROUTINE EXCH(IT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IT, I, N, IERR
      PARAMETER (N = 4096)
      DOUBLE PRECISION U(N), T, S, SALL
      INTEGER RANK, NRANKS
      COMMON /STATE/ U, T
      COMMON /PAR/ RANK, NRANKS
      CALL CCC_CHECKPOINT()
      S = 0
      DO 10 I = 1, N
         S = S + U(I)
   10 CONTINUE
      CALL MPI_ALLREDUCE(S, SALL, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      T = 0.5D0 * SALL / (N * NRANKS) + 1D-3 * MOD(IT + RANK, 7)
      END
