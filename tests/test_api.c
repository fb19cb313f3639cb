/*
 * test_api.c - the contract of the public API: version, status strings and
 * names, device specs, every invalid-argument path (status + message naming
 * the argument and first bad index, nothing written), n = 0, per-element
 * parameters, chunking, bitwise determinism, no-fp64 devices, OpenCL
 * against the reference backend, and the cl_mem tier.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "fricl/fricl_cl.h"
#include "test_util.h"

#define N 1000

static void test_version_and_names(void) {
  CHECK(fricl_version_number() == FRICL_VERSION_NUMBER, "runtime %u header %u",
        fricl_version_number(), (unsigned)FRICL_VERSION_NUMBER);
  CHECK(strcmp(fricl_version_string(), FRICL_VERSION_STRING) == 0, "version");
  CHECK(strcmp(fricl_status_string(FRICL_STATUS_OK), "success") == 0, "ok");
  CHECK(strcmp(fricl_status_string((fricl_status)12345), "unknown status") == 0,
        "unknown");
  CHECK(FRICL_STATUS_NO_FP64 == -4 && FRICL_STATUS_BUILD_FAILED == -6,
        "status values are pinned");
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    fricl_term back;
    CHECK(fricl_term_from_name(fricl_term_name((fricl_term)t), &back) ==
                  FRICL_STATUS_OK &&
              back == (fricl_term)t,
          "term %d round trip", t);
  }
  fricl_term tt;
  CHECK(fricl_term_from_name("smooth_friction_f9", &tt) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "unknown term");
  CHECK(fricl_term_name(FRICL_TERM_COUNT) == NULL, "term out of range");
  fricl_mu_profile p;
  CHECK(fricl_mu_profile_from_name("ipctk", &p) == FRICL_STATUS_OK &&
            p == FRICL_MU_IPCTK,
        "profile");
  CHECK(fricl_mu_profile_from_name("quadratic", &p) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "unknown profile");
}

static void test_device_specs(void) {
  fricl_context_params prm;
  fricl_context_params_init(&prm);
  char err[256];
  prm.error_buffer = err;
  prm.error_buffer_size = sizeof err;
  fricl_context *ctx = (fricl_context *)1;
  prm.device = "opencl:97:3";
  CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_DEVICE_NOT_FOUND,
        "missing device");
  CHECK(ctx == NULL && strstr(err, "opencl:97:3") != NULL, "message: %s", err);
  prm.device = "tpu";
  CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_INVALID_ARGUMENT,
        "bad spec");
  CHECK(strstr(err, "tpu") != NULL, "message: %s", err);
  prm.device = "opencl:0:x";
  CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_INVALID_ARGUMENT,
        "malformed spec");
  /* Indices past INT_MAX are refused, not wrapped (4294967297 was taken as
   * 1), alone and inside a device list; INT_MAX itself is an index. */
  size_t n_dev = 0;
  fricl_devices_list(NULL, 0, &n_dev);
  static const char *const overflow[] = {
      "opencl:0:4294967297", "opencl:4294967296:0", "opencl:0:2147483648",
      "opencl:0:99999999999999999999", "opencl:-1:0"};
  for (size_t i = 0; i < sizeof overflow / sizeof *overflow; ++i) {
    char list[2][96];
    snprintf(list[0], sizeof list[0], "%s,opencl:0:0", overflow[i]);
    /* After a device that exists (resolved first): only with one. */
    snprintf(list[1], sizeof list[1], "opencl:0:0,%s", overflow[i]);
    const char *const specs[3] = {overflow[i], list[0], list[1]};
    for (int j = 0; j < (n_dev ? 3 : 2); ++j) {
      prm.device = specs[j];
      CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_INVALID_ARGUMENT &&
                strstr(err, overflow[i]) != NULL,
            "%s: %s", specs[j], err);
    }
  }
  prm.device = "opencl:0:2147483647";
  CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_DEVICE_NOT_FOUND,
        "%s: %s", prm.device, err);
  prm.device = "reference";
  CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_OK, "reference");
  CHECK(fricl_context_backend(ctx) == FRICL_BACKEND_REFERENCE, "backend");
  CHECK(!fricl_context_fell_back(ctx), "explicit reference is no fallback");
  CHECK(fricl_context_get_cl(ctx, NULL, NULL, NULL) == FRICL_STATUS_UNSUPPORTED,
        "no cl objects on reference");
  fricl_context_destroy(ctx);
  fricl_context_destroy(NULL); /* NULL-safe */
  prm.device = "auto";
  CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_OK, "auto");
  size_t count = 0;
  fricl_devices_list(NULL, 0, &count);
  CHECK(fricl_context_fell_back(ctx) == (count == 0 ? 1 : 0),
        "auto falls back exactly when no device (%zu devices)", count);
  fricl_context_destroy(ctx);
  CHECK(fricl_devices_list(NULL, 0, NULL) == FRICL_STATUS_INVALID_ARGUMENT,
        "devices_list count NULL");
  /* FRICL_DEVICE is read when params.device is NULL. */
  setenv("FRICL_DEVICE", "opencl:41:0", 1);
  CHECK(fricl_context_create(&ctx, NULL) == FRICL_STATUS_DEVICE_NOT_FOUND,
        "FRICL_DEVICE naming a missing device");
  setenv("FRICL_DEVICE", "reference", 1);
  CHECK(fricl_context_create(&ctx, NULL) == FRICL_STATUS_OK &&
            fricl_context_backend(ctx) == FRICL_BACKEND_REFERENCE,
        "FRICL_DEVICE=reference");
  fricl_context_destroy(ctx);
  unsetenv("FRICL_DEVICE");
  /* FRICL_THREADS past unsigned: as many threads as fricl takes, not the
   * value wrapped (4294967297 gave 1). */
  setenv("FRICL_THREADS", "4294967297", 1);
  prm.device = "host";
  CHECK(fricl_context_create(&ctx, &prm) == FRICL_STATUS_OK &&
            fricl_context_threads(ctx) > 1,
        "FRICL_THREADS=4294967297: %u threads", fricl_context_threads(ctx));
  fricl_context_destroy(ctx);
  unsetenv("FRICL_THREADS");
}

