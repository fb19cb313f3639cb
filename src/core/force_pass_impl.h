/*
 * force_pass_impl.h - the friction force's pass for one precision, after
 * the math it instantiates; included by force_pass.c with FRICL_REAL,
 * FRICL_FN, FRICL_SQRT, FRICL_FABS, FRICL_LOG and FRICL_FH_FN set, which
 * it undefines at its end. No include guard on purpose.
 */
#include "fricl_scalar_math.h"
/* then the potential's and the build's math, which use it */
#include "fricl_tangential_math.h"

#include "fricl_geometry_math.h"
/* then the force, which uses all three */
#include "fricl_force_math.h"

#define FH_JOB FRICL_FN(fh_job)
#define FH_ACC FRICL_FN(fh_acc_job)

typedef struct FH_JOB {
  const fricl__force_work *w;
  size_t g, lo; /* the chunk: group g, contacts lo .. */
  FRICL_REAL *rec;
  size_t stride; /* reals per record: FH_REC, or FH_REC_F without Jacobian */
  size_t *blk;   /* or NULL: the BSR blocks of each contact's k x k pairs */
} FH_JOB;

static FRICL_HOST_INLINE void FRICL_FN(fh_body)(const FH_JOB *j, size_t lo,
                                                size_t hi, int type, int dim) {
  typedef FRICL_REAL real;
  const fricl_force_batch *b = j->w->b;
  const fricl_force_group *G = &b->groups[j->g];
  const int k = type == FRICL_STENCIL_VV   ? 2
                : type == FRICL_STENCIL_EV ? 3
                : type == FRICL_STENCIL_PV ? 1
                                           : 4;
  const int m = dim - 1;
  const real *rest = (const real *)b->rest_positions;
  const real *disp = (const real *)b->lagged_displacements;
  const real *vel = (const real *)b->velocities;
  const real dhat = (real)b->dhat, kappa = (real)b->kappa;
  const real dmin = (real)b->dmin, eps = (real)b->eps_v;
  const int physical = (b->flags & FRICL_FORCE_FLAG_PHYSICAL_BARRIER) != 0;
  const int no_mu = (b->flags & FRICL_FORCE_FLAG_NO_MU) != 0;
  const int wrt = !j->w->want_jac                        ? FRICL_FM_WRT_NONE
                  : b->wrt == FRICL_FORCE_WRT_VELOCITIES ? FRICL_FM_WRT_V
                                                         : FRICL_FM_WRT_X;
  for (size_t t = lo; t < hi; ++t) {
    const size_t c = j->lo + t;
    const int32_t *vx = G->vertices + c * (size_t)k;
#if defined(__GNUC__)
    /* The vertex rows of a contact a few ahead (gathers that miss). */
    if (t + FH_AHEAD < hi)
      for (int i = 0; i < k; ++i) {
        const size_t at = (size_t)vx[FH_AHEAD * k + i] * (size_t)dim;
        __builtin_prefetch(disp + at);
        __builtin_prefetch(vel + at);
        if (rest)
          __builtin_prefetch(rest + at);
      }
#endif
    real x[12], v[12], pn[3] = {0, 0, 0}, pc = (real)0, an[2] = {1, 1};
    for (int i = 0; i < k; ++i)
      for (int s = 0; s < dim; ++s) {
        const size_t at = (size_t)vx[i] * (size_t)dim + (size_t)s;
        x[i * dim + s] = rest ? rest[at] + disp[at] : disp[at];
        v[i * dim + s] = vel[at];
      }
    if (type == FRICL_STENCIL_PV) {
      for (int s = 0; s < dim; ++s)
        pn[s] = ((const real *)G->plane_normal)[c * (size_t)dim + (size_t)s];
      pc = ((const real *)G->plane_offset)[c];
    }
    if (G->mu_aniso)
      for (int s = 0; s < m; ++s)
        an[s] = ((const real *)G->mu_aniso)[c * (size_t)m + (size_t)s];
    const real wt = G->weight ? ((const real *)G->weight)[c] : (real)1;
    const real ms = no_mu ? (real)1 : ((const real *)G->mu_s)[c];
    const real mk = no_mu ? (real)1 : ((const real *)G->mu_k)[c];
    real *R = j->rec + t * j->stride;
    R[0] = FRICL_FN(force_contact)(type, dim, x, v, pn, pc, wt, ms, mk, an, eps,
                                   (int)b->mu_profile, kappa, dhat, dmin,
                                   physical, wrt, R + 1, R + 13);
    if (j->blk)
      for (int i = 0; i < k; ++i)
        for (int jj = 0; jj < k; ++jj)
          j->blk[t * 16 + (size_t)(i * k + jj)] =
              fricl__plan_block(j->w->plan, vx[i], vx[jj]);
  }
}

#define FH_SPEC(T, D, suffix)                                                  \
  static FRICL_FLATTEN void FRICL_FN(fh_##suffix)(const FH_JOB *j, size_t lo,  \
                                                  size_t hi) {                 \
    FRICL_FN(fh_body)(j, lo, hi, T, D);                                        \
  }
