/* tangential.c - the public entry points of the per-contact tangential
 * potential (host tier) and the plan's public constructor: validation,
 * always complete before any work, then one work description for the
 * backend the dispatcher picks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/tangential_checks.h"
#include "core/backend.h"
#include "core/fault.h"
#include "core/pool.h"

void fricl_tangential_batch_init(fricl_tangential_batch *batch) {
  if (fricl__struct_init(batch, sizeof *batch))
    batch->dim = 3;
}

fricl_status fricl__tangential_check_sizes(fricl_context *ctx, int dim,
                                           size_t n_vertices, size_t n_groups,
                                           int groups_null,
                                           const char *n_groups_field) {
  if (dim != 2 && dim != 3)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "dim = %d: it must be 2 or 3", dim);
  if (n_groups && groups_null)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "groups is NULL with n_groups = %zu", n_groups);
  if (n_vertices > (size_t)INT32_MAX)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "n_vertices = %zu exceeds the int32 vertex indices",
                       n_vertices);
  return n_groups_field ? fricl__check_n_groups(ctx, n_groups_field, n_groups)
                        : FRICL_STATUS_OK;
}

/* Vertex indices of one group in [0, n_vertices): blocks without an early
 * exit (they vectorise), a failing block rescanned for the first bad
 * contact. */
typedef struct {
  const int32_t *v;
  size_t n;
  uint32_t nv;
  size_t first_block[256];
} index_job;

static void scan_indices(void *arg, size_t lo, size_t hi, unsigned w) {
  index_job *j = arg;
  size_t found = SIZE_MAX;
  for (size_t b = lo; b < hi && found == SIZE_MAX; ++b) {
    const size_t e0 = b * 4096, e1 = j->n - e0 < 4096 ? j->n : e0 + 4096;
    unsigned bad = 0;
    for (size_t e = e0; e < e1; ++e)
      bad |= (uint32_t)j->v[e] >= j->nv;
    if (bad)
      found = b;
  }
  j->first_block[w] = found;
}

fricl_status fricl__check_group_vertices(fricl_context *ctx, int dim,
                                         size_t n_vertices, size_t g,
                                         fricl_stencil type, size_t count,
                                         const int32_t *vertices,
                                         size_t *total) {
  FRICL__TRY(fricl__check_group(ctx, dim, g, type, count, total));
  const char *name = fricl_stencil_name(type);
  const size_t k = (size_t)fricl_stencil_vertex_count(type);
  if (count && !vertices)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "groups[%zu] (%s): vertices is NULL with count = %zu", g,
                       name, count);
  index_job j;
  j.v = vertices;
  j.n = count * k;
  j.nv = (uint32_t)n_vertices;
  /* Worker indices are below the pool's thread count. */
  unsigned nw = fricl__pool_threads(ctx->pool);
  nw = nw < 256 ? nw : 256;
  for (unsigned i = 0; i < nw; ++i)
    j.first_block[i] = SIZE_MAX;
  fricl__pool_for(ctx->pool, (j.n + 4095) / 4096, fricl__grain(ctx, 16), 1,
                  scan_indices, &j);
  for (unsigned w = 0; w < nw; ++w) {
    if (j.first_block[w] == SIZE_MAX)
      continue;
    for (size_t e = j.first_block[w] * 4096; e < j.n; ++e) {
      const int32_t v = vertices[e];
      if (v < 0 || (size_t)v >= n_vertices)
        return fricl__fail(
            ctx, FRICL_STATUS_INVALID_ARGUMENT,
            "groups[%zu] (%s) contact %zu: vertex index %d (stencil slot "
            "%zu) is out of range [0, %zu) (first bad contact)",
            g, name, e / k, (int)v, e % k, n_vertices);
    }
  }
  return FRICL_STATUS_OK;
}

/* Field `off` of group g of t. */
static const void *topology_field(const fricl__topology *t, size_t g,
                                  size_t off) {
  return t->groups + g * t->stride + off;
}

fricl_status fricl__check_topology(fricl_context *ctx, const fricl__topology *t,
                                   const char *n_groups_field, size_t *total) {
  FRICL__TRY(fricl__tangential_check_sizes(
      ctx, t->dim, t->n_vertices, t->n_groups, !t->groups, n_groups_field));
  size_t count = 0;
  for (size_t g = 0; g < t->n_groups; ++g)
    FRICL__TRY(fricl__check_group_vertices(
        ctx, t->dim, t->n_vertices, g,
        *(const fricl_stencil *)topology_field(t, g, t->type),
        *(const size_t *)topology_field(t, g, t->count),
        *(const int32_t *const *)topology_field(t, g, t->vertices), &count));
  if (total)
    *total = count;
  return FRICL_STATUS_OK;
}

