/* tangential.c - the public entry points of the per-contact tangential
 * potential: validation (always complete before any work), the plan's
 * public constructor, and dispatch to a backend. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "tangential.h"

static const char *const psd_names[3] = {"none", "clamp", "abs"};

const char *fricl_psd_name(fricl_psd psd) {
  return (unsigned)psd < 3 ? psd_names[psd] : NULL;
}

fricl_status fricl_psd_from_name(const char *name, fricl_psd *psd) {
  if (!name || !psd)
    return FRICL_STATUS_INVALID_ARGUMENT;
  for (int i = 0; i < 3; ++i)
    if (strcmp(name, psd_names[i]) == 0) {
      *psd = (fricl_psd)i;
      return FRICL_STATUS_OK;
    }
  return FRICL_STATUS_INVALID_ARGUMENT;
}

void fricl_tangential_batch_init(fricl_tangential_batch *batch) {
  if (!batch)
    return;
  memset(batch, 0, sizeof *batch);
  batch->struct_size = (uint32_t)sizeof *batch;
  batch->dim = 3;
}

#define TOO_BIG(n, per) ((per) != 0 && (n) > SIZE_MAX / (per))

/* Types valid for dim, arrays present, vertex indices in range. */
static fricl_status check_topology(fricl_context *ctx, int dim,
                                   size_t n_vertices, size_t n_groups,
                                   const fricl_contact_group *groups) {
  if (dim != 2 && dim != 3)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "dim = %d: it must be 2 or 3", dim);
  if (n_groups && !groups)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "groups is NULL with n_groups = %zu", n_groups);
  if (n_vertices > (size_t)INT32_MAX)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "n_vertices = %zu exceeds the int32 vertex indices",
                       n_vertices);
  size_t total = 0;
  for (size_t g = 0; g < n_groups; ++g) {
    const fricl_contact_group *G = &groups[g];
    const char *name = fricl_stencil_name(G->type);
    if (!name)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu].type = %d is not a stencil type", g,
                         (int)G->type);
    if (dim == 2 &&
        (G->type == FRICL_STENCIL_EE || G->type == FRICL_STENCIL_FV))
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s) exists only in 3-D, dim is 2", g,
                         name);
    const size_t k = (size_t)fricl_stencil_vertex_count(G->type);
    if (TOO_BIG(G->count, 144 * sizeof(double)) ||
        G->count > ((size_t)1 << 58) - total)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s): count = %zu is too large", g, name,
                         G->count);
    total += G->count;
    if (G->count && !G->vertices)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s): vertices is NULL with count = %zu",
                         g, name, G->count);
    /* Blocks without an early exit (they vectorise); only a failing
     * block is scanned again for the first bad index. */
    const size_t nk = G->count * k;
    for (size_t b0 = 0; b0 < nk; b0 += 4096) {
      const size_t b1 = nk - b0 < 4096 ? nk : b0 + 4096;
      unsigned bad = 0;
      for (size_t e = b0; e < b1; ++e)
        bad |= (uint32_t)G->vertices[e] >= (uint32_t)n_vertices;
      if (!bad)
        continue;
      for (size_t e = b0; e < b1; ++e) {
        const int32_t v = G->vertices[e];
        if (v < 0 || (size_t)v >= n_vertices)
          return fricl__fail(
              ctx, FRICL_STATUS_INVALID_ARGUMENT,
              "groups[%zu] (%s) contact %zu: vertex index %d (stencil slot "
              "%zu) is out of range [0, %zu) (first bad contact)",
              g, name, e / k, (int)v, e % k, n_vertices);
      }
    }
  }
  return FRICL_STATUS_OK;
}

fricl_status fricl_tangential_plan_create(fricl_context *ctx, int dim,
                                          size_t n_vertices, size_t n_groups,
                                          const fricl_contact_group *groups,
                                          fricl_tangential_plan **out) {
  if (!ctx || !out)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "ctx and out must not be NULL");
  *out = NULL;
  fricl__clear_error(ctx);
  fricl_status st = check_topology(ctx, dim, n_vertices, n_groups, groups);
  if (st != FRICL_STATUS_OK)
    return st;
  fricl_tangential_plan *p = NULL;
  st = fricl__plan_build(ctx, dim, n_vertices, n_groups, groups, 1, &p);
  if (st == FRICL_STATUS_OK)
    st = fricl__plan_upload(p);
  if (st != FRICL_STATUS_OK) {
    fricl_tangential_plan_destroy(p);
    return st;
  }
  *out = p;
  return FRICL_STATUS_OK;
}

