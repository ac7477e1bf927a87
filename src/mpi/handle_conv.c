/*
 * The C <-> Fortran handle conversions as functions: MPI-4.1 asks for
 * them (MPICH's libmpi.so.12 exports them since 4.2), for languages and
 * tools that call them through the library rather than through mpi.h's
 * macros.  A handle is the same integer in C and Fortran (the MPICH ABI),
 * so each is a cast, exactly what the macros expand to.
 */
#include "mpi/mpi_impl.h"

/* mpi.h's macros of the same names would expand the definitions below. */
#undef MPI_Comm_c2f
#undef MPI_Comm_f2c
#undef PMPI_Comm_c2f
#undef PMPI_Comm_f2c
#undef MPI_Type_c2f
#undef MPI_Type_f2c
#undef PMPI_Type_c2f
#undef PMPI_Type_f2c
#undef MPI_Group_c2f
#undef MPI_Group_f2c
#undef PMPI_Group_c2f
#undef PMPI_Group_f2c
#undef MPI_Info_c2f
#undef MPI_Info_f2c
#undef PMPI_Info_c2f
#undef PMPI_Info_f2c
#undef MPI_Request_c2f
#undef MPI_Request_f2c
#undef PMPI_Request_c2f
#undef PMPI_Request_f2c
#undef MPI_Op_c2f
#undef MPI_Op_f2c
#undef PMPI_Op_c2f
#undef PMPI_Op_f2c
#undef MPI_Errhandler_c2f
#undef MPI_Errhandler_f2c
#undef PMPI_Errhandler_c2f
#undef PMPI_Errhandler_f2c
#undef MPI_Win_c2f
#undef MPI_Win_f2c
#undef PMPI_Win_c2f
#undef PMPI_Win_f2c
#undef MPI_Message_c2f
#undef MPI_Message_f2c
#undef PMPI_Message_c2f
#undef PMPI_Message_f2c
#undef MPI_Session_c2f
#undef MPI_Session_f2c
#undef PMPI_Session_c2f
#undef PMPI_Session_f2c

MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) { return (MPI_Fint)comm; }
HC_WEAK_ALIAS(MPI_Comm_c2f, PMPI_Comm_c2f);

MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) { return (MPI_Comm)comm; }
HC_WEAK_ALIAS(MPI_Comm_f2c, PMPI_Comm_f2c);

MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype) { return (MPI_Fint)datatype; }
HC_WEAK_ALIAS(MPI_Type_c2f, PMPI_Type_c2f);

MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype) { return (MPI_Datatype)datatype; }
HC_WEAK_ALIAS(MPI_Type_f2c, PMPI_Type_f2c);

MPI_Fint PMPI_Group_c2f(MPI_Group group) { return (MPI_Fint)group; }
HC_WEAK_ALIAS(MPI_Group_c2f, PMPI_Group_c2f);

MPI_Group PMPI_Group_f2c(MPI_Fint group) { return (MPI_Group)group; }
HC_WEAK_ALIAS(MPI_Group_f2c, PMPI_Group_f2c);

MPI_Fint PMPI_Info_c2f(MPI_Info info) { return (MPI_Fint)info; }
HC_WEAK_ALIAS(MPI_Info_c2f, PMPI_Info_c2f);

MPI_Info PMPI_Info_f2c(MPI_Fint info) { return (MPI_Info)info; }
HC_WEAK_ALIAS(MPI_Info_f2c, PMPI_Info_f2c);

MPI_Fint PMPI_Request_c2f(MPI_Request request) { return (MPI_Fint)request; }
HC_WEAK_ALIAS(MPI_Request_c2f, PMPI_Request_c2f);

MPI_Request PMPI_Request_f2c(MPI_Fint request) { return (MPI_Request)request; }
HC_WEAK_ALIAS(MPI_Request_f2c, PMPI_Request_f2c);

MPI_Fint PMPI_Op_c2f(MPI_Op op) { return (MPI_Fint)op; }
HC_WEAK_ALIAS(MPI_Op_c2f, PMPI_Op_c2f);

MPI_Op PMPI_Op_f2c(MPI_Fint op) { return (MPI_Op)op; }
HC_WEAK_ALIAS(MPI_Op_f2c, PMPI_Op_f2c);

MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler) {
  return (MPI_Fint)errhandler;
}
HC_WEAK_ALIAS(MPI_Errhandler_c2f, PMPI_Errhandler_c2f);

MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler) {
  return (MPI_Errhandler)errhandler;
}
HC_WEAK_ALIAS(MPI_Errhandler_f2c, PMPI_Errhandler_f2c);

MPI_Fint PMPI_Win_c2f(MPI_Win win) { return (MPI_Fint)win; }
HC_WEAK_ALIAS(MPI_Win_c2f, PMPI_Win_c2f);

MPI_Win PMPI_Win_f2c(MPI_Fint win) { return (MPI_Win)win; }
HC_WEAK_ALIAS(MPI_Win_f2c, PMPI_Win_f2c);

MPI_Fint PMPI_Message_c2f(MPI_Message message) { return (MPI_Fint)message; }
HC_WEAK_ALIAS(MPI_Message_c2f, PMPI_Message_c2f);

MPI_Message PMPI_Message_f2c(MPI_Fint message) { return (MPI_Message)message; }
HC_WEAK_ALIAS(MPI_Message_f2c, PMPI_Message_f2c);

MPI_Fint PMPI_Session_c2f(MPI_Session session) { return (MPI_Fint)session; }
HC_WEAK_ALIAS(MPI_Session_c2f, PMPI_Session_c2f);

MPI_Session PMPI_Session_f2c(MPI_Fint session) { return (MPI_Session)session; }
HC_WEAK_ALIAS(MPI_Session_f2c, PMPI_Session_f2c);
