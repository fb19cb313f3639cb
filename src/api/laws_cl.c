/* laws_cl.c - the friction laws' cl_mem entry points: the batch validated
 * on the host (per-element device arrays are not read back), then enqueued
 * on the OpenCL backend. */
#include <math.h>
#include <string.h>

#include "api/laws_checks.h"
#include "opencl/opencl.h"

#define FAIL(...) fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, __VA_ARGS__)

void fricl_law_batch_cl_init(fricl_law_batch_cl *batch, fricl_law law) {
  if (!batch)
    return;
  memset(batch, 0, sizeof *batch);
  batch->struct_size = (uint32_t)sizeof *batch;
  batch->law = law;
  batch->n_steps = 1;
  batch->normal_force = NAN;
  const fricl__law_meta *m = fricl__law_meta_get(law);
  for (int k = 0; m && k < m->info.param_count; ++k)
    batch->param[k] = m->info.params[k].default_value;
}

static fricl_status run_cl(fricl_context *ctx, const fricl_law_batch_cl *b,
                           int stepping, cl_uint num_wait,
                           const cl_event *wait_list, cl_event *done) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  fricl__clear_error(ctx);
  if (!b)
    return FAIL("batch is NULL");
  fricl__ocl *o = NULL;
  fricl_status ost = fricl__ocl_entry(
      ctx, stepping ? "fricl_law_step_cl" : "fricl_law_eval_cl", num_wait,
      wait_list, &o);
  if (ost != FRICL_STATUS_OK)
    return ost;
  /* The caller's layout (perhaps an older one) over its law's defaults. */
  fricl_law_batch_cl in;
  fricl_law_batch_cl_init(&in,
                          fricl__struct_size_of(b) >= FRICL__MIN_LAW_BATCH_CL
                              ? b->law
                              : FRICL_LAW_COULOMB);
  ost = fricl__struct_in(ctx, "batch", &in, sizeof in, b,
                         FRICL__MIN_LAW_BATCH_CL, "fricl_law_batch_cl_init");
  if (ost != FRICL_STATUS_OK)
    return ost;
  b = &in;
  fricl__law_view w;
  memset(&w, 0, sizeof w);
  w.prec = b->precision;
  w.law = b->law;
  w.options = b->options;
  w.n = b->n;
  w.n_steps = b->n_steps;
  w.h = b->h;
  w.integ = b->integrator;
  w.v = b->v.mem != NULL;
  w.x = b->x.mem != NULL;
  w.normal = b->normal.mem != NULL;
  w.normal_per_step = b->normal_per_step;
  w.normal_force = b->normal_force;
  w.param = b->param;
  for (int k = 0; k < FRICL_LAW_MAX_PARAMS; ++k)
    w.param_array[k] = b->param_array[k].mem != NULL;
  w.gms_elements = b->gms_elements;
  w.ge = b->gms_params.mem != NULL;
  w.ge_per_element = b->gms_params_per_element;
  w.state = b->state.mem != NULL;
  w.state_out = b->state_out.mem != NULL;
  w.same_state = b->state.mem && b->state_out.mem == b->state.mem &&
                 b->state_out.offset == b->state.offset;
  w.force = b->force.mem != NULL;
  w.dstate = b->dstate.mem != NULL;
  fricl__law_plan pl;
  fricl_status st = fricl__law_check_view(ctx, &w, stepping, &pl);
  if (st == FRICL_STATUS_OK && pl.prec == FRICL_F64 && !o->base.has_fp64)
    st = fricl__fail(ctx, FRICL_STATUS_NO_FP64,
                     "device \"%s\" has no double precision: use FRICL_F32 "
                     "or another device",
                     o->name);
  if (st != FRICL_STATUS_OK)
    return st;
  if (b->n == 0)
    return fricl__ocl_marker(o, num_wait, wait_list, done);
  st = fricl__ocl_laws_enqueue(o, &pl, b, num_wait, wait_list, done);
  if (st == FRICL_STATUS_OK)
    fricl__ran_on(ctx, &o->base);
  return st;
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
