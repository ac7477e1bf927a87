/*
 * What the schedule engine (nbc.c) shares with the builders of the
 * collectives (nbc_reduce.c, nbc_gather.c, nbc_alltoall.c, nbc_scan.c):
 * the schedule itself, whose rank, size and op the builders read, and the
 * helpers every family uses.  The steps themselves (hc_nbc_add_send and
 * the rest) are declared in nbc.h.
 */
#ifndef HC_NBC_IMPL_H
#define HC_NBC_IMPL_H

#include "hcomm/core.h"
#include "hcomm/nbc.h"
#include "hcomm/shmcoll.h"

struct nbc_step;

struct nbc_sched {
  struct nbc_sched *next;
  hcomm_comm_t *comm;
  hcomm_comm_t *group;  /* the steps added now address it; rank, size: ours */
  hcomm_request_t *req; /* what the caller waits on */
  hcomm_reduce_op_t op;
  int tag;
  int rank, size;
  struct nbc_step *steps;
  size_t nsteps, cap, pos;
  hcomm_request_t **reqs; /* the current round's sends and receives */
  size_t nreqs, reqcap;
  void **bufs; /* temporaries, freed with the schedule */
  size_t nbufs, bufcap;
  hc_status_t error;
  hcomm_coll_done_fn done_fn; /* hcomm_icoll_on_complete */
  void *done_arg;
  void (*cleanup_fn)(void *arg); /* hc_nbc_set_cleanup */
  void *cleanup_arg;
  void (*release_fn)(void *arg); /* hcomm_coll_init_hooks, of done_arg */
  int yield;      /* hc_nbc_yield: stop after this round until the next pass */
  int persistent; /* hcomm_*_init: kept after a run, replayed by hcomm_start */
  int hccl_plan;  /* built for hcomm_hccl_icoll (hcomm_hccl_plan_next) */
  hc_shmcoll_op_t *shm; /* the shared-memory collective under way */
  hc_nbc_poll_fn poll;  /* the poll step under way (hc_nbc_add_poll) */
  void *poll_arg;
  /* The first shared-memory step's collective, in place: most schedules
   * with such a step have only it, and a temporary for it was a malloc
   * and a free per non-blocking collective. */
  hc_shmcoll_op_t shm_first;
  int shm_first_taken;
  /* A persistent collective's claim of a lane (hc_nbc_use_shmcoll),
   * released when it is freed; while it waits, the schedule's steps run. */
  hc_shmcoll_claim_t *lane_claim;
  /* While it waits: the steps that run once it is in its lane (its step
   * first, hc_nbc_lane_begin), kept behind the schedule's nsteps: from
   * lane_at - 1 on, lane_n of them; lane_at 0: none. */
  size_t lane_at, lane_n;
  /* A persistent collective whose schedule is its lane's one step: that
   * step's op, which a start may run straight (hc_shmcoll_op_now_locked)
   * without the schedule's rounds; NULL otherwise. */
  hc_shmcoll_op_t *lane_only;
};

/* What the builder of a collective does with the schedule it built:
 * hc_nbc_launch(s, mode == HC_NBC_PLAN, req). */
enum hc_nbc_mode {
  HC_NBC_START, /* start it now: hcomm_i* */
  HC_NBC_PLAN   /* keep it inactive for hcomm_start: hcomm_*_init */
};

/* 1 when the shared-memory collective *op, which an hc_shmcoll_i*_prepare
 * set up (it returned prepared), became a step of s: as it is for an
 * I-form, in a lane of its own for a persistent form.  0: build the
 * point-to-point schedule instead. */
int hc_nbc_use_shmcoll(hc_nbc_sched_t *s, hc_shmcoll_op_t *op,
                       hc_status_t prepared, enum hc_nbc_mode mode);

/* For a persistent collective whose lane claim waits (hc_nbc_use_shmcoll
 * returned 0 and made one), after its point-to-point steps: adds its
 * lane's step, and the steps added after it until the launch are the
 * ones that run behind that step once the claim moved into the lane (a
 * read exchange's repair); the launch adds the step alone where no
 * builder did.  Returns the lane's collective (the claim's copy, which
 * those steps may name), or NULL where no claim waits. */
const hc_shmcoll_op_t *hc_nbc_lane_begin(hc_nbc_sched_t *s);

/* The checks every collective makes before it builds: an intracommunicator
 * (an intercommunicator's collectives are intercoll.c's), a request
 * pointer, a root in range, a usable op. */
hc_status_t hc_nbc_check(hcomm_comm_t *comm, hcomm_request_t **req);
hc_status_t hc_nbc_check_root(hcomm_comm_t *comm, int root,
                              hcomm_request_t **req);
hc_status_t hc_nbc_check_op(hcomm_comm_t *comm, const hcomm_reduce_op_t *op,
                            hcomm_request_t **req);

/* The regular forms' layout for the v-form builders: one block of bytes
 * per rank, back to back; sizes, then displacements (size each), in the
 * schedule's memory.  NULL as for hc_nbc_tmp. */
size_t *hc_nbc_even_blocks(hc_nbc_sched_t *s, size_t bytes);
/* dst = the size blocks of bytes of src from block first on, wrapping
 * round: block i of dst is block (first + i) % size of src (local steps). */
void hc_nbc_add_rotate(hc_nbc_sched_t *s, const char *src, char *dst,
                       size_t bytes, int first);

/* The linear scatterv of nbc_gather.c, which the non-commutative
 * reduce_scatter of nbc_reduce.c ends with. */
void hc_nbc_build_scatterv(hc_nbc_sched_t *s, const char *sendbuf,
                           const size_t *sbytes, const size_t *sdispls,
                           void *recvbuf, size_t rbytes, int root);

#endif /* HC_NBC_IMPL_H */
