! The `use mpi_f08` module for gfortran.  Each handle type wraps the same
! integer as C (the MPICH ABI), so a TYPE(MPI_Comm) passed by reference is
! the C binding's MPI_Fint *; the procedures are the mpif.h bindings
! themselves (mpi_send_ ...) with typed interfaces and OPTIONAL ierror
! (an absent one arrives as NULL, which the bindings allow for).
module mpi_f08
  use, intrinsic :: iso_c_binding, only: c_int, c_char
  implicit none
  private :: c_int, c_char

  type, bind(C) :: MPI_Comm
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Datatype
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Group
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Info
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Op
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Errhandler
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Request
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Win
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Session
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_Message
    integer(c_int) :: MPI_VAL
  end type
  type, bind(C) :: MPI_File
    integer(c_int) :: MPI_VAL
  end type
  ! Same five ints as C's MPI_Status; the count fields are private to MPI.
  type, bind(C) :: MPI_Status
    integer(c_int) :: count_lo
    integer(c_int) :: count_hi_and_cancelled
    integer(c_int) :: MPI_SOURCE
    integer(c_int) :: MPI_TAG
    integer(c_int) :: MPI_ERROR
  end type

  ! An INTEGER status (MPI_Status_f082f) and the indices of its words, as
  ! in mpif.h; the components of TYPE(MPI_Status) share the names.
  integer, parameter :: MPI_STATUS_SIZE = 5
  integer, parameter :: MPI_SOURCE = 3, MPI_TAG = 4, MPI_ERROR = 5
  integer, parameter :: MPI_ADDRESS_KIND = 8, MPI_OFFSET_KIND = 8
  integer, parameter :: MPI_COUNT_KIND = 8, MPI_INTEGER_KIND = 4
  include 'mpi_f08_consts.f90'
  include 'mpi_f08_callbacks.f90'

  ! Sentinels: objects of libhcmpi whose addresses the bindings recognise.
  type(MPI_Status), bind(C, name="MPIR_F08_MPI_STATUS_IGNORE_OBJ") :: &
      MPI_STATUS_IGNORE
  type(MPI_Status), bind(C, name="MPIR_F08_MPI_STATUSES_IGNORE_OBJ") :: &
      MPI_STATUSES_IGNORE(1)
  integer(c_int), bind(C, name="MPIR_F08_MPI_IN_PLACE") :: MPI_IN_PLACE
  integer(c_int), bind(C, name="MPIR_F08_MPI_BOTTOM") :: MPI_BOTTOM
  ! The spawn sentinels: objects of libhcmpifort (fort_util.c).
  character(kind=c_char), bind(C, name="hc_f08_argv_null") :: MPI_ARGV_NULL(1)
  character(kind=c_char), bind(C, name="hc_f08_argvs_null") :: &
      MPI_ARGVS_NULL(1, 1)
  integer(c_int), bind(C, name="hc_f08_errcodes_ignore") :: &
      MPI_ERRCODES_IGNORE(1)
  ! The weight sentinels share the COMMON blocks of mpif.h (fort_util.c).
  integer(c_int), bind(C, name="mpifcmb5_") :: MPI_UNWEIGHTED
  integer(c_int), bind(C, name="mpifcmb9_") :: MPI_WEIGHTS_EMPTY
  ! MPI-4.1's automatic buffering: the COMMON block of mpif.h too.
  integer(c_int), bind(C, name="mpifcmba_") :: MPI_BUFFER_AUTOMATIC

  ! == and /= (and so .eq. and .ne.) on every handle type.
  interface operator(==)
    module procedure hcf08_comm_eq, hcf08_type_eq, hcf08_group_eq, &
        hcf08_req_eq, hcf08_op_eq, hcf08_info_eq, hcf08_errh_eq, &
        hcf08_win_eq, hcf08_session_eq, hcf08_msg_eq, hcf08_file_eq
  end interface
  interface operator(/=)
    module procedure hcf08_comm_ne, hcf08_type_ne, hcf08_group_ne, &
        hcf08_req_ne, hcf08_op_ne, hcf08_info_ne, hcf08_errh_ne, &
        hcf08_win_ne, hcf08_session_ne, hcf08_msg_ne, hcf08_file_ne
  end interface
  private :: hcf08_comm_eq, hcf08_type_eq, hcf08_group_eq, hcf08_req_eq, &
      hcf08_op_eq, hcf08_info_eq, hcf08_errh_eq, hcf08_win_eq, &
      hcf08_session_eq, hcf08_msg_eq, hcf08_file_eq, hcf08_comm_ne, &
      hcf08_type_ne, hcf08_group_ne, hcf08_req_ne, hcf08_op_ne, &
      hcf08_info_ne, hcf08_errh_ne, hcf08_win_ne, hcf08_session_ne, &
      hcf08_msg_ne, hcf08_file_ne

  include 'mpi_f08_ifaces.f90'

