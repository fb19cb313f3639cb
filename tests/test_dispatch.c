/*
 * test_dispatch.c - which backend runs a call, and that the choice never
 * shows in the results:
 *   - "auto" opens no OpenCL device at creation nor for calls below the
 *     crossover (they run on the host backend); a crossover of 1 sends
 *     every call to the device when there is one; SIZE_MAX never;
 *   - explicit specs ("reference", "host", "opencl:P:D") never switch;
 *   - fricl_context_last_backend reports the backend that ran, the
 *     context queries describe the device, and the cl_mem tier of an
 *     "auto" context reaches its device;
 *   - the host backend gives bitwise the same results on 1, 2, 3 and 7
 *     threads, and as the reference backend, for every feature, on
 *     problems large enough for its parallel paths; and with each of its
 *     instruction-set variants (baseline, AVX2, AVX-512: FRICL_HOST_ISA)
 *     for the vectorised loops (scalar family, laws);
 *   - an error sink (core/error_sink.h) takes the messages of the thread
 *     that entered it, and only of that thread, and leaves the context's
 *     message alone: what lets the children of a combinator over several
 *     devices report at once without contexts of their own.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <string.h>

#include "test_util.h"

#include "core/error_sink.h"
#include "core/internal.h"
#include "fricl/fricl_cl.h"

static fricl_context *make(const char *spec, unsigned threads,
                           size_t crossover) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  p.threads = threads;
  p.auto_crossover = crossover;
  char err[512] = "";
  p.error_buffer = err;
  p.error_buffer_size = sizeof err;
  fricl_context *ctx = NULL;
  const fricl_status st = fricl_context_create(&ctx, &p);
  CHECK(st == FRICL_STATUS_OK, "create %s: %s", spec, err);
  return ctx;
}

/* A scalar call of n elements (all twelve terms); out[t] gets term t. */
static fricl_status scalar(fricl_context *ctx, size_t n, double *y,
                           double *out) {
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.n = n;
  b.y = y;
  b.eps_v = 1e-3;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = out + (size_t)t * n;
  return fricl_scalar_eval(ctx, &b);
}