void fricl__topology_groups(const fricl__topology *t,
                            fricl_contact_group *out) {
  memset(out, 0, t->n_groups * sizeof *out);
  for (size_t g = 0; g < t->n_groups; ++g) {
    out[g].type = *(const fricl_stencil *)topology_field(t, g, t->type);
    out[g].count = *(const size_t *)topology_field(t, g, t->count);
    out[g].vertices =
        *(const int32_t *const *)topology_field(t, g, t->vertices);
  }
}

fricl_status fricl__check_vertex_arrays(fricl_context *ctx, size_t n_vertices,
                                        size_t dim, size_t esz,
                                        const void *input, const char *name,
                                        const void *product,
                                        const void *direction, size_t *vbytes) {
  if (FRICL__TOO_BIG(n_vertices, dim * esz))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_vertices = %zu is too large", n_vertices);
  *vbytes = n_vertices * dim * esz;
  if (n_vertices && !input)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.%s is NULL with n_vertices = %zu", name,
                       n_vertices);
  if (product && !direction && n_vertices)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.hessian_product is requested but "
                       "batch.direction is NULL");
  return FRICL_STATUS_OK;
}

fricl_status fricl__no_output(fricl_context *ctx) {
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "no output requested: set at least one of potential, "
                     "gradient, hessian_values, hessian_product or a "
                     "group's per-contact outputs");
}

/* The plan against the groups of t (fricl__check_host_plan). */
static fricl_status check_plan_topology(fricl_context *ctx,
                                        const fricl_tangential_plan *plan,
                                        const fricl__topology *t,
                                        int need_bsr) {
  fricl_contact_group cg[FRICL_MAX_GROUPS];
  fricl__topology_groups(t, cg);
  if (plan->dim != t->dim || plan->n_vertices != t->n_vertices ||
      plan->n_groups != t->n_groups || (need_bsr && !plan->has_bsr) ||
      plan->checksum !=
          fricl__topology_checksum(ctx, t->dim, t->n_vertices, t->n_groups, cg))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.plan was made for another contact topology "
                       "(dim, n_vertices, group types, counts or vertex "
                       "indices differ): make a new plan");
  return FRICL_STATUS_OK;
}

fricl_status fricl__check_host_plan(fricl_context *ctx,
                                    const fricl_tangential_plan *plan,
                                    const void *hessian_values,
                                    const char *create,
                                    const fricl__topology *t, int need_bsr) {
  if (hessian_values && !plan)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.hessian_values needs batch.plan (its BSR "
                       "pattern sizes the array): create one with %s",
                       create);
  if (plan && plan->ctx != ctx)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.plan was created on another context");
  return plan && t ? check_plan_topology(ctx, plan, t, need_bsr)
                   : FRICL_STATUS_OK;
}

fricl_status fricl_tangential_plan_create(fricl_context *ctx, int dim,
                                          size_t n_vertices, size_t n_groups,
                                          const fricl_contact_group *groups,
                                          fricl_tangential_plan **out) {
  const fricl__topology t =
      FRICL__TOPOLOGY(dim, n_vertices, n_groups, groups, fricl_contact_group);
  return fricl__plan_create(ctx, &t, NULL, out);
}

fricl_status fricl__plan_create(fricl_context *ctx, const fricl__topology *t,
                                const char *count_name,
                                fricl_tangential_plan **out) {
  FRICL__TRY(fricl__enter(ctx, out, "ctx and out must not be NULL"));
  *out = NULL;
  FRICL__TRY(fricl__check_topology(ctx, t, count_name, NULL));
  fricl_contact_group cg[FRICL_MAX_GROUPS];
  fricl__topology_groups(t, cg);
  return fricl__plan_build(ctx, t->dim, t->n_vertices, t->n_groups, cg, 1, out);
}

/* ------------------------------------------------------------ validation */

#define check_reals fricl__check_group_reals

/* |P^T P - I| within tol for every contact (FRICL_..._CHECK_BASIS). */
static fricl_status check_basis(fricl_context *ctx, fricl_precision p, size_t g,
                                const char *gname, int dim, const void *P,
                                size_t count) {
  const int m = dim - 1;
  const double tol = p == FRICL_F64 ? 1e-8 : 1e-4;
  for (size_t c = 0; c < count; ++c)
    for (int a = 0; a < m; ++a)
      for (int b = a; b < m; ++b) {
        double s = 0;
        for (int r = 0; r < dim; ++r)
          s +=
              fricl__real_at(p, P,
                             c * (size_t)(dim * m) + (size_t)(r * m + a)) *
              fricl__real_at(p, P, c * (size_t)(dim * m) + (size_t)(r * m + b));
        if (fabs(s - (a == b)) > tol)
          return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                             "groups[%zu] (%s) contact %zu: tangent_basis is "
                             "not orthonormal (column %d . column %d = %.17g, "
                             "tolerance %g; first bad contact)",
                             g, gname, c, a, b, s, tol);
      }
  return FRICL_STATUS_OK;
}

