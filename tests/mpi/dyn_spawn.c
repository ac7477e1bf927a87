/* MPI_Comm_spawn and _spawn_multiple under hcmpirun and Hydra (MPI-4.0
 * 11.8).
 *
 *   dyn_spawn parent      every rank of the job spawns 2 children of this
 *                         program (MPI_Comm_spawn), then 1 + 2 more
 *                         (MPI_Comm_spawn_multiple, 2 commands);
 *                         a missing program gives MPI_ERR_SPAWN
 *   dyn_spawn child N     what the parents start (N: their count)
 *   dyn_spawn nolauncher  a singleton, without launcher: MPI_ERR_SPAWN
 *   dyn_spawn selfspawn U every rank spawns 2 children alone (MPI_COMM_SELF),
 *                         by the program's bare name and the "path" info
 *                         key, in "wdir" /, all ranks at once: hcmpirun serves requests that
 *                         arrive together, each parent gets its own pair
 *                         (their ranks, its rank, checked over the
 *                         intercommunicator); MPI_UNIVERSE_SIZE is U in
 *                         parents and children (hcmpirun -usize U), unset
 *                         for U 0 (no -usize, as under Hydra)
 *   dyn_spawn selfchild U W what selfspawn starts; its parent
 *                         communicator's default name is MPI_COMM_PARENT,
 *                         and it runs in directory W
 *   dyn_spawn manyarg O   first a request whose arguments are too long for
 *                         the launcher (40 of 8 KiB): MPI_ERR_ARG at every
 *                         rank, no communicator, nothing started; then 2
 *                         children with 256 arguments of 8 characters
 *                         (O 1: with spaces, '=', ';', '%', newlines and
 *                         non-ASCII bytes in them; O 0: letters and
 *                         digits, for Hydra's line-based spawn)
 *   dyn_spawn manychild O A... what manyarg starts: checks every argument
 *                         against the expected one and tells rank 0 of
 *                         the parents its count and the mismatches
 *
 * Over each parent-child intercommunicator: sizes; from every parent to
 * every child and back a small and a 1 MiB message, bytes and statuses
 * checked; an Allreduce across; a merge (parents first), its ranks and an
 * Allgather checked; a disconnect.  MPI_Comm_get_parent is MPI_COMM_NULL
 * in the parents.  The job ends (the launcher waits for every child), so no
 * child is left running. */
#include "dyn_family.h"
#include <limits.h>
#include <unistd.h>

static int wrank, wsize;

/* The checks both sides run; nparents and nchildren are the group sizes. */
static void check_family(MPI_Comm inter, int is_parent, int nparents,
                         int nchildren) {
  dyn_check_family(inter, is_parent, nparents, nchildren);
  CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
}

static void parent(const char *self) {
  MPI_Comm inter, none;
  char nstr[16];
  snprintf(nstr, sizeof nstr, "%d", wsize);
  char *args[] = {"child", nstr, NULL};
  int codes[3] = {-1, -1, -1};
  MPI_Comm_get_parent(&none);
  CHECK(none == MPI_COMM_NULL, "a parent has a parent");
  CHECK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       codes) == MPI_SUCCESS,
        "spawn");
  CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "error codes %d %d",
        codes[0], codes[1]);
  check_family(inter, 1, wsize, 2);

  /* Two commands, 1 and 2 processes: one world of 3 children. */
  char *cmds[] = {(char *)self, (char *)self};
  char **argvs[] = {args, args};
  int np[] = {1, 2};
  MPI_Info infos[] = {MPI_INFO_NULL, MPI_INFO_NULL};
  CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD,
                                &inter, codes) == MPI_SUCCESS,
        "spawn_multiple");
  CHECK(codes[0] == MPI_SUCCESS && codes[2] == MPI_SUCCESS, "error codes");
  check_family(inter, 1, wsize, 3);

  /* A program that does not exist: MPI_ERR_SPAWN, every code says so. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  codes[0] = codes[1] = -1;
  inter = MPI_COMM_WORLD;
  int rc = MPI_Comm_spawn("/nonexistent/hcmpi-no-such-program", MPI_ARGV_NULL, 2,
                          MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
  CHECK(mt_class(rc) == MPI_ERR_SPAWN, "missing program: %s", mt_errstr(rc));
  CHECK(inter == MPI_COMM_NULL, "a failed spawn gave a communicator");
  CHECK(codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN, "codes %d %d",
        codes[0], codes[1]);
}

static void child(int nparents) {
  MPI_Comm p, again;
  CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL, "no parent");
  MPI_Comm_get_parent(&again);
  CHECK(again == p, "MPI_Comm_get_parent gave another handle");
  check_family(p, 0, nparents, wsize);
  MPI_Comm_get_parent(&again);
  CHECK(again == MPI_COMM_NULL, "parent after disconnect");
}

static void no_launcher(void) {
  MPI_Comm inter = MPI_COMM_WORLD;
  int codes[1] = {-1};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                          MPI_COMM_WORLD, &inter, codes);
  CHECK(mt_class(rc) == MPI_ERR_SPAWN, "spawn without launcher: %s", mt_errstr(rc));
  CHECK(inter == MPI_COMM_NULL && codes[0] == MPI_ERR_SPAWN, "outputs");
}

/* MPI_UNIVERSE_SIZE as set by the launcher; want 0: unset. */
static void check_universe(int want) {
  int *v = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
  if (want == 0)
    CHECK(!flag, "MPI_UNIVERSE_SIZE set (%d) without -usize", *v);
  else
    CHECK(flag && *v == want, "MPI_UNIVERSE_SIZE: flag %d, %d, expected %d",
          flag, flag ? *v : -1, want);
}

