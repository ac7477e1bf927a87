/*
 * The dynamic-process chapter (MPI-4.0 11.10): ports, accept/connect,
 * join and disconnect.  The engine (src/hcomm/dynamic.c) meets the other
 * job's processes; here are the argument checks and the handles.
 * docs/dynamic.md says what works under which launcher.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_impl.h"
#include "mpi/spawn_codes.h"
#include "util/findexec.h"

/* info is MPI_INFO_NULL or a valid info (its hints are all optional). */
static int dyn_check_info(const char *fn, hc_mpi_comm_t *c, MPI_Info info) {
  if (info == MPI_INFO_NULL || hc_mpi_info_get(info) != NULL)
    return MPI_SUCCESS;
  return hc_mpi_raise(c, fn, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)info);
}

/* A port name argument: present and not longer than MPI allows. */
static int dyn_check_port(const char *fn, hc_mpi_comm_t *c, const char *name) {
  int rc = hc_mpi_check_ptr(fn, c, name, "port_name");
  if (rc == MPI_SUCCESS &&
      strnlen(name, MPI_MAX_PORT_NAME) >= MPI_MAX_PORT_NAME)
    rc = hc_mpi_raise(c, fn, MPI_ERR_PORT, "port name longer than %d",
                      MPI_MAX_PORT_NAME - 1);
  return rc;
}

/* A new intercommunicator's handle, with the handler of parent.  Like any
 * communicator made from another, it derives from parent's session, so its
 * buffered sends find that session's buffer (MPI-4.1). */
static int dyn_wrap(const char *fn, hc_mpi_comm_t *parent, hcomm_comm_t *engine,
                    MPI_Comm *out) {
  hc_mpi_errhandler_t *e = hc_mpi_comm_errhandler(parent);
  int rc = hc_mpi_comm_adopt(fn, engine, e, parent->handle, out);
  hc_mpi_errhandler_release(e);
  if (rc == MPI_SUCCESS)
    hc_mpi_comm_get(*out)->session = parent->session;
  return rc;
}

int PMPI_Open_port(MPI_Info info, char *port_name) {
  static const char fn[] = "MPI_Open_port";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_info(fn, NULL, info);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, port_name, "port_name");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hcomm_port_open(port_name, MPI_MAX_PORT_NAME);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(NULL, fn, st);
}
HC_WEAK_ALIAS(MPI_Open_port, PMPI_Open_port);

int PMPI_Close_port(const char *port_name) {
  static const char fn[] = "MPI_Close_port";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_port(fn, NULL, port_name);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hcomm_port_close(port_name);
  if (st == HC_ERR_PORT)
    return hc_mpi_raise(NULL, fn, MPI_ERR_PORT,
                        "\"%s\" is no port this process opened", port_name);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(NULL, fn, st);
}
HC_WEAK_ALIAS(MPI_Close_port, PMPI_Close_port);

/* What accept and connect check: info and port at root only (MPI-4.0
 * 11.10.2: "used only on root"). */
static int dyn_enter(const char *fn, const char *port_name, MPI_Info info,
                     int root, MPI_Comm comm, MPI_Comm *newcomm,
                     hc_mpi_comm_t **c) {
  int rc = hc_mpi_comm_enter(fn, comm, c);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, *c, newcomm, "newcomm");
  if (rc == MPI_SUCCESS && hcomm_comm_is_inter((*c)->engine))
    rc = hc_mpi_raise(*c, fn, MPI_ERR_COMM, "comm is an intercommunicator");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_root(fn, *c, root);
  int at_root = rc == MPI_SUCCESS && hcomm_comm_rank((*c)->engine) == root;
  if (at_root)
    rc = dyn_check_info(fn, *c, info);
  if (at_root && rc == MPI_SUCCESS)
    rc = dyn_check_port(fn, *c, port_name);
  return rc;
}

/* hcomm_comm_accept or hcomm_comm_connect, the one error that differs
 * said in words. */
typedef hc_status_t (*dyn_meet_fn)(const char *port, hcomm_comm_t *comm,
                                   int root, hcomm_comm_t **newcomm);

