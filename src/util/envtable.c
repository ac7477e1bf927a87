#include "util/envtable.h"

#include <stdio.h>
#include <string.h>

#include "util/env.h"

/* Grouped by subsystem, in the order a user meets them.  Keep each meaning
 * to one line: it is a table cell in docs/environment.md. */
const hc_env_entry_t hc_env_table[] = {
    /* logging and diagnostics */
    {"HCMPI_LOG", "off", "library",
     "error, warn, info or debug: leveled log on stderr"},
    {"HCMPI_TRACE", "off", "library",
     "directory: write a per-rank trace (rank-N.trace) for hcmpi-trace"},
    {"HCMPI_HANG_TIMEOUT", "0", "library",
     "seconds without progress in a blocking wait before a rank reports its "
     "pending requests and aborts; 0 is off"},
    {"HCMPI_CHECK_COLL", "0", "library",
     "1: rooted collectives agree root and data size across the communicator "
     "first (MPI_ERR_ROOT / MPI_ERR_TRUNCATE on every rank); costs an "
     "allreduce per call and makes their I-forms synchronize; 0 (default): "
     "no check, no cost"},
    /* bootstrap */
    {"HCMPI_BOOTSTRAP", "auto", "library",
     "pmi1, pmi2, pmix or singleton instead of detecting the launcher"},
    {"HCMPI_PMIX_LIB", "libpmix.so.2", "library", "PMIx library to dlopen"},
    {"HCMPI_NODE_ID", "host id", "library",
     "overrides the node identity, hostname + boot id (ranks with equal ids "
     "share memory)"},
    /* engine */
    {"HCMPI_TRANSPORTS", "all", "library",
     "comma-separated transports to use (shm, tcp, verbs); self is always "
     "on"},
    {"HCMPI_EAGER_LIMIT", "16384", "library",
     "largest eager payload in bytes (capped by the transport); unset, "
     "messages between ranks of a node also stop at the processor's "
     "limit (4096 on Intel; HCMPI_CPU_PROFILE)"},
    {"HCMPI_SPIN", "4000", "library",
     "progress polls before a blocking wait sleeps (oversubscribed: "
     "HCMPI_SPIN_CROWDED yielding in waits for messages, 2000 yielding in "
     "waits on shared-memory collective flags)"},
    {"HCMPI_SPIN_CROWDED", "256", "library",
     "where this kernel runs more of the job's ranks than it has usable "
     "CPUs, the polls, each after a yield, before a wait for messages "
     "sleeps (at most HCMPI_SPIN); wins over HCMPI_SPIN and "
     "HCMPI_SPIN_PURE in those waits, and leaves the waits on "
     "shared-memory collective flags alone"},
    {"HCMPI_SPIN_PURE", "HCMPI_SPIN", "library",
     "polls before yielding the core between polls (oversubscribed: 0, "
     "in waits for messages and on shared-memory collective flags alike; "
     "setting HCMPI_SPIN or HCMPI_SPIN_PURE sets both kinds of wait)"},
    {"HCMPI_BIND", "1", "library",
     "0 leaves rank placement to the OS; 1 pins each rank to its own core "
     "when the job's ranks on this kernel fit its cores"},
    {"HCMPI_WAIT_MS", "20", "library",
     "longest single sleep of a blocking wait, in ms"},
    {"HCMPI_OVERSUBSCRIBED", "auto", "library",
     "1 when local ranks outnumber usable cores: waits for messages sleep "
     "after a few polls, waits on collective flags yield first"},
    {"HCMPI_ASYNC_PROGRESS", "0", "library",
     "1 starts a progress thread that moves data while the program computes"},
    {"HCMPI_RMA_DIRECT", "1", "library",
     "0 sends every one-sided operation as an active message; 1 moves them "
     "directly where the target's memory is in reach (shared windows, CMA "
     "to local ranks)"},
    {"HCMPI_TEST_RMA_NOMEM", "0", "library",
     "tests only: N > 0 makes a target refuse, as if out of memory, the "
     "first of every N buffers for one-sided operations larger than an "
     "eager packet (the origin's completing call fails with "
     "MPI_ERR_NO_MEM)"},
    {"HCMPI_TEST_SHM_RATES", "0", "library",
     "tests only: 1 lets the measured rates of large rendezvous overrule a "
     "placement forced by HCMPI_SHM_PLACEMENT, as they overrule a probed "
     "one (whether rendezvous from HCMPI_SHM_FAR_READ_MIN are read or "
     "streamed)"},
    {"HCMPI_TEST_SHM_HELP_DIE", "0", "library",
     "tests only: 1 makes this process kill itself (SIGKILL) as soon as it "
     "claims a chunk of a peer's shared CMA read (HCMPI_SHM_CMA_HELP_MIN) "
     "to write"},
    {"HCMPI_TEST_SHM_READ_DIE", "", "library",
     "tests only: reader or owner: the first CMA read of at most 32 KiB "
     "(a lone rendezvous) stops half-way and SIGKILLs that end of it, the "
     "reading process or the one whose memory it reads"},
    {"HCMPI_TEST_SHMSEG_DIE", "0", "library",
     "tests only: 1 makes this process kill itself (SIGKILL) as soon as it "
     "has made a named shared segment (HCMPI_SHM_MEMFD=0), before anyone "
     "could unlink it"},
    {"HCMPI_TEST_SHMCOLL_VOTE_LATE", "0", "library",
     "tests only: 1 makes this process, once its vote on a communicator's "
     "collective segment is done, wait (up to 30 s) until a member of the "
     "communicator is lost and take the vote as failed by that loss, as a "
     "rank caught late in the vote by a death (a test sets it in one rank)"},
    {"HCMPI_TEST_RMA_DIE_HOLDING", "0", "library",
     "tests only: N > 0 makes this process kill itself (SIGKILL) inside "
     "its N-th accumulate on a shared-mapping window, while it holds the "
     "target's atomic word (read when such a window is made; a test sets "
     "it in one rank)"},
    /* collectives: algorithm thresholds (set alike on every rank) */
    {"HCMPI_COLL_BCAST_LARGE", "512k", "library",
     "bcasts of more bytes use scatter + ring allgather instead of a "
     "binomial tree (more than 2 ranks)"},
    {"HCMPI_COLL_ALLREDUCE_LARGE", "64k", "library",
     "allreduces of more bytes use reduce-scatter + allgather (Rabenseifner "
     "on power-of-two sizes, else a ring) instead of recursive doubling"},
    {"HCMPI_COLL_ALLGATHER_LARGE", "256k", "library",
     "allgathers of a larger total use the ring instead of recursive "
     "doubling"},
    {"HCMPI_COLL_ALLTOALL_LINEAR", "32k", "library",
     "alltoalls whose largest block is at most this post every message at "
     "once; larger ones exchange pairwise"},
    {"HCMPI_COLL_ALLTOALL_BRUCK", "256", "library",
     "alltoalls of equal blocks of at most this many bytes on more than 4 "
     "ranks use Bruck's algorithm (log p rounds); 0 turns it off"},
    {"HCMPI_COLL_GATHER_LINEAR_MAX", "4", "library",
     "gathers and scatters on at most this many ranks go straight to or "
     "from the root; larger ones use a binomial tree"},
    {"HCMPI_COLL_GATHER_RECV_FIRST_MAX", "512k", "library",
     "a linear gather's root whose largest incoming block is at most this "
     "posts its receives before it copies its own block; larger ones copy "
     "first (a far pair's shared CMA read of 1 MiB lost with the receives "
     "first); 0: always copy first"},
    {"HCMPI_COLL_SHM", "1", "library",
     "0 leaves the blocking Barrier, Bcast, Reduce and Allreduce to "
     "point-to-point schedules instead of a shared segment per communicator "
     "of one node's ranks (per node, under the node leaders' schedules, "
     "where it spans nodes), and Allgather, Alltoall and Reduce_scatter "
     "too (one node only)"},
    {"HCMPI_COLL_SHM_AFTER", "8", "library",
     "once two segments in a row served fewer collectives than this before "
     "their communicators were freed, a new communicator runs its first "
     "this many by the point-to-point schedules before it makes its shared "
     "segment (which costs milliseconds), so that a program duplicating a "
     "communicator for a call or two makes none; a segment that serves more "
     "ends it. 0: every communicator makes its segment at its first "
     "collective"},
    {"HCMPI_COLL_SHM_MAX", "4m", "library",
     "bcasts and reductions (reduce_scatter: of the whole vector) of more "
     "bytes take the point-to-point schedules instead of the shared "
     "segment"},
    {"HCMPI_COLL_SHM_ALLGATHER_MAX", "4m", "library",
     "allgathers whose largest block is larger take the point-to-point "
     "schedules instead of the shared segment"},
    {"HCMPI_COLL_SHM_PAIR_BCAST_MAX", "64k", "library",
     "bcasts on a communicator of two ranks of more bytes go as one "
     "point-to-point message (streamed by the shm transport, or one CMA "
     "read) instead of the shared segment's pipeline (two overlapped "
     "copies)"},
    {"HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN", "4m", "library",
     "Bcasts of two ranks of at least this many bytes take the shared "
     "segment's pipeline again (between HCMPI_COLL_SHM_PAIR_BCAST_MAX and "
     "this: one message); 0 never"},
    {"HCMPI_COLL_SHM_BCAST_BUFS", "2", "library",
     "a Bcast chunk spans at most this many of the segment's large buffers "
     "(each HCMPI_COLL_SHM_CHUNK bytes; 0: all of its half, ranks + 1): "
     "more bytes per synchronisation, against a finer pipeline"},
    {"HCMPI_COLL_SHM_STREAM_MIN", "auto: 16k; 0 on Intel", "library",
     "copies of at least this many bytes into the shared segment that "
     "other ranks read (a Bcast root's chunk, an Allgather block, a "
     "reduction's input) bypass "
     "the cache (non-temporal stores, x86-64), so that readers on other "
     "cores fetch them from the shared cache (but see "
     "HCMPI_COLL_SHM_PAIR_CACHED_MIN and "
     "HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN); 0 never; the default is the "
     "processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_ALLTOALL_MAX", "16k", "library",
     "alltoall blocks of more bytes (or more than a rank's segment slot "
     "divided by the ranks) move by point-to-point messages instead of the "
     "shared segment"},
    {"HCMPI_COLL_SHM_PAIR_READ_MIN", "auto: 64k; 0 on AMD family 26", "library",
     "on two ranks, Allgather and Alltoall(v) blocks of at least this many "
     "bytes (below HCMPI_COLL_SHM_PAIR_CACHED_MIN) are read once straight from "
     "the other rank's buffer "
     "(process_vm_readv) instead of moving through the shared segment or "
     "point-to-point messages; 0 never; the default is the processor's "
     "(HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_PAIR_CACHED_MIN", "auto: 0; 1m on AMD Zen 4", "library",
     "on two ranks, collectives whose largest block (Allgather, "
     "Alltoall(v)) or whose vector (reductions) has at least this many "
     "bytes copy through the shared segment's cache: the blocks are not "
     "read from the other rank's buffer (HCMPI_COLL_SHM_PAIR_READ_MIN), "
     "and copies into the segment are not streamed past the cache "
     "(HCMPI_COLL_SHM_STREAM_MIN); 0 never; the default is the "
     "processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN", "auto: 0; 16k on AMD Zen 4",
     "library",
     "on a node with more ranks than CPUs, Reduces and Allreduces of more "
     "than two ranks whose vector has at least this many bytes copy their "
     "inputs into the shared segment through the cache instead of past it "
     "(HCMPI_COLL_SHM_STREAM_MIN); 0 never; the default is the processor's "
     "(HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_ROOTED_READ_MIN", "auto: 16k; 0 on AMD family 26",
     "library",
     "Gather(v) blocks of at least this many bytes and below 64 KiB are "
     "read once by the root straight from the sender's buffer "
     "(process_vm_readv) instead of moving as point-to-point messages (as "
     "they do where reads are refused); 0 never; the default is the "
     "processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_ALLTOALL_READ_MIN", "32k", "library",
     "on more than two ranks of one node, Alltoall blocks (not Alltoallv) "
     "of at least this many bytes are read by each rank straight from "
     "every other rank's buffer (process_vm_readv) instead of moving "
     "through the shared segment or point-to-point messages; 0 never"},
    {"HCMPI_COLL_SHM_CPUS", "0", "library",
     "the CPUs a communicator's collective segment takes the node to have "
     "(rank 0's count is every rank's); with more ranks than that, a "
     "Reduce is combined whole by its root rather than slice by slice on "
     "every rank; 0 counts the online CPUs"},
    {"HCMPI_COLL_SHM_ALLTOALLV_READ", "1", "library",
     "on more than two ranks of one node, blocking Alltoallv blocks too "
     "large for the shared segment (HCMPI_COLL_SHM_ALLTOALL_MAX) are read "
     "by their receivers straight from the senders' buffers "
     "(process_vm_readv); 0 sends them as point-to-point messages"},
    {"HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN", "auto: 16k; 0 on AMD family 26",
     "library",
     "on two ranks, Bcasts of at least this many bytes (up to "
     "HCMPI_COLL_SHM_BCAST_READ_MAX) move straight between the two buffers "
     "(the other rank reads half of the root's with process_vm_readv while "
     "the root writes the other half) instead of taking the shared segment "
     "or one point-to-point message, Ibcasts too (the segment behind them "
     "where a read fails); 0 never; the default is the processor's "
     "(HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN",
     "auto: 16k; 0 on AMD Zen 4 and family 26", "library",
     "on two ranks, Reduces of at least this many bytes (up to "
     "HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX) are combined by the root from "
     "the other rank's input read straight from its buffer "
     "(process_vm_readv, 64 KiB at a time), and Allreduces and Iallreduces "
     "(not in place) by each rank over half the vector, written into both "
     "results (process_vm_writev), instead of through the shared segment; "
     "0 never; the default is the processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_PAIR_REDUCE_SCATTER_READ_MIN", "16k", "library",
     "on two ranks, Reduce_scatter(_block)s (not in place) of at least "
     "this many bytes of the whole vector are combined by each rank over "
     "its own block from the other rank's input read straight from its "
     "buffer (process_vm_readv) instead of through the shared segment; 0 "
     "never"},
    {"HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX", "384k", "library",
     "two-rank Reduces of more bytes are not read from the other rank's "
     "buffer (see HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN): they take the shared "
     "segment's pipeline; Allreduces have no such bound; 0 no limit"},
    {"HCMPI_COLL_SHM_BCAST_READ_MIN", "64k", "library",
     "on more than two ranks of one node, Bcasts of at least this many "
     "bytes (up to HCMPI_COLL_SHM_BCAST_READ_MAX) are read by every rank "
     "but the root straight from the root's buffer (process_vm_readv) "
     "instead of taking the shared segment; 0 never"},
    {"HCMPI_COLL_SHM_BCAST_READ_MAX", "0", "library",
     "Bcasts of more bytes are not read from the root's buffer (see "
     "HCMPI_COLL_SHM_BCAST_READ_MIN); 0: no bound"},
    {"HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN", "auto: 0 on AMD; 64k", "library",
     "where a communicator of more than two ranks has more ranks than the "
     "node has CPUs, its Bcasts and Ibcasts read the root's buffer (see "
     "HCMPI_COLL_SHM_BCAST_READ_MIN) only from this many bytes on, else "
     "they take the shared segment's pipeline; 0 never; the default is the "
     "processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_CROWDED_YIELDS", "auto: 64 on AMD; 0", "library",
     "where a communicator has more ranks than the node has CPUs, a "
     "blocking collective that waits on its shared segment for ranks none "
     "of which last ran on its CPU sleeps after this many polls (each a "
     "yield) instead of after HCMPI_SPIN; 0: after HCMPI_SPIN; the default "
     "is the processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_COLL_SHM_CHUNK", "256k", "library",
     "bytes of each rank's slot in a communicator's collective segment: the "
     "step of its pipeline (smaller on many ranks: the large slots of a "
     "segment stay within 4 MiB)"},
    {"HCMPI_COLL_SHM_LANE_BUF", "4k", "library",
     "bytes of each buffer of a persistent collective's lane in the "
     "segment: its data moves in chunks of this size (halved, down to 512, "
     "until 16 lanes fit 1 MiB on many ranks)"},
    {"HCMPI_COLL_SHM_DEPTH", "256", "library",
     "small buffers (512 bytes) per rank in a communicator's collective "
     "segment: how many small Bcasts (Reduces) the root (the other ranks) "
     "may run ahead of the slowest rank before waiting; rounded down to a "
     "power of two, halved on many ranks until all fit 2 MiB"},
    {"HCMPI_COLL_SHM_LANE_MAX", "16k", "library",
     "persistent Barrier, Bcast, Reduce, Allreduce (and Allgather, "
     "Alltoall, Reduce_scatter) of more bytes per rank take point-to-point "
     "schedules instead of a lane of the segment (16 lanes per "
     "communicator; once all are taken, a later one runs as its schedule "
     "until every rank freed an earlier holder, then in that lane)"},
    {"HCMPI_COLL_SHM_WIDE_LANES", "2", "library",
     "persistent collectives per communicator that fit no lane (above "
     "HCMPI_COLL_SHM_LANE_MAX) yet run the blocking forms' pipeline of the "
     "segment, each in a wide lane of its own with the segment's large "
     "buffers again, its pages taken at its first use (fewer where they "
     "would pass 10 MiB); later ones run as point-to-point schedules until "
     "every rank freed an earlier holder, then in its wide lane; 0: none"},
    /* shared memory */
    {"HCMPI_SHM_CMA", "1", "library",
     "0 turns off single-copy CMA; rendezvous then pipelines through the "
     "segment"},
    {"HCMPI_SHM_CMA_MIN",
     "auto: 4m; 64g (never) on AMD family 26; 32k on Intel", "library",
     "rendezvous messages of fewer bytes stream through the segment (the "
     "sender's copy into a cell overlapping the receiver's copy out of the "
     "last) instead of one CMA read; 0 reads every one with CMA; the "
     "default is the processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_SHM_STREAM_RUNQ_MAX", "25", "library",
     "percent of its runnable time a rank may spend waiting for a core "
     "(its recent run delay) while rendezvous below HCMPI_SHM_CMA_MIN still "
     "stream to or from it; above, on either end of a pair, they are read "
     "with CMA, which needs only the receiver on a core; 0 always reads, "
     "100 always streams"},
    {"HCMPI_SHM_CMA_HELP_MIN", "auto: 1m; 512k on Intel", "library",
     "CMA reads of at least this many bytes are shared with the peer read "
     "from (it writes 256 KiB chunks from the front while the reader reads "
     "from the back), unless either waits for a core "
     "(HCMPI_SHM_STREAM_RUNQ_MAX); 0 never; the default is the processor's "
     "(HCMPI_CPU_PROFILE)"},
    {"HCMPI_SHM_LONE_READ_MIN",
     "auto: 4m; 64g (never) on AMD family 26; 4k on Intel", "library",
     "a lone rendezvous between ranks of a node (nothing else in the ring "
     "between them) of at least this many bytes is read with CMA even "
     "below HCMPI_SHM_CMA_MIN, and a lone message below it is sent eager "
     "up to HCMPI_SHM_EAGER_BUSY_MAX rather than streamed; as large as "
     "HCMPI_SHM_CMA_MIN: off; the default is the processor's "
     "(HCMPI_CPU_PROFILE)"},
    {"HCMPI_SHM_EAGER_BUSY_MAX", "auto: 0; 16k on Intel", "library",
     "while HCMPI_EAGER_LIMIT is unset, messages between ranks of a node "
     "above the processor's eager limit, up to this many bytes (and what "
     "one cell holds), still go eager while they follow others in a stream "
     "(the last rendezvous to that rank unfinished, the ring to it "
     "holding packets it has not read yet, or no answer from it since the "
     "last such send), or while the pair would stream "
     "a lone rendezvous through its cells rather than read it with CMA "
     "(HCMPI_SHM_LONE_READ_MIN); 0 never; the default is the processor's "
     "(HCMPI_CPU_PROFILE)"},
    {"HCMPI_SHM_FAR_READ_MIN", "auto: 1m on AMD; off", "library",
     "where the two ranks of a node sit on cores a cache line crosses "
     "between slowly (a short ping-pong on a shared line at start-up, run "
     "only where this is below HCMPI_SHM_CMA_MIN: one way 0.12 us or "
     "more, or HCMPI_SHM_PLACEMENT=far), rendezvous of at least this many "
     "bytes are read with CMA, lone or in a stream, instead of streaming "
     "through the cells; with the ping-pong's verdict, only until both "
     "ways were measured: then such rendezvous take the way that moved "
     "them faster lately, and one tries the other way every 0.2 s (the "
     "host may move the cores); as large as HCMPI_SHM_CMA_MIN: off; the "
     "default is the processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_SHM_FAR_CELL_STREAM_MIN", "auto: 4k on AMD; 0", "library",
     "where the two ranks of a node sit on cores a cache line crosses "
     "between slowly (the start-up ping-pong of HCMPI_SHM_FAR_READ_MIN, "
     "run also where this is not 0, or HCMPI_SHM_PLACEMENT=far), a sender "
     "writes messages of at least this many bytes into its cells with "
     "non-temporal stores (past its cache: the receiver reads them from "
     "memory instead of from the sender's core; x86-64 only); once the "
     "receiver measured its large rendezvous (HCMPI_SHM_FAR_READ_MIN), "
     "while it reads them, not while it streams them; 0 never; "
     "the default is the processor's (HCMPI_CPU_PROFILE)"},
    {"HCMPI_SHM_PLACEMENT", "auto", "library",
     "tests only: near or far skips the start-up ping-pong of "
     "HCMPI_SHM_FAR_READ_MIN and HCMPI_SHM_FAR_CELL_STREAM_MIN and takes "
     "that verdict; auto: the ping-pong's "
     "(only on a node of two ranks, not crowded; else near)"},
    {"HCMPI_CPU_PROFILE", "auto", "library",
     "tests only: amd, amd-zen4, amd26, intel or generic names the processor "
     "profile "
     "whose "
     "defaults the shared-memory thresholds take (HCMPI_SHM_CMA_MIN, "
     "HCMPI_SHM_CMA_HELP_MIN, HCMPI_COLL_SHM_STREAM_MIN, "
     "HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN, HCMPI_COLL_SHM_CROWDED_YIELDS, "
     "HCMPI_COLL_SHM_PAIR_READ_MIN, HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN, "
     "HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN, HCMPI_COLL_SHM_ROOTED_READ_MIN, "
     "HCMPI_COLL_SHM_PAIR_CACHED_MIN, "
     "HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN, "
     "HCMPI_SHM_EAGER_BUSY_MAX, HCMPI_SHM_LONE_READ_MIN, "
     "HCMPI_SHM_FAR_READ_MIN, "
     "HCMPI_SHM_FAR_CELL_STREAM_MIN, the eager limit between ranks of a node "
     "while HCMPI_EAGER_LIMIT is unset); unset: "
     "cpuid's vendor and family (AMD: amd, family 25 with AVX-512 (Zen 4) "
     "amd-zen4, from family 26 amd26; Intel: intel; others and non-x86: "
     "generic)"},
    {"HCMPI_SHM_POLLABLE", "1", "library",
     "0: beside transports that sleep on descriptors (tcp), shm sleeps on "
     "its futex in 1 ms turns instead of offering a pollable doorbell"},
    {"HCMPI_SHM_LIGHT_FENCE", "1", "library",
     "0: each shared-memory send fences before it looks whether the peer "
     "sleeps; 1: where the kernel has membarrier's global expedited "
     "command and the node's ranks are no more than its online "
     "processors, sends fence against the compiler only and a rank about "
     "to sleep runs membarrier instead; likewise a shared-memory "
     "collective's flags on a communicator no larger than the node's "
     "processors, on a node not crowded.  The node's first rank (a "
     "communicator's rank 0) "
     "decides for every sleeper; a rank set to 0 where it decided 1 "
     "still fences its own sends"},
    {"HCMPI_SHM_CELL_SIZE", "16384", "library",
     "bytes per cell of a rank's shared-memory send pool: the largest shm "
     "packet (same on every rank)"},
    {"HCMPI_SHM_CELLS", "64", "library",
     "cells per rank's shared-memory send pool (also caps the slots of each "
     "pair's ring)"},
    {"HCMPI_SHM_MEMFD", "1", "library",
     "0 puts the segment in /dev/shm instead of an anonymous memfd"},
    {"HCMPI_SHM_LIVENESS_MS", "100", "library",
     "ms between checks whether a local peer's process exited (made as a "
     "wait sleeps, or every 64 empty polls): how late a death on the node "
     "is noticed; a live but hung peer is never taken for dead"},
    /* tcp */
    {"HCMPI_SHM_TAG", "(set by hcmpirun)", "library",
     "1 to 8 hex digits: named shared segments (HCMPI_SHM_MEMFD=0) are "
     "/hcmpi-TAG-..., and hcmpirun unlinks its job's tag from /dev/shm when "
     "the job ends, so a rank killed before it unlinked its segment leaves "
     "nothing behind"},
    {"HCMPI_JOB_SECRET", "(set by hcmpirun)", "library",
     "64 hex digits: the per-job key that authenticates tcp connections "
     "(challenge-response); without it rank 0 makes one and hands it out "
     "through the bootstrap KVS"},
    {"HCMPI_TCP_IF", "launcher's address", "library",
     "interface name or CIDR the TCP transport listens on, only there (e.g. "
     "ib0, 10.1.0.0/16, lo; default: the address that reached a TCP "
     "launcher, else the first UP IPv4)"},
    {"HCMPI_TCP_MAX_PACKET", "262144", "library",
     "largest TCP packet in bytes"},
    {"HCMPI_TCP_SENDQ", "8m", "library",
     "queued bytes per TCP peer before senders wait"},
    {"HCMPI_TCP_SOCKBUF", "4m", "library",
     "TCP socket buffer size; 0 leaves the kernel's, others are raised to "
     "256k (smaller buffers stall on 64 KiB segments)"},
    {"HCMPI_TCP_PLACE", "1", "library",
     "0: rendezvous payloads go through the receive buffer instead of being "
     "read straight into the user's buffer"},
    {"HCMPI_TCP_HANDSHAKE_MS", "5000", "library",
     "ms an accepted TCP connection has to authenticate before it is closed "
     "(at least 50)"},
    {"HCMPI_TCP_HANDSHAKES", "128", "library",
     "accepted TCP connections that may wait for their handshake at once; "
     "a new one closes the oldest"},
    /* processes of other jobs (ports, join, spawn) */
    {"HCMPI_RUNTIME_PEERS", "1024", "library",
     "processes of other jobs one process may connect to over its life"},
    {"HCMPI_LINK_TIMEOUT_MS", "60000", "library",
     "ms a connection to another job's process may take to set up"},
    {"HCMPI_LAUNCHER", "(set by hcmpirun)", "library",
     "hcmpirun: the launcher takes MPI_Comm_spawn requests over PMI"},
    {"HCMPI_PARENT_PORT", "(set by hcmpirun)", "library",
     "in spawned processes: the port their parents accept on"},
    {"HCMPI_NAME_DIR", "$TMPDIR/hcmpi-names-$UID", "library",
     "directory of the names MPI_Publish_name publishes, shared by the jobs "
     "that look them up"},
    /* verbs (InfiniBand, RoCE) */
    {"HCMPI_VERBS_LIB", "libibverbs.so.1", "library",
     "libibverbs to dlopen for the verbs transport"},
    {"HCMPI_IB_DEVICE", "first device", "library",
     "verbs device name (e.g. mlx5_0)"},
    {"HCMPI_IB_PORT", "first active", "library", "verbs port number"},
    {"HCMPI_IB_GID_INDEX", "RoCE v2 entry, else 0", "library",
     "GID index used by the queue pairs"},
    {"HCMPI_VERBS_RECVS", "32", "library",
     "receive buffers posted per peer (packets and control)"},
    {"HCMPI_VERBS_BUF", "16k", "library", "bytes per verbs packet buffer"},
    {"HCMPI_VERBS_RDMA", "1", "library",
     "0 turns off RDMA reads for rendezvous (data then streams as packets)"},
    {"HCMPI_VERBS_ATOMICS", "1", "library",
     "0 treats the device as one without atomics: windows that ask for NIC "
     "atomics keep active messages"},
    {"HCMPI_VERBS_KEEPALIVE_MS", "1000", "library",
     "idle interval of the zero-length RDMA write that detects a dead peer; "
     "0 turns it off"},
    {"HCMPI_VERBS_REGCACHE", "auto", "library",
     "verbs registration cache: auto keeps on-demand-paging regions, and "
     "pinned ones (invalidated by the memory hooks) where the allocator "
     "can be kept from releasing memory unseen (glibc's); 1 pinned ones "
     "everywhere; 0 none"},
    {"HCMPI_MEMHOOKS", "1", "library",
     "tests only: 0 leaves the memory-release hooks inert (a pinned "
     "registration cache then serves stale regions)"},
    /* MPI-IO */
    {"HCMPI_IO_URING", "1", "library",
     "0: non-blocking file accesses use the worker thread (pread / pwrite) "
     "even where the kernel offers io_uring"},
    /* device buffers */
    {"HCMPI_DEVICE", "auto", "library",
     "device runtime for accelerator buffers: auto, acl, cuda, none"},
    {"HCMPI_ACL_LIB", "libascendcl.so", "library", "ACL runtime to dlopen"},
    {"HCMPI_CUDA_LIB", "libcuda.so.1", "library", "CUDA driver to dlopen"},
    {"HCMPI_STREAM_WAIT", "flag", "library",
     "how a device stream waits for an enqueued MPI operation: flag (a "
     "short host function starts it and the stream waits on a value the "
     "library raises when it completed: cuStreamWaitValue32, "
     "aclrtValueWait), or hostfn (a host function runs the whole operation "
     "and blocks the stream meanwhile); flag falls back to hostfn where the "
     "runtime lacks stream value waits"},
    {"HCMPI_STREAM_DIRECT", "auto", "library",
     "with HCMPI_STREAM_WAIT=flag, 1 hands an enqueued send or receive of "
     "the stream's device memory to the engine as it is once the stream "
     "reached it (moved by the device data paths: hccl, ipc, rdma or the "
     "engine's staging; no copy through the enqueue's own staging); 0 "
     "stages it through pinned host memory on the stream; auto: 1 on "
     "Ascend, 0 on CUDA (closing a CUDA IPC import waits for every stream, "
     "the one held for the operation too)"},
    {"HCMPI_DEVICE_PATH", "auto", "library",
     "data path for device buffers: auto, staging, ipc, hccl, rdma"},
    {"HCMPI_HCCL_LIB", "libhccl.so", "library", "HCCL to dlopen (hccl path)"},
    {"HCMPI_COLL_HCCL", "1", "library",
     "0: blocking collectives on Ascend device buffers stage through the "
     "host instead of running as HCCL's own collectives; while HCCL is "
     "loaded, each collective HCCL could run first agrees across the "
     "communicator (one small allreduce); must be alike on every rank"},
    {"HCMPI_HCOMM_LIB", "libhcomm.so", "library",
     "where the HCCL comm calls are when libhccl lacks them"},
    {"HCMPI_DEVICE_CHUNK", "1m", "library",
     "staging chunk in bytes (at least 4096)"},
    {"HCMPI_DEVICE_SLOTS", "4", "library",
     "staging chunks in flight per message (1 to 8)"},
    /* launcher and wrappers */
    {"HCMPI_KILL_GRACE", "2", "hcmpirun",
     "seconds between SIGTERM and SIGKILL at teardown"},
    {"HCMPI_FT", "0", "hcmpirun",
     "1 keeps the job running when a rank fails (as --no-kill-on-failure)"},
    {"HCMPI_KVS_RANK_BYTES", "1m", "hcmpirun",
     "bytes one rank's entries may take in the PMI key-value store; a put "
     "beyond it is refused"},
    {"HCMPI_KVS_BYTES", "256m", "hcmpirun",
     "bytes all ranks' entries may take in the PMI key-value store"},
    {"HCMPI_CC", "build compiler", "hcmpicc", "the C compiler to wrap"},
    {"HCMPI_CXX", "build compiler", "hcmpicxx", "the C++ compiler to wrap"},
    {"HCMPI_FC", "build compiler", "hcmpifort", "the Fortran compiler to wrap"},
};

