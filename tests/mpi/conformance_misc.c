/* Smaller conformance points (issue 15):
 *   - MPI_Alloc_mem gives usable, aligned memory (with and without info)
 *     that MPI_Free_mem takes back; an impossible size is MPI_ERR_NO_MEM,
 *     a negative one an error, an invalid info MPI_ERR_INFO;
 *   - MPI_Group_incl / MPI_Group_range_incl of zero ranks (ranks NULL too)
 *     give MPI_GROUP_EMPTY, identical to it under MPI_Group_compare;
 *   - MPI_Comm_set_info / MPI_Comm_dup_with_info keep the hints MPI
 *     defines for communicators and ignore other keys, which
 *     MPI_Comm_get_info then does not return.
 * Local checks on every rank. */
#include <stdint.h>

#include "mpitest.h"

static void alloc_mem(void) {
  char *p = NULL, *q = NULL;
  MPI_Info info;
  MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &p);
  CHECK(p != NULL && (uintptr_t)p % 16 == 0, "Alloc_mem gave %p", (void *)p);
  mt_fill(p, 1 << 20, 5);
  CHECK(mt_verify(p, 1 << 20, 5) == MT_OK, "memory not usable");
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shm", "true");
  MPI_Alloc_mem(0, info, &q); /* size 0: still a pointer Free_mem takes */
  MPI_Info_free(&info);
  MPI_Free_mem(q);
  MPI_Free_mem(p);

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  p = NULL;
  int rc = MPI_Alloc_mem((MPI_Aint)(PTRDIFF_MAX / 2), MPI_INFO_NULL, &p);
  CHECK(mt_class(rc) == MPI_ERR_NO_MEM && p == NULL, "huge Alloc_mem: %s",
        mt_errstr(rc));
  rc = MPI_Alloc_mem(-8, MPI_INFO_NULL, &p);
  CHECK(rc != MPI_SUCCESS && p == NULL, "negative size accepted");
  rc = MPI_Alloc_mem(8, (MPI_Info)0x1c000123, &p);
  CHECK(mt_class(rc) == MPI_ERR_INFO && p == NULL, "bad info: %s",
        mt_errstr(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void group_incl_empty(void) {
  MPI_Group world, g;
  int result = -1, ranks[1] = {0}, range[1][3] = {{0, 0, 1}};
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 0, NULL, &g);
  MPI_Group_compare(g, MPI_GROUP_EMPTY, &result);
  CHECK(g == MPI_GROUP_EMPTY && result == MPI_IDENT,
        "Group_incl(0, NULL): result %d", result);
  MPI_Group_incl(world, 0, ranks, &g);
  MPI_Group_compare(g, MPI_GROUP_EMPTY, &result);
  CHECK(result == MPI_IDENT, "Group_incl(0, ranks): result %d", result);
  MPI_Group_range_incl(world, 0, range, &g);
  MPI_Group_compare(g, MPI_GROUP_EMPTY, &result);
  CHECK(result == MPI_IDENT, "Group_range_incl(0): result %d", result);
  MPI_Group_free(&world);
}

static int info_has(MPI_Info info, const char *key, const char *want) {
  char value[64] = "";
  int flag = 0;
  MPI_Info_get(info, key, (int)sizeof value - 1, value, &flag);
  return flag && strcmp(value, want) == 0;
}

static void comm_info_ignored(void) {
  MPI_Info in, used;
  MPI_Comm c, d;
  int nkeys = -1;
  MPI_Info_create(&in);
  MPI_Info_set(in, "invalid_test_key", "true");
  MPI_Info_set(in, "mpi_assert_no_any_source", "true");
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_info(c, in);
  MPI_Comm_get_info(c, &used);
  MPI_Info_get_nkeys(used, &nkeys);
  CHECK(nkeys == 1 && info_has(used, "mpi_assert_no_any_source", "true"),
        "set_info kept %d keys", nkeys);
  MPI_Info_free(&used);
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &d);
  MPI_Comm_get_info(d, &used);
  MPI_Info_get_nkeys(used, &nkeys);
  CHECK(nkeys == 1 && !info_has(used, "invalid_test_key", "true"),
        "dup_with_info kept %d keys", nkeys);
  MPI_Info_free(&used);
  MPI_Info_free(&in);
  MPI_Comm_free(&c);
  MPI_Comm_free(&d);
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  alloc_mem();
  group_incl_empty();
  comm_info_ignored();
  MPI_Finalize();
  if (rank == 0)
    printf("conformance_misc: ok\n");
  return 0;
}
