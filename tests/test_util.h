/*
 * test_util.h - small helpers shared by the core tests: a check macro that
 * counts failures, the list of backends to run every test body against, and
 * error measures in ULPs of a scale.
 */
#ifndef FRICL_TEST_UTIL_H
#define FRICL_TEST_UTIL_H

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricl/fricl.h"

#include "core/internal.h"

static int test_failures = 0;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++test_failures;                                                         \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

#define TEST_MAX_BACKENDS 10

/* The backends every test body runs on: the reference backend, then each
 * OpenCL device found (FRICL_TEST_DEVICE=spec restricts to one). Says
 * loudly when no OpenCL device exists, so a skipped half is never silent. */
typedef struct {
  char spec[64];
  char label[160];
} test_backend;

static inline int test_backends(test_backend *out) {
  const char *only = getenv("FRICL_TEST_DEVICE");
  int n = 0;
  if (only && *only) {
    snprintf(out[0].spec, sizeof out[0].spec, "%s", only);
    snprintf(out[0].label, sizeof out[0].label, "%s", only);
    return 1;
  }
  snprintf(out[n].spec, sizeof out[n].spec, "reference");
  snprintf(out[n].label, sizeof out[n].label, "reference");
  ++n;
  /* The host backend twice: with fricl's thresholds, and splitting every
   * loop over its threads from one item on (FRICL_HOST_GRAIN), so that
   * the small test problems reach the multi-threaded paths. */
  snprintf(out[n].spec, sizeof out[n].spec, "host");
  snprintf(out[n].label, sizeof out[n].label, "host");
  ++n;
  snprintf(out[n].spec, sizeof out[n].spec, "host-split");
  snprintf(out[n].label, sizeof out[n].label, "host (split every loop)");
  ++n;
  fricl_device_info infos[TEST_MAX_BACKENDS - 3];
  size_t count = 0;
  fricl_devices_list(infos, TEST_MAX_BACKENDS - 3, &count);
  if (count > TEST_MAX_BACKENDS - 3)
    count = TEST_MAX_BACKENDS - 3;
  for (size_t i = 0; i < count; ++i, ++n) {
    snprintf(out[n].spec, sizeof out[n].spec, "opencl:%d:%d",
             infos[i].platform_index, infos[i].device_index);
    snprintf(out[n].label, sizeof out[n].label, "opencl:%d:%d (%s)",
             infos[i].platform_index, infos[i].device_index,
             infos[i].device_name);
  }
  if (count == 0)
    fprintf(stderr, "*** NOTE: no OpenCL device found: only the reference "
                    "backend is tested here ***\n");
  return n;
}

/* A test backend's spec into context parameters: "host-split" is the host
 * backend on three threads (then test_spec_created splits every loop from
 * one item on: the FRICL_HOST_GRAIN knob, set directly), everything else
 * is a device spec as is. */
static inline void test_spec_params(fricl_context_params *p, const char *spec) {
  if (strcmp(spec, "host-split") == 0) {
    p->device = "host";
    p->threads = 3;
  } else {
    p->device = spec;
  }
}

static inline void test_spec_created(fricl_context *ctx, const char *spec) {
  if (ctx && strcmp(spec, "host-split") == 0)
    ctx->host_grain = 1;
}

static inline fricl_context *test_context(const char *spec, size_t max_chunk,
                                          uint32_t flags) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  test_spec_params(&p, spec);
  p.max_chunk_elements = max_chunk;
  p.flags = flags;
  char err[512] = "";
  p.error_buffer = err;
  p.error_buffer_size = sizeof err;
  fricl_context *ctx = NULL;
  const fricl_status st = fricl_context_create(&ctx, &p);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "cannot create context on %s: %s: %s\n", spec,
            fricl_status_string(st), err);
    ++test_failures;
    return NULL;
  }
  test_spec_created(ctx, spec);
  return ctx;
}

/* One unit in the last place of `scale` in the given precision. */
/* H + tau I (n x n, n <= 12, row-major) has a Cholesky factor: H is
 * positive semi-definite up to tau. */
static inline int test_cholesky_ok(int n, const double *H, double tau) {
  double L[144];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = H[i * n + j] + (i == j ? tau : 0);
      for (int q = 0; q < j; ++q)
        s -= L[i * n + q] * L[j * n + q];
      if (i == j) {
        if (!(s > 0))
          return 0;
        L[i * n + i] = sqrt(s);
      } else {
        L[i * n + j] = s / L[j * n + j];
      }
    }
  return 1;
}

static inline double test_max_abs(const double *a, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i)
    m = fmax(m, fabs(a[i]));
  return m;
}

static inline double ulp_of(double scale, int f32) {
  scale = fabs(scale);
  const int mant = f32 ? 24 : 53;
  const double min_normal = f32 ? (double)FLT_MIN : DBL_MIN;
  if (scale < min_normal)
    scale = min_normal;
  int ex;
  frexp(scale, &ex); /* scale = m 2^ex, m in [0.5, 1) */
  return ldexp(1.0, ex - mant);
}

static inline int test_report(const char *name) {
  if (test_failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

#endif
