/*
 * Standard-ABI calls with callbacks, encoded arrays or constant-valued
 * attributes, written by hand; see abi_hand.h for how callbacks reach the
 * application's ABI functions.
 */
#include "abi/abi_hand.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

/* ---- slots ---- */
enum abi_slot_kind {
  ABI_SLOT_OP,
  ABI_SLOT_OP_C,
  ABI_SLOT_COMM_EH,
  ABI_SLOT_WIN_EH,
  ABI_SLOT_FILE_EH,
  ABI_SLOT_SESSION_EH,
  ABI_SLOT_EVENT_CB,
  ABI_SLOT_EVENT_FREE,
  ABI_SLOT_EVENT_DROPPED,
  ABI_NSLOT_KINDS
};

static pthread_mutex_t abi_slot_lock = PTHREAD_MUTEX_INITIALIZER;
static hc_abi_any_fn abi_slot_fn[ABI_NSLOT_KINDS][HC_ABI_NSLOTS];

/* The slot of fn (the one it already has, or a free one); -1 when all are
 * taken.  Slots are never released: an op or handler may be in use after
 * its handle is freed, and one function registered again reuses its slot. */
static int abi_slot_take(enum abi_slot_kind kind, hc_abi_any_fn fn) {
  int slot = -1;
  pthread_mutex_lock(&abi_slot_lock);
  for (int i = 0; i < HC_ABI_NSLOTS && slot < 0; i++)
    if (abi_slot_fn[kind][i] == fn || !abi_slot_fn[kind][i])
      slot = i;
  if (slot >= 0)
    abi_slot_fn[kind][slot] = fn;
  pthread_mutex_unlock(&abi_slot_lock);
  return slot;
}

static hc_abi_any_fn abi_slot_get(enum abi_slot_kind kind, int slot) {
  pthread_mutex_lock(&abi_slot_lock);
  hc_abi_any_fn fn = abi_slot_fn[kind][slot];
  pthread_mutex_unlock(&abi_slot_lock);
  return fn;
}

/* ---- user reduction operations ---- */
void hc_abi_op_call(int slot, void *in, void *inout, int *len, int *type) {
  MPI_User_function *fn = (MPI_User_function *)abi_slot_get(ABI_SLOT_OP, slot);
  MPI_Datatype t = hc_abi_type_out(*type);
  fn(in, inout, len, &t);
}

void hc_abi_op_c_call(int slot, void *in, void *inout, MPI_Count *len,
                      int *type) {
  MPI_User_function_c *fn =
      (MPI_User_function_c *)abi_slot_get(ABI_SLOT_OP_C, slot);
  MPI_Datatype t = hc_abi_type_out(*type);
  fn(in, inout, len, &t);
}

static int abi_op_create(enum abi_slot_kind kind, hc_abi_any_fn fn,
                         const hc_abi_any_fn *slots, int commute, MPI_Op *op) {
  if (!fn || !op)
    return MPI_ERR_ARG;
  int slot = abi_slot_take(kind, fn);
  if (slot < 0)
    return MPI_ERR_NO_MEM;
  int m = 0;
  int rc = kind == ABI_SLOT_OP ? hc_mpich.Op_create(slots[slot], commute, &m)
                               : hc_mpich.Op_create_c(slots[slot], commute, &m);
  if (rc == 0)
    *op = hc_abi_op_out(m);
  return hc_abi_err_out(rc);
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op) {
  return abi_op_create(ABI_SLOT_OP, (hc_abi_any_fn)user_fn, hc_abi_op_slots,
                       commute, op);
}
HC_WEAK_ALIAS(MPI_Op_create, PMPI_Op_create);

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op) {
  return abi_op_create(ABI_SLOT_OP_C, (hc_abi_any_fn)user_fn, hc_abi_op_c_slots,
                       commute, op);
}
HC_WEAK_ALIAS(MPI_Op_create_c, PMPI_Op_create_c);

/* ---- error handlers ---- */
void hc_abi_comm_eh_call(int slot, int *comm, int *code) {
  MPI_Comm_errhandler_function *fn =
      (MPI_Comm_errhandler_function *)abi_slot_get(ABI_SLOT_COMM_EH, slot);
  MPI_Comm c = hc_abi_comm_out(*comm);
  int e = hc_abi_err_out(*code);
  fn(&c, &e);
}