static void auto_choice(int have_device) {
  enum { N = 1000 };
  static double y[N], out[FRICL_TERM_COUNT * N], ref[FRICL_TERM_COUNT * N];
  for (int i = 0; i < N; ++i)
    y[i] = 2e-3 * (i - N / 3) / N;
  fricl_context *r = make("reference", 0, 0);
  CHECK(r && scalar(r, N, y, ref) == FRICL_STATUS_OK, "reference");
  CHECK(fricl_context_last_backend(r) == FRICL_BACKEND_REFERENCE,
        "reference ran");

  /* Default crossover: a small call stays on the host, no device opened. */
  fricl_context *a = make("auto", 0, 0);
  if (a) {
    CHECK(!a->dev_resolved && !a->dev, "auto opened a device at creation");
    CHECK(scalar(a, N, y, out) == FRICL_STATUS_OK, "auto small: %s",
          fricl_context_last_error(a));
    CHECK(fricl_context_last_backend(a) == FRICL_BACKEND_HOST,
          "auto small call: ran on %s",
          fricl_backend_name(fricl_context_last_backend(a)));
    CHECK(!a->dev_resolved, "auto opened a device for a small call");
    CHECK(!memcmp(out, ref, sizeof out), "auto small: not bitwise the "
                                         "reference");
    /* The queries resolve the device. */
    CHECK(fricl_context_backend(a) ==
              (have_device ? FRICL_BACKEND_OPENCL : FRICL_BACKEND_HOST),
          "auto backend");
    CHECK(fricl_context_fell_back(a) == !have_device, "auto fell back");
    CHECK(!strncmp(fricl_context_device_name(a), "auto: host (", 12),
          "auto device name: %s", fricl_context_device_name(a));
    CHECK(fricl_context_has_fp64(a), "auto has fp64 (its host backend)");
    fricl_context_destroy(a);
  }

  /* Crossover 1: every call on the device when there is one. */
  a = make("auto", 0, 1);
  if (a) {
    CHECK(scalar(a, N, y, out) == FRICL_STATUS_OK, "auto x1: %s",
          fricl_context_last_error(a));
    CHECK(fricl_context_last_backend(a) ==
              (have_device ? FRICL_BACKEND_OPENCL : FRICL_BACKEND_HOST),
          "auto crossover 1 ran on %s",
          fricl_backend_name(fricl_context_last_backend(a)));
    /* OpenCL f64 equals the reference bitwise for the scalar family. */
    CHECK(!memcmp(out, ref, sizeof out), "auto x1: not bitwise the "
                                         "reference");
    cl_command_queue q = NULL;
    CHECK(fricl_context_get_cl(a, NULL, NULL, &q) ==
              (have_device ? FRICL_STATUS_OK : FRICL_STATUS_UNSUPPORTED),
          "auto cl_mem tier");
    fricl_context_destroy(a);
  }
  /* Crossover SIZE_MAX: never the device, not even looked up. */
  a = make("auto", 0, SIZE_MAX);
  if (a) {
    CHECK(scalar(a, N, y, out) == FRICL_STATUS_OK, "auto max");
    CHECK(fricl_context_last_backend(a) == FRICL_BACKEND_HOST, "auto max");
    CHECK(!a->dev_resolved, "auto max looked the device up");
    fricl_context_destroy(a);
  }
  /* Explicit specs never switch, whatever the size. */
  static const char *const specs[] = {"reference", "host", "opencl:0:0"};
  static const fricl_backend kinds[] = {
      FRICL_BACKEND_REFERENCE, FRICL_BACKEND_HOST, FRICL_BACKEND_OPENCL};
  for (int s = 0; s < (have_device ? 3 : 2); ++s) {
    fricl_context *c = make(specs[s], 0, 1);
    if (!c)
      continue;
    CHECK(scalar(c, 3, y, out) == FRICL_STATUS_OK, "%s small", specs[s]);
    CHECK(fricl_context_last_backend(c) == kinds[s], "%s small ran on %s",
          specs[s], fricl_backend_name(fricl_context_last_backend(c)));
    CHECK(scalar(c, N, y, out) == FRICL_STATUS_OK, "%s large", specs[s]);
    CHECK(fricl_context_last_backend(c) == kinds[s], "%s large", specs[s]);
    CHECK(fricl_context_backend(c) == kinds[s], "%s backend", specs[s]);
    fricl_context_destroy(c);
  }
  fricl_context_destroy(r);
  CHECK(!strcmp(fricl_backend_name(FRICL_BACKEND_HOST), "host") &&
            fricl_backend_name((fricl_backend)99) == NULL,
        "backend names");
}

/* ------------------------------------------------- threads, bitwise */

#define NT 5000 /* contacts: above the host backend's parallel threshold */

/* FV contacts between two grid sheets (neighbours share vertices), lagged
 * data in every regime: |u| below, around and above eps_v. */
typedef struct {
  size_t nv;
  double eps;
  fricl_contact_group group;
  int32_t *vx;
  double *beta, *P, *N, *ms, *mk, *vel;
} tangential_case;

static void tangential_case_free(tangential_case *t) {
  free(t->vx), free(t->beta), free(t->P), free(t->N), free(t->ms);
  free(t->mk), free(t->vel);
}

