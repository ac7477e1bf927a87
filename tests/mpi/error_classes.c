/* User error classes, codes and strings: MPI_Add_error_class / _code /
 * _string; MPI_Error_class and MPI_Error_string on what they made;
 * MPI_LASTUSEDCODE follows them; an error handler receives an added code;
 * the string of a predefined code cannot be changed (MPI_ERR_ARG); MPICH's
 * MPIX_Delete_error_* take them back, and the values are reused.  Local
 * checks on every rank. */
#include "mpitest.h"

int MPIX_Delete_error_class(int errorclass);
int MPIX_Delete_error_code(int errorcode);
int MPIX_Delete_error_string(int errorcode);

static int handled_code;
static void record_handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handled_code = *code;
}

static int last_used(void) {
  int *v, flag;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
  CHECK(flag, "MPI_LASTUSEDCODE not set");
  return *v;
}

static const char *error_string(int code) {
  static char s[MPI_MAX_ERROR_STRING];
  int len = -1;
  int rc = MPI_Error_string(code, s, &len);
  CHECK(rc == MPI_SUCCESS, "Error_string(%d): %d", code, rc);
  CHECK(len == (int)strlen(s), "resultlen %d for '%s'", len, s);
  return s;
}

int main(int argc, char **argv) {
  int rank, cls, cls2, code, code2, got;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(last_used() >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", last_used());

  MPI_Add_error_class(&cls);
  MPI_Add_error_class(&cls2);
  CHECK(cls != cls2 && cls > MPI_ERR_LASTCODE && cls2 > MPI_ERR_LASTCODE,
        "classes %d %d", cls, cls2);
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_code(MPI_ERR_ARG, &code2); /* a code of a predefined class */
  CHECK(code != cls && code != code2, "codes %d %d", code, code2);
  int top = last_used();
  CHECK(top >= cls && top >= cls2 && top >= code && top >= code2,
        "MPI_LASTUSEDCODE %d below a new value", top);

  MPI_Error_class(code, &got);
  CHECK(got == cls, "class of code %d is %d, want %d", code, got, cls);
  MPI_Error_class(cls, &got);
  CHECK(got == cls, "class of class %d is %d", cls, got);
  MPI_Error_class(code2, &got);
  CHECK(got == MPI_ERR_ARG, "class of code2 is %d", got);

  CHECK(strcmp(error_string(code), "") == 0, "unset string '%s'",
        error_string(code));
  MPI_Add_error_string(cls, "widget class failed");
  MPI_Add_error_string(code, "widget 7 jammed");
  CHECK(strcmp(error_string(cls), "widget class failed") == 0, "'%s'",
        error_string(cls));
  CHECK(strcmp(error_string(code), "widget 7 jammed") == 0, "'%s'",
        error_string(code));
  MPI_Add_error_string(code, "widget 7 jammed again"); /* replaces */
  CHECK(strcmp(error_string(code), "widget 7 jammed again") == 0, "'%s'",
        error_string(code));

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Add_error_string(MPI_ERR_TYPE, "mine now");
  CHECK(mt_class(rc) == MPI_ERR_ARG, "string of a predefined code: %s",
        mt_errstr(rc));
  rc = MPI_Add_error_code(cls + 4096, &got);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "code of no class: %s", mt_errstr(rc));
  rc = MPI_Error_class(code + 12345, &got);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "class of no code: %s", mt_errstr(rc));

  /* A user handler gets the added code itself. */
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(record_handler, &eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
  CHECK(handled_code == code, "handler got %d, want %d", handled_code, code);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);

  /* MPICH's extensions: a class goes once its codes are gone. */
  rc = MPIX_Delete_error_class(cls);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "deleting a class with codes: %s",
        mt_errstr(rc));
  CHECK(MPIX_Delete_error_string(code) == MPI_SUCCESS, "delete string");
  CHECK(strcmp(error_string(code), "") == 0, "deleted string '%s'",
        error_string(code));
  CHECK(MPIX_Delete_error_code(code) == MPI_SUCCESS, "delete code");
  CHECK(MPIX_Delete_error_class(cls) == MPI_SUCCESS, "delete class");
  rc = MPI_Error_class(code, &got);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "deleted code still valid: %s",
        mt_errstr(rc));
  CHECK(last_used() >= top, "MPI_LASTUSEDCODE went down");

  /* Values taken back are handed out again: more rounds than there are
   * class values never run out (MPICH's errhan/adderr does this). */
  for (int round = 0; round < 10000; round++) {
    int c, k;
    CHECK(MPI_Add_error_class(&c) == MPI_SUCCESS, "round %d: class", round);
    CHECK(MPI_Add_error_code(c, &k) == MPI_SUCCESS, "round %d: code", round);
    MPIX_Delete_error_code(k);
    MPIX_Delete_error_class(c);
  }

  MPI_Finalize();
  if (rank == 0)
    printf("error_classes: ok\n");
  return 0;
}
