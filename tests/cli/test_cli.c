/*
 * test_cli.c - black-box tests of the `fricl` tool.
 *
 *   test_cli SCENARIO FRICL_EXE TMPDIR [VALGRIND_EXE]
 *
 * Each scenario runs the tool with posix_spawn (no shell), checks its exit
 * status, stderr and files. Input NPY files are written byte by byte here
 * and outputs are decoded by the small reader below: nothing of the tool's
 * own NPY module is used, so the two cannot agree on the same mistake.
 * TMPDIR is emptied first; inputs go to TMPDIR/in, outputs to TMPDIR/out
 * (which must hold nothing else afterwards: no temporary file left behind).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *g_cli, *g_dir, *g_valgrind;

/* ------------------------------------------------------------ checks */

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3), noreturn))
#endif
static void
fail_at(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "test_cli.c:%d: FAILED: ", line);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}
#define FAIL(...) fail_at(__LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond))                                                               \
      fail_at(__LINE__, __VA_ARGS__);                                          \
  } while (0)

/* ------------------------------------------------------------- files */

/* Every path built by join, freed at exit: paths are built freely inside
 * argument lists and kept across calls. */
static char **g_paths;
static size_t g_npaths, g_cap_paths;

static void free_paths(void) {
  for (size_t i = 0; i < g_npaths; ++i)
    free(g_paths[i]);
  free(g_paths);
}

static char *join(const char *a, const char *b) {
  const size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p && g_npaths == g_cap_paths) {
    char **grown = realloc(g_paths, (g_cap_paths += 64) * sizeof *grown);
    if (!grown) {
      free(p);
      p = NULL;
    } else {
      g_paths = grown;
    }
  }
  CHECK(p, "out of memory");
  snprintf(p, n, "%s/%s", a, b);
  return g_paths[g_npaths++] = p;
}

static const char *in_path(const char *name) {
  return join(join(g_dir, "in"), name);
}
static const char *out_path(const char *name) {
  return join(join(g_dir, "out"), name);
}

/* Remove everything under dir (not dir itself). */
static void empty_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
      empty_dir(p);
      rmdir(p);
    } else {
      unlink(p);
    }
  }
  closedir(d);
}

static void make_dir(const char *p) {
  if (mkdir(p, 0755) != 0 && errno != EEXIST)
    FAIL("mkdir %s: %s", p, strerror(errno));
}

/* mkdir -p: the scenario directory's parents may not exist yet. */
static void make_dirs(const char *path) {
  char *p = join(path, "");
  for (char *s = p + 1; *s; ++s)
    if (*s == '/') {
      *s = '\0';
      make_dir(p);
      *s = '/';
    }
}

static void prepare_dirs(void) {
  make_dirs(g_dir);
  empty_dir(g_dir);
  make_dir(join(g_dir, "in"));
  make_dir(join(g_dir, "out"));
}

static void write_file(const char *path, const void *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f, "cannot create %s", path);
  CHECK(fwrite(bytes, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

/* Whole file into a malloc'd buffer (NUL-terminated for text use). */
static unsigned char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  CHECK(f, "cannot open %s", path);
  size_t cap = 4096, len = 0;
  unsigned char *b = malloc(cap + 1);
  size_t r;
  while (b && (r = fread(b + len, 1, cap - len, f)) > 0) {
    len += r;
    if (len == cap)
      b = realloc(b, (cap *= 2) + 1);
  }
  CHECK(b, "out of memory");
  fclose(f);
  b[len] = '\0';
  *n = len;
  return b;
}

static int file_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* The names in TMPDIR/out, to check that nothing stray was left. */
static int count_out_entries(char *first, size_t size) {
  DIR *d = opendir(join(g_dir, "out"));
  CHECK(d, "cannot list the output directory");
  int n = 0;
  struct dirent *e;
  if (first && size)
    first[0] = '\0';
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (n++ == 0 && first)
      snprintf(first, size, "%s", e->d_name);
  }
  closedir(d);
  return n;
}

static void check_out_dir_empty(int line) {
  char name[256];
  const int n = count_out_entries(name, sizeof name);
  if (n != 0)
    fail_at(line, "output directory holds %d entries (first: %s)", n, name);
}
#define CHECK_NO_OUTPUT() check_out_dir_empty(__LINE__)

/* ------------------------------------------------------ running it */

typedef struct run_result {
  int status; /* exit status, or 128 + signal */
  char *out, *err;
} run_result;

static void run_free(run_result *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

/* Run the tool with args (NULL-terminated), optionally under valgrind. */
static run_result run_argv(int under_valgrind, const char *const *args) {
  const char *argv[64];
  int k = 0;
  if (under_valgrind) {
    argv[k++] = g_valgrind;
    argv[k++] = "--quiet";
    argv[k++] = "--leak-check=full";
    argv[k++] = "--errors-for-leak-kinds=definite,indirect,possible";
    argv[k++] = "--error-exitcode=99";
  }
  argv[k++] = g_cli;
  for (int i = 0; args[i]; ++i) {
    CHECK(k < 63, "too many arguments");
    argv[k++] = args[i];
  }
  argv[k] = NULL;
  const char *out_file = join(g_dir, "stdout.txt");
  const char *err_file = join(g_dir, "stderr.txt");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_file,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_file,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  /* posix_spawn's argv is char *const[]; the strings are not modified. */
  const int e =
      posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  CHECK(e == 0, "posix_spawn %s: %s", argv[0], strerror(e));
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0)
    CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
  run_result r;
  r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  size_t n;
  r.out = (char *)read_file(out_file, &n);
  r.err = (char *)read_file(err_file, &n);
  return r;
}