/* ------------------------------------------------------------ validation */

static double at(fricl_precision p, const void *a, size_t i) {
  return p == FRICL_F32 ? (double)((const float *)a)[i]
                        : ((const double *)a)[i];
}

/* 1 when some value of x[0..n) may be non-finite or negative (exact for
 * non-finite; -0 may trigger it, which the caller's exact rescan then
 * clears). It ORs the bits of x * 0 (+-0 for finite x, NaN otherwise) and
 * of x (for the sign) - integer ORs and one multiply, which compilers
 * vectorise without any floating-point reassociation. Validation reads
 * every lagged input once more and must cost little next to the
 * evaluation. */
static int any_bad_d(const double *x, size_t n, int nonneg) {
  uint64_t nan_bits = 0, sign_bits = 0;
  for (size_t i = 0; i < n; ++i) {
    const double z = x[i] * 0.0;
    uint64_t uz, ux;
    memcpy(&uz, &z, sizeof uz);
    memcpy(&ux, &x[i], sizeof ux);
    nan_bits |= uz;
    sign_bits |= ux;
  }
  const uint64_t exp = 0x7FF0000000000000ull;
  return (nan_bits & exp) == exp || (nonneg && (sign_bits >> 63));
}

static int any_bad_f(const float *x, size_t n, int nonneg) {
  uint32_t nan_bits = 0, sign_bits = 0;
  for (size_t i = 0; i < n; ++i) {
    const float z = x[i] * 0.0f;
    uint32_t uz, ux;
    memcpy(&uz, &z, sizeof uz);
    memcpy(&ux, &x[i], sizeof ux);
    nan_bits |= uz;
    sign_bits |= ux;
  }
  const uint32_t exp = 0x7F800000u;
  return (nan_bits & exp) == exp || (nonneg && (sign_bits >> 31));
}

/* Every value finite (and >= 0 when nonneg); the message names the first
 * bad contact. */
static fricl_status check_reals(fricl_context *ctx, fricl_precision p, size_t g,
                                const char *gname, const char *field,
                                const void *a, size_t count, size_t per,
                                int nonneg) {
  const size_t n = count * per;
  const int bad =
      p == FRICL_F32 ? any_bad_f(a, n, nonneg) : any_bad_d(a, n, nonneg);
  if (!bad)
    return FRICL_STATUS_OK;
  for (size_t c = 0; c < count; ++c)
    for (size_t j = 0; j < per; ++j) {
      const double v = at(p, a, c * per + j);
      if (!isfinite(v) || (nonneg && v < 0))
        return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "groups[%zu] (%s) contact %zu: %s = %g is invalid: "
                           "it must be finite%s (first bad contact)",
                           g, gname, c, field, v, nonneg ? " and >= 0" : "");
    }
  return FRICL_STATUS_OK;
}

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
          s += at(p, P, c * (size_t)(dim * m) + (size_t)(r * m + a)) *
               at(p, P, c * (size_t)(dim * m) + (size_t)(r * m + b));
        if (fabs(s - (a == b)) > tol)
          return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                             "groups[%zu] (%s) contact %zu: tangent_basis is "
                             "not orthonormal (column %d . column %d = %.17g, "
                             "tolerance %g; first bad contact)",
                             g, gname, c, a, b, s, tol);
      }
  return FRICL_STATUS_OK;
}

typedef struct {
  const void *p;
  size_t bytes;
  const char *what;
  size_t group; /* SIZE_MAX: global */
  int is_out;
} region;

#define MAX_REGIONS (6 + 16 * 64)

