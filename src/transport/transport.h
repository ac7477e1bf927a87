/*
 * Transports: how bytes reach a peer.  One ops table per transport; the
 * engine picks one per peer at connection time and stores it in the peer's
 * endpoint.  Transports know nothing of MPI or of the engine's packets: a
 * packet is an opaque run of bytes delivered whole and in order per peer.
 */
#ifndef HC_TRANSPORT_H
#define HC_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "hcomm_status.h"
#include "util/trace_path.h"

/* Called from a transport's progress for each arrived packet, in the order
 * the peer sent them.  The bytes are valid only during the call; the engine
 * may call send (never progress) from inside it. */
typedef void (*hc_transport_recv_cb)(void *engine, int src_world_rank,
                                     const void *packet, size_t len);

/* Optional, for stream transports (tcp), so a large payload is read
 * straight into its final place: called once the first place_head bytes
 * (see the init args) of a packet of packet_len bytes arrived, before the
 * rest.  Returns 1 and sets *dst to packet_len - place_head writable bytes
 * when the engine takes the rest there: the transport then writes exactly
 * those bytes to *dst, hands none of this packet to recv_cb, and calls
 * placed_cb with the same head once all arrived (in the peer's packet
 * order); the engine keeps *dst valid until then or until the peer fails.
 * Returns 0 to have the packet delivered to recv_cb as usual.  Same rules
 * as recv_cb for what it may call. */
typedef int (*hc_transport_place_cb)(void *engine, int src_world_rank,
                                     const void *head, size_t packet_len,
                                     void **dst);
typedef void (*hc_transport_placed_cb)(void *engine, int src_world_rank,
                                       const void *head);

/* Called from a transport's progress, send or watch when a peer is lost
 * for good, with why: HC_ERR_PEER_DEAD (it died, or the connection closed
 * or broke), HC_ERR_PEER_AUTH (it failed authentication) or
 * HC_ERR_PEER_CORRUPT (what it sent cannot be read).  Later sends to it
 * return that status.  The engine only records the failure here (it may
 * not call the transport). */
typedef void (*hc_transport_peer_failed_cb)(void *engine, int world_rank,
                                            hc_status_t why);

typedef struct hc_transport_init_args {
  int world_rank;
  int world_size;
  int local_rank; /* index of this rank among the ranks of its node */
  int local_size;
  const int *local_world_ranks; /* world rank of each local rank, ascending */
  hc_transport_recv_cb recv_cb;
  void *engine;                               /* first argument of recv_cb */
  hc_transport_peer_failed_cb peer_failed_cb; /* may be NULL */
  /* Numeric IPv4 address by which this rank reached its launcher over TCP;
   * NULL or "" when it did not (Unix socket, no launcher). */
  const char *reached_ip;
  /* Both NULL, or both set with place_head the header bytes place_cb
   * needs (a transport may ignore them). */
  hc_transport_place_cb place_cb;
  hc_transport_placed_cb placed_cb;
  size_t place_head;
  /* Peer numbers run below this: the world ranks, then the processes
   * met at run time (REACH_RUNTIME). */
  int peers_max;
} hc_transport_init_args_t;

#define HC_TRANSPORT_ADDRESS_MAX 512

/* Device memory the engine declares to a transport (mem_reg): one whole
 * allocation the host must not touch, which the transport's hardware can
 * reach through a dma-buf.  addr is the allocation's device address (the
 * one the engine passes to get and publishes in its RTS); len is page-
 * rounded; the dma-buf's bytes at dmabuf_offset are the ones at addr. */
typedef struct hc_transport_mem {
  uint64_t addr;
  size_t len;
  int dmabuf_fd;
  uint64_t dmabuf_offset;
  /* A one-sided window's memory: peers also rdma_write it, and
   * rdma_write and rdma_read it with the key mem_reg returns. */
  int window;
} hc_transport_mem_t;