#define RUN(...) run_argv(0, (const char *const[]){__VA_ARGS__, NULL})

/* Exit status `status`, and stderr exactly one line containing `needle`. */
static void check_error_line(int line, const run_result *r, int status,
                             const char *needle) {
  if (r->status != status)
    fail_at(line, "exit status %d, expected %d; stderr: %s", r->status, status,
            r->err);
  const char *nl = strchr(r->err, '\n');
  if (!nl || nl[1] != '\0')
    fail_at(line, "stderr is not exactly one line: \"%s\"", r->err);
  if (!strstr(r->err, needle))
    fail_at(line, "stderr \"%s\" does not mention \"%s\"", r->err, needle);
}
#define CHECK_ERROR(r, status, needle)                                         \
  check_error_line(__LINE__, &(r), status, needle)

static void check_success(int line, const run_result *r) {
  if (r->status != 0)
    fail_at(line, "exit status %d, expected 0; stderr: %s", r->status, r->err);
}
#define CHECK_OK(r) check_success(__LINE__, &(r))

/* ----------------------------------------- NPY bytes, written by hand */

static void put_le(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
}

static void put_f64(unsigned char *p, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  put_le(p, u, 8);
}

static void put_f32(unsigned char *p, float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  put_le(p, u, 4);
}

static double get_f64(const unsigned char *p) {
  uint64_t u = 0;
  for (int i = 7; i >= 0; --i)
    u = u << 8 | p[i];
  double v;
  memcpy(&v, &u, 8);
  return v;
}

static float get_f32(const unsigned char *p) {
  uint32_t u = 0;
  for (int i = 3; i >= 0; --i)
    u = u << 8 | p[i];
  float v;
  memcpy(&v, &u, 4);
  return v;
}

/* An NPY file: magic, version major.0, length field (2 bytes for 1.x, 4
 * otherwise), dict, spaces up to a 64-byte boundary, '\n', data. */
static size_t npy_bytes(unsigned char *buf, size_t cap, int major,
                        const char *dict, const void *data, size_t data_len) {
  const size_t field = major == 1 ? 2 : 4;
  const size_t prefix = 8 + field;
  size_t hlen = strlen(dict) + 1;
  hlen += (64 - (prefix + hlen) % 64) % 64;
  CHECK(prefix + hlen + data_len <= cap, "npy_bytes: buffer too small");
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  put_le(buf + 8, hlen, (int)field);
  memset(buf + prefix, ' ', hlen);
  memcpy(buf + prefix, dict, strlen(dict));
  buf[prefix + hlen - 1] = '\n';
  if (data_len)
    memcpy(buf + prefix + hlen, data, data_len);
  return prefix + hlen + data_len;
}

static void write_npy(const char *path, int major, const char *dict,
                      const void *data, size_t data_len) {
  static unsigned char buf[1 << 16];
  write_file(path, buf,
             npy_bytes(buf, sizeof buf, major, dict, data, data_len));
}

/* The spec's table inputs and reference values (eps_v = 1e-3,
 * mu_s = 0.5, mu_k = 0.3). */
#define N_Y 7
static const double spec_y[N_Y] = {0, 1e-4, 2.5e-4, 5e-4, 7.5e-4, 1e-3, 2e-3};
static const double spec_f1[N_Y] = {0, 0.19, 0.4375, 0.75, 0.9375, 1, 1};
static const double spec_mu_ipctk[N_Y] = {0.5,   0.496, 0.475, 0.4,
                                          0.325, 0.3,   0.3};

static const char *write_y_f64(const char *name) {
  unsigned char data[N_Y * 8];
  for (int i = 0; i < N_Y; ++i)
    put_f64(data + 8 * i, spec_y[i]);
  const char *p = in_path(name);
  write_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }",
            data, sizeof data);
  return p;
}

static const char *write_y_f32(const char *name) {
  unsigned char data[N_Y * 4];
  for (int i = 0; i < N_Y; ++i)
    put_f32(data + 4 * i, (float)spec_y[i]);
  const char *p = in_path(name);
  write_npy(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (7,), }",
            data, sizeof data);
  return p;
}

/* ------------------------------------ NPY output, read independently */

typedef struct parsed_npy {
  char descr[16];
  int ndim;
  size_t shape[4];
  size_t header_bytes; /* where the data starts */
  unsigned char *file;
  size_t file_len;
  const unsigned char *data;
  size_t data_len;
} parsed_npy;

/* Only what the tool must write: format 1.0, C order, the data aligned to
 * 64 bytes behind a '\n'-terminated dict. */
