/*
 * bench_data.h - the benchmark's deterministic inputs and its host arrays.
 *
 * y = eps_v * t with t drawn per element from a counter-based splitmix64
 * hash of the element index, so that element i has the same value for
 * every n and every precision (up to rounding):
 *   10%  exact zeros (one in twenty of them -0)
 *    2%  exact branch points t in {1, 0.5, -1, -0.5} (|y| = e, e/2)
 *    5%  negative, t uniform in [-2, 0)
 *   83%  t uniform in [0, 2)
 * Batch parameters: eps_v = 1e-3, mu_s = 0.5, mu_k = 0.3. Per-element
 * parameters: eps_v log-uniform in [1e-4, 1e-2], mu_s uniform in [0.2, 1],
 * mu_k = mu_s * [0.3, 0.95) mostly, with 1% mu_k == mu_s (the constant
 * branch) and 3% mu_k > mu_s (kinetic above static is allowed).
 */
#ifndef FRICL_BENCH_DATA_H
#define FRICL_BENCH_DATA_H

#include <stddef.h>

#include "fricl/fricl.h"

#define BENCH_EPS_V 1e-3
#define BENCH_MU_S 0.5
#define BENCH_MU_K 0.3

/* Page-aligned, so that an OpenCL CPU driver can wrap it without copying;
 * free with bench_free. NULL on failure or bytes == 0. */
void *bench_alloc(size_t bytes);
void bench_free(void *p);

/* Fill y[0..n) (double or float per prec) with the batch-parameter data. */
void bench_fill_y(fricl_precision prec, size_t n, void *y);

/* Fill the per-element data: parameters and y = eps_v[i] * t[i]. */
void bench_fill_per_element(fricl_precision prec, size_t n, void *y,
                            void *eps_v, void *mu_s, void *mu_k);

/* Element i of an array of the working precision, widened. */
static inline double bench_get(fricl_precision prec, const void *a, size_t i) {
  return prec == FRICL_F32 ? (double)((const float *)a)[i]
                           : ((const double *)a)[i];
}

#endif /* FRICL_BENCH_DATA_H */
