/* scalar_eval.c - the public entry points of the scalar family: argument
 * validation (always before any work) and dispatch to a backend. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define MU_TERMS_MASK 0xFE0u /* terms 5..11 read mu_s and mu_k */

void fricl_scalar_batch_init(fricl_scalar_batch *batch) {
  if (!batch)
    return;
  memset(batch, 0, sizeof *batch);
  batch->struct_size = (uint32_t)sizeof *batch;
}

void fricl_scalar_batch_cl_init(fricl_scalar_batch_cl *batch) {
  if (!batch)
    return;
  memset(batch, 0, sizeof *batch);
  batch->struct_size = (uint32_t)sizeof *batch;
}

/* The value as the kernels will see it: rounded to float for f32. */
static double in_precision(fricl_precision p, double v) {
  return p == FRICL_F32 ? (double)(float)v : v;
}

static fricl_status check_header(fricl_context *ctx, uint32_t struct_size,
                                 size_t expected, fricl_precision prec,
                                 fricl_mu_profile profile) {
  if (struct_size < expected)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.struct_size is %u, expected %zu: initialise the "
                       "batch with its _init function",
                       (unsigned)struct_size, expected);
  if (prec != FRICL_F64 && prec != FRICL_F32)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.precision %d is not FRICL_F64 or FRICL_F32",
                       (int)prec);
  if (profile != FRICL_MU_CUBIC && profile != FRICL_MU_IPCTK)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.mu_profile %d is not cubic (0) or ipctk (1)",
                       (int)profile);
  if (prec == FRICL_F64 && !ctx->has_fp64)
    return fricl__fail(ctx, FRICL_STATUS_NO_FP64,
                       "device \"%s\" has no double precision: use FRICL_F32 "
                       "or another device",
                       ctx->device_name);
  return FRICL_STATUS_OK;
}

/* eps_v must be finite and > 0; mu finite and >= 0. */
static int param_ok(int is_eps, double v) {
  return isfinite(v) && (is_eps ? v > 0.0 : v >= 0.0);
}

static fricl_status check_scalar_param(fricl_context *ctx, fricl_precision p,
                                       const char *name, int is_eps, double v) {
  const double w = in_precision(p, v);
  if (param_ok(is_eps, w))
    return FRICL_STATUS_OK;
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "%s = %g%s is invalid: it must be finite and %s", name, v,
                     fricl__f32_note(v, w), is_eps ? "> 0" : ">= 0");
}

static fricl_status check_array_param(fricl_context *ctx, fricl_precision p,
                                      const char *name, int is_eps,
                                      const void *arr, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const double v = p == FRICL_F32 ? (double)((const float *)arr)[i]
                                    : ((const double *)arr)[i];
    if (!param_ok(is_eps, v))
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "%s[%zu] = %g is invalid: it must be finite and %s "
                         "(first bad index)",
                         name, i, v, is_eps ? "> 0" : ">= 0");
  }
  return FRICL_STATUS_OK;
}

/* The requested-term mask: `terms`, or the non-NULL outputs when it is 0.
 * Every requested term needs an output when n > 0. */
static fricl_status requested_terms(fricl_context *ctx, uint32_t terms,
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

static int overlaps(const void *a, const void *b, size_t bytes) {
  const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  return pa < pb + bytes && pb < pa + bytes;
}

static fricl_status validate_host(fricl_context *ctx,
                                  const fricl_scalar_batch *b,
                                  unsigned *mask_out) {
  fricl_status st =
      check_header(ctx, b->struct_size, sizeof *b, b->precision, b->mu_profile);
  if (st != FRICL_STATUS_OK)
    return st;
  int has_out[FRICL_TERM_COUNT];
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    has_out[t] = b->out[t] != NULL;
  unsigned mask = 0;
  st = requested_terms(ctx, b->terms, has_out, b->n, "batch.out", &mask);
  if (st != FRICL_STATUS_OK)
    return st;
  *mask_out = mask;
  if (b->n > 0 && !b->y)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.y is NULL with n = %zu", b->n);
  const size_t esz = fricl__elem_bytes(b->precision);
  if (b->n > SIZE_MAX / esz)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n = %zu elements do not fit in memory", b->n);
  const int need_mu = (mask & MU_TERMS_MASK) != 0;
  struct {
    const char *name;
    int is_eps;
    double scalar;
    const void *arr;
  } params[3] = {{"eps_v", 1, b->eps_v, b->eps_v_array},
                 {"mu_s", 0, b->mu_s, b->mu_s_array},
                 {"mu_k", 0, b->mu_k, b->mu_k_array}};
  for (int k = 0; k < (need_mu ? 3 : 1); ++k) {
    char arr_name[32];
    snprintf(arr_name, sizeof arr_name, "%s_array", params[k].name);
    st = params[k].arr
             ? check_array_param(ctx, b->precision, arr_name, params[k].is_eps,
                                 params[k].arr, b->n)
             : check_scalar_param(ctx, b->precision, params[k].name,
                                  params[k].is_eps, params[k].scalar);
    if (st != FRICL_STATUS_OK)
      return st;
  }
  /* Outputs may overlap nothing: not an input (inputs are never written),
   * not another output (the result would depend on write order). */
  const size_t bytes = b->n * esz;
  if (bytes == 0)
    return FRICL_STATUS_OK;
  const void *ins[4] = {b->y, b->eps_v_array, need_mu ? b->mu_s_array : NULL,
                        need_mu ? b->mu_k_array : NULL};
  static const char *const in_names[4] = {"y", "eps_v_array", "mu_s_array",
                                          "mu_k_array"};
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    if (!(mask & FRICL_TERM_BIT(t)))
      continue;
    for (int i = 0; i < 4; ++i)
      if (ins[i] && overlaps(b->out[t], ins[i], bytes))
        return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "batch.out[%s] overlaps input %s: inputs are never "
                           "written, use a separate output array",
                           fricl_term_name((fricl_term)t), in_names[i]);
    for (int u = t + 1; u < FRICL_TERM_COUNT; ++u)
      if ((mask & FRICL_TERM_BIT(u)) && overlaps(b->out[t], b->out[u], bytes))
        return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "batch.out[%s] overlaps batch.out[%s]",
                           fricl_term_name((fricl_term)t),
                           fricl_term_name((fricl_term)u));
  }
  return FRICL_STATUS_OK;
}

