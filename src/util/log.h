/*
 * Leveled, subsystem-tagged logging to stderr.  Quiet by default;
 * HCMPI_LOG=error|warn|info|debug turns it on.
 */
#ifndef HC_LOG_H
#define HC_LOG_H

enum hc_log_level {
  HC_LOG_NONE = 0,
  HC_LOG_ERROR = 1,
  HC_LOG_WARN = 2,
  HC_LOG_INFO = 3,
  HC_LOG_DEBUG = 4
};

/* The level chosen by HCMPI_LOG (read once). */
int hc_log_level(void);
/* subsys is a short tag ("shm", "pmi1", "engine"). */
void hc_log(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* HC_LOG_H */