contains
  ! MPI_SIZEOF: the bytes of one element of x, of any type and kind,
  ! scalar or array (storage_size of the actual's dynamic type).
  subroutine MPI_Sizeof(x, size, ierror)
    class(*), dimension(..), intent(in) :: x
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine

  ! MPI_Status_f082f and MPI_Status_f2f08 (MPI-4.0 19.3.5): an INTEGER
  ! status(MPI_STATUS_SIZE) holds TYPE(MPI_Status)'s five words in order.
  subroutine MPI_Status_f082f(f08_status, f_status, ierror)
    type(MPI_Status), intent(in) :: f08_status
    integer, intent(out) :: f_status(MPI_STATUS_SIZE)
    integer, optional, intent(out) :: ierror
    f_status = [f08_status%count_lo, f08_status%count_hi_and_cancelled, &
        f08_status%MPI_SOURCE, f08_status%MPI_TAG, f08_status%MPI_ERROR]
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine
  subroutine MPI_Status_f2f08(f_status, f08_status, ierror)
    integer, intent(in) :: f_status(MPI_STATUS_SIZE)
    type(MPI_Status), intent(out) :: f08_status
    integer, optional, intent(out) :: ierror
    f08_status = MPI_Status(f_status(1), f_status(2), f_status(3), &
        f_status(4), f_status(5))
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine

  ! Handle comparison (MPI-3.0 section 17.2.4), one pair per handle type.
  logical function hcf08_comm_eq(a, b)
    type(MPI_Comm), intent(in) :: a, b
    hcf08_comm_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_comm_ne(a, b)
    type(MPI_Comm), intent(in) :: a, b
    hcf08_comm_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_type_eq(a, b)
    type(MPI_Datatype), intent(in) :: a, b
    hcf08_type_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_type_ne(a, b)
    type(MPI_Datatype), intent(in) :: a, b
    hcf08_type_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_group_eq(a, b)
    type(MPI_Group), intent(in) :: a, b
    hcf08_group_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_group_ne(a, b)
    type(MPI_Group), intent(in) :: a, b
    hcf08_group_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_req_eq(a, b)
    type(MPI_Request), intent(in) :: a, b
    hcf08_req_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_req_ne(a, b)
    type(MPI_Request), intent(in) :: a, b
    hcf08_req_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_op_eq(a, b)
    type(MPI_Op), intent(in) :: a, b
    hcf08_op_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_op_ne(a, b)
    type(MPI_Op), intent(in) :: a, b
    hcf08_op_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_info_eq(a, b)
    type(MPI_Info), intent(in) :: a, b
    hcf08_info_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_info_ne(a, b)
    type(MPI_Info), intent(in) :: a, b
    hcf08_info_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_errh_eq(a, b)
    type(MPI_Errhandler), intent(in) :: a, b
    hcf08_errh_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_errh_ne(a, b)
    type(MPI_Errhandler), intent(in) :: a, b
    hcf08_errh_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_win_eq(a, b)
    type(MPI_Win), intent(in) :: a, b
    hcf08_win_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_win_ne(a, b)
    type(MPI_Win), intent(in) :: a, b
    hcf08_win_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_session_eq(a, b)
    type(MPI_Session), intent(in) :: a, b
    hcf08_session_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_session_ne(a, b)
    type(MPI_Session), intent(in) :: a, b
    hcf08_session_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_msg_eq(a, b)
    type(MPI_Message), intent(in) :: a, b
    hcf08_msg_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_msg_ne(a, b)
    type(MPI_Message), intent(in) :: a, b
    hcf08_msg_ne = a%MPI_VAL /= b%MPI_VAL
  end function
  logical function hcf08_file_eq(a, b)
    type(MPI_File), intent(in) :: a, b
    hcf08_file_eq = a%MPI_VAL == b%MPI_VAL
  end function
  logical function hcf08_file_ne(a, b)
    type(MPI_File), intent(in) :: a, b
    hcf08_file_ne = a%MPI_VAL /= b%MPI_VAL
  end function
end module mpi_f08
