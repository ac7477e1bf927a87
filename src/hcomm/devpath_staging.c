/*
 * The staging device path: bytes travel through pinned host chunks.  The
 * sender copies its device buffer chunk by chunk into a pipeline of
 * pinned buffers (asynchronous device-to-host copies, at most
 * HCMPI_DEVICE_SLOTS in flight) and sends each as DATA packets once its
 * copy finished; a device receiver gathers the fragments into pinned
 * chunks and copies each to the device while later ones arrive.  It serves
 * any pair of memories, so it is the path of last resort.  See devpath.h.
 */
#include <string.h>

#include "hcomm/devpath_impl.h"
#include "util/copy.h"
#include "util/log.h"

/* Receiver: whatever the other paths could not take streams (CTS). */
static int staging_recv_try(hcomm_request_t *req) {
  hc_devpath_note(&hc_devpath_staging_ops, req);
  return HC_DEVPATH_CTS;
}

/* Returns the receiver's staging chunks to the pool. */
static void staging_rx_drop(hc_devreq_t *d) {
  hc_devpath_chunk_put(d->fill);
  d->fill = NULL;
  while (d->rx_head != NULL) {
    hc_devchunk_t *c = d->rx_head;
    d->rx_head = c->next;
    hc_devpath_chunk_put(c);
  }
  d->rx_tail = NULL;
  d->rx_count = 0;
}

/* ---- receiver staging: host fragments to a device buffer ---------------
 * Fragments are gathered in a pinned chunk; a full chunk (and the last,
 * partial one at hc_devpath_recv_landed) is queued as one async
 * host-to-device copy with an event, so the copy runs while the next
 * fragments arrive.  At most hc_devpath_slots() copies are queued per request;
 * the request completes when the last one's event is done. */

/* Retires finished copies, oldest first; with block, waits for at least
 * the oldest.  A failed copy is remembered in d->rx_error. */
static int staging_rx_reap(hc_devreq_t *d, int block) {
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  int retired = 0;
  while (d->rx_head != NULL) {
    hc_status_t rc = ops->event_query(d->rx_head->event);
    if (rc == HC_ERR_AGAIN) {
      if (block && retired == 0)
        continue; /* device work finishes without us: spin on it */
      break;
    }
    if (rc != HC_OK && d->rx_error == HC_OK)
      d->rx_error = rc;
    hc_devchunk_t *c = d->rx_head;
    d->rx_head = c->next;
    if (d->rx_head == NULL)
      d->rx_tail = NULL;
    d->rx_count--;
    hc_devpath_chunk_put(c);
    retired++;
  }
  return retired;
}

/* Queues the filled chunk's copy to the device. */
static hc_status_t staging_rx_flush(hc_devreq_t *d) {
  hc_devchunk_t *c = d->fill;
  if (c == NULL)
    return HC_OK;
  d->fill = NULL;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  void *stream = hc_devpath_stream(d->info.kind, d->info.device);
  unsigned char *dst = (unsigned char *)d->req->recv_buf + d->fill_off;
  hc_status_t rc = stream == NULL ? HC_ERR_NOT_SUPPORTED
                                  : ops->copy_async(dst, c->buf, d->fill_len,
                                                    HC_COPY_H2D, stream);
  if (rc == HC_OK)
    rc = ops->event_record(c->event, stream);
  if (rc != HC_OK) {
    hc_devpath_chunk_put(c);
    return rc;
  }
  c->next = NULL;
  if (d->rx_tail != NULL)
    d->rx_tail->next = c;
  else
    d->rx_head = c;
  d->rx_tail = c;
  d->rx_count++;
  return HC_OK;
}

static void staging_reap_until_room(hc_devreq_t *d) {
  staging_rx_reap(d, 0);
  while (d->rx_count >= hc_devpath_slots())
    staging_rx_reap(d, 1);
}

/* A chunk to gather into from offset; NULL when no pinned memory. */
static hc_devchunk_t *staging_rx_chunk(hc_devreq_t *d, size_t offset) {
  staging_reap_until_room(d);
  d->fill = hc_devpath_chunk_get(d->info.kind, 1);
  d->fill_off = offset;
  d->fill_len = 0;
  return d->fill;
}