static fricl_status check_overlaps(fricl_context *ctx, const region *r,
                                   size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (!r[i].is_out || !r[i].p || !r[i].bytes)
      continue;
    const uintptr_t a = (uintptr_t)r[i].p;
    for (size_t j = 0; j < n; ++j) {
      if (j == i || !r[j].p || !r[j].bytes)
        continue;
      const uintptr_t b = (uintptr_t)r[j].p;
      if (a < b + r[j].bytes && b < a + r[i].bytes)
        return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "output %s%s overlaps %s %s%s: outputs must not "
                           "alias inputs or each other",
                           r[i].what, r[i].group == SIZE_MAX ? "" : " (group)",
                           r[j].is_out ? "output" : "input", r[j].what,
                           r[j].group == SIZE_MAX ? "" : " (group)");
    }
  }
  return FRICL_STATUS_OK;
}

static int any_group_output(const fricl_contact_group *G) {
  return G->potential || G->local_hessian || G->factored_gamma ||
         G->factored_grad || G->factored_hessian;
}

/* The batch parameters both tiers share. */
static fricl_status check_common(fricl_context *ctx, fricl_precision prec,
                                 fricl_mu_profile profile, fricl_psd psd,
                                 uint32_t flags, double eps_v) {
  if (prec != FRICL_F64 && prec != FRICL_F32)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.precision %d is not FRICL_F64 or FRICL_F32",
                       (int)prec);
  if (profile != FRICL_MU_CUBIC && profile != FRICL_MU_IPCTK)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.mu_profile %d is not cubic (0) or ipctk (1)",
                       (int)profile);
  if ((unsigned)psd > 2)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.psd %d is not none (0), clamp (1) or abs (2)",
                       (int)psd);
  if (flags &
      ~(FRICL_TANGENTIAL_FLAG_IPCTK_ABS | FRICL_TANGENTIAL_FLAG_CHECK_BASIS))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.flags = 0x%x has unknown bits", (unsigned)flags);
  if (prec == FRICL_F64 && !ctx->has_fp64)
    return fricl__fail(ctx, FRICL_STATUS_NO_FP64,
                       "device \"%s\" has no double precision: use FRICL_F32 "
                       "or another device",
                       ctx->device_name);
  const double eps = prec == FRICL_F32 ? (double)(float)eps_v : eps_v;
  if (!(isfinite(eps) && eps > 0))
    return fricl__fail(
        ctx, FRICL_STATUS_INVALID_ARGUMENT,
        "batch.eps_v = %g is invalid: it must be finite and > 0%s", eps_v,
        fricl__f32_note(eps_v, eps));
  return FRICL_STATUS_OK;
}

