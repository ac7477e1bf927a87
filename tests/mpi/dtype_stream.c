/* Large non-contiguous messages (> 16 MiB of data) between ranks 0 and 1:
 * the engine packs and unpacks them fragment by fragment.  Checks vector
 * to vector with different strides (blocking and non-blocking, the types
 * freed before completion), synchronous mode, vector to contiguous and
 * back, a message already waiting (probed) before its receive, and
 * truncation into a smaller vector receive (MPI_ERR_TRUNCATE, the gaps
 * and the tail past the capacity untouched), and persistent requests
 * started twice.  Other ranks only barrier. */
#include "mpitest.h"

#define DS_N 2200000L /* doubles: 17.6 MB of data */

static double ds_value(long i, int salt) { return (double)i * 3.0 + salt; }

/* A stride-s vector of n doubles over n*s doubles; data cells get the
 * pattern (fill) or -1, the gaps -9. */
static double *ds_buf(long n, int s, int fill, int salt) {
    double *b = malloc((size_t)(n * s) * sizeof(double));
    CHECK(b != NULL, "out of memory");
    for (long i = 0; i < n * s; i++)
        b[i] = i % s ? -9.0 : (fill ? ds_value(i / s, salt) : -1.0);
    return b;
}

/* got elements landed; the rest of the n-element receive stays -1. */
static void ds_check(const double *b, long n, int s, long got, int salt) {
    for (long i = 0; i < n * s; i++) {
        double want = i % s ? -9.0 : (i / s < got ? ds_value(i / s, salt) : -1.0);
        CHECK(b[i] == want, "cell %ld = %g, want %g", i, b[i], want);
    }
}

