/* scalar.c - the public entry points of the scalar family (host tier):
 * validation, always complete before any work, then one work description
 * handed to the backend the dispatcher picks. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "api/scalar_checks.h"
#include "core/backend.h"

void fricl_scalar_batch_init(fricl_scalar_batch *batch) {
  fricl__struct_init(batch, sizeof *batch);
}

fricl_status fricl__scalar_check_header(fricl_context *ctx,
                                        fricl_precision prec,
                                        fricl_mu_profile profile) {
  fricl_status st = FRICL_STATUS_OK;
  if (prec != FRICL_F64 && prec != FRICL_F32)
    st = fricl__check_precision(ctx, prec);
  if (st == FRICL_STATUS_OK)
    st = fricl__check_profile(ctx, profile);
  if (st == FRICL_STATUS_OK)
    st = fricl__check_precision(ctx, prec);
  return st;
}

fricl_status fricl__scalar_requested_terms(fricl_context *ctx, uint32_t terms,
                                           const int *has_out, size_t n,
                                           const char *field, unsigned *mask) {
  unsigned m = 0;
  if (terms == 0) {
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      if (has_out[t])
        m |= FRICL_TERM_BIT(t);
  } else if (terms & ~FRICL_TERMS_ALL) {
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.terms = 0x%x has bits beyond the %d terms",
                       (unsigned)terms, FRICL_TERM_COUNT);
  } else {
    m = terms;
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      if ((m & FRICL_TERM_BIT(t)) && !has_out[t] && n > 0)
        return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "%s[%s] is NULL but the term is requested", field,
                           fricl_term_name((fricl_term)t));
  }
  if (!m)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "no term requested: set batch.terms or %s[t] for at "
                       "least one term",
                       field);
  *mask = m;
  return FRICL_STATUS_OK;
}

static fricl_status check_param_array(fricl_context *ctx, fricl_precision p,
                                      const char *name, fricl__rule rule,
                                      const void *arr, size_t n) {
  const size_t i = fricl__first_bad(ctx, p, arr, n, rule);
  if (i == SIZE_MAX)
    return FRICL_STATUS_OK;
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "%s[%zu] = %g is invalid: it must be %s (first bad "
                     "index)",
                     name, i, fricl__real_at(p, arr, i),
                     fricl__rule_text(rule));
}

static fricl_status validate_host(fricl_context *ctx,
                                  const fricl_scalar_batch *b,
                                  unsigned *mask_out) {
  fricl_status st = FRICL_STATUS_OK;
  FRICL__TRY(fricl__scalar_check_header(ctx, b->precision, b->mu_profile));
  int has_out[FRICL_TERM_COUNT];
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    has_out[t] = b->out[t] != NULL;
  unsigned mask = 0;
  FRICL__TRY(fricl__scalar_requested_terms(ctx, b->terms, has_out, b->n,
                                           "batch.out", &mask));
  *mask_out = mask;
  if (b->n > 0 && !b->y)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.y is NULL with n = %zu", b->n);
  const size_t esz = fricl__elem_bytes(b->precision);
  if (b->n > SIZE_MAX / esz)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n = %zu elements do not fit in memory", b->n);
  const int need_mu = (mask & FRICL__SCALAR_MU_TERMS) != 0;
  const struct {
    const char *name, *arr_name;
    fricl__rule rule;
    double scalar;
    const void *arr;
  } params[3] = {
      {"eps_v", "eps_v_array", FRICL__RULE_GT0, b->eps_v, b->eps_v_array},
      {"mu_s", "mu_s_array", FRICL__RULE_GE0, b->mu_s, b->mu_s_array},
      {"mu_k", "mu_k_array", FRICL__RULE_GE0, b->mu_k, b->mu_k_array}};
  for (int k = 0; k < (need_mu ? 3 : 1) && st == FRICL_STATUS_OK; ++k)
    st = params[k].arr
             ? check_param_array(ctx, b->precision, params[k].arr_name,
                                 params[k].rule, params[k].arr, b->n)
             : fricl__check_real(ctx, b->precision, "", params[k].name,
                                 params[k].scalar, params[k].rule);
  if (st != FRICL_STATUS_OK)
    return st;
  /* Outputs may overlap nothing: not an input (inputs are never written),
   * not another output (the result would depend on write order). */
  const size_t bytes = b->n * esz;
  fricl__region r[4 + FRICL_TERM_COUNT];
  static const char *const out_names[FRICL_TERM_COUNT] = {
      FRICL_TERM_MAP(FRICL__TERM_OUT_NAME)};
  size_t nr = 0;
  r[nr++] = (fricl__region){b->y, bytes, "y", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->eps_v_array, bytes, "eps_v_array", SIZE_MAX, 0};
  if (need_mu) {
    r[nr++] = (fricl__region){b->mu_s_array, bytes, "mu_s_array", SIZE_MAX, 0};
    r[nr++] = (fricl__region){b->mu_k_array, bytes, "mu_k_array", SIZE_MAX, 0};
  }
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (mask & FRICL_TERM_BIT(t))
      r[nr++] = (fricl__region){b->out[t], bytes, out_names[t], SIZE_MAX, 1};
  return fricl__check_overlaps(ctx, r, nr);
}

