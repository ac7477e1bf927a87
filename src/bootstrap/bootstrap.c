#include "bootstrap/bootstrap.h"

const hc_bootstrap_ops_t *hc_bootstrap_select(void) {
  static const hc_bootstrap_ops_t *const backends[] = {
      &hc_bootstrap_pmi1_ops,
  };
  for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
    if (backends[i]->detect())
      return backends[i];
  return &hc_bootstrap_singleton_ops;
}
