/*
 * test_fault_injection.c - every fallible operation of a full evaluation
 * fails once, in turn, and the library must report it and recover.
 *
 *   test_fault_injection lib
 *   test_fault_injection cli FRICL_CLI_FI TMPDIR
 *
 * Linked with fricl_static_fi (the library built with FRICL_FAULT_INJECTION,
 * see src/fault.h). `lib`: for each backend and precision (and, on OpenCL,
 * both host-tier paths: wrapped host memory and staging buffers), a
 * disarmed run counts the fallible operations N of context creation plus
 * one chunked evaluation of all 12 terms; then for every n in 1..N the n-th
 * one fails: the call that meets it must return the status that matches the
 * failure with a non-empty message (a build failure with its build log),
 * and, when the context was created, the same context must then evaluate
 * bitwise like the clean run. Leaks are left to the ASan pass of the suite.
 *
 * `cli`: `fricl eval` built on that library (fricl_cli_fi) runs with
 * FRICL_FAULT_AT=n for n = 1, 2, ... until a run succeeds: every failing
 * run must exit 1 with a message, leave the existing --out file byte for
 * byte as it was, and leave no temporary file beside it.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fault.h"
#include "opencl/opencl.h"
#include "test_util.h"

extern char **environ;

/* In ASan builds (LeakSanitizer linked in), a leak check after every
 * injected failure names the operation whose error path leaked; elsewhere
 * the weak symbol is NULL and the suite's exit-time check is all there is. */
#if defined(__GNUC__) || defined(__clang__)
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
#define LEAKED()                                                               \
  (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check())
#else
#define LEAKED() 0
#endif

#define N_ELEMS 1000
#define MAX_CHUNK 400 /* 3 chunks: 400 + 400 + 200 */

static int leak_reported; /* once: leaked objects stay leaked */

static const char *const kind_names[FRICL__FAULT_KINDS] = {
    "none",    "alloc", "context", "buffer",
    "program", "build", "enqueue", "readback"};

/* ------------------------------------------------------------- library */

typedef struct {
  double y[N_ELEMS], e[N_ELEMS], ms[N_ELEMS], mk[N_ELEMS];
  double out[FRICL_TERM_COUNT][N_ELEMS];
} buffers;

/* Inputs as double, or as float packed at the start of the same arrays. */
static void fill_inputs(buffers *d, fricl_precision prec) {
  for (int i = 0; i < N_ELEMS; ++i) {
    const double y = 1e-3 * ((i % 50) / 20.0 - 0.3) * (1 + i / 997.0);
    const double e = 1e-3 * (1 + (i % 7) / 3.0);
    const double ms = 0.1 + (i % 11) / 10.0;
    const double mk = 0.05 + (i % 13) / 12.0;
    if (prec == FRICL_F64) {
      d->y[i] = y;
      d->e[i] = e;
      d->ms[i] = ms;
      d->mk[i] = mk;
    } else {
      ((float *)d->y)[i] = (float)y;
      ((float *)d->e)[i] = (float)e;
      ((float *)d->ms)[i] = (float)ms;
      ((float *)d->mk)[i] = (float)mk;
    }
  }
}

static void batch_of(fricl_scalar_batch *b, buffers *d, fricl_precision p) {
  fricl_scalar_batch_init(b);
  b->precision = p;
  b->mu_profile = FRICL_MU_IPCTK;
  b->n = N_ELEMS;
  b->y = d->y;
  b->eps_v_array = d->e;
  b->mu_s_array = d->ms;
  b->mu_k_array = d->mk;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b->out[t] = d->out[t];
}

static fricl_status create(const char *spec, int staging, fricl_context **ctx,
                           char *err, size_t err_size) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  test_spec_params(&p, spec);
  p.max_chunk_elements = MAX_CHUNK;
  p.error_buffer = err;
  p.error_buffer_size = err_size;
  err[0] = '\0';
  const fricl_status st = fricl_context_create(ctx, &p);
  if (st == FRICL_STATUS_OK)
    test_spec_created(*ctx, spec);
  /* Staging buffers instead of wrapped host memory, as on a discrete GPU
   * (the CPU device has unified memory and would never take this path). */
  if (st == FRICL_STATUS_OK && staging && fricl__ocl_cast((*ctx)->dev))
    fricl__ocl_cast((*ctx)->dev)->host_unified = 0;
  return st;
}

