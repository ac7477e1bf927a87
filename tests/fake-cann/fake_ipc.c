/*
 * TEST DOUBLE of libascendcl.so: IPC of device memory.  An export key names
 * a small record file in a private directory (/dev/shm/fake-cann-<uid>/)
 * that tells importers where the exporter's memfd is (/proc/<pid>/fd/<fd>),
 * which PIDs may import, and how many importers hold it open.  The rules
 * and error codes follow the documented ones: page-aligned export ranges,
 * a PID whitelist unless validation is disabled, importers close before
 * the exporter does, imported memory takes only async D2D copies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_acl_int.h"

#define FAKE_KEY_LEN 65
#define FAKE_PIDS_MAX 64
#define FAKE_IPC_MAGIC 0x46414b45u

typedef struct fake_ipc_record {
  uint32_t magic;
  int32_t pid;
  int32_t fd;
  int32_t device;
  uint64_t offset; /* of the exported range in the memfd */
  uint64_t size;
  uint64_t flags;
  int32_t npids;
  int32_t pids[FAKE_PIDS_MAX];
  atomic_int importers;
} fake_ipc_record_t;

struct fake_export {
  fake_export_t *next;
  char key[FAKE_KEY_LEN];
  fake_alloc_t *alloc; /* NULL once the allocation was freed */
  fake_ipc_record_t *rec;
};

void fakecann_dir(char *dir, size_t len) {
  const char *env = getenv("FAKE_CANN_DIR");
  if (env != NULL && env[0] != '\0')
    snprintf(dir, len, "%s", env);
  else
    snprintf(dir, len, "/dev/shm/fake-cann-%u", (unsigned)getuid());
}

static void fake_ipc_path(const char *key, char *path, size_t len) {
  char dir[200];
  fakecann_dir(dir, sizeof dir);
  snprintf(path, len, "%s/%s", dir, key);
}

static int fake_ipc_dir(void) {
  char dir[200];
  fakecann_dir(dir, sizeof dir);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return -1;
  return 0;
}

static int fake_key_ok(const char *key) {
  return key != NULL && strnlen(key, FAKE_KEY_LEN) < FAKE_KEY_LEN &&
         strncmp(key, "fakecann-", 9) == 0 && strchr(key, '/') == NULL;
}

static fake_ipc_record_t *fake_ipc_map(const char *key, int create) {
  char path[300];
  fake_ipc_path(key, path, sizeof path);
  int fd = open(path, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
  if (fd < 0)
    return NULL;
  if (create && ftruncate(fd, sizeof(fake_ipc_record_t)) != 0) {
    close(fd);
    unlink(path);
    return NULL;
  }
  void *p = mmap(NULL, sizeof(fake_ipc_record_t), PROT_READ | PROT_WRITE,
                 MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? NULL : p;
}

static void fake_export_remove_locked(fake_export_t *ex) {
  for (fake_export_t **l = &fake.exports; *l != NULL; l = &(*l)->next)
    if (*l == ex) {
      *l = ex->next;
      break;
    }
  char path[300];
  fake_ipc_path(ex->key, path, sizeof path);
  unlink(path);
  munmap(ex->rec, sizeof *ex->rec);
  free(ex);
}

/* Leftover record files would outlive a test that exits early. */
static void fake_ipc_atexit(void) {
  pthread_mutex_lock(&fake.lock);
  while (fake.exports != NULL)
    fake_export_remove_locked(fake.exports);
  pthread_mutex_unlock(&fake.lock);
}

int fake_ipc_imported_locked(const fake_alloc_t *a) {
  for (fake_export_t *ex = fake.exports; ex != NULL; ex = ex->next)
    if (ex->alloc == a && atomic_load(&ex->rec->importers) > 0)
      return 1;
  return 0;
}

void fake_ipc_withdraw_locked(fake_alloc_t *a) {
  fake_export_t *ex = fake.exports;
  while (ex != NULL) {
    fake_export_t *next = ex->next;
    if (ex->alloc == a)
      fake_export_remove_locked(ex);
    ex = next;
  }
}

static aclError fake_export_check(fake_alloc_t *a, uintptr_t p, size_t size,
                                  size_t len) {
  if (len < FAKE_KEY_LEN)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "key buffer shorter than 65");
  if (a == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "not device memory");
  if (a->imported)
    return fake_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                     "imported memory cannot be exported again");
  if ((p - a->dev) % (uintptr_t)sysconf(_SC_PAGESIZE) != 0)
    return fake_fail(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED,
                     "export range not page-aligned");
  if (size == 0 || size > a->size - (p - a->dev))
    return fake_fail(ACL_ERROR_INVALID_PARAM, "export range past allocation");
  return ACL_SUCCESS;
}