static int dyn_meet(const char *fn, dyn_meet_fn meet, const char *no_port,
                    const char *port_name, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *newcomm) {
  hc_mpi_comm_t *c = NULL;
  int rc = dyn_enter(fn, port_name, info, root, comm, newcomm, &c);
  if (rc != MPI_SUCCESS)
    return rc;
  int at_root = hcomm_comm_rank(c->engine) == root;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = meet(at_root ? port_name : NULL, c->engine, root, &engine);
  if (st == HC_ERR_PORT)
    return hc_mpi_raise(c, fn, MPI_ERR_PORT, "%s", no_port);
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return dyn_wrap(fn, c, engine, newcomm);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root,
                     MPI_Comm comm, MPI_Comm *newcomm) {
  return dyn_meet("MPI_Comm_accept", hcomm_comm_accept,
                  "no port of this name is open at the root", port_name, info,
                  root, comm, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_accept, PMPI_Comm_accept);

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm *newcomm) {
  return dyn_meet("MPI_Comm_connect", hcomm_comm_connect,
                  "nobody accepts on the port named at the root", port_name,
                  info, root, comm, newcomm);
}
HC_WEAK_ALIAS(MPI_Comm_connect, PMPI_Comm_connect);

int PMPI_Comm_join(int fd, MPI_Comm *intercomm) {
  static const char fn[] = "MPI_Comm_join";
  hc_mpi_comm_t *self = NULL;
  int rc = hc_mpi_comm_enter(fn, MPI_COMM_SELF, &self);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, self, intercomm, "intercomm");
  if (rc == MPI_SUCCESS && fd < 0)
    rc = hc_mpi_raise(self, fn, MPI_ERR_ARG, "invalid socket %d", fd);
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_join(fd, &engine);
  if (st == HC_ERR_PORT) {
    /* MPI-4.0 11.10.4: a join that fails gives MPI_COMM_NULL. */
    *intercomm = MPI_COMM_NULL;
    return hc_mpi_raise(self, fn, MPI_ERR_ARG,
                        "no MPI process joined at the other end of socket %d",
                        fd);
  }
  if (st != HC_OK)
    return hc_mpi_raise_status(self, fn, st);
  return dyn_wrap(fn, self, engine, intercomm);
}
HC_WEAK_ALIAS(MPI_Comm_join, PMPI_Comm_join);

/* MPI-4.0 11.10.4: collective over comm; waits for the communication
 * pending on it to complete internally (the requests stay the caller's,
 * already complete), then frees it as MPI_Comm_free does. */
int PMPI_Comm_disconnect(MPI_Comm *comm) {
  static const char fn[] = "MPI_Comm_disconnect";
  hc_mpi_comm_t *c = NULL;
  int rc = hc_mpi_check_ptr(fn, NULL, comm, "comm");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_comm_enter(fn, *comm, &c);
  if (rc == MPI_SUCCESS && c->builtin)
    rc = hc_mpi_raise(c, fn, MPI_ERR_COMM, "cannot disconnect %s", c->name);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hcomm_comm_quiesce(c->engine);
  hcomm_request_t *req = NULL;
  if (st == HC_OK && hcomm_comm_is_inter(c->engine)) {
    st = hcomm_inter_barrier(c->engine, 0, &req);
    if (st == HC_OK) {
      st = hcomm_wait(req, NULL);
      hcomm_request_free(req);
    }
  } else if (st == HC_OK) {
    st = hcomm_barrier(c->engine);
  }
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return PMPI_Comm_free(comm);
}
HC_WEAK_ALIAS(MPI_Comm_disconnect, PMPI_Comm_disconnect);

/* A service name argument: present and not empty. */
static int dyn_check_service(const char *fn, const char *service) {
  int rc = hc_mpi_check_ptr(fn, NULL, service, "service_name");
  if (rc == MPI_SUCCESS && service[0] == '\0')
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "empty service name");
  return rc;
}

