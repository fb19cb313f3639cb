/*
 * test_concurrency.c - the thread-safety contract of include/fricl/fricl.h,
 * on the reference backend and every OpenCL device (FRICL_TEST_DEVICE
 * restricts to one):
 *   (a) one context per thread, THREADS threads evaluating the same batch at
 *       once: bitwise the results of a serial run;
 *   (b) one context shared by THREADS threads, the calls serialised by the
 *       caller's mutex (the documented contract): bitwise the serial run;
 *   (c) the context-free functions (fricl_devices_list, fricl_status_string,
 *       names, version, context create/destroy) called concurrently.
 * test_concurrent_open.c covers the first OpenCL use of a process from
 * several threads at once.
 * Run under ThreadSanitizer by CI (FRICL_TSAN=ON, see .ci/run).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include "test_util.h"

#define THREADS 4
#define ROUNDS 3
#define N_ELEMS 5000
#define MAX_CHUNK 2048 /* 3 chunks per evaluation */

typedef struct {
  double out[FRICL_TERM_COUNT][N_ELEMS];
} outputs;

/* Shared, read-only while threads run. */
static double g_y[N_ELEMS], g_e[N_ELEMS], g_ms[N_ELEMS], g_mk[N_ELEMS];
static const char *g_spec;
static fricl_precision g_prec;

static void fill_inputs(fricl_precision prec) {
  for (int i = 0; i < N_ELEMS; ++i) {
    const double y = 1e-3 * ((i % 50) / 20.0 - 0.3) * (1 + i / 4999.0);
    const double e = 1e-3 * (1 + (i % 7) / 3.0);
    const double ms = 0.1 + (i % 11) / 10.0;
    const double mk = 0.05 + (i % 13) / 12.0;
    if (prec == FRICL_F64) {
      g_y[i] = y;
      g_e[i] = e;
      g_ms[i] = ms;
      g_mk[i] = mk;
    } else {
      ((float *)g_y)[i] = (float)y;
      ((float *)g_e)[i] = (float)e;
      ((float *)g_ms)[i] = (float)ms;
      ((float *)g_mk)[i] = (float)mk;
    }
  }
}

static void batch_of(fricl_scalar_batch *b, outputs *o, int round) {
  fricl_scalar_batch_init(b);
  b->precision = g_prec;
  /* Alternate the profile and per-element parameters between rounds so
   * that a shared context builds and caches several kernels concurrently
   * requested; the expected results are per round. */
  b->mu_profile = round % 2 ? FRICL_MU_IPCTK : FRICL_MU_CUBIC;
  b->n = N_ELEMS;
  b->y = g_y;
  b->eps_v = 1e-3;
  b->mu_s = 0.5;
  b->mu_k = 0.3;
  b->eps_v_array = g_e;
  b->mu_s_array = g_ms;
  b->mu_k_array = g_mk;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b->out[t] = o->out[t];
}

static outputs g_expected_round[2];

static int same_as_expected(const outputs *o, int round) {
  const size_t bytes = N_ELEMS * (g_prec == FRICL_F64 ? 8 : 4);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (memcmp(o->out[t], g_expected_round[round % 2].out[t], bytes) != 0)
      return 0;
  return 1;
}

/* What a worker thread reports back (threads never touch test_failures). */
typedef struct {
  int index;
  fricl_context *shared; /* (b) only */
  pthread_mutex_t *lock; /* (b) only */
  int errors;
  char first_error[512];
  outputs out;
} worker;

static void worker_error(worker *w, const char *what, fricl_status st,
                         const char *msg) {
  if (w->errors++ == 0)
    snprintf(w->first_error, sizeof w->first_error, "%.100s: %.60s: %.300s",
             what, fricl_status_string(st), msg);
}

static fricl_context *make_context(const char *spec, char *err, size_t size,
                                   fricl_status *st) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  test_spec_params(&p, spec);
  p.max_chunk_elements = MAX_CHUNK;
  p.error_buffer = err;
  p.error_buffer_size = size;
  fricl_context *ctx = NULL;
  *st = fricl_context_create(&ctx, &p);
  test_spec_created(ctx, spec);
  return ctx;
}

/* (a) */
static void *own_context_worker(void *arg) {
  worker *w = arg;
  char err[512] = "";
  fricl_status st;
  fricl_context *ctx = make_context(g_spec, err, sizeof err, &st);
  if (!ctx) {
    worker_error(w, "create", st, err);
    return NULL;
  }
  for (int r = 0; r < ROUNDS; ++r) {
    fricl_scalar_batch b;
    memset(&w->out, 0, sizeof w->out);
    batch_of(&b, &w->out, r + w->index);
    st = fricl_scalar_eval(ctx, &b);
    if (st != FRICL_STATUS_OK)
      worker_error(w, "eval", st, fricl_context_last_error(ctx));
    else if (!same_as_expected(&w->out, r + w->index))
      worker_error(w, "results differ from the serial run", st, "");
  }
  fricl_context_destroy(ctx);
  return NULL;
}

/* (b) */
static void *shared_context_worker(void *arg) {
  worker *w = arg;
  for (int r = 0; r < ROUNDS; ++r) {
    fricl_scalar_batch b;
    memset(&w->out, 0, sizeof w->out);
    batch_of(&b, &w->out, r + w->index);
    pthread_mutex_lock(w->lock);
    const fricl_status st = fricl_scalar_eval(w->shared, &b);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", fricl_context_last_error(w->shared));
    pthread_mutex_unlock(w->lock);
    if (st != FRICL_STATUS_OK)
      worker_error(w, "eval", st, msg);
    else if (!same_as_expected(&w->out, r + w->index))
      worker_error(w, "results differ from the serial run", st, "");
  }
  return NULL;
}

