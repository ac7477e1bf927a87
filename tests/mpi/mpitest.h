/* Shared helpers for the multi-rank MPI tests in tests/mpi/.
 *
 * Every test is a plain MPI program that uses only the standard API, so the
 * same source runs against hcmpi and against MPICH.  A failed CHECK prints
 * the rank, file, line and a message on stderr, then aborts the whole job
 * with MPI_Abort so no rank is left waiting. */
#ifndef HCMPI_TESTS_MPITEST_H
#define HCMPI_TESTS_MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI_STATUSES_IGNORE is a constant pointer ((MPI_Status *)1); GCC's
 * access analysis reads it as an array of size 0 and warns on every
 * Waitall that passes it.  The warning is wrong for MPI, so it is off here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static inline int mt_world_rank(void)
{
    int init = 0, fin = 0, rank = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

__attribute__((noreturn, format(printf, 4, 5))) static inline void
mt_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL rank %d %s:%d: (%s) %s\n", mt_world_rank(), file, line, cond, msg);
    fflush(stderr);
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* CHECK(cond, fmt, ...): the test's only assertion; never returns on failure. */
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond))                                                                     \
            mt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                             \
    } while (0)

/* MPICH returns error codes with extra bits, so tests compare classes. */
static inline int mt_class(int code)
{
    int cls = -1;
    if (code == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

static inline const char *mt_errstr(int code)
{
    static char buf[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    buf[0] = '\0';
    if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
        snprintf(buf, sizeof buf, "(code %d)", code);
    return buf;
}

/* Opens the n MPI_T counters names[] (class COUNTER) in a new *session and
 * starts them; mt_counters_sum reads them and returns their sum. */
static inline void mt_counters_open(MPI_T_pvar_session *session, int n,
                                    const char *const *names, MPI_T_pvar_handle *handles)
{
    CHECK(MPI_T_pvar_session_create(session) == MPI_SUCCESS, "session_create");
    for (int c = 0; c < n; c++) {
        int index = -1, count = 0;
        CHECK(MPI_T_pvar_get_index(names[c], MPI_T_PVAR_CLASS_COUNTER, &index) ==
                  MPI_SUCCESS,
              "no counter %s", names[c]);
        CHECK(MPI_T_pvar_handle_alloc(*session, index, NULL, &handles[c], &count) ==
                      MPI_SUCCESS &&
                  count == 1,
              "handle_alloc %s", names[c]);
    }
    CHECK(MPI_T_pvar_start(*session, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "pvar_start");
}

/* MPI_Finalize, then the counters' session and MPI_T closed (a program that
 * called MPI_T_init_thread and mt_counters_open). */
static inline void mt_counters_finalize(MPI_T_pvar_session *session)
{
    MPI_Finalize();
    CHECK(MPI_T_pvar_session_free(session) == MPI_SUCCESS, "session_free");
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "T_finalize");
}

static inline unsigned long long mt_counters_sum(MPI_T_pvar_session session, int n,
                                                 MPI_T_pvar_handle *handles)
{
    unsigned long long total = 0;
    for (int c = 0; c < n; c++) {
        unsigned long long v = 0;
        CHECK(MPI_T_pvar_read(session, handles[c], &v) == MPI_SUCCESS, "pvar_read");
        total += v;
    }
    return total;
}

/* A byte pattern that differs per message (seed) and per position, and is not
 * periodic at any power of two, so a misplaced chunk is caught. */
static inline unsigned char mt_pattern_byte(size_t i, unsigned seed)
{
    size_t x = i * 2654435761u + (size_t)seed * 40503u + (i >> 12);
    return (unsigned char)(x ^ (x >> 13) ^ (x >> 7));
}

static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = mt_pattern_byte(i, seed);
}

/* Returns the index of the first byte that differs from the pattern, or
 * (size_t)-1 if all n bytes match. */
static inline size_t mt_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_pattern_byte(i, seed))
            return i;
    return (size_t)-1;
}

#define MT_OK ((size_t)-1)

static inline int mt_status_count(const MPI_Status *st, MPI_Datatype type)
{
    int count = -1;
    MPI_Get_count(st, type, &count);
    return count;
}

/* Mappings of hcmpi's collective and transport segments in this process
 * (a memfd shows as "/memfd:hcmpi-shm", a named one under /dev/shm); a
 * window's own memory is "hcmpi-win" and not counted. */
static inline int mt_segments_mapped(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) {
        fprintf(stderr, "cannot read /proc/self/maps\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
        exit(2);
    }
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, maps) != NULL)
        n += strstr(line, "hcmpi-shm") != NULL || strstr(line, "/dev/shm/hcmpi-") != NULL;
    fclose(maps);
    return n;
}

/* MT_MPICH_QUIRKS=1 (set only by validate-mpich.sh) relaxes the few checks
 * where MPICH 4.0.2 itself departs from the standard; each use says which. */
static inline int mt_mpich_quirks(void)
{
    const char *v = getenv("MT_MPICH_QUIRKS");
    return v && v[0] == '1';
}