/* Which peers a transport can reach.  The engine connects a transport to
 * the peers of its reach that no transport of a narrower reach serves, and
 * reaches each peer through the first transport of the registration list
 * (hc_transport_registered) whose connect to it succeeded. */
typedef enum hc_transport_reach {
  HC_TRANSPORT_REACH_SELF, /* this rank only; always started */
  HC_TRANSPORT_REACH_NODE, /* the other ranks of this node */
  HC_TRANSPORT_REACH_ANY,  /* any other rank, on this node or another */
  /* Processes outside the launcher's world, met at run time: never
   * connected at init; started by the engine when the first such process
   * comes, reached through its runtime ops. */
  HC_TRANSPORT_REACH_RUNTIME
} hc_transport_reach_t;

/* hc_transport_ops_t.flags */
/* init or address may fail: the job goes on without this transport (its
 * address reads "none"), and a connect it refuses leaves the peer to the
 * next transport. */
#define HC_TRANSPORT_OPTIONAL 0x1u
/* REACH_ANY: on a job of one node, serves its ranks when no transport of
 * reach NODE is enabled, even when HCMPI_TRANSPORTS does not name it. */
#define HC_TRANSPORT_LOCAL_DEFAULT 0x2u
/* Nothing arrives except what this rank sent through it (self): the engine
 * polls it only after a send through it. */
#define HC_TRANSPORT_POLL_AFTER_SEND 0x4u
/* Authenticates peers with the job's shared secret: set_secret is called
 * when the launcher gave none (HCMPI_JOB_SECRET, read by init). */
#define HC_TRANSPORT_WANTS_SECRET 0x8u
/* get and put reach any address of the peer's memory without the peer's
 * help (it need not progress, nothing registers on its side): one-sided
 * communication may move window data through them directly (CMA). */
#define HC_TRANSPORT_PEER_MEMORY 0x10u

/* rdma_atomic's op. */
#define HC_TRANSPORT_ATOMIC_FETCH_ADD 1
#define HC_TRANSPORT_ATOMIC_COMPARE_SWAP 2

/* What wait_fd returns besides a file descriptor. */
#define HC_TRANSPORT_WAIT_NONE (-1) /* nothing from outside can arrive */
#define HC_TRANSPORT_WAIT_NOW (-2)  /* progress would find work: no sleep */
#define HC_TRANSPORT_WAIT_OWN (-3)  /* no descriptor: sleep through wait */

/* What the placement op says of a peer's core against this rank's. */
typedef enum hc_transport_placement {
  HC_TRANSPORT_PLACEMENT_UNKNOWN = 0, /* not judged (or no op) */
  HC_TRANSPORT_PLACEMENT_NEAR,        /* a cache line crosses quickly */
  HC_TRANSPORT_PLACEMENT_FAR          /* a crossing is slow (another die) */
} hc_transport_placement_t;

/* The smallest rendezvous whose time the engine tells rndv_measured: at
 * 256 KiB either path takes 10 us or more, beside which the two clock
 * reads are noise. */
#define HC_RNDV_MEASURE_MIN ((size_t)256 << 10)

/* A job secret as text: 64 hex digits and the NUL. */
#define HC_TRANSPORT_SECRET_HEX 65

/* The figures a transport may keep for the tool interface (counter op). */
typedef enum hc_transport_counter {
  HC_TRANSPORT_COUNTER_POOL_CELLS_IN_USE, /* send-pool cells in flight */
  HC_TRANSPORT_COUNTER_REGCACHE_HITS,     /* registration-cache lookups */
  HC_TRANSPORT_COUNTER_REGCACHE_MISSES
} hc_transport_counter_t;

/* The set-up of connections to run-time peers (REACH_RUNTIME).  The
 * socket calls may block up to their timeout and touch no state that
 * progress uses, so the engine makes them without its lock; adopt and
 * release run with it.  A token is HC_TRANSPORT_SECRET_HEX - 1 hex
 * digits. */