/* A kernel build failure returns BUILD_FAILED with the full build log in
 * the context's message, and the context stays usable. */
static void test_build_failure(const char *spec, const char *be) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  test_spec_params(&p, spec);
  /* Turns a function name into a syntax error inside the kernel source. */
  p.build_options = "-Dfricl_smooth_friction_f0=1+";
  fricl_context *ctx = NULL;
  if (fricl_context_create(&ctx, &p) != FRICL_STATUS_OK)
    return;
  double y[2] = {0, 1}, o[2];
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.n = 2;
  b.y = y;
  b.eps_v = 1.0;
  b.out[FRICL_SMOOTH_FRICTION_F0] = o;
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_BUILD_FAILED, "%s: %s", be,
        fricl_context_last_error(ctx));
  const char *msg = fricl_context_last_error(ctx);
  CHECK(strstr(msg, "build log") && strstr(msg, "error"),
        "%s: message lacks the build log: %s", be, msg);
  fricl_context_destroy(ctx);
}

/* A batch with all 12 outputs over y spanning every branch. */
typedef struct {
  double y[N], e[N], ms[N], mk[N];
  double out[FRICL_TERM_COUNT][N];
} data64;

static void fill(data64 *d) {
  for (int i = 0; i < N; ++i) {
    d->y[i] = 1e-3 * ((i % 50) / 20.0 - 0.3) * (1 + i / 997.0);
    d->e[i] = 1e-3 * (1 + (i % 7) / 3.0);
    d->ms[i] = 0.1 + (i % 11) / 10.0;
    d->mk[i] = 0.05 + (i % 13) / 12.0;
    if (i % 17 == 0)
      d->mk[i] = d->ms[i];
  }
  d->y[3] = 0.0;
  d->y[4] = -0.0;
  d->y[5] = NAN;
  d->y[6] = INFINITY;
}

static void batch_of(fricl_scalar_batch *b, data64 *d, int per_element) {
  fricl_scalar_batch_init(b);
  b->n = N;
  b->y = d->y;
  b->eps_v = 1e-3;
  b->mu_s = 0.5;
  b->mu_k = 0.3;
  if (per_element) {
    b->eps_v_array = d->e;
    b->mu_s_array = d->ms;
    b->mu_k_array = d->mk;
  }
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b->out[t] = d->out[t];
}

