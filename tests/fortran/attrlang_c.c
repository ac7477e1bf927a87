/* The C half of attrlang.f90: reads attributes Fortran set and sets one
 * Fortran reads (MPI-4.0 19.3.7). */
#include <stddef.h>

#include <mpi.h>

/* The value of an attribute set with MPI_COMM_SET_ATTR: C gets a pointer
 * to the address-sized integer. */
void c_get_aint_(MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *found) {
  MPI_Aint *p = NULL;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, *keyval, &p, &flag);
  *found = flag;
  if (flag)
    *value = *p;
}

/* The same for MPI_ATTR_PUT's INTEGER. */
void c_get_fint_(MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *found) {
  MPI_Fint *p = NULL;
  int flag = 0;
  MPI_Attr_get(MPI_COMM_WORLD, *keyval, &p, &flag);
  *found = flag;
  if (flag)
    *value = *p;
}

static int c_target;

/* Sets keyval's attribute from C to &c_target; *address is that address,
 * which a Fortran get must return. */
void c_set_pointer_(MPI_Fint *keyval, MPI_Aint *address) {
  MPI_Comm_set_attr(MPI_COMM_WORLD, *keyval, &c_target);
  *address = (MPI_Aint)&c_target;
}