const size_t hc_env_table_count = sizeof hc_env_table / sizeof hc_env_table[0];

/* Upper bounds that only keep numbers sane. */
#define ENV_GIB (1LL << 30)
#define ENV_DAY_MS 86400000LL
#define ENV_YEAR_S 31536000LL

/* A value outside these is refused (MPI_Init fails, hcmpirun exits), not
 * clamped or ignored: HCMPI_TCP_SENDQ=0 would send nothing, HCMPI_WAIT_MS=-1
 * would sleep for ever, HCMPI_SHM_CELLS=0 would quietly become 2. */
const hc_env_bounds_t hc_env_bounds[] = {
    {"HCMPI_HANG_TIMEOUT", 0, 0, ENV_YEAR_S},
    {"HCMPI_EAGER_LIMIT", 1, 0, ENV_GIB},
    {"HCMPI_COLL_BCAST_LARGE", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_ALLREDUCE_LARGE", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_ALLGATHER_LARGE", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_ALLTOALL_LINEAR", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_ALLTOALL_BRUCK", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_GATHER_LINEAR_MAX", 0, 1, 1 << 20},
    {"HCMPI_COLL_GATHER_RECV_FIRST_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_AFTER", 0, 0, 1 << 30},
    {"HCMPI_COLL_SHM_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_CHUNK", 1, 4 << 10, 64 << 20},
    {"HCMPI_COLL_SHM_ALLGATHER_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_PAIR_BCAST_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_PAIR_BCAST_SEG_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_BCAST_BUFS", 0, 0, 1 << 20},
    {"HCMPI_COLL_SHM_STREAM_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_ALLTOALL_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_PAIR_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_PAIR_CACHED_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_CROWDED_REDUCE_CACHED_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_ALLTOALL_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_ROOTED_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_CPUS", 1, 0, 1 << 20},
    {"HCMPI_COLL_SHM_PAIR_BCAST_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_PAIR_REDUCE_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_PAIR_REDUCE_SCATTER_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_PAIR_REDUCE_READ_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_BCAST_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_BCAST_READ_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_CROWDED_BCAST_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_CROWDED_YIELDS", 1, 0, 1 << 20},
    {"HCMPI_COLL_SHM_LANE_BUF", 1, 512, 1 << 20},
    {"HCMPI_COLL_SHM_LANE_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_COLL_SHM_WIDE_LANES", 0, 0, 16},
    {"HCMPI_COLL_SHM_DEPTH", 0, 1, 256},
    {"HCMPI_TEST_RMA_NOMEM", 0, 0, 1 << 20},
    {"HCMPI_TEST_RMA_DIE_HOLDING", 0, 0, 1 << 30},
    {"HCMPI_SPIN", 0, 0, ENV_GIB},
    {"HCMPI_SPIN_PURE", 0, 0, ENV_GIB},
    {"HCMPI_SPIN_CROWDED", 0, 0, ENV_GIB},
    {"HCMPI_WAIT_MS", 0, 0, 60000},
    {"HCMPI_SHM_CELL_SIZE", 1, 256, 16 << 20},
    {"HCMPI_SHM_CMA_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_SHM_STREAM_RUNQ_MAX", 0, 0, 100},
    {"HCMPI_SHM_CMA_HELP_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_SHM_LONE_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_SHM_FAR_READ_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_SHM_FAR_CELL_STREAM_MIN", 1, 0, 64 * ENV_GIB},
    {"HCMPI_SHM_EAGER_BUSY_MAX", 1, 0, 64 * ENV_GIB},
    {"HCMPI_SHM_CELLS", 0, 2, 65536},
    {"HCMPI_SHM_LIVENESS_MS", 0, 1, ENV_DAY_MS},
    {"HCMPI_TCP_MAX_PACKET", 1, 4 << 10, 64 << 20},
    {"HCMPI_TCP_SENDQ", 1, 1, ENV_GIB},
    {"HCMPI_TCP_SOCKBUF", 1, 0, ENV_GIB},
    {"HCMPI_TCP_HANDSHAKE_MS", 0, 50, ENV_DAY_MS},
    {"HCMPI_TCP_HANDSHAKES", 0, 1, 1 << 20},
    {"HCMPI_RUNTIME_PEERS", 0, 0, 1 << 20},
    {"HCMPI_LINK_TIMEOUT_MS", 0, 1, ENV_DAY_MS},
    {"HCMPI_IB_PORT", 0, 1, 255},
    {"HCMPI_IB_GID_INDEX", 0, 0, 65535},
    {"HCMPI_VERBS_RECVS", 0, 4, 65536},
    {"HCMPI_VERBS_BUF", 1, 1024, ENV_GIB},
    {"HCMPI_VERBS_KEEPALIVE_MS", 0, 0, ENV_DAY_MS},
    {"HCMPI_DEVICE_CHUNK", 1, 4096, ENV_GIB},
    {"HCMPI_DEVICE_SLOTS", 0, 1, 8},
    {"HCMPI_KILL_GRACE", 0, 0, ENV_YEAR_S},
    {"HCMPI_KVS_RANK_BYTES", 1, 4 << 10, 64 * ENV_GIB},
    {"HCMPI_KVS_BYTES", 1, 4 << 10, 64 * ENV_GIB},
};

const size_t hc_env_bounds_count =
    sizeof hc_env_bounds / sizeof hc_env_bounds[0];

static const hc_env_entry_t *env_entry(const char *name) {
  for (size_t i = 0; i < hc_env_table_count; i++)
    if (strcmp(hc_env_table[i].name, name) == 0)
      return &hc_env_table[i];
  return NULL;
}

/* A set value as b's kind reads it; -1 when it is no such number.  A size
 * too large for a long long is out of range anyway. */
static int env_value(const hc_env_bounds_t *b, const char *text,
                     long long *value) {
  long n;
  size_t bytes;
  if (!b->is_size) {
    if (hc_env_parse_long(text, &n) != 0)
      return -1;
    *value = n;
  } else {
    if (hc_env_parse_size(text, &bytes) != 0)
      return -1;
    *value = bytes > (size_t)b->max ? b->max + 1 : (long long)bytes;
  }
  return 0;
}

int hc_env_check(const char *scope, char *why, size_t len) {
  for (size_t i = 0; i < hc_env_bounds_count; i++) {
    const hc_env_bounds_t *b = &hc_env_bounds[i];
    const hc_env_entry_t *e = env_entry(b->name);
    const char *text = hc_env_string(b->name, NULL);
    long long value;
    if (e == NULL || strcmp(e->scope, scope) != 0 || text == NULL)
      continue;
    if (env_value(b, text, &value) != 0) {
      snprintf(why, len, "%s=%s is not %s: %s", b->name, text,
               b->is_size ? "a size in bytes (a number, optionally followed "
                            "by k, m or g)"
                          : "a whole number",
               e->meaning);
      return -1;
    }
    if (value < b->min || value > b->max) {
      snprintf(why, len, "%s=%s is out of range (%lld to %lld%s): %s", b->name,
               text, b->min, b->max, b->is_size ? " bytes" : "", e->meaning);
      return -1;
    }
  }
  return 0;
}