/* The statuses a failure of this kind may give. */
static int status_fits(fricl__fault_kind_t kind, fricl_status st) {
  switch (kind) {
  case FRICL__FAULT_ALLOC:
    return st == FRICL_STATUS_OUT_OF_MEMORY;
  case FRICL__FAULT_CONTEXT: /* clCreateContext: out of host memory */
  case FRICL__FAULT_PROGRAM: /* clCreateProgramWithSource: the same */
    return st == FRICL_STATUS_OUT_OF_MEMORY || st == FRICL_STATUS_OPENCL_ERROR;
  case FRICL__FAULT_BUILD:
    return st == FRICL_STATUS_BUILD_FAILED;
  case FRICL__FAULT_BUFFER:
  case FRICL__FAULT_ENQUEUE:
  case FRICL__FAULT_READBACK:
    return st == FRICL_STATUS_OPENCL_ERROR;
  default:
    return 0;
  }
}

typedef struct {
  const char *spec, *label;
  fricl_precision prec;
  int staging;
} scenario;

static void check_recovered(const scenario *sc, fricl_context *ctx,
                            const fricl_scalar_batch *b, const buffers *d,
                            const buffers *clean, long n,
                            fricl__fault_kind_t kind) {
  const char *prec = sc->prec == FRICL_F64 ? "f64" : "f32";
  const fricl_status st = fricl_scalar_eval(ctx, b);
  CHECK(st == FRICL_STATUS_OK,
        "%s %s n=%ld (%s): context unusable after the failure: %s: %s",
        sc->label, prec, n, kind_names[kind], fricl_status_string(st),
        fricl_context_last_error(ctx));
  CHECK(fricl_context_last_error(ctx)[0] == '\0',
        "%s %s n=%ld: stale message after success: %s", sc->label, prec, n,
        fricl_context_last_error(ctx));
  if (st != FRICL_STATUS_OK)
    return;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    CHECK(memcmp(d->out[t], clean->out[t],
                 N_ELEMS * fricl__elem_bytes(sc->prec)) == 0,
          "%s %s n=%ld (%s): %s differs from the clean run", sc->label, prec, n,
          kind_names[kind], fricl_term_name((fricl_term)t));
}

static void run_scenario(const scenario *sc) {
  static buffers d, clean;
  const size_t out_bytes = N_ELEMS * sizeof(double);
  char err[1024];
  fricl_scalar_batch b;
  fill_inputs(&d, sc->prec);
  batch_of(&b, &d, sc->prec);
  const char *prec = sc->prec == FRICL_F64 ? "f64" : "f32";

  /* Clean run: the expected outputs and the number of operations. */
  fricl__fault_disarm();
  fricl_context *ctx = NULL;
  fricl_status st = create(sc->spec, sc->staging, &ctx, err, sizeof err);
  if (st != FRICL_STATUS_OK) {
    CHECK(0, "%s %s: clean create: %s: %s", sc->label, prec,
          fricl_status_string(st), err);
    return;
  }
  memset(d.out, 0, sizeof d.out);
  st = fricl_scalar_eval(ctx, &b);
  const long total = fricl__fault_count();
  fricl_context_destroy(ctx);
  CHECK(st == FRICL_STATUS_OK, "%s %s: clean eval: %s", sc->label, prec,
        fricl_status_string(st));
  if (st != FRICL_STATUS_OK)
    return;
  memcpy(clean.out, d.out, sizeof d.out);

  long per_kind[FRICL__FAULT_KINDS] = {0};
  int create_failures = 0, eval_failures = 0;
  for (long n = 1; n <= total; ++n) {
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      memset(d.out[t], 0xA5, out_bytes);
    fricl__fault_arm(n);
    ctx = NULL;
    st = create(sc->spec, sc->staging, &ctx, err, sizeof err);
    fricl_status failed = st;
    const char *msg = err;
    if (st == FRICL_STATUS_OK) {
      failed = fricl_scalar_eval(ctx, &b);
      msg = fricl_context_last_error(ctx);
      ++eval_failures;
    } else {
      ++create_failures;
      CHECK(ctx == NULL, "%s %s n=%ld: failed create returned a context",
            sc->label, prec, n);
    }
    const fricl__fault_kind_t kind = fricl__fault_kind();
    fricl__fault_disarm();
    ++per_kind[kind];
    CHECK(kind != FRICL__FAULT_NONE,
          "%s %s n=%ld: operation n was not reached (a disarmed run had %ld)",
          sc->label, prec, n, total);
    CHECK(failed != FRICL_STATUS_OK && status_fits(kind, failed),
          "%s %s n=%ld (%s): status %s", sc->label, prec, n, kind_names[kind],
          fricl_status_string(failed));
    CHECK(msg[0] != '\0', "%s %s n=%ld (%s): empty message", sc->label, prec, n,
          kind_names[kind]);
    if (kind == FRICL__FAULT_BUILD)
      CHECK(strstr(msg, "build log") && strstr(msg, FRICL__FAULT_BUILD_LOG),
            "%s %s n=%ld: build failure message lacks the log: %s", sc->label,
            prec, n, msg);
    if (ctx) {
      /* The same context, disarmed: as good as new. */
      check_recovered(sc, ctx, &b, &d, &clean, n, kind);
      fricl_context_destroy(ctx);
    }
    if (!leak_reported && LEAKED()) {
      leak_reported = 1;
      CHECK(0, "%s %s n=%ld (%s): leak after this failure (report above)",
            sc->label, prec, n, kind_names[kind]);
    }
  }
  printf("%s %s%s: N = %ld fallible operations (%d in create, %d in eval):",
         sc->label, prec, sc->staging ? " staging" : "", total, create_failures,
         eval_failures);
  for (int k = 1; k < FRICL__FAULT_KINDS; ++k)
    if (per_kind[k])
      printf(" %s %ld", kind_names[k], per_kind[k]);
  printf("\n");
  fflush(stdout);
}

