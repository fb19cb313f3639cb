/* devices_shares.c - see devices_shares.h. */
#define _POSIX_C_SOURCE 200809L
#include "devices_shares.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fricl/fricl.h"

#define CAL_N ((size_t)1 << 20) /* elements per calibration call */
#define CAL_CALLS 5

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static fricl_context *open_ctx(const char *spec) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  fricl_context *ctx = NULL;
  if (fricl_context_create(&ctx, &p) != FRICL_STATUS_OK)
    fprintf(stderr, "fricl devices: %s: %s\n", spec, msg);
  return ctx;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Elements per second of the scalar family on ctx: the median of
 * CAL_CALLS calls after a warm-up; 0 on failure. */
static double rate(fricl_context *ctx, const double *y, double *out) {
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.precision = fricl_context_has_fp64(ctx) ? FRICL_F64 : FRICL_F32;
  b.n = b.precision == FRICL_F64 ? CAL_N : 2 * CAL_N; /* the same bytes */
  b.y = y;
  b.eps_v = 1e-3;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  b.out[FRICL_SMOOTH_MU_F1_OVER_X] = out;
  b.out[FRICL_SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3] = out + CAL_N;
  double t[CAL_CALLS];
  for (int i = -1; i < CAL_CALLS; ++i) {
    const double t0 = now();
    if (fricl_scalar_eval(ctx, &b) != FRICL_STATUS_OK)
      return 0;
    if (i >= 0)
      t[i] = now() - t0;
  }
  qsort(t, CAL_CALLS, sizeof *t, cmp);
  return (double)b.n / t[CAL_CALLS / 2];
}

int devices_shares_print(const char *list) {
  fricl_context *all = open_ctx(list);
  if (!all)
    return 1;
  fricl_context_device d[8];
  size_t n = 0;
  fricl_context_devices(all, d, 8, &n);
  if (n > 8)
    n = 8;
  double *y = malloc(2 * CAL_N * sizeof *y), *out = malloc(4 * CAL_N * 8);
  if (!y || !out) {
    free(y);
    free(out);
    fricl_context_destroy(all);
    fprintf(stderr, "fricl devices: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < 2 * CAL_N; ++i)
    y[i] = 4e-3 * ((double)(i % 1000) / 500.0 - 1.0);
  printf("\nDevice list \"%s\" (%s): calibration with the scalar family, "
         "%d calls of 2^20 elements each:\n",
         list, fricl_context_device_name(all), CAL_CALLS);
  double first = 0;
  for (size_t i = 0; i < n; ++i) {
    char spec[32];
    snprintf(spec, sizeof spec, "opencl:%d:%d", d[i].platform_index,
             d[i].device_index);
    fricl_context *one = open_ctx(spec);
    const double r = one ? rate(one, y, out) : 0;
    fricl_context_destroy(one);
    if (i == 0)
      first = r;
    printf("  %-14s alone %8.1f M elements/s\n", spec, r * 1e-6);
  }
  const double r = rate(all, y, out);
  fricl_context_devices(all, d, 8, &n);
  printf("  %-14s       %8.1f M elements/s (%.2fx the first device)\n",
         "the list", r * 1e-6, first > 0 ? r / first : 0);
  printf("  shares (scalar, tangential, build, laws, barrier):\n");
  for (size_t i = 0; i < n && i < 8; ++i)
    printf("    opencl:%d:%d  %4.0f%% %4.0f%% %4.0f%% %4.0f%% %4.0f%%\n",
           d[i].platform_index, d[i].device_index,
           100 * d[i].share[FRICL_FEATURE_SCALAR],
           100 * d[i].share[FRICL_FEATURE_TANGENTIAL],
           100 * d[i].share[FRICL_FEATURE_BUILD],
           100 * d[i].share[FRICL_FEATURE_LAWS],
           100 * d[i].share[FRICL_FEATURE_BARRIER]);
  printf("  (a feature's shares start from compute units x clock and follow "
         "each device's measured speed on that feature's calls; README, "
         "\"Several devices\")\n");
  free(y);
  free(out);
  fricl_context_destroy(all);
  return 0;
}
