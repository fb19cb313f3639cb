/*
 * barrier_pass_impl.h - the barrier's pass for one precision;
 * included by barrier_pass.c with FRICL_REAL, FRICL_FN and FRICL_BH_FN
 * set. No include guard on purpose.
 */
#define BH_JOB FRICL_FN(bh_job)
#define BH_RUN FRICL_FN(bh_run)
#define BH_ACC FRICL_FN(bh_acc_job)
/* Contacts ahead whose BSR blocks the accumulation prefetches. */
#define BH_AHEAD 6
/* Records (reals) a call keeps on the stack rather than allocating. */
enum { FRICL_FN(bh_small) = 512 };

typedef struct BH_JOB BH_JOB;
struct BH_JOB {
  const fricl__barrier_work *w;
  size_t g, lo; /* the chunk: group g, contacts lo .. */
  FRICL_REAL *rec;
  size_t *blk;      /* or NULL: the BSR blocks of each contact's k x k pairs */
  FRICL_REAL *xrec; /* or NULL: the extras (BH_XREC reals per contact) */
  int extras_only;  /* the records come from elsewhere: extras only */
  size_t rs;        /* the records' stride (reals) */
};

/* The lean form a job's contacts take: 1 the value alone, 2 the value and
 * gradient alone (no Hessian, no extras, no shape derivative), 0 the full
 * barrier_contact. */
static int FRICL_FN(bh_lean)(const BH_JOB *j) {
  const fricl_barrier_batch *b = j->w->b;
  if ((b->flags & FRICL_BARRIER_FLAG_SHAPE) || j->xrec || j->extras_only ||
      (b->extras && b->extras[j->g].shape_derivative))
    return 0;
  return j->w->want == 0 ? 1 : j->w->want == 1 ? 2 : 0;
}

/* Contacts [lo, hi) of the chunk (relative to its start), with the
 * stencil and the dimension as arguments: the specialised callers below
 * pass constants, which fold through the inlined math. */