static fricl_status validate(fricl_context *ctx,
                             const fricl_tangential_batch *b, int *need_hess) {
  if (b->struct_size < sizeof *b)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.struct_size is %u, expected %zu: initialise the "
                       "batch with fricl_tangential_batch_init",
                       (unsigned)b->struct_size, sizeof *b);
  fricl_status st = check_common(ctx, b->precision, b->mu_profile, b->psd,
                                 b->flags, b->eps_v);
  if (st != FRICL_STATUS_OK)
    return st;
  st = check_topology(ctx, b->dim, b->n_vertices, b->n_groups, b->groups);
  if (st != FRICL_STATUS_OK)
    return st;
  if (b->n_groups > 64)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_groups = %zu: at most 64 groups per call",
                       b->n_groups);
  const size_t dim = (size_t)b->dim, m = dim - 1;
  const size_t esz = fricl__elem_bytes(b->precision);
  if (TOO_BIG(b->n_vertices, dim * esz))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_vertices = %zu is too large", b->n_vertices);
  const size_t vbytes = b->n_vertices * dim * esz;
  if (b->n_vertices && !b->velocities)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.velocities is NULL with n_vertices = %zu",
                       b->n_vertices);
  if (b->hessian_product && !b->direction && b->n_vertices)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.hessian_product is requested but "
                       "batch.direction is NULL");
  int any =
      b->potential || b->gradient || b->hessian_values || b->hessian_product;
  int hess = b->hessian_values || b->hessian_product;
  for (size_t g = 0; g < b->n_groups; ++g) {
    any |= any_group_output(&b->groups[g]);
    hess |= b->groups[g].local_hessian || b->groups[g].factored_hessian;
  }
  if (!any)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "no output requested: set at least one of potential, "
                       "gradient, hessian_values, hessian_product or a "
                       "group's per-contact outputs");
  *need_hess = hess;

  /* The plan: required for the BSR values, checked when given. */
  const fricl_tangential_plan *plan = b->plan;
  if (b->hessian_values && !plan)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.hessian_values needs batch.plan (its BSR "
                       "pattern sizes the array): create one with "
                       "fricl_tangential_plan_create");
  if (plan) {
    if (plan->ctx != ctx)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "batch.plan was created on another context");
    if (plan->dim != b->dim || plan->n_vertices != b->n_vertices ||
        plan->n_groups != b->n_groups ||
        plan->checksum != fricl__topology_checksum(b->dim, b->n_vertices,
                                                   b->n_groups, b->groups))
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "batch.plan was made for another contact topology "
                         "(dim, n_vertices, group types, counts or vertex "
                         "indices differ): make a new plan");
  }

  /* Per-group data and output sizes. */
  region *r = fricl__malloc(MAX_REGIONS * sizeof *r);
  if (!r)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "validating");
  size_t nr = 0;
  r[nr++] = (region){b->velocities, vbytes, "velocities", SIZE_MAX, 0};
  r[nr++] = (region){b->direction, vbytes, "direction", SIZE_MAX, 0};
  r[nr++] = (region){b->potential, esz, "potential", SIZE_MAX, 1};
  r[nr++] = (region){b->gradient, vbytes, "gradient", SIZE_MAX, 1};
  r[nr++] =
      (region){b->hessian_product, vbytes, "hessian_product", SIZE_MAX, 1};
  if (plan)
    r[nr++] = (region){b->hessian_values, plan->nnz * dim * dim * esz,
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
    r[nr++] = (region){G->vertices, n * k * sizeof(int32_t), "vertices", g, 0};
    r[nr++] = (region){G->closest_point, n * nb * esz, "closest_point", g, 0};
    r[nr++] =
        (region){G->tangent_basis, n * dim * m * esz, "tangent_basis", g, 0};
    r[nr++] = (region){G->normal_force, n * esz, "normal_force", g, 0};
    r[nr++] = (region){G->weight, n * esz, "weight", g, 0};
    r[nr++] = (region){G->mu_s, n * esz, "mu_s", g, 0};
    r[nr++] = (region){G->mu_k, n * esz, "mu_k", g, 0};
    r[nr++] = (region){G->mu_aniso, n * m * esz, "mu_aniso", g, 0};
    r[nr++] = (region){G->potential, n * esz, "potential", g, 1};
    r[nr++] = (region){G->local_hessian, n * ndof * ndof * esz, "local_hessian",
                       g, 1};
    r[nr++] = (region){G->factored_gamma, n * k * esz, "factored_gamma", g, 1};
    r[nr++] = (region){G->factored_grad, n * dim * esz, "factored_grad", g, 1};
    r[nr++] = (region){G->factored_hessian, n * (dim * (dim + 1) / 2) * esz,
                       "factored_hessian", g, 1};
  }
  if (st == FRICL_STATUS_OK)
    st = check_overlaps(ctx, r, nr);
  free(r);
  return st;
}

fricl_status fricl_tangential_eval(fricl_context *ctx,
                                   const fricl_tangential_batch *batch) {
  if (!ctx || !batch)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "ctx and batch must not be NULL");
  fricl__clear_error(ctx);
  int need_hess = 0;
  fricl_status st = validate(ctx, batch, &need_hess);
  if (st != FRICL_STATUS_OK)
    return st;
  if (ctx->backend == FRICL_BACKEND_REFERENCE)
    return fricl__tangential_ref(ctx, batch, batch->plan, need_hess);
  /* The device gathers through the plan's lists; without a plan, a
   * temporary one with the vertex lists only. */
  fricl_tangential_plan *plan = (fricl_tangential_plan *)batch->plan;
  fricl_tangential_plan *tmp = NULL;
  if (!plan && (batch->gradient || batch->hessian_product)) {
    st = fricl__plan_build(ctx, batch->dim, batch->n_vertices, batch->n_groups,
                           batch->groups, 0, &tmp);
    if (st != FRICL_STATUS_OK)
      return st;
    plan = tmp;
  }
  if (plan)
    st = fricl__plan_upload(plan);
  if (st == FRICL_STATUS_OK)
    st = fricl__tangential_cl(ctx, batch, plan, need_hess);
  fricl_tangential_plan_destroy(tmp);
  return st;
}

