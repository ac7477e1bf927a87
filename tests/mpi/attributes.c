/* Attribute caching: a keyval with counting copy and delete callbacks; the
 * copy runs once per attribute on Comm_dup (and its value lands on the
 * duplicate), the delete runs on Comm_free of each communicator, on
 * Comm_delete_attr and when Comm_set_attr overwrites; MPI_COMM_NULL_COPY_FN
 * keeps an attribute off the duplicate, MPI_COMM_DUP_FN copies the value;
 * a copy callback may return flag 0; a freed keyval's delete callback still
 * runs for attributes set before the free; a freed keyval handle is
 * MPI_ERR_KEYVAL; the deprecated MPI-1 names work; the predefined
 * attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
 * MPI_UNIVERSE_SIZE, MPI_APPNUM) hold exactly the documented values. */
#include "mpitest.h"
#include <limits.h>

static int copies, deletes, last_deleted;

static int count_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    CHECK(extra == &copies, "copy callback got extra_state %p", extra);
    copies++;
    *(void **)out = (void *)((char *)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    deletes++;
    last_deleted = (int)(size_t)value;
    return MPI_SUCCESS;
}

static int refuse_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static void *get(MPI_Comm comm, int key, int *flag)
{
    void *v = NULL;
    MPI_Comm_get_attr(comm, key, &v, flag);
    return v;
}

static void at_callbacks(void)
{
    int key, flag;
    MPI_Comm_create_keyval(count_copy, count_delete, &key, &copies);
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_attr(a, key, (void *)(size_t)5);
    CHECK((size_t)get(a, key, &flag) == 5 && flag, "get after set");
    MPI_Comm_set_attr(a, key, (void *)(size_t)7); /* overwrite deletes 5 */
    CHECK(deletes == 1 && last_deleted == 5, "overwrite: deletes %d last %d", deletes,
          last_deleted);
    MPI_Comm_dup(a, &b);
    CHECK(copies == 1, "dup ran %d copies", copies);
    CHECK((size_t)get(b, key, &flag) == 1007 && flag, "copied value wrong");
    CHECK((size_t)get(a, key, &flag) == 7 && flag, "original value changed");
    MPI_Comm_delete_attr(b, key);
    CHECK(deletes == 2 && last_deleted == 1007, "delete_attr: deletes %d", deletes);
    get(b, key, &flag);
    CHECK(!flag, "attribute still there after delete");
    MPI_Comm_free(&b);
    CHECK(deletes == 2, "free of a comm without the attribute ran a delete");
    /* Freed keyval: the attribute on a stays and its delete still runs. */
    int saved = key;
    MPI_Comm_free_keyval(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
    MPI_Comm_free(&a);
    CHECK(deletes == 3 && last_deleted == 7, "free after free_keyval: deletes %d", deletes);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = mt_mpich_quirks() ? MPI_ERR_KEYVAL : MPI_Comm_set_attr(MPI_COMM_WORLD, saved, NULL);
    CHECK(mt_class(rc) == MPI_ERR_KEYVAL, "set_attr with a freed keyval: class %d", mt_class(rc));
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL);
    CHECK(mt_class(rc) == MPI_ERR_KEYVAL, "set_attr(KEYVAL_INVALID): class %d", mt_class(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void at_predefined_fns(void)
{
    int knull, kdup, krefuse, flag;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL);
    MPI_Comm_create_keyval(refuse_copy, MPI_COMM_NULL_DELETE_FN, &krefuse, NULL);
    static int payload = 42;
    MPI_Comm_set_attr(MPI_COMM_WORLD, knull, &payload);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, &payload);
    MPI_Comm_set_attr(MPI_COMM_WORLD, krefuse, &payload);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    get(d, knull, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
    get(d, krefuse, &flag);
    CHECK(!flag, "copy callback returned flag 0 but the attribute was copied");
    int *v = get(d, kdup, &flag);
    CHECK(flag && v == &payload && *v == 42, "MPI_COMM_DUP_FN did not copy the value");
    MPI_Comm_free(&d);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, knull);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, krefuse);
    MPI_Comm_free_keyval(&knull);
    MPI_Comm_free_keyval(&kdup);
    MPI_Comm_free_keyval(&krefuse);
}

