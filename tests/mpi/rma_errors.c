/* Bad one-sided input gets its class and a readable message, never a
 * hang: access outside the target's window (MPI_ERR_RMA_RANGE), an
 * operation outside an epoch, an unlock, complete, wait or flush out of
 * turn, a second lock on the same target (MPI_ERR_RMA_SYNC), a freed or
 * null window (MPI_ERR_WIN), while a window created after the free
 * (perhaps under the freed handle) takes the puts meant for it, a user op
 * in an accumulate and MPI_NO_OP in MPI_Accumulate, where the standard
 * allows it only in the fetching calls (MPI_ERR_OP);
 * MPI_PROC_NULL is a valid target of lock, put, flush and unlock.
 * Errors go to the window's handler: a user handler gets the window's
 * handle, and MPI_Win_call_errhandler reaches it too; MPI_ERRHANDLER_NULL
 * and a file's handler are refused (MPI-4.1's MPI_ERR_ERRHANDLER).  The
 * window's attributes (base, size, displacement unit, flavor, model),
 * keyvals with delete callbacks, name, info hints and group are checked on
 * the way.
 * The bad calls run on an MPI_Win_create window and again on an
 * MPI_Win_allocate one, whose puts and gets are direct copies. */
#include "mpitest.h"

static int rank, size;
static int handler_calls, handler_last_class;
static MPI_Win handler_win;
static int deletes;

static void on_error(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_win = *win;
    MPI_Error_class(*code, &handler_last_class);
}

/* Never called: a file's handler that a window must refuse. */
static void on_file_error(MPI_File *file, int *code, ...)
{
    (void)file;
    (void)code;
}

static int on_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win;
    (void)keyval;
    (void)extra;
    CHECK(*(int *)value == 42, "delete callback got %d", *(int *)value);
    deletes++;
    return MPI_SUCCESS;
}

static void expect(int rc, int cls, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK(mt_class(rc) == cls, "%s: class %d, want %d", what, mt_class(rc), cls);
    MPI_Error_string(rc, text, &len);
    CHECK(len > 0 && strlen(text) == (size_t)len, "%s: no error string", what);
}