static void self_spawn(const char *self, const char *ustr) {
  MPI_Comm inter;
  /* The children start in "wdir", not here; they say where they are. */
  char wdir[PATH_MAX];
  CHECK(realpath("/", wdir) != NULL, "realpath /");
  char *args[] = {"selfchild", (char *)ustr, wdir, NULL};
  int codes[2] = {-1, -1};
  check_universe(atoi(ustr));
  /* The program by its bare name, found through the "path" info key (its
   * first directory has no such program). */
  char dirs[4096];
  const char *slash = strrchr(self, '/');
  CHECK(slash != NULL, "argv[0] %s has no directory", self);
  snprintf(dirs, sizeof dirs, "/nonexistent-hcmpi-dir:%.*s",
           (int)(slash - self), self);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "path", dirs);
  MPI_Info_set(info, "wdir", wdir);
  CHECK(MPI_Comm_spawn(slash + 1, args, 2, info, 0, MPI_COMM_SELF, &inter,
                       codes) == MPI_SUCCESS,
        "spawn on MPI_COMM_SELF");
  MPI_Info_free(&info);
  CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "codes %d %d",
        codes[0], codes[1]);
  int rsize = -1;
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == 2, "remote size %d", rsize);
  for (int c = 0; c < 2; c++) {
    int got[2] = {-1, -1};
    MPI_Status st;
    MPI_Send(&wrank, 1, MPI_INT, c, 5, inter);
    MPI_Recv(got, 2, MPI_INT, c, 6, inter, &st);
    CHECK(st.MPI_SOURCE == c && got[0] == c && got[1] == wrank,
          "child %d answered (%d, %d) from %d", c, got[0], got[1],
          st.MPI_SOURCE);
  }
  CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
  MPI_Barrier(MPI_COMM_WORLD);
}

static void self_child(int universe, const char *wdir) {
  MPI_Comm p;
  char here[PATH_MAX];
  CHECK(getcwd(here, sizeof here) != NULL && strcmp(here, wdir) == 0,
        "a child runs in %s, not in wdir %s", here, wdir);
  int from = -1, rsize = -1;
  CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL,
        "no parent");
  CHECK(wsize == 2, "child world size %d", wsize);
  MPI_Comm_remote_size(p, &rsize);
  CHECK(rsize == 1, "a self-spawned child sees %d parents", rsize);
  char name[MPI_MAX_OBJECT_NAME];
  int nlen = -1;
  MPI_Comm_get_name(p, name, &nlen);
  CHECK(nlen == 15 && strcmp(name, "MPI_COMM_PARENT") == 0,
        "the parent's default name is \"%s\" (%d)", name, nlen);
  check_universe(universe);
  MPI_Recv(&from, 1, MPI_INT, 0, 5, p, MPI_STATUS_IGNORE);
  int reply[2] = {wrank, from};
  MPI_Send(reply, 2, MPI_INT, 0, 6, p);
  CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS, "disconnect");
}

#define MANY_ARGS 256
#define MANY_LEN 8
#define HUGE_ARGS 40
#define HUGE_LEN 8192

/* Argument i of manyarg: MANY_LEN characters, i itself in the first four
 * (so no two are alike); odd: the rest are bytes a command line or a PMI
 * line would mangle. */