static int expect_invalid(fricl_context *ctx, fricl_scalar_batch *b,
                          fricl_status want, const char *needle) {
  const fricl_status st = fricl_scalar_eval(ctx, b);
  const char *msg = fricl_context_last_error(ctx);
  CHECK(st == want, "expected %s, got %s (%s)", fricl_status_string(want),
        fricl_status_string(st), msg);
  CHECK(strstr(msg, needle) != NULL, "message \"%s\" should name \"%s\"", msg,
        needle);
  return st == want;
}

static void test_invalid(fricl_context *ctx, const char *be) {
  static data64 d;
  fill(&d);
  static const double sentinel = 12345.0;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    for (int i = 0; i < N; ++i)
      d.out[t][i] = sentinel;
  fricl_scalar_batch b;
  const double bad_eps[] = {0.0, -1e-3, NAN, INFINITY};
  for (int k = 0; k < 4; ++k) {
    batch_of(&b, &d, 0);
    b.eps_v = bad_eps[k];
    expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "eps_v");
  }
  batch_of(&b, &d, 0);
  b.precision = FRICL_F32;
  b.eps_v = 1e-60; /* positive in double, zero in float */
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "float32");
  const double bad_mu[] = {-0.1, NAN, -INFINITY, INFINITY};
  for (int k = 0; k < 4; ++k) {
    batch_of(&b, &d, 0);
    b.mu_s = bad_mu[k];
    expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "mu_s");
    batch_of(&b, &d, 0);
    b.mu_k = bad_mu[k];
    expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "mu_k");
  }
  /* mu is neither read nor validated when no mu term is requested. */
  batch_of(&b, &d, 0);
  b.mu_s = NAN;
  for (int t = FRICL_SMOOTH_MU; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = NULL;
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "%s: mollifier only",
        be);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    for (int i = 0; i < N; ++i)
      d.out[t][i] = sentinel;
  /* Per-element arrays: the first bad index is named. */
  static double arr[N];
  for (int i = 0; i < N; ++i)
    arr[i] = 0.4;
  arr[617] = -2.0;
  arr[800] = NAN;
  batch_of(&b, &d, 1);
  b.mu_k_array = arr;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "mu_k_array[617]");
  batch_of(&b, &d, 1);
  b.eps_v_array = arr;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "eps_v_array[617]");
  /* NULL pointers, bad enums, nothing requested, overlap, struct size. */
  batch_of(&b, &d, 0);
  b.y = NULL;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.y");
  batch_of(&b, &d, 0);
  b.precision = (fricl_precision)7;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "precision");
  batch_of(&b, &d, 0);
  b.mu_profile = (fricl_mu_profile)9;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "mu_profile");
  batch_of(&b, &d, 0);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = NULL;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "no term");
  batch_of(&b, &d, 0);
  b.out[FRICL_SMOOTH_MU_F2] = (void *)d.y;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "overlaps input y");
  batch_of(&b, &d, 0);
  b.out[FRICL_SMOOTH_MU_F2] = d.out[FRICL_SMOOTH_MU_F1] + 10;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "overlaps");
  batch_of(&b, &d, 0);
  b.struct_size = 8;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "struct_size");
  CHECK(fricl_scalar_eval(ctx, NULL) == FRICL_STATUS_INVALID_ARGUMENT, "NULL");
  CHECK(fricl_scalar_eval(NULL, &b) == FRICL_STATUS_INVALID_ARGUMENT, "NULL");
  /* Nothing was written by any rejected call. */
  int untouched = 1;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    for (int i = 0; i < N; ++i)
      untouched &= d.out[t][i] == sentinel;
  CHECK(untouched, "%s: a rejected call wrote output", be);
  /* n = 0 is a valid no-op, NULL arrays allowed. */
  batch_of(&b, &d, 0);
  b.n = 0;
  b.y = NULL;
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "n = 0: %s",
        fricl_context_last_error(ctx));
  CHECK(fricl_context_last_error(ctx)[0] == '\0', "success clears the error");
  /* The terms mask: n = 0 needs no output pointers at all; a requested term
   * without an output is named; an output of an unrequested term is left
   * alone; bits beyond the twelve terms are rejected. */
  fricl_scalar_batch_init(&b);
  b.terms = FRICL_TERMS_ALL;
  b.eps_v = 1e-3;
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "terms, n = 0: %s",
        fricl_context_last_error(ctx));
  batch_of(&b, &d, 0);
  b.terms = FRICL_TERM_BIT(FRICL_SMOOTH_MU_F2);
  b.out[FRICL_SMOOTH_MU_F2] = NULL;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT,
                 "batch.out[smooth_mu_f2] is NULL");
  b.terms = 1u << 20;
  expect_invalid(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.terms");
  batch_of(&b, &d, 0);
  b.terms = FRICL_TERM_BIT(FRICL_SMOOTH_FRICTION_F1);
  d.out[FRICL_SMOOTH_MU][0] = -7.0;
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "terms subset");
  CHECK(d.out[FRICL_SMOOTH_MU][0] == -7.0 &&
            d.out[FRICL_SMOOTH_FRICTION_F1][1] != -7.0,
        "%s: an unrequested output was written", be);
  /* prepare builds (or, on the reference backend, skips) the same kernel. */
  batch_of(&b, &d, 1);
  CHECK(fricl_scalar_prepare(ctx, &b) == FRICL_STATUS_OK, "prepare: %s",
        fricl_context_last_error(ctx));
  b.precision = (fricl_precision)3;
  CHECK(fricl_scalar_prepare(ctx, &b) == FRICL_STATUS_INVALID_ARGUMENT,
        "prepare validates");
}

