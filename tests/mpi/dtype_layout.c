/* Every datatype constructor against a hand-computed layout.
 *
 * The data buffer holds int i at index i (around a base pointer in the
 * middle, so negative displacements work).  For each type the test builds
 * the list of int indices one element covers (by hand, below), then checks:
 *  - MPI_Type_size, extent, and MPI_Pack_size;
 *  - MPI_Pack of `count` elements gives those ints in type-map order and
 *    MPI_Unpack puts them back exactly there (and nowhere else);
 *  - a send of the type to the next rank arrives as that int sequence, and
 *    ints sent to the type land exactly at those indices (Get_count and
 *    Get_elements report count elements / count*n basic elements).
 * Runs on any number of ranks (1 = send to self). */
#include "mpitest.h"

#define DL_N 512
#define DL_BASE 128 /* index of the base pointer in the buffer */
#define DL_MAX 64
#define DL_NONE (-99999) /* never an index */

typedef struct dl_case {
    const char *name;
    MPI_Datatype type;
    int count;         /* elements sent */
    int n;             /* ints per element */
    int idx[DL_MAX];   /* ints of all count elements, relative to base */
    MPI_Aint lb, extent;
} dl_case_t;

static int dl_rank, dl_size;

static void dl_fill(int *buf, int value_base)
{
    for (int i = 0; i < DL_N; i++)
        buf[i] = value_base ? i - DL_BASE : DL_NONE;
}

static void dl_check_shape(const dl_case_t *c)
{
    int size = -1, psize = -1;
    MPI_Aint lb = -1, ext = -1;
    MPI_Type_size(c->type, &size);
    MPI_Type_get_extent(c->type, &lb, &ext);
    MPI_Pack_size(c->count, c->type, MPI_COMM_WORLD, &psize);
    CHECK(size == c->n * (int)sizeof(int), "%s: size %d", c->name, size);
    CHECK(lb == c->lb && ext == c->extent, "%s: lb %ld extent %ld, want %ld %ld", c->name,
          (long)lb, (long)ext, (long)c->lb, (long)c->extent);
    CHECK(psize >= c->count * size, "%s: pack size %d", c->name, psize);
}

static void dl_check_pack(const dl_case_t *c)
{
    int buf[DL_N], out[DL_N], packed[DL_MAX + 8];
    int total = c->count * c->n, pos = 0;
    dl_fill(buf, 1);
    MPI_Pack(buf + DL_BASE, c->count, c->type, packed, (int)sizeof(packed), &pos,
             MPI_COMM_WORLD);
    CHECK(pos == total * (int)sizeof(int), "%s: packed %d bytes", c->name, pos);
    for (int i = 0; i < total; i++)
        CHECK(packed[i] == c->idx[i], "%s: packed[%d] = %d, want %d", c->name, i, packed[i],
              c->idx[i]);
    dl_fill(out, 0);
    pos = 0;
    MPI_Unpack(packed, (int)sizeof(packed), &pos, out + DL_BASE, c->count, c->type,
               MPI_COMM_WORLD);
    int hits = 0;
    for (int i = 0; i < DL_N; i++)
        if (out[i] != DL_NONE) {
            CHECK(out[i] == i - DL_BASE, "%s: unpack wrote %d at %d", c->name, out[i],
                  i - DL_BASE);
            hits++;
        }
    CHECK(hits == total, "%s: unpack touched %d ints, want %d", c->name, hits, total);
}

