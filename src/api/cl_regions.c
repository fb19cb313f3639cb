/* cl_regions.c - the checks of cl_regions.h. */
#include <stdio.h>

#include "api/cl_regions.h"
#include "core/fault.h"

static const char *where(char *buf, size_t size, const fricl__cl_region *r) {
  if (r->group == SIZE_MAX)
    snprintf(buf, size, "batch.%s", r->what);
  else
    snprintf(buf, size, "groups[%zu].%s", r->group, r->what);
  return buf;
}

fricl_status fricl__cl_check_regions(fricl_context *ctx, const fricl__ocl *o,
                                     const fricl__cl_region *r, size_t n) {
  char a[96], c[96];
  for (size_t i = 0; i < n; ++i) {
    if (!r[i].b.mem)
      continue;
    cl_context owner = NULL;
    size_t size = 0;
    cl_int err = clGetMemObjectInfo(r[i].b.mem, CL_MEM_CONTEXT, sizeof owner,
                                    &owner, NULL);
    if (err == CL_SUCCESS)
      err =
          clGetMemObjectInfo(r[i].b.mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "%s.mem is not a valid buffer (%s)",
                         where(a, sizeof a, &r[i]), fricl__cl_error_name(err));
    if (owner != o->cl_ctx)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "%s.mem belongs to another OpenCL context than the "
                         "fricl context's (fricl_context_get_cl)",
                         where(a, sizeof a, &r[i]));
    const size_t cap = size / r[i].esz;
    if (r[i].b.offset > cap || r[i].elems > cap - r[i].b.offset)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "%s: offset %zu + %zu elements of %zu bytes exceed "
                         "the buffer's %zu bytes",
                         where(a, sizeof a, &r[i]), r[i].b.offset, r[i].elems,
                         r[i].esz, size);
  }
  for (size_t i = 0; i < n; ++i) {
    if (!r[i].is_out || !r[i].b.mem || !r[i].elems)
      continue;
    const size_t lo = r[i].b.offset * r[i].esz, hi = lo + r[i].elems * r[i].esz;
    for (size_t j = 0; j < n; ++j) {
      if (j == i || r[j].b.mem != r[i].b.mem || !r[j].elems)
        continue;
      const size_t lo2 = r[j].b.offset * r[j].esz;
      const size_t hi2 = lo2 + r[j].elems * r[j].esz;
      if (lo < hi2 && lo2 < hi)
        return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "output %s overlaps %s %s in the same buffer: "
                           "outputs must not alias inputs or each other",
                           where(a, sizeof a, &r[i]),
                           r[j].is_out ? "output" : "input",
                           where(c, sizeof c, &r[j]));
    }
  }
  return FRICL_STATUS_OK;
}

fricl_status fricl__cl_check_gathers(fricl_context *ctx,
                                     const fricl_tangential_plan *plan,
                                     int fits, fricl__cl_gathers g,
                                     const char *create) {
  if (g.hessian_product.mem && !g.direction.mem)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.hessian_product is requested but "
                       "batch.direction.mem is NULL");
  if (!plan)
    return g.gradient.mem || g.hessian_values.mem || g.hessian_product.mem
               ? fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                             "batch.plan is required for gradient, "
                             "hessian_values and hessian_product in the "
                             "cl_mem tier: create one with %s",
                             create)
               : FRICL_STATUS_OK;
  if (plan->ctx != ctx)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.plan was created on another context");
  if (!fits)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.plan was made for another contact topology "
                       "(dim, n_vertices, group types or counts differ): "
                       "make a new plan");
  if (g.hessian_values.mem && !plan->has_bsr)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.plan has no Hessian pattern");
  return FRICL_STATUS_OK;
}
