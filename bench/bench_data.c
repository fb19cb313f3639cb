/* bench_data.c - see bench_data.h. */
#include "bench_data.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define BENCH_ALIGN 4096u

void *bench_alloc(size_t bytes) {
  if (bytes == 0 || bytes > SIZE_MAX - BENCH_ALIGN)
    return NULL;
  /* aligned_alloc wants a size that is a multiple of the alignment. */
  const size_t rounded = (bytes + BENCH_ALIGN - 1) / BENCH_ALIGN * BENCH_ALIGN;
  return aligned_alloc(BENCH_ALIGN, rounded);
}

void bench_free(void *p) { free(p); }

/* splitmix64's finaliser applied to a counter: a stateless hash, so any
 * element can be generated on its own (no sequential state). */
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Uniform in [0, 1) from 53 bits of stream `stream` of element i. */
static double u01(size_t i, unsigned stream) {
  const uint64_t h =
      mix(((uint64_t)i << 4 | stream) ^ 0x66726963ull /* fric */);
  return (double)(h >> 11) * 0x1.0p-53;
}

/* The dimensionless argument t = y / eps_v of element i. */
static double t_of(size_t i) {
  static const double branch[4] = {1.0, 0.5, -1.0, -0.5};
  const double u = u01(i, 0), v = u01(i, 1);
  if (u < 0.005)
    return -0.0;
  if (u < 0.10)
    return 0.0;
  if (u < 0.12)
    return branch[(size_t)(v * 4.0) & 3u];
  if (u < 0.17)
    return -2.0 * v;
  return 2.0 * v;
}

/* y in the working precision: the product of the working-precision eps_v
 * and t, so that t = 1 and t = 0.5 give |y| = e and e/2 exactly there. */
static void put_y(fricl_precision prec, void *y, size_t i, double eps,
                  double t) {
  if (prec == FRICL_F32)
    ((float *)y)[i] = (float)eps * (float)t;
  else
    ((double *)y)[i] = eps * t;
}

static void put(fricl_precision prec, void *a, size_t i, double v) {
  if (prec == FRICL_F32)
    ((float *)a)[i] = (float)v;
  else
    ((double *)a)[i] = v;
}

void bench_fill_y(fricl_precision prec, size_t n, void *y) {
  for (size_t i = 0; i < n; ++i)
    put_y(prec, y, i, BENCH_EPS_V, t_of(i));
}

void bench_fill_per_element(fricl_precision prec, size_t n, void *y,
                            void *eps_v, void *mu_s, void *mu_k) {
  for (size_t i = 0; i < n; ++i) {
    const double eps = pow(10.0, -4.0 + 2.0 * u01(i, 2));
    const double ms = 0.2 + 0.8 * u01(i, 3);
    const double w = u01(i, 4), v = u01(i, 5);
    const double mk = w < 0.01   ? ms                     /* constant */
                      : w < 0.04 ? ms * (1.0 + 0.5 * v)   /* mu_k > mu_s */
                                 : ms * (0.3 + 0.65 * v); /* usual */
    put(prec, eps_v, i, eps);
    put(prec, mu_s, i, ms);
    put(prec, mu_k, i, mk);
    /* eps_v as stored (rounded to the working precision) times t. */
    put_y(prec, y, i, bench_get(prec, eps_v, i), t_of(i));
  }
}