static void window_properties(MPI_Win win, int *buf)
{
    void *base = NULL;
    MPI_Aint *wsize = NULL;
    int *unit = NULL, *model = NULL, flag = 0;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == buf, "MPI_WIN_BASE %p, want %p", base, (void *)buf);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &wsize, &flag);
    CHECK(flag && *wsize == 8 * (MPI_Aint)sizeof(int), "MPI_WIN_SIZE");
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
    CHECK(flag && *unit == sizeof(int), "MPI_WIN_DISP_UNIT");
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL");

    static int value = 42;
    int key, *got = NULL;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &key, NULL);
    MPI_Win_set_attr(win, key, &value);
    MPI_Win_get_attr(win, key, &got, &flag);
    CHECK(flag && got == &value, "user attribute");
    MPI_Win_delete_attr(win, key);
    CHECK(deletes == 1, "delete_attr ran %d callbacks", deletes);
    MPI_Win_get_attr(win, key, &got, &flag);
    CHECK(!flag, "attribute still set after delete");
    MPI_Win_set_attr(win, key, &value); /* deleted again by MPI_Win_free */
    MPI_Win_free_keyval(&key);
    expect(MPI_Win_set_attr(win, MPI_WIN_BASE, &value), MPI_ERR_KEYVAL,
           "setting MPI_WIN_BASE");

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 0, "a new window has an empty name");
    MPI_Win_set_name(win, "halo");
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 4 && strcmp(name, "halo") == 0, "name '%s'", name);

    MPI_Info info, used;
    char val[MPI_MAX_INFO_VAL];
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(flag && strcmp(val, "true") == 0, "no_locks hint reads '%s'", val);
    MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(flag && strcmp(val, "rar,raw,war,waw") == 0, "accumulate_ordering '%s'", val);
    MPI_Info_free(&used);

    MPI_Group g, wg;
    int result;
    MPI_Win_get_group(win, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &result);
    CHECK(result == MPI_IDENT, "window group differs from the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

static void bad_calls(MPI_Win win)
{
    int v = 1, right = (rank + 1) % size;
    expect(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
           "put outside an epoch");
    expect(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "unlock without lock");
    expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "complete without start");
    expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "wait without post");
    expect(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC, "flush without lock");
    expect(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "unlock_all without lock_all");

    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    expect(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC,
           "a second lock on the same target");
    expect(MPI_Put(&v, 1, MPI_INT, right, 8, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "put just past the window");
    expect(MPI_Put(&v, 1, MPI_INT, right, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "put at a negative displacement");
    int got[4];
    expect(MPI_Get(got, 4, MPI_INT, right, 6, 4, MPI_INT, win), MPI_ERR_RMA_RANGE,
           "get straddling the end");
    MPI_Op mine;
    MPI_Op_create((MPI_User_function *)(void (*)(void))on_delete, 1, &mine);
    expect(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, mine, win), MPI_ERR_OP,
           "accumulate with a user op");
    MPI_Op_free(&mine);
    expect(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_NO_OP, win),
           MPI_ERR_OP, "MPI_Accumulate with MPI_NO_OP");
    MPI_Request nreq = MPI_REQUEST_NULL;
    expect(MPI_Raccumulate(&v, 2, MPI_INT, right, 0, 2, MPI_INT, MPI_NO_OP, win,
                           &nreq),
           MPI_ERR_OP, "MPI_Raccumulate with MPI_NO_OP");
    expect(MPI_Accumulate(&v, 1, MPI_INT, right, 0, 1, MPI_FLOAT, MPI_SUM, win),
           MPI_ERR_TYPE, "accumulate of int onto float");
    CHECK(MPI_Put(&v, 1, MPI_INT, right, 7, 1, MPI_INT, win) == MPI_SUCCESS,
          "the last int is inside");
    /* No data is no error (MPICH rma/badrma). */
    CHECK(MPI_Accumulate(NULL, 0, MPI_INT, right, 0, 0, MPI_INT, MPI_SUM, win) ==
              MPI_SUCCESS, "accumulate of no data");
    CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, right, 0, 0, MPI_INT,
                             MPI_SUM, win) == MPI_SUCCESS, "get_accumulate of no data");
    MPI_Win_unlock(right, win);

    /* MPI_PROC_NULL is a valid target of every one-sided call. */
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win) == MPI_SUCCESS,
          "lock of MPI_PROC_NULL");
    CHECK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 99, 1, MPI_INT, win) == MPI_SUCCESS,
          "put to MPI_PROC_NULL");
    CHECK(MPI_Win_flush(MPI_PROC_NULL, win) == MPI_SUCCESS, "flush of MPI_PROC_NULL");
    CHECK(MPI_Win_flush_local(MPI_PROC_NULL, win) == MPI_SUCCESS,
          "flush_local of MPI_PROC_NULL");
    CHECK(MPI_Win_unlock(MPI_PROC_NULL, win) == MPI_SUCCESS, "unlock of MPI_PROC_NULL");
    expect(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC, "flush_all without a lock");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int buf[8] = {0};
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Errhandler first;
    MPI_Win_get_errhandler(win, &first);
    CHECK(first == MPI_ERRORS_ARE_FATAL, "a new window's handler is not fatal");
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    window_properties(win, buf);

    MPI_Errhandler eh;
    MPI_Win_create_errhandler(on_error, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    int v = 1;
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    CHECK(handler_calls == 1 && handler_win == win && handler_last_class == MPI_ERR_RMA_SYNC,
          "user handler: %d calls, class %d", handler_calls, handler_last_class);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(handler_calls == 2 && handler_last_class == MPI_ERR_OTHER, "call_errhandler");

    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int rc = MPI_Win_set_errhandler(win, MPI_ERRHANDLER_NULL);
    CHECK(mt_class(rc) == MT_ERR_ERRHANDLER, "MPI_ERRHANDLER_NULL: %s", mt_errstr(rc));
    MPI_Errhandler for_files;
    MPI_File_create_errhandler(on_file_error, &for_files);
    rc = MPI_Win_set_errhandler(win, for_files);
    /* MPICH 4.0.2 takes a file's handler for a window. */
    CHECK(mt_class(rc) == MT_ERR_ERRHANDLER || mt_mpich_quirks(), "a file's handler: %s",
          mt_errstr(rc));
    MPI_Errhandler_free(&for_files);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    bad_calls(win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(buf[7] == 1 || size == 1, "the good put landed");

    MPI_Win freed = win;
    MPI_Win_free(&win);
    CHECK(deletes == 2, "MPI_Win_free ran %d delete callbacks, want 2", deletes);
    expect(MPI_Win_fence(0, freed), MPI_ERR_WIN, "fence on a freed window");
    expect(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, freed), MPI_ERR_WIN,
           "put on a freed window");
    expect(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN,
           "lock on MPI_WIN_NULL");

    /* A window created after the free may get the freed one's handle
     * (the face remembers the last window a thread used): operations
     * through it reach the new window. */
    int *mem = NULL, put = 40 + rank, left = (rank + size - 1) % size;
    MPI_Win again;
    CHECK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                           &again) == MPI_SUCCESS,
          "a window after the free");
    memset(mem, 0, 4 * sizeof(int));
    MPI_Win_fence(0, again);
    MPI_Put(&put, 1, MPI_INT, (rank + 1) % size, 2, 1, MPI_INT, again);
    MPI_Win_fence(0, again);
    CHECK(mem[2] == 40 + left && mem[0] == 0 && mem[1] == 0 && mem[3] == 0,
          "put into the window after the free (handle %s): %d %d %d %d", again == freed ? "reused" : "new",
          mem[0], mem[1], mem[2], mem[3]);
    MPI_Win_free(&again);

    /* The same bad calls on a window in one mapping of the node, where
     * puts and gets to other ranks are copies straight into their memory
     * (the fast path must still find the range and the epoch errors). */
    int *mapped = NULL;
    MPI_Win shared;
    CHECK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mapped, &shared) == MPI_SUCCESS,
          "an allocated window");
    memset(mapped, 0, 8 * sizeof(int));
    MPI_Win_set_errhandler(shared, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    bad_calls(shared);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(mapped[7] == 1 || size == 1,
          "the good put landed in the allocated window");
    MPI_Win_free(&shared);

    expect(MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE,
           "negative size");
    expect(MPI_Win_create(buf, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP,
           "zero displacement unit");
    if (rank == 0)
        printf("rma_errors: every bad call got its class\n");
    MPI_Finalize();
    return 0;
}
