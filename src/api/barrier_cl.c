/* barrier_cl.c - the normal-contact barrier's cl_mem entry point: batch
 * parameters, types, counts, the caller's buffers (context and size) and
 * the plan validated on the host (device data is never read back), then
 * enqueued on the context's OpenCL device (src/opencl/barrier.c). */
#include <stdio.h>
#include <string.h>

#include "api/tangential_checks.h"
#include "core/barrier.h"
#include "opencl/opencl.h"

#define BAR_MAX_GROUPS 64

void fricl_barrier_batch_cl_init(fricl_barrier_batch_cl *batch) {
  if (!batch)
    return;
  memset(batch, 0, sizeof *batch);
  batch->struct_size = (uint32_t)sizeof *batch;
  batch->dim = 3;
}

/* A present buffer belongs to the device's context and holds offset +
 * elems elements of esz bytes. g = SIZE_MAX: a batch field. */
static fricl_status check_buffer(fricl_context *ctx, const fricl__ocl *o,
                                 size_t g, const char *what,
                                 fricl_buffer_cl buf, size_t elems,
                                 size_t esz) {
  if (!buf.mem)
    return FRICL_STATUS_OK;
  char name[96];
  if (g == SIZE_MAX)
    snprintf(name, sizeof name, "batch.%s", what);
  else
    snprintf(name, sizeof name, "groups[%zu].%s", g, what);
  cl_context owner = NULL;
  size_t size = 0;
  cl_int err =
      clGetMemObjectInfo(buf.mem, CL_MEM_CONTEXT, sizeof owner, &owner, NULL);
  if (err == CL_SUCCESS)
    err = clGetMemObjectInfo(buf.mem, CL_MEM_SIZE, sizeof size, &size, NULL);
  if (err != CL_SUCCESS)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "%s.mem is not a valid buffer (%s)", name,
                       fricl__cl_error_name(err));
  if (owner != o->cl_ctx)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "%s.mem belongs to another OpenCL context than the "
                       "fricl context's device",
                       name);
  if (buf.offset > size / esz || elems > size / esz - buf.offset)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "%s: offset %zu + %zu elements of %zu bytes exceed the "
                       "buffer's %zu bytes",
                       name, buf.offset, elems, esz, size);
  return FRICL_STATUS_OK;
}

