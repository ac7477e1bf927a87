/* Ports, accept/connect and join between processes that share no
 * launcher (MPI-4.0 11.10).
 *
 *   dyn_ports server DIR NREMOTE   opens a port, writes its name to
 *                                  DIR/port, accepts on MPI_COMM_WORLD
 *   dyn_ports client DIR NREMOTE   reads DIR/port, connects
 *   dyn_ports pubserver SERVICE N  publishes its port as SERVICE, accepts;
 *                                  unpublishes, then SERVICE is unknown
 *   dyn_ports pubclient SERVICE N  looks SERVICE up (until published),
 *                                  connects
 *   dyn_ports join                 2 ranks: a TCP pair between them,
 *                                  MPI_Comm_join on each end
 *   dyn_ports bad                  bad input: connect to a closed port and
 *                                  to a malformed name, accept on a port not
 *                                  open here, close one twice: MPI_ERR_PORT
 *
 * Over each new intercommunicator: the remote size; from every rank to
 * every remote rank a small and a 1 MiB message, whose bytes and statuses
 * are checked; an Allreduce and a Bcast across the groups; a merge (the
 * accepting group first), whose ranks, an Allreduce and an Allgather are
 * checked; a disconnect. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpitest.h"

#define SMALL 100
#define LARGE (1u << 20)

static int wrank, wsize;

/* The seed of the message from rank `from` of group `side` to `to`. */
static unsigned seed_of(int side, int from, int to) {
  return 1000u * (unsigned)side + 37u * (unsigned)from + (unsigned)to;
}

/* Every local rank to every remote rank and back, small and large. */
static void exchange_all(MPI_Comm inter, int side) {
  int rsize;
  MPI_Comm_remote_size(inter, &rsize);
  unsigned char *out = mt_malloc(LARGE), *in = mt_malloc((size_t)rsize * LARGE);
  unsigned char *sout = mt_malloc(SMALL), *sin = mt_malloc((size_t)rsize * SMALL);
  MPI_Request *r = mt_malloc((size_t)rsize * 4 * sizeof *r);
  MPI_Status *st = mt_malloc((size_t)rsize * 4 * sizeof *st);
  int n = 0;
  for (int p = 0; p < rsize; p++) {
    MPI_Irecv(in + (size_t)p * LARGE, LARGE, MPI_BYTE, p, 7, inter, &r[n++]);
    MPI_Irecv(sin + (size_t)p * SMALL, SMALL, MPI_BYTE, p, 8, inter, &r[n++]);
  }
  for (int p = 0; p < rsize; p++) {
    /* One buffer per size, filled for each destination before its sends
     * complete: Ssend keeps the fill of the next from racing them. */
    mt_fill(out, LARGE, seed_of(side, wrank, p));
    mt_fill(sout, SMALL, seed_of(side, wrank, p) + 1);
    CHECK(MPI_Ssend(out, LARGE, MPI_BYTE, p, 7, inter) == MPI_SUCCESS,
          "large send to remote %d", p);
    CHECK(MPI_Ssend(sout, SMALL, MPI_BYTE, p, 8, inter) == MPI_SUCCESS,
          "small send to remote %d", p);
  }
  CHECK(MPI_Waitall(n, r, st) == MPI_SUCCESS, "receives");
  for (int p = 0; p < rsize; p++) {
    size_t bad = mt_verify(in + (size_t)p * LARGE, LARGE, seed_of(1 - side, p, wrank));
    CHECK(bad == MT_OK, "large message from remote %d: byte %zu wrong", p, bad);
    bad = mt_verify(sin + (size_t)p * SMALL, SMALL, seed_of(1 - side, p, wrank) + 1);
    CHECK(bad == MT_OK, "small message from remote %d: byte %zu wrong", p, bad);
    CHECK(st[2 * p].MPI_SOURCE == p && st[2 * p].MPI_TAG == 7, "large status");
    CHECK(mt_status_count(&st[2 * p], MPI_BYTE) == (int)LARGE, "large count");
    CHECK(st[2 * p + 1].MPI_SOURCE == p && mt_status_count(&st[2 * p + 1], MPI_BYTE) == SMALL,
          "small status");
  }
  free(out); free(in); free(sout); free(sin); free(r); free(st);
}

