/* barrier.c - the public entry points of the normal-contact barrier (host
 * tier): validation, always complete before any work, then the backend
 * fricl__dispatch picks ("auto": host below the crossover, the device
 * above it), whose per-contact records the host adds into the global
 * outputs in contact order (core/barrier.h). The cl_mem tier is
 * barrier_cl.c. */
#include <stdint.h>
#include <stdlib.h>

#include "api/tangential_checks.h"
#include "core/backend.h"
#include "core/barrier.h"
#include "core/fault.h"

void fricl_barrier_batch_init(fricl_barrier_batch *batch) {
  if (fricl__struct_init(batch, sizeof *batch))
    batch->dim = 3;
}

fricl_status fricl_barrier_plan_create(fricl_context *ctx, int dim,
                                       size_t n_vertices, size_t n_groups,
                                       const fricl_barrier_group *groups,
                                       fricl_tangential_plan **out) {
  const fricl__topology t =
      FRICL__TOPOLOGY(dim, n_vertices, n_groups, groups, fricl_barrier_group);
  return fricl__plan_create(ctx, &t, "n_groups", out);
}

fricl_status fricl__barrier_check_params(fricl_context *ctx,
                                         fricl_precision precision,
                                         fricl_psd psd, uint32_t flags,
                                         double dhat, double kappa,
                                         double dmin) {
  fricl_status st = fricl__check_precision(ctx, precision);
  if (st == FRICL_STATUS_OK && (unsigned)psd > 2)
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.psd %d is not none (0), clamp (1) or abs (2)",
                     (int)psd);
  if (st == FRICL_STATUS_OK && (flags & ~(FRICL_BARRIER_FLAG_PHYSICAL |
                                          FRICL_BARRIER_FLAG_AS_CLASSIFIED)))
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.flags = 0x%x has unknown bits", (unsigned)flags);
  if (st != FRICL_STATUS_OK)
    return st;
  const fricl__real_arg reals[] = {{"dhat", dhat, FRICL__RULE_GT0},
                                   {"kappa", kappa, FRICL__RULE_GT0},
                                   {"dmin", dmin, FRICL__RULE_GE0}};
  return fricl__check_reals(ctx, precision, "batch.", reals, 3);
}

/* The normal function and its parameters (0.4 fields). */
static fricl_status check_function(fricl_context *ctx,
                                   const fricl_barrier_batch *b) {
  if ((unsigned)b->function > (unsigned)FRICL_NORMAL_ADHESION)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.function %d is not barrier (0) or adhesion (1)",
                       (int)b->function);
  if (b->function != FRICL_NORMAL_ADHESION)
    return FRICL_STATUS_OK;
  if (b->flags & FRICL_BARRIER_FLAG_PHYSICAL)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.flags: FRICL_BARRIER_FLAG_PHYSICAL does not "
                       "apply to the adhesion function");
  FRICL__TRY(fricl__check_real(ctx, b->precision, "batch.", "adhesion_dhat_p",
                               b->adhesion_dhat_p, FRICL__RULE_GT0));
  FRICL__TRY(fricl__check_real(ctx, b->precision, "batch.", "adhesion_dhat_a",
                               b->adhesion_dhat_a, FRICL__RULE_GT0));
  FRICL__TRY(fricl__check_real(ctx, b->precision, "batch.", "adhesion_Y",
                               b->adhesion_Y, FRICL__RULE_GT0));
  FRICL__TRY(fricl__check_real(ctx, b->precision, "batch.", "adhesion_eps_c",
                               b->adhesion_eps_c, FRICL__RULE_GT0));
  if (!(b->adhesion_dhat_p < b->adhesion_dhat_a))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.adhesion_dhat_p = %g must be below "
                       "batch.adhesion_dhat_a = %g",
                       b->adhesion_dhat_p, b->adhesion_dhat_a);
  return FRICL_STATUS_OK;
}

