/* bench_accuracy.c - see bench_accuracy.h. */
#include "bench_accuracy.h"

#include <math.h>
#include <string.h>

#include "bench_data.h"
#include "scalar_ref_ld.h"

/* A batch scalar as the kernels see it: rounded to the precision. */
static double param(fricl_precision prec, const void *arr, size_t i,
                    double scalar) {
  if (arr)
    return bench_get(prec, arr, i);
  return prec == FRICL_F32 ? (double)(float)scalar : scalar;
}

void bench_accuracy(const bench_acc_input *in, bench_row *row) {
  const size_t m = in->samples < in->n ? in->samples : in->n;
  const size_t esz = in->prec == FRICL_F32 ? sizeof(float) : sizeof(double);
  const int mant = in->prec == FRICL_F32 ? 24 : 53;
  row->err_checked = m;
  row->max_err_ulp = row->max_err_pos_ulp = row->max_err_val_ulp = 0.0;
  row->kind_mismatches = 0;
  row->host_mismatches = 0;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    row->term_err[t] = row->term_err_pos[t] = row->term_err_val[t] = 0.0;
    row->term_kind[t] = 0;
    memset(&row->worst[t], 0, sizeof row->worst[t]);
    memset(&row->first_kind[t], 0, sizeof row->first_kind[t]);
    memset(&row->worst_pos[t], 0, sizeof row->worst_pos[t]);
  }
  for (size_t k = 0; k < m; ++k) {
    /* Evenly spaced from element 0; k < 2^16 or so, hence k * n cannot
     * overflow 64 bits for any n that fits in memory. */
    const size_t i = (size_t)((unsigned long long)k * in->n / m);
    const double y = bench_get(in->prec, in->y, i);
    const double e = param(in->prec, in->eps_v, i, BENCH_EPS_V);
    const double ms = param(in->prec, in->mu_s, i, BENCH_MU_S);
    const double mk = param(in->prec, in->mu_k, i, BENCH_MU_K);
    for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
      if (!in->out[t])
        continue;
      const double got = bench_get(in->prec, in->out[t], i);
      if (in->other[t] &&
          memcmp((const char *)in->out[t] + i * esz,
                 (const char *)in->other[t] + i * esz, esz) != 0)
        ++row->host_mismatches;
      const long double ref = fricl_ref_ld_term(t, in->profile, y, e, ms, mk);
      const long double sig =
          fricl_ref_ld_term_scale(t, in->profile, y, e, ms, mk, ref);
      const double err = fricl_ref_ld_err_ulps(got, ref, sig, mant);
      const long double big = fabsl(ref) > sig ? fabsl(ref) : sig;
      const double err_val = fricl_ref_ld_err_ulps(got, ref, big, mant);
      const bench_worst here = {err, err_val, sig, y, e, ms, mk, got, ref};
      if (isinf(err)) {
        ++row->kind_mismatches;
        if (row->term_kind[t]++ == 0)
          row->first_kind[t] = here;
        continue;
      }
      if (err > row->term_err[t]) {
        row->term_err[t] = err;
        row->worst[t] = here;
      }
      if (!(y < 0.0) && err > row->term_err_pos[t]) {
        row->term_err_pos[t] = err;
        row->worst_pos[t] = here;
      }
      if (err_val > row->term_err_val[t])
        row->term_err_val[t] = err_val;
    }
  }
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    if (!in->out[t])
      continue;
    if (row->term_err[t] > row->max_err_ulp)
      row->max_err_ulp = row->term_err[t];
    if (row->term_err_pos[t] > row->max_err_pos_ulp)
      row->max_err_pos_ulp = row->term_err_pos[t];
    if (row->term_err_val[t] > row->max_err_val_ulp)
      row->max_err_val_ulp = row->term_err_val[t];
  }
}