void hc_abi_win_eh_call(int slot, int *win, int *code) {
  MPI_Win_errhandler_function *fn =
      (MPI_Win_errhandler_function *)abi_slot_get(ABI_SLOT_WIN_EH, slot);
  MPI_Win w = hc_abi_win_out(*win);
  int e = hc_abi_err_out(*code);
  fn(&w, &e);
}

void hc_abi_file_eh_call(int slot, hc_mpich_file *file, int *code) {
  MPI_File_errhandler_function *fn =
      (MPI_File_errhandler_function *)abi_slot_get(ABI_SLOT_FILE_EH, slot);
  MPI_File f = hc_abi_file_out(*file);
  int e = hc_abi_err_out(*code);
  fn(&f, &e);
}

void hc_abi_session_eh_call(int slot, int *session, int *code) {
  MPI_Session_errhandler_function *fn =
      (MPI_Session_errhandler_function *)abi_slot_get(ABI_SLOT_SESSION_EH,
                                                      slot);
  MPI_Session s = hc_abi_session_out(*session);
  int e = hc_abi_err_out(*code);
  fn(&s, &e);
}

typedef int (*abi_mpich_eh_create)(hc_abi_any_fn fn, int *errhandler);

static int abi_eh_create(enum abi_slot_kind kind, hc_abi_any_fn fn,
                         const hc_abi_any_fn *slots, abi_mpich_eh_create create,
                         MPI_Errhandler *eh) {
  if (!fn || !eh)
    return MPI_ERR_ARG;
  int slot = abi_slot_take(kind, fn);
  if (slot < 0)
    return MPI_ERR_NO_MEM;
  int m = 0;
  int rc = create(slots[slot], &m);
  if (rc == 0)
    *eh = hc_abi_errhandler_out(m);
  return hc_abi_err_out(rc);
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn,
                                MPI_Errhandler *errhandler) {
  return abi_eh_create(ABI_SLOT_COMM_EH, (hc_abi_any_fn)fn,
                       hc_abi_comm_eh_slots, hc_mpich.Comm_create_errhandler,
                       errhandler);
}
HC_WEAK_ALIAS(MPI_Comm_create_errhandler, PMPI_Comm_create_errhandler);

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn,
                               MPI_Errhandler *errhandler) {
  return abi_eh_create(ABI_SLOT_WIN_EH, (hc_abi_any_fn)fn, hc_abi_win_eh_slots,
                       hc_mpich.Win_create_errhandler, errhandler);
}
HC_WEAK_ALIAS(MPI_Win_create_errhandler, PMPI_Win_create_errhandler);

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn,
                                MPI_Errhandler *errhandler) {
  return abi_eh_create(ABI_SLOT_FILE_EH, (hc_abi_any_fn)fn,
                       hc_abi_file_eh_slots, hc_mpich.File_create_errhandler,
                       errhandler);
}
HC_WEAK_ALIAS(MPI_File_create_errhandler, PMPI_File_create_errhandler);

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn,
                                   MPI_Errhandler *errhandler) {
  return abi_eh_create(ABI_SLOT_SESSION_EH, (hc_abi_any_fn)fn,
                       hc_abi_session_eh_slots,
                       hc_mpich.Session_create_errhandler, errhandler);
}
HC_WEAK_ALIAS(MPI_Session_create_errhandler, PMPI_Session_create_errhandler);

/* ---- attribute keyvals ----
 * Each keyval's ABI callbacks and extra state live in one record that
 * libhcmpi passes back as the extra state.  Records stay for the life of
 * the process (an attribute may outlive its keyval's handle) and are
 * freed when the library unloads. */
enum abi_obj { ABI_OBJ_COMM, ABI_OBJ_TYPE, ABI_OBJ_WIN };

struct abi_keyval {
  struct abi_keyval *next;
  enum abi_obj obj;
  hc_abi_any_fn copy; /* ABI copy callback, or MPI_*_NULL_COPY_FN/DUP_FN */
  hc_abi_any_fn del;
  void *extra_state;
};

static pthread_mutex_t abi_keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static struct abi_keyval *abi_keyvals;

