/* Single-element MPI_Fetch_and_op, MPI_Accumulate and MPI_Compare_and_swap
 * on a window of MPI_Win_allocate, which every rank of one node maps (the
 * library's direct single-element path there), for every predefined op
 * that applies to each of a few basic types, against a serial reference
 * computed here.
 *
 * Serial phase, per (type, op), in one lock_all epoch: every rank sets its
 * own element; each fetches-and-ops its right neighbour's (the fetched
 * value must be the neighbour's initial one), then accumulates into its
 * own, flushing each; the bytes each element ended with must be the
 * reference's.  Compare and swap: a matching compare swaps and a stale one
 * leaves the element, on the neighbour and on this rank itself.
 *
 * Concurrent phase: every rank at once, many rounds, on rank 0's words
 * (rank 0 included, on itself): long MPI_SUM (fetched tickets all
 * distinct), int MPI_SUM by accumulate, unsigned long MPI_PROD of odd
 * factors and MPI_BXOR (both independent of the order), long MPI_MAX;
 * the totals are checked against the serial fold of every rank's
 * operands. */
#include "mpitest.h"

#include <stdint.h>

enum { T_INT, T_LONG, T_UCHAR, T_DOUBLE, T_INT64, T_UINT16, NTYPES };
static MPI_Datatype
    types[NTYPES]; /* set in main: handles need not be constants */
static const char *type_name[NTYPES] = {"int",    "long",    "unsigned char",
                                        "double", "int64_t", "uint16_t"};

enum {
  O_SUM,
  O_PROD,
  O_MAX,
  O_MIN,
  O_LAND,
  O_LOR,
  O_LXOR,
  O_BAND,
  O_BOR,
  O_BXOR,
  O_REPLACE,
  O_NO_OP,
  NOPS
};
static MPI_Op ops[NOPS];
static const char *op_name[NOPS] = {"SUM",  "PROD", "MAX",     "MIN",
                                    "LAND", "LOR",  "LXOR",    "BAND",
                                    "BOR",  "BXOR", "REPLACE", "NO_OP"};

static int rank, size;

/* 1 when op applies to the type (MPI 4.1 section 6.9.2: no logical or
 * bitwise ops on floating point). */
static int op_applies(int t, int o) {
  return t != T_DOUBLE || (o != O_LAND && o != O_LOR && o != O_LXOR &&
                           o != O_BAND && o != O_BOR && o != O_BXOR);
}

/* A value of every type, held as the widest that is exact for all of
 * them here (small magnitudes only). */
static void store(int t, void *at, long v) {
  switch (t) {
  case T_INT:
    *(int *)at = (int)v;
    break;
  case T_LONG:
    *(long *)at = v;
    break;
  case T_UCHAR:
    *(unsigned char *)at = (unsigned char)v;
    break;
  case T_DOUBLE:
    *(double *)at = (double)v;
    break;
  case T_INT64:
    *(int64_t *)at = (int64_t)v;
    break;
  default:
    *(uint16_t *)at = (uint16_t)v;
    break;
  }
}

static long load(int t, const void *at) {
  switch (t) {
  case T_INT:
    return *(const int *)at;
  case T_LONG:
    return *(const long *)at;
  case T_UCHAR:
    return *(const unsigned char *)at;
  case T_DOUBLE:
    return (long)*(const double *)at;
  case T_INT64:
    return (long)*(const int64_t *)at;
  default:
    return *(const uint16_t *)at;
  }
}

/* The reference: op of in into inout, in the arithmetic of type t (the
 * values stay small enough that every type holds them exactly). */
static long reference(int t, int o, long in, long inout) {
  long r;
  switch (o) {
  case O_SUM:
    r = inout + in;
    break;
  case O_PROD:
    r = inout * in;
    break;
  case O_MAX:
    r = in > inout ? in : inout;
    break;
  case O_MIN:
    r = in < inout ? in : inout;
    break;
  case O_LAND:
    r = inout && in;
    break;
  case O_LOR:
    r = inout || in;
    break;
  case O_LXOR:
    r = !inout != !in;
    break;
  case O_BAND:
    r = inout & in;
    break;
  case O_BOR:
    r = inout | in;
    break;
  case O_BXOR:
    r = inout ^ in;
    break;
  case O_REPLACE:
    r = in;
    break;
  default:
    r = inout;
    break;
  }
  unsigned char buf[16];
  store(t, buf, r); /* wrap as the type does */
  return load(t, buf);
}

/* Initial value of rank r's element and r's operands: small, distinct,
 * some zero for the logical ops. */
static long initial(int r, int o) {
  return o == O_LAND || o == O_LOR || o == O_LXOR ? (r % 2) * 6 : r + 3;
}
static long operand(int r, int o) {
  return o == O_LAND || o == O_LOR || o == O_LXOR ? (r % 3 != 1) * 5
                                                  : 2 * r + 5;
}
static long second_operand(int r) { return r + 2; }

#define ELEM_AT 16 /* the serial phase's element: 16 bytes in, aligned */