/* ------------------------------------------------------------- cl tier */

void fricl_tangential_batch_cl_init(fricl_tangential_batch_cl *batch) {
  if (!batch)
    return;
  memset(batch, 0, sizeof *batch);
  batch->struct_size = (uint32_t)sizeof *batch;
  batch->dim = 3;
}

static fricl_status validate_cl(fricl_context *ctx,
                                const fricl_tangential_batch_cl *b,
                                int *need_hess) {
  if (b->struct_size < sizeof *b)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.struct_size is %u, expected %zu: initialise the "
                       "batch with fricl_tangential_batch_cl_init",
                       (unsigned)b->struct_size, sizeof *b);
  fricl_status st = check_common(ctx, b->precision, b->mu_profile, b->psd,
                                 b->flags, b->eps_v);
  if (st != FRICL_STATUS_OK)
    return st;
  if (b->dim != 2 && b->dim != 3)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "dim = %d: it must be 2 or 3", b->dim);
  if (b->n_groups && !b->groups)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "groups is NULL with n_groups = %zu", b->n_groups);
  if (b->n_groups > 64)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_groups = %zu: at most 64 groups per call",
                       b->n_groups);
  if (b->n_vertices > (size_t)INT32_MAX)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "n_vertices = %zu exceeds the int32 vertex indices",
                       b->n_vertices);
  size_t total = 0;
  int hess = b->hessian_values.mem || b->hessian_product.mem;
  int any = b->potential.mem || b->gradient.mem || hess;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_contact_group_cl *G = &b->groups[g];
    const char *name = fricl_stencil_name(G->type);
    if (!name)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu].type = %d is not a stencil type", g,
                         (int)G->type);
    if (b->dim == 2 &&
        (G->type == FRICL_STENCIL_EE || G->type == FRICL_STENCIL_FV))
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s) exists only in 3-D, dim is 2", g,
                         name);
    if (G->count > ((size_t)1 << 58) - total)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (%s): count = %zu is too large", g, name,
                         G->count);
    total += G->count;
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
  if (b->hessian_product.mem && !b->direction.mem)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.hessian_product is requested but "
                       "batch.direction.mem is NULL");
  const fricl_tangential_plan *plan = b->plan;
  if ((b->gradient.mem || b->hessian_values.mem || b->hessian_product.mem) &&
      !plan)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.plan is required for gradient, hessian_values "
                       "and hessian_product in the cl_mem tier");
  if (plan) {
    int same = plan->ctx == ctx && plan->dim == b->dim &&
               plan->n_vertices == b->n_vertices &&
               plan->n_groups == b->n_groups;
    for (size_t g = 0; same && g < b->n_groups; ++g)
      same = plan->types[g] == b->groups[g].type &&
             plan->counts[g] == b->groups[g].count;
    if (!same)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "batch.plan was made for another context or contact "
                         "topology (dim, n_vertices, group types or counts "
                         "differ)");
    if (b->hessian_values.mem && !plan->has_bsr)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "batch.plan has no Hessian pattern");
  }
  *need_hess = hess;
  return FRICL_STATUS_OK;
}

fricl_status fricl_tangential_eval_cl(fricl_context *ctx,
                                      const fricl_tangential_batch_cl *batch,
                                      cl_uint num_wait,
                                      const cl_event *wait_list,
                                      cl_event *done) {
  if (!ctx || !batch)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "ctx and batch must not be NULL");
  fricl__clear_error(ctx);
  if (ctx->backend != FRICL_BACKEND_OPENCL)
    return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                       "fricl_tangential_eval_cl needs an OpenCL context");
  if (num_wait && !wait_list)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "wait_list is NULL with num_wait = %u",
                       (unsigned)num_wait);
  int need_hess = 0;
  fricl_status st = validate_cl(ctx, batch, &need_hess);
  if (st != FRICL_STATUS_OK)
    return st;
  fricl_tangential_plan *plan = (fricl_tangential_plan *)batch->plan;
  if (plan)
    st = fricl__plan_upload(plan);
  if (st == FRICL_STATUS_OK)
    st = fricl__tangential_enqueue_cl(ctx, batch, plan, need_hess, num_wait,
                                      wait_list, done);
  return st;
}