typedef struct hc_transport_runtime_ops {
  /* Opens a listener; writes its address ("ip:port") into addr. */
  hc_status_t (*listen)(void *ctx, char *addr, size_t len, void **listener);
  /* Closes it; safe on NULL. */
  void (*unlisten)(void *ctx, void *listener);
  /* Connects to a listener's address presenting token and value (which
   * member of its group the caller is); *fd is the set-up socket.
   * HC_ERR_PORT when nothing listens there or it refused the token. */
  hc_status_t (*dial)(void *ctx, const char *addr, const char *token,
                      int value, int timeout_ms, int *fd);
  /* Waits (timeout_ms < 0: for ever) for a connection that presents token
   * and a value below nvalues, refusing others; *fd and *value.
   * HC_ERR_PEER_DEAD when none came in time. */
  hc_status_t (*accept)(void *ctx, void *listener, const char *token,
                        int nvalues, int timeout_ms, int *fd, int *value);
  /* MPI_Comm_join: over the user's connected socket (left as it was),
   * sets up a new one with the process at its other end; *side is 0 on
   * one end and 1 on the other. */
  hc_status_t (*join)(void *ctx, int user_fd, const char *token,
                      int timeout_ms, int *fd, int *side);
  /* From now on fd (from dial, accept or join) carries the packets of
   * peer.  fd is the transport's now, also when adopt fails (it closes
   * it then). */
  hc_status_t (*adopt)(void *ctx, int peer, int fd);
} hc_transport_runtime_ops_t;

