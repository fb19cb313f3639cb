/* tangential_cl.c - the tangential potential's cl_mem entry point: batch
 * parameters, types, counts and the plan validated on the host (device
 * data is never read back), then enqueued on the OpenCL backend. */
#include <string.h>

#include "api/cl_regions.h"
#include "api/tangential_checks.h"
#include "opencl/opencl.h"

void fricl_tangential_batch_cl_init(fricl_tangential_batch_cl *batch) {
  if (fricl__struct_init(batch, sizeof *batch))
    batch->dim = 3;
}

static fricl_status validate_cl(fricl_context *ctx, const fricl__ocl *o,
                                const fricl_tangential_batch_cl *b,
                                int *need_hess) {
  FRICL__TRY(fricl__tangential_check_common(ctx, b->precision, b->mu_profile,
                                            b->psd, b->flags, b->eps_v));
  FRICL__TRY(fricl__tangential_check_mollifier(ctx, b->mollifier));
  FRICL__TRY(fricl__ocl_check_fp64(ctx, o, b->precision, 0));
  FRICL__TRY(fricl__tangential_check_sizes(
      ctx, b->dim, b->n_vertices, b->n_groups, !b->groups, "batch.n_groups"));
  size_t total = 0;
  int hess = b->hessian_values.mem || b->hessian_product.mem;
  int any = b->potential.mem || b->gradient.mem || hess;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_contact_group_cl *G = &b->groups[g];
    FRICL__TRY(fricl__check_group(ctx, b->dim, g, G->type, G->count, &total));
    const char *name = fricl_stencil_name(G->type);
    any |= G->potential.mem || G->local_hessian.mem || G->factored_gamma.mem ||
           G->factored_grad.mem || G->factored_hessian.mem;
    hess |= G->local_hessian.mem || G->factored_hessian.mem;
    if (!G->count)
      continue;
    const struct {
      cl_mem m;
      const char *what;
    } req[] = {
        {G->vertices.mem, "vertices"},
        {G->tangent_basis.mem, "tangent_basis"},
        {G->normal_force.mem, "normal_force"},
        {G->mu_s.mem, "mu_s"},
        {G->mu_k.mem, "mu_k"},
        {fricl_stencil_coord_count(G->type) ? G->closest_point.mem : (cl_mem)1,
         "closest_point"}};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; ++i)
      if (!req[i].m)
        return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "groups[%zu] (%s): %s.mem is NULL with count = %zu",
                           g, name, req[i].what, G->count);
  }
  if (!any)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "no output requested: set at least one output buffer");
  if (b->n_vertices && !b->velocities.mem && total)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.velocities.mem is NULL");
  FRICL__TRY(FRICL__CL_CHECK_GATHERS(ctx, b, fricl_contact_group_cl,
                                     "fricl_tangential_plan_create"));
  *need_hess = hess;
  return FRICL_STATUS_OK;
}

fricl_status fricl_tangential_eval_cl(fricl_context *ctx,
                                      const fricl_tangential_batch_cl *batch,
                                      cl_uint num_wait,
                                      const cl_event *wait_list,
                                      cl_event *done) {
  FRICL__ENTER_BATCH_CL(ctx, fricl_tangential_batch_cl, batch,
                        FRICL__MIN_TANGENTIAL_BATCH_CL, num_wait, wait_list);
  int need_hess = 0;
  FRICL__TRY(validate_cl(ctx, o, batch, &need_hess));
  return fricl__ran_on(ctx, &o->base,
                       fricl__ocl_tangential_enqueue(
                           o, batch, (fricl_tangential_plan *)batch->plan,
                           need_hess, num_wait, wait_list, done));
}
