/*
 * Error codes that carry their own text: an error whose message depends on
 * what happened (a receive's byte count, its type's element size) returns
 * a code of its class, not the bare class, and MPI_Error_string of that
 * code gives the message.
 *
 * A detail code lies between the predefined classes and MPI_ERR_LASTCODE
 * (below the added classes and codes of errclass.c): DETAIL_BIT, a
 * sequence number, and its class in the low 7 bits, so MPI_Error_class
 * answers even after the text is gone.  The texts live in a small ring:
 * a code keeps its text until DETAIL_SLOTS newer detail codes were made,
 * then reads as its class's text.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mpi/mpi_impl.h"

#define DETAIL_BIT 0x20000000
#define DETAIL_CLASS_BITS 7
#define DETAIL_CLASS_MASK ((1 << DETAIL_CLASS_BITS) - 1)
#define DETAIL_SEQ_MASK ((DETAIL_BIT - 1) >> DETAIL_CLASS_BITS)
#define DETAIL_SLOTS 16

typedef struct detail_slot {
  int code; /* 0: empty */
  char text[MPI_MAX_ERROR_STRING];
} detail_slot_t;

static pthread_mutex_t detail_lock = PTHREAD_MUTEX_INITIALIZER;
static detail_slot_t detail_ring[DETAIL_SLOTS];
static unsigned detail_seq;

int hc_mpi_err_detail_class(int code) {
  if ((code & ~(DETAIL_BIT - 1)) != DETAIL_BIT)
    return -1;
  int cls = code & DETAIL_CLASS_MASK;
  return hc_mpi_class_name(cls) ? cls : -1;
}

int hc_mpi_err_detail_new(int errclass, const char *fmt, ...) {
  if (errclass <= MPI_SUCCESS || errclass > DETAIL_CLASS_MASK ||
      !hc_mpi_class_name(errclass))
    return errclass; /* no room for it in a code: the bare class */
  pthread_mutex_lock(&detail_lock);
  unsigned seq = detail_seq++;
  detail_slot_t *slot = &detail_ring[seq % DETAIL_SLOTS];
  slot->code =
      DETAIL_BIT | (int)(seq & DETAIL_SEQ_MASK) << DETAIL_CLASS_BITS | errclass;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(slot->text, sizeof slot->text, fmt, ap);
  va_end(ap);
  int code = slot->code;
  pthread_mutex_unlock(&detail_lock);
  return code;
}

int hc_mpi_err_detail_text(int code, char *buf, size_t len) {
  int cls = hc_mpi_err_detail_class(code);
  if (cls < 0)
    return 0;
  int found = 0;
  pthread_mutex_lock(&detail_lock);
  for (int i = 0; i < DETAIL_SLOTS && !found; i++)
    if (detail_ring[i].code == code) {
      snprintf(buf, len, "%s: %s", hc_mpi_class_name(cls), detail_ring[i].text);
      found = 1;
    }
  pthread_mutex_unlock(&detail_lock);
  if (!found) /* overwritten by newer ones: the class's own text */
    snprintf(buf, len, "%s: %s", hc_mpi_class_name(cls),
             hc_mpi_class_text(cls));
  return 1;
}