static int run_lib(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    char err[512];
    fricl_context *probe = NULL;
    fricl__fault_disarm();
    if (create(be[i].spec, 0, &probe, err, sizeof err) != FRICL_STATUS_OK) {
      CHECK(0, "%s: %s", be[i].label, err);
      continue;
    }
    const int fp64 = fricl_context_has_fp64(probe);
    const int is_cl = fricl_context_backend(probe) == FRICL_BACKEND_OPENCL;
    fricl_context_destroy(probe);
    for (int staging = 0; staging <= is_cl; ++staging)
      for (int p = fp64 ? 0 : 1; p < 2; ++p) {
        const scenario sc = {be[i].spec, be[i].label, (fricl_precision)p,
                             staging};
        run_scenario(&sc);
      }
    if (!fp64)
      printf("%s: no fp64, f32 only\n", be[i].label);
  }
  return test_report("test_fault_injection lib");
}

/* ----------------------------------------------------------------- CLI */

static char g_in[4096], g_out[4096], g_log[4096], g_outdir[2048];

static void write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
}

static unsigned char *read_bytes(const char *path, size_t *n) {
  *n = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096;
  unsigned char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + *n, 1, cap - *n, f)) > 0) {
    *n += got;
    if (*n == cap) {
      unsigned char *grown = realloc(buf, cap *= 2);
      if (!grown)
        free(buf);
      buf = grown;
    }
  }
  fclose(f);
  return buf;
}

/* A 1-D little-endian float64 NPY file (version 1.0). */
static void write_npy_f64(const char *path, const double *v, size_t n) {
  char header[128];
  int len = snprintf(header, sizeof header,
                     "{'descr': '<f8', 'fortran_order': False, 'shape': "
                     "(%zu,), }",
                     n);
  const int total = ((10 + len + 1 + 63) / 64) * 64; /* magic..\n, 64-aligned */
  while (10 + len + 1 < total)
    header[len++] = ' ';
  header[len++] = '\n';
  const size_t bytes = 10 + (size_t)len + n * sizeof(double);
  unsigned char *buf = malloc(bytes);
  if (!buf)
    exit(1);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (unsigned char)(len & 0xff);
  buf[9] = (unsigned char)(len >> 8);
  memcpy(buf + 10, header, (size_t)len);
  for (size_t i = 0; i < n; ++i) {
    uint64_t u;
    memcpy(&u, &v[i], sizeof u);
    for (int k = 0; k < 8; ++k)
      buf[10 + (size_t)len + i * 8 + (size_t)k] = (unsigned char)(u >> (8 * k));
  }
  write_bytes(path, buf, bytes);
  free(buf);
}

/* Entries of the output directory other than the output file itself. */
static int stray_entries(char *first, size_t size) {
  DIR *dir = opendir(g_outdir);
  if (!dir)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
        !strcmp(e->d_name, "out.npy"))
      continue;
    if (n++ == 0)
      snprintf(first, size, "%s", e->d_name);
  }
  closedir(dir);
  return n;
}

/* Run the CLI with FRICL_FAULT_AT=fault_at (0: unset); returns its exit
 * status (128 + signal when killed), stderr in g_log. */
