/*
 * MPI-4 sessions (MPI-4.0 chapter 11): session objects, their process sets
 * and their error handlers.  A session is one more user of the engine
 * (init.c counts the users, so sessions and the world model start and stop
 * it in any order).  The process sets are views of the job the engine
 * already knows: mpi://WORLD, mpi://SELF, and hcmpi://node, the ranks that
 * share this node as the engine grouped them at init from the host
 * information each rank published through the launcher.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpi/bsend_pool.h"
#include "mpi/handle.h"
#include "mpi/mpi_impl.h"

typedef struct session_obj {
  int handle;
  hc_mpi_errhandler_t *errh; /* under session_lock */
  MPI_Info info_used;        /* the caller's hints and the granted level */
  /* MPI_Session_attach_buffer's buffer (bsend_pool.h); NULL: none. */
  struct hc_mpi_bsend_pool *bsend;
} session_obj_t;

static hc_handle_table_t session_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_SESSION, 0);
static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;

enum session_pset { PSET_WORLD, PSET_SELF, PSET_NODE, PSET_COUNT };
static const char *const session_pset_names[PSET_COUNT] = {
    "mpi://WORLD", "mpi://SELF", "hcmpi://node"};

/* Indexed by MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE (0 .. 3). */
static const char *const session_level_names[] = {
    "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
    "MPI_THREAD_MULTIPLE"};
/* The standard's key, and the one MPICH reads and reports. */
static const char *const session_level_keys[] = {"mpi_thread_support_level",
                                                 "thread_level"};

/* The session of a valid handle; raises MPI_ERR_SESSION otherwise (on no
 * session, so on the world's handler or the fatal default). */
static int session_enter(const char *fn, MPI_Session handle,
                         session_obj_t **out) {
  session_obj_t *s = hc_handle_get(&session_table, handle);
  if (!s && handle == MPI_SESSION_NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SESSION,
                        "invalid session MPI_SESSION_NULL");
  if (!s)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SESSION, "invalid session 0x%x",
                        (unsigned)handle);
  *out = s;
  return MPI_SUCCESS;
}

struct hc_mpi_bsend_pool **hc_mpi_session_bsend_slot(MPI_Session session) {
  session_obj_t *s = hc_handle_get(&session_table, session);
  return s ? &s->bsend : NULL;
}

/* A counted reference to the session's handler. */
static hc_mpi_errhandler_t *session_errhandler(session_obj_t *s) {
  pthread_mutex_lock(&session_lock);
  hc_mpi_errhandler_t *e = s->errh;
  hc_mpi_errhandler_retain(e);
  pthread_mutex_unlock(&session_lock);
  return e;
}

static void session_set_errhandler(session_obj_t *s, hc_mpi_errhandler_t *e) {
  hc_mpi_errhandler_retain(e);
  pthread_mutex_lock(&session_lock);
  hc_mpi_errhandler_t *old = s->errh;
  s->errh = e;
  pthread_mutex_unlock(&session_lock);
  if (old)
    hc_mpi_errhandler_release(old);
}

/* A handler a session may take: a builtin or one made for sessions. */
int hc_mpi_session_raise(MPI_Session session, const char *fn, int errclass,
                         const char *what) {
  session_obj_t *s = hc_handle_get(&session_table, session);
  if (s == NULL)
    return hc_mpi_raise(NULL, fn, errclass, "%s", what);
  return hc_mpi_raise_on(session_errhandler(s), session, fn, errclass, "%s",
                         what);
}

static int session_errhandler_ok(const hc_mpi_errhandler_t *e) {
  return e->kind != HC_ERRH_USER || e->session_fn != NULL;
}

/* The thread level the hints ask for; MPI_THREAD_SINGLE when none does
 * (an unknown value is ignored, as hints are). */
static int session_requested_level(MPI_Info info) {
  if (info == MPI_INFO_NULL)
    return MPI_THREAD_SINGLE;
  for (size_t k = 0; k < sizeof session_level_keys / sizeof(char *); k++) {
    char value[64];
    int flag = 0;
    PMPI_Info_get(info, session_level_keys[k], (int)sizeof value - 1, value,
                  &flag);
    for (int level = 0; flag && level <= MPI_THREAD_MULTIPLE; level++)
      if (strcasecmp(value, session_level_names[level]) == 0)
        return level;
  }
  return MPI_THREAD_SINGLE;
}

