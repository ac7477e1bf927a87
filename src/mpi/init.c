/*
 * MPI life cycle and environment: Init, Init_thread, Finalize, Abort, the
 * thread queries, version strings, processor name, Wtime/Wtick, Pcontrol.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hcomm/trace.h"
#include "mpi/mpi_impl.h"
#include "mpi/stream.h"
#include "util/envtable.h"
#include "util/log.h"

atomic_int hc_mpi_init_state = HC_MPI_INIT_BEFORE;
/* The engine serves the world model and every session alike: the first of
 * them to initialise starts it (MPI-4.0 11.2: sessions and the world model
 * live side by side in any order).  The engine cannot start twice, while
 * a process may make and finalise sessions as often as it likes (11.3):
 * so when the last user is a session, the engine is parked instead of
 * stopped, the next session (or MPI_Init) takes it up again, and it stops
 * at exit if still parked.  MPI_Finalize stops it when it is the last
 * user; after that no model can begin. */
atomic_int hc_mpi_engine_users;
static atomic_int init_engine_stopped; /* written under init_lock */
static int init_engine_parked;         /* under init_lock */
static int init_exit_stop_registered;  /* under init_lock */
static int init_thread_level = MPI_THREAD_SINGLE;
static pthread_t init_main_thread;
/* Serialises concurrent Init/Finalize and Session_init/finalize. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

int hc_mpi_check_ready(const char *fn) {
  if (hc_mpi_is_ready())
    return MPI_SUCCESS;
  if (atomic_load(&hc_mpi_init_state) == HC_MPI_INIT_BEFORE && !init_engine_stopped)
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                        "called before MPI_Init or MPI_Session_init, or "
                        "after the last session was finalised");
  return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                      "called after MPI was finalised");
}

static int init_level_clamp(int required) {
  if (required < MPI_THREAD_SINGLE)
    return MPI_THREAD_SINGLE;
  if (required > MPI_THREAD_MULTIPLE)
    return MPI_THREAD_MULTIPLE;
  return required;
}

/* Starts the engine for its first user; init_lock held.  On failure
 * returns the error class with why filled, for the caller to raise where
 * its call reports errors (a session's on the handler it was given). */
static int init_engine_start_locked(int required, char *why, size_t n) {
  if (init_engine_stopped) {
    snprintf(why, n, "MPI was finalised and cannot start again");
    return MPI_ERR_OTHER;
  }
  if (hc_env_check("library", why, n) != 0)
    return MPI_ERR_ARG;
  int granted = MPI_THREAD_SINGLE;
  hc_status_t st = hcomm_init(init_level_clamp(required), &granted);
  if (st != HC_OK) {
    snprintf(why, n, "%s", hcomm_strerror(st));
    return hc_mpi_class_of_status(st);
  }
  hc_mpi_comm_bind_builtins();
  hc_mpi_request_bind_builtins();
  hc_trace_start(); /* HCMPI_TRACE: a no-op when unset */
  init_thread_level = granted;
  init_main_thread = pthread_self();
  return MPI_SUCCESS;
}