static hc_status_t staging_rx_put(hc_devreq_t *d, size_t offset,
                                  const unsigned char *src, size_t n) {
  while (n > 0) {
    hc_status_t rc = HC_OK;
    if (d->fill != NULL && offset != d->fill_off + d->fill_len)
      rc = staging_rx_flush(d); /* not contiguous: a chunk of its own */
    if (rc == HC_OK && d->fill == NULL && staging_rx_chunk(d, offset) == NULL) {
      /* No pinned memory: a synchronous copy still delivers. */
      hc_mem_info_t host = {HC_MEM_HOST, -1, 0, 0, 0};
      return hc_device_copy((unsigned char *)d->req->recv_buf + offset,
                            &d->info, src, &host, n);
    }
    if (rc != HC_OK)
      return rc;
    size_t k = hc_devpath_chunk_bytes() - d->fill_len;
    k = k < n ? k : n;
    memcpy((unsigned char *)d->fill->buf + d->fill_len, src, k);
    d->fill_len += k;
    offset += k;
    src += k;
    n -= k;
    if (d->fill_len == hc_devpath_chunk_bytes() &&
        (rc = staging_rx_flush(d)) != HC_OK)
      return rc;
  }
  return HC_OK;
}

hc_status_t hc_devpath_copy_in(hcomm_request_t *req, size_t offset,
                               const void *src, size_t n) {
  hc_devreq_t *d = req->dev;
  if (d == NULL || d->info.kind == HC_MEM_HOST) {
    hc_copy_payload((unsigned char *)req->recv_buf + offset, src, n);
    return HC_OK;
  }
  /* After a failure the remaining fragments are only counted: the request
   * ends with the first error once all of them arrived. */
  if (d->rx_error != HC_OK)
    return d->rx_error;
  hc_status_t rc = staging_rx_put(d, offset, src, n);
  if (rc != HC_OK)
    d->rx_error = rc;
  return rc;
}

int hc_devpath_recv_landed(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (d == NULL || d->active != NULL ||
      (d->fill == NULL && d->rx_head == NULL && d->rx_error == HC_OK))
    return 0;
  hc_status_t rc = staging_rx_flush(d);
  if (rc != HC_OK && d->rx_error == HC_OK)
    d->rx_error = rc;
  hc_devpath_activate(d, &hc_devpath_staging_ops, 0);
  return 1;
}

/* The receive completes once every queued copy finished (with the first
 * error, if any: its bytes are not trustworthy). */
static int staging_recv_step(hc_devreq_t *d) {
  int moved = staging_rx_reap(d, 0);
  if (d->rx_head != NULL)
    return moved;
  hcomm_request_t *req = d->req;
  hc_status_t rc = d->rx_error;
  hc_devpath_deactivate(d);
  d->rx_error = HC_OK;
  if (rc != HC_OK) {
    hc_log(HC_LOG_ERROR, "device",
           "copy to device receive buffer (from rank %d): %s", req->peer,
           hcomm_strerror(rc));
    req->status.bytes = 0;
    hc_request_complete(req, rc);
  } else {
    hc_proto_finish_recv(req);
  }
  return moved + 1;
}

/* ---- sender staging: device chunks to host packets --------------------------
 */

static hc_status_t staging_issue(hc_devreq_t *d, hc_devslot_t *s,
                                 void *stream) {
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  if (s->chunk == NULL)
    s->chunk = hc_devpath_chunk_get(d->info.kind, 1);
  if (s->chunk == NULL)
    return HC_ERR_NOMEM;
  s->off = d->issued;
  s->len = d->end - d->issued;
  if (s->len > hc_devpath_chunk_bytes())
    s->len = hc_devpath_chunk_bytes();
  s->sent = 0;
  const unsigned char *src = (const unsigned char *)d->req->send_buf + s->off;
  hc_status_t rc =
      ops->copy_async(s->chunk->buf, src, s->len, HC_COPY_D2H, stream);
  if (rc == HC_OK)
    rc = ops->event_record(s->chunk->event, stream);
  if (rc != HC_OK)
    return rc;
  s->state = HC_DEVSLOT_COPYING;
  d->issued += s->len;
  return HC_OK;
}

static hc_status_t staging_transmit_slot(hc_devreq_t *d, hc_devslot_t *s,
                                         int *moved) {
  hc_peer_t *peer = &hc_engine.peers[d->to];
  size_t frag = peer->max_packet - sizeof(hc_pkt_hdr_t);
  hc_pkt_hdr_t hdr = {0};
  hdr.type = HC_PKT_DATA;
  hdr.source = hc_engine.world_rank;
  hdr.rreq = d->rreq;
  while (s->sent < s->len) {
    size_t n = s->len - s->sent < frag ? s->len - s->sent : frag;
    hdr.offset = s->off + s->sent;
    hdr.payload_bytes = n;
    struct iovec iov[2] = {{&hdr, sizeof hdr},
                           {(unsigned char *)s->chunk->buf + s->sent, n}};
    hc_status_t rc = peer->ops->send(peer->tctx, d->to, iov, 2);
    if (rc != HC_OK)
      return rc;
    hc_engine_sent_to(peer);
    s->sent += n;
    (*moved)++;
  }
  return HC_OK;
}

