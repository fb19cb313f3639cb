/*
 * test_cli_law.c - `fricl law` as a black box, one scenario per CTest case:
 *   list       --list names every law with its parameters and defaults
 *   lugre      spec 7 table through NPY files: forces and --dstate-out
 *   maxwell    spec 8 call sequence as a (6, 1) trajectory, then the same
 *              split in two runs whose state file carries the state over
 *              (written back atomically): identical forces and state
 *   gms        k_i/b_i/nu_i parameters, spec 9 rows, f32 output dtype
 *   errors     unknown law / parameter, missing required parameter,
 *              invalid value (exit 2, message naming it, no output file),
 *              a state file with the wrong shape (left untouched), an
 *              explicit NaN parameter (not finite, not "missing")
 *   same_file  outputs naming another output or an input (also through
 *              a symbolic link or another spelling) refused, nothing
 *              written; the in-place state update still allowed
 * Usage: test_cli_law SCENARIO FRICL TMPDIR
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npy.h"

static int failures;
static const char *g_cli, *g_dir;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

/* g_dir/name; the strings live until free_paths at exit (argument lists
 * keep them). */
static char *g_paths[512];
static int g_npaths;

static char *path(const char *name) {
  char *buf = malloc(strlen(g_dir) + strlen(name) + 2);
  if (buf)
    sprintf(buf, "%s/%s", g_dir, name);
  if (buf && g_npaths < 512)
    g_paths[g_npaths++] = buf;
  return buf;
}

static void free_paths(void) {
  while (g_npaths > 0)
    free(g_paths[--g_npaths]);
}

/* Run the CLI with args (NULL-terminated, without argv[0]); stdout and
 * stderr go to files whose contents are returned (static). */
