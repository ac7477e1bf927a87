/*
 * Processes met at run time (MPI-4.0 11.10): ports, accept/connect, join.
 *
 * The launch transports know only the launcher's world.  Here the engine
 * adds the processes of another job as peers numbered after the world's
 * ranks, reached through the transport of reach RUNTIME (link), and builds
 * an intercommunicator over them:
 *   1. every member of the accepting group opens a listener; each root
 *      gathers its members' names (procname.c) and, accepting, addresses;
 *   2. the roots meet through the port (the connecting root presents the
 *      port's token) and swap, over a bridge on that link, their group's
 *      size and root, a fresh token, and their members' entries;
 *   3. each root shares that in its group; every member of the connecting
 *      group dials every member of the accepting group (the roots' pair is
 *      linked already), presenting the fresh token and its rank;
 *   4. both groups agree on a context id through the bridge
 *      (hc_comm_inter_from_link_locked).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/names.h"
#include "hcomm/comm.h"
#include "hcomm/core.h"
#include "util/env.h"
#include "util/log.h"
#include "util/secret.h"

#define DYN_ADDR_MAX HC_DYNAMIC_ADDR_MAX
#define DYN_TOKEN_LEN (HC_SECRET_HEX - 1)

/* A port open in this process. */
typedef struct dyn_port {
  struct dyn_port *next;
  char name[HCOMM_PORT_NAME_MAX];
  void *listener;
} dyn_port_t;

static dyn_port_t *dyn_ports; /* under the engine lock */

/* One member of a group as the other group learns it: its listener's
 * address (accepting side; "" connecting) and its name. */
typedef struct dyn_member {
  char addr[DYN_ADDR_MAX];
  hc_proc_name_t name;
} dyn_member_t;

/* What one root tells the other about its group. */
typedef struct dyn_group_msg {
  int32_t status; /* HC_OK, or why the root failed (shared in its group) */
  int32_t size;
  int32_t root;
  char token[HC_SECRET_HEX]; /* accepting side: the members' token */
} dyn_group_msg_t;

static int dyn_timeout_ms(void) {
  return (int)hc_env_long("HCMPI_LINK_TIMEOUT_MS", 60000);
}

hc_status_t hcomm_name_publish(const char *service, const char *port) {
  return hc_names_publish(service, port);
}

hc_status_t hcomm_name_unpublish(const char *service, const char *port) {
  return hc_names_unpublish(service, port);
}

hc_status_t hcomm_name_lookup(const char *service, char *port, size_t len) {
  return hc_names_lookup(service, port, len);
}

int hcomm_process_count(void) {
  hc_engine_lock();
  int n = hc_engine.npeers;
  hc_engine_unlock();
  return n;
}

/* The run-time transport, started if need be. */
static hc_status_t dyn_transport(hc_engine_transport_t **t) {
  hc_engine_lock();
  hc_status_t rc = hc_engine_check();
  if (rc == HC_OK)
    rc = hc_engine_runtime_transport(t);
  hc_engine_unlock();
  return rc;
}

/* "ip:port:token" into its address and token parts. */
static hc_status_t dyn_port_split(const char *name, char *addr,
                                  char token[HC_SECRET_HEX]) {
  const char *colon = strrchr(name, ':');
  if (colon == NULL || strlen(colon + 1) != DYN_TOKEN_LEN ||
      (size_t)(colon - name) >= DYN_ADDR_MAX)
    return HC_ERR_PORT;
  memcpy(addr, name, (size_t)(colon - name));
  addr[colon - name] = '\0';
  memcpy(token, colon + 1, HC_SECRET_HEX);
  return HC_OK;
}

