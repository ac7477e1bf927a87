/*
 * No launcher: this process is rank 0 of 1, and the key-value store lives
 * in the process itself.
 */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/kvstore.h"

static int singleton_detect(void) { return 1; }

static hc_status_t singleton_init(void **ctx, hc_bootstrap_info_t *info) {
  hc_kvstore_t *kv = malloc(sizeof *kv);
  *ctx = kv;
  if (kv == NULL)
    return HC_ERR_NOMEM;
  hc_kvstore_init(kv);
  hc_bootstrap_info_clear(info);
  info->rank = 0;
  info->size = 1;
  info->appnum = -1;
  info->universe_size = 1;
  return HC_OK;
}

static hc_status_t singleton_put(void *ctx, const char *key,
                                 const char *value) {
  if (ctx == NULL || key == NULL || value == NULL || *key == '\0' ||
      strlen(key) >= HC_BOOTSTRAP_KEY_MAX ||
      strlen(value) >= HC_BOOTSTRAP_VALUE_MAX)
    return HC_ERR_ARG;
  return hc_kvstore_set(ctx, key, value, 0) == 0 ? HC_OK : HC_ERR_NOMEM;
}

static hc_status_t singleton_fence(void *ctx) {
  return ctx != NULL ? HC_OK : HC_ERR_ARG;
}

static hc_status_t singleton_get(void *ctx, const char *key, char *value,
                                 size_t len) {
  if (ctx == NULL || key == NULL || value == NULL)
    return HC_ERR_ARG;
  const char *v = hc_kvstore_get(ctx, key);
  if (v == NULL)
    return HC_ERR_BOOTSTRAP;
  size_t n = strlen(v);
  if (n >= len)
    return HC_ERR_TRUNCATE;
  memcpy(value, v, n + 1);
  return HC_OK;
}

/* Nobody to ask: the caller ends the process itself. */
static void singleton_abort(void *ctx, int code, const char *message) {}

static void singleton_fini(void *ctx) {
  if (ctx == NULL)
    return;
  hc_kvstore_fini(ctx);
  free(ctx);
}

const hc_bootstrap_ops_t hc_bootstrap_singleton_ops = {
    .name = "singleton",
    .detect = singleton_detect,
    .init = singleton_init,
    .put = singleton_put,
    .fence = singleton_fence,
    .get = singleton_get,
    .abort = singleton_abort,
    .fini = singleton_fini,
};
