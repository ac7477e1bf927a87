C     Fortran 77 (mpif.h) on the calls whose Fortran form differs from
C     C's: MPI-1 INTEGER addresses and extents (MPI_ADDRESS,
C     MPI_TYPE_EXTENT/LB/UB, MPI_TYPE_HVECTOR/HINDEXED/STRUCT),
C     MPI_ATTR_PUT/GET/DELETE with MPI_KEYVAL_CREATE's Fortran
C     callbacks, and derived types, MPI_ALLTOALL, MPI_GROUP_INCL and
C     MPI_WAITALL's status array; every value received is checked.
C     MPI_AINT_ADD and MPI_AINT_DIFF are declared here, as mpif.h
C     leaves them to the program (MPICH's does the same).
      PROGRAM LEGACY
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF
      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF
      INTEGER(KIND=MPI_ADDRESS_KIND) BASE
      INTEGER IERR, RANK, NPROCS, NBAD, LEFT, RIGHT
      INTEGER NCOPY, NDEL
      COMMON /LEGCNT/ NCOPY, NDEL
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      NBAD = 0
      NCOPY = 0
      NDEL = 0
      RIGHT = MOD(RANK + 1, NPROCS)
      LEFT = MOD(RANK + NPROCS - 1, NPROCS)
      CALL TYPES(RANK, LEFT, RIGHT, NBAD)
      CALL ATTRS(NBAD)
      CALL COLLS(RANK, NPROCS, LEFT, RIGHT, NBAD)
      BASE = 4096
      IF (MPI_AINT_ADD(BASE, 24_MPI_ADDRESS_KIND) .NE. 4120) NBAD=NBAD+1
      IF (MPI_AINT_DIFF(BASE, 96_MPI_ADDRESS_KIND) .NE. 4000)
     &    NBAD = NBAD + 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, NBAD, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) PRINT *, 'legacy.f errors:', NBAD
      CALL MPI_FINALIZE(IERR)
      IF (NBAD .NE. 0) STOP 1
      END

C     Derived types built from INTEGER displacements, each sent to the
C     right and received as plain integers.
      SUBROUTINE TYPES(RANK, LEFT, RIGHT, NBAD)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, LEFT, RIGHT, NBAD
      INTEGER BUF(12), R(6), IERR, I, VEC, HVEC, HIND, STRU, EXT
      INTEGER A1, A4, BL(2), DI(2), TY(2), LB, UB
      INTEGER(KIND=MPI_ADDRESS_KIND) G1, G4
      DO 10 I = 1, 12
        BUF(I) = 1000 * RANK + I
   10 CONTINUE
C     Address differences within one array: 3 INTEGERs apart.
      CALL MPI_ADDRESS(BUF(1), A1, IERR)
      CALL MPI_ADDRESS(BUF(4), A4, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. A4 - A1 .NE. 12) NBAD = NBAD + 1
      CALL MPI_GET_ADDRESS(BUF(1), G1, IERR)
      CALL MPI_GET_ADDRESS(BUF(4), G4, IERR)
      IF (G4 - G1 .NE. 12) NBAD = NBAD + 1
C     Vector: 3 blocks of 2 INTEGERs, stride 4 (elements 1 2 5 6 9 10).
      CALL MPI_TYPE_VECTOR(3, 2, 4, MPI_INTEGER, VEC, IERR)
      CALL MPI_TYPE_COMMIT(VEC, IERR)
      CALL MPI_TYPE_EXTENT(VEC, EXT, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. EXT .NE. 40) NBAD = NBAD + 1
      CALL MPI_TYPE_LB(VEC, LB, IERR)
      CALL MPI_TYPE_UB(VEC, UB, IERR)
      IF (LB .NE. 0 .OR. UB .NE. 40) NBAD = NBAD + 1
      CALL SHIFT(BUF, VEC, 6, LEFT, RIGHT, R)
      CALL CHECK(R, 6, LEFT, 1, 2, 5, 6, 9, 10, NBAD)
C     Hvector: 3 single INTEGERs 8 bytes apart (elements 1 3 5).
      CALL MPI_TYPE_HVECTOR(3, 1, 8, MPI_INTEGER, HVEC, IERR)
      CALL MPI_TYPE_COMMIT(HVEC, IERR)
      CALL SHIFT(BUF, HVEC, 3, LEFT, RIGHT, R)
      CALL CHECK(R, 3, LEFT, 1, 3, 5, 0, 0, 0, NBAD)
