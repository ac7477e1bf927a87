/* MPI-4.1's local calls, on one rank.
 * - MPI_Get_version reports 4.1 (mpi.h says so too; mpi_abi.h says 5.0).
 * - MPI_Status_get/set_source, _tag, _error read and write exactly their
 *   field (the count and the cancel flag stay); MPI_STATUS_IGNORE is
 *   MPI_ERR_ARG.
 * - MPI_Remove_error_class / _code / _string take back what was added:
 *   a class with a code left, a code with a string left, a string never
 *   set, a predefined class and a value removed twice are MPI_ERR_ARG;
 *   a removed class's value is handed out again.
 * - MPI_Get_hw_resource_info: a new info with mpi_hw_resource_type
 *   (mpi_shared_memory, what MPI_COMM_TYPE_HW_GUIDED splits by) and
 *   hcmpi's counts, freed by the caller.
 * - MPI_Type_get_value_index: every predefined pair type of MINLOC and
 *   MAXLOC, MPI_DATATYPE_NULL for other pairs, MPI_ERR_TYPE for an
 *   invalid type.
 * - MPI_ERR_ERRHANDLER is a class with a name of its own, and the class of
 *   an invalid errhandler argument: MPI_ERRHANDLER_NULL to
 *   MPI_Comm_set_errhandler and MPI_Errhandler_free, a communicator's
 *   handler to MPI_File_set_errhandler (through the standard ABI too,
 *   where its value differs).
 * - MPI_Comm_get_name, MPI_Type_get_name and MPI_Win_get_name of the null
 *   handles give "MPI_COMM_NULL", "MPI_DATATYPE_NULL" and "MPI_WIN_NULL";
 *   naming a null handle is still MPI_ERR_COMM, _TYPE, _WIN.
 * - MPI_Comm_split_type(MPI_COMM_TYPE_RESOURCE_GUIDED) with
 *   mpi_hw_resource_type=mpi_shared_memory gives the node, as
 *   MPI_COMM_TYPE_SHARED does; a resource type hcmpi does not know and no
 *   info give MPI_COMM_NULL; mpi_pset_name=mpi://WORLD gives the world
 *   (on hcmpi).
 * - MPI_Status_set_elements_c (MPI-4.0's, which MPICH exports from 4.1 on):
 *   3e9 MPI_INTs read back exactly through MPI_Get_elements_c and
 *   MPI_Get_count_c, as 7.5e8 whole elements of four ints, and as
 *   MPI_UNDEFINED through the int forms; the source, tag and cancel flag
 *   stay; a negative count is MPI_ERR_COUNT, MPI_DATATYPE_NULL
 *   MPI_ERR_TYPE, and neither changes the status. */
/* mt-needs: MPI-4.1 (built against an older MPICH, e.g. by tests/relink/mpich_suite.sh, it is skipped) */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpitest.h"

static void ml_version(void)
{
    int version = 0, subversion = -1;
    MPI_Get_version(&version, &subversion);
    CHECK(version == 4 && subversion == 1, "version %d.%d", version, subversion);
    /* The standard ABI's mpi_abi.h says 5.0, the level that defines it. */
    CHECK(MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION == 1), "mpi.h says %d.%d",
          MPI_VERSION, MPI_SUBVERSION);
}

static void ml_status_fields(void)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    MPI_Status_set_elements(&st, MPI_INT, 7);
    MPI_Status_set_cancelled(&st, 1);
    CHECK(MPI_Status_set_source(&st, 5) == MPI_SUCCESS, "set_source");
    CHECK(MPI_Status_set_tag(&st, 77) == MPI_SUCCESS, "set_tag");
    CHECK(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE) == MPI_SUCCESS, "set_error");
    CHECK(st.MPI_SOURCE == 5 && st.MPI_TAG == 77 && st.MPI_ERROR == MPI_ERR_TRUNCATE,
          "fields %d %d %d", st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    int source = -9, tag = -9, error = -9, count = -1, cancelled = 0;
    CHECK(MPI_Status_get_source(&st, &source) == MPI_SUCCESS && source == 5, "source %d",
          source);
    CHECK(MPI_Status_get_tag(&st, &tag) == MPI_SUCCESS && tag == 77, "tag %d", tag);
    CHECK(MPI_Status_get_error(&st, &error) == MPI_SUCCESS && error == MPI_ERR_TRUNCATE,
          "error %d", error);
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(count == 7 && cancelled, "count %d cancelled %d changed", count, cancelled);
    MPI_Status_set_source(&st, MPI_ANY_SOURCE);
    MPI_Status_get_source(&st, &source);
    CHECK(source == MPI_ANY_SOURCE, "MPI_ANY_SOURCE read back as %d", source);
    int rc = MPI_Status_get_tag(MPI_STATUS_IGNORE, &tag);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "MPI_STATUS_IGNORE: %s", mt_errstr(rc));
    rc = MPI_Status_set_error(MPI_STATUS_IGNORE, 0);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "MPI_STATUS_IGNORE: %s", mt_errstr(rc));
}