static void sync_own(MPI_Win win) {
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
}

/* An MPI_Accumulate of value (as type t) with op o into target's
 * element, flushed. */
static void accumulate_to(MPI_Win win, int t, int o, long value, int target) {
  if (o == O_NO_OP) /* MPI_Accumulate takes no MPI_NO_OP (MPI 4.1 12.3.4) */
    return;
  unsigned char in[16];
  store(t, in, value);
  int rc = MPI_Accumulate(in, 1, types[t], target, ELEM_AT, 1, types[t], ops[o],
                          win);
  CHECK(rc == MPI_SUCCESS, "Accumulate %s %s to %d: %s", type_name[t],
        op_name[o], target, mt_errstr(rc));
  MPI_Win_flush(target, win);
}

/* This rank's element (type t) must hold expect after what. */
static void check_element(const unsigned char *mem, int t, int o, long expect,
                          const char *what) {
  CHECK(load(t, mem + ELEM_AT) == expect,
        "%s %s: element %ld after %s, not %ld", type_name[t], op_name[o],
        load(t, mem + ELEM_AT), what, expect);
}

static void serial_case(MPI_Win win, unsigned char *mem, int t, int o) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  unsigned char in[16], out[16];
  store(t, mem + ELEM_AT, initial(rank, o));
  sync_own(win);
  store(t, in, operand(rank, o));
  memset(out, 0xa5, sizeof out);
  int rc = MPI_Fetch_and_op(in, out, types[t], right, ELEM_AT, ops[o], win);
  CHECK(rc == MPI_SUCCESS, "Fetch_and_op %s %s: %s", type_name[t], op_name[o],
        mt_errstr(rc));
  MPI_Win_flush(right, win);
  CHECK(load(t, out) == initial(right, o),
        "Fetch_and_op %s %s to %d fetched %ld, not %ld", type_name[t],
        op_name[o], right, load(t, out), initial(right, o));
  sync_own(win);
  long expect = reference(t, o, operand(left, o), initial(rank, o));
  check_element(mem, t, o, expect, "the left neighbour's fetch-and-op");
  accumulate_to(win, t, o, second_operand(rank), rank);
  MPI_Win_sync(win);
  expect = reference(t, o, second_operand(rank), expect);
  check_element(mem, t, o, expect, "an accumulate on itself");
  sync_own(win); /* every rank read its own before the neighbours write */
  accumulate_to(win, t, o, second_operand(rank), right);
  sync_own(win);
  expect = reference(t, o, second_operand(left), expect);
  check_element(mem, t, o, expect, "the left neighbour's accumulate");
  sync_own(win);
}

/* One MPI_Compare_and_swap of value for compare at target's element (type
 * t), flushed; the element fetched must be now. */
static void cas_to(MPI_Win win, int t, long value, long compare, int target,
                   long now) {
  unsigned char in[16], cmp[16], out[16];
  store(t, in, value);
  store(t, cmp, compare);
  int rc = MPI_Compare_and_swap(in, cmp, out, types[t], target, ELEM_AT, win);
  CHECK(rc == MPI_SUCCESS, "Compare_and_swap %s: %s", type_name[t],
        mt_errstr(rc));
  MPI_Win_flush(target, win);
  CHECK(load(t, out) == now, "Compare_and_swap %s on %d fetched %ld, not %ld",
        type_name[t], target, load(t, out), now);
}

/* Compare and swap of an integer type: a stale compare leaves the
 * element, a matching one swaps; on target (the neighbour or itself). */
static void cas_case(MPI_Win win, unsigned char *mem, int t, int target) {
  int from = target == rank ? rank : (rank + size - 1) % size;
  long now = target + 7;
  store(t, mem + ELEM_AT, rank + 7);
  sync_own(win);
  cas_to(win, t, rank + 40, now + 1, target, now); /* stale */
  sync_own(win);
  check_element(mem, t, O_REPLACE, rank + 7, "a stale compare and swap");
  sync_own(win);
  cas_to(win, t, rank + 40, now, target, now);
  sync_own(win);
  check_element(mem, t, O_REPLACE, from + 40, "a matching compare and swap");
  sync_own(win);
}

/* Concurrent phase: rank 0's words, byte displacements. */
#define C_TICKET 0 /* long, Fetch_and_op SUM 1 */
#define C_INT 8    /* int, Accumulate SUM rank + 1 */
#define C_PROD 16  /* unsigned long, Accumulate PROD of odd factors */
#define C_XOR 24   /* unsigned long, Fetch_and_op BXOR */
#define C_MAX 32   /* long, Accumulate MAX */
#define ROUNDS 1000