static fricl_status validate_cl(fricl_context *ctx, const fricl__ocl *o,
                                const fricl_barrier_batch_cl *b, int *want) {
  fricl_status st = fricl__check_struct_size(
      ctx, "batch", b->struct_size, sizeof *b, "fricl_barrier_batch_cl_init");
  if (st == FRICL_STATUS_OK)
    st = fricl__barrier_check_params(ctx, b->precision, b->psd, b->flags,
                                     b->dhat, b->kappa, b->dmin);
  if (st == FRICL_STATUS_OK && b->precision == FRICL_F64 &&
      (!o->base.has_fp64 || (ctx->flags & FRICL_CONTEXT_FLAG_NO_FP64)))
    st = fricl__fail(ctx, FRICL_STATUS_NO_FP64,
                     "device \"%s\" has no double precision: use FRICL_F32 "
                     "or another device",
                     o->name);
  if (st == FRICL_STATUS_OK)
    st = fricl__tangential_check_sizes(ctx, b->dim, b->n_vertices, b->n_groups,
                                       !b->groups);
  if (st != FRICL_STATUS_OK)
    return st;
  if (b->n_groups > BAR_MAX_GROUPS)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "n_groups = %zu: at most %d groups per call",
                       b->n_groups, BAR_MAX_GROUPS);
  const size_t dim = (size_t)b->dim, esz = fricl__elem_bytes(b->precision);
  const size_t nvd = b->n_vertices * dim;
  const int gathered =
      b->gradient.mem || b->hessian_values.mem || b->hessian_product.mem;
  int any = gathered || b->potential.mem;
  int w = b->gradient.mem ? 1 : 0;
  if (b->hessian_values.mem || b->hessian_product.mem)
    w = 2;
  size_t total = 0;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_barrier_group_cl *G = &b->groups[g];
    st = fricl__tangential_check_group_type(ctx, b->dim, g, G->type);
    if (st != FRICL_STATUS_OK)
      return st;
    const char *name = fricl_stencil_name(G->type);
    if (G->count > ((size_t)1 << 40) - total)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s): count = %zu is too large", g, name,
                         G->count);
    total += G->count;
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
    const struct {
      const char *what;
      fricl_buffer_cl buf;
      size_t elems, esz;
    } bufs[] = {{"vertices", G->vertices, n * k, sizeof(int32_t)},
                {"weight", G->weight, n, esz},
                {"dmin", G->dmin, n, esz},
                {"plane_normal",
                 pv ? G->plane_normal : (fricl_buffer_cl){NULL, 0}, n * dim,
                 esz},
                {"plane_offset",
                 pv ? G->plane_offset : (fricl_buffer_cl){NULL, 0}, n, esz},
                {"distance_type", G->distance_type, n, 1},
                {"potential", G->potential, n, esz},
                {"local_gradient", G->local_gradient, n * ndof, esz},
                {"local_hessian", G->local_hessian, n * ndof * ndof, esz}};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) {
      st = check_buffer(ctx, o, g, bufs[i].what, bufs[i].buf, bufs[i].elems,
                        bufs[i].esz);
      if (st != FRICL_STATUS_OK)
        return st;
    }
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
  if (b->hessian_product.mem && !b->direction.mem)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.hessian_product is requested but "
                       "batch.direction.mem is NULL");
  const fricl_tangential_plan *plan = b->plan;
  if (gathered && !plan)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.plan is required for gradient, hessian_values "
                       "and hessian_product in the cl_mem tier: create one "
                       "with fricl_barrier_plan_create");
  if (plan) {
    if (plan->ctx != ctx)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "batch.plan was created on another context");
    int same = plan->dim == b->dim && plan->n_vertices == b->n_vertices &&
               plan->n_groups == b->n_groups;
    for (size_t g = 0; same && g < b->n_groups; ++g)
      same = plan->types[g] == b->groups[g].type &&
             plan->counts[g] == b->groups[g].count;
    if (!same)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "batch.plan was made for another contact topology "
                         "(dim, n_vertices, group types or counts differ): "
                         "make a new plan");
    if (b->hessian_values.mem && !plan->has_bsr)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "batch.plan has no Hessian pattern");
  }
  const struct {
    const char *what;
    fricl_buffer_cl buf;
    size_t elems;
  } globals[] = {
      {"positions", b->positions, nvd},
      {"rest_positions", b->rest_positions, nvd},
      {"direction", b->direction, nvd},
      {"potential", b->potential, 1},
      {"gradient", b->gradient, nvd},
      {"hessian_product", b->hessian_product, nvd},
      {"hessian_values", b->hessian_values, plan ? plan->nnz * dim * dim : 0}};
  for (size_t i = 0; i < sizeof globals / sizeof globals[0]; ++i) {
    st = check_buffer(ctx, o, SIZE_MAX, globals[i].what, globals[i].buf,
                      globals[i].elems, esz);
    if (st != FRICL_STATUS_OK)
      return st;
  }
  *want = w;
  return FRICL_STATUS_OK;
}

fricl_status fricl_barrier_eval_cl(fricl_context *ctx,
                                   const fricl_barrier_batch_cl *batch,
                                   cl_uint num_wait, const cl_event *wait_list,
                                   cl_event *done) {
  if (!ctx || !batch)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "ctx and batch must not be NULL");
  fricl__clear_error(ctx);
  fricl__ocl *o = NULL;
  fricl_status st =
      fricl__ocl_entry(ctx, "fricl_barrier_eval_cl", num_wait, wait_list, &o);
  if (st != FRICL_STATUS_OK)
    return st;
  int want = 0;
  st = validate_cl(ctx, o, batch, &want);
  if (st != FRICL_STATUS_OK)
    return st;
  st = fricl__ocl_barrier_enqueue(o, batch, want, num_wait, wait_list, done);
  if (st == FRICL_STATUS_OK)
    fricl__ran_on(ctx, &o->base);
  return st;
}