static int tangential_case_make(tangential_case *t, size_t n) {
  memset(t, 0, sizeof *t);
  const size_t g1 = 50, G = g1 + 1, sheet = G * G;
  t->nv = 2 * sheet;
  t->eps = 1e-3;
  t->vx = malloc(n * 4 * sizeof *t->vx);
  t->beta = malloc(n * 2 * sizeof *t->beta);
  t->P = malloc(n * 6 * sizeof *t->P);
  t->N = malloc(n * sizeof *t->N);
  t->ms = malloc(n * sizeof *t->ms);
  t->mk = malloc(n * sizeof *t->mk);
  t->vel = malloc(t->nv * 3 * sizeof *t->vel);
  if (!t->vx || !t->beta || !t->P || !t->N || !t->ms || !t->mk || !t->vel)
    return 1;
  for (size_t c = 0; c < n; ++c) {
    const size_t cell = (c / 2) % (g1 * g1), h = c % 2;
    const size_t i = cell / g1, j = cell % g1;
    const size_t a = i * G + j, b = sheet + i * G + j;
    t->vx[4 * c] = (int32_t)(a + h);
    t->vx[4 * c + 1] = (int32_t)b;
    t->vx[4 * c + 2] = (int32_t)(b + 1 + h * G);
    t->vx[4 * c + 3] = (int32_t)(b + G + h);
    t->beta[2 * c] = 0.1 + 0.5 * ((c * 37) % 100) / 100.0;
    t->beta[2 * c + 1] = 0.3 * ((c * 53) % 100) / 100.0;
    const double th = 0.3 * (((c * 17) % 100) / 100.0 - 0.5);
    const double p[6] = {cos(th), 0, 0, 1, -sin(th), 0};
    memcpy(t->P + 6 * c, p, sizeof p);
    t->N[c] = 0.5 + ((c * 29) % 100) / 10.0;
    t->ms[c] = 0.6;
    t->mk[c] = 0.2 + 0.3 * ((c * 13) % 100) / 100.0;
  }
  for (size_t v = 0; v < t->nv * 3; ++v)
    t->vel[v] = 4e-3 * (((v * 7919) % 1000) / 1000.0 - 0.5);
  fricl_contact_group *G0 = &t->group;
  G0->type = FRICL_STENCIL_FV;
  G0->count = n;
  G0->vertices = t->vx;
  G0->closest_point = t->beta;
  G0->tangent_basis = t->P;
  G0->normal_force = t->N;
  G0->mu_s = t->ms;
  G0->mu_k = t->mk;
  return 0;
}

typedef struct {
  double pot, *grad, *prod, *hess, *dpot, *loc;
} tan_out;

static fricl_status tangential(fricl_context *ctx, const tangential_case *tc,
                               tan_out *o, fricl_tangential_plan **plan) {
  fricl_contact_group G = tc->group;
  G.potential = o->dpot;
  G.local_hessian = o->loc;
  fricl_status st = FRICL_STATUS_OK;
  if (!*plan)
    st = fricl_tangential_plan_create(ctx, 3, tc->nv, 1, &G, plan);
  if (st != FRICL_STATUS_OK)
    return st;
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.n_vertices = tc->nv;
  b.velocities = tc->vel;
  b.eps_v = tc->eps;
  b.psd = FRICL_PSD_CLAMP;
  b.n_groups = 1;
  b.groups = &G;
  b.plan = *plan;
  b.potential = &o->pot;
  b.gradient = o->grad;
  b.hessian_values = o->hess;
  b.direction = tc->vel;
  b.hessian_product = o->prod;
  return fricl_tangential_eval(ctx, &b);
}