hc_status_t hcomm_port_open(char *name, size_t len) {
  hc_engine_transport_t *t = NULL;
  char addr[DYN_ADDR_MAX], token[HC_SECRET_HEX];
  hc_status_t rc = dyn_transport(&t);
  dyn_port_t *port = calloc(1, sizeof *port);
  if (rc == HC_OK && port == NULL)
    rc = HC_ERR_NOMEM;
  if (rc == HC_OK && hc_secret_new(token, sizeof token) != 0)
    rc = HC_ERR_SYSTEM;
  if (rc == HC_OK)
    rc = t->ops->runtime->listen(t->ctx, addr, sizeof addr, &port->listener);
  if (rc == HC_OK) {
    int w = snprintf(port->name, sizeof port->name, "%s:%s", addr, token);
    if (w < 0 || (size_t)w >= len || (size_t)w >= sizeof port->name)
      rc = HC_ERR_ARG;
  }
  if (rc != HC_OK) {
    if (port != NULL && t != NULL)
      t->ops->runtime->unlisten(t->ctx, port->listener);
    free(port);
    return rc;
  }
  memcpy(name, port->name, strlen(port->name) + 1);
  hc_engine_lock();
  port->next = dyn_ports;
  dyn_ports = port;
  hc_engine_unlock();
  return HC_OK;
}

/* The open port named name; NULL when none.  Caller holds the lock. */
static dyn_port_t **dyn_port_find(const char *name) {
  for (dyn_port_t **p = &dyn_ports; *p != NULL; p = &(*p)->next)
    if (strcmp((*p)->name, name) == 0)
      return p;
  return NULL;
}

hc_status_t hcomm_port_close(const char *name) {
  hc_engine_transport_t *t = NULL;
  hc_status_t rc = dyn_transport(&t);
  if (rc != HC_OK)
    return rc;
  hc_engine_lock();
  dyn_port_t **p = dyn_port_find(name);
  dyn_port_t *port = p != NULL ? *p : NULL;
  if (port != NULL)
    *p = port->next;
  hc_engine_unlock();
  if (port == NULL)
    return HC_ERR_PORT;
  t->ops->runtime->unlisten(t->ctx, port->listener);
  free(port);
  return HC_OK;
}

/* Adopts fd as a new peer and opens the bridge to it (the roots). */
static hc_status_t dyn_root_link(hc_engine_transport_t *t, int fd, int *peer,
                                 hcomm_comm_t **bridge) {
  hc_engine_lock();
  hc_status_t rc = hc_engine_peers_add(t, 1, peer);
  if (rc == HC_OK)
    rc = t->ops->runtime->adopt(t->ctx, *peer, fd);
  if (rc == HC_OK) {
    *bridge = hc_comm_link_bridge_new(*peer);
    rc = *bridge != NULL ? HC_OK : HC_ERR_NOMEM;
  }
  hc_engine_unlock();
  return rc;
}

/* Numbers the remote group's members (n, in their order) as new peers,
 * except its root when this is the root (linked already, as peer
 * root_peer). */
static hc_status_t dyn_number_remote(hc_engine_transport_t *t, int n,
                                     int remote_root, int is_root,
                                     int root_peer, int *remote) {
  int first = 0;
  hc_engine_lock();
  hc_status_t rc = hc_engine_peers_add(t, is_root ? n - 1 : n, &first);
  hc_engine_unlock();
  for (int i = 0, next = first; rc == HC_OK && i < n; i++)
    remote[i] = is_root && i == remote_root ? root_peer : next++;
  return rc;
}

/* Names the remote members' peers after their entries. */
static void dyn_name_remote(int n, const int *remote,
                            const dyn_member_t *members) {
  hc_engine_lock();
  for (int i = 0; i < n; i++)
    hc_engine.peers[remote[i]].name = members[i].name;
  hc_engine_unlock();
}

/* This member's entry: its name and, accepting, its listener's address. */
static dyn_member_t dyn_member_self(const char *addr) {
  dyn_member_t me;
  memset(&me, 0, sizeof me);
  snprintf(me.addr, sizeof me.addr, "%s", addr);
  hc_engine_lock();
  me.name = hc_peer_name(hc_engine.world_rank);
  hc_engine_unlock();
  return me;
}

static hc_status_t dyn_adopt(hc_engine_transport_t *t, int peer, int fd) {
  hc_engine_lock();
  hc_status_t rc = t->ops->runtime->adopt(t->ctx, peer, fd);
  hc_engine_unlock();
  return rc;
}

static void dyn_finish_failed(hcomm_comm_t *bridge) {
  hc_engine_lock();
  hc_comm_link_bridge_free(bridge);
  hc_engine_unlock();
}