static fricl_status validate(fricl_context *ctx, const fricl_barrier_batch *b,
                             int *want, size_t *total_out) {
  const fricl__topology t = FRICL__TOPOLOGY(b->dim, b->n_vertices, b->n_groups,
                                            b->groups, fricl_barrier_group);
  /* batch.dhat is not read by the adhesion function */
  const double dhat = b->function == FRICL_NORMAL_ADHESION ? 1.0 : b->dhat;
  /* FRICL_BARRIER_FLAG_SHAPE is the host tier's alone */
  if (b->flags & ~(FRICL_BARRIER_FLAG_PHYSICAL |
                   FRICL_BARRIER_FLAG_AS_CLASSIFIED | FRICL_BARRIER_FLAG_SHAPE))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.flags = 0x%x has unknown bits",
                       (unsigned)b->flags);
  fricl_status st = fricl__barrier_check_params(
      ctx, b->precision, b->psd, b->flags & ~FRICL_BARRIER_FLAG_SHAPE, dhat,
      b->kappa, b->dmin);
  if (st == FRICL_STATUS_OK && (b->flags & FRICL_BARRIER_FLAG_SHAPE) &&
      b->psd != FRICL_PSD_NONE)
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.flags: FRICL_BARRIER_FLAG_SHAPE needs batch.psd "
                     "none (the shape derivative is not projected)");
  if (st == FRICL_STATUS_OK)
    st = check_function(ctx, b);
  if (st == FRICL_STATUS_OK)
    st = fricl__check_topology(ctx, &t, "n_groups", NULL);
  if (st != FRICL_STATUS_OK)
    return st;
  const size_t dim = (size_t)b->dim;
  const size_t esz = fricl__elem_bytes(b->precision);
  size_t vbytes = 0;
  FRICL__TRY(fricl__check_vertex_arrays(
      ctx, b->n_vertices, dim, esz, b->positions, "positions",
      b->hessian_product, b->direction, &vbytes));
  int any = b->potential || b->gradient || b->hessian_values ||
            b->hessian_product || b->gauss_newton_diagonal ||
            b->gauss_newton_quadratic_form;
  int want_p = b->gauss_newton_quadratic_form != NULL;
  int w = b->gradient ? 1 : 0;
  if (b->hessian_values || b->hessian_product)
    w = 2;
  size_t total = 0;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_barrier_group *G = &b->groups[g];
    any |= G->potential || G->local_gradient || G->local_hessian;
    if (b->extras) {
      const fricl_barrier_extras *X = &b->extras[g];
      any |= X->force_magnitude || X->force_magnitude_gradient ||
             X->gauss_newton_diagonal || X->gauss_newton_quadratic_form ||
             X->shape_derivative;
      want_p |= X->gauss_newton_quadratic_form != NULL;
    }
    if (G->local_gradient && w < 1)
      w = 1;
    if (G->local_hessian)
      w = 2;
    total += G->count;
  }
  if (!any)
    return fricl__no_output(ctx);
  if (want_p && !b->direction && b->n_vertices)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "a gauss_newton_quadratic_form is requested but "
                       "batch.direction is NULL");
  *want = w;
  *total_out = total;
  const fricl_tangential_plan *plan = b->plan;
  FRICL__TRY(fricl__check_host_plan(ctx, plan, b->hessian_values,
                                    "fricl_barrier_plan_create", &t,
                                    b->hessian_values != NULL));
  /* Inputs: positions (NaN propagates), then per group. */
  fricl__region r[9 + 14 * FRICL_MAX_GROUPS];
  size_t nr = 0;
  r[nr++] = (fricl__region){b->positions, vbytes, "positions", SIZE_MAX, 0};
  r[nr++] =
      (fricl__region){b->rest_positions, vbytes, "rest_positions", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->direction, vbytes, "direction", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->potential, esz, "potential", SIZE_MAX, 1};
  r[nr++] = (fricl__region){b->gradient, vbytes, "gradient", SIZE_MAX, 1};
  r[nr++] = (fricl__region){b->hessian_product, vbytes, "hessian_product",
                            SIZE_MAX, 1};
  r[nr++] = (fricl__region){b->gauss_newton_diagonal, vbytes,
                            "gauss_newton_diagonal", SIZE_MAX, 1};
  r[nr++] = (fricl__region){b->gauss_newton_quadratic_form, esz,
                            "gauss_newton_quadratic_form", SIZE_MAX, 1};
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_barrier_group *G = &b->groups[g];
    const char *gn = fricl_stencil_name(G->type);
    const size_t n = G->count, k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t ndof = k * dim;
    if (G->weight)
      st = fricl__check_group_reals(ctx, b->precision, g, gn, "weight",
                                    G->weight, n, 1, 0);
    if (st == FRICL_STATUS_OK && G->dmin)
      st = fricl__check_group_reals(ctx, b->precision, g, gn, "dmin", G->dmin,
                                    n, 1, 1);
    if (st == FRICL_STATUS_OK && G->type == FRICL_STENCIL_PV && n) {
      if (!G->plane_normal || !G->plane_offset)
        st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (pv): plane_%s is NULL with count = %zu",
                         g, G->plane_normal ? "offset" : "normal", n);
      if (st == FRICL_STATUS_OK)
        st = fricl__check_plane_normals(ctx, b->precision, g, b->dim,
                                        G->plane_normal, n);
      if (st == FRICL_STATUS_OK)
        st = fricl__check_group_reals(ctx, b->precision, g, gn, "plane_offset",
                                      G->plane_offset, n, 1, 0);
    }
    if (st == FRICL_STATUS_OK && G->distance_type) {
      const int auto_type = G->type == FRICL_STENCIL_EV   ? 3
                            : G->type == FRICL_STENCIL_EE ? 9
                            : G->type == FRICL_STENCIL_FV ? 7
                                                          : 127;
      for (size_t c = 0; c < n; ++c)
        if (G->distance_type[c] < -1 || G->distance_type[c] > auto_type) {
          st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "groups[%zu] (%s) contact %zu: distance_type = %d "
                           "is not -1 .. %d (first bad contact)",
                           g, gn, c, (int)G->distance_type[c], auto_type);
          break;
        }
    }
    if (st != FRICL_STATUS_OK)
      return st;
    const int pv = G->type == FRICL_STENCIL_PV;
    const fricl__region gr[] = {
        {G->vertices, n * k * sizeof(int32_t), "vertices", g, 0},
        {G->weight, n * esz, "weight", g, 0},
        {G->dmin, n * esz, "dmin", g, 0},
        {pv ? G->plane_normal : NULL, n * dim * esz, "plane_normal", g, 0},
        {pv ? G->plane_offset : NULL, n * esz, "plane_offset", g, 0},
        {G->distance_type, n, "distance_type", g, 0},
        {G->potential, n * esz, "potential", g, 1},
        {G->local_gradient, n * ndof * esz, "local_gradient", g, 1},
        {G->local_hessian, n * ndof * ndof * esz, "local_hessian", g, 1}};
    for (size_t i = 0; i < sizeof gr / sizeof gr[0]; ++i)
      r[nr++] = gr[i];
    if (b->extras) {
      const fricl_barrier_extras *X = &b->extras[g];
      const fricl__region xr[] = {
          {X->force_magnitude, n * esz, "extras.force_magnitude", g, 1},
          {X->force_magnitude_gradient, n * ndof * esz,
           "extras.force_magnitude_gradient", g, 1},
          {X->gauss_newton_diagonal, n * ndof * esz,
           "extras.gauss_newton_diagonal", g, 1},
          {X->gauss_newton_quadratic_form, n * esz,
           "extras.gauss_newton_quadratic_form", g, 1},
          {X->shape_derivative, n * ndof * ndof * esz,
           "extras.shape_derivative", g, 1}};
      for (size_t i = 0; i < sizeof xr / sizeof xr[0]; ++i)
        r[nr++] = xr[i];
    }
  }
  if (plan)
    r[nr++] = (fricl__region){b->hessian_values, plan->nnz * dim * dim * esz,
                              "hessian_values", SIZE_MAX, 1};
  return fricl__check_overlaps(ctx, r, nr);
}

fricl_status fricl_barrier_eval(fricl_context *ctx,
                                const fricl_barrier_batch *batch) {
  FRICL__ENTER_BATCH(ctx, fricl_barrier_batch, batch, FRICL__MIN_BARRIER_BATCH);
  int want = 0;
  size_t total = 0;
  FRICL__TRY(validate(ctx, batch, &want, &total));
  const fricl__barrier_work w = {
      batch, batch->hessian_values ? batch->plan : NULL, want, total};
  FRICL__DISPATCH_RUN(ctx, FRICL__FEATURE_BARRIER, total, batch->precision,
                      barrier, &w);
}