FH_SPEC(FRICL_STENCIL_VV, 3, vv3)
FH_SPEC(FRICL_STENCIL_EV, 3, ev3)
FH_SPEC(FRICL_STENCIL_EE, 3, ee3)
FH_SPEC(FRICL_STENCIL_FV, 3, fv3)
FH_SPEC(FRICL_STENCIL_PV, 3, pv3)
FH_SPEC(FRICL_STENCIL_VV, 2, vv2)
FH_SPEC(FRICL_STENCIL_EV, 2, ev2)
FH_SPEC(FRICL_STENCIL_PV, 2, pv2)
#undef FH_SPEC

static void FRICL_FN(fh_run)(void *arg, size_t lo, size_t hi, unsigned worker) {
  (void)worker;
  const FH_JOB *j = arg;
  const int dim = j->w->b->dim;
  switch (j->w->b->groups[j->g].type) {
  case FRICL_STENCIL_VV:
    (dim == 3 ? FRICL_FN(fh_vv3) : FRICL_FN(fh_vv2))(j, lo, hi);
    break;
  case FRICL_STENCIL_EV:
    (dim == 3 ? FRICL_FN(fh_ev3) : FRICL_FN(fh_ev2))(j, lo, hi);
    break;
  case FRICL_STENCIL_EE:
    FRICL_FN(fh_ee3)(j, lo, hi);
    break;
  case FRICL_STENCIL_FV:
    FRICL_FN(fh_fv3)(j, lo, hi);
    break;
  default:
    (dim == 3 ? FRICL_FN(fh_pv3) : FRICL_FN(fh_pv2))(j, lo, hi);
    break;
  }
}

/* A chunk's records added into the force and the BSR values, split by the
 * row vertex: a piece adds, in contact order, only the rows of its
 * vertices [vlo, vhi) (bitwise the same on any thread count). */
typedef struct FH_ACC {
  const fricl_force_group *G;
  const fricl_tangential_plan *plan;
  size_t c0, n;
  const FRICL_REAL *rec;
  size_t stride;
  const size_t *blk;
  FRICL_REAL *force, *jv;
  int k, dim, csc;
} FH_ACC;

/* With the stencil size and the dimension as arguments: constants from
 * the callers in fh_acc fold through the loops. */
static FRICL_HOST_INLINE void
FRICL_FN(fh_acc_body)(const FH_ACC *a, size_t vlo, size_t vhi, int k, int dim) {
  typedef FRICL_REAL real;
  const int ndof = k * dim;
  for (size_t t = 0; t < a->n; ++t) {
    const size_t c = a->c0 + t;
    const real *R = a->rec + t * a->stride;
    const int32_t *vx = a->G->vertices + c * (size_t)k;
    for (int i = 0; i < k; ++i) {
      const size_t vi = (size_t)vx[i];
      if (vi < vlo || vi >= vhi)
        continue;
      if (a->force)
        for (int s = 0; s < dim; ++s)
          a->force[vi * (size_t)dim + (size_t)s] += R[1 + i * dim + s];
      if (a->jv && !a->csc)
        for (int jj = 0; jj < k; ++jj) {
          real *blk = a->jv + a->blk[t * 16 + (size_t)(i * k + jj)] *
                                  (size_t)(dim * dim);
          for (int r = 0; r < dim; ++r)
            for (int s = 0; s < dim; ++s)
              blk[r * dim + s] += R[13 + (i * dim + r) * ndof + jj * dim + s];
        }
      if (a->jv && a->csc)
        for (int jj = 0; jj < k; ++jj) {
          /* Column vj dim + s of the scalar CSC lists the rows of the
           * blocks of BSR row vj (the pattern is symmetric), d each: the
           * entry (vi dim + r) sits at rank(vi in row vj) dim + r. */
          const size_t vj = (size_t)vx[jj];
          const size_t bt = a->blk[t * 16 + (size_t)(jj * k + i)];
          const size_t r0 = (size_t)a->plan->row_ptr[vj];
          const size_t len = (size_t)a->plan->row_ptr[vj + 1] - r0;
          real *col =
              a->jv + r0 * (size_t)(dim * dim) + (bt - r0) * (size_t)dim;
          for (int s = 0; s < dim; ++s)
            for (int r = 0; r < dim; ++r)
              col[(size_t)s * len * (size_t)dim + (size_t)r] +=
                  R[13 + (i * dim + r) * ndof + jj * dim + s];
        }
    }
  }
}

static void FRICL_FN(fh_acc)(void *arg, size_t vlo, size_t vhi,
                             unsigned worker) {
  (void)worker;
  const FH_ACC *a = arg;
  if (a->dim == 3 && a->k == 4)
    FRICL_FN(fh_acc_body)(a, vlo, vhi, 4, 3);
  else if (a->dim == 3 && a->k == 3)
    FRICL_FN(fh_acc_body)(a, vlo, vhi, 3, 3);
  else
    FRICL_FN(fh_acc_body)(a, vlo, vhi, a->k, a->dim);
}

