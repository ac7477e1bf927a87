/* Attribute callbacks: which run, how often and in what order.
 *   - MPI_Comm_dup runs the copy callbacks of MPI_Comm_create_keyval and
 *     MPI_Keyval_create keyvals, in the order the attributes were set;
 *   - MPI_Comm_free runs the delete callbacks, newest attribute first;
 *     MPI_Comm_delete_attr and overwriting run one, with the old value;
 *   - a keyval freed while attributes use it stays usable for them: later
 *     deletes work and freeing it again (from a delete callback too) is
 *     not an error;
 *   - datatype keyvals: copy on MPI_Type_dup, delete on MPI_Type_free and
 *     MPI_Type_delete_attr; a datatype keyval on a communicator is
 *     MPI_ERR_KEYVAL;
 *   - MPI_LASTUSEDCODE is at least MPI_ERR_LASTCODE;
 *   - MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest first,
 *     while MPI still works, then MPI_COMM_WORLD's (checked after it).
 * Every rank runs the same local checks (1 or more ranks). */
#include "mpitest.h"

#define LOG_MAX 64
static char event_log[LOG_MAX][32];
static int nevents;

static void log_event(const char *what, MPI_Aint value) {
  CHECK(nevents < LOG_MAX, "too many callbacks");
  snprintf(event_log[nevents++], sizeof event_log[0], "%s%ld", what,
           (long)value);
}

/* The events since mark, joined by spaces. */
static const char *events_since(int mark) {
  static char out[LOG_MAX * 32];
  out[0] = '\0';
  for (int i = mark; i < nevents; i++) {
    strcat(out, i > mark ? " " : "");
    strcat(out, event_log[i]);
  }
  return out;
}

#define EXPECT_EVENTS(mark, want)                                              \
  CHECK(strcmp(events_since(mark), want) == 0, "callbacks '%s', want '%s'",    \
        events_since(mark), want)

static int copy_cb(MPI_Comm comm, int keyval, void *extra, void *in, void *out,
                   int *flag) {
  (void)comm;
  (void)keyval;
  (void)extra;
  log_event("c", (MPI_Aint)in);
  *(void **)out = (void *)((MPI_Aint)in + 100);
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  log_event("d", (MPI_Aint)value);
  return MPI_SUCCESS;
}

/* Frees the keyval it is called for, as MPICH's keyval_double_free does. */
static int delete_frees_keyval(MPI_Comm comm, int keyval, void *value,
                               void *extra) {
  (void)comm;
  (void)extra;
  log_event("f", (MPI_Aint)value);
  return MPI_Comm_free_keyval(&keyval);
}

static void dup_free_order(void) {
  int k1, k2, k3, flag;
  void *v;
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_create_keyval(copy_cb, delete_cb, &k1, NULL);
  MPI_Keyval_create(copy_cb, delete_cb, &k2, NULL); /* MPI-1 form */
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &k3, NULL);
  MPI_Comm_set_attr(a, k2, (void *)2);
  MPI_Comm_set_attr(a, k1, (void *)1);
  MPI_Attr_put(a, k3, (void *)3);
  int mark = nevents;
  MPI_Comm_dup(a, &b);
  EXPECT_EVENTS(mark, "c2 c1");
  MPI_Comm_get_attr(b, k2, &v, &flag);
  CHECK(flag && (MPI_Aint)v == 102, "dup's k2: flag %d value %ld", flag,
        (long)(MPI_Aint)v);
  MPI_Comm_get_attr(b, k3, &v, &flag);
  CHECK(!flag, "a NULL_COPY_FN attribute was copied");

  mark = nevents;
  MPI_Comm_set_attr(a, k1, (void *)11); /* overwrite: old value deleted */
  MPI_Comm_delete_attr(a, k2);
  EXPECT_EVENTS(mark, "d1 d2");

  mark = nevents;
  MPI_Comm_free(&a); /* left: k3 (3), then k1 (11), newest first */
  EXPECT_EVENTS(mark, "d11 d3");

  /* k1 freed while b still uses it: the attribute stays readable and
   * deletable through a copy of the handle; freeing again is a no-op. */
  int k1_copy = k1;
  MPI_Comm_free_keyval(&k1);
  CHECK(k1 == MPI_KEYVAL_INVALID, "free_keyval left %d", k1);
  MPI_Comm_get_attr(b, k1_copy, &v, &flag);
  CHECK(flag && (MPI_Aint)v == 101, "attribute of a freed keyval lost");
  mark = nevents;
  int rc = MPI_Comm_delete_attr(b, k1_copy);
  CHECK(rc == MPI_SUCCESS, "delete_attr of a freed keyval: %s", mt_errstr(rc));
  EXPECT_EVENTS(mark, "d101");
  mark = nevents;
  MPI_Comm_free(&b);
  EXPECT_EVENTS(mark, "d102");
  MPI_Comm_free_keyval(&k2);
  MPI_Comm_free_keyval(&k3);
}