#define MAX_REGIONS (6 + 16 * 64)

static int any_group_output(const fricl_contact_group *G) {
  return G->potential || G->local_hessian || G->factored_gamma ||
         G->factored_grad || G->factored_hessian;
}

fricl_status fricl__tangential_check_common(fricl_context *ctx,
                                            fricl_precision prec,
                                            fricl_mu_profile profile,
                                            fricl_psd psd, uint32_t flags,
                                            double eps_v) {
  if (prec != FRICL_F64 && prec != FRICL_F32)
    return fricl__check_precision(ctx, prec);
  FRICL__TRY(fricl__check_profile(ctx, profile));
  if ((unsigned)psd > 2)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.psd %d is not none (0), clamp (1) or abs (2)",
                       (int)psd);
  if (flags &
      ~(FRICL_TANGENTIAL_FLAG_IPCTK_ABS | FRICL_TANGENTIAL_FLAG_CHECK_BASIS))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.flags = 0x%x has unknown bits", (unsigned)flags);
  FRICL__TRY(fricl__check_precision(ctx, prec));
  return fricl__check_real(ctx, prec, "batch.", "eps_v", eps_v,
                           FRICL__RULE_GT0);
}

/* The kernels' family codes (fricl_tangential_adhesion_math.h) are the
 * enum's values. */
_Static_assert(FRICL_MOLLIFIER_FRICTION == 0 && FRICL_MOLLIFIER_ADHESION == 1,
               "fricl_mollifier codes");

fricl_status fricl__tangential_check_mollifier(fricl_context *ctx,
                                               fricl_mollifier mollifier) {
  if ((unsigned)mollifier >= (unsigned)FRICL_MOLLIFIER_COUNT)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.mollifier %d is not friction (0) or adhesion "
                       "(1)",
                       (int)mollifier);
  return FRICL_STATUS_OK;
}

