/* pipeline --enqueue (pipeline_enqueue.c): the pipeline with activations
 * passed by MPIX_Recv_enqueue / MPIX_Send_enqueue around each stage's
 * kernel on its device stream, next to the host-synchronised form. */
#ifndef EXAMPLES_PIPELINE_ENQUEUE_H
#define EXAMPLES_PIPELINE_ENQUEUE_H

#include <stddef.h>

/* Stage s of stages: mbs micro-batches of n int32.  0 when both forms
 * computed right, 1 otherwise, 77 when the runtime lacks what it needs. */
int pipeline_enqueue(int s, int stages, int mbs, size_t n);

#endif
