/*
 * hcomm's status codes: what every layer of hcmpi returns (util,
 * bootstrap, transports, device, engine).  Apart from hcomm.h so that the
 * layers below the engine use them without seeing the engine's API.
 */
#ifndef HCOMM_STATUS_H
#define HCOMM_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One list gives the status enum and its strings, so they cannot drift.
 * 0 is success, every error is negative.
 */
#define HC_STATUS_LIST(X)                                                      \
  X(HC_OK, 0, "success")                                                       \
  X(HC_ERR_NOMEM, -1, "out of memory")                                         \
  X(HC_ERR_ARG, -2, "invalid argument")                                        \
  X(HC_ERR_RANK, -3, "invalid rank")                                           \
  X(HC_ERR_TAG, -4, "invalid tag")                                             \
  X(HC_ERR_COMM, -5, "invalid communicator")                                   \
  X(HC_ERR_TRUNCATE, -6, "message truncated: receive buffer too small")        \
  X(HC_ERR_AGAIN, -7, "resource temporarily busy, retry")                      \
  X(HC_ERR_PEER_DEAD, -8, "peer process is gone")                              \
  X(HC_ERR_BOOTSTRAP, -9, "launcher (PMI) exchange failed")                    \
  X(HC_ERR_TRANSPORT, -10, "transport failure")                                \
  X(HC_ERR_NOT_SUPPORTED, -11, "operation not supported")                      \
  X(HC_ERR_INTERNAL, -12, "internal error")                                    \
  X(HC_ERR_SYSTEM, -13, "operating-system call failed")                        \
  X(HC_ERR_STATE, -14, "engine not initialised or already finalised")          \
  X(HC_ERR_REQUEST, -15, "invalid request")                                    \
  X(HC_ERR_NO_CONTEXT, -16, "no free communicator context id")                 \
  X(HC_ERR_PEER_AUTH, -17, "peer failed authentication")                       \
  X(HC_ERR_PEER_CORRUPT, -18, "peer sent corrupt data")                      \
  X(HC_ERR_RMA_SYNC, -19, "one-sided call outside its epoch or out of turn")  \
  X(HC_ERR_RMA_RANGE, -20, "one-sided access outside the target's window")  \
  X(HC_ERR_REVOKED, -21, "communicator revoked")                             \
  X(HC_ERR_PORT, -22, "no process accepts on that port")                     \
  X(HC_ERR_NAME, -23, "no port is published under that service name")        \
  X(HC_ERR_SERVICE, -24, "service name published already, or not by that port") \
  X(HC_ERR_SPAWN, -25, "the launcher could not start the processes")        \
  X(HC_ERR_PEER_DEAD_PENDING, -26,                                             \
    "a process that may be the sender failed; the receive is still pending") \
  X(HC_ERR_PARTIAL_ELEMENT, -27,                                               \
    "message ends inside an element of the receive type")

typedef enum {
#define HC_STATUS_ENUM(name, value, text) name = value,
  HC_STATUS_LIST(HC_STATUS_ENUM)
#undef HC_STATUS_ENUM
} hc_status_t;

/* Readable text for a status; never NULL. */
const char *hcomm_strerror(hc_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* HCOMM_STATUS_H */
