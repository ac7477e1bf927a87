/*
 * pmix_abi.h against PMIx's own pmix_common.h: every size, offset,
 * constant and key string the PMIx backend relies on must match, or the
 * dlopen()ed library would read our structures wrongly.  Skips (77) when
 * the PMIx development header is not installed.
 */
#include <stdio.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<pmix_common.h>)
#define ABI_HAVE_PMIX 1
#endif
#endif

#ifndef ABI_HAVE_PMIX
int main(void) {
  puts("check_pmix_abi: pmix_common.h not found (libpmix-dev); skipped");
  return 77;
}
#else
#include <pmix_common.h>
#include <stddef.h>

#include "bootstrap/pmix_abi.h"

static int abi_failures;

static void abi_eq(const char *what, long ours, long theirs) {
  if (ours == theirs)
    return;
  printf("FAIL: %s: ours %ld, PMIx %ld\n", what, ours, theirs);
  abi_failures++;
}

static void abi_str(const char *what, const char *ours, const char *theirs) {
  if (strcmp(ours, theirs) == 0)
    return;
  printf("FAIL: %s: ours \"%s\", PMIx \"%s\"\n", what, ours, theirs);
  abi_failures++;
}

static void abi_layouts(void) {
  abi_eq("sizeof proc", sizeof(hc_pmix_proc_t), sizeof(pmix_proc_t));
  abi_eq("offsetof proc.nspace", offsetof(hc_pmix_proc_t, nspace),
         offsetof(pmix_proc_t, nspace));
  abi_eq("offsetof proc.rank", offsetof(hc_pmix_proc_t, rank),
         offsetof(pmix_proc_t, rank));
  abi_eq("sizeof value", sizeof(hc_pmix_value_t), sizeof(pmix_value_t));
  abi_eq("offsetof value.type", offsetof(hc_pmix_value_t, type),
         offsetof(pmix_value_t, type));
  abi_eq("offsetof value.data", offsetof(hc_pmix_value_t, data),
         offsetof(pmix_value_t, data));
  abi_eq("sizeof value.data", sizeof(((hc_pmix_value_t *)0)->data),
         sizeof(((pmix_value_t *)0)->data));
  abi_eq("sizeof info", sizeof(hc_pmix_info_t), sizeof(pmix_info_t));
  abi_eq("offsetof info.key", offsetof(hc_pmix_info_t, key),
         offsetof(pmix_info_t, key));
  abi_eq("offsetof info.flags", offsetof(hc_pmix_info_t, flags),
         offsetof(pmix_info_t, flags));
  abi_eq("offsetof info.value", offsetof(hc_pmix_info_t, value),
         offsetof(pmix_info_t, value));
  abi_eq("sizeof status", sizeof(hc_pmix_status_t), sizeof(pmix_status_t));
  abi_eq("sizeof rank", sizeof(hc_pmix_rank_t), sizeof(pmix_rank_t));
  abi_eq("sizeof data type", sizeof(hc_pmix_data_type_t),
         sizeof(pmix_data_type_t));
  abi_eq("sizeof scope", sizeof(hc_pmix_scope_t), sizeof(pmix_scope_t));
  abi_eq("sizeof info flags", sizeof(((hc_pmix_info_t *)0)->flags),
         sizeof(pmix_info_directives_t));
}

static void abi_constants(void) {
  abi_eq("MAX_NSLEN", HC_PMIX_MAX_NSLEN, PMIX_MAX_NSLEN);
  abi_eq("MAX_KEYLEN", HC_PMIX_MAX_KEYLEN, PMIX_MAX_KEYLEN);
  abi_eq("SUCCESS", HC_PMIX_SUCCESS, PMIX_SUCCESS);
  abi_eq("ERR_UNREACH", HC_PMIX_ERR_UNREACH, PMIX_ERR_UNREACH);
  abi_eq("ERR_NOT_FOUND", HC_PMIX_ERR_NOT_FOUND, PMIX_ERR_NOT_FOUND);
  abi_eq("RANK_WILDCARD", (long)HC_PMIX_RANK_WILDCARD,
         (long)(pmix_rank_t)(PMIX_RANK_WILDCARD));
  abi_eq("BOOL", HC_PMIX_BOOL, PMIX_BOOL);
  abi_eq("STRING", HC_PMIX_STRING, PMIX_STRING);
  abi_eq("SIZE", HC_PMIX_SIZE, PMIX_SIZE);
  abi_eq("INT", HC_PMIX_INT, PMIX_INT);
  abi_eq("INT8", HC_PMIX_INT8, PMIX_INT8);
  abi_eq("INT16", HC_PMIX_INT16, PMIX_INT16);
  abi_eq("INT32", HC_PMIX_INT32, PMIX_INT32);
  abi_eq("INT64", HC_PMIX_INT64, PMIX_INT64);
  abi_eq("UINT", HC_PMIX_UINT, PMIX_UINT);
  abi_eq("UINT8", HC_PMIX_UINT8, PMIX_UINT8);
  abi_eq("UINT16", HC_PMIX_UINT16, PMIX_UINT16);
  abi_eq("UINT32", HC_PMIX_UINT32, PMIX_UINT32);
  abi_eq("UINT64", HC_PMIX_UINT64, PMIX_UINT64);
  abi_eq("PROC_RANK", HC_PMIX_PROC_RANK, PMIX_PROC_RANK);
  abi_eq("GLOBAL", HC_PMIX_GLOBAL, PMIX_GLOBAL);
}

static void abi_keys(void) {
  abi_str("RANK", HC_PMIX_KEY_RANK, PMIX_RANK);
  abi_str("JOB_SIZE", HC_PMIX_KEY_JOB_SIZE, PMIX_JOB_SIZE);
  abi_str("LOCAL_RANK", HC_PMIX_KEY_LOCAL_RANK, PMIX_LOCAL_RANK);
  abi_str("LOCAL_SIZE", HC_PMIX_KEY_LOCAL_SIZE, PMIX_LOCAL_SIZE);
  abi_str("HOSTNAME", HC_PMIX_KEY_HOSTNAME, PMIX_HOSTNAME);
  abi_str("UNIV_SIZE", HC_PMIX_KEY_UNIV_SIZE, PMIX_UNIV_SIZE);
  abi_str("APPNUM", HC_PMIX_KEY_APPNUM, PMIX_APPNUM);
  abi_str("COLLECT_DATA", HC_PMIX_KEY_COLLECT_DATA, PMIX_COLLECT_DATA);
  abi_str("IMMEDIATE", HC_PMIX_KEY_IMMEDIATE, PMIX_IMMEDIATE);
}

/* The union members we read sit where PMIx writes them. */
static void abi_union_members(void) {
  abi_eq("data.string", offsetof(hc_pmix_value_t, data.string),
         offsetof(pmix_value_t, data.string));
  abi_eq("data.uint32", offsetof(hc_pmix_value_t, data.uint32),
         offsetof(pmix_value_t, data.uint32));
  abi_eq("data.flag", offsetof(hc_pmix_value_t, data.flag),
         offsetof(pmix_value_t, data.flag));
  abi_eq("sizeof data.flag", sizeof(((hc_pmix_value_t *)0)->data.flag),
         sizeof(((pmix_value_t *)0)->data.flag));
}

int main(void) {
  abi_layouts();
  abi_constants();
  abi_keys();
  abi_union_members();
  if (abi_failures == 0)
    puts("check_pmix_abi: pmix_abi.h matches pmix_common.h");
  return abi_failures == 0 ? 0 : 1;
}
#endif