/* The hints the session runs with: the caller's, with the level granted. */
static int session_info_make(MPI_Info info, int level, MPI_Info *used) {
  int rc = info == MPI_INFO_NULL ? PMPI_Info_create(used)
                                 : PMPI_Info_dup(info, used);
  for (size_t k = 0;
       rc == MPI_SUCCESS && k < sizeof session_level_keys / sizeof(char *); k++)
    rc =
        PMPI_Info_set(*used, session_level_keys[k], session_level_names[level]);
  return rc;
}

static void session_destroy(session_obj_t *s) {
  if (s->info_used != MPI_INFO_NULL)
    PMPI_Info_free(&s->info_used);
  if (s->errh)
    hc_mpi_errhandler_release(s->errh);
  free(s);
}

/* Checks of Session_init that need no engine. */
static int session_init_check(const char *fn, MPI_Info info,
                              MPI_Errhandler errhandler, MPI_Session *session,
                              hc_mpi_errhandler_t **errh) {
  int rc = hc_mpi_check_ptr(fn, NULL, session, "session");
  if (rc != MPI_SUCCESS)
    return rc;
  *errh = hc_mpi_errhandler_get(errhandler);
  if (!*errh)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ERRHANDLER, "invalid errhandler 0x%x",
                        (unsigned)errhandler);
  if (!session_errhandler_ok(*errh))
    return hc_mpi_raise(NULL, fn, MPI_ERR_ERRHANDLER,
                        "errhandler 0x%x was made for communicators",
                        (unsigned)errhandler);
  if (info != MPI_INFO_NULL && !hc_mpi_info_get(info)) {
    /* The handler given is valid: the call reports on it. */
    hc_mpi_errhandler_retain(*errh);
    return hc_mpi_raise_on(*errh, MPI_SESSION_NULL, fn, MPI_ERR_INFO,
                           "invalid info 0x%x", (unsigned)info);
  }
  return MPI_SUCCESS;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
                      MPI_Session *session) {
  static const char fn[] = "MPI_Session_init";
  hc_mpi_errhandler_t *errh = NULL;
  int rc = session_init_check(fn, info, errhandler, session, &errh);
  if (rc != MPI_SUCCESS)
    return rc;
  session_obj_t *s = calloc(1, sizeof *s);
  if (!s)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  s->info_used = MPI_INFO_NULL;
  int level = MPI_THREAD_SINGLE;
  rc = hc_mpi_engine_acquire(fn, errh, session_requested_level(info), &level);
  if (rc != MPI_SUCCESS) {
    free(s);
    return rc;
  }
  session_set_errhandler(s, errh);
  rc = session_info_make(info, level, &s->info_used);
  if (rc == MPI_SUCCESS && hc_handle_alloc(&session_table, s, &s->handle) != 0)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  if (rc != MPI_SUCCESS) {
    session_destroy(s);
    hc_mpi_engine_release(fn);
    return rc;
  }
  *session = s->handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Session_init, PMPI_Session_init);

/* The communicators, groups and requests derived from the session are the
 * caller's to free first (MPI-4.0 11.3.1); the engine stops here when no
 * other session and no world model use it. */
int PMPI_Session_finalize(MPI_Session *session) {
  static const char fn[] = "MPI_Session_finalize";
  session_obj_t *s = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, session, "session");
  if (rc == MPI_SUCCESS)
    rc = session_enter(fn, *session, &s);
  if (rc != MPI_SUCCESS)
    return rc;
  /* Its buffered sends complete before the session goes, as a detach
   * would have waited for them. */
  hc_mpi_bsend_slot_detach(&s->bsend, NULL, NULL);
  hc_handle_free(&session_table, s->handle);
  session_destroy(s);
  *session = MPI_SESSION_NULL;
  return hc_mpi_engine_release(fn);
}
HC_WEAK_ALIAS(MPI_Session_finalize, PMPI_Session_finalize);

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used) {
  static const char fn[] = "MPI_Session_get_info";
  session_obj_t *s = NULL;
  int rc = session_enter(fn, session, &s);
  if (rc == MPI_SUCCESS && !info_used)
    rc = hc_mpi_raise_on(session_errhandler(s), session, fn, MPI_ERR_ARG,
                         "info_used is NULL");
  if (rc != MPI_SUCCESS)
    return rc;
  return PMPI_Info_dup(s->info_used, info_used);
}
HC_WEAK_ALIAS(MPI_Session_get_info, PMPI_Session_get_info);