static int run(const char *const *args, char **out, char **err) {
  static char obuf[65536], ebuf[65536];
  const char *of = path("stdout.txt"), *ef = path("stderr.txt");
  char ofc[1024], efc[1024];
  snprintf(ofc, sizeof ofc, "%s", of);
  snprintf(efc, sizeof efc, "%s", ef);
  const pid_t pid = fork();
  if (pid == 0) {
    if (!freopen(ofc, "w", stdout) || !freopen(efc, "w", stderr))
      _exit(127);
    const char *argv[64] = {g_cli};
    int i = 0;
    for (; args[i] && i < 62; ++i)
      argv[i + 1] = args[i];
    argv[i + 1] = NULL;
    execv(g_cli, (char *const *)argv);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  FILE *f = fopen(ofc, "r");
  size_t n = f ? fread(obuf, 1, sizeof obuf - 1, f) : 0;
  obuf[n] = '\0';
  if (f)
    fclose(f);
  f = fopen(efc, "r");
  n = f ? fread(ebuf, 1, sizeof ebuf - 1, f) : 0;
  ebuf[n] = '\0';
  if (f)
    fclose(f);
  if (out)
    *out = obuf;
  if (err)
    *err = ebuf;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void save(const char *name, int ndim, const size_t *shape,
                 const double *data) {
  FILE *f = fopen(path(name), "wb");
  npy_error e;
  CHECK(f && npy_write_array(f, NPY_F8, ndim, shape, data, &e) == NPY_OK,
        "writing %s", name);
  if (f)
    fclose(f);
}

static npy_array load(const char *name) {
  npy_array a;
  npy_error e;
  memset(&a, 0, sizeof a);
  CHECK(npy_read_file(path(name), 0, &a, &e) == NPY_OK, "reading %s: %s", name,
        e.msg);
  return a;
}

static int exists(const char *name) {
  struct stat st;
  return stat(path(name), &st) == 0;
}

static const char *const LUGRE[] = {"--param", "static_coefficient=0.5",
                                    "--param", "coulomb_coefficient=0.3",
                                    "--param", "stribeck_velocity=0.01",
                                    "--param", "stiffness=1e4",
                                    "--param", "damping=100",
                                    "--param", "viscous_damping=0.4",
                                    "--param", "shape_parameter=2",
                                    "--param", "normal=10"};

static void t_list(void) {
  char *out, *err;
  const char *args[] = {"law", "--list", NULL};
  CHECK(run(args, &out, &err) == 0, "--list: %s", err);
  const char *needles[] = {
      "exudyn_stribeck", "expVel", "default 0.001", "isdf", "v0",
      "default 0.1",     "lugre",  "gms",           "nu_i", "stribeck_odd",
      "required"};
  for (size_t i = 0; i < sizeof needles / sizeof needles[0]; ++i)
    CHECK(strstr(out, needles[i]) != NULL, "--list lacks %s", needles[i]);
}

static void t_lugre(void) {
  const double v[4] = {0.01, -0.01, 0, 0.02}, z[4] = {1e-4, 1e-4, 2e-4, 0};
  const size_t n = 4;
  save("v.npy", 1, &n, v);
  save("z.npy", 1, &n, z);
  const char *args[40] = {"law", "lugre"};
  int k = 2;
  for (size_t i = 0; i < sizeof LUGRE / sizeof LUGRE[0]; ++i)
    args[k++] = LUGRE[i];
  const char *tail[] = {"--state",      path("z.npy"),  "--in",
                        path("v.npy"),  "--out",        path("f.npy"),
                        "--dstate-out", path("dz.npy"), NULL};
  for (int i = 0; tail[i]; ++i)
    args[k++] = tail[i];
  args[k] = NULL;
  char *err;
  CHECK(run(args, NULL, &err) == 0, "lugre: %s", err);
  npy_array f = load("f.npy"), d = load("dz.npy");
  const double F[4] = {1.754, -0.254, 2.0, 2.008};
  const double D[4] = {0.0075, -0.0125, 0, 0.02};
  CHECK(f.info.count == 4 && d.info.ndim == 2 && d.info.shape[1] == 1,
        "shapes");
  for (int i = 0; i < 4 && f.data && d.data; ++i) {
    CHECK(fabs(((double *)f.data)[i] - F[i]) < 1e-13, "F[%d]", i);
    CHECK(fabs(((double *)d.data)[i] - D[i]) < 1e-16, "dz[%d]", i);
  }
  npy_array_free(&f);
  npy_array_free(&d);
  /* The state is not advanced without --integrator: file unchanged. */
  npy_array zs = load("z.npy");
  CHECK(zs.data && memcmp(zs.data, z, sizeof z) == 0, "state untouched");
  npy_array_free(&zs);
  /* With --integrator exp and a (3, 4) trajectory the state advances. */
  double vt[12];
  for (int i = 0; i < 12; ++i)
    vt[i] = v[i % 4];
  const size_t sh[2] = {3, 4};
  save("vt.npy", 2, sh, vt);
  k = 2 + (int)(sizeof LUGRE / sizeof LUGRE[0]);
  const char *more[] = {
      "--state",     path("z.npy"),  "--in", path("vt.npy"), "--out",
      path("f.npy"), "--integrator", "exp",  "--h",          "1",
      NULL};
  for (int i = 0; more[i]; ++i)
    args[k++] = more[i];
  args[k] = NULL;
  CHECK(run(args, NULL, &err) == 0, "lugre step: %s", err);
  zs = load("z.npy");
  f = load("f.npy");
  CHECK(f.info.ndim == 2 && f.info.shape[0] == 3, "trajectory force shape");
  CHECK(zs.data && fabs(((double *)zs.data)[0] - 4e-4) < 1e-12,
        "z advanced to steady state: %g", zs.data ? ((double *)zs.data)[0] : 0);
  npy_array_free(&zs);
  npy_array_free(&f);
}

static void t_maxwell(void) {
  const double x[6] = {0.01, 0.02, 0.015, -0.02, -0.02, 0.0};
  const double F[6] = {10, 15, 10, -15, -15, 5};
  const size_t sh[2] = {6, 1}, sh3[2] = {3, 1}, sst[2] = {1, 2};
  save("x.npy", 2, sh, x);
  save("x1.npy", 2, sh3, x);
  save("x2.npy", 2, sh3, x + 3);
  const double zero[2] = {0, 0};
  save("s.npy", 2, sst, zero);
  save("s2.npy", 2, sst, zero);
  const char *base[] = {"law",     "maxwell",
                        "--param", "stiffness=1000",
                        "--param", "friction_coefficient=0.15",
                        "--param", "N=100"};
  const char *args[20];
  int k = 0;
  for (size_t i = 0; i < 8; ++i)
    args[k++] = base[i];
  const char *a1[] = {"--state", path("s.npy"), "--in", path("x.npy"),
                      "--out",   path("f.npy"), NULL};
  for (int i = 0; a1[i]; ++i)
    args[k + i] = a1[i];
  args[k + 6] = NULL;
  char *err;
  CHECK(run(args, NULL, &err) == 0, "maxwell: %s", err);
  npy_array f = load("f.npy");
  for (int i = 0; i < 6 && f.data; ++i)
    CHECK(fabs(((double *)f.data)[i] - F[i]) < 1e-12, "F[%d] = %g", i,
          ((double *)f.data)[i]);
  npy_array s = load("s.npy");
  /* Two runs of 3 samples with the state file in between. */
  const char *a2[] = {"--state", path("s2.npy"), "--in", path("x1.npy"),
                      "--out",   path("f1.npy"), NULL};
  for (int i = 0; a2[i]; ++i)
    args[k + i] = a2[i];
  CHECK(run(args, NULL, &err) == 0, "maxwell part 1: %s", err);
  args[k + 3] = path("x2.npy");
  args[k + 5] = path("f2.npy");
  CHECK(run(args, NULL, &err) == 0, "maxwell part 2: %s", err);
  npy_array f1 = load("f1.npy"), f2 = load("f2.npy"), s2 = load("s2.npy");
  CHECK(f.data && f1.data && f2.data &&
            memcmp(f1.data, f.data, 3 * sizeof(double)) == 0 &&
            memcmp(f2.data, (double *)f.data + 3, 3 * sizeof(double)) == 0,
        "split run differs");
  CHECK(s.data && s2.data && memcmp(s.data, s2.data, 2 * sizeof(double)) == 0,
        "state differs");
  npy_array_free(&f);
  npy_array_free(&s);
  npy_array_free(&f1);
  npy_array_free(&f2);
  npy_array_free(&s2);
}

static void t_gms(void) {
  const double v[2] = {0.01, 0.01}, z[4] = {1e-4, 2e-4, 5e-4, -5e-4};
  const size_t n = 2, sz[2] = {2, 2};
  save("v.npy", 1, &n, v);
  save("z.npy", 2, sz, z);
  const char *args[] = {"law",         "gms",
                        "--param",     "static_coefficient=0.5",
                        "--param",     "coulomb_coefficient=0.3",
                        "--param",     "attraction_coefficient=20",
                        "--param",     "stiffness=1e4",
                        "--param",     "viscous_damping=0.1",
                        "--param",     "stribeck_velocity=0.01",
                        "--param",     "shape_parameter=2",
                        "--param",     "N=10",
                        "--param",     "k_1=4e3",
                        "--param",     "b_1=10",
                        "--param",     "nu_1=0.3",
                        "--param",     "k_2=6e3",
                        "--param",     "b_2=20",
                        "--param",     "nu_2=0.7",
                        "--precision", "f32",
                        "--state",     path("z.npy"),
                        "--in",        path("v.npy"),
                        "--out",       path("f.npy"),
                        NULL};
  char *err;
  CHECK(run(args, NULL, &err) == 0, "gms: %s", err);
  npy_array f = load("f.npy");
  CHECK(f.info.dtype == NPY_F4 && f.info.count == 2, "gms f32 output");
  if (f.data) {
    CHECK(fabs(((float *)f.data)[0] - 1.901) < 1e-5, "gms F0 %g",
          ((float *)f.data)[0]);
    CHECK(fabs(((float *)f.data)[1] - 589.001) < 1e-3, "gms F1 %g",
          ((float *)f.data)[1]);
  }
  npy_array_free(&f);
  args[29] = "b_3=1"; /* nu_2 dropped, a third element incomplete */
  CHECK(run(args, NULL, &err) == 2 && strstr(err, "nu_2 is missing"),
        "gms missing: %s", err);
}

static void t_errors(void) {
  const double v[3] = {0.1, 0.2, 0.3};
  const size_t n = 3;
  save("v.npy", 1, &n, v);
  char *err;
  remove(path("f.npy"));
  const char *a1[] = {"law",   "dahl",        "--in", path("v.npy"),
                      "--out", path("f.npy"), NULL};
  CHECK(run(a1, NULL, &err) == 2 && strstr(err, "dahl"), "unknown law: %s",
        err);
  const char *a2[] = {"law",         "coulomb", "--param",     "mu=1", "--in",
                      path("v.npy"), "--out",   path("f.npy"), NULL};
  CHECK(run(a2, NULL, &err) == 2 && strstr(err, "'mu'"), "unknown param: %s",
        err);
  const char *a3[] = {"law",         "coulomb", "--param",     "N=1", "--in",
                      path("v.npy"), "--out",   path("f.npy"), NULL};
  CHECK(run(a3, NULL, &err) == 2 && strstr(err, "friction_coefficient") &&
            strstr(err, "required"),
        "missing param: %s", err);
  const char *a4[] = {
      "law",     "exudyn_stribeck",     "--param", "muDynamic=0.1",
      "--param", "muStaticOffset=0.05", "--param", "expVel=0",
      "--in",    path("v.npy"),         "--out",   path("f.npy"),
      NULL};
  CHECK(run(a4, NULL, &err) == 2 && strstr(err, "expVel"), "expVel = 0: %s",
        err);
  CHECK(!exists("f.npy"), "no output after an error");
  /* A state of the wrong shape is refused and left as it was. */
  const double s[3] = {1, 2, 3};
  save("s.npy", 1, &n, s);
  const char *a5[] = {"law",         "maxwell",     "--param",
                      "stiffness=1", "--param",     "friction_coefficient=1",
                      "--param",     "N=1",         "--state",
                      path("s.npy"), "--in",        path("v.npy"),
                      "--out",       path("f.npy"), NULL};
  CHECK(run(a5, NULL, &err) == 2 && strstr(err, "--state"), "state: %s", err);
  npy_array st = load("s.npy");
  CHECK(st.data && memcmp(st.data, s, sizeof s) == 0, "state untouched");
  npy_array_free(&st);
  const char *a6[] = {"law", "lugre", "--in", path("v.npy"), NULL};
  CHECK(run(a6, NULL, &err) == 2 && strstr(err, "--out"), "no --out: %s", err);
  /* An explicit NaN is not a missing parameter: it is not finite. */
  const char *a7[] = {"law",         "coulomb",     "--param",
                      "N=nan",       "--param",     "friction_coefficient=0.3",
                      "--in",        path("v.npy"), "--out",
                      path("f.npy"), NULL};
  CHECK(run(a7, NULL, &err) == 2 && strstr(err, "N = nan") &&
            strstr(err, "must be finite") && !strstr(err, "required"),
        "normal = nan: %s", err);
  const char *a8[] = {"law",  "exudyn_stribeck", "--param", "muDynamic=nan",
                      "--in", path("v.npy"),     "--out",   path("f.npy"),
                      NULL};
  CHECK(run(a8, NULL, &err) == 2 && strstr(err, "muDynamic = nan") &&
            strstr(err, "must be finite") && !strstr(err, "required"),
        "muDynamic = nan: %s", err);
  CHECK(!exists("f.npy"), "no output after an error");
  /* The option grammar of the other commands (cli_args.c): an unknown
   * option is called that even without a value, and messages point to the
   * help. */
  const char *a9[] = {"law",         "coulomb", "--bogus",     "--in",
                      path("v.npy"), "--out",   path("f.npy"), NULL};
  CHECK(run(a9, NULL, &err) == 2 &&
            strstr(err, "unknown option '--bogus' (see 'fricl law --help')"),
        "unknown option: %s", err);
  const char *a10[] = {"law",   "lugre",       "--in", path("v.npy"),
                       "--out", path("f.npy"), "--h",  NULL};
  CHECK(run(a10, NULL, &err) == 2 &&
            strstr(err, "option --h needs a value (see 'fricl law --help')"),
        "missing value: %s", err);
  const char *a11[] = {"law",         "coulomb", "--precision", "f16", "--in",
                       path("v.npy"), "--out",   path("f.npy"), NULL};
  CHECK(run(a11, NULL, &err) == 2 &&
            strstr(err, "--precision 'f16': not f64 or f32"),
        "bad precision: %s", err);
  CHECK(!exists("f.npy"), "no output after an error");
}

/* Outputs that name the same file as another output or as an input are
 * refused before anything is written (exit 2, both options named); the
 * state file's in-place update stays allowed. */
static void t_same_file(void) {
  const double v[3] = {0.1, -0.2, 0.3}, z[3] = {1e-5, 2e-5, -3e-5};
  const size_t n = 3;
  save("v.npy", 1, &n, v);
  save("s.npy", 1, &n, z);
  remove(path("s_link.npy"));
  CHECK(symlink("s.npy", path("s_link.npy")) == 0, "symlink");
  char *err;
  /* Each case: options a, b (with their files), the two options the
   * message must name; --out f.npy is added when neither is --out. */
  struct {
    const char *what, *a, *fa, *b, *fb, *e1, *e2;
    int integrate;
  } cases[] = {
      {"--out = --state", "--state", "s.npy", "--out", "s.npy", "--state",
       "--out", 1},
      {"--out = --state (eval)", "--state", "s.npy", "--out", "s.npy",
       "--state", "--out", 0},
      {"--out = link to --state", "--state", "s.npy", "--out", "s_link.npy",
       "--state", "--out", 1},
      {"--out = DIR/./--state", "--state", "s.npy", "--out", "./s.npy",
       "--state", "--out", 1},
      {"--dstate-out = --out", "--dstate-out", "f.npy", "--out", "f.npy",
       "--dstate-out", "--out", 0},
      {"--dstate-out = --state", "--state", "s.npy", "--dstate-out", "s.npy",
       "--state", "--dstate-out", 0},
      {"--out = --in", "--state", "s.npy", "--out", "v.npy", "--out", "--in",
       1},
      {"--state = --in", "--state", "v.npy", "--out", "f.npy", "--state",
       "--in", 1},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    remove(path("f.npy"));
    const char *args[40];
    int k = 0;
    args[k++] = "law";
    args[k++] = "lugre";
    for (size_t i = 0; i < sizeof LUGRE / sizeof LUGRE[0]; ++i)
      args[k++] = LUGRE[i];
    args[k++] = "--in";
    args[k++] = path("v.npy");
    if (cases[c].integrate) {
      args[k++] = "--integrator";
      args[k++] = "exp";
      args[k++] = "--h";
      args[k++] = "1e-3";
    }
    args[k++] = cases[c].a;
    args[k++] = path(cases[c].fa);
    args[k++] = cases[c].b;
    args[k++] = path(cases[c].fb); /* "DIR/./s.npy": another spelling */
    if (strcmp(cases[c].a, "--out") != 0 && strcmp(cases[c].b, "--out") != 0) {
      args[k++] = "--out";
      args[k++] = path("f.npy");
    }
    args[k] = NULL;
    CHECK(run(args, NULL, &err) == 2 && strstr(err, "same file") &&
              strstr(err, cases[c].e1) && strstr(err, cases[c].e2),
          "%s: %s", cases[c].what, err);
    npy_array st = load("s.npy");
    CHECK(st.data && memcmp(st.data, z, sizeof z) == 0, "%s: state modified",
          cases[c].what);
    npy_array_free(&st);
    npy_array vv = load("v.npy");
    CHECK(vv.data && memcmp(vv.data, v, sizeof v) == 0, "%s: input modified",
          cases[c].what);
    npy_array_free(&vv);
  }
  /* The documented in-place state update still works. */
  const char *ok[40];
  int k = 0;
  ok[k++] = "law";
  ok[k++] = "lugre";
  for (size_t i = 0; i < sizeof LUGRE / sizeof LUGRE[0]; ++i)
    ok[k++] = LUGRE[i];
  const char *tail[] = {
      "--in",    path("v.npy"), "--integrator", "exp",         "--h", "1e-3",
      "--state", path("s.npy"), "--out",        path("f.npy"), NULL};
  for (size_t i = 0; i < sizeof tail / sizeof tail[0]; ++i)
    ok[k++] = tail[i];
  CHECK(run(ok, NULL, &err) == 0, "in-place state: %s", err);
  npy_array st = load("s.npy");
  CHECK(st.data && memcmp(st.data, z, sizeof z) != 0, "state not advanced");
  npy_array_free(&st);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: test_cli_law SCENARIO FRICL TMPDIR\n");
    return 2;
  }
  g_cli = argv[2];
  g_dir = argv[3];
  mkdir(g_dir, 0777);
  const char *s = argv[1];
  if (strcmp(s, "list") == 0)
    t_list();
  else if (strcmp(s, "lugre") == 0)
    t_lugre();
  else if (strcmp(s, "maxwell") == 0)
    t_maxwell();
  else if (strcmp(s, "gms") == 0)
    t_gms();
  else if (strcmp(s, "same_file") == 0)
    t_same_file();
  else if (strcmp(s, "errors") == 0)
    t_errors();
  else {
    fprintf(stderr, "unknown scenario %s\n", s);
    return 2;
  }
  free_paths();
  if (failures) {
    fprintf(stderr, "test_cli_law %s: %d check(s) failed\n", s, failures);
    return 1;
  }
  printf("test_cli_law %s: all checks passed\n", s);
  return 0;
}
