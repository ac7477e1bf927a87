/*
 * Info objects: (key, value) string pairs kept in insertion order, which is
 * the order MPI_Info_get_nthkey reports (setting an existing key keeps its
 * place).  MPI_INFO_ENV is a builtin object filled on first use from what
 * the process knows about its start (command, argv, maxprocs, wdir).
 * Info calls need no MPI_Init; their errors go to MPI_COMM_WORLD's handler.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/handle.h"
#include "mpi/mpi_impl.h"

struct hc_mpi_info {
  int n;
  int cap;
  char **keys;
  char **vals;
};

static hc_handle_table_t info_table =
    HC_HANDLE_TABLE_INITIALIZER(HC_OBJ_INFO, 0);
static hc_mpi_info_t info_env_obj;
static pthread_once_t info_env_once = PTHREAD_ONCE_INIT;
/* Guards the contents of every info object (calls are short). */
static pthread_mutex_t info_lock = PTHREAD_MUTEX_INITIALIZER;

static int info_find(const hc_mpi_info_t *info, const char *key) {
  for (int i = 0; i < info->n; i++)
    if (strcmp(info->keys[i], key) == 0)
      return i;
  return -1;
}

/* Sets key to value; 0, or -1 when memory runs out (nothing changed). */
static int info_put(hc_mpi_info_t *info, const char *key, const char *value) {
  char *v = strdup(value);
  if (!v)
    return -1;
  int i = info_find(info, key);
  if (i >= 0) {
    free(info->vals[i]);
    info->vals[i] = v;
    return 0;
  }
  if (info->n == info->cap) {
    int cap = info->cap ? 2 * info->cap : 8;
    char **k = realloc(info->keys, (size_t)cap * sizeof(char *));
    if (k)
      info->keys = k;
    char **vv = k ? realloc(info->vals, (size_t)cap * sizeof(char *)) : NULL;
    if (!vv) {
      free(v);
      return -1;
    }
    info->vals = vv;
    info->cap = cap;
  }
  char *k = strdup(key);
  if (!k) {
    free(v);
    return -1;
  }
  info->keys[info->n] = k;
  info->vals[info->n] = v;
  info->n++;
  return 0;
}

static void info_remove(hc_mpi_info_t *info, int i) {
  free(info->keys[i]);
  free(info->vals[i]);
  for (int j = i + 1; j < info->n; j++) {
    info->keys[j - 1] = info->keys[j];
    info->vals[j - 1] = info->vals[j];
  }
  info->n--;
}

void hc_mpi_info_destroy(hc_mpi_info_t *info) {
  if (!info)
    return;
  for (int i = 0; i < info->n; i++) {
    free(info->keys[i]);
    free(info->vals[i]);
  }
  free(info->keys);
  free(info->vals);
  free(info);
}

/* key is one of the NULL-terminated keys (NULL: every key is kept). */
static int info_kept(const char *key, const char *const *keys) {
  if (!keys)
    return 1;
  for (; *keys; keys++)
    if (strcmp(*keys, key) == 0)
      return 1;
  return 0;
}

hc_mpi_info_t *hc_mpi_info_copy_keys(const hc_mpi_info_t *info,
                                     const char *const *keys) {
  hc_mpi_info_t *c = calloc(1, sizeof *c);
  if (!c || !info)
    return c;
  pthread_mutex_lock(&info_lock);
  int failed = 0;
  for (int i = 0; i < info->n && !failed; i++)
    if (info_kept(info->keys[i], keys))
      failed = info_put(c, info->keys[i], info->vals[i]) != 0;
  pthread_mutex_unlock(&info_lock);
  if (failed) {
    hc_mpi_info_destroy(c);
    return NULL;
  }
  return c;
}

hc_mpi_info_t *hc_mpi_info_copy(const hc_mpi_info_t *info) {
  return hc_mpi_info_copy_keys(info, NULL);
}

/* The NUL-separated /proc/self/cmdline as command and argv. */
static void info_env_cmdline(void) {
  char buf[4096];
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (!f)
    return;
  size_t len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[len] = '\0';
  if (len == 0)
    return;
  info_put(&info_env_obj, "command", buf);
  char argv[4096] = "";
  size_t at = strlen(buf) + 1, used = 0;
  while (at < len) {
    int w = snprintf(argv + used, sizeof argv - used, "%s%s", used ? " " : "",
                     buf + at);
    if (w < 0 || (size_t)w >= sizeof argv - used)
      break;
    used += (size_t)w;
    at += strlen(buf + at) + 1;
  }
  info_put(&info_env_obj, "argv", argv);
}