fricl_status fricl_scalar_eval(fricl_context *ctx,
                               const fricl_scalar_batch *batch) {
  FRICL__TRY(fricl__enter(ctx, batch, "batch is NULL"));
  /* The caller's layout (perhaps an older one) over our defaults. */
  FRICL__STRUCT_IN(ctx, fricl_scalar_batch, batch, in, FRICL__MIN_SCALAR_BATCH);
  unsigned mask = 0;
  fricl_status st = validate_host(ctx, batch, &mask);
  if (st != FRICL_STATUS_OK || batch->n == 0)
    return st;
  /* Backends see out[t] non-NULL exactly for the requested terms. */
  fricl_scalar_batch b = *batch;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (!(mask & FRICL_TERM_BIT(t)))
      b.out[t] = NULL;
  const fricl__scalar_work w = {&b, mask};
  FRICL__DISPATCH_RUN(ctx, FRICL__FEATURE_SCALAR, b.n, b.precision, scalar, &w);
}

fricl_status fricl_scalar_prepare(fricl_context *ctx,
                                  const fricl_scalar_batch *batch) {
  FRICL__TRY(fricl__enter(ctx, batch, "batch is NULL"));
  FRICL__STRUCT_IN(ctx, fricl_scalar_batch, batch, in, FRICL__MIN_SCALAR_BATCH);
  FRICL__TRY(
      fricl__scalar_check_header(ctx, batch->precision, batch->mu_profile));
  /* Prepare the backend a large call would run on ("auto": the device, if
   * it would ever take one; small calls need no preparation). A backend
   * without kernels has nothing to prepare: the header is all it checks,
   * as documented. */
  fricl__backend *be = NULL;
  fricl_status st = fricl__dispatch(ctx, FRICL__FEATURE_SCALAR, SIZE_MAX - 1,
                                    batch->precision, &be);
  if (st != FRICL_STATUS_OK || !be->ops->prepare)
    return st;
  int has_out[FRICL_TERM_COUNT];
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    has_out[t] = batch->out[t] != NULL;
  unsigned mask = 0;
  FRICL__TRY(fricl__scalar_requested_terms(ctx, batch->terms, has_out, 0,
                                           "batch.out", &mask));
  const fricl__prepare_work w = {
      FRICL__FEATURE_SCALAR,      batch->precision,
      batch->mu_profile,          mask,
      batch->eps_v_array != NULL, batch->mu_s_array != NULL,
      batch->mu_k_array != NULL,  NULL};
  return be->ops->prepare(be, &w);
}