fricl_status fricl_scalar_eval(fricl_context *ctx,
                               const fricl_scalar_batch *batch) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  fricl__clear_error(ctx);
  if (!batch)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, "batch is NULL");
  unsigned mask = 0;
  fricl_status st = validate_host(ctx, batch, &mask);
  if (st != FRICL_STATUS_OK || batch->n == 0)
    return st;
  /* Backends see out[t] non-NULL exactly for the requested terms. */
  fricl_scalar_batch b = *batch;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (!(mask & FRICL_TERM_BIT(t)))
      b.out[t] = NULL;
  if (ctx->backend == FRICL_BACKEND_REFERENCE)
    return fricl__scalar_eval_ref(ctx, &b, mask);
  return fricl__scalar_eval_host_cl(ctx, &b, mask);
}

fricl_status fricl_scalar_prepare(fricl_context *ctx,
                                  const fricl_scalar_batch *batch) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  fricl__clear_error(ctx);
  if (!batch)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, "batch is NULL");
  fricl_status st = check_header(ctx, batch->struct_size, sizeof *batch,
                                 batch->precision, batch->mu_profile);
  if (st != FRICL_STATUS_OK || ctx->backend == FRICL_BACKEND_REFERENCE)
    return st;
  int has_out[FRICL_TERM_COUNT];
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    has_out[t] = batch->out[t] != NULL;
  unsigned mask = 0;
  st = requested_terms(ctx, batch->terms, has_out, 0, "batch.out", &mask);
  if (st != FRICL_STATUS_OK)
    return st;
  cl_kernel k;
  return fricl__scalar_kernel(ctx, batch->precision, batch->mu_profile, mask,
                              batch->eps_v_array != NULL,
                              batch->mu_s_array != NULL,
                              batch->mu_k_array != NULL, &k, NULL);
}

fricl_status fricl_scalar_eval_cl(fricl_context *ctx,
                                  const fricl_scalar_batch_cl *batch,
                                  cl_uint num_wait, const cl_event *wait_list,
                                  cl_event *done) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  fricl__clear_error(ctx);
  if (!batch)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, "batch is NULL");
  if (ctx->backend != FRICL_BACKEND_OPENCL)
    return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                       "fricl_scalar_eval_cl needs an OpenCL context; this one "
                       "uses %s",
                       ctx->device_name);
  fricl_status st = check_header(ctx, batch->struct_size, sizeof *batch,
                                 batch->precision, batch->mu_profile);
  if (st != FRICL_STATUS_OK)
    return st;
  if (num_wait > 0 && !wait_list)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "wait_list is NULL with num_wait = %u",
                       (unsigned)num_wait);
  int has_out[FRICL_TERM_COUNT];
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    has_out[t] = batch->out[t].mem != NULL;
  unsigned mask = 0;
  st = requested_terms(ctx, batch->terms, has_out, batch->n, "batch.out.mem",
                       &mask);
  if (st != FRICL_STATUS_OK)
    return st;
  if (batch->n > 0 && !batch->y.mem)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.y.mem is NULL with n = %zu", batch->n);
  const int need_mu = (mask & MU_TERMS_MASK) != 0;
  if (!batch->eps_v_array.mem)
    st = check_scalar_param(ctx, batch->precision, "eps_v", 1, batch->eps_v);
  if (st == FRICL_STATUS_OK && need_mu && !batch->mu_s_array.mem)
    st = check_scalar_param(ctx, batch->precision, "mu_s", 0, batch->mu_s);
  if (st == FRICL_STATUS_OK && need_mu && !batch->mu_k_array.mem)
    st = check_scalar_param(ctx, batch->precision, "mu_k", 0, batch->mu_k);
  if (st != FRICL_STATUS_OK)
    return st;
  if (batch->n == 0) {
    /* Nothing to run, but honour the event contract with a marker. */
    if (done) {
      const cl_int err = clEnqueueMarkerWithWaitList(
          ctx->queue, num_wait, num_wait ? wait_list : NULL, done);
      if (err != CL_SUCCESS)
        return fricl__fail_cl(ctx, err, "clEnqueueMarkerWithWaitList");
    }
    return FRICL_STATUS_OK;
  }
  fricl_scalar_batch_cl b = *batch;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (!(mask & FRICL_TERM_BIT(t)))
      b.out[t].mem = NULL;
  return fricl__scalar_enqueue_cl(ctx, &b, num_wait, wait_list, done);
}
