/* TEST DOUBLE internals shared by the fake libascendcl.so's files. */
#ifndef FAKE_ACL_INT_H
#define FAKE_ACL_INT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "fake_acl.h"

/* One device allocation (or an imported peer allocation). */
typedef struct fake_alloc {
  struct fake_alloc *next;
  uintptr_t dev;         /* address handed out: PROT_NONE */
  size_t size;           /* bytes asked for */
  size_t map_size;       /* page-rounded */
  unsigned char *shadow; /* the double's own mapping of the bytes */
  int fd;                /* memfd holding the bytes (-1 when imported) */
  int device;
  int imported;
  char key[80]; /* imported: the key it came from */
} fake_alloc_t;

typedef struct fake_pinned {
  struct fake_pinned *next;
  uintptr_t base;
  size_t size;
} fake_pinned_t;

typedef struct fake_export fake_export_t;

typedef struct fake_state {
  pthread_mutex_t lock;
  int initialized;
  uintptr_t va_base, va_next;
  fake_alloc_t *allocs;
  fake_pinned_t *pinned;
  fake_export_t *exports;
  unsigned long key_seq;
  char last_error[256];
} fake_state_t;

extern fake_state_t fake;

typedef struct fake_copy {
  void *dst;
  void *src;
  size_t n;
  int pinned; /* host side is aclrtMallocHost memory */
} fake_copy_t;

aclError fake_fail(aclError err, const char *why);
int fake_devices(void);
int fake_current_device(void);
aclError fake_need_context(void);
uintptr_t fake_reserve_va(size_t bytes);
fake_alloc_t *fake_find(uintptr_t p);
size_t fake_round_page(size_t n);
void fake_drop_alloc_locked(fake_alloc_t *a);
int fake_is_pinned_locked(uintptr_t p, size_t n);
aclError fake_resolve_copy(void *dst, size_t destMax, const void *src,
                           size_t count, aclrtMemcpyKind kind, int async,
                           fake_copy_t *out);
/* 1 when another process holds an import of an export of a. */
int fake_ipc_imported_locked(const fake_alloc_t *a);
/* Withdraws every export of allocation a (it is being freed). */
void fake_ipc_withdraw_locked(fake_alloc_t *a);

#endif /* FAKE_ACL_INT_H */