static unsigned long factor(int r, int i) {
  return 2ul * (unsigned long)(r * ROUNDS + i) + 3;
}
static unsigned long xor_value(int r, int i) {
  return ((unsigned long)(r + 1) << 40) ^ ((unsigned long)i * 2654435761ul);
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static void concurrent_phase(MPI_Win win, unsigned char *mem) {
  memset(mem, 0, 64);
  if (rank == 0) {
    unsigned long one = 1;
    memcpy(mem + C_PROD, &one, sizeof one);
  }
  sync_own(win);
  long *tickets = malloc(ROUNDS * sizeof(long));
  CHECK(tickets != NULL, "out of memory");
  for (int i = 0; i < ROUNDS; i++) {
    long one = 1, old = -1, top = (long)rank * ROUNDS + i;
    int add = rank + 1;
    unsigned long f = factor(rank, i), x = xor_value(rank, i), xold;
    CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, C_TICKET, MPI_SUM, win) ==
              MPI_SUCCESS,
          "Fetch_and_op ticket");
    CHECK(MPI_Accumulate(&add, 1, MPI_INT, 0, C_INT, 1, MPI_INT, MPI_SUM,
                         win) == MPI_SUCCESS,
          "Accumulate int");
    CHECK(MPI_Accumulate(&f, 1, MPI_UNSIGNED_LONG, 0, C_PROD, 1,
                         MPI_UNSIGNED_LONG, MPI_PROD, win) == MPI_SUCCESS,
          "Accumulate prod");
    CHECK(MPI_Fetch_and_op(&x, &xold, MPI_UNSIGNED_LONG, 0, C_XOR, MPI_BXOR,
                           win) == MPI_SUCCESS,
          "Fetch_and_op bxor");
    CHECK(MPI_Accumulate(&top, 1, MPI_LONG, 0, C_MAX, 1, MPI_LONG, MPI_MAX,
                         win) == MPI_SUCCESS,
          "Accumulate max");
    MPI_Win_flush(0, win);
    tickets[i] = old;
  }
  sync_own(win);
  long *all = rank == 0 ? malloc((size_t)size * ROUNDS * sizeof(long)) : NULL;
  CHECK(rank != 0 || all != NULL, "out of memory");
  MPI_Gather(tickets, ROUNDS, MPI_LONG, all, ROUNDS, MPI_LONG, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    long n = (long)size * ROUNDS;
    qsort(all, (size_t)n, sizeof(long), cmp_long);
    for (long k = 0; k < n; k++)
      CHECK(all[k] == k, "tickets: the %ld-th smallest fetched is %ld", k,
            all[k]);
    long ticket, max;
    int sum;
    unsigned long prod, xr, want_prod = 1, want_xor = 0;
    memcpy(&ticket, mem + C_TICKET, sizeof ticket);
    memcpy(&sum, mem + C_INT, sizeof sum);
    memcpy(&prod, mem + C_PROD, sizeof prod);
    memcpy(&xr, mem + C_XOR, sizeof xr);
    memcpy(&max, mem + C_MAX, sizeof max);
    for (int r = 0; r < size; r++)
      for (int i = 0; i < ROUNDS; i++) {
        want_prod *= factor(r, i);
        want_xor ^= xor_value(r, i);
      }
    CHECK(ticket == n, "ticket word %ld, not %ld", ticket, n);
    CHECK(sum == ROUNDS * size * (size + 1) / 2, "int sum %d, not %d", sum,
          ROUNDS * size * (size + 1) / 2);
    CHECK(prod == want_prod, "product %lu, not %lu", prod, want_prod);
    CHECK(xr == want_xor, "xor %lx, not %lx", xr, want_xor);
    CHECK(max == n - 1, "max %ld, not %ld", max, n - 1);
  }
  free(all);
  free(tickets);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  types[T_INT] = MPI_INT;
  types[T_LONG] = MPI_LONG;
  types[T_UCHAR] = MPI_UNSIGNED_CHAR;
  types[T_DOUBLE] = MPI_DOUBLE;
  types[T_INT64] = MPI_INT64_T;
  types[T_UINT16] = MPI_UINT16_T;
  MPI_Op predefined[NOPS] = {MPI_SUM,  MPI_PROD, MPI_MAX,     MPI_MIN,
                             MPI_LAND, MPI_LOR,  MPI_LXOR,    MPI_BAND,
                             MPI_BOR,  MPI_BXOR, MPI_REPLACE, MPI_NO_OP};
  memcpy(ops, predefined, sizeof ops);

  unsigned char *mem = NULL;
  MPI_Win win;
  int rc = MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  CHECK(rc == MPI_SUCCESS, "MPI_Win_allocate: %s", mt_errstr(rc));
  memset(mem, 0, 64);
  MPI_Win_lock_all(0, win);
  int cases = 0;
  for (int t = 0; t < NTYPES; t++)
    for (int o = 0; o < NOPS; o++)
      if (op_applies(t, o)) {
        serial_case(win, mem, t, o);
        cases++;
      }
  for (int t = 0; t < NTYPES; t++)
    if (t != T_DOUBLE) {
      cas_case(win, mem, t, (rank + 1) % size);
      cas_case(win, mem, t, rank);
    }
  concurrent_phase(win, mem);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  if (rank == 0)
    printf("rma_atomic_ops: %d ranks, %d (type, op) cases and the concurrent "
           "totals exact\n",
           size, cases);
  MPI_Finalize();
  return 0;
}