/* The last step, at every member (bridge at the root only). */
static hc_status_t dyn_finish(hcomm_comm_t *comm, int root,
                              hcomm_comm_t *bridge, int n, const int *remote,
                              int merge_order, hcomm_comm_t **newcomm) {
  hc_engine_lock();
  hc_status_t rc = hc_comm_inter_from_link_locked(comm, root, bridge, n, remote,
                                                  merge_order, newcomm);
  hc_comm_link_bridge_free(bridge);
  hc_engine_unlock();
  return rc;
}

/* The roots swap their members' entries (mine: mine_n of them, *theirs
 * malloc'd for theirs_n) once the descriptions checked out. */
static hc_status_t dyn_swap_members(hcomm_comm_t *bridge,
                                    const dyn_member_t *mine, int mine_n,
                                    int theirs_n, dyn_member_t **theirs) {
  *theirs = calloc((size_t)theirs_n, sizeof **theirs);
  if (*theirs == NULL)
    return HC_ERR_NOMEM; /* the other root then waits out its timeout */
  hc_engine_lock();
  hc_status_t rc =
      hc_comm_link_swap_locked(bridge, mine, (size_t)mine_n * sizeof *mine,
                               *theirs, (size_t)theirs_n * sizeof **theirs);
  hc_engine_unlock();
  return rc;
}

/* The accepting root: waits on the port, links the connecting root,
 * swaps the groups' descriptions and their members' entries (*remote,
 * malloc'd). */
static hc_status_t dyn_accept_root(hc_engine_transport_t *t, const char *name,
                                   dyn_group_msg_t *mine,
                                   const dyn_member_t *members,
                                   dyn_group_msg_t *theirs,
                                   dyn_member_t **remote, int *root_peer,
                                   hcomm_comm_t **bridge) {
  char addr[DYN_ADDR_MAX], token[HC_SECRET_HEX];
  void *listener = NULL;
  int fd = -1, value = 0;
  hc_engine_lock();
  dyn_port_t **p = dyn_port_find(name);
  if (p != NULL)
    listener = (*p)->listener;
  hc_engine_unlock();
  if (listener == NULL || dyn_port_split(name, addr, token) != HC_OK) {
    hc_log(HC_LOG_DEBUG, "dynamic", "accept: %s is no port open here", name);
    return HC_ERR_PORT;
  }
  hc_status_t rc =
      t->ops->runtime->accept(t->ctx, listener, token, 1, -1, &fd, &value);
  if (rc == HC_OK)
    rc = dyn_root_link(t, fd, root_peer, bridge);
  if (rc == HC_OK && hc_secret_new(mine->token, sizeof mine->token) != 0)
    rc = HC_ERR_SYSTEM;
  mine->status = rc;
  if (*bridge == NULL)
    return rc;
  hc_engine_lock();
  hc_status_t src = hc_comm_link_swap_locked(*bridge, mine, sizeof *mine,
                                             theirs, sizeof *theirs);
  hc_engine_unlock();
  if (rc == HC_OK && src == HC_OK && theirs->status != HC_OK)
    rc = theirs->status;
  if (rc == HC_OK && src == HC_OK && theirs->size < 1)
    rc = HC_ERR_PEER_CORRUPT;
  if (rc == HC_OK && src == HC_OK)
    src = dyn_swap_members(*bridge, members, mine->size, theirs->size, remote);
  return rc != HC_OK ? rc : src;
}

/* The connecting root: reaches the port, links the accepting root, swaps
 * the groups' descriptions and their members' entries (*remote,
 * malloc'd). */
static hc_status_t dyn_connect_root(hc_engine_transport_t *t, const char *name,
                                    dyn_group_msg_t *mine,
                                    const dyn_member_t *members,
                                    dyn_group_msg_t *theirs,
                                    dyn_member_t **remote, int *root_peer,
                                    hcomm_comm_t **bridge) {
  char addr[DYN_ADDR_MAX], token[HC_SECRET_HEX];
  int fd = -1;
  hc_status_t rc = dyn_port_split(name, addr, token);
  if (rc == HC_OK)
    rc = t->ops->runtime->dial(t->ctx, addr, token, 0, dyn_timeout_ms(), &fd);
  if (rc == HC_OK)
    rc = dyn_root_link(t, fd, root_peer, bridge);
  mine->status = rc;
  if (rc != HC_OK)
    return rc;
  hc_engine_lock();
  rc = hc_comm_link_swap_locked(*bridge, mine, sizeof *mine, theirs,
                                sizeof *theirs);
  if (rc == HC_OK && theirs->status != HC_OK)
    rc = theirs->status;
  if (rc == HC_OK &&
      (theirs->size < 1 || theirs->root < 0 || theirs->root >= theirs->size ||
       theirs->token[DYN_TOKEN_LEN] != '\0'))
    rc = HC_ERR_PEER_CORRUPT;
  hc_engine_unlock();
  if (rc == HC_OK)
    rc = dyn_swap_members(*bridge, members, mine->size, theirs->size, remote);
  return rc;
}