/* The info argument of the pset queries carries no keys we read. */
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info,
                               int *npset_names) {
  static const char fn[] = "MPI_Session_get_num_psets";
  session_obj_t *s = NULL;
  (void)info;
  int rc = session_enter(fn, session, &s);
  if (rc == MPI_SUCCESS && !npset_names)
    rc = hc_mpi_raise_on(session_errhandler(s), session, fn, MPI_ERR_ARG,
                         "npset_names is NULL");
  if (rc != MPI_SUCCESS)
    return rc;
  *npset_names = PSET_COUNT;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Session_get_num_psets, PMPI_Session_get_num_psets);

/* *pset_len 0 asks for the length (with the terminating null) alone;
 * otherwise up to *pset_len - 1 characters are copied, null-terminated,
 * and *pset_len says how long the whole name is. */
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n,
                              int *pset_len, char *pset_name) {
  static const char fn[] = "MPI_Session_get_nth_pset";
  session_obj_t *s = NULL;
  (void)info;
  int rc = session_enter(fn, session, &s);
  if (rc != MPI_SUCCESS)
    return rc;
  if (n < 0 || n >= PSET_COUNT)
    return hc_mpi_raise_on(session_errhandler(s), session, fn, MPI_ERR_ARG,
                           "no process set %d (there are %d)", n, PSET_COUNT);
  if (!pset_len || *pset_len < 0 || (*pset_len > 0 && !pset_name))
    return hc_mpi_raise_on(session_errhandler(s), session, fn, MPI_ERR_ARG,
                           "pset_len or pset_name is invalid");
  const char *name = session_pset_names[n];
  int len = (int)strlen(name);
  if (*pset_len > 0) {
    int copy = len < *pset_len - 1 ? len : *pset_len - 1;
    memcpy(pset_name, name, (size_t)copy);
    pset_name[copy] = '\0';
  }
  *pset_len = len + 1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Session_get_nth_pset, PMPI_Session_get_nth_pset);

/* The process set called name (names compare without case, as MPICH's
 * do); -1 for none. */
static int session_pset_index(const char *name) {
  for (int p = 0; name && p < PSET_COUNT; p++)
    if (strcasecmp(name, session_pset_names[p]) == 0)
      return p;
  return -1;
}

/* The process set called name; raises MPI_ERR_ARG on the session
 * otherwise. */
static int session_pset_find(const char *fn, session_obj_t *s, const char *name,
                             int *pset) {
  *pset = session_pset_index(name);
  if (*pset >= 0)
    return MPI_SUCCESS;
  return hc_mpi_raise_on(session_errhandler(s), s->handle, fn, MPI_ERR_ARG,
                         "unknown process set \"%s\"", name ? name : "(null)");
}

static int session_pset_size(int pset) {
  const int *node = NULL;
  if (pset == PSET_WORLD)
    return hcomm_comm_size(hcomm_comm_world());
  return pset == PSET_SELF ? 1 : hcomm_node_world_ranks(&node);
}

/* The members of a process set as world ranks, in a new array. */
static int *session_pset_members(int pset, int *n) {
  const int *node = NULL;
  int me = hcomm_comm_rank(hcomm_comm_world());
  hcomm_node_world_ranks(&node);
  *n = session_pset_size(pset);
  if (*n < 0) /* no engine: hcomm's sizes are -1 (never once initialised) */
    *n = 0;
  /* One spare int: an empty set still gets an array, not NULL (no memory). */
  int *members = malloc((size_t)*n * sizeof *members + sizeof *members);
  for (int i = 0; members && i < *n; i++)
    members[i] = pset == PSET_WORLD ? i : pset == PSET_SELF ? me : node[i];
  return members;
}

/* A set is told apart from the other sets of its name (the node of another
 * node, another process's self) by its lowest member, so its instance is
 * pset * world size + that member. */
int hc_mpi_pset_instance(const char *name, int *instance) {
  int pset = session_pset_index(name), n = 0;
  *instance = -1;
  if (pset < 0)
    return MPI_SUCCESS;
  int *members = session_pset_members(pset, &n);
  if (!members)
    return MPI_ERR_NO_MEM;
  int me = hcomm_comm_rank(hcomm_comm_world()), lowest = -1, member = 0;
  for (int i = 0; i < n; i++) {
    member |= members[i] == me;
    if (lowest < 0 || members[i] < lowest)
      lowest = members[i];
  }
  free(members);
  if (member)
    *instance = pset * hcomm_comm_size(hcomm_comm_world()) + lowest;
  return MPI_SUCCESS;
}