__attribute__((destructor)) static void abi_keyvals_free(void) {
  while (abi_keyvals) {
    struct abi_keyval *k = abi_keyvals;
    abi_keyvals = k->next;
    free(k);
  }
}

/* The ABI object handle of libhcmpi's int, as the callback's first
 * argument. */
static void *abi_obj_out(enum abi_obj obj, int h) {
  switch (obj) {
  case ABI_OBJ_COMM:
    return hc_abi_comm_out(h);
  case ABI_OBJ_TYPE:
    return hc_abi_type_out(h);
  default:
    return hc_abi_win_out(h);
  }
}

typedef int (*abi_copy_fn)(void *obj, int keyval, void *extra, void *in,
                           void *out, int *flag);
typedef int (*abi_delete_fn)(void *obj, int keyval, void *value, void *extra);

static int abi_keyval_copy(int obj, int keyval, void *extra, void *in,
                           void *out, int *flag) {
  const struct abi_keyval *k = extra;
  if (k->copy == (hc_abi_any_fn)MPI_COMM_NULL_COPY_FN) {
    *flag = 0;
    return 0;
  }
  if (k->copy == (hc_abi_any_fn)MPI_COMM_DUP_FN) {
    *(void **)out = in;
    *flag = 1;
    return 0;
  }
  /* The three copy types differ only in their first argument's handle
   * type, a pointer in every case. */
  int rc = ((abi_copy_fn)k->copy)(abi_obj_out(k->obj, obj),
                                  hc_abi_keyval_out(keyval), k->extra_state, in,
                                  out, flag);
  return hc_abi_err_in(rc);
}

static int abi_keyval_delete(int obj, int keyval, void *value, void *extra) {
  const struct abi_keyval *k = extra;
  if (k->del == (hc_abi_any_fn)MPI_COMM_NULL_DELETE_FN)
    return 0;
  int rc =
      ((abi_delete_fn)k->del)(abi_obj_out(k->obj, obj),
                              hc_abi_keyval_out(keyval), value, k->extra_state);
  return hc_abi_err_in(rc);
}

typedef int (*abi_mpich_keyval_create)(hc_abi_any_fn copy, hc_abi_any_fn del,
                                       int *keyval, void *extra);

static int abi_keyval_create(enum abi_obj obj, hc_abi_any_fn copy,
                             hc_abi_any_fn del, int *keyval, void *extra,
                             abi_mpich_keyval_create create) {
  if (!keyval)
    return MPI_ERR_ARG;
  struct abi_keyval *k = malloc(sizeof *k);
  if (!k)
    return MPI_ERR_NO_MEM;
  *k = (struct abi_keyval){
      .obj = obj, .copy = copy, .del = del, .extra_state = extra};
  int m = 0;
  int rc = create((hc_abi_any_fn)abi_keyval_copy,
                  (hc_abi_any_fn)abi_keyval_delete, &m, k);
  if (rc != 0) {
    free(k);
    return hc_abi_err_out(rc);
  }
  pthread_mutex_lock(&abi_keyval_lock);
  k->next = abi_keyvals;
  abi_keyvals = k;
  pthread_mutex_unlock(&abi_keyval_lock);
  *keyval = hc_abi_keyval_out(m);
  return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn,
                            int *comm_keyval, void *extra_state) {
  return abi_keyval_create(ABI_OBJ_COMM, (hc_abi_any_fn)copy_fn,
                           (hc_abi_any_fn)delete_fn, comm_keyval, extra_state,
                           hc_mpich.Comm_create_keyval);
}
HC_WEAK_ALIAS(MPI_Comm_create_keyval, PMPI_Comm_create_keyval);