/* What a root shares in its group: how its part went and the other
 * group's shape (and, accepting, the members' token). */
typedef struct dyn_outcome {
  int32_t status;
  int32_t remote_size;
  int32_t remote_root;
  char token[HC_SECRET_HEX];
} dyn_outcome_t;

static hc_status_t dyn_check_args(hcomm_comm_t *comm, int root,
                                  hcomm_comm_t **newcomm) {
  if (comm == NULL || hcomm_comm_is_inter(comm))
    return HC_ERR_COMM;
  if (root < 0 || root >= hcomm_comm_size(comm))
    return HC_ERR_RANK;
  return newcomm == NULL ? HC_ERR_ARG : HC_OK;
}

/* Every member, once its root is done: learns the root's outcome (*out)
 * and the remote members' entries (*their, malloc'd but at the root,
 * whose they are already), and numbers and names their peers (*remote,
 * malloc'd). */
static hc_status_t dyn_share_remote(hc_engine_transport_t *t,
                                    hcomm_comm_t *comm, int root, int root_peer,
                                    dyn_outcome_t *out, dyn_member_t **their,
                                    int **remote) {
  int is_root = hcomm_comm_rank(comm) == root;
  hc_status_t rc = hcomm_bcast(out, sizeof *out, root, comm);
  if (rc == HC_OK)
    rc = out->status;
  if (rc == HC_OK && !is_root &&
      (*their = calloc((size_t)out->remote_size, sizeof **their)) == NULL)
    rc = HC_ERR_NOMEM; /* the bcast below then hangs: no memory at all */
  if (rc == HC_OK)
    rc = hcomm_bcast(*their, (size_t)out->remote_size * sizeof **their, root,
                     comm);
  if (rc == HC_OK &&
      (*remote = malloc((size_t)out->remote_size * sizeof **remote)) == NULL)
    rc = HC_ERR_NOMEM;
  if (rc == HC_OK)
    rc = dyn_number_remote(t, out->remote_size, out->remote_root, is_root,
                           root_peer, *remote);
  if (rc == HC_OK)
    dyn_name_remote(out->remote_size, *remote, *their);
  return rc;
}

/* Accepting members: one connection from each connecting member (but the
 * root's from the other root), each bound to its peer by the rank it
 * presents. */
static hc_status_t dyn_accept_members(hc_engine_transport_t *t, void *listener,
                                      const dyn_outcome_t *out, int is_root,
                                      const int *remote) {
  hc_status_t rc = HC_OK;
  for (int k = is_root ? 1 : 0; rc == HC_OK && k < out->remote_size; k++) {
    int fd = -1, value = -1;
    rc = t->ops->runtime->accept(t->ctx, listener, out->token, out->remote_size,
                                 dyn_timeout_ms(), &fd, &value);
    if (rc == HC_OK)
      rc = dyn_adopt(t, remote[value], fd); /* a second one fails here */
  }
  return rc;
}