static FRICL_HOST_INLINE void FRICL_FN(bh_body)(const BH_JOB *j, size_t lo,
                                                size_t hi, int type, int dim,
                                                int only) {
  typedef FRICL_REAL real;
  const fricl_barrier_batch *b = j->w->b;
  const fricl_barrier_group *G = &b->groups[j->g];
  const int k = type == FRICL_STENCIL_VV   ? 2
                : type == FRICL_STENCIL_EV ? 3
                : type == FRICL_STENCIL_PV ? 1
                                           : 4;
  const real *pos = (const real *)b->positions;
  const real *rest = b->rest_positions ? (const real *)b->rest_positions : pos;
  const real dhat = (real)b->dhat, kappa = (real)b->kappa;
  const int physical = (b->flags & FRICL_BARRIER_FLAG_PHYSICAL) != 0;
  const int as_cls = (b->flags & FRICL_BARRIER_FLAG_AS_CLASSIFIED) != 0;
  const int shape = (b->flags & FRICL_BARRIER_FLAG_SHAPE) != 0;
  const int fn = (int)b->function;
  const real adh[4] = {(real)b->adhesion_dhat_p, (real)b->adhesion_dhat_a,
                       (real)b->adhesion_Y, (real)b->adhesion_eps_c};
  /* The value or the gradient alone, with no extras: the lean forms of
   * barrier_contact (the same values bitwise, without its Hessian's work
   * and its distance derivatives). 0: barrier_contact. */
  const int lean = only ? only : FRICL_FN(bh_lean)(j);
  /* the force magnitude and its gradient: only where a group asks */
  const fricl_barrier_extras *EG = b->extras ? &b->extras[j->g] : NULL;
  const int force = EG && (EG->force_magnitude || EG->force_magnitude_gradient);
  real work[288];
  for (size_t t = lo; t < hi; ++t) {
    const size_t c = j->lo + t;
    const int32_t *vx = G->vertices + c * (size_t)k;
    real x[12], xr[12], pn[3] = {0, 0, 0}, pc = (real)0;
    for (int i = 0; i < k; ++i)
      for (int s = 0; s < dim; ++s) {
        x[i * dim + s] = pos[(size_t)vx[i] * (size_t)dim + (size_t)s];
        xr[i * dim + s] = rest[(size_t)vx[i] * (size_t)dim + (size_t)s];
      }
    if (G->type == FRICL_STENCIL_PV) {
      for (int s = 0; s < dim; ++s)
        pn[s] = ((const real *)G->plane_normal)[c * (size_t)dim + (size_t)s];
      pc = ((const real *)G->plane_offset)[c];
    }
    const real wt = G->weight ? ((const real *)G->weight)[c] : (real)1;
    const real dmin = G->dmin ? ((const real *)G->dmin)[c] : (real)b->dmin;
    const int dtype = FRICL_FN(bar_dtype)(
        type, G->distance_type ? G->distance_type[c] : -1, as_cls);
    real *R = j->rec + t * j->rs;
    if (!only && j->xrec) {
      real p[12];
      if (b->direction)
        for (int i = 0; i < k; ++i)
          for (int s = 0; s < dim; ++s)
            p[i * dim + s] =
                ((const real *)
                     b->direction)[(size_t)vx[i] * (size_t)dim + (size_t)s];
      FRICL_FN(barrier_contact_extras)
      (type, dim, x, pn, pc, dtype, dhat, kappa, dmin, wt, physical, fn, adh,
       b->direction ? p : 0, force, j->xrec + t * BH_XREC);
    }
    const fricl_barrier_extras *E = b->extras ? &b->extras[j->g] : NULL;
    if (!only && E && E->shape_derivative) {
      real gs[12];
      FRICL_FN(barrier_contact_shape)
      (type, dim, x, xr, pn, pc, dtype, dhat, kappa, dmin, wt, physical, fn,
       adh, gs, (real *)E->shape_derivative + c * (size_t)(k * dim * k * dim),
       work);
    }
    if (!only && j->extras_only)
      continue;
    if (lean == 1)
      R[0] =
          FRICL_FN(barrier_contact_value)(type, dim, x, xr, pn, pc, dtype, dhat,
                                          kappa, dmin, wt, physical, fn, adh);
    else if (lean == 2)
      R[0] = FRICL_FN(barrier_contact_gradient)(type, dim, x, xr, pn, pc, dtype,
                                                dhat, kappa, dmin, wt, physical,
                                                fn, adh, R + 1);
    else if (shape)
      R[0] = FRICL_FN(barrier_contact_shape)(type, dim, x, xr, pn, pc, dtype,
                                             dhat, kappa, dmin, wt, physical,
                                             fn, adh, R + 1, R + 13, work);
    else
      R[0] = FRICL_FN(barrier_contact)(
          type, dim, x, xr, pn, pc, dtype, dhat, kappa, dmin, wt, physical, fn,
          adh, (int)b->psd, j->w->want, R + 1, R + 13, work);
    if (j->blk)
      for (int i = 0; i < k; ++i)
        for (int jj = 0; jj < k; ++jj)
          j->blk[t * 16 + (size_t)(i * k + jj)] =
              fricl__plan_block(j->w->plan, vx[i], vx[jj]);
  }
}

/* Per stencil and dimension: bh_<s> any job, bhv_<s> and bhg_<s> the
 * lean value and gradient jobs alone (small bodies, whose math inlines
 * whole). */
#define BH_SPEC(T, D, suffix)                                                  \
  static FRICL_FLATTEN void FRICL_FN(bh_##suffix)(const BH_JOB *j, size_t lo,  \
                                                  size_t hi) {                 \
    FRICL_FN(bh_body)(j, lo, hi, T, D, 0);                                     \
  }                                                                            \
  static FRICL_FLATTEN void FRICL_FN(bhv_##suffix)(const BH_JOB *j, size_t lo, \
                                                   size_t hi) {                \
    FRICL_FN(bh_body)(j, lo, hi, T, D, 1);                                     \
  }                                                                            \
  static FRICL_FLATTEN void FRICL_FN(bhg_##suffix)(const BH_JOB *j, size_t lo, \
                                                   size_t hi) {                \
    FRICL_FN(bh_body)(j, lo, hi, T, D, 2);                                     \
  }