/* Collectives across the groups, a merge, and the end. */
static void check_inter(MPI_Comm inter, int side, int nremote) {
  int flag = 0, rsize = -1, lsize = -1, lrank = -1;
  MPI_Comm_test_inter(inter, &flag);
  CHECK(flag, "not an intercommunicator");
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_rank(inter, &lrank);
  CHECK(rsize == nremote, "remote size %d, expected %d", rsize, nremote);
  CHECK(lsize == wsize && lrank == wrank, "local group %d/%d", lrank, lsize);
  exchange_all(inter, side);

  /* Allreduce over an intercommunicator: each group gets the other's sum. */
  int mine = 100 * side + wrank + 1, got = -1;
  MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, inter);
  int want = 0;
  for (int r = 0; r < nremote; r++)
    want += 100 * (1 - side) + r + 1;
  CHECK(got == want, "allreduce across: %d, expected %d", got, want);

  /* Bcast from the accepting group's rank 0 to the connecting group. */
  int word = side == 0 ? 4242 : -1;
  if (side == 0)
    MPI_Bcast(&word, 1, MPI_INT, wrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
  else
    MPI_Bcast(&word, 1, MPI_INT, 0, inter);
  CHECK(word == 4242, "bcast across: %d", word);

  /* Merge: both pass high 0; the accepting group goes first. */
  MPI_Comm merged;
  CHECK(MPI_Intercomm_merge(inter, 0, &merged) == MPI_SUCCESS, "merge");
  int msize, mrank;
  MPI_Comm_size(merged, &msize);
  MPI_Comm_rank(merged, &mrank);
  int n0 = side == 0 ? wsize : nremote;
  CHECK(msize == wsize + nremote, "merged size %d", msize);
  CHECK(mrank == (side == 0 ? wrank : n0 + wrank), "merged rank %d", mrank);
  /* The remote group's members, as ranks of the merged communicator. */
  MPI_Group rgroup, mgroup;
  MPI_Comm_remote_group(inter, &rgroup);
  MPI_Comm_group(merged, &mgroup);
  int *rranks = mt_malloc((size_t)nremote * sizeof *rranks);
  int *mranks = mt_malloc((size_t)nremote * sizeof *mranks);
  for (int r = 0; r < nremote; r++)
    rranks[r] = r;
  MPI_Group_translate_ranks(rgroup, nremote, rranks, mgroup, mranks);
  for (int r = 0; r < nremote; r++)
    CHECK(mranks[r] == (side == 0 ? n0 + r : r), "remote %d is merged rank %d", r,
          mranks[r]);
  free(rranks);
  free(mranks);
  MPI_Group_free(&rgroup);
  MPI_Group_free(&mgroup);
  int *all = mt_malloc((size_t)msize * sizeof *all);
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, merged);
  for (int r = 0; r < msize; r++) {
    int expect = r < n0 ? r + 1 : 100 + (r - n0) + 1;
    CHECK(all[r] == expect, "merged allgather[%d] = %d, expected %d", r, all[r], expect);
  }
  int total = 0, local_sum = 0;
  for (int r = 0; r < wsize; r++)
    local_sum += 100 * side + r + 1;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, merged);
  CHECK(total == local_sum + want, "merged allreduce %d, expected %d", total,
        local_sum + want);
  free(all);
  MPI_Comm_free(&merged);
  CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL,
        "disconnect");
}

static void server(const char *dir, int nremote) {
  char port[MPI_MAX_PORT_NAME] = "", path[512], tmp[512];
  if (wrank == 0) {
    CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open port");
    snprintf(tmp, sizeof tmp, "%s/port.tmp", dir);
    snprintf(path, sizeof path, "%s/port", dir);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot write %s", tmp);
    fprintf(f, "%s\n", port);
    fclose(f);
    CHECK(rename(tmp, path) == 0, "rename to %s", path);
  }
  MPI_Comm inter;
  CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS,
        "accept");
  check_inter(inter, 0, nremote);
  if (wrank == 0) {
    CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Close_port(port);
    CHECK(mt_class(rc) == MPI_ERR_PORT, "second close: %s", mt_errstr(rc));
  }
}

static void client(const char *dir, int nremote) {
  char port[MPI_MAX_PORT_NAME] = "", path[512];
  if (wrank == 0) {
    snprintf(path, sizeof path, "%s/port", dir);
    FILE *f = NULL;
    while ((f = fopen(path, "r")) == NULL)
      usleep(10000); /* the server writes it when its port is open */
    CHECK(fgets(port, sizeof port, f) != NULL, "empty %s", path);
    fclose(f);
    port[strcspn(port, "\n")] = '\0';
  }
  MPI_Comm inter;
  CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS,
        "connect");
  check_inter(inter, 1, nremote);
}

static void pub_server(const char *service, int nremote) {
  char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME];
  if (wrank == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open port");
    CHECK(MPI_Publish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS, "publish");
    int rc = MPI_Publish_name(service, MPI_INFO_NULL, port);
    CHECK(mt_class(rc) == MPI_ERR_SERVICE, "second publish: %s", mt_errstr(rc));
  }
  MPI_Comm inter;
  CHECK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS,
        "accept");
  check_inter(inter, 0, nremote);
  if (wrank == 0) {
    CHECK(MPI_Unpublish_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
    int rc = MPI_Unpublish_name(service, MPI_INFO_NULL, port);
    CHECK(mt_class(rc) == MPI_ERR_SERVICE, "second unpublish: %s", mt_errstr(rc));
    rc = MPI_Lookup_name(service, MPI_INFO_NULL, found);
    CHECK(mt_class(rc) == MPI_ERR_NAME, "lookup after unpublish: %s", mt_errstr(rc));
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    CHECK(len > 0 && strstr(text, "name") != NULL, "error string: %s", text);
    CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
  }
}

