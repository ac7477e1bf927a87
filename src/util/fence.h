/*
 * Light fences between processes that share memory: a publisher that
 * raises a word others may be asleep on fences only against the compiler,
 * and each sleeper, after counting itself asleep and before its last look,
 * makes every registered process's core pass a full barrier
 * (membarrier's global expedited command).  Either the sleeper's look
 * sees the publication, or the publisher's next load sees the sleeper
 * counted.  Used by the shm transport's doorbells and the shared-memory
 * collectives' bell (bench/NOTES.md, rate17h and reduce16).
 */
#ifndef HC_UTIL_FENCE_H
#define HC_UTIL_FENCE_H

/* Registers this process for the sleepers' membarrier (once; later calls
 * return the first answer): 1 when its publishers may fence lightly. */
int hc_fence_light_register(void);

/* The sleeper's half, after counting itself asleep: where its publishers
 * may be light, a full barrier on every registered process's core, else
 * its own full fence.  0 when the kernel refused, so that a light
 * publication may go unseen and the sleeper must sleep in short turns. */
int hc_fence_sleeper(int light);

/* A spin-wait's hint between two looks at a line another core is about
 * to write: the looking core backs off for a few dozen cycles, so its
 * loads do not pull the line back between the writer's stores (a box
 * written in two stores, shmcoll_impl.h). */
static inline void hc_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield" ::: "memory");
#endif
}

#endif