/* Typed send -> ints, then ints -> typed receive, around the ring. */
static void dl_check_p2p(const dl_case_t *c)
{
    int buf[DL_N], out[DL_N], ints[DL_MAX];
    int total = c->count * c->n;
    int next = (dl_rank + 1) % dl_size, prev = (dl_rank + dl_size - 1) % dl_size;
    MPI_Status st;
    dl_fill(buf, 1);
    MPI_Sendrecv(buf + DL_BASE, c->count, c->type, next, 1, ints, total, MPI_INT, prev, 1,
                 MPI_COMM_WORLD, &st);
    CHECK(mt_status_count(&st, MPI_INT) == total, "%s: got %d ints", c->name,
          mt_status_count(&st, MPI_INT));
    for (int i = 0; i < total; i++)
        CHECK(ints[i] == c->idx[i], "%s: received[%d] = %d, want %d", c->name, i, ints[i],
              c->idx[i]);
    dl_fill(out, 0);
    MPI_Sendrecv(c->idx, total, MPI_INT, next, 2, out + DL_BASE, c->count, c->type, prev, 2,
                 MPI_COMM_WORLD, &st);
    int count = -1, elems = -1;
    MPI_Get_count(&st, c->type, &count);
    MPI_Get_elements(&st, c->type, &elems);
    CHECK(count == c->count && elems == total, "%s: count %d elements %d", c->name, count,
          elems);
    for (int i = 0; i < total; i++)
        CHECK(out[DL_BASE + c->idx[i]] == c->idx[i], "%s: index %d holds %d", c->name,
              c->idx[i], out[DL_BASE + c->idx[i]]);
}

static void dl_run(dl_case_t *c)
{
    MPI_Type_commit(&c->type);
    dl_check_shape(c);
    dl_check_pack(c);
    dl_check_p2p(c);
    MPI_Type_free(&c->type);
    CHECK(c->type == MPI_DATATYPE_NULL, "%s: free did not reset the handle", c->name);
}

#define I4 ((MPI_Aint)sizeof(int))

static void dl_case(const char *name, MPI_Datatype t, int count, int n, MPI_Aint lb,
                    MPI_Aint extent, const int *idx)
{
    dl_case_t c = {name, t, count, n, {0}, lb, extent};
    memcpy(c.idx, idx, (size_t)(count * n) * sizeof(int));
    dl_run(&c);
}

static void dl_vectors(void)
{
    MPI_Datatype t;
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    dl_case("vector", t, 2, 6, 0, 10 * I4, (int[]){0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19});
    MPI_Type_create_hvector(3, 1, 3 * I4, MPI_INT, &t);
    dl_case("hvector", t, 2, 3, 0, 7 * I4, (int[]){0, 3, 6, 7, 10, 13});
    MPI_Type_vector(3, 1, -2, MPI_INT, &t);
    dl_case("negative stride", t, 2, 3, -4 * I4, 5 * I4, (int[]){0, -2, -4, 5, 3, 1});
    MPI_Type_hvector(2, 2, -3 * I4, MPI_INT, &t);
    dl_case("MPI-1 hvector", t, 1, 4, -3 * I4, 5 * I4, (int[]){0, 1, -3, -2});
}

static void dl_indexed(void)
{
    MPI_Datatype t;
    MPI_Type_indexed(3, (int[]){2, 0, 1}, (int[]){5, 0, 1}, MPI_INT, &t);
    dl_case("indexed, zero block", t, 2, 3, 1 * I4, 6 * I4, (int[]){5, 6, 1, 11, 12, 7});
    MPI_Type_create_hindexed(2, (int[]){1, 2}, (MPI_Aint[]){2 * I4, 0}, MPI_INT, &t);
    dl_case("hindexed", t, 2, 3, 0, 3 * I4, (int[]){2, 0, 1, 5, 3, 4});
    MPI_Type_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){-I4, I4}, MPI_INT, &t);
    dl_case("MPI-1 hindexed", t, 1, 2, -I4, 3 * I4, (int[]){-1, 1});
    MPI_Type_create_indexed_block(3, 2, (int[]){4, 0, 8}, MPI_INT, &t);
    dl_case("indexed_block", t, 2, 6, 0, 10 * I4,
            (int[]){4, 5, 0, 1, 8, 9, 14, 15, 10, 11, 18, 19});
    MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){I4, 3 * I4}, MPI_INT, &t);
    dl_case("hindexed_block", t, 2, 2, I4, 3 * I4, (int[]){1, 3, 4, 6});
}

