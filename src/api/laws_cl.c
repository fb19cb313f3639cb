/* laws_cl.c - the friction laws' cl_mem entry points: the batch validated
 * on the host (per-element device arrays are not read back), then enqueued
 * on the OpenCL backend. */
#include <math.h>
#include <string.h>

#include "api/laws_checks.h"
#include "opencl/opencl.h"

#define FAIL(...) fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, __VA_ARGS__)

void fricl_law_batch_cl_init(fricl_law_batch_cl *batch, fricl_law law) {
  if (fricl__struct_init(batch, sizeof *batch))
    FRICL__LAW_BATCH_DEFAULTS(batch, law);
}

/* The cl_mem tier's arrays are buffers (and offsets in them). */
#define PRESENT(a) ((a).mem != NULL)
#define SAME(a, b) ((a).mem == (b).mem && (a).offset == (b).offset)

static fricl_status run_cl(fricl_context *ctx, const fricl_law_batch_cl *b,
                           int stepping, cl_uint num_wait,
                           const cl_event *wait_list, cl_event *done) {
  FRICL__TRY(fricl__enter(ctx, b, "batch is NULL"));
  fricl__ocl *o = NULL;
  FRICL__TRY(fricl__ocl_entry(
      ctx, stepping ? "fricl_law_step_cl" : "fricl_law_eval_cl", num_wait,
      wait_list, &o));
  /* The caller's layout (perhaps an older one) over its law's defaults. */
  FRICL__LAW_STRUCT_IN(ctx, fricl_law_batch_cl, b, in, FRICL__MIN_LAW_BATCH_CL);
  fricl__law_view w;
  FRICL__LAW_VIEW(&w, b, PRESENT, SAME);
  fricl__law_plan pl;
  fricl_status st = fricl__law_check_view(ctx, &w, stepping, &pl);
  if (st == FRICL_STATUS_OK)
    st = fricl__ocl_check_fp64(ctx, o, pl.prec, 0);
  if (st != FRICL_STATUS_OK)
    return st;
  if (b->n == 0)
    return fricl__ocl_marker(o, num_wait, wait_list, done);
  return fricl__ran_on(
      ctx, &o->base,
      fricl__ocl_laws_enqueue(o, &pl, b, num_wait, wait_list, done));
}

fricl_status fricl_law_eval_cl(fricl_context *ctx,
                               const fricl_law_batch_cl *batch,
                               cl_uint num_wait, const cl_event *wait_list,
                               cl_event *done) {
  return run_cl(ctx, batch, 0, num_wait, wait_list, done);
}

fricl_status fricl_law_step_cl(fricl_context *ctx,
                               const fricl_law_batch_cl *batch,
                               cl_uint num_wait, const cl_event *wait_list,
                               cl_event *done) {
  return run_cl(ctx, batch, 1, num_wait, wait_list, done);
}