static aclError fake_export_publish_locked(fake_alloc_t *a, uintptr_t p,
                                           size_t size, uint64_t flags,
                                           char *key) {
  static int atexit_set;
  fake_export_t *ex = calloc(1, sizeof *ex);
  if (ex == NULL || fake_ipc_dir() != 0) {
    free(ex);
    return fake_fail(ACL_ERROR_RT_INTERNAL_ERROR, "no IPC directory");
  }
  snprintf(ex->key, sizeof ex->key, "fakecann-%d-%lu", (int)getpid(),
           ++fake.key_seq);
  ex->rec = fake_ipc_map(ex->key, 1);
  if (ex->rec == NULL) {
    free(ex);
    return fake_fail(ACL_ERROR_RT_INTERNAL_ERROR, "cannot publish key");
  }
  ex->alloc = a;
  ex->rec->pid = (int32_t)getpid();
  ex->rec->fd = a->fd;
  ex->rec->device = a->device;
  ex->rec->offset = p - a->dev;
  ex->rec->size = size;
  ex->rec->flags = flags;
  atomic_init(&ex->rec->importers, 0);
  ex->rec->magic = FAKE_IPC_MAGIC;
  ex->next = fake.exports;
  fake.exports = ex;
  if (!atexit_set && atexit(fake_ipc_atexit) == 0)
    atexit_set = 1;
  memcpy(key, ex->key, FAKE_KEY_LEN);
  return ACL_SUCCESS;
}

aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key,
                                 size_t len, uint64_t flags) {
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (key == NULL)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "NULL key");
  pthread_mutex_lock(&fake.lock);
  fake_alloc_t *a = fake_find((uintptr_t)devPtr);
  err = fake_export_check(a, (uintptr_t)devPtr, size, len);
  if (err == ACL_SUCCESS)
    err = fake_export_publish_locked(a, (uintptr_t)devPtr, size, flags, key);
  pthread_mutex_unlock(&fake.lock);
  return err;
}

static fake_export_t *fake_export_find_locked(const char *key) {
  for (fake_export_t *ex = fake.exports; ex != NULL; ex = ex->next)
    if (strcmp(ex->key, key) == 0)
      return ex;
  return NULL;
}

aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num) {
  if (!fake_key_ok(key) || (num > 0 && pid == NULL))
    return fake_fail(ACL_ERROR_INVALID_PARAM, "bad argument");
  pthread_mutex_lock(&fake.lock);
  fake_export_t *ex = fake_export_find_locked(key);
  aclError err = ACL_SUCCESS;
  if (ex == NULL)
    err = fake_fail(ACL_ERROR_INVALID_PARAM, "key not exported here");
  else if (ex->rec->npids + (int)num > FAKE_PIDS_MAX)
    err = fake_fail(ACL_ERROR_INVALID_PARAM, "too many PIDs");
  for (size_t i = 0; err == ACL_SUCCESS && i < num; i++)
    ex->rec->pids[ex->rec->npids++] = pid[i];
  pthread_mutex_unlock(&fake.lock);
  return err;
}