/* The checks of publish and unpublish. */
static int dyn_enter_names(const char *fn, const char *service, MPI_Info info,
                           const char *port) {
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_service(fn, service);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_info(fn, NULL, info);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_port(fn, NULL, port);
  return rc;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info,
                      const char *port_name) {
  static const char fn[] = "MPI_Publish_name";
  int rc = dyn_enter_names(fn, service_name, info, port_name);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hcomm_name_publish(service_name, port_name);
  if (st == HC_ERR_SERVICE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SERVICE,
                        "service \"%s\" is published already", service_name);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(NULL, fn, st);
}
HC_WEAK_ALIAS(MPI_Publish_name, PMPI_Publish_name);

int PMPI_Unpublish_name(const char *service_name, MPI_Info info,
                        const char *port_name) {
  static const char fn[] = "MPI_Unpublish_name";
  int rc = dyn_enter_names(fn, service_name, info, port_name);
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st = hcomm_name_unpublish(service_name, port_name);
  if (st == HC_ERR_SERVICE)
    return hc_mpi_raise(NULL, fn, MPI_ERR_SERVICE,
                        "service \"%s\" is not published with that port",
                        service_name);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(NULL, fn, st);
}
HC_WEAK_ALIAS(MPI_Unpublish_name, PMPI_Unpublish_name);

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name) {
  static const char fn[] = "MPI_Lookup_name";
  int rc = hc_mpi_check_ready(fn);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_service(fn, service_name);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_info(fn, NULL, info);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, port_name, "port_name");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_status_t st =
      hcomm_name_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
  if (st == HC_ERR_NAME)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NAME,
                        "no port is published as \"%s\"", service_name);
  return st == HC_OK ? MPI_SUCCESS : hc_mpi_raise_status(NULL, fn, st);
}
HC_WEAK_ALIAS(MPI_Lookup_name, PMPI_Lookup_name);

/* ---- spawn ----------------------------------------------------------------
 */

#define DYN_SPAWN_MAX_CMDS 64

/* The reserved info key "path" (MPI-4.0 11.8.4): directories, separated by
 * ':', where a command without '/' is looked for before the launcher's
 * PATH (as execvp looks along PATH).  Returns 1 with the first executable
 * found, made absolute (the children need not start in the root's
 * directory), in found. */
static int dyn_spawn_find(const char *command, MPI_Info info,
                          char found[PATH_MAX]) {
  char dirs[MPI_MAX_INFO_VAL + 1], cand[PATH_MAX];
  int len = (int)sizeof dirs, flag = 0;
  if (info == MPI_INFO_NULL || strchr(command, '/') != NULL ||
      PMPI_Info_get_string(info, "path", &len, dirs, &flag) != MPI_SUCCESS ||
      !flag)
    return 0;
  return hc_find_exec(command, dirs, cand, sizeof cand) &&
         realpath(cand, found) != NULL;
}

/* Checks one command at the root and makes its argv (the program, then
 * argv up to its NULL; MPI_ARGV_NULL: none), malloc'd. */