hc_status_t hcomm_comm_accept(const char *port, hcomm_comm_t *comm, int root,
                              hcomm_comm_t **newcomm) {
  hc_engine_transport_t *t = NULL;
  void *listener = NULL;
  char mine_addr[DYN_ADDR_MAX] = "";
  dyn_member_t *members = NULL, *their_members = NULL;
  dyn_group_msg_t mine = {0}, theirs = {0};
  dyn_outcome_t out = {0};
  hcomm_comm_t *bridge = NULL;
  int root_peer = -1, *remote = NULL;
  hc_status_t rc = dyn_check_args(comm, root, newcomm);
  if (rc != HC_OK)
    return rc;
  int size = hcomm_comm_size(comm), is_root = hcomm_comm_rank(comm) == root;
  rc = dyn_transport(&t);
  if (rc == HC_OK)
    rc =
        t->ops->runtime->listen(t->ctx, mine_addr, sizeof mine_addr, &listener);
  if (is_root && (members = calloc((size_t)size, sizeof *members)) == NULL)
    rc = HC_ERR_NOMEM;
  dyn_member_t me = dyn_member_self(mine_addr);
  hc_status_t grc = hcomm_gather(&me, sizeof me, members, root, comm);
  if (is_root) {
    mine.size = size;
    mine.root = root;
    if (rc == HC_OK && grc == HC_OK && port != NULL)
      rc = dyn_accept_root(t, port, &mine, members, &theirs, &their_members,
                           &root_peer, &bridge);
    out = (dyn_outcome_t){rc != HC_OK ? rc : grc, theirs.size, theirs.root, ""};
    memcpy(out.token, mine.token, sizeof out.token);
  }
  free(members);
  rc =
      dyn_share_remote(t, comm, root, root_peer, &out, &their_members, &remote);
  if (rc == HC_OK)
    rc = dyn_accept_members(t, listener, &out, is_root, remote);
  if (t != NULL)
    t->ops->runtime->unlisten(t->ctx, listener);
  if (rc == HC_OK)
    rc = dyn_finish(comm, root, bridge, out.remote_size, remote, 1, newcomm);
  else
    dyn_finish_failed(bridge);
  free(their_members);
  free(remote);
  return rc;
}

/* Connecting members: dial each accepting member (but the root the other
 * root, linked already), presenting the token and this rank. */
static hc_status_t dyn_dial_members(hc_engine_transport_t *t,
                                    const dyn_member_t *members,
                                    const dyn_outcome_t *out, int rank,
                                    int is_root, const int *remote) {
  hc_status_t rc = HC_OK;
  for (int i = 0; rc == HC_OK && i < out->remote_size; i++) {
    int fd = -1;
    if (is_root && i == out->remote_root)
      continue;
    rc = t->ops->runtime->dial(t->ctx, members[i].addr, out->token, rank,
                               dyn_timeout_ms(), &fd);
    if (rc == HC_OK)
      rc = dyn_adopt(t, remote[i], fd);
  }
  return rc;
}

hc_status_t hcomm_comm_connect(const char *port, hcomm_comm_t *comm, int root,
                               hcomm_comm_t **newcomm) {
  hc_engine_transport_t *t = NULL;
  dyn_member_t *members = NULL, *their_members = NULL;
  dyn_group_msg_t mine = {0}, theirs = {0};
  dyn_outcome_t out = {0};
  hcomm_comm_t *bridge = NULL;
  int root_peer = -1, *remote = NULL;
  hc_status_t rc = dyn_check_args(comm, root, newcomm);
  if (rc != HC_OK)
    return rc;
  int rank = hcomm_comm_rank(comm), is_root = rank == root;
  int size = hcomm_comm_size(comm);
  rc = dyn_transport(&t);
  if (is_root && (members = calloc((size_t)size, sizeof *members)) == NULL)
    rc = HC_ERR_NOMEM;
  dyn_member_t me = dyn_member_self("");
  hc_status_t grc = hcomm_gather(&me, sizeof me, members, root, comm);
  if (is_root) {
    mine.size = size;
    mine.root = root;
    if (rc == HC_OK && grc == HC_OK)
      rc = port != NULL ? dyn_connect_root(t, port, &mine, members, &theirs,
                                           &their_members, &root_peer, &bridge)
                        : HC_ERR_PORT;
    out = (dyn_outcome_t){rc != HC_OK ? rc : grc, theirs.size, theirs.root, ""};
    memcpy(out.token, theirs.token, sizeof out.token);
  }
  free(members);
  rc =
      dyn_share_remote(t, comm, root, root_peer, &out, &their_members, &remote);
  if (rc == HC_OK)
    rc = dyn_dial_members(t, their_members, &out, rank, is_root, remote);
  if (rc == HC_OK)
    rc = dyn_finish(comm, root, bridge, out.remote_size, remote, 2, newcomm);
  else
    dyn_finish_failed(bridge);
  free(their_members);
  free(remote);
  return rc;
}

