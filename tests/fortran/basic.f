C     Fortran 77 (mpif.h): ping-pong across eager and rendezvous sizes,
C     a ring with MPI_SENDRECV, MPI_COMM_SPLIT, reductions with
C     MPI_IN_PLACE, MPI_STATUS_IGNORE; every received value is checked.
      PROGRAM BASIC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER MAXN
      PARAMETER (MAXN=262144)
      INTEGER BUF(MAXN), STATUS(MPI_STATUS_SIZE)
      INTEGER IERR, RANK, NPROCS, N, I, PEER, CNT, NBAD
      INTEGER LEFT, RIGHT, SVAL, RVAL, SUB, SRANK, SSIZE, V(2)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      NBAD = 0
C     Ping-pong between ranks 0 and 1: 1 int to 1 MiB.
      N = 1
   10 IF (N .GT. MAXN) GOTO 20
      IF (RANK .LT. 2) THEN
        PEER = 1 - RANK
        IF (RANK .EQ. 0) THEN
          DO 11 I = 1, N
            BUF(I) = I * 7 + N
   11     CONTINUE
          CALL MPI_SEND(BUF, N, MPI_INTEGER, PEER, N, MPI_COMM_WORLD,
     &                  IERR)
          CALL MPI_RECV(BUF, N, MPI_INTEGER, PEER, N, MPI_COMM_WORLD,
     &                  STATUS, IERR)
          CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, CNT, IERR)
          IF (CNT .NE. N .OR. STATUS(MPI_SOURCE) .NE. PEER .OR.
     &        STATUS(MPI_TAG) .NE. N) NBAD = NBAD + 1
          DO 12 I = 1, N
            IF (BUF(I) .NE. I * 7 + N + 1) NBAD = NBAD + 1
   12     CONTINUE
        ELSE
          CALL MPI_RECV(BUF, N, MPI_INTEGER, PEER, N, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
          DO 13 I = 1, N
            IF (BUF(I) .NE. I * 7 + N) NBAD = NBAD + 1
            BUF(I) = BUF(I) + 1
   13     CONTINUE
          CALL MPI_SEND(BUF, N, MPI_INTEGER, PEER, N, MPI_COMM_WORLD,
     &                  IERR)
        END IF
      END IF
      N = N * 4
      GOTO 10
   20 CONTINUE
C     Ring: each rank sends its rank to the right.
      RIGHT = MOD(RANK + 1, NPROCS)
      LEFT = MOD(RANK + NPROCS - 1, NPROCS)
      SVAL = 100 + RANK
      CALL MPI_SENDRECV(SVAL, 1, MPI_INTEGER, RIGHT, 5, RVAL, 1,
     &     MPI_INTEGER, LEFT, 5, MPI_COMM_WORLD, STATUS, IERR)
      IF (RVAL .NE. 100 + LEFT) NBAD = NBAD + 1
      IF (STATUS(MPI_SOURCE) .NE. LEFT) NBAD = NBAD + 1
C     Split into even and odd ranks; sum the world ranks in each half.
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, MOD(RANK, 2), RANK, SUB,
     &                    IERR)
      CALL MPI_COMM_RANK(SUB, SRANK, IERR)
      CALL MPI_COMM_SIZE(SUB, SSIZE, IERR)
      IF (SRANK .NE. RANK / 2) NBAD = NBAD + 1
      V(1) = RANK
      V(2) = 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, V, 2, MPI_INTEGER, MPI_SUM, SUB,
     &                   IERR)
      CNT = 0
      DO 30 I = MOD(RANK, 2), NPROCS - 1, 2
        CNT = CNT + I
   30 CONTINUE
      IF (V(1) .NE. CNT .OR. V(2) .NE. SSIZE) NBAD = NBAD + 1
      CALL MPI_COMM_FREE(SUB, IERR)
C     Reduce to rank 0 in place: the maximum rank.
      V(1) = RANK
      IF (RANK .EQ. 0) THEN
        CALL MPI_REDUCE(MPI_IN_PLACE, V, 1, MPI_INTEGER, MPI_MAX, 0,
     &                  MPI_COMM_WORLD, IERR)
        IF (V(1) .NE. NPROCS - 1) NBAD = NBAD + 1
      ELSE
        CALL MPI_REDUCE(V, V, 1, MPI_INTEGER, MPI_MAX, 0,
     &                  MPI_COMM_WORLD, IERR)
      END IF
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, NBAD, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT *, 'basic.f errors:', NBAD
      CALL MPI_FINALIZE(IERR)
      IF (NBAD .NE. 0) STOP 1
      END