static void dl_structs(void)
{
    MPI_Datatype t, s;
    MPI_Type_create_struct(2, (int[]){1, 2}, (MPI_Aint[]){I4, 4 * I4},
                           (MPI_Datatype[]){MPI_INT, MPI_INT}, &s);
    MPI_Type_create_resized(s, 0, 8 * I4, &t);
    MPI_Type_free(&s);
    dl_case("struct with gaps, resized", t, 2, 3, 0, 8 * I4, (int[]){1, 4, 5, 9, 12, 13});
    /* MPI-1 markers: lb -4, ub 20, data at 4 only. */
    MPI_Type_struct(3, (int[]){1, 1, 1}, (MPI_Aint[]){-I4, I4, 5 * I4},
                    (MPI_Datatype[]){MPI_LB, MPI_INT, MPI_UB}, &t);
    dl_case("struct with MPI_LB/MPI_UB", t, 2, 1, -I4, 6 * I4, (int[]){1, 7});
    /* Markers bound only the struct that lists them (MPICH 4: not sticky). */
    MPI_Type_struct(3, (int[]){1, 1, 1}, (MPI_Aint[]){-I4, I4, 5 * I4},
                    (MPI_Datatype[]){MPI_LB, MPI_INT, MPI_UB}, &s);
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 20 * I4},
                           (MPI_Datatype[]){s, MPI_INT}, &t);
    MPI_Type_free(&s);
    dl_case("markers one level up", t, 1, 2, -I4, 22 * I4, (int[]){1, 20});
}

static void dl_arrays(void)
{
    MPI_Datatype t;
    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C,
                             MPI_INT, &t);
    dl_case("subarray C", t, 1, 6, 0, 20 * I4, (int[]){7, 8, 9, 12, 13, 14});
    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN,
                             MPI_INT, &t);
    dl_case("subarray Fortran", t, 2, 6, 0, 20 * I4,
            (int[]){9, 10, 13, 14, 17, 18, 29, 30, 33, 34, 37, 38});
    int gs[2] = {4, 6}, ds[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int da[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
    MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t);
    dl_case("darray C rank 3", t, 1, 4, 0, 24 * I4, (int[]){14, 15, 20, 21});
    MPI_Type_create_darray(4, 2, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t);
    dl_case("darray C rank 2", t, 1, 8, 0, 24 * I4, (int[]){12, 13, 16, 17, 18, 19, 22, 23});
    MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
    dl_case("darray Fortran rank 3", t, 1, 4, 0, 24 * I4, (int[]){10, 11, 14, 15});
    int cs[1] = {MPI_DISTRIBUTE_CYCLIC}, one[1] = {MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Type_create_darray(3, 1, 1, (int[]){8}, cs, one, (int[]){3}, MPI_ORDER_C, MPI_INT, &t);
    dl_case("darray cyclic 1-d", t, 1, 3, 0, 8 * I4, (int[]){1, 4, 7});
}

static void dl_nested(void)
{
    MPI_Datatype pair, v, t;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_vector(2, 1, 3, pair, &v);
    MPI_Type_contiguous(2, v, &t);
    dl_case("contiguous(vector(contiguous))", t, 1, 8, 0, 16 * I4,
            (int[]){0, 1, 6, 7, 8, 9, 14, 15});
    MPI_Type_dup(v, &t);
    dl_case("dup", t, 2, 4, 0, 8 * I4, (int[]){0, 1, 6, 7, 8, 9, 14, 15});
    MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){8 * I4, 0}, v, &t);
    dl_case("hindexed of vector", t, 1, 8, 0, 16 * I4, (int[]){8, 9, 14, 15, 0, 1, 6, 7});
    MPI_Type_free(&v);
    MPI_Type_free(&pair);
    MPI_Type_contiguous(0, MPI_INT, &t);
    MPI_Type_commit(&t);
    int size = -1;
    MPI_Type_size(t, &size);
    CHECK(size == 0, "empty type size %d", size);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &dl_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &dl_size);
    dl_vectors();
    dl_indexed();
    dl_structs();
    dl_arrays();
    dl_nested();
    MPI_Barrier(MPI_COMM_WORLD);
    if (dl_rank == 0)
        printf("dtype_layout: ok on %d ranks\n", dl_size);
    MPI_Finalize();
    return 0;
}