int PMPI_Keyval_create(MPI_Copy_function *copy_fn,
                       MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state) {
  return abi_keyval_create(ABI_OBJ_COMM, (hc_abi_any_fn)copy_fn,
                           (hc_abi_any_fn)delete_fn, keyval, extra_state,
                           hc_mpich.Comm_create_keyval);
}
HC_WEAK_ALIAS(MPI_Keyval_create, PMPI_Keyval_create);

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn,
                            int *type_keyval, void *extra_state) {
  return abi_keyval_create(ABI_OBJ_TYPE, (hc_abi_any_fn)copy_fn,
                           (hc_abi_any_fn)delete_fn, type_keyval, extra_state,
                           hc_mpich.Type_create_keyval);
}
HC_WEAK_ALIAS(MPI_Type_create_keyval, PMPI_Type_create_keyval);

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn,
                           int *win_keyval, void *extra_state) {
  return abi_keyval_create(ABI_OBJ_WIN, (hc_abi_any_fn)copy_fn,
                           (hc_abi_any_fn)delete_fn, win_keyval, extra_state,
                           hc_mpich.Win_create_keyval);
}
HC_WEAK_ALIAS(MPI_Win_create_keyval, PMPI_Win_create_keyval);

/* ---- generalized requests ---- */
struct abi_grequest {
  MPI_Grequest_query_function *query;
  MPI_Grequest_free_function *free_fn;
  MPI_Grequest_cancel_function *cancel;
  void *extra_state;
};

static int abi_greq_query(void *extra, hc_mpich_status_t *status) {
  const struct abi_grequest *g = extra;
  MPI_Status s = {0};
  hc_abi_status_out(&s, status);
  int rc = g->query(g->extra_state, &s);
  hc_abi_status_in(&s, status);
  return hc_abi_err_in(rc);
}

static int abi_greq_free(void *extra) {
  struct abi_grequest *g = extra;
  int rc = g->free_fn(g->extra_state);
  free(g);
  return hc_abi_err_in(rc);
}

static int abi_greq_cancel(void *extra, int complete) {
  const struct abi_grequest *g = extra;
  return hc_abi_err_in(g->cancel(g->extra_state, complete));
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        void *extra_state, MPI_Request *request) {
  if (!query_fn || !free_fn || !cancel_fn || !request)
    return MPI_ERR_ARG;
  struct abi_grequest *g = malloc(sizeof *g);
  if (!g)
    return MPI_ERR_NO_MEM;
  *g = (struct abi_grequest){query_fn, free_fn, cancel_fn, extra_state};
  int m = 0;
  int rc = hc_mpich.Grequest_start((hc_abi_any_fn)abi_greq_query,
                                   (hc_abi_any_fn)abi_greq_free,
                                   (hc_abi_any_fn)abi_greq_cancel, g, &m);
  if (rc != 0) {
    free(g);
    return hc_abi_err_out(rc);
  }
  *request = hc_abi_request_out(m);
  return MPI_SUCCESS;
}
HC_WEAK_ALIAS(MPI_Grequest_start, PMPI_Grequest_start);

/* ---- tool-interface events ----
 * The callbacks get the tool's user_data back unchanged and handles that
 * are the same pointers in both ABIs; only the safety level differs. */
void hc_abi_event_cb_call(int slot, void *instance, void *registration,
                          int safety, void *user_data) {
  MPI_T_event_cb_function *fn =
      (MPI_T_event_cb_function *)abi_slot_get(ABI_SLOT_EVENT_CB, slot);
  fn((MPI_T_event_instance)instance, (MPI_T_event_registration)registration,
     (MPI_T_cb_safety)hc_abi_cbsafety_out(safety), user_data);
}

void hc_abi_event_free_call(int slot, void *registration, int safety,
                            void *user_data) {
  MPI_T_event_free_cb_function *fn =
      (MPI_T_event_free_cb_function *)abi_slot_get(ABI_SLOT_EVENT_FREE, slot);
  fn((MPI_T_event_registration)registration,
     (MPI_T_cb_safety)hc_abi_cbsafety_out(safety), user_data);
}

void hc_abi_event_dropped_call(int slot, MPI_Count count, void *registration,
                               int source, int safety, void *user_data) {
  MPI_T_event_dropped_cb_function *fn =
      (MPI_T_event_dropped_cb_function *)abi_slot_get(ABI_SLOT_EVENT_DROPPED,
                                                      slot);
  fn(count, (MPI_T_event_registration)registration, source,
     (MPI_T_cb_safety)hc_abi_cbsafety_out(safety), user_data);
}

/* The slot function standing for fn in *out; NULL stays NULL (no
 * callback, or one taken away). */
