/* Light fences between processes (fence.h). */
#include "config.h"

#include <linux/membarrier.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/fence.h"

static long fence_membarrier(int cmd) {
  return syscall(SYS_membarrier, cmd, 0, 0);
}

int hc_fence_light_register(void) {
  /* 0: not asked yet, 1: registered, -1: refused. */
  static _Atomic int registered;
  int known = atomic_load_explicit(&registered, memory_order_acquire);
  if (known != 0)
    return known > 0;
  long cmds = fence_membarrier(MEMBARRIER_CMD_QUERY);
  int ok = cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
           fence_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
  atomic_store_explicit(&registered, ok ? 1 : -1, memory_order_release);
  return ok;
}

int hc_fence_sleeper(int light) {
  atomic_thread_fence(memory_order_seq_cst);
  return !light || fence_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0;
}
