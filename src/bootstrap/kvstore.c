#include "bootstrap/kvstore.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hc_kv_entry {
  hc_kv_entry_t *next;
  int flags;
  char *value;
  char key[]; /* value is a separate allocation so it can be replaced */
};

static uint64_t kv_hash(const char *key) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (const unsigned char *p = (const unsigned char *)key; *p; p++)
    h = (h ^ *p) * 1099511628211ull;
  return h;
}

void hc_kvstore_init(hc_kvstore_t *kv) {
  kv->buckets = NULL;
  kv->nbuckets = 0;
  kv->count = 0;
}

static hc_kv_entry_t **kv_slot(const hc_kvstore_t *kv, const char *key) {
  hc_kv_entry_t **slot = &kv->buckets[kv_hash(key) % kv->nbuckets];
  while (*slot != NULL && strcmp((*slot)->key, key) != 0)
    slot = &(*slot)->next;
  return slot;
}

/* Doubling keeps chains short for jobs with many ranks and keys. */
static int kv_grow(hc_kvstore_t *kv) {
  size_t n = kv->nbuckets ? kv->nbuckets * 2 : 64;
  hc_kv_entry_t **fresh = calloc(n, sizeof *fresh);
  if (fresh == NULL)
    return -1;
  for (size_t i = 0; i < kv->nbuckets; i++) {
    hc_kv_entry_t *e = kv->buckets[i];
    while (e != NULL) {
      hc_kv_entry_t *next = e->next;
      size_t b = kv_hash(e->key) % n;
      e->next = fresh[b];
      fresh[b] = e;
      e = next;
    }
  }
  free(kv->buckets);
  kv->buckets = fresh;
  kv->nbuckets = n;
  return 0;
}

int hc_kvstore_set(hc_kvstore_t *kv, const char *key, const char *value,
                   int flags) {
  if (kv->count >= kv->nbuckets && kv_grow(kv) != 0)
    return -1;
  char *copy = strdup(value);
  if (copy == NULL)
    return -1;
  hc_kv_entry_t **slot = kv_slot(kv, key);
  if (*slot == NULL) {
    size_t klen = strlen(key) + 1;
    hc_kv_entry_t *e = malloc(sizeof *e + klen);
    if (e == NULL) {
      free(copy);
      return -1;
    }
    memcpy(e->key, key, klen);
    e->next = NULL;
    e->value = NULL;
    *slot = e;
    kv->count++;
  }
  free((*slot)->value);
  (*slot)->value = copy;
  (*slot)->flags = flags;
  return 0;
}

const char *hc_kvstore_get(const hc_kvstore_t *kv, const char *key) {
  if (kv->nbuckets == 0)
    return NULL;
  hc_kv_entry_t *e = *kv_slot(kv, key);
  return e ? e->value : NULL;
}

int hc_kvstore_flags(const hc_kvstore_t *kv, const char *key) {
  if (kv->nbuckets == 0)
    return -1;
  hc_kv_entry_t *e = *kv_slot(kv, key);
  return e ? e->flags : -1;
}

void hc_kvstore_prune(hc_kvstore_t *kv, int keep_flags) {
  for (size_t i = 0; i < kv->nbuckets; i++) {
    hc_kv_entry_t **slot = &kv->buckets[i];
    while (*slot != NULL) {
      hc_kv_entry_t *e = *slot;
      if (e->flags & keep_flags) {
        slot = &e->next;
        continue;
      }
      *slot = e->next;
      free(e->value);
      free(e);
      kv->count--;
    }
  }
}

void hc_kvstore_fini(hc_kvstore_t *kv) {
  hc_kvstore_prune(kv, 0);
  free(kv->buckets);
  hc_kvstore_init(kv);
}