/* Entry of the calls on one named process set with one output (what). */
static int session_pset_enter(const char *fn, MPI_Session session,
                              const char *name, const void *out,
                              const char *what, session_obj_t **s, int *pset) {
  int rc = session_enter(fn, session, s);
  if (rc == MPI_SUCCESS)
    rc = session_pset_find(fn, *s, name, pset);
  if (rc == MPI_SUCCESS && !out)
    rc = hc_mpi_raise_on(session_errhandler(*s), session, fn, MPI_ERR_ARG,
                         "%s is NULL", what);
  return rc;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name,
                               MPI_Info *info) {
  static const char fn[] = "MPI_Session_get_pset_info";
  session_obj_t *s = NULL;
  int pset = 0;
  int rc = session_pset_enter(fn, session, pset_name, info, "info", &s, &pset);
  if (rc != MPI_SUCCESS)
    return rc;
  char size[16];
  snprintf(size, sizeof size, "%d", session_pset_size(pset));
  rc = PMPI_Info_create(info);
  if (rc == MPI_SUCCESS)
    rc = PMPI_Info_set(*info, "mpi_size", size);
  return rc;
}
HC_WEAK_ALIAS(MPI_Session_get_pset_info, PMPI_Session_get_pset_info);

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                 MPI_Group *newgroup) {
  static const char fn[] = "MPI_Group_from_session_pset";
  session_obj_t *s = NULL;
  int pset = 0, n = 0;
  int rc = session_pset_enter(fn, session, pset_name, newgroup, "newgroup", &s,
                              &pset);
  if (rc != MPI_SUCCESS)
    return rc;
  int *members = session_pset_members(pset, &n);
  if (!members)
    return hc_mpi_raise_on(session_errhandler(s), session, fn, MPI_ERR_NO_MEM,
                           "out of memory");
  rc = hc_mpi_group_make(fn, NULL, n, members, newgroup);
  free(members);
  if (rc == MPI_SUCCESS)
    hc_mpi_group_set_session(*newgroup, session);
  return rc;
}
HC_WEAK_ALIAS(MPI_Group_from_session_pset, PMPI_Group_from_session_pset);

/* ---- session error handlers --------------------------------------------- */

/* MPI-4.0 lets this run before any MPI_Session_init, so that its handler
 * can be given to the first. */
int PMPI_Session_create_errhandler(
    MPI_Session_errhandler_function *session_errhandler_fn,
    MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_Session_create_errhandler";
  int rc = hc_mpi_check_ptr(fn, NULL, (const void *)session_errhandler_fn,
                            "session_errhandler_fn");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, errhandler, "errhandler");
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_errhandler_new_user(fn, NULL, NULL, session_errhandler_fn,
                                    errhandler);
}
HC_WEAK_ALIAS(MPI_Session_create_errhandler, PMPI_Session_create_errhandler);

int PMPI_Session_set_errhandler(MPI_Session session,
                                MPI_Errhandler errhandler) {
  static const char fn[] = "MPI_Session_set_errhandler";
  session_obj_t *s = NULL;
  int rc = session_enter(fn, session, &s);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_errhandler_t *e = hc_mpi_errhandler_get(errhandler);
  if (!e || !session_errhandler_ok(e))
    return hc_mpi_raise_on(
        session_errhandler(s), session, fn, MPI_ERR_ERRHANDLER,
        "errhandler 0x%x is not a session handler", (unsigned)errhandler);
  session_set_errhandler(s, e);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Session_set_errhandler, PMPI_Session_set_errhandler);

int PMPI_Session_get_errhandler(MPI_Session session,
                                MPI_Errhandler *errhandler) {
  static const char fn[] = "MPI_Session_get_errhandler";
  session_obj_t *s = NULL;
  int rc = session_enter(fn, session, &s);
  if (rc == MPI_SUCCESS && !errhandler)
    rc = hc_mpi_raise_on(session_errhandler(s), session, fn, MPI_ERR_ARG,
                         "errhandler is NULL");
  if (rc != MPI_SUCCESS)
    return rc;
  /* The reference taken here is the user's, dropped by Errhandler_free. */
  *errhandler = session_errhandler(s)->handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Session_get_errhandler, PMPI_Session_get_errhandler);

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  static const char fn[] = "MPI_Session_call_errhandler";
  session_obj_t *s = NULL;
  int rc = session_enter(fn, session, &s);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_raise_on(session_errhandler(s), session, fn, errorcode,
                  "error code %d raised by the application", errorcode);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Session_call_errhandler, PMPI_Session_call_errhandler);