static void info_env_fill(void) {
  char text[64];
  info_env_cmdline();
  int n = hcomm_initialized() ? hcomm_comm_size(hcomm_comm_world()) : 1;
  snprintf(text, sizeof text, "%d", n);
  info_put(&info_env_obj, "maxprocs", text);
  char wdir[1024];
  if (getcwd(wdir, sizeof wdir))
    info_put(&info_env_obj, "wdir", wdir);
}

hc_mpi_info_t *hc_mpi_info_get(MPI_Info handle) {
  if (handle == MPI_INFO_ENV) {
    pthread_once(&info_env_once, info_env_fill);
    return &info_env_obj;
  }
  return hc_handle_get(&info_table, handle);
}

int hc_mpi_info_publish(const char *fn, hc_mpi_comm_t *comm, hc_mpi_info_t *obj,
                        MPI_Info *out) {
  if (!obj || hc_handle_alloc(&info_table, obj, out) != 0) {
    hc_mpi_info_destroy(obj);
    return hc_mpi_raise(comm, fn, MPI_ERR_NO_MEM, "out of memory for an info");
  }
  return MPI_SUCCESS;
}

static int info_enter(const char *fn, MPI_Info info, hc_mpi_info_t **out) {
  *out = hc_mpi_info_get(info);
  if (*out)
    return MPI_SUCCESS;
  if (info == MPI_INFO_NULL)
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO, "invalid info MPI_INFO_NULL");
  return hc_mpi_raise(NULL, fn, MPI_ERR_INFO, "invalid info 0x%x",
                      (unsigned)info);
}

static int info_check_key(const char *fn, const char *key) {
  if (!key)
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO_KEY, "NULL key");
  size_t len = strlen(key);
  if (len == 0 || len > MPI_MAX_INFO_KEY)
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO_KEY,
                        "key of length %zu (must be 1..%d)", len,
                        MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

/* The info object and a valid key: the common head of most calls. */
static int info_enter_key(const char *fn, MPI_Info info, const char *key,
                          hc_mpi_info_t **out) {
  int rc = info_enter(fn, info, out);
  return rc == MPI_SUCCESS ? info_check_key(fn, key) : rc;
}

int PMPI_Info_create(MPI_Info *info) {
  static const char fn[] = "MPI_Info_create";
  int rc = hc_mpi_check_ptr(fn, NULL, info, "info");
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_info_publish(fn, NULL, calloc(1, sizeof(hc_mpi_info_t)), info);
}
HC_WEAK_ALIAS(MPI_Info_create, PMPI_Info_create);

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info) {
  static const char fn[] = "MPI_Info_create_env";
  (void)argc;
  (void)argv;
  int rc = hc_mpi_check_ptr(fn, NULL, info, "info");
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_info_publish(
      fn, NULL, hc_mpi_info_copy(hc_mpi_info_get(MPI_INFO_ENV)), info);
}
HC_WEAK_ALIAS(MPI_Info_create_env, PMPI_Info_create_env);

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo) {
  static const char fn[] = "MPI_Info_dup";
  hc_mpi_info_t *obj;
  int rc = info_enter(fn, info, &obj);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, newinfo, "newinfo");
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_mpi_info_publish(fn, NULL, hc_mpi_info_copy(obj), newinfo);
}
HC_WEAK_ALIAS(MPI_Info_dup, PMPI_Info_dup);

int PMPI_Info_free(MPI_Info *info) {
  static const char fn[] = "MPI_Info_free";
  hc_mpi_info_t *obj;
  int rc = hc_mpi_check_ptr(fn, NULL, info, "info");
  if (rc == MPI_SUCCESS)
    rc = info_enter(fn, *info, &obj);
  if (rc == MPI_SUCCESS && *info == MPI_INFO_ENV)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_INFO, "cannot free MPI_INFO_ENV");
  if (rc != MPI_SUCCESS)
    return rc;
  hc_mpi_info_destroy(hc_handle_free(&info_table, *info));
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Info_free, PMPI_Info_free);

int PMPI_Info_set(MPI_Info info, const char *key, const char *value) {
  static const char fn[] = "MPI_Info_set";
  hc_mpi_info_t *obj;
  int rc = info_enter_key(fn, info, key, &obj);
  if (rc == MPI_SUCCESS && !value)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_INFO_VALUE, "NULL value");
  if (rc == MPI_SUCCESS && strlen(value) > MPI_MAX_INFO_VAL)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_INFO_VALUE,
                      "value of length %zu (at most %d)", strlen(value),
                      MPI_MAX_INFO_VAL);
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&info_lock);
  int failed = info_put(obj, key, value) != 0;
  pthread_mutex_unlock(&info_lock);
  if (failed)
    return hc_mpi_raise(NULL, fn, MPI_ERR_NO_MEM, "out of memory");
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Info_set, PMPI_Info_set);

