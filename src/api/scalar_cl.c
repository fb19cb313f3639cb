/* scalar_cl.c - the scalar family's cl_mem entry point: the same header
 * checks as the host tier, batch scalars validated on the host, then
 * enqueued on the context's OpenCL backend. */
#include <string.h>

#include "api/scalar_checks.h"
#include "opencl/opencl.h"

void fricl_scalar_batch_cl_init(fricl_scalar_batch_cl *batch) {
  fricl__struct_init(batch, sizeof *batch);
}

fricl_status fricl_scalar_eval_cl(fricl_context *ctx,
                                  const fricl_scalar_batch_cl *batch,
                                  cl_uint num_wait, const cl_event *wait_list,
                                  cl_event *done) {
  FRICL__TRY(fricl__enter(ctx, batch, "batch is NULL"));
  fricl__ocl *o = NULL;
  FRICL__TRY(fricl__ocl_of(ctx, "fricl_scalar_eval_cl", &o));
  /* The caller's layout (perhaps an older one) over our defaults. */
  FRICL__STRUCT_IN(ctx, fricl_scalar_batch_cl, batch, in,
                   FRICL__MIN_SCALAR_BATCH_CL);
  fricl_status st =
      fricl__scalar_check_header(ctx, batch->precision, batch->mu_profile);
  if (st == FRICL_STATUS_OK)
    FRICL__TRY(fricl__ocl_check_fp64(ctx, o, batch->precision, 0));
  if (num_wait > 0 && !wait_list)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "wait_list is NULL with num_wait = %u",
                       (unsigned)num_wait);
  int has_out[FRICL_TERM_COUNT];
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    has_out[t] = batch->out[t].mem != NULL;
  unsigned mask = 0;
  FRICL__TRY(fricl__scalar_requested_terms(ctx, batch->terms, has_out, batch->n,
                                           "batch.out.mem", &mask));
  if (batch->n > 0 && !batch->y.mem)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.y.mem is NULL with n = %zu", batch->n);
  const int need_mu = (mask & FRICL__SCALAR_MU_TERMS) != 0;
  if (!batch->eps_v_array.mem)
    st = fricl__check_real(ctx, batch->precision, "", "eps_v", batch->eps_v,
                           FRICL__RULE_GT0);
  if (st == FRICL_STATUS_OK && need_mu && !batch->mu_s_array.mem)
    st = fricl__check_real(ctx, batch->precision, "", "mu_s", batch->mu_s,
                           FRICL__RULE_GE0);
  if (st == FRICL_STATUS_OK && need_mu && !batch->mu_k_array.mem)
    st = fricl__check_real(ctx, batch->precision, "", "mu_k", batch->mu_k,
                           FRICL__RULE_GE0);
  if (st != FRICL_STATUS_OK)
    return st;
  if (batch->n == 0)
    /* Nothing to run, but honour the event contract with a marker. */
    return fricl__ocl_marker(o, num_wait, wait_list, done);
  fricl_scalar_batch_cl b = *batch;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (!(mask & FRICL_TERM_BIT(t)))
      b.out[t].mem = NULL;
  return fricl__ran_on(
      ctx, &o->base,
      fricl__ocl_scalar_enqueue(o, &b, num_wait, wait_list, done));
}