static int init_engine_acquire_locked(int required, int *provided, char *why,
                                      size_t n) {
  if (atomic_load(&hc_mpi_engine_users) == 0 && init_engine_parked) {
    init_engine_parked = 0;
  } else if (atomic_load(&hc_mpi_engine_users) == 0) {
    int rc = init_engine_start_locked(required, why, n);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  atomic_fetch_add_explicit(&hc_mpi_engine_users, 1, memory_order_release);
  if (provided)
    *provided = init_thread_level;
  return MPI_SUCCESS;
}

int hc_mpi_engine_acquire(const char *fn, hc_mpi_errhandler_t *errh,
                          int required, int *provided) {
  char why[512];
  pthread_mutex_lock(&init_lock);
  int rc = init_engine_acquire_locked(required, provided, why, sizeof why);
  pthread_mutex_unlock(&init_lock);
  if (rc == MPI_SUCCESS)
    return rc;
  if (errh == NULL)
    return hc_mpi_raise(NULL, fn, rc, "%s", why);
  hc_mpi_errhandler_retain(errh);
  return hc_mpi_raise_on(errh, MPI_SESSION_NULL, fn, rc, "%s", why);
}

/* Stops the engine; init_lock held, its last user leaving. */
static hc_status_t init_engine_stop_locked(void) {
  /* Buffered sends still in flight belong to the job: finish them. */
  hc_mpi_bsend_drain();
  hc_trace_stop();
  hc_status_t st = hcomm_finalize();
  init_engine_stopped = 1;
  init_engine_parked = 0;
  return st;
}

/* At exit, an engine still parked stops as a finalise would have stopped
 * it: with the other processes (its world barrier) and leaving nothing
 * behind (shared segments, the launcher told). */
static void init_engine_stop_at_exit(void) {
  pthread_mutex_lock(&init_lock);
  if (init_engine_parked && atomic_load(&hc_mpi_engine_users) == 0)
    (void)init_engine_stop_locked();
  pthread_mutex_unlock(&init_lock);
}

int hc_mpi_engine_release(const char *fn) {
  hc_status_t st = HC_OK;
  pthread_mutex_lock(&init_lock);
  if (atomic_load(&hc_mpi_engine_users) == 1) {
    if (atomic_load(&hc_mpi_init_state) == HC_MPI_INIT_BEFORE) {
      /* The last session left and the world model never began: parked,
       * for the sessions (or MPI_Init) a process may still make. */
      hc_mpi_bsend_drain();
      init_engine_parked = 1;
      if (!init_exit_stop_registered &&
          atexit(init_engine_stop_at_exit) == 0)
        init_exit_stop_registered = 1;
      if (!init_exit_stop_registered)
        st = init_engine_stop_locked(); /* no exit hook: stop now */
    } else {
      st = init_engine_stop_locked();
    }
  }
  atomic_fetch_sub_explicit(&hc_mpi_engine_users, 1, memory_order_release);
  pthread_mutex_unlock(&init_lock);
  return hc_mpi_raise_status(NULL, fn, st);
}

static int init_start(const char *fn, int required, int *provided) {
  pthread_mutex_lock(&init_lock);
  int state = atomic_load(&hc_mpi_init_state);
  int rc = MPI_SUCCESS;
  if (state != HC_MPI_INIT_BEFORE)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                      state == HC_MPI_INIT_RUNNING
                          ? "MPI is already initialised"
                          : "MPI was finalised and cannot start again");
  char why[512];
  if (rc == MPI_SUCCESS) {
    rc = init_engine_acquire_locked(required, provided, why, sizeof why);
    if (rc != MPI_SUCCESS)
      rc = hc_mpi_raise(NULL, fn, rc, "%s", why);
  }
  if (rc == MPI_SUCCESS)
    atomic_store_explicit(&hc_mpi_init_state, HC_MPI_INIT_RUNNING, memory_order_release);
  pthread_mutex_unlock(&init_lock);
  /* Every process of the world model starts it (a session's start is
   * local, so only here): world's collective segment now, so that
   * persistent and I-collectives built before any blocking one use it.
   * Its failure is not MPI_Init's: a member that died meanwhile leaves
   * the world on the schedules, and the operations that need that member
   * report its death (ULFM); a rank short of memory voted against. */
  if (rc == MPI_SUCCESS) {
    hc_status_t st = hcomm_coll_shm_setup(hcomm_comm_world());
    if (st != HC_OK)
      hc_log(HC_LOG_DEBUG, "init", "no collective segment for the world: %s",
             hcomm_strerror(st));
  }
  return rc;
}

int PMPI_Init(int *argc, char ***argv) {
  return init_start("MPI_Init", MPI_THREAD_SINGLE, NULL);
}
HC_WEAK_ALIAS(MPI_Init, PMPI_Init);

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  static const char fn[] = "MPI_Init_thread";
  int rc = hc_mpi_check_ptr(fn, NULL, provided, "provided");
  if (rc != MPI_SUCCESS)
    return rc;
  return init_start(fn, required, provided);
}
HC_WEAK_ALIAS(MPI_Init_thread, PMPI_Init_thread);