BH_SPEC(FRICL_STENCIL_VV, 3, vv3)
BH_SPEC(FRICL_STENCIL_EV, 3, ev3)
BH_SPEC(FRICL_STENCIL_EE, 3, ee3)
BH_SPEC(FRICL_STENCIL_FV, 3, fv3)
BH_SPEC(FRICL_STENCIL_PV, 3, pv3)
BH_SPEC(FRICL_STENCIL_VV, 2, vv2)
BH_SPEC(FRICL_STENCIL_EV, 2, ev2)
BH_SPEC(FRICL_STENCIL_PV, 2, pv2)
#undef BH_SPEC

typedef void (*FRICL_FN(bh_fn))(const BH_JOB *, size_t, size_t);

static void BH_RUN(void *arg, size_t lo, size_t hi, unsigned worker) {
  (void)worker;
  const BH_JOB *j = arg;
  const int d3 = j->w->b->dim == 3;
  /* [stencil][lean form], 3D then 2D (EE and FV are 3D only) */
  /* a row: the full, value-only and gradient-only bodies of a stencil */
#define BH_ROW(st)                                                             \
  { FRICL_FN(bh_##st), FRICL_FN(bhv_##st), FRICL_FN(bhg_##st) }
  static const FRICL_FN(bh_fn) f3[5][3] = {
      BH_ROW(vv3), BH_ROW(ev3), BH_ROW(ee3), BH_ROW(fv3), BH_ROW(pv3)};
  static const FRICL_FN(bh_fn) f2[5][3] = {
      BH_ROW(vv2), BH_ROW(ev2), BH_ROW(ee3), BH_ROW(fv3), BH_ROW(pv2)};
#undef BH_ROW
  const int t = (int)j->w->b->groups[j->g].type;
  const int s = t == FRICL_STENCIL_VV   ? 0
                : t == FRICL_STENCIL_EV ? 1
                : t == FRICL_STENCIL_EE ? 2
                : t == FRICL_STENCIL_FV ? 3
                                        : 4;
  (d3 ? f3 : f2)[s][FRICL_FN(bh_lean)(j)](j, lo, hi);
}

/* The accumulation of a chunk's records into the gradient, the BSR values
 * and H p, split by the row vertex: a piece adds, in contact order, only
 * the rows of its vertices [vlo, vhi), so that every output entry receives
 * its terms in the same order as on one thread (bitwise the same). */
typedef struct BH_ACC {
  const fricl_barrier_group *G;
  const fricl_tangential_plan *plan;
  size_t c0, n; /* contacts c0 .. c0 + n of the group */
  const FRICL_REAL *rec, *dir;
  const size_t *blkidx;
  FRICL_REAL *grad, *hv, *prod;
  int k, dim;
  size_t rs; /* the records' stride */
} BH_ACC;

/* With the stencil's size and the dimension as arguments: the callers in
 * bh_acc pass constants for the 3D stencils, which fold through the
 * loops. */
static FRICL_HOST_INLINE void
FRICL_FN(bh_acc_body)(const BH_ACC *a, size_t vlo, size_t vhi, int k, int dim) {
  typedef FRICL_REAL real;
  const int ndof = k * dim;
  for (size_t t = 0; t < a->n; ++t) {
    const size_t c = a->c0 + t;
    const real *R = a->rec + t * a->rs;
    const int32_t *vx = a->G->vertices + c * (size_t)k;
#if defined(__GNUC__) || defined(__clang__)
    /* The BSR blocks are scattered over a matrix far larger than the
     * caches: fetch those of a contact a few ahead. */
    if (a->hv && a->blkidx && t + BH_AHEAD < a->n) {
      const int32_t *va = vx + BH_AHEAD * k;
      for (int i = 0; i < k; ++i)
        if ((size_t)va[i] >= vlo && (size_t)va[i] < vhi)
          for (int jj = 0; jj < k; ++jj)
            __builtin_prefetch(
                a->hv + a->blkidx[(t + BH_AHEAD) * 16 + (size_t)(i * k + jj)] *
                            (size_t)(dim * dim),
                1);
    }
#endif
    for (int i = 0; i < k; ++i) {
      const size_t vi = (size_t)vx[i];
      if (vi < vlo || vi >= vhi)
        continue;
      if (a->grad)
        for (int s = 0; s < dim; ++s)
          a->grad[vi * (size_t)dim + (size_t)s] += R[1 + i * dim + s];
      if (a->hv)
        for (int jj = 0; jj < k; ++jj) {
          real *blk =
              a->hv + (a->blkidx ? a->blkidx[t * 16 + (size_t)(i * k + jj)]
                                 : fricl__plan_block(a->plan, vx[i], vx[jj])) *
                          (size_t)(dim * dim);
          for (int r = 0; r < dim; ++r)
            for (int s = 0; s < dim; ++s)
              blk[r * dim + s] += R[13 + (i * dim + r) * ndof + jj * dim + s];
        }
      if (a->prod)
        for (int r = 0; r < dim; ++r) {
          real s = (real)0;
          for (int jj = 0; jj < k; ++jj)
            for (int u = 0; u < dim; ++u)
              s += R[13 + (i * dim + r) * ndof + jj * dim + u] *
                   a->dir[(size_t)vx[jj] * (size_t)dim + (size_t)u];
          a->prod[vi * (size_t)dim + (size_t)r] += s;
        }
    }
  }
}

static void FRICL_FN(bh_acc)(void *arg, size_t vlo, size_t vhi,
                             unsigned worker) {
  (void)worker;
  const BH_ACC *a = arg;
  if (a->dim == 3 && a->k == 4)
    FRICL_FN(bh_acc_body)(a, vlo, vhi, 4, 3);
  else if (a->dim == 3 && a->k == 3)
    FRICL_FN(bh_acc_body)(a, vlo, vhi, 3, 3);
  else
    FRICL_FN(bh_acc_body)(a, vlo, vhi, a->k, a->dim);
}

/* Zero reals [lo, hi) of the array arg. */
static void FRICL_FN(bh_zero)(void *arg, size_t lo, size_t hi,
                              unsigned worker) {
  (void)worker;
  FRICL_REAL *a = arg;
  for (size_t i = lo; i < hi; ++i)
    a[i] = (FRICL_REAL)0;
}

static fricl_status FRICL_BH_FN(fricl_context *ctx,
                                const fricl__barrier_work *w, int threaded,
                                const fricl__barrier_source *src) {
  typedef FRICL_REAL real;
  const fricl_barrier_batch *b = w->b;
  const int dim = b->dim;
  const size_t nvd = b->n_vertices * (size_t)dim;
  real *grad = (real *)b->gradient, *prod = (real *)b->hessian_product;
  real *hv = (real *)b->hessian_values;
  const real *dir = (const real *)b->direction;
  const fricl_tangential_plan *plan = w->plan;
  size_t chunk = BH_CHUNK;
  if (w->total < chunk)
    chunk = w->total ? w->total : 1;
  real *gnd = (real *)b->gauss_newton_diagonal;
  int extras = gnd || b->gauss_newton_quadratic_form;
  for (size_t g = 0; b->extras && g < b->n_groups; ++g) {
    const fricl_barrier_extras *X = &b->extras[g];
    extras |= X->force_magnitude || X->force_magnitude_gradient ||
              X->gauss_newton_diagonal || X->gauss_newton_quadratic_form ||
              X->shape_derivative;
  }
  /* Extras alone: the records (B, gradient, Hessian) are not computed. */
  int primary = b->potential || grad || hv || prod;
  for (size_t g = 0; g < b->n_groups; ++g)
    primary |= b->groups[g].potential || b->groups[g].local_gradient ||
               b->groups[g].local_hessian;
  /* The records' stride: what the call reads of them (B; the gradient;
   * the Hessian) when the host threads make them, a backend's full
   * records otherwise. A large scratch array would be mapped and faulted
   * in on every call. */
  const size_t rs = src || w->want >= 2 || (b->flags & FRICL_BARRIER_FLAG_SHAPE)
                        ? BH_REC
                    : w->want == 1 ? 13
                                   : 1;
  /* A small call's records fit on the stack (no allocation per call). */
  real rec_small[FRICL_FN(bh_small)];
  real *rec = chunk * rs <= FRICL_FN(bh_small)
                  ? rec_small
                  : fricl__malloc(chunk * rs * sizeof *rec);
  real *xrec = extras ? fricl__malloc(chunk * BH_XREC * sizeof *xrec) : NULL;
  /* The workers also find each contact's BSR blocks (the binary searches
   * are then off the serial accumulation below). */
  size_t *blkidx =
      hv && !src ? fricl__malloc(chunk * 16 * sizeof *blkidx) : NULL;
  if (!rec || (hv && !src && !blkidx) || (extras && !xrec)) {
    if (rec != rec_small)
      free(rec);
    free(blkidx);
    free(xrec);
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu contact records", chunk);
  }
  if (grad)
    for (size_t i = 0; i < nvd; ++i)
      grad[i] = (real)0;
  if (prod)
    for (size_t i = 0; i < nvd; ++i)
      prod[i] = (real)0;
  if (gnd)
    for (size_t i = 0; i < nvd; ++i)
      gnd[i] = (real)0;
  if (hv) {
    /* tens of MB for a large plan: cleared on the host threads */
    if (threaded)
      fricl__pool_for_dynamic(
          ctx->pool, plan->nnz * (size_t)(dim * dim), fricl__grain(ctx, 65536),
          fricl__grain(ctx, 16384), 1, FRICL_FN(bh_zero), hv);
    else
      FRICL_FN(bh_zero)(hv, 0, plan->nnz * (size_t)(dim * dim), 0);
  }
  /* A piece's work must outweigh waking a thread (several us, more on a
   * loaded machine): about 0.1 us a contact for the value, 0.2 with the
   * gradient, 1-2 with the Hessian (measured: at ~700 contacts, grains of
   * 64 made the value and gradient 2-3x slower than one thread; at ~4k
   * contacts on a loaded 2-core machine, the gradient on two threads had a
   * median no better than one thread's and a 90th percentile up to 7x
   * worse: threads from ~8k contacts on). The split never changes a
   * result. */
  const size_t rec_grain = fricl__grain(ctx, w->want >= 2   ? 64
                                             : w->want == 1 ? 4096
                                                            : 8192);
  const size_t rec_piece = rec_grain / 8 > 8 ? rec_grain / 8 : 8;
  const size_t acc_grain = fricl__grain(ctx, hv ? 256 : 4096);
  real pot_total = (real)0, pot_block = (real)0;
  real gnq_total = (real)0, gnq_block = (real)0;
  size_t cg = 0;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_barrier_group *G = &b->groups[g];
    const int k = fricl__stencil_vertex_count(G->type);
    const int ndof = k * dim;
    for (size_t lo = 0; lo < G->count; lo += chunk) {
      const size_t n = G->count - lo < chunk ? G->count - lo : chunk;
      BH_JOB j = {w, g, lo, rec, blkidx, xrec, !primary, rs};
      if (src) {
        const fricl_status st = src->records(src->state, w, g, lo, n, rec);
        if (st != FRICL_STATUS_OK) {
          if (rec != rec_small)
            free(rec);
          free(blkidx);
          free(xrec);
          return st;
        }
        if (xrec) {
          BH_JOB jx = {w, g, lo, rec, NULL, xrec, 1, rs};
          BH_RUN(&jx, 0, n, 0);
        }
      } else if (threaded)
        /* Pieces claimed dynamically, at least an eighth of the grain: a
         * thread descheduled in the middle of one holds the call up by
         * that piece only. Each piece writes its contacts' records. */
        fricl__pool_for_dynamic(ctx->pool, n, rec_grain, rec_piece, 1, BH_RUN,
                                &j);
      else
        BH_RUN(&j, 0, n, 0);
      for (size_t t = 0; t < n; ++t, ++cg) {
        const size_t c = lo + t;
        const real *R = rec + t * rs;
        if (G->potential)
          ((real *)G->potential)[c] = R[0];
        if (G->local_gradient)
          for (int i = 0; i < ndof; ++i)
            ((real *)G->local_gradient)[c * (size_t)ndof + (size_t)i] =
                R[1 + i];
        if (G->local_hessian)
          for (int i = 0; i < ndof * ndof; ++i)
            ((real *)G->local_hessian)[c * (size_t)(ndof * ndof) + (size_t)i] =
                R[13 + i];
        if (b->potential) {
          pot_block += R[0];
          if ((cg + 1) % FRICL__POT_BLOCK == 0) {
            pot_total += pot_block;
            pot_block = (real)0;
          }
        }
        if (xrec) {
          const real *X = xrec + t * BH_XREC;
          const fricl_barrier_extras *E = b->extras ? &b->extras[g] : NULL;
          if (E && E->force_magnitude)
            ((real *)E->force_magnitude)[c] = X[0];
          if (E && E->force_magnitude_gradient)
            for (int i = 0; i < ndof; ++i)
              ((real *)
                   E->force_magnitude_gradient)[c * (size_t)ndof + (size_t)i] =
                  X[1 + i];
          if (E && E->gauss_newton_diagonal)
            for (int i = 0; i < ndof; ++i)
              ((real *)E->gauss_newton_diagonal)[c * (size_t)ndof + (size_t)i] =
                  X[13 + i];
          if (E && E->gauss_newton_quadratic_form)
            ((real *)E->gauss_newton_quadratic_form)[c] = X[25];
          if (gnd) {
            const int32_t *vx = G->vertices + c * (size_t)k;
            for (int i = 0; i < k; ++i)
              for (int s = 0; s < dim; ++s)
                gnd[(size_t)vx[i] * (size_t)dim + (size_t)s] +=
                    X[13 + i * dim + s];
          }
          if (b->gauss_newton_quadratic_form) {
            gnq_block += X[25];
            if ((cg + 1) % FRICL__POT_BLOCK == 0) {
              gnq_total += gnq_block;
              gnq_block = (real)0;
            }
          }
        }
      }
      if (grad || hv || prod) {
        BH_ACC acc = {G,    plan, lo,   n, rec, dir, blkidx,
                      grad, hv,   prod, k, dim, rs};
        if (threaded)
          fricl__pool_for(ctx->pool, b->n_vertices, acc_grain, 1,
                          FRICL_FN(bh_acc), &acc);
        else
          FRICL_FN(bh_acc)(&acc, 0, b->n_vertices, 0);
      }
    }
  }
  if (b->potential) {
    if (w->total % FRICL__POT_BLOCK)
      pot_total += pot_block;
    *(real *)b->potential = pot_total;
  }
  if (b->gauss_newton_quadratic_form) {
    if (w->total % FRICL__POT_BLOCK)
      gnq_total += gnq_block;
    *(real *)b->gauss_newton_quadratic_form = gnq_total;
  }
  if (rec != rec_small)
    free(rec);
  free(blkidx);
  free(xrec);
  return FRICL_STATUS_OK;
}

#undef BH_JOB
#undef BH_RUN
#undef BH_ACC
#undef BH_AHEAD