static fricl_status validate(fricl_context *ctx,
                             const fricl_tangential_batch *b, int *need_hess,
                             size_t *total_out) {
  const fricl__topology t = FRICL__TOPOLOGY(b->dim, b->n_vertices, b->n_groups,
                                            b->groups, fricl_contact_group);
  fricl_status st = fricl__tangential_check_common(
      ctx, b->precision, b->mu_profile, b->psd, b->flags, b->eps_v);
  if (st == FRICL_STATUS_OK)
    st = fricl__tangential_check_mollifier(ctx, b->mollifier);
  if (st == FRICL_STATUS_OK)
    st = fricl__check_topology(ctx, &t, NULL, NULL);
  if (st == FRICL_STATUS_OK)
    st = fricl__check_n_groups(ctx, "batch.n_groups", b->n_groups);
  if (st != FRICL_STATUS_OK)
    return st;
  const size_t dim = (size_t)b->dim, m = dim - 1;
  const size_t esz = fricl__elem_bytes(b->precision);
  size_t vbytes = 0;
  FRICL__TRY(fricl__check_vertex_arrays(
      ctx, b->n_vertices, dim, esz, b->velocities, "velocities",
      b->hessian_product, b->direction, &vbytes));
  int any =
      b->potential || b->gradient || b->hessian_values || b->hessian_product;
  int hess = b->hessian_values || b->hessian_product;
  size_t total = 0;
  for (size_t g = 0; g < b->n_groups; ++g) {
    any |= any_group_output(&b->groups[g]);
    hess |= b->groups[g].local_hessian || b->groups[g].factored_hessian;
    total += b->groups[g].count;
  }
  if (!any)
    return fricl__no_output(ctx);
  *need_hess = hess;
  *total_out = total;

  /* The plan: required for the BSR values, checked when given. */
  const fricl_tangential_plan *plan = b->plan;
  FRICL__TRY(fricl__check_host_plan(ctx, plan, b->hessian_values,
                                    "fricl_tangential_plan_create", &t, 0));

  /* Per-group data and output sizes. */
  fricl__region *r = fricl__malloc(MAX_REGIONS * sizeof *r);
  if (!r)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "validating");
  size_t nr = 0;
  r[nr++] = (fricl__region){b->velocities, vbytes, "velocities", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->direction, vbytes, "direction", SIZE_MAX, 0};
  r[nr++] = (fricl__region){b->potential, esz, "potential", SIZE_MAX, 1};
  r[nr++] = (fricl__region){b->gradient, vbytes, "gradient", SIZE_MAX, 1};
  r[nr++] = (fricl__region){b->hessian_product, vbytes, "hessian_product",
                            SIZE_MAX, 1};
  if (plan)
    r[nr++] = (fricl__region){b->hessian_values, plan->nnz * dim * dim * esz,
                              "hessian_values", SIZE_MAX, 1};
  for (size_t g = 0; g < b->n_groups && st == FRICL_STATUS_OK; ++g) {
    const fricl_contact_group *G = &b->groups[g];
    const char *gn = fricl_stencil_name(G->type);
    const size_t n = G->count, k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t nb = (size_t)fricl_stencil_coord_count(G->type);
    const size_t ndof = k * dim;
    if (!n)
      continue;
    const struct {
      const void *p;
      const char *name;
    } req[] = {{G->tangent_basis, "tangent_basis"},
               {G->normal_force, "normal_force"},
               {G->mu_s, "mu_s"},
               {G->mu_k, "mu_k"},
               {nb ? G->closest_point : (const void *)1, "closest_point"}};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; ++i)
      if (!req[i].p) {
        st = fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s): %s is NULL with count = %zu", g, gn,
                         req[i].name, n);
        break;
      }
    if (st != FRICL_STATUS_OK)
      break;
    if (nb)
      st = check_reals(ctx, b->precision, g, gn, "closest_point",
                       G->closest_point, n, nb, 0);
    if (st == FRICL_STATUS_OK)
      st = check_reals(ctx, b->precision, g, gn, "tangent_basis",
                       G->tangent_basis, n, dim * m, 0);
    if (st == FRICL_STATUS_OK)
      st = check_reals(ctx, b->precision, g, gn, "normal_force",
                       G->normal_force, n, 1, 1);
    if (st == FRICL_STATUS_OK && G->weight)
      st = check_reals(ctx, b->precision, g, gn, "weight", G->weight, n, 1, 0);
    if (st == FRICL_STATUS_OK)
      st = check_reals(ctx, b->precision, g, gn, "mu_s", G->mu_s, n, 1, 1);
    if (st == FRICL_STATUS_OK)
      st = check_reals(ctx, b->precision, g, gn, "mu_k", G->mu_k, n, 1, 1);
    if (st == FRICL_STATUS_OK && G->mu_aniso)
      st = check_reals(ctx, b->precision, g, gn, "mu_aniso", G->mu_aniso, n, m,
                       0);
    if (st == FRICL_STATUS_OK && (b->flags & FRICL_TANGENTIAL_FLAG_CHECK_BASIS))
      st = check_basis(ctx, b->precision, g, gn, b->dim, G->tangent_basis, n);
    const fricl__region gr[] = {
        {G->vertices, n * k * sizeof(int32_t), "vertices", g, 0},
        {G->closest_point, n * nb * esz, "closest_point", g, 0},
        {G->tangent_basis, n * dim * m * esz, "tangent_basis", g, 0},
        {G->normal_force, n * esz, "normal_force", g, 0},
        {G->weight, n * esz, "weight", g, 0},
        {G->mu_s, n * esz, "mu_s", g, 0},
        {G->mu_k, n * esz, "mu_k", g, 0},
        {G->mu_aniso, n * m * esz, "mu_aniso", g, 0},
        {G->potential, n * esz, "potential", g, 1},
        {G->local_hessian, n * ndof * ndof * esz, "local_hessian", g, 1},
        {G->factored_gamma, n * k * esz, "factored_gamma", g, 1},
        {G->factored_grad, n * dim * esz, "factored_grad", g, 1},
        {G->factored_hessian, n * (dim * (dim + 1) / 2) * esz,
         "factored_hessian", g, 1}};
    for (size_t i = 0; i < sizeof gr / sizeof gr[0]; ++i)
      r[nr++] = gr[i];
  }
  return fricl__check_overlaps_free(ctx, st, r, nr);
}

fricl_status fricl_tangential_eval(fricl_context *ctx,
                                   const fricl_tangential_batch *batch) {
  FRICL__ENTER_BATCH(ctx, fricl_tangential_batch, batch,
                     FRICL__MIN_TANGENTIAL_BATCH);
  int need_hess = 0;
  size_t total = 0;
  FRICL__TRY(validate(ctx, batch, &need_hess, &total));
  const fricl__tangential_work w = {batch, (fricl_tangential_plan *)batch->plan,
                                    need_hess, total};
  FRICL__DISPATCH_RUN(ctx, FRICL__FEATURE_TANGENTIAL, total, batch->precision,
                      tangential, &w);
}