static parsed_npy read_output(int line, const char *path) {
  parsed_npy r;
  memset(&r, 0, sizeof r);
  if (!file_exists(path))
    fail_at(line, "no output file %s", path);
  r.file = read_file(path, &r.file_len);
  const unsigned char *b = r.file;
  if (r.file_len < 10 || memcmp(b, "\x93NUMPY\x01\x00", 8) != 0)
    fail_at(line, "%s: not an NPY 1.0 file", path);
  const size_t hlen = (size_t)b[8] | (size_t)b[9] << 8;
  r.header_bytes = 10 + hlen;
  if (r.header_bytes > r.file_len || r.header_bytes % 64 != 0 ||
      b[r.header_bytes - 1] != '\n')
    fail_at(line,
            "%s: header of %zu bytes is not 64-aligned and "
            "'\\n'-terminated",
            path, r.header_bytes);
  char dict[1024];
  if (hlen >= sizeof dict)
    fail_at(line, "%s: header too long", path);
  memcpy(dict, b + 10, hlen);
  dict[hlen] = '\0';
  const char *d = strstr(dict, "'descr': '");
  if (!d || sscanf(d + 10, "%15[^']", r.descr) != 1)
    fail_at(line, "%s: no descr in %s", path, dict);
  if (!strstr(dict, "'fortran_order': False"))
    fail_at(line, "%s: not C order: %s", path, dict);
  const char *s = strstr(dict, "'shape': (");
  if (!s)
    fail_at(line, "%s: no shape in %s", path, dict);
  s += 10;
  while (*s != ')') {
    char *end;
    const unsigned long long v = strtoull(s, &end, 10);
    if (end == s || r.ndim == 4)
      fail_at(line, "%s: bad shape in %s", path, dict);
    r.shape[r.ndim++] = (size_t)v;
    s = end;
    if (*s == ',')
      ++s;
    while (*s == ' ')
      ++s;
  }
  r.data = b + r.header_bytes;
  r.data_len = r.file_len - r.header_bytes;
  return r;
}
#define READ_OUTPUT(path) read_output(__LINE__, path)

static void check_layout(int line, const parsed_npy *p, const char *descr,
                         int ndim, size_t d0, size_t d1) {
  if (strcmp(p->descr, descr) != 0)
    fail_at(line, "descr '%s', expected '%s'", p->descr, descr);
  if (p->ndim != ndim || p->shape[0] != d0 || (ndim == 2 && p->shape[1] != d1))
    fail_at(line, "shape of %d dims (%zu, %zu), expected %d dims (%zu, %zu)",
            p->ndim, p->shape[0], p->shape[1], ndim, d0, d1);
  const size_t elems = ndim == 2 ? d0 * d1 : d0;
  const size_t item = descr[2] == '8' ? 8 : 4;
  if (p->data_len != elems * item)
    fail_at(line, "%zu bytes of data, expected %zu", p->data_len, elems * item);
}
#define CHECK_LAYOUT(p, descr, ndim, d0, d1)                                   \
  check_layout(__LINE__, &(p), descr, ndim, d0, d1)

static int close_rel(double got, double want, double rel) {
  if (got == want)
    return 1;
  return fabs(got - want) <= rel * fabs(want);
}

/* ---------------------------------------------------------- scenarios */

static void t_roundtrip_one(void) {
  const char *y = write_y_f64("y.npy");
  run_result r =
      RUN("eval", "--term", "smooth_friction_f1", "--eps-v", "1e-3", "--device",
          "reference", "--in", y, "--out", out_path("f1.npy"));
  CHECK_OK(r);
  CHECK(r.err[0] == '\0', "unexpected stderr: %s", r.err);
  parsed_npy p = READ_OUTPUT(out_path("f1.npy"));
  CHECK_LAYOUT(p, "<f8", 1, N_Y, 0);
  for (int i = 0; i < N_Y; ++i)
    CHECK(get_f64(p.data + 8 * i) == spec_f1[i], "f1[%d] = %.17g, want %.17g",
          i, get_f64(p.data + 8 * i), spec_f1[i]);
  /* Header byte for byte as numpy 2.x's np.save(np.zeros(7)) writes it:
   * the 57-byte dict, 60 spaces (growth room + alignment), '\n': 128 bytes
   * in all, so the length field says 118 (0x76). */
  static const char dict[] =
      "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }";
  unsigned char want[128];
  memcpy(want, "\x93NUMPY\x01\x00\x76\x00", 10);
  memset(want + 10, ' ', 117);
  memcpy(want + 10, dict, sizeof dict - 1);
  want[127] = '\n';
  CHECK(p.header_bytes == 128 && memcmp(p.file, want, 128) == 0,
        "header differs from numpy's");
  free(p.file);
  run_free(&r);
  CHECK(count_out_entries(NULL, 0) == 1, "stray files in the output dir");
}

static void t_roundtrip_terms(void) {
  const char *y = write_y_f64("y.npy");
  /* smooth_mu (term 5) before smooth_friction_f1 (term 1): the columns
   * must follow the order given, not the enum order. */
  run_result r =
      RUN("eval", "--term", "smooth_mu", "--term=smooth_friction_f1", "--eps-v",
          "1e-3", "--mu-s", "0.5", "--mu-k", "0.3", "--mu-profile", "ipctk",
          "--device", "reference", "--in", y, "--out", out_path("two.npy"));
  CHECK_OK(r);
  parsed_npy p = READ_OUTPUT(out_path("two.npy"));
  CHECK_LAYOUT(p, "<f8", 2, N_Y, 2);
  for (int i = 0; i < N_Y; ++i) {
    const double mu = get_f64(p.data + 16 * i),
                 f1 = get_f64(p.data + 16 * i + 8);
    CHECK(close_rel(mu, spec_mu_ipctk[i], 1e-15), "mu[%d] = %.17g, want %.17g",
          i, mu, spec_mu_ipctk[i]);
    CHECK(f1 == spec_f1[i], "f1[%d] = %.17g, want %.17g", i, f1, spec_f1[i]);
  }
  free(p.file);
  run_free(&r);
}