/* As MPICH's keyval_double_free: the callback frees its keyval each time
 * it runs, and the program frees it twice more, while MPI_COMM_SELF's
 * attribute (deleted at Finalize) keeps the keyval alive. */
static void keyval_freed_in_callback(void) {
  int k, k_copy;
  MPI_Comm a;
  MPI_Comm_dup(MPI_COMM_SELF, &a);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_frees_keyval, &k, NULL);
  k_copy = k;
  MPI_Comm_set_attr(MPI_COMM_SELF, k, (void *)8);
  MPI_Comm_set_attr(a, k, (void *)7);
  int mark = nevents;
  MPI_Comm_free(&a); /* the callback frees k */
  EXPECT_EVENTS(mark, "f7");
  int rc = MPI_Comm_free_keyval(&k);
  CHECK(rc == MPI_SUCCESS, "second free_keyval: %s", mt_errstr(rc));
  rc = MPI_Comm_free_keyval(&k_copy);
  CHECK(rc == MPI_SUCCESS, "third free_keyval: %s", mt_errstr(rc));
}

static int type_copy_cb(MPI_Datatype t, int keyval, void *extra, void *in,
                        void *out, int *flag) {
  return copy_cb((MPI_Comm)t, keyval, extra, in, out, flag);
}

static int type_delete_cb(MPI_Datatype t, int keyval, void *value,
                          void *extra) {
  return delete_cb((MPI_Comm)t, keyval, value, extra);
}

static void type_attributes(void) {
  int k, flag;
  void *v;
  MPI_Datatype t, u;
  MPI_Type_contiguous(3, MPI_INT, &t);
  MPI_Type_create_keyval(type_copy_cb, type_delete_cb, &k, NULL);
  MPI_Type_set_attr(t, k, (void *)5);
  MPI_Type_get_attr(t, k, &v, &flag);
  CHECK(flag && (MPI_Aint)v == 5, "type attribute: flag %d", flag);
  int mark = nevents;
  MPI_Type_dup(t, &u);
  EXPECT_EVENTS(mark, "c5");
  MPI_Type_get_attr(u, k, &v, &flag);
  CHECK(flag && (MPI_Aint)v == 105, "dup's attribute: flag %d", flag);
  mark = nevents;
  MPI_Type_delete_attr(t, k);
  MPI_Type_get_attr(t, k, &v, &flag);
  CHECK(!flag, "deleted type attribute still there");
  MPI_Type_free(&u);
  EXPECT_EVENTS(mark, "d5 d105");
  /* Predefined types hold attributes too. */
  MPI_Type_set_attr(MPI_INT, k, (void *)9);
  mark = nevents;
  MPI_Type_delete_attr(MPI_INT, k);
  EXPECT_EVENTS(mark, "d9");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, k, (void *)1);
  CHECK(mt_class(rc) == MPI_ERR_KEYVAL, "type keyval on a comm: %s",
        mt_errstr(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Type_free(&t);
  MPI_Type_free_keyval(&k);
  CHECK(k == MPI_KEYVAL_INVALID, "Type_free_keyval left %d", k);
}

static void last_used_code(void) {
  int *v, flag, cls;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
  CHECK(flag && *v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d < %d", *v,
        MPI_ERR_LASTCODE);
  MPI_Add_error_class(&cls);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
  CHECK(flag && *v >= cls, "MPI_LASTUSEDCODE %d below a new class %d", *v, cls);
}

/* At Finalize: MPI must still work, WORLD's attribute must still be set. */
static int world_key;
static int finalize_delete(MPI_Comm comm, int keyval, void *value,
                           void *extra) {
  (void)keyval;
  (void)extra;
  int finalized = 1, flag = 0, size = 0;
  void *w;
  MPI_Finalized(&finalized);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (comm == MPI_COMM_SELF)
    MPI_Comm_get_attr(MPI_COMM_WORLD, world_key, &w, &flag);
  log_event(comm == MPI_COMM_SELF ? (flag ? "s" : "S!") : "w",
            finalized || size < 1 ? -1 : (MPI_Aint)value);
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  int rank, k[3];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  dup_free_order();
  keyval_freed_in_callback();
  type_attributes();
  last_used_code();
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &world_key,
                         NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, world_key, (void *)40);
  for (int i = 0; i < 3; i++) {
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &k[i], NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, k[i], (void *)(MPI_Aint)(i + 1));
  }
  int mark = nevents;
  MPI_Comm_set_attr(MPI_COMM_SELF, k[0], (void *)4); /* re-set: newest */
  EXPECT_EVENTS(mark, "s1");
  mark = nevents;
  MPI_Finalize();
  /* SELF's newest first (k[0] was set again last; the keyval freeing
   * itself, set first, goes last), then WORLD's. */
  EXPECT_EVENTS(mark, "s4 s3 s2 f8 w40");
  if (rank == 0)
    printf("attr_callbacks: ok\n");
  return 0;
}
