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

/* Asks the CPU to bring the cache line holding p into this core's cache
 * in a state it may write (x86: PREFETCHW), without waiting for it: a
 * line another core read last (a ring cell, a box), so that the next
 * store to it does not wait for that core's copy to be invalidated.
 * During a stream of small sends those misses filled the store buffer
 * and stalled the sends behind them (AMD EPYC, bench/NOTES.md,
 * amdp2p23).  CPUs without PREFETCHW run the encoding as a NOP. */
__attribute__((always_inline)) static inline void
hc_prefetch_write(const void *p) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ volatile("prefetchw (%0)" : : "r"(p));
#else
  __builtin_prefetch(p, 1);
#endif
}

#endif
