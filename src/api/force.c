/* force.c - the public entry point of the friction force and its
 * Jacobians: validation, always complete before any work, then the backend
 * fricl__dispatch picks: its force operation (OpenCL: records on the
 * device, added on the host), or, for backends without one, the host pass
 * (core/force.h) on the context's threads (one thread on the reference
 * backend). */
#include <stdint.h>
#include <stdlib.h>

#include "api/tangential_checks.h"
#include "core/backend.h"
#include "core/force.h"

void fricl_force_batch_init(fricl_force_batch *batch) {
  if (fricl__struct_init(batch, sizeof *batch))
    batch->dim = 3;
}

static fricl_status check_params(fricl_context *ctx,
                                 const fricl_force_batch *b) {
  fricl_status st = fricl__check_precision(ctx, b->precision);
  if (st == FRICL_STATUS_OK)
    st = fricl__check_profile(ctx, b->mu_profile);
  if (st == FRICL_STATUS_OK &&
      (b->flags & ~(FRICL_FORCE_FLAG_NO_MU | FRICL_FORCE_FLAG_PHYSICAL_BARRIER |
                    FRICL_FORCE_FLAG_JACOBIAN_CSC)))
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.flags = 0x%x has unknown bits", (unsigned)b->flags);
  if (st == FRICL_STATUS_OK && (unsigned)b->vertex_layout > 1)
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.vertex_layout %d is not rows (0) or columns (1)",
                     (int)b->vertex_layout);
  if (st == FRICL_STATUS_OK && (unsigned)b->wrt > 3)
    st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.wrt %d is not none (0), rest_positions (1), "
                     "lagged_displacements (2) or velocities (3)",
                     (int)b->wrt);
  if (st != FRICL_STATUS_OK)
    return st;
  const fricl__real_arg reals[] = {{"eps_v", b->eps_v, FRICL__RULE_GT0},
                                   {"kappa", b->kappa, FRICL__RULE_GE0},
                                   {"dhat", b->dhat, FRICL__RULE_GT0},
                                   {"dmin", b->dmin, FRICL__RULE_GE0}};
  return fricl__check_reals(ctx, b->precision, "batch.", reals, 4);
}

/* A vertex array: every entry finite. Rows: the shared per-vertex check;
 * columns (vertex_layout): the first bad coordinate in memory order, named
 * by its vertex and coordinate. */
static fricl_status check_finite(fricl_context *ctx, const fricl_force_batch *b,
                                 const char *name, const void *a) {
  const fricl_precision p = b->precision;
  const size_t nv = b->n_vertices, dim = (size_t)b->dim;
  if (b->vertex_layout != FRICL_VERTEX_COLUMNS)
    return fricl__check_vertex_reals(ctx, p, name, a, nv, dim, 0);
  if (!a)
    return FRICL_STATUS_OK;
  const size_t i = fricl__first_bad(ctx, p, a, nv * dim, FRICL__RULE_FINITE);
  if (i == SIZE_MAX)
    return FRICL_STATUS_OK;
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.%s[%zu][%zu] = %g is invalid: it must be finite "
                     "(first bad coordinate, vertex_layout columns)",
                     name, i % nv, i / nv, fricl__real_at(p, a, i));
}

static fricl_status check_group(fricl_context *ctx, const fricl_force_batch *b,
                                size_t g) {
  const fricl_force_group *G = &b->groups[g];
  const char *gn = fricl_stencil_name(G->type);
  const size_t n = G->count, m = (size_t)b->dim - 1;
  const fricl_precision p = b->precision;
  if (!n)
    return FRICL_STATUS_OK;
  if (G->weight)
    FRICL__TRY(
        fricl__check_group_reals(ctx, p, g, gn, "weight", G->weight, n, 1, 0));
  if (!(b->flags & FRICL_FORCE_FLAG_NO_MU)) {
    if (!G->mu_s || !G->mu_k)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s): mu_%s is NULL with count = %zu", g,
                         gn, G->mu_s ? "k" : "s", n);
    FRICL__TRY(
        fricl__check_group_reals(ctx, p, g, gn, "mu_s", G->mu_s, n, 1, 1));
    FRICL__TRY(
        fricl__check_group_reals(ctx, p, g, gn, "mu_k", G->mu_k, n, 1, 1));
  }
  if (G->mu_aniso)
    FRICL__TRY(fricl__check_group_reals(ctx, p, g, gn, "mu_aniso", G->mu_aniso,
                                        n, m, 0));
  if (G->type == FRICL_STENCIL_PV) {
    if (!G->plane_normal || !G->plane_offset)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (pv): plane_%s is NULL with count = %zu",
                         g, G->plane_normal ? "offset" : "normal", n);
    FRICL__TRY(
        fricl__check_plane_normals(ctx, p, g, b->dim, G->plane_normal, n));
    FRICL__TRY(fricl__check_group_reals(ctx, p, g, gn, "plane_offset",
                                        G->plane_offset, n, 1, 0));
  }
  return FRICL_STATUS_OK;
}