hc_status_t hcomm_comm_join(int fd, hcomm_comm_t **newcomm) {
  hc_engine_transport_t *t = NULL;
  hcomm_comm_t *bridge = NULL;
  char token[HC_SECRET_HEX];
  int linked = -1, side = 0, peer = -1;
  if (newcomm == NULL || fd < 0)
    return HC_ERR_ARG;
  hc_status_t rc = dyn_transport(&t);
  if (rc == HC_OK && hc_secret_new(token, sizeof token) != 0)
    rc = HC_ERR_SYSTEM;
  if (rc == HC_OK)
    rc = t->ops->runtime->join(t->ctx, fd, token, dyn_timeout_ms(), &linked,
                               &side);
  if (rc == HC_OK)
    rc = dyn_root_link(t, linked, &peer, &bridge);
  dyn_member_t me = dyn_member_self(""), them;
  memset(&them, 0, sizeof them);
  if (rc == HC_OK) {
    hc_engine_lock();
    rc = hc_comm_link_swap_locked(bridge, &me, sizeof me, &them, sizeof them);
    hc_engine_unlock();
  }
  if (rc == HC_OK)
    dyn_name_remote(1, &peer, &them);
  if (rc == HC_OK)
    return dyn_finish(hcomm_comm_self(), 0, bridge, 1, &peer, side ? 2 : 1,
                      newcomm);
  dyn_finish_failed(bridge);
  return rc;
}

/* ---- links for communicators between jobs ---------------------------------
 * comm.c's MPI_Intercomm_create between groups of different jobs links the
 * members that have no link yet, with the engine lock held (comm.h); the
 * lock is dropped around the waits on sockets, as above. */

hc_status_t hc_dynamic_listen_locked(char *addr, void **listener) {
  hc_engine_transport_t *t = NULL;
  hc_status_t rc = hc_engine_runtime_transport(&t);
  hc_engine_unlock();
  if (rc == HC_OK)
    rc = t->ops->runtime->listen(t->ctx, addr, HC_DYNAMIC_ADDR_MAX, listener);
  hc_engine_lock();
  return rc;
}

void hc_dynamic_unlisten_locked(void *listener) {
  hc_engine_transport_t *t = NULL;
  if (listener != NULL && hc_engine_runtime_transport(&t) == HC_OK)
    t->ops->runtime->unlisten(t->ctx, listener);
}

/* Adopts fd as a new peer named name; *peer its number. */
static hc_status_t dyn_adopt_named_locked(hc_engine_transport_t *t, int fd,
                                          const hc_proc_name_t *name,
                                          int *peer) {
  hc_status_t rc = hc_engine_peers_add(t, 1, peer);
  if (rc == HC_OK)
    rc = t->ops->runtime->adopt(t->ctx, *peer, fd);
  if (rc == HC_OK)
    hc_engine.peers[*peer].name = *name;
  return rc;
}

hc_status_t hc_dynamic_accept_locked(void *listener, const char *token,
                                     int count, int n,
                                     const hc_proc_name_t *names, int *remote) {
  hc_engine_transport_t *t = NULL;
  hc_status_t rc = hc_engine_runtime_transport(&t);
  for (int k = 0; rc == HC_OK && k < count; k++) {
    int fd = -1, value = -1;
    hc_engine_unlock();
    rc = t->ops->runtime->accept(t->ctx, listener, token, n, dyn_timeout_ms(),
                                 &fd, &value);
    hc_engine_lock();
    if (rc == HC_OK && remote[value] >= 0) {
      t->ops->runtime->adopt(t->ctx, -1, fd); /* which closes it */
      rc = HC_ERR_PEER_CORRUPT; /* a member linked already, or twice */
    }
    if (rc == HC_OK)
      rc = dyn_adopt_named_locked(t, fd, &names[value], &remote[value]);
  }
  return rc;
}

hc_status_t hc_dynamic_dial_locked(const char *addr, const char *token,
                                   int value, const hc_proc_name_t *name,
                                   int *peer) {
  hc_engine_transport_t *t = NULL;
  int fd = -1;
  hc_status_t rc = hc_engine_runtime_transport(&t);
  hc_engine_unlock();
  if (rc == HC_OK)
    rc = t->ops->runtime->dial(t->ctx, addr, token, value, dyn_timeout_ms(),
                               &fd);
  hc_engine_lock();
  if (rc == HC_OK)
    rc = dyn_adopt_named_locked(t, fd, name, peer);
  return rc;
}

