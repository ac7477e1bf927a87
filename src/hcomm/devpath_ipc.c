/*
 * The ipc device path: same node, both buffers device memory of one
 * runtime.  The sender's RTS carries an IPC handle of its allocation and
 * the buffer's offset in it; the receiver imports it (cached by the device
 * layer) and runs one asynchronous device-to-device copy, then FIN.  An
 * import that fails (the export went stale) asks the sender, by a CTS
 * flagged HC_PKT_FLAG_STALE, to stream this message and forget the export.
 * See devpath.h.
 */
#include "hcomm/devpath_impl.h"
#include "util/log.h"

/* Sender: exports the allocation (or, with no allocation range known, this
 * message's pages, uncached) for a peer on this node. */
static void ipc_rts_fill(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (!hc_engine_is_local(req->peer))
    return;
  size_t off;
  hc_status_t rc =
      hc_device_ipc_export(req->send_buf, &d->info, &d->rts.ipc, &off);
  if (rc != HC_OK && d->info.size == 0) {
    rc = hc_device_ipc_export_span(req->send_buf, req->bytes, &d->info,
                                   &d->rts.ipc, &off);
    d->own_export = rc == HC_OK;
  }
  if (rc == HC_OK) {
    d->rts.has_ipc = 1;
    d->rts.ipc_offset = off;
  }
}

static int ipc_usable(const hcomm_request_t *req) {
  const hc_devreq_t *d = req->dev;
  return d->peer_device && d->rts.has_ipc && d->info.kind != HC_MEM_HOST &&
         d->rts.kind == d->info.kind && d->rts.ipc.kind == d->info.kind &&
         hc_engine_is_local(req->peer) &&
         d->rts.ipc_offset <= d->rts.ipc.size &&
         req->take <= d->rts.ipc.size - d->rts.ipc_offset;
}

static int ipc_recv_try(hcomm_request_t *req) {
  hc_devreq_t *d = req->dev;
  if (!ipc_usable(req))
    return HC_DEVPATH_HOST;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  void *base, *stream = hc_devpath_stream(d->info.kind, d->info.device);
  if (stream == NULL)
    return HC_DEVPATH_HOST;
  hc_status_t irc = hc_device_ipc_import(&d->rts.ipc, &base);
  if (irc != HC_OK) {
    hc_log(HC_LOG_DEBUG, "device", "import from rank %d: %s; staging",
           req->peer, hcomm_strerror(irc));
    hc_devpath_send_cts(req, HC_PKT_FLAG_STALE, 0, NULL, 0);
    hc_devpath_note(&hc_devpath_staging_ops, req);
    return HC_DEVPATH_STARTED; /* our CTS went: the DATA stream follows */
  }
  d->wait = hc_devpath_chunk_get(d->info.kind, 0);
  if (d->wait == NULL) {
    hc_device_ipc_release(&d->rts.ipc);
    return HC_DEVPATH_HOST;
  }
  const unsigned char *src = (const unsigned char *)base + d->rts.ipc_offset;
  hc_status_t rc =
      ops->copy_async(req->recv_buf, src, req->take, HC_COPY_D2D, stream);
  if (rc == HC_OK)
    rc = ops->event_record(d->wait->event, stream);
  if (rc != HC_OK) {
    /* Nothing was queued that could still land: stage instead. */
    hc_log(HC_LOG_DEBUG, "device", "ipc copy: %s; staging", hcomm_strerror(rc));
    hc_devpath_chunk_put(d->wait);
    d->wait = NULL;
    hc_device_ipc_release(&d->rts.ipc);
    return HC_DEVPATH_HOST;
  }
  hc_devpath_note(&hc_devpath_ipc_ops, req);
  hc_devpath_activate(d, &hc_devpath_ipc_ops, 0);
  return HC_DEVPATH_STARTED;
}

static int ipc_step(hc_devreq_t *d) {
  hcomm_request_t *req = d->req;
  const hc_device_ops_t *ops = hc_device_backend(d->info.kind);
  hc_status_t rc = ops->event_query(d->wait->event);
  if (rc == HC_ERR_AGAIN)
    return 0;
  hc_devpath_deactivate(d);
  hc_proto_send_fin(req->peer, req->remote_id);
  hc_devpath_recv_end(req, rc);
  return 1;
}

static void ipc_stop(hc_devreq_t *d) {
  hc_device_ipc_release(&d->rts.ipc);
  hc_devpath_chunk_put(d->wait);
  d->wait = NULL;
}

const hc_devpath_ops_t hc_devpath_ipc_ops = {
    .name = "ipc",
    .trace = HC_TRACE_PATH_IPC,
    .rts_fill = ipc_rts_fill,
    .recv_try = ipc_recv_try,
    .step = ipc_step,
    .stop = ipc_stop,
};