static void t_term_all(void) {
  const char *y = write_y_f64("y.npy");
  run_result r =
      RUN("eval", "--term", "all", "--eps-v", "1e-3", "--mu-s", "0.5", "--mu-k",
          "0.3", "--mu-profile", "ipctk", "--device", "reference", "--in", y,
          "--out", out_path("all.npy"));
  CHECK_OK(r);
  parsed_npy p = READ_OUTPUT(out_path("all.npy"));
  CHECK_LAYOUT(p, "<f8", 2, N_Y, 12);
  for (int i = 0; i < N_Y; ++i) {
    const unsigned char *row = p.data + 12 * 8 * i;
    CHECK(get_f64(row + 8 * 1) == spec_f1[i], "row %d: f1 column", i);
    CHECK(close_rel(get_f64(row + 8 * 5), spec_mu_ipctk[i], 1e-15),
          "row %d: smooth_mu column", i);
  }
  free(p.file);
  run_free(&r);
  /* 'all' plus one of its terms is a repeated term. */
  r = RUN("eval", "--term", "all", "--term", "smooth_mu", "--eps-v", "1e-3",
          "--mu-s", "0.5", "--mu-k", "0.3", "--in", y, "--out",
          out_path("x.npy"));
  CHECK_ERROR(r, 2, "smooth_mu");
  run_free(&r);
}

static void t_f32(void) {
  const char *y32 = write_y_f32("y32.npy");
  const char *y64 = write_y_f64("y64.npy");
  struct {
    const char *in, *precision, *descr;
  } cases[] = {{y32, "f32", "<f4"}, {y32, "f64", "<f8"}, {y64, "f32", "<f4"}};
  for (int c = 0; c < 3; ++c) {
    const char *out = out_path("f32.npy");
    run_result r =
        RUN("eval", "--term", "smooth_friction_f1", "--term", "smooth_mu",
            "--eps-v", "1e-3", "--mu-s", "0.5", "--mu-k", "0.3", "--mu-profile",
            "ipctk", "--precision", cases[c].precision, "--device", "reference",
            "--in", cases[c].in, "--out", out);
    CHECK_OK(r);
    parsed_npy p = READ_OUTPUT(out);
    CHECK_LAYOUT(p, cases[c].descr, 2, N_Y, 2);
    const int f4 = cases[c].descr[2] == '4';
    for (int i = 0; i < N_Y; ++i) {
      const unsigned char *row = p.data + (f4 ? 8 : 16) * i;
      const double f1 = f4 ? get_f32(row) : get_f64(row);
      const double mu = f4 ? get_f32(row + 4) : get_f64(row + 8);
      /* y is a float32 value in every case here but the last; 1e-5 covers
       * that and float32 arithmetic. */
      CHECK(close_rel(f1, spec_f1[i], 1e-5), "case %d: f1[%d] = %.9g", c, i,
            f1);
      CHECK(close_rel(mu, spec_mu_ipctk[i], 1e-5), "case %d: mu[%d] = %.9g", c,
            i, mu);
    }
    free(p.file);
    run_free(&r);
  }
}

static void t_empty(void) {
  const char *y = in_path("empty.npy");
  write_npy(y, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }",
            NULL, 0);
  run_result r =
      RUN("eval", "--term", "smooth_friction_f0", "--eps-v", "1e-3", "--device",
          "reference", "--in", y, "--out", out_path("e1.npy"));
  CHECK_OK(r);
  parsed_npy p = READ_OUTPUT(out_path("e1.npy"));
  CHECK_LAYOUT(p, "<f8", 1, 0, 0);
  free(p.file);
  run_free(&r);
  r = RUN("eval", "--term", "smooth_friction_f0", "--term", "smooth_mu_f1",
          "--eps-v", "1e-3", "--mu-s", "1", "--mu-k", "1", "--precision", "f32",
          "--device", "reference", "--in", y, "--out", out_path("e2.npy"));
  CHECK_OK(r);
  p = READ_OUTPUT(out_path("e2.npy"));
  CHECK_LAYOUT(p, "<f4", 2, 0, 2);
  free(p.file);
  run_free(&r);
}

/* Inputs numpy may write that are not the plainest form. */
static void t_input_variants(void) {
  unsigned char data[N_Y * 8];
  for (int i = 0; i < N_Y; ++i)
    put_f64(data + 8 * i, spec_y[i]);
  static const struct {
    int major;
    const char *dict;
  } variants[] = {
      {1, "{'descr': '<f8', 'fortran_order': True, 'shape': (7,), }"},
      {2, "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }"},
      {3, "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }"},
      {1, "{\"shape\": (7,), \"descr\": \"<f8\", \"fortran_order\": False}"},
  };
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
    const char *y = in_path("variant.npy");
    write_npy(y, variants[v].major, variants[v].dict, data, sizeof data);
    run_result r =
        RUN("eval", "--term", "smooth_friction_f1", "--eps-v", "1e-3",
            "--device", "reference", "--in", y, "--out", out_path("v.npy"));
    CHECK_OK(r);
    parsed_npy p = READ_OUTPUT(out_path("v.npy"));
    CHECK_LAYOUT(p, "<f8", 1, N_Y, 0);
    for (int i = 0; i < N_Y; ++i)
      CHECK(get_f64(p.data + 8 * i) == spec_f1[i], "variant %zu, f1[%d]", v, i);
    free(p.file);
    run_free(&r);
  }
}

/* A malformed input: exit 2, one line naming the problem, no output. */
static void expect_bad_input(int line, const char *file, const char *needle) {
  const char *out = out_path("never.npy");
  run_result r = RUN("eval", "--term", "smooth_friction_f1", "--eps-v", "1e-3",
                     "--device", "reference", "--in", file, "--out", out);
  check_error_line(line, &r, 2, needle);
  if (!strstr(r.err, "fricl eval: "))
    fail_at(line, "message lacks the 'fricl eval: ' prefix: %s", r.err);
  check_out_dir_empty(line);
  run_free(&r);
}
#define EXPECT_BAD_INPUT(file, needle) expect_bad_input(__LINE__, file, needle)

