/*
 * A small string key-value map: the singleton's store, the PMI-1 client's
 * cache of fetched values and hcmpirun's job-wide store.  Keys and values
 * are copied in; lookups return pointers owned by the map.
 */
#ifndef HC_KVSTORE_H
#define HC_KVSTORE_H

#include <stddef.h>

typedef struct hc_kv_entry hc_kv_entry_t;

typedef struct hc_kvstore {
  hc_kv_entry_t **buckets;
  size_t nbuckets;
  size_t count;
} hc_kvstore_t;

void hc_kvstore_init(hc_kvstore_t *kv);
/* Inserts or replaces key.  flags are kept with the entry (callers use them
 * to tell kinds of entries apart).  Returns 0, or -1 when out of memory. */
int hc_kvstore_set(hc_kvstore_t *kv, const char *key, const char *value,
                   int flags);
/* The value stored for key, or NULL. */
const char *hc_kvstore_get(const hc_kvstore_t *kv, const char *key);
/* The flags stored with key, or -1 when key is not there. */
int hc_kvstore_flags(const hc_kvstore_t *kv, const char *key);
/* Removes every entry whose flags have none of keep_flags. */
void hc_kvstore_prune(hc_kvstore_t *kv, int keep_flags);
/* Frees everything; the map may be reused after hc_kvstore_init. */
void hc_kvstore_fini(hc_kvstore_t *kv);

#endif /* HC_KVSTORE_H */