static void at_mpi1_names(void)
{
    int key, flag;
    void *v;
    deletes = copies = 0;
    MPI_Keyval_create(count_copy, count_delete, &key, &copies);
    MPI_Attr_put(MPI_COMM_SELF, key, (void *)(size_t)3);
    MPI_Attr_get(MPI_COMM_SELF, key, &v, &flag);
    CHECK(flag && (size_t)v == 3, "Attr_get");
    MPI_Attr_delete(MPI_COMM_SELF, key);
    CHECK(deletes == 1 && last_deleted == 3, "Attr_delete ran %d deletes", deletes);
    MPI_Keyval_free(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "Keyval_free did not reset the handle");
}

/* The value of a predefined attribute of MPI_COMM_WORLD, or INT_MIN when
 * it is not set. */
static int at_builtin(int key)
{
    int *v = NULL, flag = 0;
    int rc = MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag);
    CHECK(rc == MPI_SUCCESS, "Comm_get_attr(0x%x): %s", (unsigned)key, mt_errstr(rc));
    CHECK(!flag || v != NULL, "key 0x%x set but its value pointer is NULL", (unsigned)key);
    return flag ? *v : INT_MIN;
}

/* What the launcher (hcmpirun, and Hydra for the MPICH check) and the
 * library promise: no distinguished host (MPI_PROC_NULL); every rank may do
 * I/O (MPI_ANY_SOURCE); clocks are not synchronised across the job, which
 * may span nodes (MPI_WTIME_IS_GLOBAL set to 0); the universe is unknown
 * (unset) unless the launcher was given -usize (hcmpirun and Hydra alike);
 * one application, number 0.  A singleton has universe 1 and no APPNUM. */
static void at_builtin_keys(int size)
{
    int launched = getenv("PMI_RANK") != NULL;
    CHECK(at_builtin(MPI_TAG_UB) >= 32767, "MPI_TAG_UB %d", at_builtin(MPI_TAG_UB));
    CHECK(at_builtin(MPI_HOST) == MPI_PROC_NULL, "MPI_HOST %d", at_builtin(MPI_HOST));
    CHECK(at_builtin(MPI_IO) == MPI_ANY_SOURCE, "MPI_IO %d", at_builtin(MPI_IO));
    CHECK(at_builtin(MPI_WTIME_IS_GLOBAL) == 0, "MPI_WTIME_IS_GLOBAL %d",
          at_builtin(MPI_WTIME_IS_GLOBAL));
    int universe = at_builtin(MPI_UNIVERSE_SIZE);
    /* hcmpirun, like Hydra, sets it only when given -usize. */
    CHECK(universe == (launched ? INT_MIN : 1), "MPI_UNIVERSE_SIZE %d, size %d", universe, size);
    int appnum = at_builtin(MPI_APPNUM);
    CHECK(appnum == (launched ? 0 : INT_MIN), "MPI_APPNUM %d (launched %d)", appnum, launched);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    at_callbacks();
    at_predefined_fns();
    at_mpi1_names();
    at_builtin_keys(size);
    /* MPI_Finalize deletes MPI_COMM_SELF's attributes first (MPI 4.0
     * 11.2.4), so a library can hook its own clean-up there. */
    int self_key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &self_key,
                           NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, self_key, &self_key);
    int deletes_before = deletes;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("attributes: OK on %d ranks\n", size);
    MPI_Finalize();
    if (deletes != deletes_before + 1) {
        fprintf(stderr, "MPI_Finalize ran %d delete callbacks on "
                "MPI_COMM_SELF, expected 1\n", deletes - deletes_before);
        return 1;
    }
    return 0;
}