static void pub_client(const char *service, int nremote) {
  char port[MPI_MAX_PORT_NAME] = "";
  if (wrank == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc;
    /* Unknown until the other job publishes it. */
    while ((rc = MPI_Lookup_name(service, MPI_INFO_NULL, port)) != MPI_SUCCESS) {
      CHECK(mt_class(rc) == MPI_ERR_NAME, "lookup: %s", mt_errstr(rc));
      usleep(10000);
    }
  }
  MPI_Comm inter;
  CHECK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter) == MPI_SUCCESS,
        "connect");
  check_inter(inter, 1, nremote);
}

/* Rank 0 listens on loopback, rank 1 connects; each joins over its end. */
static void join(void) {
  CHECK(wsize == 2, "join runs on 2 ranks");
  int fd = -1;
  struct sockaddr_in a = {.sin_family = AF_INET};
  socklen_t alen = sizeof a;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (wrank == 0) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(l >= 0 && bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0,
          "listen");
    getsockname(l, (struct sockaddr *)&a, &alen);
    /* Ssend: the port must have arrived before this rank blocks in
     * accept (over tcp a plain send may still wait for progress here). */
    MPI_Ssend(&a.sin_port, sizeof a.sin_port, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    fd = accept(l, NULL, NULL);
    close(l);
  } else {
    MPI_Recv(&a.sin_port, sizeof a.sin_port, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0, "connect");
  }
  CHECK(fd >= 0, "no socket");
  MPI_Comm inter;
  CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS, "join");
  int rsize = 0, lsize = 0;
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_size(inter, &lsize);
  CHECK(rsize == 1 && lsize == 1, "join sizes %d/%d", lsize, rsize);
  /* The user's socket is theirs again, quiescent: a byte goes through. */
  char b = (char)('a' + wrank), got = 0;
  CHECK(write(fd, &b, 1) == 1 && read(fd, &got, 1) == 1, "socket after join");
  CHECK(got == 'a' + 1 - wrank, "socket byte %c", got);
  close(fd);
  unsigned char out[SMALL], in[SMALL];
  mt_fill(out, SMALL, 50u + (unsigned)wrank);
  MPI_Status st;
  MPI_Sendrecv(out, SMALL, MPI_BYTE, 0, 3, in, SMALL, MPI_BYTE, 0, 3, inter, &st);
  size_t bad = mt_verify(in, SMALL, 50u + (unsigned)(1 - wrank));
  CHECK(bad == MT_OK, "joined message byte %zu wrong", bad);
  CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 3, "joined status");
  MPI_Comm merged;
  /* Rank 1 asks to go first (high 0 against 1). */
  CHECK(MPI_Intercomm_merge(inter, wrank == 0, &merged) == MPI_SUCCESS, "merge");
  int mrank = -1, sum = 0, mine = wrank + 1;
  MPI_Comm_rank(merged, &mrank);
  CHECK(mrank == 1 - wrank, "merged rank %d", mrank);
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, merged);
  CHECK(sum == 3, "merged allreduce %d", sum);
  MPI_Comm_free(&merged);
  CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
}

static void bad_input(void) {
  char port[MPI_MAX_PORT_NAME];
  MPI_Comm inter = MPI_COMM_NULL;
  int len = 0;
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open port");
  CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
  int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
  CHECK(mt_class(rc) == MPI_ERR_PORT, "connect to a closed port: %s", mt_errstr(rc));
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_string(rc, text, &len);
  CHECK(len > 0 && strstr(text, "port") != NULL, "error string: %s", text);
  rc = MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
  CHECK(mt_class(rc) == MPI_ERR_PORT, "malformed port: %s", mt_errstr(rc));
  rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
  CHECK(mt_class(rc) == MPI_ERR_PORT, "accept on a closed port: %s", mt_errstr(rc));
  rc = MPI_Close_port(port);
  CHECK(mt_class(rc) == MPI_ERR_PORT, "close twice: %s", mt_errstr(rc));
  rc = MPI_Comm_join(-1, &inter);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "join on -1: %s", mt_errstr(rc));
  CHECK(inter == MPI_COMM_NULL, "a failed call gave a communicator");
  /* Left open: MPI_Finalize closes it (sanitizer builds see no leak). */
  CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open port");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(argc >= 2, "usage: dyn_ports server|client DIR NREMOTE | join | bad");
  if (strcmp(argv[1], "server") == 0 && argc == 4)
    server(argv[2], atoi(argv[3]));
  else if (strcmp(argv[1], "client") == 0 && argc == 4)
    client(argv[2], atoi(argv[3]));
  else if (strcmp(argv[1], "pubserver") == 0 && argc == 4)
    pub_server(argv[2], atoi(argv[3]));
  else if (strcmp(argv[1], "pubclient") == 0 && argc == 4)
    pub_client(argv[2], atoi(argv[3]));
  else if (strcmp(argv[1], "join") == 0)
    join();
  else if (strcmp(argv[1], "bad") == 0)
    bad_input();
  else
    CHECK(0, "unknown mode %s", argv[1]);
  MPI_Finalize();
  return 0;
}