static void threads_bitwise(void) {
  tangential_case tc;
  if (tangential_case_make(&tc, NT)) {
    CHECK(0, "out of memory");
    return;
  }
  static const unsigned threads[] = {0, 1, 2, 3, 7};
  tan_out o[5];
  memset(o, 0, sizeof o);
  size_t nnz = 0;
  for (int i = 0; i < 5; ++i) {
    fricl_context *ctx = make(i == 0 ? "reference" : "host", threads[i], 0);
    if (!ctx)
      continue;
    if (i > 0)
      CHECK(fricl_context_threads(ctx) == threads[i], "threads %u", threads[i]);
    fricl_tangential_plan *plan = NULL;
    fricl_contact_group G = tc.group;
    if (fricl_tangential_plan_create(ctx, 3, tc.nv, 1, &G, &plan) !=
        FRICL_STATUS_OK) {
      CHECK(0, "plan: %s", fricl_context_last_error(ctx));
      fricl_context_destroy(ctx);
      continue;
    }
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    o[i].grad = calloc(tc.nv * 3, sizeof(double));
    o[i].prod = calloc(tc.nv * 3, sizeof(double));
    o[i].hess = calloc(nnz * 9, sizeof(double));
    o[i].dpot = calloc(NT, sizeof(double));
    o[i].loc = calloc((size_t)NT * 144, sizeof(double));
    CHECK(tangential(ctx, &tc, &o[i], &plan) == FRICL_STATUS_OK,
          "tangential on %u threads: %s", threads[i],
          fricl_context_last_error(ctx));
    CHECK(fricl_context_last_backend(ctx) ==
              (i ? FRICL_BACKEND_HOST : FRICL_BACKEND_REFERENCE),
          "ran on");
    fricl_tangential_plan_destroy(plan);
    fricl_context_destroy(ctx);
  }
  for (int i = 1; i < 5; ++i) {
    if (!o[i].grad || !o[0].grad)
      continue;
    CHECK(!memcmp(&o[i].pot, &o[0].pot, sizeof o[0].pot) &&
              !memcmp(o[i].grad, o[0].grad, tc.nv * 3 * sizeof(double)) &&
              !memcmp(o[i].prod, o[0].prod, tc.nv * 3 * sizeof(double)) &&
              !memcmp(o[i].hess, o[0].hess, nnz * 9 * sizeof(double)) &&
              !memcmp(o[i].dpot, o[0].dpot, NT * sizeof(double)) &&
              !memcmp(o[i].loc, o[0].loc, (size_t)NT * 144 * sizeof(double)),
          "host on %u threads: not bitwise the reference", threads[i]);
  }
  for (int i = 0; i < 5; ++i) {
    free(o[i].grad), free(o[i].prod), free(o[i].hess), free(o[i].dpot);
    free(o[i].loc);
  }
  tangential_case_free(&tc);
}

/* ------------------------------------------- instruction-set variants */

#define NS 100003 /* not a multiple of any vector width */

static int same_or_nan(const double *a, const double *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (memcmp(&a[i], &b[i], sizeof a[i]) != 0 && !(isnan(a[i]) && isnan(b[i])))
      return 0;
  return 1;
}

/* The twelve terms with per-element parameters (both profiles) and two laws
 * (a stateless one with exp, LuGre stepped with RK4) on ctx, into out. */
static int isa_run(fricl_context *ctx, const double *y, const double *e,
                   const double *ms, const double *mk, double *out) {
  int ok = 1;
  for (int prof = 0; prof < 2; ++prof) {
    fricl_scalar_batch b;
    fricl_scalar_batch_init(&b);
    b.n = NS;
    b.y = y;
    b.mu_profile = (fricl_mu_profile)prof;
    b.eps_v_array = e;
    b.mu_s_array = ms;
    b.mu_k_array = mk;
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      b.out[t] = out + ((size_t)prof * FRICL_TERM_COUNT + (size_t)t) * NS;
    ok &= fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK;
  }
  double *lo = out + 2 * FRICL_TERM_COUNT * (size_t)NS;
  fricl_law_batch lb;
  fricl_law_batch_init(&lb, FRICL_LAW_EXUDYN_STRIBECK);
  lb.n = NS;
  lb.v = y;
  lb.param[0] = 0.3;
  lb.param[1] = 0.2;
  lb.force = lo;
  ok &= fricl_law_eval(ctx, &lb) == FRICL_STATUS_OK;
  fricl_law_batch_init(&lb, FRICL_LAW_LUGRE);
  static const double lp[7] = {0.5, 0.3, 1e-3, 1e5, 300, 0.4, 2};
  for (int k = 0; k < 7; ++k)
    lb.param[k] = lp[k];
  lb.n = NS / 4;
  lb.n_steps = 4;
  lb.h = 1e-4;
  lb.integrator = FRICL_INTEGRATOR_RK4;
  lb.normal_force = 10;
  lb.v = y;
  lb.force = lo + NS;
  ok &= fricl_law_step(ctx, &lb) == FRICL_STATUS_OK;
  return ok;
}

