/*
 * The memory an MPI call allocates, from the MPI-4.1 info key
 * mpi_memory_alloc_kinds (the memory allocation kinds side document): a
 * comma-separated list of kinds, each a name with an optional
 * ":restrictor".  hcmpi allocates host memory when the list names host
 * memory ("system", "mpi") or when there is no list, and device memory
 * when it names only device kinds of which one is "cuda:device" or
 * "ascend:device" (the first such one wins).
 */
#include <stdio.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* Names of the side document and of hcmpi's runtimes; any other is a
 * mistake worth an error rather than a silent host allocation. */
static const char *const memkind_names[] = {"system", "mpi",  "cuda",
                                            "ascend", "rocm", "level_zero"};

static int memkind_known(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof memkind_names / sizeof memkind_names[0]; i++)
    if (strlen(memkind_names[i]) == len &&
        strncmp(memkind_names[i], name, len) == 0)
      return 1;
  return 0;
}

/* The kind one list entry [entry, +len) allocates: an hcomm_mem_kind,
 * -1 for a known kind hcmpi does not allocate, -2 for an unknown one. */
static int memkind_entry(const char *entry, size_t len) {
  const char *colon = memchr(entry, ':', len);
  size_t name_len = colon != NULL ? (size_t)(colon - entry) : len;
  if (!memkind_known(entry, name_len))
    return -2;
  if (strncmp(entry, "system", name_len) == 0 ||
      strncmp(entry, "mpi", name_len) == 0)
    return HCOMM_MEM_HOST;
  const char *restrictor = colon != NULL ? colon + 1 : "";
  size_t rlen = colon != NULL ? len - name_len - 1 : 0;
  int device = rlen == 6 && strncmp(restrictor, "device", 6) == 0;
  if (device && strncmp(entry, "cuda", name_len) == 0)
    return HCOMM_MEM_CUDA;
  if (device && strncmp(entry, "ascend", name_len) == 0)
    return HCOMM_MEM_ACL;
  return -1;
}

int hc_mpi_memory_kind(MPI_Info info, int *kind, char *why, size_t why_len) {
  char list[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  *kind = HCOMM_MEM_HOST;
  if (info == MPI_INFO_NULL ||
      PMPI_Info_get(info, "mpi_memory_alloc_kinds", MPI_MAX_INFO_VAL, list,
                    &flag) != MPI_SUCCESS ||
      !flag)
    return MPI_SUCCESS;
  int host = 0, device = -1, entries = 0;
  for (const char *at = list; *at != '\0';) {
    at += strspn(at, " ,");
    size_t len = strcspn(at, ",");
    while (len > 0 && at[len - 1] == ' ')
      len--;
    if (len == 0)
      break;
    int k = memkind_entry(at, len);
    entries++;
    if (k == -2) {
      snprintf(why, why_len, "unknown memory kind \"%.*s\"", (int)len, at);
      return MPI_ERR_INFO_VALUE;
    }
    host |= k == HCOMM_MEM_HOST;
    if (device < 0 && k > HCOMM_MEM_HOST)
      device = k;
    at += strcspn(at, ",");
  }
  if (host || entries == 0) /* an empty list asks for nothing special */
    return MPI_SUCCESS;
  if (device < 0) {
    snprintf(why, why_len,
             "mpi_memory_alloc_kinds \"%s\" names no memory hcmpi allocates "
             "(system, mpi, cuda:device, ascend:device)",
             list);
    return MPI_ERR_UNSUPPORTED_OPERATION;
  }
  if (!hcomm_mem_kind_available(device)) {
    snprintf(why, why_len,
             "%s memory asked for, but its runtime (%s) is "
             "not loaded",
             device == HCOMM_MEM_CUDA ? "cuda:device" : "ascend:device",
             device == HCOMM_MEM_CUDA ? "libcuda.so.1" : "libascendcl.so");
    return MPI_ERR_UNSUPPORTED_OPERATION;
  }
  *kind = device;
  return MPI_SUCCESS;
}
