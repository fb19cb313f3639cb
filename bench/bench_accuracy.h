/*
 * bench_accuracy.h - max error of a group's outputs against the
 * long-double reference (tests/ref/scalar_ref_ld.h), in ulp of the scale
 * sigma of spec 3.9, on evenly spaced elements.
 */
#ifndef FRICL_BENCH_ACCURACY_H
#define FRICL_BENCH_ACCURACY_H

#include "bench_types.h"

typedef struct bench_acc_input {
  fricl_precision prec;
  int profile; /* fricl_mu_profile the outputs were computed with */
  size_t n;
  size_t samples; /* elements checked (min(n, samples)) */
  const void *y;
  /* Per-element parameter arrays, or NULL for the batch scalars
   * BENCH_EPS_V, BENCH_MU_S, BENCH_MU_K (rounded to the precision). */
  const void *eps_v, *mu_s, *mu_k;
  const void *out[FRICL_TERM_COUNT];   /* outputs judged (NULL: not run) */
  const void *other[FRICL_TERM_COUNT]; /* optional second tier: counted
                                          when not bitwise equal to out */
} bench_acc_input;

/* Fill row->err_checked, max_err_ulp, kind_mismatches, host_mismatches,
 * term_err, term_kind and worst. */
void bench_accuracy(const bench_acc_input *in, bench_row *row);

#endif /* FRICL_BENCH_ACCURACY_H */
