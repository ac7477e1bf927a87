/* The MPI_T interface on one rank: its life cycle (calls before
 * MPI_T_init_thread fail with MPI_T_ERR_NOT_INITIALIZED; init and finalize
 * are counted; it works before MPI_Init and after MPI_Finalize), every
 * control variable readable with the type its info gives and the value
 * the environment set (tests/mpi/mpit_api.sh sets some), writes where
 * allowed and the error classes where not, the enums, the categories
 * (each variable in exactly one; changed when MPI_Init adds the
 * transports' variables), performance-variable sessions (start, stop,
 * read, readreset, write, reset on continuous and non-continuous
 * handles) measured with messages to self, the event source, and the
 * error classes of bad indices, names and handles. */
#include "mpitest.h"

#define EXPECT_RC(call, want)                                                            \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        CHECK(rc_ == (want), "%s returned %d (%s), want %d", #call, rc_,                 \
              rc_ >= 0 && rc_ < 100 ? mt_errstr(rc_) : "?", (int)(want));                \
    } while (0)

static void life_cycle(void)
{
    int n = -1, provided = -1;
    EXPECT_RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    EXPECT_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    EXPECT_RC(MPI_T_finalize(), MPI_SUCCESS);
    /* One init left: still usable. */
    EXPECT_RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    EXPECT_RC(MPI_T_finalize(), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(MPI_T_ERR_CVAR_SET_NEVER, text, &len);
    CHECK(len > 0, "no string for MPI_T_ERR_CVAR_SET_NEVER");
}

static int cvar_index(const char *name)
{
    int index = -1;
    EXPECT_RC(MPI_T_cvar_get_index(name, &index), MPI_SUCCESS);
    return index;
}

/* Whether bind is one of the binding constants of MPI-4.0 (15.3.2); the
 * switch would not compile if two had the same value or one were missing
 * from mpi.h (MPI_T_BIND_MPI_SESSION was).  The MPICH 4.0.2 headers that
 * validate-mpich.sh builds these tests against lack that one, though
 * MPI-4.0 has it; MPICH's from 4.1 on have it. */
static int bind_is_known(int bind)
{
    switch (bind) {
    case MPI_T_BIND_NO_OBJECT:
    case MPI_T_BIND_MPI_COMM:
    case MPI_T_BIND_MPI_DATATYPE:
    case MPI_T_BIND_MPI_ERRHANDLER:
    case MPI_T_BIND_MPI_FILE:
    case MPI_T_BIND_MPI_GROUP:
    case MPI_T_BIND_MPI_OP:
    case MPI_T_BIND_MPI_REQUEST:
    case MPI_T_BIND_MPI_WIN:
    case MPI_T_BIND_MPI_MESSAGE:
    case MPI_T_BIND_MPI_INFO:
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    case MPI_T_BIND_MPI_SESSION:
#endif
        return 1;
    default:
        return 0;
    }
}

/* Reads cvar i; *type and the value as a number (strings: their length). */
static long long cvar_read(int i, MPI_Datatype *type, char *text, size_t text_len)
{
    char name[128];
    int name_len = sizeof name, verb, bind, scope, count = 0;
    MPI_T_enum e;
    MPI_T_cvar_handle h;
    EXPECT_RC(MPI_T_cvar_get_info(i, name, &name_len, &verb, type, &e, NULL, NULL, &bind,
                                  &scope), MPI_SUCCESS);
    CHECK(name_len == (int)strlen(name) + 1, "name_len %d for %s", name_len, name);
    CHECK(bind_is_known(bind), "%s: binding %d", name, bind);
    EXPECT_RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    long long value = 0;
    if (*type == MPI_CHAR) {
        CHECK(count >= 2 && (size_t)count <= text_len, "%s: count %d", name, count);
        memset(text, 'x', (size_t)count);
        EXPECT_RC(MPI_T_cvar_read(h, text), MPI_SUCCESS);
        CHECK(memchr(text, '\0', (size_t)count) != NULL, "%s: string not terminated", name);
        value = (long long)strlen(text);
    } else if (*type == MPI_INT) {
        int v;
        CHECK(count == 1, "%s: count %d", name, count);
        EXPECT_RC(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
        value = v;
        if (e != MPI_T_ENUM_NULL) {
            int items = 0, item_value = -1;
            char item[32];
            int item_len = sizeof item;
            EXPECT_RC(MPI_T_enum_get_info(e, &items, NULL, NULL), MPI_SUCCESS);
            CHECK(items == 2, "%s: enum of %d items", name, items);
            EXPECT_RC(MPI_T_enum_get_item(e, 1, &item_value, item, &item_len), MPI_SUCCESS);
            CHECK(item_value == 1 && strcmp(item, "on") == 0, "%s: item 1 %d %s", name,
                  item_value, item);
            EXPECT_RC(MPI_T_enum_get_item(e, 2, &item_value, NULL, NULL),
                      MPI_T_ERR_INVALID_INDEX);
            CHECK(v == 0 || v == 1, "%s: boolean reads %d", name, v);
        }
    } else {
        unsigned long long v;
        CHECK(*type == MPI_UNSIGNED_LONG_LONG, "%s: type %d", name, (int)*type);
        CHECK(count == 1, "%s: count %d", name, count);
        EXPECT_RC(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
        value = (long long)v;
    }
    EXPECT_RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle_free left the handle");
    return value;
}

/* Every control variable reads with the type its info gives; the ones the
 * script set read what it set. */
static void every_cvar(void)
{
    int n = 0;
    EXPECT_RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n >= 50, "only %d control variables", n);
    for (int i = 0; i < n; i++) {
        MPI_Datatype type;
        char text[512];
        cvar_read(i, &type, text, sizeof text);
    }
    MPI_Datatype type;
    char text[512];
    CHECK(cvar_read(cvar_index("HCMPI_SHM_CELLS"), &type, text, sizeof text) == 48 &&
              type == MPI_INT, "HCMPI_SHM_CELLS does not read 48");
    CHECK(cvar_read(cvar_index("HCMPI_TCP_SENDQ"), &type, text, sizeof text) == 3 << 20 &&
              type == MPI_UNSIGNED_LONG_LONG, "HCMPI_TCP_SENDQ does not read 3m");
    cvar_read(cvar_index("HCMPI_DEVICE_PATH"), &type, text, sizeof text);
    CHECK(type == MPI_CHAR && strcmp(text, "staging") == 0, "HCMPI_DEVICE_PATH reads %s", text);
    CHECK(cvar_read(cvar_index("HCMPI_ASYNC_PROGRESS"), &type, text, sizeof text) == 0 &&
              type == MPI_INT, "HCMPI_ASYNC_PROGRESS does not read 0");
    /* Thresholds whose default is the processor profile's (the script
     * names intel): sizes, reading that profile's values. */
    CHECK(cvar_read(cvar_index("HCMPI_SHM_CMA_MIN"), &type, text, sizeof text) == 32 << 10 &&
              type == MPI_UNSIGNED_LONG_LONG, "HCMPI_SHM_CMA_MIN does not read 32k");
    CHECK(cvar_read(cvar_index("HCMPI_SHM_CMA_HELP_MIN"), &type, text, sizeof text) ==
                  512 << 10 && type == MPI_UNSIGNED_LONG_LONG,
          "HCMPI_SHM_CMA_HELP_MIN does not read 512k");
    CHECK(cvar_read(cvar_index("HCMPI_COLL_SHM_STREAM_MIN"), &type, text, sizeof text) == 0 &&
              type == MPI_UNSIGNED_LONG_LONG, "HCMPI_COLL_SHM_STREAM_MIN does not read 0");
    int len = sizeof text;
    EXPECT_RC(MPI_T_cvar_get_info(n, text, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    MPI_T_cvar_handle h;
    int count;
    EXPECT_RC(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    int index;
    EXPECT_RC(MPI_T_cvar_get_index("HCMPI_NO_SUCH", &index), MPI_T_ERR_INVALID_NAME);
    /* A string argument of length 0 asks only for the length. */
    len = 0;
    EXPECT_RC(MPI_T_cvar_get_info(cvar_index("HCMPI_LOG"), text, &len, NULL, NULL, NULL, NULL,
                                  NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(len == (int)strlen("HCMPI_LOG") + 1, "length query gave %d", len);
}

static MPI_T_cvar_handle cvar_handle(const char *name)
{
    MPI_T_cvar_handle h;
    int count;
    EXPECT_RC(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, &count), MPI_SUCCESS);
    return h;
}

/* Before MPI_Init: the eager limit may be set, the engine's others not yet;
 * read-only ones never. */
static void cvar_writes_before_init(void)
{
    MPI_T_cvar_handle eager = cvar_handle("HCMPI_EAGER_LIMIT");
    MPI_T_cvar_handle spin = cvar_handle("HCMPI_SPIN");
    MPI_T_cvar_handle cells = cvar_handle("HCMPI_SHM_CELLS");
    unsigned long long limit = 8192, got = 0;
    int spins = 100, n = 32;
    EXPECT_RC(MPI_T_cvar_write(eager, &limit), MPI_SUCCESS);
    EXPECT_RC(MPI_T_cvar_read(eager, &got), MPI_SUCCESS);
    CHECK(got == 8192, "eager limit reads %llu before init", got);
    EXPECT_RC(MPI_T_cvar_write(spin, &spins), MPI_T_ERR_CVAR_SET_NOT_NOW);
    EXPECT_RC(MPI_T_cvar_write(cells, &n), MPI_T_ERR_CVAR_SET_NEVER);
    MPI_T_cvar_handle_free(&eager);
    MPI_T_cvar_handle_free(&spin);
    MPI_T_cvar_handle_free(&cells);
    EXPECT_RC(MPI_T_cvar_read(eager, &got), MPI_T_ERR_INVALID_HANDLE);
}

static void cvar_writes_after_init(void)
{
    MPI_T_cvar_handle spin = cvar_handle("HCMPI_SPIN");
    MPI_T_cvar_handle bcast = cvar_handle("HCMPI_COLL_BCAST_LARGE");
    MPI_T_cvar_handle wait_ms = cvar_handle("HCMPI_WAIT_MS");
    MPI_T_cvar_handle eager = cvar_handle("HCMPI_EAGER_LIMIT");
    int spins = 123, got = 0, too_long = 600000;
    unsigned long long large = 1 << 20, got_large = 0;
    EXPECT_RC(MPI_T_cvar_write(spin, &spins), MPI_SUCCESS);
    EXPECT_RC(MPI_T_cvar_read(spin, &got), MPI_SUCCESS);
    CHECK(got == 123, "spin reads %d after writing 123", got);
    EXPECT_RC(MPI_T_cvar_write(bcast, &large), MPI_SUCCESS);
    EXPECT_RC(MPI_T_cvar_read(bcast, &got_large), MPI_SUCCESS);
    CHECK(got_large == 1 << 20, "bcast threshold reads %llu", got_large);
    EXPECT_RC(MPI_T_cvar_write(wait_ms, &too_long), MPI_T_ERR_INVALID);
    /* The limit set before MPI_Init holds after it. */
    EXPECT_RC(MPI_T_cvar_read(eager, &got_large), MPI_SUCCESS);
    CHECK(got_large == 8192, "eager limit reads %llu after init", got_large);
    MPI_T_cvar_handle_free(&spin);
    MPI_T_cvar_handle_free(&bcast);
    MPI_T_cvar_handle_free(&wait_ms);
    MPI_T_cvar_handle_free(&eager);
}

/* Each variable of kind (0 cvar, 1 pvar) lies in exactly one category. */
static void categories_cover(int kind)
{
    int ncat = 0, nvars = 0;
    EXPECT_RC(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    EXPECT_RC(kind ? MPI_T_pvar_get_num(&nvars) : MPI_T_cvar_get_num(&nvars), MPI_SUCCESS);
    int *seen = calloc((size_t)nvars, sizeof *seen);
    int subcats = 0, events = 0;
    for (int c = 0; c < ncat; c++) {
        int nc, np, nsub, nev, list[256];
        EXPECT_RC(MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &nc, &np, &nsub),
                  MPI_SUCCESS);
        EXPECT_RC(MPI_T_category_get_num_events(c, &nev), MPI_SUCCESS);
        int count = kind ? np : nc;
        CHECK(count <= 256, "category %d holds %d", c, count);
        EXPECT_RC(kind ? MPI_T_category_get_pvars(c, count, list)
                       : MPI_T_category_get_cvars(c, count, list), MPI_SUCCESS);
        for (int i = 0; i < count; i++) {
            CHECK(list[i] >= 0 && list[i] < nvars, "category %d lists %d", c, list[i]);
            seen[list[i]]++;
        }
        subcats += nsub;
        events += nev;
    }
    for (int i = 0; i < nvars; i++)
        CHECK(seen[i] == 1, "%s %d is in %d categories", kind ? "pvar" : "cvar", i, seen[i]);
    free(seen);
    CHECK(subcats == ncat - 1, "%d of %d categories hang under another", subcats, ncat);
    CHECK(events == 1, "the categories list %d events", events);
    int root = -1, list[1] = {-1};
    EXPECT_RC(MPI_T_category_get_index("hcmpi", &root), MPI_SUCCESS);
    EXPECT_RC(MPI_T_category_get_categories(root, 1, list), MPI_SUCCESS);
    CHECK(list[0] > root, "root's first subcategory %d", list[0]);
    EXPECT_RC(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_category_get_index("nope", &root), MPI_T_ERR_INVALID_NAME);
}

static int pvar_index(const char *name, int var_class)
{
    int index = -1;
    EXPECT_RC(MPI_T_pvar_get_index(name, var_class, &index), MPI_SUCCESS);
    return index;
}

static void send_self(int n)
{
    char out = 'x', in;
    for (int i = 0; i < n; i++)
        MPI_Sendrecv(&out, 1, MPI_CHAR, 0, 5, &in, 1, MPI_CHAR, 0, 5, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
}

static unsigned long long pread(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ULL;
    EXPECT_RC(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    return v;
}

/* A non-continuous counter counts only while started; readreset, write and
 * reset act on the handle; a continuous one (self's) cannot be stopped; a
 * level is read-only. */
static void pvar_sessions(void)
{
    MPI_T_pvar_session s, other;
    MPI_T_pvar_handle eager, self_sent, queued, foreign;
    int count;
    EXPECT_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_session_create(&other), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s, pvar_index("eager_sent_messages",
                                                    MPI_T_PVAR_CLASS_COUNTER), NULL, &eager,
                                      &count), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s, pvar_index("self_sent_messages",
                                                    MPI_T_PVAR_CLASS_COUNTER), NULL,
                                      &self_sent, &count), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s, pvar_index("posted_queue_length",
                                                    MPI_T_PVAR_CLASS_LEVEL), NULL, &queued,
                                      &count), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_handle_alloc(other, 0, NULL, &foreign, &count), MPI_SUCCESS);
    CHECK(pread(s, eager) == 0, "a stopped handle counted");
    send_self(3);
    CHECK(pread(s, eager) == 0, "a handle never started counted");
    unsigned long long self0 = pread(s, self_sent);
    CHECK(self0 >= 3, "self_sent_messages %llu after 3 sends to self", self0);
    EXPECT_RC(MPI_T_pvar_start(s, eager), MPI_SUCCESS);
    send_self(4);
    CHECK(pread(s, eager) == 4, "started handle reads %llu after 4 sends", pread(s, eager));
    CHECK(pread(s, self_sent) == self0 + 4, "self_sent_messages moved by %llu",
          pread(s, self_sent) - self0);
    EXPECT_RC(MPI_T_pvar_stop(s, eager), MPI_SUCCESS);
    send_self(2);
    CHECK(pread(s, eager) == 4, "stopped handle moved to %llu", pread(s, eager));
    unsigned long long v = 0;
    EXPECT_RC(MPI_T_pvar_readreset(s, eager, &v), MPI_SUCCESS);
    CHECK(v == 4 && pread(s, eager) == 0, "readreset gave %llu then %llu", v, pread(s, eager));
    v = 100;
    EXPECT_RC(MPI_T_pvar_write(s, eager, &v), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    send_self(1);
    CHECK(pread(s, eager) == 101, "written 100, then 1 send: reads %llu", pread(s, eager));
    EXPECT_RC(MPI_T_pvar_reset(s, self_sent), MPI_SUCCESS);
    CHECK(pread(s, self_sent) == 0, "reset continuous handle reads %llu", pread(s, self_sent));
    EXPECT_RC(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK(pread(s, eager) == 0, "reset of all handles left %llu", pread(s, eager));
    /* What each class refuses. */
    EXPECT_RC(MPI_T_pvar_stop(s, self_sent), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT_RC(MPI_T_pvar_write(s, queued, &v), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT_RC(MPI_T_pvar_reset(s, queued), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT_RC(MPI_T_pvar_readreset(s, queued, &v), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK(pread(s, queued) == 0, "posted queue length %llu with nothing posted",
          pread(s, queued));
    EXPECT_RC(MPI_T_pvar_read(s, foreign, &v), MPI_T_ERR_INVALID_HANDLE);
    EXPECT_RC(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    int n = 0;
    MPI_T_pvar_get_num(&n);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s, n, NULL, &foreign, &count), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_pvar_handle_free(s, &eager), MPI_SUCCESS);
    CHECK(eager == MPI_T_PVAR_HANDLE_NULL, "handle_free left the handle");
    EXPECT_RC(MPI_T_pvar_session_free(&other), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_read(other, foreign, &v), MPI_T_ERR_INVALID_SESSION);
    EXPECT_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
}

static double tread(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    double v = -1;
    EXPECT_RC(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    return v;
}

/* progress_time counts only while its handle is started: nothing before,
 * something over polls while started, nothing more once stopped. */
static void progress_timer(void)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle timer, polls;
    int count, verb, cls, bind, ro, cont, atomic;
    MPI_Datatype type;
    MPI_T_enum e;
    int index = pvar_index("progress_time", MPI_T_PVAR_CLASS_TIMER);
    EXPECT_RC(MPI_T_pvar_get_info(index, NULL, NULL, &verb, &cls, &type, &e, NULL, NULL, &bind,
                                  &ro, &cont, &atomic), MPI_SUCCESS);
    CHECK(type == MPI_DOUBLE && !cont && !ro, "progress_time: type %d continuous %d", (int)type,
          cont);
    EXPECT_RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s, index, NULL, &timer, &count), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_handle_alloc(s, pvar_index("progress_polls", MPI_T_PVAR_CLASS_COUNTER),
                                      NULL, &polls, &count), MPI_SUCCESS);
    send_self(10);
    CHECK(tread(s, timer) == 0.0, "timer moved before its start");
    EXPECT_RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    send_self(100);
    EXPECT_RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    double timed = tread(s, timer);
    CHECK(timed > 0.0, "timer read %g after 100 sends to self while started", timed);
    CHECK(pread(s, polls) >= 100, "%llu polls for 100 sends to self", pread(s, polls));
    send_self(10);
    CHECK(tread(s, timer) == timed, "stopped timer moved from %g to %g", timed, tread(s, timer));
    /* Freeing the session with a started timer stops the engine's timing. */
    EXPECT_RC(MPI_T_pvar_start(s, timer), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
}

static void events_and_sources(void)
{
    int n = -1, index;
    EXPECT_RC(MPI_T_event_get_num(&n), MPI_SUCCESS);
    CHECK(n == 1, "%d event types", n);
    EXPECT_RC(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                   NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_event_get_index("nope", &index), MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg;
    EXPECT_RC(MPI_T_event_handle_alloc(n, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_source_get_num(&n), MPI_SUCCESS);
    CHECK(n == 1, "%d event sources", n);
    MPI_T_source_order order;
    MPI_Count ticks = 0, max = 0, t0 = 0, t1 = 0;
    MPI_Info info = MPI_INFO_NULL;
    EXPECT_RC(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, &order, &ticks, &max, &info),
              MPI_SUCCESS);
    CHECK(order == MPI_T_SOURCE_ORDERED && ticks == 1000000000 && max > 0, "source info");
    MPI_Info_free(&info);
    EXPECT_RC(MPI_T_source_get_timestamp(0, &t0), MPI_SUCCESS);
    EXPECT_RC(MPI_T_source_get_timestamp(0, &t1), MPI_SUCCESS);
    CHECK(t1 >= t0, "timestamps ran backwards");
    EXPECT_RC(MPI_T_source_get_timestamp(1, &t0), MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_source_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
              MPI_T_ERR_INVALID_INDEX);
    EXPECT_RC(MPI_T_event_read(NULL, 0, &n), MPI_T_ERR_INVALID_HANDLE);
}

int main(int argc, char **argv)
{
    life_cycle();
    every_cvar();
    cvar_writes_before_init();
    int before = -1, after = -1, npvars0 = 0, npvars1 = 0;
    EXPECT_RC(MPI_T_category_changed(&before), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_get_num(&npvars0), MPI_SUCCESS);
    categories_cover(0);
    MPI_Init(&argc, &argv);
    /* The transports that started added their variables. */
    EXPECT_RC(MPI_T_category_changed(&after), MPI_SUCCESS);
    EXPECT_RC(MPI_T_pvar_get_num(&npvars1), MPI_SUCCESS);
    CHECK(after > before && npvars1 > npvars0, "update %d -> %d, pvars %d -> %d", before, after,
          npvars0, npvars1);
    categories_cover(1);
    cvar_writes_after_init();
    pvar_sessions();
    progress_timer();
    events_and_sources();
    MPI_Finalize();
    /* After MPI_Finalize, MPI_T still answers. */
    MPI_Datatype type;
    char text[512];
    CHECK(cvar_read(cvar_index("HCMPI_SHM_CELLS"), &type, text, sizeof text) == 48,
          "cvar read after MPI_Finalize");
    EXPECT_RC(MPI_T_finalize(), MPI_SUCCESS);
    EXPECT_RC(MPI_T_cvar_get_num(&before), MPI_T_ERR_NOT_INITIALIZED);
    printf("PASS: mpit_api\n");
    return 0;
}
