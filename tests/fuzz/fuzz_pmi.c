/* libFuzzer target: the PMI-1 line parser and the PMI-2 frame parser, on
 * the same input (byte 0 chooses), then every lookup a client makes. */
#include <stdint.h>
#include <string.h>

#include "bootstrap/pmi1_wire.h"
#include "bootstrap/pmi2_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static hc_pmi1_msg_t msg;
  static char out[HC_PMI1_LINE_MAX];
  if (size < 1)
    return 0;
  const char *body = (const char *)data + 1;
  int rc = (data[0] & 1) ? hc_pmi2_parse(body, size - 1, &msg)
                         : hc_pmi1_parse(body, size - 1, &msg);
  if (rc != 0)
    return 0;
  (void)hc_pmi1_cmd(&msg);
  (void)hc_pmi1_rc(&msg);
  (void)hc_pmi1_get_long(&msg, "rank", -1);
  (void)hc_pmi2_get_bool(&msg, "found", 0);
  const char *v = hc_pmi1_get(&msg, "value");
  if (v != NULL) {
    hc_pmi2_unescape(v, out, sizeof out);
    hc_pmi2_escape(v, out, sizeof out);
  }
  return 0;
}