/* MPI_Initialized and MPI_Finalized speak of the world model only. */
int PMPI_Initialized(int *flag) {
  int rc = hc_mpi_check_ptr("MPI_Initialized", NULL, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = atomic_load(&hc_mpi_init_state) != HC_MPI_INIT_BEFORE;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Initialized, PMPI_Initialized);

int PMPI_Finalized(int *flag) {
  int rc = hc_mpi_check_ptr("MPI_Finalized", NULL, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = atomic_load(&hc_mpi_init_state) == HC_MPI_INIT_FINALIZED;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Finalized, PMPI_Finalized);

int PMPI_Finalize(void) {
  static const char fn[] = "MPI_Finalize";
  if (!hc_mpi_world_active())
    return hc_mpi_raise(NULL, fn, MPI_ERR_OTHER,
                        atomic_load(&hc_mpi_init_state) == HC_MPI_INIT_BEFORE
                            ? "called before MPI_Init"
                            : "MPI_Finalize was already called");
  /* MPI says Finalize first frees MPI_COMM_SELF's attributes, newest
   * first, whose delete callbacks libraries use as exit hooks; MPI still
   * works inside them.  MPI_COMM_WORLD's go next, as in MPICH. */
  hc_mpi_attr_delete_all(fn, hc_mpi_comm_get(MPI_COMM_SELF));
  hc_mpi_attr_delete_all(fn, hc_mpi_comm_world());
  hc_mpi_bsend_drain();
  hc_mpi_enq_shutdown();
  atomic_store_explicit(&hc_mpi_init_state, HC_MPI_INIT_FINALIZED, memory_order_release);
  return hc_mpi_engine_release(fn);
}
HC_WEAK_ALIAS(MPI_Finalize, PMPI_Finalize);

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm; /* the whole job ends whatever the communicator */
  hcomm_abort(errorcode, "MPI_Abort called by the application");
}
HC_WEAK_ALIAS(MPI_Abort, PMPI_Abort);

int PMPI_Query_thread(int *provided) {
  static const char fn[] = "MPI_Query_thread";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, provided, "provided");
  if (rc != MPI_SUCCESS)
    return rc;
  *provided = init_thread_level;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Query_thread, PMPI_Query_thread);

int PMPI_Is_thread_main(int *flag) {
  static const char fn[] = "MPI_Is_thread_main";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  *flag = pthread_equal(init_main_thread, pthread_self()) != 0;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Is_thread_main, PMPI_Is_thread_main);

int PMPI_Get_version(int *version, int *subversion) {
  static const char fn[] = "MPI_Get_version";
  int rc = hc_mpi_check_ptr(fn, NULL, version, "version");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, subversion, "subversion");
  if (rc != MPI_SUCCESS)
    return rc;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Get_version, PMPI_Get_version);

/* This library is the MPICH ABI; the standard ABI is libmpi_abi's. */
int PMPI_Abi_get_version(int *abi_major, int *abi_minor) {
  static const char fn[] = "MPI_Abi_get_version";
  int rc = hc_mpi_check_ptr(fn, NULL, abi_major, "abi_major");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, abi_minor, "abi_minor");
  if (rc != MPI_SUCCESS)
    return rc;
  *abi_major = -1;
  *abi_minor = -1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Abi_get_version, PMPI_Abi_get_version);

static const char init_library_version[] =
    "hcmpi 0.1.0 (MPICH ABI 4.x compatible, MPI 4.1)\n"
    "engine: hcomm (self, shm transports; PMI-1 and singleton bootstrap)";

int PMPI_Get_library_version(char *version, int *resultlen) {
  static const char fn[] = "MPI_Get_library_version";
  int rc = hc_mpi_check_ptr(fn, NULL, version, "version");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, resultlen, "resultlen");
  if (rc != MPI_SUCCESS)
    return rc;
  size_t n = strlen(init_library_version);
  if (n > MPI_MAX_LIBRARY_VERSION_STRING - 1)
    n = MPI_MAX_LIBRARY_VERSION_STRING - 1;
  memcpy(version, init_library_version, n);
  version[n] = '\0';
  *resultlen = (int)n;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Get_library_version, PMPI_Get_library_version);

int PMPI_Get_processor_name(char *name, int *resultlen) {
  static const char fn[] = "MPI_Get_processor_name";
  int rc = hc_mpi_check_ptr(fn, NULL, name, "name");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, resultlen, "resultlen");
  if (rc != MPI_SUCCESS)
    return rc;
  char host[MPI_MAX_PROCESSOR_NAME + 1];
  if (gethostname(host, sizeof(host)) != 0)
    strcpy(host, "localhost");
  host[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  size_t n = strlen(host);
  memcpy(name, host, n + 1);
  *resultlen = (int)n;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Get_processor_name, PMPI_Get_processor_name);

double PMPI_Wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
HC_WEAK_ALIAS(MPI_Wtime, PMPI_Wtime);

double PMPI_Wtick(void) {
  struct timespec ts;
  if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
    return 1e-9;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
HC_WEAK_ALIAS(MPI_Wtick, PMPI_Wtick);

int PMPI_Pcontrol(const int level, ...) {
  (void)level; /* no profiling library of our own to steer */
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Pcontrol, PMPI_Pcontrol);