/* Inputs never written; NaN propagates; mu_s == mu_k ignores a NaN y. */
static void test_inputs_and_nan(fricl_context *ctx, const char *be) {
  static data64 d, copy;
  fill(&d);
  copy = d;
  fricl_scalar_batch b;
  batch_of(&b, &d, 1);
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "%s",
        fricl_context_last_error(ctx));
  CHECK(memcmp(d.y, copy.y, sizeof d.y) == 0 &&
            memcmp(d.e, copy.e, sizeof d.e) == 0 &&
            memcmp(d.ms, copy.ms, sizeof d.ms) == 0 &&
            memcmp(d.mk, copy.mk, sizeof d.mk) == 0,
        "%s: inputs modified", be);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    const int mu_const =
        (t == FRICL_SMOOTH_MU || t == FRICL_SMOOTH_MU_DERIVATIVE) &&
        d.ms[5] == d.mk[5];
    CHECK(mu_const || isnan(d.out[t][5]), "%s: %s(NaN) = %g", be,
          fricl_term_name((fricl_term)t), d.out[t][5]);
  }
  double y = NAN, mu = 0, mup = 1;
  batch_of(&b, &d, 0);
  b.n = 1;
  b.y = &y;
  b.mu_s = b.mu_k = 0.4;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = NULL;
  b.out[FRICL_SMOOTH_MU] = &mu;
  b.out[FRICL_SMOOTH_MU_DERIVATIVE] = &mup;
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "eval");
  CHECK(mu == 0.4 && mup == 0.0, "%s: mu_s == mu_k with NaN y: %g %g", be, mu,
        mup);
}

/* Per-element parameters equal scalar parameters where they agree; chunked
 * runs equal unchunked ones; repeated runs are bitwise identical. */