static int abi_callback_in(enum abi_slot_kind kind, hc_abi_any_fn fn,
                           const hc_abi_any_fn *slots, hc_abi_any_fn *out) {
  *out = NULL;
  if (!fn)
    return MPI_SUCCESS;
  int slot = abi_slot_take(kind, fn);
  if (slot < 0)
    return MPI_ERR_NO_MEM;
  *out = slots[slot];
  return MPI_SUCCESS;
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info,
                                   void *user_data,
                                   MPI_T_event_cb_function *event_cb_function) {
  hc_abi_any_fn m = NULL;
  int rc = abi_callback_in(ABI_SLOT_EVENT_CB, (hc_abi_any_fn)event_cb_function,
                           hc_abi_event_cb_slots, &m);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_abi_err_out(hc_mpich.T_event_register_callback(
      (void *)event_registration, hc_abi_cbsafety_in(cb_safety),
      hc_abi_info_in(info), user_data, m));
}
HC_WEAK_ALIAS(MPI_T_event_register_callback, PMPI_T_event_register_callback);

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration,
                             void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function) {
  hc_abi_any_fn m = NULL;
  int rc = abi_callback_in(ABI_SLOT_EVENT_FREE, (hc_abi_any_fn)free_cb_function,
                           hc_abi_event_free_slots, &m);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_abi_err_out(
      hc_mpich.T_event_handle_free((void *)event_registration, user_data, m));
}
HC_WEAK_ALIAS(MPI_T_event_handle_free, PMPI_T_event_handle_free);

int PMPI_T_event_set_dropped_handler(
    MPI_T_event_registration event_registration,
    MPI_T_event_dropped_cb_function *dropped_cb_function) {
  hc_abi_any_fn m = NULL;
  int rc = abi_callback_in(ABI_SLOT_EVENT_DROPPED,
                           (hc_abi_any_fn)dropped_cb_function,
                           hc_abi_event_dropped_slots, &m);
  if (rc != MPI_SUCCESS)
    return rc;
  return hc_abi_err_out(
      hc_mpich.T_event_set_dropped_handler((void *)event_registration, m));
}
HC_WEAK_ALIAS(MPI_T_event_set_dropped_handler,
              PMPI_T_event_set_dropped_handler);

/* The element types come back for as many elements as the caller made
 * room for (*num_elements on entry). */
int PMPI_T_event_get_info(int event_index, char *name, int *name_len,
                          int *verbosity, MPI_Datatype array_of_datatypes[],
                          MPI_Aint array_of_displacements[], int *num_elements,
                          MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind) {
  int room = array_of_datatypes && num_elements ? *num_elements : 0;
  int types_s[HC_ABI_STACK];
  int *types_m = hc_abi_scratch(types_s, room, sizeof(int));
  if (room > 0 && !types_m)
    return MPI_ERR_NO_MEM;
  int verbosity_m = 0, bind_m = 0, info_m = 0;
  int rc = hc_mpich.T_event_get_info(
      event_index, name, name_len, verbosity ? &verbosity_m : NULL,
      array_of_datatypes ? types_m : NULL, array_of_displacements, num_elements,
      (void **)enumtype, info ? &info_m : NULL, desc, desc_len,
      bind ? &bind_m : NULL);
  if (rc == 0) {
    int n = num_elements && *num_elements < room ? *num_elements : room;
    if (array_of_datatypes)
      hc_abi_type_array_out(array_of_datatypes, types_m, n);
    if (verbosity)
      *verbosity = hc_abi_verbosity_out(verbosity_m);
    if (bind)
      *bind = hc_abi_bind_out(bind_m);
    if (info)
      *info = hc_abi_info_out(info_m);
  }
  hc_abi_scratch_free(types_s, types_m);
  return hc_abi_err_out(rc);
}
HC_WEAK_ALIAS(MPI_T_event_get_info, PMPI_T_event_get_info);

/* ---- data representations ----
 * The conversion functions ride in the extra_state libhcmpi hands back;
 * a representation lives until the process ends (MPI has no way to take
 * one back), so its record stays on a list that keeps it reachable. */
struct abi_datarep {
  MPI_Datarep_conversion_function *read, *write;
  MPI_Datarep_conversion_function_c *read_c, *write_c;
  MPI_Datarep_extent_function *extent;
  void *extra_state;
  struct abi_datarep *next;
};