static const char dict_f8_7[] =
    "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }";

static void t_bad_magic(void) {
  static unsigned char buf[256];
  unsigned char data[56] = {0};
  const size_t n = npy_bytes(buf, sizeof buf, 1, dict_f8_7, data, sizeof data);
  buf[1] = 'M'; /* "\x93MUMPY" */
  write_file(in_path("magic.npy"), buf, n);
  EXPECT_BAD_INPUT(in_path("magic.npy"), "not an NPY file (bad magic)");
  write_file(in_path("text.npy"), "hello, world\n", 13);
  EXPECT_BAD_INPUT(in_path("text.npy"), "bad magic");
  write_file(in_path("zero.npy"), "", 0);
  EXPECT_BAD_INPUT(in_path("zero.npy"), "not an NPY file");
}

static void t_truncated_header(void) {
  static unsigned char buf[256];
  const size_t n = npy_bytes(buf, sizeof buf, 1, dict_f8_7, NULL, 0);
  CHECK(n == 128, "test bug");
  write_file(in_path("th.npy"), buf, 40); /* cut inside the dict */
  EXPECT_BAD_INPUT(in_path("th.npy"), "truncated in the header");
  write_file(in_path("th2.npy"), buf, 9); /* cut inside the length field */
  EXPECT_BAD_INPUT(in_path("th2.npy"), "truncated in the header");
}

static void t_truncated_data(void) {
  static unsigned char buf[2048];
  unsigned char data[640] = {0};
  write_file(in_path("td.npy"), buf,
             npy_bytes(buf, sizeof buf, 1,
                       "{'descr': '<f8', 'fortran_order': False, "
                       "'shape': (1000,), }",
                       data, sizeof data));
  EXPECT_BAD_INPUT(in_path("td.npy"),
                   "file truncated: header says 1000 elements");
  EXPECT_BAD_INPUT(in_path("td.npy"), "640 bytes of data");
}

static void t_trailing_data(void) {
  unsigned char data[N_Y * 8 + 3] = {0};
  write_npy(in_path("tr.npy"), 1, dict_f8_7, data, sizeof data);
  EXPECT_BAD_INPUT(in_path("tr.npy"), "3 unexpected bytes after the array");
}

static void t_bad_dict(void) {
  static const char *const dicts[] = {
      "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), ", /* no } */
      "{'descr': '<f8', 'fortran_order': Nope, 'shape': (7,), }",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (7), }",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (-7,), }",
      "{'descr': '<f8', 'fortran_order': False, }",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), 'x': 1}",
      "['descr', '<f8']",
      "{'descr': '<f8, 'fortran_order': False, 'shape': (7,), }",
  };
  unsigned char data[N_Y * 8] = {0};
  for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; ++i) {
    write_npy(in_path("dict.npy"), 1, dicts[i], data, sizeof data);
    EXPECT_BAD_INPUT(in_path("dict.npy"), "malformed header");
  }
}

static void t_wrong_dtype(void) {
  unsigned char data[N_Y * 8] = {0};
  write_npy(in_path("i4.npy"), 1,
            "{'descr': '<i4', 'fortran_order': False, 'shape': (7,), }", data,
            N_Y * 4);
  EXPECT_BAD_INPUT(in_path("i4.npy"), "dtype '<i4' is not float64 or float32");
  write_npy(in_path("c16.npy"), 1,
            "{'descr': '<c16', 'fortran_order': False, 'shape': (3,), }", data,
            48);
  EXPECT_BAD_INPUT(in_path("c16.npy"), "unsupported dtype '<c16'");
}