static void FRICL_FN(fh_zero)(void *arg, size_t lo, size_t hi,
                              unsigned worker) {
  (void)worker;
  FRICL_REAL *a = arg;
  for (size_t i = lo; i < hi; ++i)
    a[i] = (FRICL_REAL)0;
}

static fricl_status FRICL_FH_FN(fricl_context *ctx, const fricl__force_work *w,
                                int threaded, const fricl__force_source *src) {
  typedef FRICL_REAL real;
  const fricl_force_batch *b = w->b;
  const int dim = b->dim;
  const size_t nvd = b->n_vertices * (size_t)dim;
  real *force = (real *)b->force, *jv = (real *)b->jacobian_values;
  const fricl_tangential_plan *plan = w->plan;
  /* Without a Jacobian from the host threads, a record is N and the force
   * only: short records, longer chunks (fewer joins of the threads). */
  const int short_rec = !w->want_jac && !src;
  const size_t stride = short_rec ? FH_REC_F : FH_REC;
  size_t chunk = short_rec ? FH_CHUNK_F : FH_CHUNK;
  if (w->total < chunk)
    chunk = w->total ? w->total : 1;
  real *rec = fricl__malloc(chunk * stride * sizeof *rec);
  /* The workers also find each contact's BSR blocks (the binary searches
   * are then off the serial accumulation). */
  size_t *blk =
      jv && !w->blocks ? fricl__malloc(chunk * 16 * sizeof *blk) : NULL;
  if (!rec || (jv && !w->blocks && !blk)) {
    free(rec);
    free(blk);
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu contact records", chunk);
  }
  if (force) {
    if (threaded)
      fricl__pool_for(ctx->pool, nvd, fricl__grain(ctx, 65536), 1,
                      FRICL_FN(fh_zero), force);
    else
      FRICL_FN(fh_zero)(force, 0, nvd, 0);
  }
  if (jv) {
    if (threaded)
      fricl__pool_for(ctx->pool, plan->nnz * (size_t)(dim * dim),
                      fricl__grain(ctx, 65536), 1, FRICL_FN(fh_zero), jv);
    else
      FRICL_FN(fh_zero)(jv, 0, plan->nnz * (size_t)(dim * dim), 0);
  }
  size_t cg0 = 0; /* contacts of the groups before g */
  for (size_t g = 0; g < b->n_groups; cg0 += b->groups[g].count, ++g) {
    const fricl_force_group *G = &b->groups[g];
    const int k = fricl__stencil_vertex_count(G->type);
    const int ndof = k * dim;
    for (size_t lo = 0; lo < G->count; lo += chunk) {
      const size_t n = G->count - lo < chunk ? G->count - lo : chunk;
      FH_JOB j = {w, g, lo, rec, stride, blk};
      if (src) {
        const fricl_status st = src->records(src->state, w, g, lo, n, rec);
        if (st != FRICL_STATUS_OK) {
          free(rec);
          free(blk);
          return st;
        }
        if (blk) /* the blocks fh_body would have found */
          for (size_t t = 0; t < n; ++t)
            for (int a = 0; a < k; ++a)
              for (int c = 0; c < k; ++c)
                blk[t * 16 + (size_t)(a * k + c)] = fricl__plan_block(
                    plan, G->vertices[(lo + t) * (size_t)k + (size_t)a],
                    G->vertices[(lo + t) * (size_t)k + (size_t)c]);
      } else if (threaded)
        fricl__pool_for(ctx->pool, n, fricl__grain(ctx, 64), 1,
                        FRICL_FN(fh_run), &j);
      else
        FRICL_FN(fh_run)(&j, 0, n, 0);
      for (size_t t = 0; t < n; ++t) {
        const size_t c = lo + t;
        const real *R = rec + t * stride;
        if (G->normal_force)
          ((real *)G->normal_force)[c] = R[0];
        if (G->local_force)
          for (int i = 0; i < ndof; ++i)
            ((real *)G->local_force)[c * (size_t)ndof + (size_t)i] = R[1 + i];
        if (G->local_jacobian)
          for (int i = 0; i < ndof * ndof; ++i)
            ((real *)G->local_jacobian)[c * (size_t)(ndof * ndof) + (size_t)i] =
                R[13 + i];
      }
      if (force || jv) {
        const size_t *bk = w->blocks ? w->blocks + (cg0 + lo) * 16 : blk;
        FH_ACC acc = {
            G,   plan,   lo,  n,
            rec, stride, bk,  force,
            jv,  k,      dim, (b->flags & FRICL_FORCE_FLAG_JACOBIAN_CSC) != 0};
        if (threaded)
          fricl__pool_for(ctx->pool, b->n_vertices, fricl__grain(ctx, 256), 1,
                          FRICL_FN(fh_acc), &acc);
        else
          FRICL_FN(fh_acc)(&acc, 0, b->n_vertices, 0);
      }
    }
  }
  free(rec);
  free(blk);
  return FRICL_STATUS_OK;
}

#undef FH_JOB
#undef FH_ACC
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_FABS
#undef FRICL_LOG
#undef FRICL_FH_FN
