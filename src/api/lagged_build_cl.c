/* lagged_build_cl.c - the lagged build's cl_mem entry point: everything the
 * host can see validated (scalars, types, counts, which buffers are there,
 * their sizes and overlaps; device data is never read back), then one
 * kernel launch per group on the OpenCL backend. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/build_checks.h"
#include "api/cl_regions.h"
#include "core/fault.h"
#include "core/lagged_build.h"
#include "core/validate.h"
#include "fricl/fricl_build_cl.h"
#include "opencl/build_launch.h"

void fricl_build_batch_cl_init(fricl_build_batch_cl *batch) {
  if (fricl__struct_init(batch, sizeof *batch))
    batch->dim = 3;
}

static fricl_status check_header(fricl_context *ctx, const fricl__ocl *o,
                                 const fricl_build_batch_cl *b) {
  const fricl_precision p = b->precision;
  if (p != FRICL_F64 && p != FRICL_F32)
    return fricl__check_precision(ctx, p);
  FRICL__TRY(fricl__ocl_check_fp64(ctx, o, p, 1));
  FRICL__TRY(fricl__build_check_options(ctx, b->dim, b->flags, b->blend));
  FRICL__TRY(fricl__build_check_scalars(ctx, p, b->kappa, b->dhat, b->dmin,
                                        b->mu_s, b->mu_k));
  if (b->n_vertices > (size_t)INT32_MAX)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_vertices = %zu exceeds the int32 vertex "
                       "indices",
                       b->n_vertices);
  if (b->n_groups && !b->groups)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.groups is NULL with n_groups = %zu", b->n_groups);
  if (b->n_groups > SIZE_MAX / (32 * sizeof(fricl__cl_region)))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_groups = %zu is too large", b->n_groups);
  return FRICL_STATUS_OK;
}

static fricl_status validate(fricl_context *ctx, const fricl__ocl *o,
                             const fricl_build_batch_cl *b) {
  fricl_status st = FRICL_STATUS_OK;
  FRICL__TRY(check_header(ctx, o, b));
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t dim = (size_t)b->dim, m = dim - 1, nv = b->n_vertices;
  size_t total = 0;
  int any_out = 0;
  fricl__cl_region *r = fricl__malloc(
      (4 + FRICL__BUILD_GROUP_ARRAY_COUNT * b->n_groups) * sizeof *r);
  if (!r)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "validating");
  size_t nr = 0;
  r[nr++] = (fricl__cl_region){b->lagged_positions, nv * dim, esz,
                               "lagged_positions",  SIZE_MAX, 0};
  r[nr++] = (fricl__cl_region){b->rest_positions, nv * dim, esz,
                               "rest_positions",  SIZE_MAX, 0};
  r[nr++] =
      (fricl__cl_region){b->vertex_mu_s, nv, esz, "vertex_mu_s", SIZE_MAX, 0};
  r[nr++] =
      (fricl__cl_region){b->vertex_mu_k, nv, esz, "vertex_mu_k", SIZE_MAX, 0};
  for (size_t g = 0; g < b->n_groups && st == FRICL_STATUS_OK; ++g) {
    const fricl_build_group_cl *G = &b->groups[g];
    st = fricl__build_check_group(ctx, b->dim, g, G->type, G->count,
                                  G->vertices.mem != NULL,
                                  G->plane_normal.mem != NULL,
                                  G->plane_offset.mem != NULL, ".mem", &total);
    if (st != FRICL_STATUS_OK)
      break;
    const size_t n = G->count, k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t nb = (size_t)fricl_stencil_coord_count(G->type);
    const int pv = G->type == FRICL_STENCIL_PV;
    const fricl_buffer_cl none = {NULL, 0};
#define REGION(f, per, bytes, given, out)                                      \
  {(given) ? G->f : none, n * (per), bytes, #f, g, out},
    const fricl__cl_region gr[] = {FRICL__BUILD_GROUP_ARRAYS(REGION)};
#undef REGION
    for (size_t i = 0; i < FRICL__BUILD_GROUP_ARRAY_COUNT; ++i) {
      any_out |= gr[i].is_out && gr[i].b.mem != NULL;
      r[nr++] = gr[i];
    }
  }
  if (st == FRICL_STATUS_OK && total && !b->lagged_positions.mem)
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.lagged_positions.mem is NULL with %zu contacts",
                     total);
  if (st == FRICL_STATUS_OK && !any_out && b->n_groups)
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "no output requested: set at least one output buffer");
  if (st == FRICL_STATUS_OK)
    st = fricl__cl_check_regions(ctx, o, r, nr);
  free(r);
  return st;
}

fricl_status fricl_build_cl(fricl_context *ctx,
                            const fricl_build_batch_cl *batch, cl_uint num_wait,
                            const cl_event *wait_list, cl_event *done) {
  FRICL__ENTER_BATCH_CL(ctx, fricl_build_batch_cl, batch,
                        FRICL__MIN_BUILD_BATCH_CL, num_wait, wait_list);
  FRICL__TRY(validate(ctx, o, batch));
  return fricl__ran_on(
      ctx, &o->base,
      fricl__ocl_build_enqueue(o, batch, num_wait, wait_list, done));
}