static void ml_status_set_elements_c(void)
{
    const MPI_Count three_billion = 3000000000LL;
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = 3;
    st.MPI_TAG = 44;
    MPI_Status_set_cancelled(&st, 1);
    int rc = MPI_Status_set_elements_c(&st, MPI_INT, three_billion);
    CHECK(rc == MPI_SUCCESS, "set_elements_c: %s", mt_errstr(rc));
    MPI_Count elements_c = -1, count_c = -1;
    CHECK(MPI_Get_elements_c(&st, MPI_INT, &elements_c) == MPI_SUCCESS &&
              elements_c == three_billion,
          "Get_elements_c %lld", (long long)elements_c);
    CHECK(MPI_Get_count_c(&st, MPI_INT, &count_c) == MPI_SUCCESS && count_c == three_billion,
          "Get_count_c %lld", (long long)count_c);
    int elements = 0, count = 0, cancelled = 0;
    CHECK(MPI_Get_elements(&st, MPI_INT, &elements) == MPI_SUCCESS &&
              elements == MPI_UNDEFINED,
          "Get_elements of 3e9 says %d", elements);
    CHECK(MPI_Get_count(&st, MPI_INT, &count) == MPI_SUCCESS && count == MPI_UNDEFINED,
          "Get_count of 3e9 says %d", count);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44 && cancelled,
          "source %d tag %d cancelled %d changed", st.MPI_SOURCE, st.MPI_TAG, cancelled);

    /* Basic elements of a derived type: 3e9 ints are 7.5e8 whole
     * four-int elements, which an int count holds again. */
    MPI_Datatype four_ints;
    MPI_Type_contiguous(4, MPI_INT, &four_ints);
    MPI_Type_commit(&four_ints);
    CHECK(MPI_Status_set_elements_c(&st, four_ints, three_billion) == MPI_SUCCESS,
          "set_elements_c of four ints");
    MPI_Get_elements_c(&st, four_ints, &elements_c);
    MPI_Get_count_c(&st, four_ints, &count_c);
    MPI_Get_count(&st, four_ints, &count);
    CHECK(elements_c == three_billion && count_c == three_billion / 4 &&
              count == (int)(three_billion / 4),
          "four ints: elements_c %lld count_c %lld count %d", (long long)elements_c,
          (long long)count_c, count);

    /* One past INT_MAX: the smallest count the int forms cannot say. */
    const MPI_Count past_int = (MPI_Count)INT_MAX + 1;
    MPI_Status_set_elements_c(&st, MPI_BYTE, past_int);
    MPI_Get_elements_c(&st, MPI_BYTE, &elements_c);
    MPI_Get_elements(&st, MPI_BYTE, &elements);
    CHECK(elements_c == past_int && elements == MPI_UNDEFINED,
          "INT_MAX + 1 bytes: elements_c %lld, elements %d", (long long)elements_c, elements);
    MPI_Status_set_elements_c(&st, MPI_BYTE, INT_MAX);
    MPI_Get_elements(&st, MPI_BYTE, &elements);
    CHECK(elements == INT_MAX, "INT_MAX bytes: elements %d", elements);

    rc = MPI_Status_set_elements_c(&st, MPI_INT, -1);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "count -1: %s", mt_errstr(rc));
    rc = MPI_Status_set_elements_c(&st, MPI_DATATYPE_NULL, 5);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: %s", mt_errstr(rc));
    MPI_Get_elements(&st, MPI_BYTE, &elements);
    CHECK(elements == INT_MAX, "a refused call changed the status to %d elements", elements);
    rc = MPI_Status_set_elements_c(MPI_STATUS_IGNORE, MPI_INT, 5);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "MPI_STATUS_IGNORE: %s", mt_errstr(rc));
    MPI_Type_free(&four_ints);
}

static void ml_null_name(const char *what, int rc, const char *name, int len,
                         const char *want)
{
    CHECK(rc == MPI_SUCCESS, "%s: %s", what, mt_errstr(rc));
    CHECK(rc != MPI_SUCCESS || (strcmp(name, want) == 0 && len == (int)strlen(want)),
          "%s: name \"%s\" (length %d), want %s", what, name, len, want);
}