int PMPI_Info_delete(MPI_Info info, const char *key) {
  static const char fn[] = "MPI_Info_delete";
  hc_mpi_info_t *obj;
  int rc = info_enter_key(fn, info, key, &obj);
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&info_lock);
  int i = info_find(obj, key);
  if (i >= 0)
    info_remove(obj, i);
  pthread_mutex_unlock(&info_lock);
  if (i < 0)
    return hc_mpi_raise(NULL, fn, MPI_ERR_INFO_NOKEY, "no key \"%s\"", key);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Info_delete, PMPI_Info_delete);

/* Copies at most cap characters of key's value and a NUL into value (when
 * non-NULL); *len gets the full length.  *flag says whether key is set. */
static void info_lookup(hc_mpi_info_t *obj, const char *key, char *value,
                        size_t cap, size_t *len, int *flag) {
  pthread_mutex_lock(&info_lock);
  int i = info_find(obj, key);
  *flag = i >= 0;
  if (i >= 0) {
    *len = strlen(obj->vals[i]);
    if (value) {
      size_t n = *len < cap ? *len : cap;
      memcpy(value, obj->vals[i], n);
      value[n] = '\0';
    }
  }
  pthread_mutex_unlock(&info_lock);
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
                  int *flag) {
  static const char fn[] = "MPI_Info_get";
  hc_mpi_info_t *obj;
  size_t len;
  int rc = info_enter_key(fn, info, key, &obj);
  if (rc == MPI_SUCCESS && valuelen < 0)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid valuelen %d", valuelen);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, value, "value");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc == MPI_SUCCESS)
    info_lookup(obj, key, value, (size_t)valuelen, &len, flag);
  return rc;
}
HC_WEAK_ALIAS(MPI_Info_get, PMPI_Info_get);

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
                           int *flag) {
  static const char fn[] = "MPI_Info_get_valuelen";
  hc_mpi_info_t *obj;
  size_t len = 0;
  int rc = info_enter_key(fn, info, key, &obj);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, valuelen, "valuelen");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc != MPI_SUCCESS)
    return rc;
  info_lookup(obj, key, NULL, 0, &len, flag);
  if (*flag)
    *valuelen = (int)len;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Info_get_valuelen, PMPI_Info_get_valuelen);

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen,
                         char *value, int *flag) {
  static const char fn[] = "MPI_Info_get_string";
  hc_mpi_info_t *obj;
  size_t len = 0;
  int rc = info_enter_key(fn, info, key, &obj);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, buflen, "buflen");
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, flag, "flag");
  if (rc == MPI_SUCCESS && *buflen < 0)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "invalid buflen %d", *buflen);
  if (rc == MPI_SUCCESS && *buflen > 0 && !value)
    rc = hc_mpi_raise(NULL, fn, MPI_ERR_ARG, "NULL value");
  if (rc != MPI_SUCCESS)
    return rc;
  /* *buflen counts the NUL: a buffer of 1 receives only "". */
  info_lookup(obj, key, *buflen > 0 ? value : NULL,
              *buflen > 0 ? (size_t)*buflen - 1 : 0, &len, flag);
  if (*flag)
    *buflen = (int)len + 1;
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Info_get_string, PMPI_Info_get_string);

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys) {
  static const char fn[] = "MPI_Info_get_nkeys";
  hc_mpi_info_t *obj;
  int rc = info_enter(fn, info, &obj);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, nkeys, "nkeys");
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&info_lock);
  *nkeys = obj->n;
  pthread_mutex_unlock(&info_lock);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Info_get_nkeys, PMPI_Info_get_nkeys);

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key) {
  static const char fn[] = "MPI_Info_get_nthkey";
  hc_mpi_info_t *obj;
  int rc = info_enter(fn, info, &obj);
  if (rc == MPI_SUCCESS)
    rc = hc_mpi_check_ptr(fn, NULL, key, "key");
  if (rc != MPI_SUCCESS)
    return rc;
  pthread_mutex_lock(&info_lock);
  int nkeys = obj->n;
  if (n >= 0 && n < nkeys)
    strcpy(key, obj->keys[n]); /* at most MPI_MAX_INFO_KEY + 1 bytes */
  pthread_mutex_unlock(&info_lock);
  if (n < 0 || n >= nkeys)
    return hc_mpi_raise(NULL, fn, MPI_ERR_ARG,
                        "invalid n %d for an info with %d keys", n, nkeys);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Info_get_nthkey, PMPI_Info_get_nthkey);