static pthread_mutex_t abi_datarep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct abi_datarep *abi_datareps;

static int abi_datarep_read(void *userbuf, int type, int count, void *filebuf,
                            MPI_Offset position, void *extra) {
  const struct abi_datarep *d = extra;
  return hc_abi_err_in(d->read(userbuf, hc_abi_type_out(type), count, filebuf,
                               position, d->extra_state));
}

static int abi_datarep_write(void *userbuf, int type, int count, void *filebuf,
                             MPI_Offset position, void *extra) {
  const struct abi_datarep *d = extra;
  return hc_abi_err_in(d->write(userbuf, hc_abi_type_out(type), count, filebuf,
                                position, d->extra_state));
}

static int abi_datarep_read_c(void *userbuf, int type, MPI_Count count,
                              void *filebuf, MPI_Offset position, void *extra) {
  const struct abi_datarep *d = extra;
  return hc_abi_err_in(d->read_c(userbuf, hc_abi_type_out(type), count, filebuf,
                                 position, d->extra_state));
}

static int abi_datarep_write_c(void *userbuf, int type, MPI_Count count,
                               void *filebuf, MPI_Offset position,
                               void *extra) {
  const struct abi_datarep *d = extra;
  return hc_abi_err_in(d->write_c(userbuf, hc_abi_type_out(type), count,
                                  filebuf, position, d->extra_state));
}

static int abi_datarep_extent(int type, MPI_Aint *file_extent, void *extra) {
  const struct abi_datarep *d = extra;
  return hc_abi_err_in(
      d->extent(hc_abi_type_out(type), file_extent, d->extra_state));
}

typedef int (*abi_mpich_register_datarep)(const char *, hc_abi_any_fn,
                                          hc_abi_any_fn, hc_abi_any_fn, void *);

/* libhcmpi gets a trampoline for each function given (NULL for
 * MPI_CONVERSION_FN_NULL, and for a missing extent function, which it
 * refuses). */
static int abi_register_datarep(const char *datarep, struct abi_datarep d,
                                hc_abi_any_fn read, hc_abi_any_fn write,
                                abi_mpich_register_datarep call) {
  struct abi_datarep *rec = malloc(sizeof *rec);
  if (!rec)
    return MPI_ERR_NO_MEM;
  *rec = d;
  int rc = call(datarep, read, write,
                d.extent ? (hc_abi_any_fn)abi_datarep_extent : NULL, rec);
  if (rc != 0) {
    free(rec);
    return hc_abi_err_out(rc);
  }
  pthread_mutex_lock(&abi_datarep_lock);
  rec->next = abi_datareps;
  abi_datareps = rec;
  pthread_mutex_unlock(&abi_datarep_lock);
  return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn,
                          void *extra_state) {
  struct abi_datarep d = {read_conversion_fn,   write_conversion_fn, NULL, NULL,
                          dtype_file_extent_fn, extra_state,         NULL};
  return abi_register_datarep(
      datarep, d, read_conversion_fn ? (hc_abi_any_fn)abi_datarep_read : NULL,
      write_conversion_fn ? (hc_abi_any_fn)abi_datarep_write : NULL,
      hc_mpich.Register_datarep);
}
HC_WEAK_ALIAS(MPI_Register_datarep, PMPI_Register_datarep);

int PMPI_Register_datarep_c(
    const char *datarep, MPI_Datarep_conversion_function_c *read_conversion_fn,
    MPI_Datarep_conversion_function_c *write_conversion_fn,
    MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state) {
  struct abi_datarep d = {NULL,
                          NULL,
                          read_conversion_fn,
                          write_conversion_fn,
                          dtype_file_extent_fn,
                          extra_state,
                          NULL};
  return abi_register_datarep(
      datarep, d, read_conversion_fn ? (hc_abi_any_fn)abi_datarep_read_c : NULL,
      write_conversion_fn ? (hc_abi_any_fn)abi_datarep_write_c : NULL,
      hc_mpich.Register_datarep_c);
}
HC_WEAK_ALIAS(MPI_Register_datarep_c, PMPI_Register_datarep_c);
