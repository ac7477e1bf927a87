/*
 * The text of each hcomm status (hcomm_status.h), from the same list as
 * the enum.
 */
#include "hcomm_status.h"

const char *hcomm_strerror(hc_status_t status) {
  switch (status) {
#define HC_STATUS_TEXT(name, value, text)                                      \
  case name:                                                                   \
    return text;
    HC_STATUS_LIST(HC_STATUS_TEXT)
#undef HC_STATUS_TEXT
  }
  return "unknown status";
}