static void test_chunks_and_determinism(const char *spec, const char *be) {
  static data64 a, b1, c;
  fill(&a);
  fricl_scalar_batch b;
  fricl_context *whole = test_context(spec, 0, 0);
  fricl_context *chunked = test_context(spec, 7, 0);
  if (!whole || !chunked)
    goto cleanup;
  batch_of(&b, &a, 1);
  CHECK(fricl_scalar_eval(whole, &b) == FRICL_STATUS_OK, "eval");
  b1 = a;
  batch_of(&b, &b1, 1);
  CHECK(fricl_scalar_eval(whole, &b) == FRICL_STATUS_OK, "eval");
  CHECK(memcmp(a.out, b1.out, sizeof a.out) == 0, "%s: not deterministic", be);
  c = a;
  memset(c.out, 0, sizeof c.out);
  batch_of(&b, &c, 1);
  CHECK(fricl_scalar_eval(chunked, &b) == FRICL_STATUS_OK, "chunked: %s",
        fricl_context_last_error(chunked));
  CHECK(memcmp(a.out, c.out, sizeof a.out) == 0, "%s: chunked != whole", be);
  /* Scalars vs arrays holding the same values. */
  for (int i = 0; i < N; ++i) {
    c.e[i] = 1e-3;
    c.ms[i] = 0.5;
    c.mk[i] = 0.3;
  }
  batch_of(&b, &c, 1);
  CHECK(fricl_scalar_eval(whole, &b) == FRICL_STATUS_OK, "eval");
  batch_of(&b, &b1, 0);
  CHECK(fricl_scalar_eval(chunked, &b) == FRICL_STATUS_OK, "eval");
  CHECK(memcmp(b1.out, c.out, sizeof c.out) == 0,
        "%s: scalar and per-element parameters differ", be);
cleanup:
  fricl_context_destroy(whole);
  fricl_context_destroy(chunked);
}

/* A context that must not use fp64 says so for f64 and still runs f32. */
static void test_no_fp64(const char *spec, const char *be) {
  fricl_context *ctx = test_context(spec, 0, FRICL_CONTEXT_FLAG_NO_FP64);
  if (!ctx)
    return;
  CHECK(!fricl_context_has_fp64(ctx), "flag");
  static data64 d;
  fill(&d);
  fricl_scalar_batch b;
  batch_of(&b, &d, 0);
  expect_invalid(ctx, &b, FRICL_STATUS_NO_FP64, "double precision");
  float y[4] = {0.0f, 2.5e-4f, 7.5e-4f, 2e-3f}, o[4];
  fricl_scalar_batch_init(&b);
  b.precision = FRICL_F32;
  b.n = 4;
  b.y = y;
  b.eps_v = 1e-3;
  b.out[FRICL_SMOOTH_FRICTION_F1] = o;
  CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "%s f32: %s", be,
        fricl_context_last_error(ctx));
  CHECK(o[0] == 0.0f && o[1] == 0.4375f && o[2] == 0.9375f && o[3] == 1.0f,
        "%s f32 f1: %g %g %g %g", be, o[0], o[1], o[2], o[3]);
  fricl_context_destroy(ctx);
}

/* OpenCL (and host) f64 against the reference backend: bitwise equal. Both
 * evaluate the same header with no FP contraction, and OpenCL requires
 * correctly rounded f64 arithmetic, so any difference is a bug (a contracted
 * FMA, a non-IEEE division, a different branch). */
static void test_against_reference(fricl_context *cl, const char *be) {
  fricl_context *ref = test_context("reference", 0, 0);
  static data64 a, r;
  fill(&a);
  for (int p = 0; ref && p < 2; ++p) {
    r = a;
    fricl_scalar_batch b;
    batch_of(&b, &a, 1);
    b.mu_profile = (fricl_mu_profile)p;
    CHECK(fricl_scalar_eval(cl, &b) == FRICL_STATUS_OK, "cl");
    batch_of(&b, &r, 1);
    b.mu_profile = (fricl_mu_profile)p;
    CHECK(fricl_scalar_eval(ref, &b) == FRICL_STATUS_OK, "ref");
    size_t same = 0, total = 0;
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      for (int i = 0; i < N; ++i, ++total) {
        const double x = a.out[t][i], z = r.out[t][i];
        const int eq = memcmp(&x, &z, sizeof x) == 0 || (isnan(x) && isnan(z));
        same += eq;
        CHECK(eq, "%s %s %s[%d]: %a vs reference %a", be,
              fricl_mu_profile_name((fricl_mu_profile)p),
              fricl_term_name((fricl_term)t), i, x, z);
      }
    printf("%s vs reference (%s, f64): %zu of %zu results bitwise equal\n", be,
           fricl_mu_profile_name((fricl_mu_profile)p), same, total);
  }
  fricl_context_destroy(ref);
}