static int dyn_spawn_cmd(const char *fn, hc_mpi_comm_t *c, const char *command,
                         char *argv[], int maxprocs, MPI_Info info,
                         hcomm_spawn_cmd_t *out) {
  int rc = hc_mpi_check_ptr(fn, c, command, "command");
  if (rc == MPI_SUCCESS && maxprocs < 1)
    rc = hc_mpi_raise(c, fn, MPI_ERR_ARG, "maxprocs %d, at least 1 is needed",
                      maxprocs);
  if (rc == MPI_SUCCESS)
    rc = dyn_check_info(fn, c, info);
  if (rc != MPI_SUCCESS)
    return rc;
  int n = 0;
  while (argv != MPI_ARGV_NULL && argv[n] != NULL)
    n++;
  char found[PATH_MAX], wdir[MPI_MAX_INFO_VAL + 1];
  const char *prog = dyn_spawn_find(command, info, found) ? found : command;
  int wlen = (int)sizeof wdir, has_wdir = 0;
  if (info != MPI_INFO_NULL)
    PMPI_Info_get_string(info, "wdir", &wlen, wdir, &has_wdir);
  /* The argv array, then the program's name when found on "path", then
   * the working directory ("wdir"): one block, freed as one. */
  size_t head = (size_t)(n + 2) * sizeof(const char *);
  size_t plen = prog == found ? strlen(found) + 1 : 0;
  const char **all =
      malloc(head + plen + (has_wdir ? strlen(wdir) + 1 : 0));
  if (all == NULL)
    return hc_mpi_raise(c, fn, MPI_ERR_NO_MEM, "out of memory");
  all[0] = command;
  if (prog == found)
    all[0] = strcpy((char *)all + head, found);
  const char *wd = has_wdir ? strcpy((char *)all + head + plen, wdir) : NULL;
  for (int i = 0; i < n; i++)
    all[i + 1] = argv[i];
  all[n + 1] = NULL;
  *out = (hcomm_spawn_cmd_t){all, maxprocs, wd};
  return MPI_SUCCESS;
}

/* Every process's code: MPI_SUCCESS for all, or MPI_ERR_SPAWN for all when
 * the launcher started none.  n: the processes asked for. */
/* What this thread's last spawn wrote into its codes (spawn_codes.h). */
static _Thread_local int dyn_codes_written;

int hc_mpi_spawn_codes_written(void) { return dyn_codes_written; }

static void dyn_spawn_codes(int *codes, int n, int code) {
  if (codes == MPI_ERRCODES_IGNORE)
    return;
  for (int i = 0; i < n; i++)
    codes[i] = code;
  dyn_codes_written = n;
}

/* The common part of spawn and spawn_multiple, after the root built its
 * commands (cmds NULL elsewhere). */