typedef struct hc_transport_ops {
  /* Names the transport in HCMPI_TRANSPORTS, in its published address's
   * key, in logs and in traces. */
  const char *name;
  hc_transport_reach_t reach;
  unsigned flags; /* HC_TRANSPORT_* above */
  /* What trace files record for its eager and control packets, and for a
   * single-copy get; when the two differ, a refused get is recorded as
   * HC_TRACE_PATH_PIPELINED.  HC_TRACE_PATH_NONE (0) when unset. */
  hc_trace_path_t trace_path;
  hc_trace_path_t trace_get_path;
  /* Creates this rank's local resources; may block briefly.  On failure
   * *ctx is NULL or a state that fini accepts. */
  hc_status_t (*init)(const hc_transport_init_args_t *args, void **ctx);
  /* Writes this rank's address: NUL-terminated text without spaces, shorter
   * than HC_TRANSPORT_ADDRESS_MAX, published through the launcher's KVS. */
  hc_status_t (*address)(void *ctx, char *buf, size_t len);
  /* Connects to one peer from its published address.  Called for every
   * peer this transport will serve, after every address was published. */
  hc_status_t (*connect)(void *ctx, int peer_world_rank,
                         const char *peer_address);
  /* Called once every rank has connected (after a launcher barrier): what
   * must vanish from the file system (shm segment names) goes now. */
  hc_status_t (*connected)(void *ctx);
  /* Largest packet (all iov pieces together) that send accepts. */
  size_t (*max_packet)(void *ctx);
  /* Copies the iov pieces into one packet for peer.  Never blocks: returns
   * HC_ERR_AGAIN when the peer's queue is full (retry after progress; the
   * transport then wakes this rank when space frees).  The caller's buffers
   * are reusable on return. */
  hc_status_t (*send)(void *ctx, int peer_world_rank, const struct iovec *iov,
                      int iovcnt);
  /* Delivers arrived packets through recv_cb; returns how many.  Never
   * blocks. */
  int (*progress)(void *ctx);
  /* Single-copy read of len bytes at remote_addr in the peer's address
   * space into local (CMA).  Blocks for the copy only.  Returns
   * HC_ERR_NOT_SUPPORTED when this transport or this pair cannot (the
   * engine then pipelines the data through send). */
  hc_status_t (*get)(void *ctx, int peer_world_rank, void *local,
                     uint64_t remote_addr, size_t len);
  /* Optional (NULL: get serves a rendezvous of any size): the fewest
   * bytes of a rendezvous that the engine reads with get.  A smaller one
   * streams through send instead (CTS, then DATA packets): where the
   * sender's copy into the transport overlaps the receiver's copy out,
   * two copies can beat one, but only while both ends hold a core.  Asked
   * for each rendezvous the engine receives from peer_world_rank, so the
   * answer may follow what the transport sees; gets of other kinds
   * (one-sided operations) are not bound by it.  streams_landing: how
   * many of the engine's receives from that peer still stream (a read
   * now would share the cores with them). */
  size_t (*get_min)(void *ctx, int peer_world_rank, int streams_landing);
  /* Optional (NULL: not told): how long one rendezvous of bytes from
   * peer_world_rank took at the receiver, in ns, and by which path: read
   * with get (read 1: the get's time) or streamed through send after a
   * CTS (read 0: from its first DATA to its last, scaled to the whole
   * message, so that its wait behind earlier messages does not count).
   * The engine tells it of host rendezvous of HC_RNDV_MEASURE_MIN bytes
   * or more into plain buffers, so that get_min may follow what each path
   * delivers between the two ranks now (shm: where the host moves the
   * ranks' cores apart or together while they run).  Called from
   * progress under the engine lock; never blocks. */
  void (*rndv_measured)(void *ctx, int peer_world_rank, size_t bytes,
                        uint64_t ns, int read);
  /* Optional (NULL: none): the largest eager payload this transport wants
   * while HCMPI_EAGER_LIMIT is unset, where a rendezvous of more bytes
   * beats its eager copies (shm: the processor's profile).  The engine
   * takes the smaller of it and the default limit; a setting wins. */
  size_t (*eager_max)(void *ctx);
  /* Optional (NULL: none): asked for a host send to peer_world_rank above
   * the eager limit while HCMPI_EAGER_LIMIT is unset: the largest payload
   * the transport takes eagerly now all the same (0: none; beyond its
   * packets: none).  For what the transport knows of the pair at this
   * moment (shm: whether its ring to the peer still holds unread packets,
   * and how a rendezvous would move the bytes), and in_stream: the
   * engine's last rendezvous send to the peer is still unfinished, so this
   * message follows it in a stream.  One send may ask twice (the engine's
   * short path, then its request path): until a packet goes to the peer,
   * the transport answers as it did. */
  size_t (*eager_max_now)(void *ctx, int peer_world_rank, int in_stream);
  /* Optional (NULL where a transport has none): the mirror of get, a
   * single-copy write of len bytes from local to remote_addr in the peer's
   * address space, done when it returns.  HC_ERR_NOT_SUPPORTED when this
   * pair cannot (the engine then sends the data as a message). */
  hc_status_t (*put)(void *ctx, int peer_world_rank, const void *local,
                     uint64_t remote_addr, size_t len);
  /* Optional (NULL where a transport has none; called once per device
   * allocation, never per packet): registers mem so that get serves
   * [addr, addr+len) at either end, as the local destination or as the
   * source a peer's get asks for, through the registration only: the
   * transport never dereferences those addresses nor bounces them through
   * host memory.  The fd stays the caller's (it may close it on return).
   * *handle is for mem_dereg; *key (when key is not NULL) what peers
   * pass to rdma_write and rdma_read for a window's memory.
   * HC_ERR_NOT_SUPPORTED when this transport, its library or its device
   * cannot (the engine then stages). */
  hc_status_t (*mem_reg)(void *ctx, const hc_transport_mem_t *mem,
                         void **handle, uint64_t *key);
  /* Releases what mem_reg registered; no get may be using it (the engine
   * keeps a registration while a send of its memory is in flight). */
  void (*mem_dereg)(void *ctx, void *handle);
  /* Optional (NULL where a transport needs no registration of host
   * memory): registers [addr, addr+len) of this process's memory ahead of
   * use (MPI_Alloc_mem, window memory), so that gets into it and peers'
   * gets from it find a registration of any part at once, and peers may
   * rdma_write and rdma_read it with *key.  *handle is for host_dereg,
   * which is called before the memory is freed.  HC_ERR_NOT_SUPPORTED
   * when it cannot (the transport then registers on demand, as for other
   * memory). */
  hc_status_t (*host_reg)(void *ctx, void *addr, size_t len, void **handle,
                          uint64_t *key);
  void (*host_dereg)(void *ctx, void *handle);
  /* Optional (with host_reg): one-sided write or read of len bytes
   * between local and remote_addr in memory the peer registered with
   * host_reg under key, without the peer's help; complete at the peer
   * when it returns.  HC_ERR_NOT_SUPPORTED when this pair cannot now (the
   * engine then sends an active message). */
  hc_status_t (*rdma_write)(void *ctx, int peer_world_rank, const void *local,
                            uint64_t remote_addr, size_t len, uint64_t key);
  hc_status_t (*rdma_read)(void *ctx, int peer_world_rank, void *local,
                           uint64_t remote_addr, size_t len, uint64_t key);
  /* Optional (with host_reg, where the device does atomics): whether
   * rdma_atomic reaches peer, this rank included (through a loopback
   * connection, so that a rank's own words too change only by the
   * device's atomics).  May block to connect.  HC_OK, or
   * HC_ERR_NOT_SUPPORTED. */
  hc_status_t (*rdma_atomic_reach)(void *ctx, int peer_world_rank);
  /* One 8-byte atomic on the 8-byte aligned word at remote_addr of memory
   * the peer (or this rank) registered with host_reg under key, done by
   * the device without the peer's help, complete when it returns: op
   * HC_TRANSPORT_ATOMIC_FETCH_ADD adds operand; _COMPARE_SWAP writes
   * operand where the word equals compare.  *old receives the word as it
   * was.  Atomic against the device's other atomics only, not against
   * the peer's processor: a word must change by these alone.  Fails
   * (never HC_ERR_NOT_SUPPORTED) once rdma_atomic_reach said HC_OK. */
  hc_status_t (*rdma_atomic)(void *ctx, int peer_world_rank, int op,
                             uint64_t remote_addr, uint64_t key,
                             uint64_t operand, uint64_t compare, uint64_t *old);
  /* Optional (NULL: none): wakes peer_world_rank if it sleeps in this
   * transport's wait or on its descriptor, as a packet to it would, for
   * something the caller published (and fenced) outside the transport:
   * a shared-memory collective's flag.  Any thread; never blocks. */
  void (*wake)(void *ctx, int peer_world_rank);
  /* Sleeps until a packet may have arrived for this rank, space freed in a
   * queue this rank found full, or timeout_ms passed.  Call only after
   * progress found nothing; returns at once if something is pending. */
  void (*wait)(void *ctx, int timeout_ms);
  /* Readies this rank to sleep and says on what, so that one poll covers
   * every transport: a file descriptor that turns readable (POLLIN) when
   * wait would return; or HC_TRANSPORT_WAIT_NONE (nothing to sleep on),
   * _NOW (no sleep now) or _OWN (no descriptor: the engine sleeps through
   * wait, in turns with the poll; what hc_transport_wait_fd_not_supported
   * returns).  May lower *timeout_ms when
   * a retry of its own falls due.  Call only after progress found nothing,
   * where progress may be called (the engine holds its lock); never
   * blocks.  A call that returned a descriptor or _NOW is followed, after
   * the sleep (none after _NOW), by exactly one wait_done. */
  int (*wait_fd)(void *ctx, int *timeout_ms);
  /* Asked instead of waiting in turns, of a transport whose wait_fd said
   * _OWN while others sleep on descriptors: as wait_fd, but a descriptor
   * if it has one at all (shm's eventfd beside its futex), or _NOW, or
   * _OWN again.  A descriptor or _NOW is followed by one wait_done.
   * hc_transport_wait_fd_not_supported where there is none. */
  int (*wait_pollfd)(void *ctx, int *timeout_ms);
  /* Ends what wait_fd readied (takes the descriptor's events); never
   * blocks.  Called without the engine lock, as wait: it may run beside
   * progress and beside another thread's wait_fd or wait_done.
   * hc_transport_wait_done_nothing where there is nothing to end. */
  void (*wait_done)(void *ctx);
  /* WANTS_SECRET: the job's shared secret (HC_TRANSPORT_SECRET_HEX - 1 hex
   * digits, the same on every rank), after init and before connect.
   * hc_transport_set_secret_not_supported for the others. */
  hc_status_t (*set_secret)(void *ctx, const char *hex);
  /* Releases everything; safe on NULL and on a half-initialised ctx. */
  void (*fini)(void *ctx);
  /* hc_transport_watch_nothing where a transport notices every peer's death
   * without traffic (shm by its pidfds, verbs by its keepalives): the
   * engine is about to wait for
   * a packet from peer (a receive names it).  The transport makes sure
   * that the peer's death is reported through peer_failed_cb even if
   * nothing was ever sent to or received from it (tcp opens the
   * connection now).  Never blocks; harmless to call again. */
  void (*watch)(void *ctx, int peer_world_rank);
  /* Optional (NULL where a transport keeps no figures; called by the tool
   * interface with the engine lock held, never on a hot path): the
   * present value of one figure in *value, or HC_ERR_NOT_SUPPORTED for
   * one this transport does not keep.  Never blocks. */
  hc_status_t (*counter)(void *ctx, hc_transport_counter_t which,
                         uint64_t *value);
  /* Optional (NULL: HC_TRANSPORT_PLACEMENT_UNKNOWN): whether the core of
   * peer_world_rank, which this transport serves, is near this rank's or
   * far from it, as the transport judged it once every rank connected
   * (shm: its start-up probe, or HCMPI_SHM_PLACEMENT), so that layers
   * above may choose what suits the placement without a probe of their
   * own.  The same answer for the life of the connection; asked when
   * something is set up, never on a hot path.  Never blocks. */
  hc_transport_placement_t (*placement)(void *ctx, int peer_world_rank);
  /* REACH_RUNTIME only (NULL for the others): run-time connections. */
  const hc_transport_runtime_ops_t *runtime;
} hc_transport_ops_t;