static void t_two_d(void) {
  unsigned char data[12 * 8] = {0};
  write_npy(in_path("2d.npy"), 1,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", data,
            sizeof data);
  EXPECT_BAD_INPUT(in_path("2d.npy"), "expected a 1-D array, got shape (3, 4)");
  write_npy(in_path("0d.npy"), 1,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", data, 8);
  EXPECT_BAD_INPUT(in_path("0d.npy"), "expected a 1-D array, got shape ()");
}

static void t_big_endian(void) {
  unsigned char data[N_Y * 8] = {0};
  write_npy(in_path("be.npy"), 1,
            "{'descr': '>f8', 'fortran_order': False, 'shape': (7,), }", data,
            sizeof data);
  EXPECT_BAD_INPUT(in_path("be.npy"), "big-endian");
}

static void t_absurd_shape(void) {
  /* 2^62 * 8 elements overflow 64-bit sizes; 10^12 elements fit but the
   * file has none of them: both must fail fast without allocating. */
  write_npy(in_path("huge.npy"), 1,
            "{'descr': '<f8', 'fortran_order': False, "
            "'shape': (4611686018427387904, 8), }",
            NULL, 0);
  EXPECT_BAD_INPUT(in_path("huge.npy"), "too large");
  write_npy(in_path("huge2.npy"), 1,
            "{'descr': '<f8', 'fortran_order': False, "
            "'shape': (99999999999999999999999,), }",
            NULL, 0);
  EXPECT_BAD_INPUT(in_path("huge2.npy"), "too large");
  write_npy(in_path("big.npy"), 1,
            "{'descr': '<f8', 'fortran_order': False, "
            "'shape': (1000000000000,), }",
            NULL, 0);
  EXPECT_BAD_INPUT(in_path("big.npy"), "header says 1000000000000 elements");
}

static void t_missing_input(void) {
  EXPECT_BAD_INPUT(in_path("does-not-exist.npy"), "cannot open");
}

/* Usage errors: exit 2, one line, nothing written. */
static void expect_usage(int line, const char *needle,
                         const char *const *args) {
  run_result r = run_argv(0, args);
  check_error_line(line, &r, 2, needle);
  check_out_dir_empty(line);
  run_free(&r);
}
#define EXPECT_USAGE(needle, ...)                                              \
  expect_usage(__LINE__, needle, (const char *const[]){__VA_ARGS__, NULL})

static void t_missing_mu(void) {
  const char *y = write_y_f64("y.npy"), *o = out_path("o.npy");
  EXPECT_USAGE("--mu-s", "eval", "--term", "smooth_mu_f1", "--eps-v", "1e-3",
               "--mu-k", "0.3", "--in", y, "--out", o);
  EXPECT_USAGE("--mu-k", "eval", "--term", "smooth_friction_f0", "--term",
               "smooth_mu", "--eps-v", "1e-3", "--mu-s", "0.3", "--in", y,
               "--out", o);
  EXPECT_USAGE("--mu-s and --mu-k", "eval", "--term", "smooth_mu", "--eps-v",
               "1e-3", "--in", y, "--out", o);
}

static void t_usage_errors(void) {
  const char *y = write_y_f64("y.npy"), *o = out_path("o.npy");
  EXPECT_USAGE("unknown term 'smooth_friction_f9'", "eval", "--term",
               "smooth_friction_f9", "--eps-v", "1e-3", "--in", y, "--out", o);
  EXPECT_USAGE("requested twice", "eval", "--term", "smooth_friction_f0",
               "--term", "smooth_friction_f0", "--eps-v", "1e-3", "--in", y,
               "--out", o);
  EXPECT_USAGE("'1e-3x'", "eval", "--term", "smooth_friction_f0", "--eps-v",
               "1e-3x", "--in", y, "--out", o);
  EXPECT_USAGE("--eps-v", "eval", "--term", "smooth_friction_f0", "--eps-v", "",
               "--in", y, "--out", o);
  EXPECT_USAGE("--mu-s", "eval", "--term", "smooth_mu", "--eps-v", "1e-3",
               "--mu-s", "1e999", "--mu-k", "0", "--in", y, "--out", o);
  EXPECT_USAGE("unknown option '--bogus'", "eval", "--term",
               "smooth_friction_f0", "--eps-v", "1e-3", "--bogus", "--in", y,
               "--out", o);
  EXPECT_USAGE("--eps-v needs a value", "eval", "--term", "smooth_friction_f0",
               "--eps-v", "--in", y, "--out", o);
  EXPECT_USAGE("--out needs a value", "eval", "--term", "smooth_friction_f0",
               "--eps-v", "1", "--in", y, "--out");
  EXPECT_USAGE("given twice", "eval", "--term", "smooth_friction_f0", "--eps-v",
               "1", "--eps-v", "2", "--in", y, "--out", o);
  EXPECT_USAGE("--eps-v is required", "eval", "--term", "smooth_friction_f0",
               "--in", y, "--out", o);
  EXPECT_USAGE("--term is required", "eval", "--eps-v", "1", "--in", y, "--out",
               o);
  EXPECT_USAGE("--out is required", "eval", "--term", "smooth_friction_f0",
               "--eps-v", "1", "--in", y);
  EXPECT_USAGE("unexpected argument 'stray'", "eval", "stray");
  EXPECT_USAGE("--precision 'f16'", "eval", "--term", "smooth_friction_f0",
               "--eps-v", "1", "--precision", "f16", "--in", y, "--out", o);
  EXPECT_USAGE("--mu-profile 'linear'", "eval", "--term", "smooth_mu",
               "--eps-v", "1", "--mu-s", "1", "--mu-k", "1", "--mu-profile",
               "linear", "--in", y, "--out", o);
  /* Values the library rejects are the user's: exit 2 as well. */
  EXPECT_USAGE("eps_v", "eval", "--term", "smooth_friction_f0", "--eps-v", "0",
               "--device", "reference", "--in", y, "--out", o);
  EXPECT_USAGE("mu_s", "eval", "--term", "smooth_mu", "--eps-v", "1", "--mu-s",
               "-0.5", "--mu-k", "1", "--device", "reference", "--in", y,
               "--out", o);
  EXPECT_USAGE("not a device spec", "eval", "--term", "smooth_friction_f0",
               "--eps-v", "1", "--device", "tpu", "--in", y, "--out", o);
  EXPECT_USAGE("unknown command 'evaluate'", "evaluate");
  EXPECT_USAGE("unexpected argument '--all'", "devices", "--all");
}

static void t_help(void) {
  static const struct {
    const char *args[3];
    const char *needles[4];
  } cases[] = {
      {{"--help", NULL, NULL}, {"eval", "devices", "bench", NULL}},
      {{"eval", "--help", NULL},
       {"--mu-profile", "smooth_mu_f2_x_minus_mu_f1_over_x3", "Exit status",
        "converted"}},
      {{"eval", "-h", NULL}, {"--precision", NULL, NULL, NULL}},
      {{"devices", "--help", NULL}, {"reference", "auto", NULL, NULL}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    run_result r = run_argv(0, cases[c].args);
    CHECK_OK(r);
    for (int k = 0; k < 4 && cases[c].needles[k]; ++k)
      CHECK(strstr(r.out, cases[c].needles[k]), "help %zu lacks '%s'", c,
            cases[c].needles[k]);
    run_free(&r);
  }
  run_result r = run_argv(0, (const char *const[]){NULL});
  CHECK(r.status == 2 && strstr(r.err, "Usage"), "no command: status %d",
        r.status);
  run_free(&r);
}

static void t_devices(void) {
  run_result r = RUN("devices");
  CHECK_OK(r);
  CHECK(strstr(r.out, "reference"), "no 'reference' in: %s", r.out);
  CHECK(strstr(r.out, "\nhost "), "no 'host' line in: %s", r.out);
  /* What auto does here is stated. */
  CHECK(strstr(r.out, "* auto: "), "auto's choice not stated in: %s", r.out);
  run_free(&r);
}

static void t_device_reference(void) {
  const char *y = write_y_f64("y.npy");
  run_result r =
      RUN("eval", "--term", "smooth_friction_f1", "--eps-v", "1e-3", "--device",
          "reference", "--verbose", "--in", y, "--out", out_path("ref.npy"));
  CHECK_OK(r);
  CHECK(strstr(r.err, "reference"), "verbose output lacks the device: %s",
        r.err);
  CHECK(strstr(r.err, "ran on the reference backend"),
        "verbose output lacks the backend that ran: %s", r.err);
  parsed_npy p = READ_OUTPUT(out_path("ref.npy"));
  CHECK_LAYOUT(p, "<f8", 1, N_Y, 0);
  free(p.file);
  run_free(&r);
}

/* Whatever FRICL_DEVICE / auto picks (an OpenCL device if any, else the
 * reference): same values to a few ulp. */
static void t_device_default(void) {
  const char *y = write_y_f64("y.npy");
  run_result r =
      RUN("eval", "--term", "smooth_mu", "--term", "smooth_friction_f1",
          "--eps-v", "1e-3", "--mu-s", "0.5", "--mu-k", "0.3", "--mu-profile",
          "ipctk", "--in", y, "--out", out_path("auto.npy"));
  if (r.status == 1 && strstr(r.err, "double precision")) {
    printf("default device has no fp64; checking f32 only\n");
    run_free(&r);
    return;
  }
  CHECK_OK(r);
  parsed_npy p = READ_OUTPUT(out_path("auto.npy"));
  CHECK_LAYOUT(p, "<f8", 2, N_Y, 2);
  for (int i = 0; i < N_Y; ++i) {
    CHECK(close_rel(get_f64(p.data + 16 * i), spec_mu_ipctk[i], 1e-15),
          "mu[%d]", i);
    CHECK(close_rel(get_f64(p.data + 16 * i + 8), spec_f1[i], 1e-15), "f1[%d]",
          i);
  }
  free(p.file);
  run_free(&r);
}

static void t_device_not_found(void) {
  const char *y = write_y_f64("y.npy");
  run_result r =
      RUN("eval", "--term", "smooth_friction_f1", "--eps-v", "1e-3", "--device",
          "opencl:99:0", "--in", y, "--out", out_path("o.npy"));
  CHECK_ERROR(r, 1, "not found");
  CHECK_NO_OUTPUT();
  run_free(&r);
}

static void t_out_dir_missing(void) {
  const char *y = write_y_f64("y.npy");
  const char *dir = out_path("no-such-dir");
  run_result r =
      RUN("eval", "--term", "smooth_friction_f1", "--eps-v", "1e-3", "--device",
          "reference", "--in", y, "--out", join(dir, "o.npy"));
  CHECK_ERROR(r, 1, "no-such-dir/o.npy");
  CHECK(!file_exists(dir), "%s was created", dir);
  CHECK_NO_OUTPUT();
  run_free(&r);
}

/* A failing eval leaves an existing output alone, whether it fails before
 * the temporary file exists (bad input) or after (bad parameter, unknown
 * device); a successful one replaces it, keeping its permission bits. */
static void t_existing_output(void) {
  const char *y = write_y_f64("y.npy");
  const char *target = out_path("keep.npy");
  static const char precious[] = "precious old content\n";
  write_file(target, precious, sizeof precious - 1);
  CHECK(chmod(target, 0640) == 0, "chmod");
  write_file(in_path("bad.npy"), "garbage", 7);
  static const struct {
    const char *in, *eps_v, *device, *needle;
    int status;
  } fails[] = {
      {"bad.npy", "1e-3", "reference", "bad magic", 2}, /* before */
      {"y.npy", "-1", "reference", "eps_v", 2},         /* after */
      {"y.npy", "nan", "reference", "eps_v", 2},        /* after */
      {"y.npy", "1e-3", "opencl:99:0", "not found", 1}, /* after */
  };
  for (size_t f = 0; f < sizeof fails / sizeof fails[0]; ++f) {
    run_result r = RUN("eval", "--term", "smooth_friction_f1", "--eps-v",
                       fails[f].eps_v, "--device", fails[f].device, "--in",
                       in_path(fails[f].in), "--out", target);
    CHECK_ERROR(r, fails[f].status, fails[f].needle);
    run_free(&r);
    size_t n;
    unsigned char *now = read_file(target, &n);
    CHECK(n == sizeof precious - 1 && memcmp(now, precious, n) == 0,
          "case %zu: the existing output was modified", f);
    free(now);
    CHECK(count_out_entries(NULL, 0) == 1, "case %zu: stray files left", f);
  }
  run_result r = RUN("eval", "--term", "smooth_friction_f1", "--eps-v", "1e-3",
                     "--device", "reference", "--in", y, "--out", target);
  CHECK_OK(r);
  parsed_npy p = READ_OUTPUT(target);
  CHECK_LAYOUT(p, "<f8", 1, N_Y, 0);
  free(p.file);
  struct stat st;
  CHECK(stat(target, &st) == 0 && (st.st_mode & 0777) == 0640,
        "mode %o, expected 640", (unsigned)(st.st_mode & 0777));
  CHECK(count_out_entries(NULL, 0) == 1, "stray files left");
  run_free(&r);

  /* A symbolic link is followed: the link stays, its target is replaced. */
  CHECK(symlink("keep.npy", out_path("link.npy")) == 0, "symlink: %s",
        strerror(errno));
  r = RUN("eval", "--term", "smooth_friction_f0", "--eps-v", "1e-3", "--device",
          "reference", "--in", y, "--out", out_path("link.npy"));
  CHECK_OK(r);
  run_free(&r);
  struct stat lst;
  CHECK(lstat(out_path("link.npy"), &lst) == 0 && S_ISLNK(lst.st_mode),
        "the link was replaced");
  p = READ_OUTPUT(target);
  CHECK_LAYOUT(p, "<f8", 1, N_Y, 0);
  /* smooth_friction_f0(0) = eps_v / 3, where f1 (the old content) is 0. */
  CHECK(close_rel(get_f64(p.data), 1e-3 / 3, 1e-15),
        "the link's target was not rewritten: %.17g", get_f64(p.data));
  free(p.file);
  CHECK(count_out_entries(NULL, 0) == 2, "stray files left");

  /* Never renamed over something that is not a regular file. */
  make_dir(out_path("subdir"));
  r = RUN("eval", "--term", "smooth_friction_f0", "--eps-v", "1e-3", "--device",
          "reference", "--in", y, "--out", out_path("subdir"));
  CHECK_ERROR(r, 1, "not a regular file");
  run_free(&r);
  struct stat dst;
  CHECK(stat(out_path("subdir"), &dst) == 0 && S_ISDIR(dst.st_mode),
        "the directory was replaced");
  CHECK(count_out_entries(NULL, 0) == 3, "stray files left");
}

/* Under valgrind: no leak or memory error on success or on failure. */
static void t_valgrind(void) {
  if (!g_valgrind) {
    printf("valgrind not given; skipped\n");
    return;
  }
  const char *y = write_y_f64("y.npy");
  run_result r =
      run_argv(1, (const char *const[]){"eval", "--term", "all", "--eps-v",
                                        "1e-3", "--mu-s", "0.5", "--mu-k",
                                        "0.3", "--device", "reference", "--in",
                                        y, "--out", out_path("vg.npy"), NULL});
  CHECK(r.status == 0, "status %d under valgrind: %s", r.status, r.err);
  run_free(&r);
  r = run_argv(1, (const char *const[]){"eval", "--term", "smooth_mu",
                                        "--eps-v", "0", "--mu-s", "1", "--mu-k",
                                        "1", "--device", "reference", "--in", y,
                                        "--out", out_path("vg.npy"), NULL});
  CHECK(r.status == 2, "status %d under valgrind: %s", r.status, r.err);
  run_free(&r);
  write_file(in_path("short.npy"), "\x93NUMPY\x01\x00\x76\x00{'de", 15);
  r = run_argv(1, (const char *const[]){"eval", "--term", "smooth_mu_f0",
                                        "--eps-v", "1", "--mu-s", "1", "--mu-k",
                                        "1", "--in", in_path("short.npy"),
                                        "--out", out_path("vg.npy"), NULL});
  CHECK(r.status == 2, "status %d under valgrind: %s", r.status, r.err);
  run_free(&r);
}

/* ---------------------------------------------------------------- main */

static const struct {
  const char *name;
  void (*run)(void);
} scenarios[] = {
    {"roundtrip_one", t_roundtrip_one},
    {"roundtrip_terms", t_roundtrip_terms},
    {"term_all", t_term_all},
    {"f32", t_f32},
    {"empty", t_empty},
    {"input_variants", t_input_variants},
    {"bad_magic", t_bad_magic},
    {"truncated_header", t_truncated_header},
    {"truncated_data", t_truncated_data},
    {"trailing_data", t_trailing_data},
    {"bad_dict", t_bad_dict},
    {"wrong_dtype", t_wrong_dtype},
    {"two_d", t_two_d},
    {"big_endian", t_big_endian},
    {"absurd_shape", t_absurd_shape},
    {"missing_input", t_missing_input},
    {"missing_mu", t_missing_mu},
    {"usage_errors", t_usage_errors},
    {"help", t_help},
    {"devices", t_devices},
    {"device_reference", t_device_reference},
    {"device_default", t_device_default},
    {"device_not_found", t_device_not_found},
    {"out_dir_missing", t_out_dir_missing},
    {"existing_output", t_existing_output},
    {"valgrind", t_valgrind},
};

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_cli SCENARIO FRICL_EXE TMPDIR [VALGRIND]\n");
    return 2;
  }
  atexit(free_paths);
  g_cli = argv[2];
  g_dir = argv[3];
  g_valgrind = argc > 4 && argv[4][0] ? argv[4] : NULL;
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; ++i)
    if (strcmp(argv[1], scenarios[i].name) == 0) {
      prepare_dirs();
      scenarios[i].run();
      printf("%s: passed\n", argv[1]);
      return 0;
    }
  fprintf(stderr, "test_cli: unknown scenario '%s'\n", argv[1]);
  return 2;
}
