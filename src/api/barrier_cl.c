/* barrier_cl.c - the normal-contact barrier's cl_mem entry point: batch
 * parameters, types, counts, the caller's buffers (context, size,
 * overlaps: api/cl_regions.h) and the plan validated on the host (device
 * data is never read back), then enqueued on the context's OpenCL device
 * (src/opencl/barrier.c). */
#include <string.h>

#include "api/cl_regions.h"
#include "api/tangential_checks.h"
#include "core/barrier.h"
#include "opencl/opencl.h"

void fricl_barrier_batch_cl_init(fricl_barrier_batch_cl *batch) {
  if (fricl__struct_init(batch, sizeof *batch))
    batch->dim = 3;
}

static fricl_status validate_cl(fricl_context *ctx, const fricl__ocl *o,
                                const fricl_barrier_batch_cl *b, int *want) {
  FRICL__TRY(fricl__barrier_check_params(ctx, b->precision, b->psd, b->flags,
                                         b->dhat, b->kappa, b->dmin));
  FRICL__TRY(fricl__ocl_check_fp64(ctx, o, b->precision, 1));
  FRICL__TRY(fricl__tangential_check_sizes(
      ctx, b->dim, b->n_vertices, b->n_groups, !b->groups, "n_groups"));
  const size_t dim = (size_t)b->dim, esz = fricl__elem_bytes(b->precision);
  const size_t nvd = b->n_vertices * dim;
  const int gathered =
      b->gradient.mem || b->hessian_values.mem || b->hessian_product.mem;
  int any = gathered || b->potential.mem;
  int w = b->gradient.mem ? 1 : 0;
  if (b->hessian_values.mem || b->hessian_product.mem)
    w = 2;
  size_t total = 0;
  /* The caller's buffers, checked together once the rest is valid. */
  fricl__cl_region r[7 + 9 * FRICL_MAX_GROUPS];
  size_t nr = 0;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_barrier_group_cl *G = &b->groups[g];
    FRICL__TRY(fricl__check_group(ctx, b->dim, g, G->type, G->count, &total));
    const char *name = fricl_stencil_name(G->type);
    any |= G->potential.mem || G->local_gradient.mem || G->local_hessian.mem;
    if (G->local_gradient.mem && w < 1)
      w = 1;
    if (G->local_hessian.mem)
      w = 2;
    const size_t n = G->count, k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t ndof = k * dim;
    const int pv = G->type == FRICL_STENCIL_PV;
    if (n && !G->vertices.mem)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s): vertices.mem is NULL with count = "
                         "%zu",
                         g, name, n);
    if (n && pv && (!G->plane_normal.mem || !G->plane_offset.mem))
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (pv): plane_%s.mem is NULL with count = "
                         "%zu",
                         g, G->plane_normal.mem ? "offset" : "normal", n);
    const fricl_buffer_cl none = {NULL, 0};
    const fricl__cl_region gr[] = {
        {G->vertices, n * k, sizeof(int32_t), "vertices", g, 0},
        {G->weight, n, esz, "weight", g, 0},
        {G->dmin, n, esz, "dmin", g, 0},
        {pv ? G->plane_normal : none, n * dim, esz, "plane_normal", g, 0},
        {pv ? G->plane_offset : none, n, esz, "plane_offset", g, 0},
        {G->distance_type, n, 1, "distance_type", g, 0},
        {G->potential, n, esz, "potential", g, 1},
        {G->local_gradient, n * ndof, esz, "local_gradient", g, 1},
        {G->local_hessian, n * ndof * ndof, esz, "local_hessian", g, 1}};
    for (size_t i = 0; i < sizeof gr / sizeof gr[0]; ++i)
      r[nr++] = gr[i];
  }
  if (!any)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "no output requested: set at least one of potential, "
                       "gradient, hessian_values, hessian_product or a "
                       "group's per-contact outputs");
  if (total && !b->positions.mem)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.positions.mem is NULL with n_vertices = %zu",
                       b->n_vertices);
  const fricl_tangential_plan *plan = b->plan;
  FRICL__TRY(FRICL__CL_CHECK_GATHERS(ctx, b, fricl_barrier_group_cl,
                                     "fricl_barrier_plan_create"));
  const fricl__cl_region gl[] = {
      {b->positions, nvd, esz, "positions", SIZE_MAX, 0},
      {b->rest_positions, nvd, esz, "rest_positions", SIZE_MAX, 0},
      {b->direction, nvd, esz, "direction", SIZE_MAX, 0},
      {b->potential, 1, esz, "potential", SIZE_MAX, 1},
      {b->gradient, nvd, esz, "gradient", SIZE_MAX, 1},
      {b->hessian_product, nvd, esz, "hessian_product", SIZE_MAX, 1},
      {b->hessian_values, plan ? plan->nnz * dim * dim : 0, esz,
       "hessian_values", SIZE_MAX, 1}};
  for (size_t i = 0; i < sizeof gl / sizeof gl[0]; ++i)
    r[nr++] = gl[i];
  FRICL__TRY(fricl__cl_check_regions(ctx, o, r, nr));
  *want = w;
  return FRICL_STATUS_OK;
}

fricl_status fricl_barrier_eval_cl(fricl_context *ctx,
                                   const fricl_barrier_batch_cl *batch,
                                   cl_uint num_wait, const cl_event *wait_list,
                                   cl_event *done) {
  FRICL__ENTER_BATCH_CL(ctx, fricl_barrier_batch_cl, batch,
                        FRICL__MIN_BARRIER_BATCH_CL, num_wait, wait_list);
  int want = 0;
  FRICL__TRY(validate_cl(ctx, o, batch, &want));
  return fricl__ran_on(
      ctx, &o->base,
      fricl__ocl_barrier_enqueue(o, batch, want, num_wait, wait_list, done));
}