static void ml_null_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    name[0] = '\0';
    int rc = MPI_Comm_get_name(MPI_COMM_NULL, name, &len);
    ml_null_name("MPI_Comm_get_name", rc, name, len, "MPI_COMM_NULL");
    name[0] = '\0';
    rc = MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len);
    ml_null_name("MPI_Type_get_name", rc, name, len, "MPI_DATATYPE_NULL");
    name[0] = '\0';
    rc = MPI_Win_get_name(MPI_WIN_NULL, name, &len);
    ml_null_name("MPI_Win_get_name", rc, name, len, "MPI_WIN_NULL");
    rc = MPI_Comm_set_name(MPI_COMM_NULL, "x");
    CHECK(mt_class(rc) == MPI_ERR_COMM, "Comm_set_name(NULL): %s", mt_errstr(rc));
    rc = MPI_Type_set_name(MPI_DATATYPE_NULL, "x");
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "Type_set_name(NULL): %s", mt_errstr(rc));
    rc = MPI_Win_set_name(MPI_WIN_NULL, "x");
    CHECK(mt_class(rc) == MPI_ERR_WIN, "Win_set_name(NULL): %s", mt_errstr(rc));
    rc = MPI_Comm_get_name(MPI_COMM_NULL, NULL, &len);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "Comm_get_name(NULL, NULL name): %s", mt_errstr(rc));
}

static MPI_Comm ml_split_guided(const char *key, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key != NULL) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, info, &comm);
    CHECK(rc == MPI_SUCCESS, "RESOURCE_GUIDED with %s=%s: %s", key ? key : "(no info)",
          value ? value : "", mt_errstr(rc));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return comm;
}

static void ml_resource_guided(void)
{
    MPI_Comm node, shared;
    node = ml_split_guided("mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    CHECK(node != MPI_COMM_NULL, "mpi_shared_memory gave MPI_COMM_NULL");
    int result = MPI_UNEQUAL;
    if (node != MPI_COMM_NULL) {
        MPI_Comm_compare(node, shared, &result);
        MPI_Comm_free(&node);
    }
    CHECK(result == MPI_CONGRUENT, "RESOURCE_GUIDED's node and SHARED's compare %d", result);
    MPI_Comm_free(&shared);
    node = ml_split_guided("mpi_hw_resource_type", "hcmpi_no_such_resource");
    CHECK(node == MPI_COMM_NULL, "an unknown resource type gave a communicator");
    /* A process set splits by its members (tests/mpi/split_pset.c); MPICH
     * 4.3 splits by none and gives MPI_COMM_NULL. */
    node = ml_split_guided("mpi_pset_name", "mpi://WORLD");
    result = MPI_UNEQUAL;
    if (node != MPI_COMM_NULL) {
        MPI_Comm_compare(node, MPI_COMM_WORLD, &result);
        MPI_Comm_free(&node);
    }
#ifdef HCMPI
    CHECK(result == MPI_CONGRUENT, "mpi_pset_name=mpi://WORLD and the world compare %d",
          result);
#endif
    node = ml_split_guided(NULL, NULL);
    CHECK(node == MPI_COMM_NULL, "no info gave a communicator");
}

static void ml_remove_errors(void)
{
    int cls = 0, code = 0, rc;
    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS, "Add_error_class");
    CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS, "Add_error_code");
    CHECK(MPI_Add_error_string(code, "an added code") == MPI_SUCCESS, "Add_error_string");
    rc = MPI_Remove_error_class(cls);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "class with a code: %s", mt_errstr(rc));
    rc = MPI_Remove_error_code(code);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "code with a string: %s", mt_errstr(rc));
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS, "Remove_error_string");
    char text[MPI_MAX_ERROR_STRING];
    int len = -1;
    MPI_Error_string(code, text, &len);
    CHECK(len == 0, "string still \"%s\" after its removal", text);
    rc = MPI_Remove_error_string(code);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "string removed twice: %s", mt_errstr(rc));
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS, "Remove_error_code");
    int got = -1;
    rc = MPI_Error_class(code, &got);
    CHECK(rc != MPI_SUCCESS, "removed code still has class %d", got);
    rc = MPI_Remove_error_code(code);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "code removed twice: %s", mt_errstr(rc));
    CHECK(MPI_Remove_error_class(cls) == MPI_SUCCESS, "Remove_error_class");
    rc = MPI_Remove_error_class(cls);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "class removed twice: %s", mt_errstr(rc));
    rc = MPI_Remove_error_class(MPI_ERR_BUFFER);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "predefined class: %s", mt_errstr(rc));
    rc = MPI_Remove_error_string(MPI_ERR_BUFFER);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "predefined string: %s", mt_errstr(rc));
    int again = 0;
    CHECK(MPI_Add_error_class(&again) == MPI_SUCCESS && again == cls,
          "removed class %d not handed out again (got %d)", cls, again);
    CHECK(MPI_Remove_error_class(again) == MPI_SUCCESS, "Remove_error_class");
}