static int dyn_spawn_run(const char *fn, hc_mpi_comm_t *c, int root,
                         hcomm_spawn_cmd_t *cmds, int ncmds,
                         MPI_Comm *intercomm, int *codes) {
  int total = 0;
  for (int k = 0; cmds != NULL && k < ncmds; k++)
    total += cmds[k].nprocs;
  hcomm_comm_t *engine = NULL;
  hc_status_t st = hcomm_comm_spawn(cmds, ncmds, c->engine, root, &engine);
  for (int k = 0; cmds != NULL && k < ncmds; k++)
    free((void *)cmds[k].argv);
  /* Every process fills its codes, as MPICH does: the count is the root's. */
  hc_status_t bst = hcomm_bcast(&total, sizeof total, root, c->engine);
  if (bst == HC_OK)
    dyn_spawn_codes(codes, total, st == HC_OK ? MPI_SUCCESS : MPI_ERR_SPAWN);
  if (st == HC_ERR_NOT_SUPPORTED || st == HC_ERR_SPAWN) {
    *intercomm = MPI_COMM_NULL;
    if (st == HC_ERR_NOT_SUPPORTED)
      return hc_mpi_raise(c, fn, MPI_ERR_SPAWN,
                          "the launcher (bootstrap %s) cannot start processes; "
                          "hcmpirun can",
                          hcomm_launcher_name());
    return hc_mpi_raise(c, fn, MPI_ERR_SPAWN,
                        "the launcher started no process: a program it cannot "
                        "execute");
  }
  if (st != HC_OK)
    *intercomm = MPI_COMM_NULL;
  if (st == HC_ERR_ARG)
    return hc_mpi_raise(c, fn, MPI_ERR_ARG,
                        "the launcher cannot take these commands: their "
                        "arguments and working directories are too long (or, "
                        "for Hydra, an argument holds a newline); "
                        "HCMPI_LOG=error at the root says which");
  if (st != HC_OK)
    return hc_mpi_raise_status(c, fn, st);
  return dyn_wrap(fn, c, engine, intercomm);
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs,
                    MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm,
                    int array_of_errcodes[]) {
  static const char fn[] = "MPI_Comm_spawn";
  hc_mpi_comm_t *c = NULL;
  hcomm_spawn_cmd_t cmd;
  dyn_codes_written = 0;
  int rc = dyn_enter(fn, "", MPI_INFO_NULL, root, comm, intercomm, &c);
  int at_root = rc == MPI_SUCCESS && hcomm_comm_rank(c->engine) == root;
  if (at_root)
    rc = dyn_spawn_cmd(fn, c, command, argv, maxprocs, info, &cmd);
  if (rc != MPI_SUCCESS)
    return rc;
  return dyn_spawn_run(fn, c, root, at_root ? &cmd : NULL, 1, intercomm,
                       array_of_errcodes);
}
HC_WEAK_ALIAS(MPI_Comm_spawn, PMPI_Comm_spawn);

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[],
                             char **array_of_argv[],
                             const int array_of_maxprocs[],
                             const MPI_Info array_of_info[], int root,
                             MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[]) {
  static const char fn[] = "MPI_Comm_spawn_multiple";
  hc_mpi_comm_t *c = NULL;
  hcomm_spawn_cmd_t cmds[DYN_SPAWN_MAX_CMDS];
  dyn_codes_written = 0;
  int rc = dyn_enter(fn, "", MPI_INFO_NULL, root, comm, intercomm, &c);
  int at_root = rc == MPI_SUCCESS && hcomm_comm_rank(c->engine) == root;
  int made = 0;
  if (at_root && (count < 1 || count > DYN_SPAWN_MAX_CMDS))
    rc = hc_mpi_raise(c, fn, MPI_ERR_ARG, "count %d, 1 to %d allowed", count,
                      DYN_SPAWN_MAX_CMDS);
  if (at_root && rc == MPI_SUCCESS &&
      (array_of_commands == NULL || array_of_maxprocs == NULL ||
       array_of_info == NULL))
    rc = hc_mpi_raise(c, fn, MPI_ERR_ARG, "NULL array argument");
  for (; at_root && rc == MPI_SUCCESS && made < count; made++)
    rc = dyn_spawn_cmd(
        fn, c, array_of_commands[made],
        array_of_argv == MPI_ARGVS_NULL ? MPI_ARGV_NULL : array_of_argv[made],
        array_of_maxprocs[made], array_of_info[made], &cmds[made]);
  if (rc != MPI_SUCCESS) {
    for (int k = 0; k < made - 1; k++)
      free((void *)cmds[k].argv);
    return rc;
  }
  return dyn_spawn_run(fn, c, root, at_root ? cmds : NULL, count, intercomm,
                       array_of_errcodes);
}
HC_WEAK_ALIAS(MPI_Comm_spawn_multiple, PMPI_Comm_spawn_multiple);

/* The parents' intercommunicator gets one handle, made on the first call
 * (MPI-4.0 11.8.2: the same handle each time, MPI_COMM_NULL once freed). */
static MPI_Comm dyn_parent_handle = MPI_COMM_NULL;
static hcomm_comm_t *dyn_parent_engine;

int PMPI_Comm_get_parent(MPI_Comm *parent) {
  static const char fn[] = "MPI_Comm_get_parent";
  hc_mpi_comm_t *world = NULL;
  int rc = hc_mpi_comm_enter(fn, MPI_COMM_WORLD, &world);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, world, parent, "parent");
  if (rc != MPI_SUCCESS)
    return rc;
  hcomm_comm_t *engine = hcomm_comm_parent();
  if (engine == NULL) {
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  if (engine != dyn_parent_engine) {
    rc = dyn_wrap(fn, world, engine, &dyn_parent_handle);
    if (rc != MPI_SUCCESS)
      return rc;
    dyn_parent_engine = engine;
    /* Its default name (MPI-4.0 7.8), which MPI_Comm_set_name may change. */
    hc_mpi_comm_t *p = hc_mpi_comm_get(dyn_parent_handle);
    if (p != NULL)
      snprintf(p->name, sizeof p->name, "%s", "MPI_COMM_PARENT");
  }
  *parent = dyn_parent_handle;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Comm_get_parent, PMPI_Comm_get_parent);