C     Hindexed: 2 INTEGERs at byte 0, 1 at A4 - A1 (elements 1 2 4).
      BL(1) = 2
      BL(2) = 1
      DI(1) = 0
      DI(2) = A4 - A1
      CALL MPI_TYPE_HINDEXED(2, BL, DI, MPI_INTEGER, HIND, IERR)
      CALL MPI_TYPE_COMMIT(HIND, IERR)
      CALL SHIFT(BUF, HIND, 3, LEFT, RIGHT, R)
      CALL CHECK(R, 3, LEFT, 1, 2, 4, 0, 0, 0, NBAD)
C     Struct: 1 INTEGER at byte 4, 2 at byte 36 (elements 2 10 11;
C     lower bound 4, upper bound 44).
      BL(1) = 1
      BL(2) = 2
      DI(1) = 4
      DI(2) = 36
      TY(1) = MPI_INTEGER
      TY(2) = MPI_INTEGER
      CALL MPI_TYPE_STRUCT(2, BL, DI, TY, STRU, IERR)
      CALL MPI_TYPE_COMMIT(STRU, IERR)
      CALL MPI_TYPE_EXTENT(STRU, EXT, IERR)
      IF (EXT .NE. 40) NBAD = NBAD + 1
      CALL SHIFT(BUF, STRU, 3, LEFT, RIGHT, R)
      CALL CHECK(R, 3, LEFT, 2, 10, 11, 0, 0, 0, NBAD)
      CALL MPI_TYPE_FREE(VEC, IERR)
      CALL MPI_TYPE_FREE(HVEC, IERR)
      CALL MPI_TYPE_FREE(HIND, IERR)
      CALL MPI_TYPE_FREE(STRU, IERR)
      END

C     One TYPE to the right, N INTEGERs from the left into R.
      SUBROUTINE SHIFT(BUF, TYPE, N, LEFT, RIGHT, R)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER BUF(*), TYPE, N, LEFT, RIGHT, R(*), IERR, I
      DO 10 I = 1, 6
        R(I) = -1
   10 CONTINUE
      CALL MPI_SENDRECV(BUF, 1, TYPE, RIGHT, 7, R, N, MPI_INTEGER,
     &     LEFT, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      END

C     R(1..N) must be the left rank's elements E1..EN.
      SUBROUTINE CHECK(R, N, LEFT, E1, E2, E3, E4, E5, E6, NBAD)
      IMPLICIT NONE
      INTEGER R(*), N, LEFT, E1, E2, E3, E4, E5, E6, NBAD, E(6), I
      E(1) = E1
      E(2) = E2
      E(3) = E3
      E(4) = E4
      E(5) = E5
      E(6) = E6
      DO 10 I = 1, N
        IF (R(I) .NE. 1000 * LEFT + E(I)) NBAD = NBAD + 1
   10 CONTINUE
      END

C     Attributes: a keyval whose copy callback adds one and whose delete
C     callback counts; one with the predefined null callbacks; MPI_TAG_UB.
      SUBROUTINE ATTRS(NBAD)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NBAD, IERR, KEY, NKEY, VAL, DUP, DUP2
      INTEGER NCOPY, NDEL
      COMMON /LEGCNT/ NCOPY, NDEL
      LOGICAL FLAG
      EXTERNAL COPYF, DELF
      CALL MPI_KEYVAL_CREATE(COPYF, DELF, KEY, 77, IERR)
      CALL MPI_KEYVAL_CREATE(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN,
     &                       NKEY, 0, IERR)
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, DUP, IERR)
      CALL MPI_ATTR_PUT(DUP, KEY, 42, IERR)
      CALL MPI_ATTR_PUT(DUP, NKEY, -5, IERR)
      CALL MPI_ATTR_GET(DUP, KEY, VAL, FLAG, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. .NOT. FLAG .OR. VAL .NE. 42)
     &  NBAD = NBAD + 1
      CALL MPI_ATTR_GET(DUP, NKEY, VAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. VAL .NE. -5) NBAD = NBAD + 1
      CALL MPI_COMM_DUP(DUP, DUP2, IERR)
      IF (NCOPY .NE. 1) NBAD = NBAD + 1
      CALL MPI_ATTR_GET(DUP2, KEY, VAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. VAL .NE. 43) NBAD = NBAD + 1
      CALL MPI_ATTR_GET(DUP2, NKEY, VAL, FLAG, IERR)
      IF (FLAG) NBAD = NBAD + 1
      CALL MPI_ATTR_DELETE(DUP2, KEY, IERR)
      IF (NDEL .NE. 1) NBAD = NBAD + 1
      CALL MPI_ATTR_GET(DUP2, KEY, VAL, FLAG, IERR)
      IF (FLAG) NBAD = NBAD + 1
      CALL MPI_COMM_FREE(DUP, IERR)
      IF (NDEL .NE. 2) NBAD = NBAD + 1
      CALL MPI_COMM_FREE(DUP2, IERR)
      CALL MPI_KEYVAL_FREE(KEY, IERR)
      CALL MPI_KEYVAL_FREE(NKEY, IERR)
      IF (KEY .NE. MPI_KEYVAL_INVALID) NBAD = NBAD + 1
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, VAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. VAL .LT. 32767) NBAD = NBAD + 1
      END

      SUBROUTINE COPYF(OLDCOMM, KEY, EXTRA, VALIN, VALOUT, FLAG, IERR)
      IMPLICIT NONE
      INTEGER OLDCOMM, KEY, EXTRA, VALIN, VALOUT, IERR
      LOGICAL FLAG
      INTEGER NCOPY, NDEL
      COMMON /LEGCNT/ NCOPY, NDEL
      NCOPY = NCOPY + 1
      VALOUT = VALIN + 1
      FLAG = EXTRA .EQ. 77
      IERR = 0
      END

      SUBROUTINE DELF(COMM, KEY, VAL, EXTRA, IERR)
      IMPLICIT NONE
      INTEGER COMM, KEY, VAL, EXTRA, IERR
      INTEGER NCOPY, NDEL
      COMMON /LEGCNT/ NCOPY, NDEL
      IF (EXTRA .EQ. 77 .AND. (VAL .EQ. 42 .OR. VAL .EQ. 43))
     &  NDEL = NDEL + 1
      IERR = 0
      END

