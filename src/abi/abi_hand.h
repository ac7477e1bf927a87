/*
 * The standard-ABI calls written by hand (abi_hand.c): callbacks, which
 * libhcmpi calls with MPICH handles and the application wrote for ABI
 * ones.  Ops and error handlers take no extra state, so each registered
 * function gets one of HC_ABI_NSLOTS fixed slots (abi_tramp.c, generated):
 * slot i's function converts the arguments and calls the function
 * registered in slot i; tool-event callbacks the same way (their user
 * data passes through untouched).  Keyval, generalized-request and
 * data-representation callbacks carry their ABI functions in the
 * extra_state libhcmpi hands back.
 */
#ifndef HC_ABI_HAND_H
#define HC_ABI_HAND_H

#include "abi/abi_impl.h"

#define HC_ABI_NSLOTS 32

extern const hc_abi_any_fn hc_abi_op_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_op_c_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_comm_eh_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_win_eh_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_file_eh_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_session_eh_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_event_cb_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_event_free_slots[HC_ABI_NSLOTS];
extern const hc_abi_any_fn hc_abi_event_dropped_slots[HC_ABI_NSLOTS];

void hc_abi_op_call(int slot, void *in, void *inout, int *len, int *type);
void hc_abi_op_c_call(int slot, void *in, void *inout, MPI_Count *len,
                      int *type);
void hc_abi_comm_eh_call(int slot, int *comm, int *code);
void hc_abi_win_eh_call(int slot, int *win, int *code);
void hc_abi_file_eh_call(int slot, hc_mpich_file *file, int *code);
void hc_abi_session_eh_call(int slot, int *session, int *code);
void hc_abi_event_cb_call(int slot, void *instance, void *registration,
                          int safety, void *user_data);
void hc_abi_event_free_call(int slot, void *registration, int safety,
                            void *user_data);
void hc_abi_event_dropped_call(int slot, MPI_Count count, void *registration,
                               int source, int safety, void *user_data);

#endif /* HC_ABI_HAND_H */