/* ---- spawn ----------------------------------------------------------------
 * The root opens a port and asks the launcher for the processes, told the
 * port; the group then accepts on it while the children connect from their
 * init (hc_dynamic_init_parent). */

#define DYN_SPAWN_CMDS 6 /* what hcmpirun takes in one request */

const char *hcomm_launcher_name(void) {
  return hc_engine.boot != NULL ? hc_engine.boot->name : "none";
}

hcomm_comm_t *hcomm_comm_parent(void) {
  hc_engine_lock();
  hcomm_comm_t *parent = hc_engine.parent;
  hc_engine_unlock();
  return parent;
}

/* The root's part: the launcher starts the commands, told port. */
static hc_status_t dyn_spawn_ask(const hcomm_spawn_cmd_t *cmds, int ncmds,
                                 const char *port) {
  hc_bootstrap_spawn_t boot[DYN_SPAWN_CMDS];
  if (ncmds < 1 || ncmds > DYN_SPAWN_CMDS)
    return ncmds < 1 ? HC_ERR_ARG : HC_ERR_NOT_SUPPORTED;
  for (int k = 0; k < ncmds; k++)
    boot[k] = (hc_bootstrap_spawn_t){cmds[k].argv, cmds[k].nprocs,
                                     cmds[k].wdir};
  hc_engine_lock();
  hc_status_t rc =
      hc_engine.boot->spawn == NULL
          ? HC_ERR_NOT_SUPPORTED
          : hc_engine.boot->spawn(hc_engine.boot_ctx, boot, ncmds, port);
  hc_engine_unlock();
  return rc;
}

hc_status_t hcomm_comm_spawn(const hcomm_spawn_cmd_t *cmds, int ncmds,
                             hcomm_comm_t *comm, int root,
                             hcomm_comm_t **newcomm) {
  char port[HCOMM_PORT_NAME_MAX] = "";
  hc_status_t rc = dyn_check_args(comm, root, newcomm);
  if (rc != HC_OK)
    return rc;
  int is_root = hcomm_comm_rank(comm) == root;
  int32_t asked = HC_OK;
  if (is_root) {
    asked = hcomm_port_open(port, sizeof port);
    if (asked == HC_OK)
      asked = dyn_spawn_ask(cmds, ncmds, port);
  }
  rc = hcomm_bcast(&asked, sizeof asked, root, comm);
  if (rc == HC_OK)
    rc = asked;
  if (rc == HC_OK)
    rc = hcomm_comm_accept(is_root ? port : NULL, comm, root, newcomm);
  if (is_root && port[0] != '\0')
    hcomm_port_close(port);
  return rc;
}

void hc_dynamic_fini_locked(void) {
  hc_engine_transport_t *t = NULL;
  for (int i = 0; i < hc_engine.ntransports; i++)
    if (hc_engine.transports[i].ops->reach == HC_TRANSPORT_REACH_RUNTIME)
      t = &hc_engine.transports[i];
  while (dyn_ports != NULL) {
    dyn_port_t *port = dyn_ports;
    dyn_ports = port->next;
    if (t != NULL)
      t->ops->runtime->unlisten(t->ctx, port->listener);
    free(port);
  }
}

hc_status_t hc_dynamic_init_parent(const char *launcher_port) {
  const char *given = getenv("HCMPI_PARENT_PORT");
  if (given == NULL || given[0] == '\0')
    given = launcher_port;
  char port[HCOMM_PORT_NAME_MAX];
  hcomm_comm_t *parent = NULL;
  if (given == NULL || given[0] == '\0')
    return HC_OK;
  snprintf(port, sizeof port, "%s", given);
  /* A process this one starts is no child of the parents. */
  unsetenv("HCMPI_PARENT_PORT");
  hc_status_t rc = hcomm_comm_connect(port, hcomm_comm_world(), 0, &parent);
  hc_engine_lock();
  hc_engine.parent = parent;
  hc_engine_unlock();
  return rc;
}