static void many_arg(int i, int odd, char out[MANY_LEN + 1]) {
  static const char plain[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static const char strange[] = " =;%\n\t\"'\\$&|\xc3" "\xa9";
  const char *set = odd ? strange : plain;
  unsigned n = (unsigned)strlen(set);
  snprintf(out, MANY_LEN + 1, "%c%03u", plain[i % 62], (unsigned)i % 1000u);
  for (unsigned k = 4; k < MANY_LEN; k++)
    out[k] = set[((unsigned)i * 7u + k * 3u) % n];
  out[MANY_LEN] = '\0';
}

static void many_spawn(const char *self, int odd) {
  MPI_Comm inter = MPI_COMM_WORLD;
  int codes[2] = {-1, -1};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Too long for any launcher: refused at every rank, not a hang. */
  char **huge = mt_malloc((HUGE_ARGS + 2) * sizeof *huge);
  huge[0] = "manychild";
  for (int i = 1; i <= HUGE_ARGS; i++) {
    huge[i] = mt_malloc(HUGE_LEN + 1);
    memset(huge[i], 'x', HUGE_LEN);
    huge[i][HUGE_LEN] = '\0';
  }
  huge[HUGE_ARGS + 1] = NULL;
  int rc = MPI_Comm_spawn(self, huge, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                          &inter, codes);
  CHECK(mt_class(rc) == MPI_ERR_ARG, "%d KiB of arguments: %s",
        HUGE_ARGS * HUGE_LEN / 1024, mt_errstr(rc));
  CHECK(inter == MPI_COMM_NULL, "a refused spawn gave a communicator");
  for (int i = 1; i <= HUGE_ARGS; i++)
    free(huge[i]);
  free(huge);

  /* 256 arguments of 8 characters, as MPICH's spawnmanyarg sends. */
  char(*vals)[MANY_LEN + 1] = mt_malloc(MANY_ARGS * sizeof *vals);
  char **args = mt_malloc((MANY_ARGS + 3) * sizeof *args);
  args[0] = "manychild";
  args[1] = odd ? "1" : "0";
  for (int i = 0; i < MANY_ARGS; i++) {
    many_arg(i, odd, vals[i]);
    args[i + 2] = vals[i];
  }
  args[MANY_ARGS + 2] = NULL;
  CHECK(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       codes) == MPI_SUCCESS,
        "spawn with %d arguments", MANY_ARGS);
  CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "codes %d %d",
        codes[0], codes[1]);
  for (int c = 0; wrank == 0 && c < 2; c++) {
    int got[2] = {-1, -1};
    MPI_Status st;
    MPI_Recv(got, 2, MPI_INT, c, 7, inter, &st);
    CHECK(st.MPI_SOURCE == c && got[0] == MANY_ARGS && got[1] == 0,
          "child %d got %d arguments, %d of them wrong", c, got[0], got[1]);
  }
  CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS, "disconnect");
  free(args);
  free(vals);
}

static void many_child(int argc, char **argv) {
  MPI_Comm p;
  int odd = atoi(argv[2]), report[2] = {argc - 3, 0};
  char want[MANY_LEN + 1];
  CHECK(MPI_Comm_get_parent(&p) == MPI_SUCCESS && p != MPI_COMM_NULL,
        "no parent");
  for (int i = 0; i < MANY_ARGS; i++) {
    many_arg(i, odd, want);
    if (i + 3 >= argc || strcmp(argv[i + 3], want) != 0) {
      if (report[1]++ < 3)
        fprintf(stderr, "manychild: argument %d is \"%s\", not \"%s\"\n", i,
                i + 3 < argc ? argv[i + 3] : "(missing)", want);
    }
  }
  MPI_Send(report, 2, MPI_INT, 0, 7, p);
  CHECK(MPI_Comm_disconnect(&p) == MPI_SUCCESS, "disconnect");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(argc >= 2, "usage: dyn_spawn parent | child N | nolauncher | "
                   "selfspawn U | selfchild U W | manyarg O | "
                   "manychild O A...");
  if (strcmp(argv[1], "parent") == 0)
    parent(argv[0]);
  else if (strcmp(argv[1], "child") == 0 && argc == 3)
    child(atoi(argv[2]));
  else if (strcmp(argv[1], "nolauncher") == 0)
    no_launcher();
  else if (strcmp(argv[1], "selfspawn") == 0 && argc == 3)
    self_spawn(argv[0], argv[2]);
  else if (strcmp(argv[1], "selfchild") == 0 && argc == 4)
    self_child(atoi(argv[2]), argv[3]);
  else if (strcmp(argv[1], "manyarg") == 0 && argc == 3)
    many_spawn(argv[0], atoi(argv[2]));
  else if (strcmp(argv[1], "manychild") == 0 && argc >= 3)
    many_child(argc, argv);
  else
    CHECK(0, "unknown mode %s", argv[1]);
  MPI_Finalize();
  if (strcmp(argv[1], "parent") == 0)
    printf("dyn_spawn: parent %d of %d OK\n", wrank, wsize);
  return 0;
}