/* The registration list: the compiled-in transports in the engine's order
 * of preference (the first that connected to a peer reaches it).  Returns
 * how many; *list points at them. */
int hc_transport_registered(const hc_transport_ops_t *const **list);

/* The transports' descriptors: named only by the registration list
 * (transport.c) and by each transport's own tests. */
extern const hc_transport_ops_t hc_transport_self_ops;
extern const hc_transport_ops_t hc_transport_shm_ops;
extern const hc_transport_ops_t hc_transport_tcp_ops;
extern const hc_transport_ops_t hc_transport_verbs_ops;
extern const hc_transport_ops_t hc_transport_link_ops;

/* Defaults for the ops a transport need not have. */
/* get: HC_ERR_NOT_SUPPORTED (transports that cannot do single-copy reads). */
hc_status_t hc_transport_get_not_supported(void *ctx, int peer_world_rank,
                                           void *local, uint64_t remote_addr,
                                           size_t len);
/* wait_fd: HC_TRANSPORT_WAIT_OWN (no descriptor to poll). */
int hc_transport_wait_fd_not_supported(void *ctx, int *timeout_ms);
/* wait_done: nothing. */
void hc_transport_wait_done_nothing(void *ctx);
/* set_secret: HC_ERR_NOT_SUPPORTED. */
hc_status_t hc_transport_set_secret_not_supported(void *ctx, const char *hex);
/* watch: nothing (deaths are noticed without traffic). */
void hc_transport_watch_nothing(void *ctx, int peer_world_rank);

#endif /* HC_TRANSPORT_H */