/* MPI-4.1 gave an invalid error handler argument a class of its own.  The
 * MPICH 4.0.2 headers these tests are also built against predate it, and
 * MPICH 4.0.2 answers MPI_ERR_ARG there; a library of MPI-4.1 on the same
 * ABI (hcmpi relinked, tests/relink/mpich_suite.sh; MPICH from 4.1 on)
 * answers MPI_ERR_ERRHANDLER, 80 in MPICH's numbering.  So that build asks
 * the library's version at run time.  (The header's version decides the
 * rest: the standard ABI's class is an enum, not a macro.) */
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define MT_ERR_ERRHANDLER MPI_ERR_ERRHANDLER
#else
#define MT_MPICH_ERR_ERRHANDLER 80
static inline int mt_err_errhandler(void)
{
    int version = 0, subversion = 0;
    MPI_Get_version(&version, &subversion);
    return version > 4 || (version == 4 && subversion >= 1) ? MT_MPICH_ERR_ERRHANDLER
                                                           : MPI_ERR_ARG;
}
#define MT_ERR_ERRHANDLER mt_err_errhandler()
#endif

/* A byte count from the environment as the library reads it (a k, m or
 * g suffix multiplies by 2^10, 2^20, 2^30), or def where name is unset. */
static inline size_t mt_env_bytes(const char *name, size_t def)
{
    const char *env = getenv(name);
    if (env == NULL)
        return def;
    char *end;
    size_t n = (size_t)strtoull(env, &end, 10);
    int shift = *end == 'k' || *end == 'K'   ? 10
                : *end == 'm' || *end == 'M' ? 20
                : *end == 'g' || *end == 'G' ? 30
                                             : 0;
    return n << shift;
}

static inline void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
        exit(2);
    }
    return p;
}

/* The ways mt_recv_way takes a message of size bytes with tag from world
 * rank 0, filled by mt_fill with seed size: from MPI_ANY_SOURCE; after
 * MPI_Probe, whose count must be size; into a buffer one byte short, which
 * must fail with MPI_ERR_TRUNCATE.  Bytes, count, source and tag are
 * checked; buf holds size bytes. */
enum { MT_WAY_ANY_SOURCE, MT_WAY_PROBE, MT_WAY_SHORT_BUFFER, MT_WAYS };

static inline void mt_recv_way(int size, int way, int tag, unsigned char *buf)
{
    MPI_Status st;
    int room = way == MT_WAY_SHORT_BUFFER ? size - 1 : size;
    if (way == MT_WAY_PROBE) {
        CHECK(MPI_Probe(0, tag, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "probe");
        CHECK(mt_status_count(&st, MPI_BYTE) == size, "probe of %d bytes says %d", size,
              mt_status_count(&st, MPI_BYTE));
    }
    memset(buf, 0, (size_t)size);
    int rc = MPI_Recv(buf, room, MPI_BYTE, way == MT_WAY_ANY_SOURCE ? MPI_ANY_SOURCE : 0,
                      tag, MPI_COMM_WORLD, &st);
    if (way == MT_WAY_SHORT_BUFFER) {
        CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "%d bytes into %d: %s", size, room,
              mt_errstr(rc));
        return;
    }
    CHECK(rc == MPI_SUCCESS, "recv of %d bytes: %s", size, mt_errstr(rc));
    CHECK(mt_status_count(&st, MPI_BYTE) == size && st.MPI_SOURCE == 0 && st.MPI_TAG == tag,
          "%d bytes: count %d source %d tag %d", size, mt_status_count(&st, MPI_BYTE),
          st.MPI_SOURCE, st.MPI_TAG);
    size_t bad = mt_verify(buf, (size_t)size, (unsigned)size);
    CHECK(bad == MT_OK, "%d bytes (way %d): byte %zu differs", size, way, bad);
}

/* Over intercommunicator inter, every member to every remote member and
 * back, a 1 MiB message (tag 1) and a small one (tag 2) each, bytes and
 * statuses checked; the group where first is set sends first, so no pair
 * waits on another.  seed(from_first, from, to) seeds the message from
 * rank `from` of its group to rank `to` of the other. */
static inline void mt_inter_exchange(MPI_Comm inter, int first,
                                     unsigned (*seed)(int, int, int))
{
    enum { small = 64, large = 1 << 20 };
    int rsize, me;
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &me);
    unsigned char *out = mt_malloc(large), *in = mt_malloc(large);
    unsigned char sout[small], sin[small];
    for (int turn = 0; turn < 2; turn++) {
        int sending = (turn == 0) == (first != 0);
        for (int p = 0; p < rsize; p++) {
            if (sending) {
                mt_fill(out, large, seed(first, me, p));
                mt_fill(sout, small, seed(first, me, p) + 7);
                MPI_Send(out, large, MPI_BYTE, p, 1, inter);
                MPI_Send(sout, small, MPI_BYTE, p, 2, inter);
                continue;
            }
            MPI_Status st;
            MPI_Recv(in, large, MPI_BYTE, p, 1, inter, &st);
            CHECK(st.MPI_SOURCE == p && st.MPI_TAG == 1 &&
                      mt_status_count(&st, MPI_BYTE) == large,
                  "large status from %d", p);
            size_t bad = mt_verify(in, large, seed(!first, p, me));
            CHECK(bad == MT_OK, "large message from %d: byte %zu wrong", p, bad);
            MPI_Recv(sin, small, MPI_BYTE, MPI_ANY_SOURCE, 2, inter, &st);
            CHECK(st.MPI_SOURCE == p, "small message from %d, expected %d",
                  st.MPI_SOURCE, p);
            bad = mt_verify(sin, small, seed(!first, p, me) + 7);
            CHECK(bad == MT_OK, "small message from %d: byte %zu wrong", p, bad);
        }
    }
    free(out);
    free(in);
}

#endif
