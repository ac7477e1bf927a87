/* Smaller conformance points (issue 15):
 *   - MPI_Alloc_mem gives usable, aligned memory (with and without info)
 *     that MPI_Free_mem takes back; an impossible size is MPI_ERR_NO_MEM,
 *     a negative one an error, an invalid info MPI_ERR_INFO;
 *   - MPI_Group_incl / MPI_Group_range_incl of zero ranks (ranks NULL too)
 *     give MPI_GROUP_EMPTY, identical to it under MPI_Group_compare;
 *   - MPI_Comm_set_info / MPI_Comm_dup_with_info keep the hints MPI
 *     defines for communicators and ignore other keys, which
 *     MPI_Comm_get_info then does not return;
 *   - MPI_Pack_external_size gives the external32 sizes of MPI 4.0 table
 *     13.2 (MPI_LONG 4 bytes, MPI_WCHAR 2, ...), and MPI_Pack_external /
 *     MPI_Unpack_external write those bytes big-endian and read them back,
 *     alone and inside a struct;
 *   - a message of count 0 may name MPI_DATATYPE_NULL (send, receive,
 *     sendrecv, to itself and between ranks 0 and 1): it arrives empty with
 *     its source and tag; with count 1 that datatype is MPI_ERR_TYPE.
 * Local checks on every rank, but the last between ranks 0 and 1. */
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

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

static void external32_sizes(void) {
  static const struct {
    MPI_Datatype type;
    int size;
  } want[] = {{MPI_CHAR, 1},
              {MPI_WCHAR, 2},
              {MPI_SHORT, 2},
              {MPI_INT, 4},
              {MPI_LONG, 4},
              {MPI_UNSIGNED_LONG, 4},
              {MPI_LONG_LONG, 8},
              {MPI_FLOAT, 4},
              {MPI_DOUBLE, 8},
              {MPI_LONG_DOUBLE, 16},
              {MPI_C_BOOL, 1},
              {MPI_AINT, 8},
              {MPI_OFFSET, 8},
              {MPI_COUNT, 8},
              {MPI_LONG_INT, 8},
              {MPI_DOUBLE_INT, 12},
              {MPI_C_DOUBLE_COMPLEX, 16}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    MPI_Aint size = -1;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Pack_external_size("external32", 3, want[i].type, &size);
    MPI_Type_get_name(want[i].type, name, &len);
    CHECK(size == 3 * want[i].size, "external32 size of 3 %s: %ld, want %d",
          name, (long)size, 3 * want[i].size);
  }
}

/* A long, an unsigned long, a wchar_t and an int in a struct. */
typedef struct ext_rec {
  long l;
  unsigned long u;
  wchar_t w;
  int i;
} ext_rec_t;

static void external32_round_trip(void) {
  long vals[2] = {-2, 0x12345678L};
  unsigned char buf[64];
  MPI_Aint pos = 0;
  MPI_Pack_external("external32", vals, 2, MPI_LONG, buf, sizeof buf, &pos);
  static const unsigned char be[8] = {0xff, 0xff, 0xff, 0xfe,
                                      0x12, 0x34, 0x56, 0x78};
  CHECK(pos == 8 && memcmp(buf, be, 8) == 0, "MPI_LONG packed to %ld bytes",
        (long)pos);
  long back[2] = {0, 0};
  pos = 0;
  MPI_Unpack_external("external32", buf, 8, &pos, back, 2, MPI_LONG);
  CHECK(pos == 8 && back[0] == -2 && back[1] == 0x12345678L,
        "MPI_LONG back: %ld %ld", back[0], back[1]);

  int blens[4] = {1, 1, 1, 1};
  MPI_Aint displs[4] = {offsetof(ext_rec_t, l), offsetof(ext_rec_t, u),
                        offsetof(ext_rec_t, w), offsetof(ext_rec_t, i)};
  MPI_Datatype types[4] = {MPI_LONG, MPI_UNSIGNED_LONG, MPI_WCHAR, MPI_INT};
  MPI_Datatype rec;
  MPI_Type_create_struct(4, blens, displs, types, &rec);
  MPI_Type_commit(&rec);
  ext_rec_t in[2] = {{-7, 0xfffffffeUL, L'z', -9}, {40000, 3, L'A', 5}}, out[2];
  MPI_Aint size;
  MPI_Pack_external_size("external32", 2, rec, &size);
  CHECK(size == 2 * (4 + 4 + 2 + 4), "struct external32 size %ld", (long)size);
  pos = 0;
  MPI_Pack_external("external32", in, 2, rec, buf, sizeof buf, &pos);
  CHECK(pos == size && buf[8] == 0 && buf[9] == 'z', "struct packed: pos %ld",
        (long)pos);
  memset(out, 0, sizeof out);
  pos = 0;
  MPI_Unpack_external("external32", buf, size, &pos, out, 2, rec);
  for (int k = 0; k < 2; k++)
    CHECK(out[k].l == in[k].l && out[k].u == in[k].u && out[k].w == in[k].w &&
              out[k].i == in[k].i,
          "record %d: %ld %lu %d %d", k, out[k].l, out[k].u, (int)out[k].w,
          out[k].i);
  MPI_Type_free(&rec);
}

/* An empty message from source with tag arrived. */
static void check_empty(const MPI_Status *st, int source, int tag,
                        const char *what) {
  int n = -1;
  MPI_Get_count(st, MPI_BYTE, &n);
  CHECK(n == 0 && st->MPI_SOURCE == source && st->MPI_TAG == tag,
        "%s: count %d from %d tag %d", what, n, st->MPI_SOURCE, st->MPI_TAG);
}

static void empty_null_type(int rank, int size) {
  MPI_Request req;
  MPI_Status st;
  int rc = MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, 0, 4, MPI_COMM_SELF, &req);
  CHECK(rc == MPI_SUCCESS, "Isend of 0 MPI_DATATYPE_NULL: %s", mt_errstr(rc));
  rc = MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, 0, 4, MPI_COMM_SELF, &st);
  CHECK(rc == MPI_SUCCESS, "Recv of 0 MPI_DATATYPE_NULL: %s", mt_errstr(rc));
  check_empty(&st, 0, 4, "to itself");
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  rc = MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, 0, 5, NULL, 0,
                    MPI_DATATYPE_NULL, 0, 5, MPI_COMM_SELF, &st);
  CHECK(rc == MPI_SUCCESS, "Sendrecv: %s", mt_errstr(rc));
  check_empty(&st, 0, 5, "sendrecv");
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int one = 1;
  rc = MPI_Send(&one, 1, MPI_DATATYPE_NULL, 0, 6, MPI_COMM_SELF);
  CHECK(mt_class(rc) == MPI_ERR_TYPE, "Send of 1 MPI_DATATYPE_NULL: %s",
        mt_errstr(rc));
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
  if (size < 2 || rank > 1)
    return;
  if (rank == 0) {
    MPI_Send(NULL, 0, MPI_DATATYPE_NULL, 1, 7, MPI_COMM_WORLD);
  } else {
    rc = MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, 0, 7, MPI_COMM_WORLD, &st);
    CHECK(rc == MPI_SUCCESS, "Recv from 0: %s", mt_errstr(rc));
    check_empty(&st, 0, 7, "between ranks");
  }
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  alloc_mem();
  group_incl_empty();
  comm_info_ignored();
  external32_sizes();
  external32_round_trip();
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  empty_null_type(rank, size);
  MPI_Finalize();
  if (rank == 0)
    printf("conformance_misc: ok\n");
  return 0;
}
