/* One hex digit's value: the job secret (tcp) and a stream's decoded
 * bytes (MPIX streams' info values) both read hex text. */
#ifndef HC_UTIL_HEX_H
#define HC_UTIL_HEX_H

/* 0-15 for [0-9a-fA-F], else -1. */
static inline int hc_hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

#endif /* HC_UTIL_HEX_H */