static int fake_pid_allowed(const fake_ipc_record_t *rec) {
  if (rec->flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
    return 1;
  for (int i = 0; i < rec->npids && i < FAKE_PIDS_MAX; i++)
    if (rec->pids[i] == (int32_t)getpid())
      return 1;
  return 0;
}

/* Maps the exporter's memfd through /proc: the second mapping an importer
 * gets, behind a fresh PROT_NONE device address. */
static aclError fake_import_map(const fake_ipc_record_t *rec, const char *key,
                                void **devPtr) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)rec->pid, (int)rec->fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return fake_fail(ACL_ERROR_INVALID_PARAM, "exporter is gone");
  fake_alloc_t *a = calloc(1, sizeof *a);
  size_t map = fake_round_page(rec->size);
  void *shadow = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                      (off_t)rec->offset);
  close(fd);
  if (a == NULL || shadow == MAP_FAILED) {
    free(a);
    if (shadow != MAP_FAILED)
      munmap(shadow, map);
    return fake_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot map export");
  }
  a->shadow = shadow;
  a->map_size = map;
  a->size = rec->size;
  a->fd = -1;
  a->device = fake_current_device();
  a->imported = 1;
  snprintf(a->key, sizeof a->key, "%s", key);
  a->dev = fake_reserve_va(map);
  if (a->dev == 0) {
    munmap(shadow, map);
    free(a);
    return fake_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "no device addresses");
  }
  a->next = fake.allocs;
  fake.allocs = a;
  *devPtr = (void *)a->dev;
  return ACL_SUCCESS;
}

static fake_alloc_t *fake_import_find_locked(const char *key) {
  for (fake_alloc_t *a = fake.allocs; a != NULL; a = a->next)
    if (a->imported && strcmp(a->key, key) == 0)
      return a;
  return NULL;
}

aclError aclrtIpcMemImportByKey(void **devPtr, const char *key,
                                uint64_t flags) {
  (void)flags;
  aclError err = fake_need_context();
  if (err != ACL_SUCCESS)
    return err;
  if (devPtr == NULL || !fake_key_ok(key))
    return fake_fail(ACL_ERROR_INVALID_PARAM, "bad argument");
  fake_ipc_record_t *rec = fake_ipc_map(key, 0);
  if (rec == NULL || rec->magic != FAKE_IPC_MAGIC) {
    if (rec != NULL)
      munmap(rec, sizeof *rec);
    return fake_fail(ACL_ERROR_INVALID_PARAM, "no such export key");
  }
  pthread_mutex_lock(&fake.lock);
  if (rec->pid == (int32_t)getpid())
    err = fake_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    "the exporting process cannot import its own key");
  else if (!fake_pid_allowed(rec))
    err = fake_fail(ACL_ERROR_RT_PARAM_INVALID,
                    "this PID is not on the export's whitelist");
  else if (fake_import_find_locked(key) != NULL)
    err = fake_fail(ACL_ERROR_RT_PARAM_INVALID, "key already imported");
  if (err == ACL_SUCCESS)
    err = fake_import_map(rec, key, devPtr);
  if (err == ACL_SUCCESS)
    atomic_fetch_add(&rec->importers, 1);
  pthread_mutex_unlock(&fake.lock);
  munmap(rec, sizeof *rec);
  return err;
}

static aclError fake_close_import_locked(fake_alloc_t *a, const char *key) {
  fake_ipc_record_t *rec = fake_ipc_map(key, 0);
  if (rec != NULL) {
    atomic_fetch_sub(&rec->importers, 1);
    munmap(rec, sizeof *rec);
  }
  fake_drop_alloc_locked(a);
  return ACL_SUCCESS;
}

aclError aclrtIpcMemClose(const char *key) {
  if (!fake_key_ok(key))
    return fake_fail(ACL_ERROR_INVALID_PARAM, "bad key");
  pthread_mutex_lock(&fake.lock);
  aclError err;
  fake_alloc_t *a = fake_import_find_locked(key);
  fake_export_t *ex = a == NULL ? fake_export_find_locked(key) : NULL;
  if (a != NULL)
    err = fake_close_import_locked(a, key);
  else if (ex == NULL)
    err = fake_fail(ACL_ERROR_INVALID_PARAM, "key neither exported nor "
                                             "imported here");
  else if (atomic_load(&ex->rec->importers) > 0)
    err = fake_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    "importers must close before the exporter");
  else {
    fake_export_remove_locked(ex);
    err = ACL_SUCCESS;
  }
  pthread_mutex_unlock(&fake.lock);
  return err;
}