/* The cl_mem tier: offsets, wait lists, events, and its own validation. */
static void test_cl_tier(fricl_context *ctx, const char *be) {
  cl_context cctx;
  cl_command_queue q;
  CHECK(fricl_context_get_cl(ctx, &cctx, NULL, &q) == FRICL_STATUS_OK, "get");
  static data64 d;
  fill(&d);
  cl_int err;
  const size_t off = 5, n = N - off;
  cl_mem y = clCreateBuffer(cctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            sizeof d.y, d.y, &err);
  cl_mem o =
      clCreateBuffer(cctx, CL_MEM_READ_WRITE, sizeof d.y + 3 * 8, NULL, &err);
  fricl_scalar_batch_cl b;
  fricl_scalar_batch_cl_init(&b);
  b.n = n;
  b.y = (fricl_buffer_cl){y, off};
  b.eps_v = 1e-3;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  b.out[FRICL_SMOOTH_MU_F2] = (fricl_buffer_cl){o, 3};
  cl_event done = NULL;
  CHECK(fricl_scalar_eval_cl(ctx, &b, 0, NULL, &done) == FRICL_STATUS_OK,
        "%s: %s", be, fricl_context_last_error(ctx));
  double got[N];
  if (done) {
    clEnqueueReadBuffer(q, o, CL_TRUE, 3 * sizeof(double), n * sizeof(double),
                        got, 1, &done, NULL);
    clReleaseEvent(done);
  }
  /* Same values as the host tier on the same device. */
  double want[N];
  fricl_scalar_batch hb;
  fricl_scalar_batch_init(&hb);
  hb.n = n;
  hb.y = d.y + off;
  hb.eps_v = 1e-3;
  hb.mu_s = 0.5;
  hb.mu_k = 0.3;
  hb.out[FRICL_SMOOTH_MU_F2] = want;
  CHECK(fricl_scalar_eval(ctx, &hb) == FRICL_STATUS_OK, "host");
  CHECK(memcmp(got, want, n * sizeof(double)) == 0,
        "%s: cl tier with offsets != host tier", be);
  b.mu_k = -1;
  CHECK(fricl_scalar_eval_cl(ctx, &b, 0, NULL, NULL) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "mu_k"),
        "cl tier validates scalars");
  b.mu_k = 0.3;
  CHECK(fricl_scalar_eval_cl(ctx, &b, 2, NULL, NULL) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "wait list NULL with count");
  b.n = 0;
  CHECK(fricl_scalar_eval_cl(ctx, &b, 0, NULL, &done) == FRICL_STATUS_OK,
        "n = 0");
  if (done) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
  clReleaseMemObject(y);
  clReleaseMemObject(o);
  /* Adopting the same OpenCL objects gives an equivalent context. */
  cl_device_id dev;
  fricl_context_get_cl(ctx, NULL, &dev, NULL);
  fricl_context *adopted = NULL;
  CHECK(fricl_context_create_from_cl(&adopted, cctx, dev, q, NULL) ==
            FRICL_STATUS_OK,
        "create_from_cl");
  if (adopted) {
    double again[N];
    hb.out[FRICL_SMOOTH_MU_F2] = again;
    CHECK(fricl_scalar_eval(adopted, &hb) == FRICL_STATUS_OK, "adopted eval");
    CHECK(memcmp(again, want, n * sizeof(double)) == 0, "adopted differs");
    fricl_context_destroy(adopted);
  }
}

int main(void) {
  test_version_and_names();
  test_device_specs();
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx)
      continue;
    test_invalid(ctx, be[i].label);
    test_inputs_and_nan(ctx, be[i].label);
    test_chunks_and_determinism(be[i].spec, be[i].label);
    test_no_fp64(be[i].spec, be[i].label);
    if (fricl_context_backend(ctx) == FRICL_BACKEND_HOST)
      test_against_reference(ctx, be[i].label);
    if (fricl_context_backend(ctx) == FRICL_BACKEND_OPENCL) {
      test_against_reference(ctx, be[i].label);
      test_build_failure(be[i].spec, be[i].label);
      test_cl_tier(ctx, be[i].label);
    }
    fricl_context_destroy(ctx);
  }
  return test_report("test_api");
}