/* (c) */
static size_t g_device_count;
static fricl_device_info g_devices[TEST_MAX_BACKENDS];

static void *context_free_worker(void *arg) {
  worker *w = arg;
  for (int r = 0; r < 4; ++r) {
    fricl_device_info infos[TEST_MAX_BACKENDS];
    size_t count = 0;
    fricl_status st = fricl_devices_list(infos, TEST_MAX_BACKENDS, &count);
    if (st != FRICL_STATUS_OK || count != g_device_count)
      worker_error(w, "fricl_devices_list count", st, "");
    for (size_t i = 0; i < count && i < TEST_MAX_BACKENDS; ++i)
      if (memcmp(&infos[i], &g_devices[i], sizeof infos[i]) != 0)
        worker_error(w, "fricl_devices_list differs", st, infos[i].device_name);
    if (strcmp(fricl_status_string(FRICL_STATUS_BUILD_FAILED),
               "OpenCL kernel build failed") != 0 ||
        strcmp(fricl_status_string((fricl_status)999), "unknown status") != 0)
      worker_error(w, "fricl_status_string", st, "");
    for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
      fricl_term back;
      if (fricl_term_from_name(fricl_term_name((fricl_term)t), &back) !=
              FRICL_STATUS_OK ||
          back != (fricl_term)t)
        worker_error(w, "term names", st, "");
    }
    fricl_mu_profile prof;
    if (fricl_mu_profile_from_name(fricl_mu_profile_name(FRICL_MU_IPCTK),
                                   &prof) != FRICL_STATUS_OK ||
        prof != FRICL_MU_IPCTK)
      worker_error(w, "profile names", st, "");
    if (fricl_version_number() != FRICL_VERSION_NUMBER ||
        strcmp(fricl_version_string(), FRICL_VERSION_STRING) != 0)
      worker_error(w, "version", st, "");
    char err[512] = "";
    fricl_context *ctx = make_context(g_spec, err, sizeof err, &st);
    if (!ctx)
      worker_error(w, "create", st, err);
    fricl_context_destroy(ctx);
  }
  return NULL;
}

static void run_threads(void *(*fn)(void *), worker *w, const char *what,
                        const char *label) {
  pthread_t th[THREADS];
  int started[THREADS] = {0};
  for (int i = 0; i < THREADS; ++i)
    started[i] = pthread_create(&th[i], NULL, fn, &w[i]) == 0;
  for (int i = 0; i < THREADS; ++i) {
    CHECK(started[i], "%s %s: pthread_create failed", label, what);
    if (started[i])
      pthread_join(th[i], NULL);
    CHECK(w[i].errors == 0, "%s %s thread %d: %d error(s), first: %s", label,
          what, i, w[i].errors, w[i].first_error);
  }
}

static void test_backend_precision(const char *spec, const char *label,
                                   fricl_precision prec) {
  g_spec = spec;
  g_prec = prec;
  fill_inputs(prec);
  const char *pname = prec == FRICL_F64 ? "f64" : "f32";

  /* The serial run: one context, each round's batch. */
  char err[512] = "";
  fricl_status st;
  fricl_context *ctx = make_context(spec, err, sizeof err, &st);
  if (!ctx) {
    CHECK(0, "%s: %s: %s", label, fricl_status_string(st), err);
    return;
  }
  for (int r = 0; r < 2; ++r) {
    fricl_scalar_batch b;
    batch_of(&b, &g_expected_round[r], r);
    st = fricl_scalar_eval(ctx, &b);
    CHECK(st == FRICL_STATUS_OK, "%s %s serial: %s", label, pname,
          fricl_context_last_error(ctx));
  }
  fricl_context_destroy(ctx);
  if (test_failures)
    return;

  static worker w[THREADS];
  char what[64];
  memset(w, 0, sizeof w);
  for (int i = 0; i < THREADS; ++i)
    w[i].index = i;
  snprintf(what, sizeof what, "%s (a) own contexts", pname);
  run_threads(own_context_worker, w, what, label);

  /* (b): a fresh shared context, so that the first kernel builds happen
   * under the threads too. */
  ctx = make_context(spec, err, sizeof err, &st);
  CHECK(ctx != NULL, "%s: %s", label, err);
  if (!ctx)
    return;
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  memset(w, 0, sizeof w);
  for (int i = 0; i < THREADS; ++i) {
    w[i].index = i;
    w[i].shared = ctx;
    w[i].lock = &lock;
  }
  snprintf(what, sizeof what, "%s (b) shared context + mutex", pname);
  run_threads(shared_context_worker, w, what, label);
  fricl_context_destroy(ctx);
  pthread_mutex_destroy(&lock);
  printf("%s %s: (a) and (b) bitwise equal to the serial run\n", label, pname);
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  CHECK(fricl_devices_list(g_devices, TEST_MAX_BACKENDS, &g_device_count) ==
            FRICL_STATUS_OK,
        "devices_list");
  for (int i = 0; i < nb; ++i) {
    char err[512] = "";
    fricl_status st;
    fricl_context *probe = make_context(be[i].spec, err, sizeof err, &st);
    if (!probe) {
      CHECK(0, "%s: %s", be[i].label, err);
      continue;
    }
    const int fp64 = fricl_context_has_fp64(probe);
    fricl_context_destroy(probe);
    if (fp64)
      test_backend_precision(be[i].spec, be[i].label, FRICL_F64);
    test_backend_precision(be[i].spec, be[i].label, FRICL_F32);

    static worker w[THREADS];
    memset(w, 0, sizeof w);
    g_spec = be[i].spec;
    run_threads(context_free_worker, w, "(c) context-free calls", be[i].label);
  }
  return test_report("test_concurrency");
}