static void ml_hw_info(void)
{
    MPI_Info info = MPI_INFO_NULL;
    CHECK(MPI_Get_hw_resource_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL,
          "Get_hw_resource_info");
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, "mpi_shared_memory") == 0, "mpi_hw_resource_type \"%s\"",
          flag ? value : "(none)");
    MPI_Info_get(info, "hcmpi_hw_cpus_online", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && atoi(value) >= 1, "hcmpi_hw_cpus_online \"%s\"", flag ? value : "(none)");
    MPI_Info_get(info, "hcmpi_hw_cpus_allowed", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && atoi(value) >= 1, "hcmpi_hw_cpus_allowed \"%s\"", flag ? value : "(none)");
    char host[MPI_MAX_PROCESSOR_NAME];
    int hlen = 0;
    MPI_Get_processor_name(host, &hlen);
    MPI_Info_get(info, "hcmpi_hw_host", MPI_MAX_INFO_VAL, value, &flag);
    CHECK(flag && strcmp(value, host) == 0, "hcmpi_hw_host \"%s\", host \"%s\"",
          flag ? value : "(none)", host);
    CHECK(MPI_Info_free(&info) == MPI_SUCCESS && info == MPI_INFO_NULL, "Info_free");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Get_hw_resource_info(NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "NULL hw_info: %s", mt_errstr(rc));
}

static void ml_value_index(void)
{
    static const struct {
        MPI_Datatype value, index, pair;
    } pairs[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
        /* No predefined type for these. */
        {MPI_FLOAT, MPI_FLOAT, MPI_DATATYPE_NULL},
        {MPI_DOUBLE, MPI_LONG, MPI_DATATYPE_NULL},
        {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL},
        {MPI_REAL, MPI_INT, MPI_DATATYPE_NULL},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        MPI_Datatype got = (MPI_Datatype)-1;
        CHECK(MPI_Type_get_value_index(pairs[i].value, pairs[i].index, &got) == MPI_SUCCESS,
              "pair %zu", i);
        CHECK(got == pairs[i].pair, "pair %zu: got %#lx, want %#lx", i,
              (unsigned long)(uintptr_t)got, (unsigned long)(uintptr_t)pairs[i].pair);
    }
    /* The pair is the value then the index: MPI_DOUBLE_INT's size. */
    int size = 0;
    MPI_Datatype got;
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &got);
    MPI_Type_size(got, &size);
    CHECK(size == (int)(sizeof(double) + sizeof(int)), "MPI_DOUBLE_INT size %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &got);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL: %s", mt_errstr(rc));
    rc = MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, NULL);
    CHECK(mt_class(rc) == MPI_ERR_ARG, "NULL pair_type: %s", mt_errstr(rc));
}

static void ml_comm_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static void ml_errhandler_class(void)
{
    char name[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    CHECK(MPI_Error_class(MPI_ERR_ERRHANDLER, &cls) == MPI_SUCCESS && cls == MPI_ERR_ERRHANDLER,
          "MPI_ERR_ERRHANDLER class %d", cls);
    MPI_Error_string(MPI_ERR_ERRHANDLER, name, &len);
    CHECK(len > 0 && strstr(name, "handler") != NULL, "MPI_ERR_ERRHANDLER string \"%s\"", name);
    CHECK(MPI_ERR_ERRHANDLER <= MPI_ERR_LASTCODE, "MPI_ERR_ERRHANDLER above LASTCODE");
    int rc = MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRHANDLER_NULL);
    CHECK(mt_class(rc) == MPI_ERR_ERRHANDLER, "Comm_set_errhandler(NULL): %s", mt_errstr(rc));
    MPI_Errhandler none = MPI_ERRHANDLER_NULL;
    rc = MPI_Errhandler_free(&none);
    CHECK(mt_class(rc) == MPI_ERR_ERRHANDLER, "Errhandler_free(NULL): %s", mt_errstr(rc));
    MPI_Errhandler for_comms;
    MPI_Comm_create_errhandler(ml_comm_handler, &for_comms);
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, for_comms);
    CHECK(mt_class(rc) == MPI_ERR_ERRHANDLER, "File_set_errhandler(comm handler): %s",
          mt_errstr(rc));
    MPI_Errhandler_free(&for_comms);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    ml_version();
    ml_status_fields();
    ml_status_set_elements_c();
    ml_null_names();
    ml_resource_guided();
    ml_remove_errors();
    ml_hw_info();
    ml_value_index();
    ml_errhandler_class();
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("mpi41_local: OK\n");
    MPI_Finalize();
    return 0;
}