static void isa_variants(void) {
  const size_t total = (2 * FRICL_TERM_COUNT + 2) * (size_t)NS;
  double *y = malloc(NS * sizeof *y), *e = malloc(NS * sizeof *e);
  double *ms = malloc(NS * sizeof *ms), *mk = malloc(NS * sizeof *mk);
  double *ref = calloc(total, sizeof *ref), *out = calloc(total, sizeof *out);
  if (!y || !e || !ms || !mk || !ref || !out) {
    CHECK(0, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < NS; ++i) {
    y[i] = 3e-3 * ((double)((i * 7919) % 1000) / 1000.0 - 0.4);
    e[i] = 1e-3 * (1 + (double)(i % 7) / 3.0);
    ms[i] = 0.1 + (double)(i % 11) / 10.0;
    mk[i] = 0.05 + (double)(i % 13) / 12.0;
  }
  y[5] = NAN;
  y[6] = 0;
  y[7] = -0.0;
  fricl_context *r = make("reference", 0, 0);
  CHECK(r && isa_run(r, y, e, ms, mk, ref), "reference run");
  fricl_context_destroy(r);
  static const char *const isas[] = {"baseline", "avx2", "avx512"};
  for (int k = 0; k < 3; ++k) {
    setenv("FRICL_HOST_ISA", isas[k], 1);
    fricl_context *h = make("host", 2, 0);
    unsetenv("FRICL_HOST_ISA");
    if (!h)
      continue;
    memset(out, 0, total * sizeof *out);
    CHECK(isa_run(h, y, e, ms, mk, out), "host %s run: %s", isas[k],
          fricl_context_last_error(h));
    CHECK(same_or_nan(out, ref, total),
          "host (%s, variant up to %s): not bitwise the reference",
          fricl_context_device_name(h), isas[k]);
    fricl_context_destroy(h);
  }
done:
  free(y), free(e), free(ms), free(mk), free(ref), free(out);
}

/* A worker thread's failure, written while it is inside its own sink. */
typedef struct {
  fricl_context *ctx;
  fricl__error_sink sink;
} sink_job;

static void *sink_worker(void *arg) {
  sink_job *j = arg;
  fricl__error_sink *previous = fricl__sink_enter(&j->sink);
  fricl__fail(j->ctx, FRICL_STATUS_OPENCL_ERROR, "worker %d", 2);
  fricl__sink_leave(previous);
  return NULL;
}

static void error_sinks(void) {
  fricl_context *ctx = make("reference", 1, 0);
  fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, "the context's own");
  fricl__error_sink mine = {NULL};
  CHECK(strcmp(fricl__sink_message(&mine), "") == 0, "empty sink: '%s'",
        fricl__sink_message(&mine));
  fricl__error_sink *previous = fricl__sink_enter(&mine);
  CHECK(previous == NULL, "no sink was entered before");
  fricl__fail(ctx, FRICL_STATUS_OPENCL_ERROR, "caller %d", 1);
  sink_job job = {ctx, {NULL}};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, sink_worker, &job) == 0, "thread");
  pthread_join(t, NULL);
  CHECK(strcmp(fricl__sink_message(&mine), "caller 1") == 0,
        "the caller's sink: '%s'", fricl__sink_message(&mine));
  CHECK(strcmp(fricl__sink_message(&job.sink), "worker 2") == 0,
        "the worker's sink: '%s'", fricl__sink_message(&job.sink));
  fricl__clear_error(ctx); /* clears the sink, not the context */
  CHECK(strcmp(fricl__sink_message(&mine), "") == 0, "cleared sink: '%s'",
        fricl__sink_message(&mine));
  fricl__sink_leave(previous);
  CHECK(strcmp(fricl_context_last_error(ctx), "the context's own") == 0,
        "the context's message: '%s'", fricl_context_last_error(ctx));
  fricl__fail(ctx, FRICL_STATUS_OPENCL_ERROR, "after leaving");
  CHECK(strcmp(fricl_context_last_error(ctx), "after leaving") == 0,
        "after leaving: '%s'", fricl_context_last_error(ctx));
  fricl__sink_clear(&mine);
  fricl__sink_clear(&job.sink);
  fricl_context_destroy(ctx);
}

int main(void) {
  size_t count = 0;
  fricl_devices_list(NULL, 0, &count);
  auto_choice(count > 0);
  threads_bitwise();
  isa_variants();
  error_sinks();
  return test_report("test_dispatch");
}