static fricl_status validate(fricl_context *ctx, const fricl_force_batch *b,
                             fricl__force_work *w) {
  FRICL__TRY(check_params(ctx, b));
  const fricl__topology t = FRICL__TOPOLOGY(b->dim, b->n_vertices, b->n_groups,
                                            b->groups, fricl_force_group);
  size_t total = 0;
  FRICL__TRY(fricl__check_topology(ctx, &t, "n_groups", &total));
  const size_t dim = (size_t)b->dim;
  const size_t esz = fricl__elem_bytes(b->precision);
  size_t vbytes = 0;
  FRICL__TRY(fricl__check_vertex_arrays(
      ctx, b->n_vertices, dim, esz, b->lagged_displacements,
      "lagged_displacements", NULL, NULL, &vbytes));
  FRICL__TRY(fricl__check_vertex_arrays(ctx, b->n_vertices, dim, esz,
                                        b->velocities, "velocities", NULL, NULL,
                                        &vbytes));
  int any = b->force || b->jacobian_values;
  int jac = b->jacobian_values != NULL;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_force_group *G = &b->groups[g];
    any |= G->local_force || G->local_jacobian || G->normal_force;
    jac |= G->local_jacobian != NULL;
  }
  if (!any)
    return fricl__no_output(ctx);
  if (jac && b->wrt == FRICL_FORCE_WRT_NONE)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "a Jacobian is requested (jacobian_values or a "
                       "group's local_jacobian) but batch.wrt is none");
  const fricl_tangential_plan *plan = b->plan;
  /* The plan is read for the Jacobian (its pattern), and for the force
   * when given (its vertex lists): checked against the topology then. */
  const int use_plan = b->jacobian_values || (plan && b->force);
  FRICL__TRY(fricl__check_host_plan(
      ctx, plan, b->jacobian_values, "fricl_tangential_plan_create",
      use_plan ? &t : NULL, b->jacobian_values != NULL));
  FRICL__TRY(check_finite(ctx, b, "rest_positions", b->rest_positions));
  FRICL__TRY(
      check_finite(ctx, b, "lagged_displacements", b->lagged_displacements));
  for (size_t g = 0; g < b->n_groups; ++g)
    FRICL__TRY(check_group(ctx, b, g));
  fricl__region r[5 + 10 * FRICL_MAX_GROUPS];
  size_t nr = 0;
  r[nr++] =
      (fricl__region){b->rest_positions, vbytes, "rest_positions", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->lagged_displacements, vbytes,
                            "lagged_displacements", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->velocities, vbytes, "velocities", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->force, vbytes, "force", SIZE_MAX, 1};
  if (plan && b->jacobian_values)
    r[nr++] = (fricl__region){b->jacobian_values, plan->nnz * dim * dim * esz,
                              "jacobian_values", SIZE_MAX, 1};
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_force_group *G = &b->groups[g];
    const size_t n = G->count, k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t ndof = k * dim;
    const int pv = G->type == FRICL_STENCIL_PV;
    const fricl__region gr[] = {
        {G->vertices, n * k * sizeof(int32_t), "vertices", g, 0},
        {pv ? G->plane_normal : NULL, n * dim * esz, "plane_normal", g, 0},
        {pv ? G->plane_offset : NULL, n * esz, "plane_offset", g, 0},
        {G->weight, n * esz, "weight", g, 0},
        {G->mu_s, n * esz, "mu_s", g, 0},
        {G->mu_k, n * esz, "mu_k", g, 0},
        {G->mu_aniso, n * (dim - 1) * esz, "mu_aniso", g, 0},
        {G->local_force, n * ndof * esz, "local_force", g, 1},
        {G->local_jacobian, n * ndof * ndof * esz, "local_jacobian", g, 1},
        {G->normal_force, n * esz, "normal_force", g, 1}};
    for (size_t i = 0; i < sizeof gr / sizeof gr[0]; ++i)
      r[nr++] = gr[i];
  }
  FRICL__TRY(fricl__check_overlaps(ctx, r, nr));
  w->b = b;
  w->plan = b->jacobian_values ? plan : NULL;
  w->want_jac = jac;
  w->total = total;
  w->blocks = NULL;
  w->vplan = plan && b->force ? plan : NULL;
  return FRICL_STATUS_OK;
}

fricl_status fricl_force_eval(fricl_context *ctx,
                              const fricl_force_batch *batch) {
  FRICL__ENTER_BATCH(ctx, fricl_force_batch, batch, FRICL__MIN_FORCE_BATCH);
  fricl__force_work w;
  FRICL__TRY(validate(ctx, batch, &w));
  /* The barrier's crossover (the same work per contact); a backend
   * without a force operation (the host ones, the multi-device one) runs
   * the host pass: one thread on the reference backend, the context's
   * threads otherwise. */
  fricl__backend *be = NULL;
  FRICL__TRY(fricl__dispatch(ctx, FRICL__FEATURE_BARRIER, w.total,
                             batch->precision, &be));
  if (be->ops->force) {
    /* Device backends read rows: columns are copied into rows first. */
    fricl_force_batch rows;
    void *scratch = NULL;
    if (batch->vertex_layout == FRICL_VERTEX_COLUMNS) {
      FRICL__TRY(fricl__force_rows(ctx, batch, &rows, &scratch));
      w.b = &rows;
    }
    const fricl_status st = be->ops->force(be, &w);
    free(scratch);
    return fricl__ran_on(ctx, be, st);
  }
  const int ref = be->ops->kind == FRICL_BACKEND_REFERENCE;
  const fricl_status st = fricl__force_host(ctx, &w, !ref, NULL);
  if (st == FRICL_STATUS_OK)
    ctx->last_backend = ref ? FRICL_BACKEND_REFERENCE : FRICL_BACKEND_HOST;
  return st;
}