static int run_cli(const char *cli, const char *device, const char *precision,
                   long fault_at) {
  size_t nenv = 0;
  while (environ[nenv])
    ++nenv;
  char **env = calloc(nenv + 2, sizeof *env);
  char fault_var[64];
  if (!env)
    exit(1);
  size_t k = 0;
  for (size_t i = 0; i < nenv; ++i)
    if (strncmp(environ[i], "FRICL_FAULT_AT=", 15) != 0)
      env[k++] = environ[i];
  if (fault_at > 0) {
    snprintf(fault_var, sizeof fault_var, "FRICL_FAULT_AT=%ld", fault_at);
    env[k++] = fault_var;
  }
  env[k] = NULL;
  char *argv[] = {(char *)cli, "eval",         "--term",      "all",
                  "--eps-v",   "1e-3",         "--mu-s",      "0.5",
                  "--mu-k",    "0.3",          "--precision", (char *)precision,
                  "--device",  (char *)device, "--in",        g_in,
                  "--out",     g_out,          NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, g_log, O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid;
  const int rc = posix_spawn(&pid, cli, &fa, NULL, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  if (rc != 0) {
    fprintf(stderr, "cannot run %s\n", cli);
    exit(1);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    exit(1);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void cli_backend(const char *cli, const char *device, const char *label,
                        const char *precision) {
  static const char previous[] = "previous output, must survive failures\n";
  write_bytes(g_out, previous, sizeof previous - 1);
  enum { MAX_RUNS = 2000 };
  long n = 1;
  for (; n <= MAX_RUNS; ++n) {
    const int rc = run_cli(cli, device, precision, n);
    size_t len = 0, log_len = 0;
    unsigned char *now = read_bytes(g_out, &len);
    unsigned char *log = read_bytes(g_log, &log_len);
    char stray[256] = "";
    const int strays = stray_entries(stray, sizeof stray);
    if (rc == 0) {
      /* n is past the last fallible operation: a normal, complete run. */
      CHECK(len > 10 && memcmp(now, "\x93NUMPY", 6) == 0,
            "%s %s: the successful run did not write the output", label,
            precision);
      CHECK(strays == 0, "%s %s: stray file %s after success", label, precision,
            stray);
      free(now);
      free(log);
      break;
    }
    CHECK(rc == 1, "%s %s FRICL_FAULT_AT=%ld: exit status %d, expected 1: %.*s",
          label, precision, n, rc, (int)log_len, log ? (char *)log : "");
    CHECK(log_len > 0 && log && !memcmp(log, "fricl eval: ", 12),
          "%s %s FRICL_FAULT_AT=%ld: no error message", label, precision, n);
    CHECK(len == sizeof previous - 1 && now && !memcmp(now, previous, len),
          "%s %s FRICL_FAULT_AT=%ld: the existing output was modified", label,
          precision, n);
    CHECK(strays == 0, "%s %s FRICL_FAULT_AT=%ld: stray file %s left", label,
          precision, n, stray);
    free(now);
    free(log);
    if (test_failures > 20)
      break;
  }
  CHECK(n > 1 && n <= MAX_RUNS, "%s %s: %ld runs", label, precision, n);
  printf("cli %s %s: %ld fallible operations, each failed once\n", label,
         precision, n - 1);
  fflush(stdout);
}

static int run_cli_tests(const char *cli, const char *dir) {
  mkdir(dir, 0755);
  snprintf(g_outdir, sizeof g_outdir, "%s/out", dir);
  mkdir(g_outdir, 0755);
  snprintf(g_in, sizeof g_in, "%s/y.npy", dir);
  snprintf(g_out, sizeof g_out, "%s/out.npy", g_outdir);
  snprintf(g_log, sizeof g_log, "%s/stderr.txt", dir);
  double y[N_ELEMS];
  for (int i = 0; i < N_ELEMS; ++i)
    y[i] = 2e-3 * (i - 250) / N_ELEMS;
  write_npy_f64(g_in, y, N_ELEMS);
  /* Start from an empty output directory (a previous run may have been
   * killed): only what these runs leave is judged. */
  DIR *od = opendir(g_outdir);
  struct dirent *e;
  while (od && (e = readdir(od)) != NULL) {
    char path[4096 + 256];
    snprintf(path, sizeof path, "%s/%s", g_outdir, e->d_name);
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      unlink(path);
  }
  if (od)
    closedir(od);

  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    if (strcmp(be[i].spec, "host-split") == 0)
      continue; /* a test-only variant of "host", not a CLI device spec */
    fricl_device_info info[TEST_MAX_BACKENDS];
    size_t count = 0;
    fricl_devices_list(info, TEST_MAX_BACKENDS, &count);
    int fp64 = 1;
    for (size_t k = 0; k < count && k < TEST_MAX_BACKENDS; ++k) {
      char spec[64];
      snprintf(spec, sizeof spec, "opencl:%d:%d", info[k].platform_index,
               info[k].device_index);
      if (!strcmp(spec, be[i].spec))
        fp64 = info[k].has_fp64;
    }
    if (fp64)
      cli_backend(cli, be[i].spec, be[i].label, "f64");
    cli_backend(cli, be[i].spec, be[i].label, "f32");
  }
  remove(g_out);
  return test_report("test_fault_injection cli");
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "lib"))
    return run_lib();
  if (argc >= 4 && !strcmp(argv[1], "cli"))
    return run_cli_tests(argv[2], argv[3]);
  fprintf(stderr, "usage: test_fault_injection lib | cli FRICL_CLI_FI DIR\n");
  return 2;
}