/* The oldest slot still holding bytes: data leaves in offset order. */
static hc_devslot_t *staging_oldest(hc_devreq_t *d) {
  hc_devslot_t *best = NULL;
  for (int i = 0; i < d->nslots; i++) {
    hc_devslot_t *s = &d->slot[i];
    if (s->state != HC_DEVSLOT_FREE && (best == NULL || s->off < best->off))
      best = s;
  }
  return best;
}

/* One pass: issue copies into free slots, then send finished chunks in
 * order.  Returns the status that ends the pipeline (HC_ERR_AGAIN while it
 * runs); *moved counts what happened. */
static hc_status_t staging_send_pass(hc_devreq_t *d, int *moved) {
  void *stream = hc_devpath_stream(d->info.kind, d->info.device);
  if (stream == NULL)
    return HC_ERR_NOT_SUPPORTED;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  for (int i = 0; i < d->nslots && d->issued < d->end; i++) {
    if (d->slot[i].state != HC_DEVSLOT_FREE)
      continue;
    hc_status_t rc = staging_issue(d, &d->slot[i], stream);
    if (rc == HC_ERR_NOMEM)
      break; /* no pinned buffer now: the next pass tries again, as the
              * receiver waits for these bytes */
    if (rc != HC_OK)
      return rc;
    (*moved)++;
  }
  hc_devslot_t *s;
  while ((s = staging_oldest(d)) != NULL) {
    if (s->state == HC_DEVSLOT_COPYING) {
      hc_status_t rc = ops->event_query(s->chunk->event);
      if (rc != HC_OK)
        return rc;
      s->state = HC_DEVSLOT_READY;
    }
    hc_status_t rc = staging_transmit_slot(d, s, moved);
    if (rc != HC_OK)
      return rc;
    d->sent += s->len;
    s->state = HC_DEVSLOT_FREE;
    if (d->issued < d->end) {
      rc = staging_issue(d, s, stream);
      if (rc != HC_OK)
        return rc;
    }
  }
  return d->sent == d->end ? HC_OK : HC_ERR_AGAIN;
}

static int staging_send_step(hc_devreq_t *d) {
  int moved = 0;
  hc_status_t rc = staging_send_pass(d, &moved);
  if (rc == HC_ERR_AGAIN)
    return moved;
  hcomm_request_t *req = d->req;
  hc_devpath_deactivate(d);
  if (rc != HC_OK)
    hc_log(HC_LOG_ERROR, "device", "staging to rank %d: %s", d->to,
           hcomm_strerror(rc));
  hc_request_complete(req, rc);
  return moved + 1;
}


/* Sender: the receiver's CTS asks for total_bytes as DATA to request rreq. */
static void staging_send_cts(hcomm_request_t *req, int peer,
                             const hc_pkt_hdr_t *hdr, const void *payload) {
  (void)payload;
  hc_devreq_t *d = req->dev;
  size_t chunk = hc_devpath_chunk_bytes();
  d->to = peer;
  d->rreq = hdr->rreq;
  d->end = hdr->total_bytes < req->bytes ? hdr->total_bytes : req->bytes;
  d->issued = d->sent = 0;
  size_t chunks = (d->end + chunk - 1) / chunk;
  int slots = hc_devpath_slots();
  d->nslots = chunks < (size_t)slots ? (int)chunks : slots;
  memset(d->slot, 0, sizeof d->slot);
  /* Started from progress: this may run inside a transport callback. */
  hc_devpath_activate(d, &hc_devpath_staging_ops, 1);
}

static int staging_step(hc_devreq_t *d) {
  return d->sending ? staging_send_step(d) : staging_recv_step(d);
}

static void staging_stop(hc_devreq_t *d) {
  for (int i = 0; i < d->nslots; i++) {
    hc_devpath_chunk_put(d->slot[i].chunk);
    d->slot[i].chunk = NULL;
  }
  d->nslots = 0;
  staging_rx_drop(d);
}

const hc_devpath_ops_t hc_devpath_staging_ops = {
    .name = "staging",
    .trace = HC_TRACE_PATH_STAGING,
    .always = 1,
    .recv_try = staging_recv_try,
    .send_cts = staging_send_cts,
    .step = staging_step,
    .stop = staging_stop,
};