static MPI_Datatype ds_vec(long n, int s) {
    MPI_Datatype t;
    MPI_Type_vector((int)n, 1, s, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Vector (stride 2) to vector (stride 3); mode 0 Send, 1 Ssend, 2 Isend
 * and Irecv with the types freed while the operations run. */
static void ds_vec_to_vec(int rank, int mode, int tag) {
    MPI_Datatype t2 = ds_vec(DS_N, 2), t3 = ds_vec(DS_N, 3);
    MPI_Status st;
    if (rank == 0) {
        double *b = ds_buf(DS_N, 2, 1, tag);
        if (mode == 2) {
            MPI_Request r;
            MPI_Isend(b, 1, t2, 1, tag, MPI_COMM_WORLD, &r);
            MPI_Type_free(&t2);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (mode == 1) {
            MPI_Ssend(b, 1, t2, 1, tag, MPI_COMM_WORLD);
        } else {
            MPI_Send(b, 1, t2, 1, tag, MPI_COMM_WORLD);
        }
        free(b);
    } else {
        double *b = ds_buf(DS_N, 3, 0, 0);
        if (mode == 2) {
            MPI_Request r;
            MPI_Irecv(b, 1, t3, 0, tag, MPI_COMM_WORLD, &r);
            MPI_Type_free(&t3);
            MPI_Wait(&r, &st);
        } else {
            MPI_Recv(b, 1, t3, 0, tag, MPI_COMM_WORLD, &st);
        }
        CHECK(mt_status_count(&st, MPI_DOUBLE) == DS_N, "got %d doubles",
              mt_status_count(&st, MPI_DOUBLE));
        ds_check(b, DS_N, 3, DS_N, tag);
        free(b);
    }
    if (t2 != MPI_DATATYPE_NULL)
        MPI_Type_free(&t2);
    if (t3 != MPI_DATATYPE_NULL)
        MPI_Type_free(&t3);
}

/* Vector to contiguous (tag) and contiguous to vector (tag + 1). */
static void ds_mixed(int rank, int tag) {
    MPI_Datatype t = ds_vec(DS_N, 2);
    MPI_Status st;
    if (rank == 0) {
        double *b = ds_buf(DS_N, 2, 1, tag);
        MPI_Send(b, 1, t, 1, tag, MPI_COMM_WORLD);
        double *d = ds_buf(DS_N, 1, 1, tag + 1);
        MPI_Send(d, DS_N, MPI_DOUBLE, 1, tag + 1, MPI_COMM_WORLD);
        free(d);
        free(b);
    } else {
        double *d = ds_buf(DS_N, 1, 0, 0);
        MPI_Recv(d, DS_N, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, &st);
        ds_check(d, DS_N, 1, DS_N, tag);
        double *b = ds_buf(DS_N, 2, 0, 0);
        MPI_Recv(b, 1, t, 0, tag + 1, MPI_COMM_WORLD, &st);
        ds_check(b, DS_N, 2, DS_N, tag + 1);
        free(b);
        free(d);
    }
    MPI_Type_free(&t);
}

/* The message is waiting before the receive is posted. */
static void ds_unexpected(int rank, int tag) {
    MPI_Datatype t = ds_vec(DS_N, 2);
    MPI_Status st;
    if (rank == 0) {
        double *b = ds_buf(DS_N, 2, 1, tag);
        MPI_Send(b, 1, t, 1, tag, MPI_COMM_WORLD);
        free(b);
    } else {
        MPI_Probe(0, tag, MPI_COMM_WORLD, &st);
        CHECK(mt_status_count(&st, MPI_DOUBLE) == DS_N, "probe count");
        double *b = ds_buf(DS_N, 2, 0, 0);
        MPI_Recv(b, 1, t, 0, tag, MPI_COMM_WORLD, &st);
        ds_check(b, DS_N, 2, DS_N, tag);
        free(b);
    }
    MPI_Type_free(&t);
}

/* DS_N elements into a DS_N / 4 element vector receive. */
static void ds_truncate(int rank, int tag) {
    long cap = DS_N / 4;
    MPI_Status st;
    if (rank == 0) {
        MPI_Datatype t = ds_vec(DS_N, 2);
        double *b = ds_buf(DS_N, 2, 1, tag);
        MPI_Send(b, 1, t, 1, tag, MPI_COMM_WORLD);
        MPI_Type_free(&t);
        free(b);
    } else {
        /* Room for DS_N elements; the type covers only cap of them. */
        MPI_Datatype t = ds_vec(cap, 2);
        double *b = ds_buf(DS_N, 2, 0, 0);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Recv(b, 1, t, 0, tag, MPI_COMM_WORLD, &st);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        CHECK(mt_class(rc) == MPI_ERR_TRUNCATE, "error class %d", mt_class(rc));
        ds_check(b, DS_N, 2, cap, tag);
        MPI_Type_free(&t);
        free(b);
    }
}

/* Persistent vector send and receive, each started twice. */
static void ds_persistent(int rank, int tag) {
    MPI_Datatype t = ds_vec(DS_N, 2);
    double *b = ds_buf(DS_N, 2, rank == 0, tag);
    MPI_Request r;
    MPI_Status st;
    if (rank == 0)
        MPI_Send_init(b, 1, t, 1, tag, MPI_COMM_WORLD, &r);
    else
        MPI_Recv_init(b, 1, t, 0, tag, MPI_COMM_WORLD, &r);
    for (int round = 0; round < 2; round++) {
        if (rank == 1)
            for (long i = 0; i < DS_N; i++)
                b[2 * i] = -1.0;
        MPI_Start(&r);
        MPI_Wait(&r, &st);
        if (rank == 1)
            ds_check(b, DS_N, 2, DS_N, tag);
    }
    MPI_Request_free(&r);
    MPI_Type_free(&t);
    free(b);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < 2 && size >= 2) {
        ds_vec_to_vec(rank, 0, 10);
        ds_vec_to_vec(rank, 1, 11);
        ds_vec_to_vec(rank, 2, 12);
        ds_mixed(rank, 20);
        ds_unexpected(rank, 30);
        ds_truncate(rank, 40);
        ds_persistent(rank, 50);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dtype_stream: ok on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
