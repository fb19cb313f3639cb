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
  size_t stride; /* reals per record (FH_REC); rec NULL: none kept */
  size_t *blk;   /* or NULL: the BSR blocks of each contact's k x k pairs */
  int outs;      /* write the group's per-contact outputs here */
  const size_t *gbase; /* fh_run_all: each group's first contact (global) */
  /* fh_all: no records; the force of each contact's slot i goes to
   * slots[((i total) + global contact) dim ..] (slot-major: a vertex that
   * keeps its slot over many contacts, such as an obstacle's, has its
   * terms side by side for the gather), c0 the group's first contact. */
  FRICL_REAL *slots;
  size_t total, c0;
} FH_JOB;

/* Contact c of group G's per-contact outputs from its record R. */
static FRICL_HOST_INLINE void FRICL_FN(fh_outputs)(const fricl_force_group *G,
                                                   size_t c,
                                                   const FRICL_REAL *R,
                                                   int ndof) {
  typedef FRICL_REAL real;
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

/* type, dim and jac (0: the force alone) are constants of each
 * specialisation (FH_SPEC): without a Jacobian, the terms only the
 * Jacobian reads (dN, f2, the geometry's derivatives) fold away. */
static FRICL_HOST_INLINE void FRICL_FN(fh_body)(const FH_JOB *j, size_t lo,
                                                size_t hi, int type, int dim,
                                                int jac) {
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
  /* Entry (vertex i, coordinate s) at i vs + s cs. */
  const int cols = b->vertex_layout == FRICL_VERTEX_COLUMNS;
  const size_t vs = cols ? 1 : (size_t)dim;
  const size_t cs = cols ? b->n_vertices : 1;
  const real dhat = (real)b->dhat, kappa = (real)b->kappa;
  const real dmin = (real)b->dmin, eps = (real)b->eps_v;
  const int physical = (b->flags & FRICL_FORCE_FLAG_PHYSICAL_BARRIER) != 0;
  const int no_mu = (b->flags & FRICL_FORCE_FLAG_NO_MU) != 0;
  const int wrt = !jac                                   ? FRICL_FM_WRT_NONE
                  : b->wrt == FRICL_FORCE_WRT_VELOCITIES ? FRICL_FM_WRT_V
                                                         : FRICL_FM_WRT_X;
  for (size_t t = lo; t < hi; ++t) {
    const size_t c = j->lo + t;
    const int32_t *vx = G->vertices + c * (size_t)k;
#if defined(__GNUC__)
    /* The vertex rows of a contact a few ahead (gathers that miss); in
     * columns, each coordinate is a row of its own. */
    if (t + FH_AHEAD < hi)
      for (int i = 0; i < k; ++i) {
        const size_t at = (size_t)vx[FH_AHEAD * k + i] * vs;
        for (int s = 0; s < (cols ? dim : 1); ++s) {
          __builtin_prefetch(disp + at + (size_t)s * cs);
          __builtin_prefetch(vel + at + (size_t)s * cs);
          if (rest)
            __builtin_prefetch(rest + at + (size_t)s * cs);
        }
      }
#endif
    real x[12], v[12], pn[3] = {0, 0, 0}, pc = (real)0, an[2] = {1, 1};
    for (int i = 0; i < k; ++i)
      for (int s = 0; s < dim; ++s) {
        const size_t at = (size_t)vx[i] * vs + (size_t)s * cs;
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
    real Rl[13];
    real *R = j->rec ? j->rec + t * j->stride : Rl;
    R[0] = FRICL_FN(force_contact)(type, dim, x, v, pn, pc, wt, ms, mk, an, eps,
                                   (int)b->mu_profile, kappa, dhat, dmin,
                                   physical, wrt, R + 1, R + 13);
    if (j->outs)
      FRICL_FN(fh_outputs)(G, c, R, k * dim);
    if (j->slots)
      for (int i = 0; i < k; ++i)
        for (int s = 0; s < dim; ++s)
          j->slots[((size_t)i * j->total + j->c0 + c) * (size_t)dim +
                   (size_t)s] = R[1 + i * dim + s];
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
    if (j->w->want_jac)                                                        \
      FRICL_FN(fh_body)(j, lo, hi, T, D, 1);                                   \
    else                                                                       \
      FRICL_FN(fh_body)(j, lo, hi, T, D, 0);                                   \
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

/* Contacts [lo, hi) of all groups (global order) into the slot-major
 * force terms: fh_run on each group's part. */
static void FRICL_FN(fh_run_all)(void *arg, size_t lo, size_t hi,
                                 unsigned worker) {
  const FH_JOB *j = arg;
  for (size_t g = 0; g < j->w->b->n_groups; ++g) {
    const size_t g0 = j->gbase[g], g1 = j->gbase[g + 1];
    const size_t a = lo > g0 ? lo : g0, z = hi < g1 ? hi : g1;
    if (a >= z)
      continue;
    FH_JOB jg = *j;
    jg.g = g;
    jg.lo = 0;
    jg.c0 = g0;
    FRICL_FN(fh_run)(&jg, a - g0, z - g0, worker);
  }
}

/* The force from every contact's record, gathered per vertex through the
 * plan's vertex lists (contact order, slots in order within a contact:
 * the very additions, in the very order, of the per-chunk accumulation,
 * so bitwise the same), each entry written once. */
typedef struct FRICL_FN(fh_gather_job) {
  const fricl_tangential_plan *plan;
  const FRICL_REAL *slots; /* FH_JOB's */
  size_t total;
  FRICL_REAL *force;
} FRICL_FN(fh_gather_job);

static FRICL_HOST_INLINE void
FRICL_FN(fh_gather_body)(const FRICL_FN(fh_gather_job) * a, size_t lo,
                         size_t hi, int dim) {
  typedef FRICL_REAL real;
  const int64_t *vptr = a->plan->vptr;
  const uint64_t *vent = a->plan->ventries;
  for (size_t v = lo; v < hi; ++v) {
    real acc[3] = {(real)0, (real)0, (real)0};
    for (int64_t e = vptr[v]; e < vptr[v + 1]; ++e) {
      const uint64_t en = vent[e];
      const real *R =
          a->slots +
          ((size_t)(en & 3) * a->total + (size_t)(en >> 2)) * (size_t)dim;
      for (int s = 0; s < dim; ++s)
        acc[s] += R[s];
    }
    for (int s = 0; s < dim; ++s)
      a->force[v * (size_t)dim + (size_t)s] = acc[s];
  }
}

static void FRICL_FN(fh_gather)(void *arg, size_t lo, size_t hi,
                                unsigned worker) {
  (void)worker;
  const FRICL_FN(fh_gather_job) *a = arg;
  if (a->plan->dim == 3)
    FRICL_FN(fh_gather_body)(a, lo, hi, 3);
  else
    FRICL_FN(fh_gather_body)(a, lo, hi, 2);
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

/* Weighted cuts of the vertices into `pieces` ranges of about equal list
 * entries (the plan's vertex pointers; binary searches). */
static void FRICL_FN(fh_entry_cuts)(const fricl_tangential_plan *p,
                                    unsigned pieces, size_t *cuts) {
  const int64_t total = p->vptr[p->n_vertices];
  cuts[0] = 0;
  for (unsigned t = 1; t < pieces; ++t) {
    const int64_t target = (int64_t)((double)total * t / pieces);
    size_t lo = cuts[t - 1], hi = p->n_vertices;
    while (lo < hi) { /* the first vertex whose list starts at target */
      const size_t mid = lo + (hi - lo) / 2;
      if (p->vptr[mid] < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    cuts[t] = lo;
  }
  cuts[pieces] = p->n_vertices;
}

/* The force without a Jacobian from the host threads: every contact's
 * force terms (slot-major) and per-contact outputs in one parallel run
 * over all contacts, then the global force gathered per vertex in
 * another (fh_gather). */
static fricl_status FRICL_FN(fh_all)(fricl_context *ctx,
                                     const fricl__force_work *w, int threaded) {
  typedef FRICL_REAL real;
  const fricl_force_batch *b = w->b;
  real *force = (real *)b->force;
  const fricl_tangential_plan *lists = w->vplan;
  if (force && !lists) {
    fricl_contact_group cg[FRICL_MAX_GROUPS];
    for (size_t g = 0; g < b->n_groups; ++g) {
      memset(&cg[g], 0, sizeof cg[g]);
      cg[g].type = b->groups[g].type;
      cg[g].count = b->groups[g].count;
      cg[g].vertices = b->groups[g].vertices;
    }
    fricl_tangential_plan *p = NULL;
    FRICL__TRY(
        fricl__plan_lookup(ctx, b->dim, b->n_vertices, b->n_groups, cg, &p));
    lists = p;
  }
  size_t gbase[FRICL_MAX_GROUPS + 1];
  gbase[0] = 0;
  for (size_t g = 0; g < b->n_groups; ++g)
    gbase[g + 1] = gbase[g] + b->groups[g].count;
  /* The most slots any group's stencil has. */
  size_t kmax = 1;
  for (size_t g = 0; g < b->n_groups; ++g)
    if (b->groups[g].count &&
        (size_t)fricl__stencil_vertex_count(b->groups[g].type) > kmax)
      kmax = (size_t)fricl__stencil_vertex_count(b->groups[g].type);
  real *slots = NULL;
  if (force) {
    /* Kept on the context: a fresh array this size would be mapped and
     * faulted in on every call. */
    slots = force_scratch_get(ctx, (w->total ? w->total : 1) * kmax *
                                       (size_t)b->dim * sizeof *slots);
    if (!slots)
      return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                         "allocating %zu contacts' force terms", w->total);
  }
  FH_JOB j = {w, 0, 0, NULL, 0, NULL, 1, gbase, slots, w->total, 0};
  /* About 0.1 us a contact: pieces of at least 128 contacts, threads from
   * 512 on. */
  if (threaded)
    fricl__pool_for_dynamic(ctx->pool, w->total, fricl__grain(ctx, 512),
                            fricl__grain(ctx, 128), 1, FRICL_FN(fh_run_all),
                            &j);
  else
    FRICL_FN(fh_run_all)(&j, 0, w->total, 0);
  if (force) {
    FRICL_FN(fh_gather_job) gj = {lists, slots, w->total, force};
    const size_t entries = (size_t)lists->vptr[lists->n_vertices];
    const unsigned threads = threaded ? fricl__pool_threads(ctx->pool) : 1;
    unsigned pieces = 1;
    /* A few ns an entry: threads from 16k entries on, pieces of at least
     * 4k, up to FRICL__POOL_PIECES_PER_THREAD per thread. */
    if (threads > 1 && entries > fricl__grain(ctx, 16384)) {
      size_t want = entries / fricl__grain(ctx, 4096);
      const size_t most = (size_t)threads * FRICL__POOL_PIECES_PER_THREAD;
      want = want > most ? most : want;
      pieces = (unsigned)(want > 256 ? 256 : want < 2 ? 2 : want);
    }
    size_t cuts[257];
    FRICL_FN(fh_entry_cuts)(lists, pieces, cuts);
    if (pieces > 1)
      fricl__pool_run_cuts(ctx->pool, cuts, pieces, FRICL_FN(fh_gather), &gj);
    else
      FRICL_FN(fh_gather)(&gj, 0, b->n_vertices, 0);
  }
  return FRICL_STATUS_OK;
}

static fricl_status FRICL_FH_FN(fricl_context *ctx, const fricl__force_work *w,
                                int threaded, const fricl__force_source *src) {
  typedef FRICL_REAL real;
  const fricl_force_batch *b = w->b;
  const int dim = b->dim;
  const size_t nvd = b->n_vertices * (size_t)dim;
  real *force = (real *)b->force, *jv = (real *)b->jacobian_values;
  const fricl_tangential_plan *plan = w->plan;
  if (!w->want_jac && !src)
    return FRICL_FN(fh_all)(ctx, w, threaded);
  const size_t stride = FH_REC;
  size_t chunk = FH_CHUNK;
  if (w->total < chunk)
    chunk = w->total ? w->total : 1;
  /* The records and, when the workers also find each contact's BSR
   * blocks (the binary searches are then off the serial accumulation),
   * the blocks after them, in the context's scratch (kept: no pages
   * mapped and faulted in per call). */
  const size_t rbytes = (chunk * stride * sizeof(real) + 63) / 64 * 64;
  const int want_blk = jv && !w->blocks;
  char *mem = force_scratch_get(
      ctx, rbytes + (want_blk ? chunk * 16 * sizeof(size_t) : 0));
  if (!mem)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu contact records", chunk);
  real *rec = (real *)(void *)mem;
  size_t *blk = want_blk ? (size_t *)(void *)(mem + rbytes) : NULL;
  if (force) {
    if (threaded)
      fricl__pool_for_dynamic(ctx->pool, nvd, fricl__grain(ctx, 65536),
                              fricl__grain(ctx, 16384), 1, FRICL_FN(fh_zero),
                              force);
    else
      FRICL_FN(fh_zero)(force, 0, nvd, 0);
  }
  if (jv) {
    if (threaded)
      fricl__pool_for_dynamic(
          ctx->pool, plan->nnz * (size_t)(dim * dim), fricl__grain(ctx, 65536),
          fricl__grain(ctx, 16384), 1, FRICL_FN(fh_zero), jv);
    else
      FRICL_FN(fh_zero)(jv, 0, plan->nnz * (size_t)(dim * dim), 0);
  }
  /* With a plan, the accumulation's row pieces (2 per thread; each scans
   * its chunk's vertices) weighted by the vertices' list entries. */
  size_t acc_cuts[257];
  unsigned acc_pieces = 1;
  if (threaded && plan && b->n_vertices > fricl__grain(ctx, 256)) {
    const unsigned t = fricl__pool_threads(ctx->pool);
    acc_pieces = 2 * t > 256 ? 256 : 2 * t;
    if (acc_pieces > b->n_vertices)
      acc_pieces = (unsigned)b->n_vertices;
    FRICL_FN(fh_entry_cuts)(plan, acc_pieces, acc_cuts);
  }
  size_t cg0 = 0; /* contacts of the groups before g */
  for (size_t g = 0; g < b->n_groups; cg0 += b->groups[g].count, ++g) {
    const fricl_force_group *G = &b->groups[g];
    const int k = fricl__stencil_vertex_count(G->type);
    const int ndof = k * dim;
    for (size_t lo = 0; lo < G->count; lo += chunk) {
      const size_t n = G->count - lo < chunk ? G->count - lo : chunk;
      FH_JOB j = {w, g, lo, rec, stride, blk, 1, NULL, NULL, 0, 0};
      if (src) {
        const fricl_status st = src->records(src->state, w, g, lo, n, rec);
        if (st != FRICL_STATUS_OK)
          return st;
        if (blk) /* the blocks fh_body would have found */
          for (size_t t = 0; t < n; ++t)
            for (int a = 0; a < k; ++a)
              for (int c = 0; c < k; ++c)
                blk[t * 16 + (size_t)(a * k + c)] = fricl__plan_block(
                    plan, G->vertices[(lo + t) * (size_t)k + (size_t)a],
                    G->vertices[(lo + t) * (size_t)k + (size_t)c]);
        for (size_t t = 0; t < n; ++t)
          FRICL_FN(fh_outputs)(G, lo + t, rec + t * stride, ndof);
      } else if (threaded)
        /* 1-2 us a contact with a Jacobian: threads from 64 contacts on,
         * pieces of at least 16. */
        fricl__pool_for_dynamic(ctx->pool, n, fricl__grain(ctx, 64),
                                fricl__grain(ctx, 16), 1, FRICL_FN(fh_run), &j);
      else
        FRICL_FN(fh_run)(&j, 0, n, 0);
      if (force || jv) {
        const size_t *bk = w->blocks ? w->blocks + (cg0 + lo) * 16 : blk;
        FH_ACC acc = {
            G,   plan,   lo,  n,
            rec, stride, bk,  force,
            jv,  k,      dim, (b->flags & FRICL_FORCE_FLAG_JACOBIAN_CSC) != 0};
        if (threaded && acc_pieces > 1)
          /* Rows cut by their list entries: an obstacle's few vertices
           * hold most blocks of a cloth's contacts. */
          fricl__pool_run_cuts(ctx->pool, acc_cuts, acc_pieces,
                               FRICL_FN(fh_acc), &acc);
        else if (threaded)
          fricl__pool_for(ctx->pool, b->n_vertices, fricl__grain(ctx, 256), 1,
                          FRICL_FN(fh_acc), &acc);
        else
          FRICL_FN(fh_acc)(&acc, 0, b->n_vertices, 0);
      }
    }
  }
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
