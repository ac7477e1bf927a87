/*
 * The few PMIx types, constants and attribute keys the PMIx backend uses,
 * declared by hand so that hcmpi builds without PMIx headers and loads
 * libpmix.so.2 only when a PMIx launcher started the job.  Facts from PMIx
 * 4.2's pmix_common.h; tests/unit/check_pmix_abi.c compiles these next to
 * the real header (when installed) and compares every size, offset and
 * value.  Layouts have been stable since PMIx 3 (libpmix.so.2).
 */
#ifndef HC_PMIX_ABI_H
#define HC_PMIX_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HC_PMIX_MAX_NSLEN 255
#define HC_PMIX_MAX_KEYLEN 511

typedef int hc_pmix_status_t;
typedef uint32_t hc_pmix_rank_t;
typedef uint16_t hc_pmix_data_type_t;
typedef uint8_t hc_pmix_scope_t;

#define HC_PMIX_SUCCESS 0
#define HC_PMIX_ERR_UNREACH (-25)
#define HC_PMIX_ERR_NOT_FOUND (-46)
/* The client lost its server: PMIx 4's code, and the one before it. */
#define HC_PMIX_ERR_LOST_CONNECTION (-61)
#define HC_PMIX_ERR_LOST_CONNECTION_TO_SERVER (-101)

#define HC_PMIX_RANK_WILDCARD (UINT32_MAX - 1)

/* pmix_data_type_t values. */
#define HC_PMIX_BOOL 1
#define HC_PMIX_STRING 3
#define HC_PMIX_SIZE 4
#define HC_PMIX_INT 6
#define HC_PMIX_INT8 7
#define HC_PMIX_INT16 8
#define HC_PMIX_INT32 9
#define HC_PMIX_INT64 10
#define HC_PMIX_UINT 11
#define HC_PMIX_UINT8 12
#define HC_PMIX_UINT16 13
#define HC_PMIX_UINT32 14
#define HC_PMIX_UINT64 15
#define HC_PMIX_PROC_RANK 40

#define HC_PMIX_GLOBAL 3 /* pmix_scope_t: local and remote peers */

/* Attribute keys. */
#define HC_PMIX_KEY_RANK "pmix.rank"
#define HC_PMIX_KEY_JOB_SIZE "pmix.job.size"
#define HC_PMIX_KEY_LOCAL_RANK "pmix.lrank"
#define HC_PMIX_KEY_LOCAL_SIZE "pmix.local.size"
#define HC_PMIX_KEY_HOSTNAME "pmix.hname"
#define HC_PMIX_KEY_UNIV_SIZE "pmix.univ.size"
#define HC_PMIX_KEY_APPNUM "pmix.appnum"
#define HC_PMIX_KEY_COLLECT_DATA "pmix.collect"
#define HC_PMIX_KEY_IMMEDIATE "pmix.immediate"

typedef struct hc_pmix_proc {
  char nspace[HC_PMIX_MAX_NSLEN + 1];
  hc_pmix_rank_t rank;
} hc_pmix_proc_t;

/* The union's largest members are 24 bytes (pmix_envar_t: two pointers
 * and a char); pad stands in for the dozens we never touch. */
typedef struct hc_pmix_value {
  hc_pmix_data_type_t type;
  union {
    bool flag;
    char *string;
    size_t size;
    int integer;
    int8_t int8;
    int16_t int16;
    int32_t int32;
    int64_t int64;
    unsigned int uint;
    uint8_t uint8;
    uint16_t uint16;
    uint32_t uint32;
    uint64_t uint64;
    hc_pmix_rank_t rank;
    void *ptr;
    uint64_t pad[3];
  } data;
} hc_pmix_value_t;

typedef struct hc_pmix_info {
  char key[HC_PMIX_MAX_KEYLEN + 1];
  uint32_t flags; /* pmix_info_directives_t */
  hc_pmix_value_t value;
} hc_pmix_info_t;

/* One application of PMIx_Spawn: argv includes the program as argv[0];
 * env entries ("K=V") are added to the launched processes' environment. */
typedef struct hc_pmix_app {
  char *cmd;
  char **argv;
  char **env;
  char *cwd;
  int maxprocs;
  hc_pmix_info_t *info;
  size_t ninfo;
} hc_pmix_app_t;

/* PMIx_Register_event_handler's handler, its completion callback (which
 * the handler calls to pass the event on), and the registration's
 * callback; the arguments we never read are untyped. */
typedef void (*hc_pmix_op_cbfunc_t)(hc_pmix_status_t, void *);
typedef void (*hc_pmix_event_done_t)(hc_pmix_status_t, hc_pmix_info_t *,
                                     size_t, hc_pmix_op_cbfunc_t, void *,
                                     void *);
typedef void (*hc_pmix_event_handler_t)(size_t, hc_pmix_status_t,
                                        const hc_pmix_proc_t *,
                                        hc_pmix_info_t *, size_t,
                                        hc_pmix_info_t *, size_t,
                                        hc_pmix_event_done_t, void *);
typedef void (*hc_pmix_registered_t)(hc_pmix_status_t, size_t, void *);

#endif /* HC_PMIX_ABI_H */