C     MPI_ALLTOALL, MPI_GROUP_INCL and MPI_WAITALL with statuses.
      SUBROUTINE COLLS(RANK, NPROCS, LEFT, RIGHT, NBAD)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NPROCS, LEFT, RIGHT, NBAD, IERR, I
      INTEGER S(64), R(64), WG, G, RKS(2), TR(2), GSIZE, GRANK
      INTEGER REQ(2), ST(MPI_STATUS_SIZE, 2), SV, RV
      DO 10 I = 1, NPROCS
        S(I) = 100 * RANK + I - 1
        R(I) = -1
   10 CONTINUE
      CALL MPI_ALLTOALL(S, 1, MPI_INTEGER, R, 1, MPI_INTEGER,
     &                  MPI_COMM_WORLD, IERR)
      DO 20 I = 1, NPROCS
        IF (R(I) .NE. 100 * (I - 1) + RANK) NBAD = NBAD + 1
   20 CONTINUE
      CALL MPI_COMM_GROUP(MPI_COMM_WORLD, WG, IERR)
      RKS(1) = NPROCS - 1
      RKS(2) = 0
      CALL MPI_GROUP_INCL(WG, 2, RKS, G, IERR)
      CALL MPI_GROUP_SIZE(G, GSIZE, IERR)
      CALL MPI_GROUP_RANK(G, GRANK, IERR)
      IF (GSIZE .NE. 2) NBAD = NBAD + 1
      IF (RANK .EQ. NPROCS - 1 .AND. GRANK .NE. 0) NBAD = NBAD + 1
      IF (RANK .EQ. 0 .AND. GRANK .NE. 1) NBAD = NBAD + 1
      IF (RANK .NE. 0 .AND. RANK .NE. NPROCS - 1 .AND.
     &    GRANK .NE. MPI_UNDEFINED) NBAD = NBAD + 1
      RKS(1) = 0
      RKS(2) = 1
      CALL MPI_GROUP_TRANSLATE_RANKS(G, 2, RKS, WG, TR, IERR)
      IF (TR(1) .NE. NPROCS - 1 .OR. TR(2) .NE. 0) NBAD = NBAD + 1
      CALL MPI_GROUP_FREE(G, IERR)
      CALL MPI_GROUP_FREE(WG, IERR)
      SV = RANK
      RV = -1
      CALL MPI_IRECV(RV, 1, MPI_INTEGER, LEFT, 9, MPI_COMM_WORLD,
     &               REQ(1), IERR)
      CALL MPI_ISEND(SV, 1, MPI_INTEGER, RIGHT, 9, MPI_COMM_WORLD,
     &               REQ(2), IERR)
      CALL MPI_WAITALL(2, REQ, ST, IERR)
      IF (RV .NE. LEFT .OR. ST(MPI_SOURCE, 1) .NE. LEFT .OR.
     &    ST(MPI_TAG, 1) .NE. 9) NBAD = NBAD + 1
      IF (REQ(1) .NE. MPI_REQUEST_NULL) NBAD = NBAD + 1
      END
