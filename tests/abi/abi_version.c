/*
 * MPI_Abi_get_version and the ABI queries, built twice: against
 * mpi_abi.h and libmpi_abi (the standard ABI: 1.0, the integer sizes in
 * MPI_Abi_get_info, handles that round-trip through MPI_x_toint/fromint)
 * and against mpi.h and libhcmpi (the MPICH ABI: -1.-1).  argv[1] and
 * argv[2] are the version this build must report.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      failures++;                                                              \
    }                                                                          \
  } while (0)

#ifdef MPI_ABI_VERSION
static void check_info_key(MPI_Info info, const char *key, int want) {
  char value[32];
  int len = (int)sizeof value, flag = 0;
  CHECK(MPI_Info_get_string(info, key, &len, value, &flag) == MPI_SUCCESS &&
            flag,
        "MPI_Abi_get_info has no %s", key);
  if (flag)
    CHECK(atoi(value) == want, "%s = %s, want %d", key, value, want);
}

static void check_standard_abi(void) {
  MPI_Info info = MPI_INFO_NULL;
  CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL,
        "MPI_Abi_get_info");
  check_info_key(info, "mpi_aint_size", (int)sizeof(MPI_Aint));
  check_info_key(info, "mpi_count_size", (int)sizeof(MPI_Count));
  check_info_key(info, "mpi_offset_size", (int)sizeof(MPI_Offset));
  MPI_Info_free(&info);
  /* No Fortran layer has said anything yet; the second set is refused. */
  CHECK(MPI_Abi_get_fortran_info(&info) == MPI_SUCCESS &&
            info == MPI_INFO_NULL,
        "MPI_Abi_get_fortran_info before any set");
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpi_integer_size", "4");
  CHECK(MPI_Abi_set_fortran_info(info) == MPI_SUCCESS, "first set");
  CHECK(MPI_Abi_set_fortran_info(info) == MPI_ERR_ABI, "second set");
  MPI_Info_free(&info);
  CHECK(MPI_Abi_get_fortran_info(&info) == MPI_SUCCESS &&
            info != MPI_INFO_NULL,
        "MPI_Abi_get_fortran_info after set");
  char v[8];
  int len = (int)sizeof v, flag = 0;
  MPI_Info_get_string(info, "mpi_integer_size", &len, v, &flag);
  CHECK(flag && strcmp(v, "4") == 0, "stored Fortran info");
  MPI_Info_free(&info);

  /* Handles as integers: predefined ones are the standard's constants,
   * created ones come back as the same handle. */
  CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101, "toint(MPI_COMM_WORLD)");
  CHECK(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_SELF)) == MPI_COMM_SELF,
        "COMM_SELF round trip");
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  CHECK(MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup, "dup round trip");
  int cmp = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
  CHECK(cmp == MPI_CONGRUENT, "compare(world, dup) = %d", cmp);
  MPI_Comm_free(&dup);
  CHECK(dup == MPI_COMM_NULL, "freed comm is MPI_COMM_NULL");
  CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE,
        "MPI_DOUBLE round trip");
  /* Constants inside arrays and outputs convert both ways. */
  int gsizes[2] = {4, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK,
                                         MPI_DISTRIBUTE_NONE};
  int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  int psizes[2] = {1, 1};
  MPI_Datatype darray = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_create_darray(1, 0, 2, gsizes, distribs, dargs, psizes,
                               MPI_ORDER_C, MPI_INT, &darray) == MPI_SUCCESS,
        "Type_create_darray");
  int tsize = 0, ni, na, nd, combiner = -1;
  MPI_Type_size(darray, &tsize);
  CHECK(tsize == 24 * (int)sizeof(int), "darray size %d", tsize);
  MPI_Type_get_envelope(darray, &ni, &na, &nd, &combiner);
  CHECK(combiner == MPI_COMBINER_DARRAY, "combiner %d", combiner);
  MPI_Type_free(&darray);
  int ranks1[2] = {0, MPI_PROC_NULL}, ranks2[2] = {-7, -7};
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_translate_ranks(world, 2, ranks1, world, ranks2);
  CHECK(ranks2[0] == 0 && ranks2[1] == MPI_PROC_NULL, "translate %d %d",
        ranks2[0], ranks2[1]);
  MPI_Group_free(&world);
  MPI_Comm shared;
  CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                            MPI_INFO_NULL, &shared) == MPI_SUCCESS &&
            shared != MPI_COMM_NULL,
        "split_type shared");
  MPI_Comm_free(&shared);
  int cls = -1;
  MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "Error_class(MPI_ERR_TRUNCATE) = %d", cls);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Send(&cls, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TAG, "send with tag -5 gave class %d", cls);
  int provided = -1;
  MPI_Query_thread(&provided);
  CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
            provided == MPI_THREAD_SERIALIZED ||
            provided == MPI_THREAD_MULTIPLE,
        "Query_thread gave %d, not a standard level", provided);
}
#endif

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: abi_version MAJOR MINOR\n");
    return 2;
  }
  int major = 0, minor = 0;
  /* Callable before MPI_Init. */
  CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS, "before init");
  CHECK(major == atoi(argv[1]) && minor == atoi(argv[2]),
        "version %d.%d, want %s.%s", major, minor, argv[1], argv[2]);
  MPI_Init(&argc, &argv);
#ifdef MPI_ABI_VERSION
  check_standard_abi();
#endif
  MPI_Finalize();
  if (!failures)
    printf("abi_version: %d.%d as expected\n", major, minor);
  return failures ? 1 : 0;
}
