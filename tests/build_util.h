/*
 * build_util.h - helpers of the lagged-build tests: one group's outputs in
 * double (converted from f32 runs), a one-call build of a single group,
 * and an independent long-double barrier (written from the spec, not from
 * the library's math header).
 */
#ifndef FRICL_BUILD_UTIL_H
#define FRICL_BUILD_UTIL_H

#include "test_util.h"

#define BU_MAX 4096

/* Outputs of one group, always widened to double. */
typedef struct {
  size_t count;
  int k, nb, dim;
  double beta[BU_MAX * 2];
  double P[BU_MAX * 6];
  double N[BU_MAX];
  double gN[BU_MAX * 12];
  double w[BU_MAX];
  double mus[BU_MAX], muk[BU_MAX];
  uint8_t status[BU_MAX];
  size_t counts[FRICL_BUILD_STATUS_COUNT];
} bu_out;

/* Inputs of one group in double (converted for f32 runs). */
typedef struct {
  fricl_stencil type;
  size_t count;
  const int32_t *vx;
  const double *pn, *pc, *dmin, *w, *mus, *muk; /* optional per contact */
} bu_group;

typedef struct {
  int dim;
  size_t nv;
  const double *X, *Xrest, *vmus, *vmuk;
  double kappa, dhat, dmin, mu_s, mu_k;
  fricl_mu_blend blend;
  uint32_t flags;
} bu_params;

static inline void *bu_conv(fricl_precision p, const double *src, size_t n) {
  if (!src)
    return NULL;
  if (p == FRICL_F64) {
    double *d = malloc(n ? n * sizeof *d : 1);
    memcpy(d, src, n * sizeof *d);
    return d;
  }
  float *f = malloc(n ? n * sizeof *f : 1);
  for (size_t i = 0; i < n; ++i)
    f[i] = (float)src[i];
  return f;
}

static inline double bu_get(fricl_precision p, const void *a, size_t i) {
  return p == FRICL_F32 ? (double)((const float *)a)[i]
                        : ((const double *)a)[i];
}

/* Build one group on ctx, all outputs requested. Returns the status of
 * fricl_build; on OK, *o holds the outputs. */
static inline fricl_status bu_run(fricl_context *ctx, fricl_precision prec,
                                  const bu_params *bp, const bu_group *bg,
                                  bu_out *o) {
  const int dim = bp->dim, m = dim - 1;
  const int k = fricl_stencil_vertex_count(bg->type);
  const int nb = fricl_stencil_coord_count(bg->type);
  const size_t n = bg->count, es = prec == FRICL_F64 ? 8 : 4;
  memset(o, 0, sizeof *o);
  o->count = n;
  o->k = k;
  o->nb = nb;
  o->dim = dim;
  void *X = bu_conv(prec, bp->X, bp->nv * (size_t)dim);
  void *Xr = bu_conv(prec, bp->Xrest, bp->nv * (size_t)dim);
  void *vms = bu_conv(prec, bp->vmus, bp->nv);
  void *vmk = bu_conv(prec, bp->vmuk, bp->nv);
  void *pn = bu_conv(prec, bg->pn, n * (size_t)dim);
  void *pc = bu_conv(prec, bg->pc, n);
  void *dm = bu_conv(prec, bg->dmin, n);
  void *w = bu_conv(prec, bg->w, n);
  void *ms = bu_conv(prec, bg->mus, n);
  void *mk = bu_conv(prec, bg->muk, n);
  void *beta = calloc(n * 2 + 1, es), *P = calloc(n * 6 + 1, es);
  void *N = calloc(n + 1, es), *gN = calloc(n * 12 + 1, es);
  void *wo = calloc(n + 1, es), *mso = calloc(n + 1, es);
  void *mko = calloc(n + 1, es);
  fricl_build_group G;
  memset(&G, 0, sizeof G);
  G.type = bg->type;
  G.count = n;
  G.vertices = bg->vx;
  G.plane_normal = pn;
  G.plane_offset = pc;
  G.dmin = dm;
  G.weight = w;
  G.mu_s = ms;
  G.mu_k = mk;
  G.closest_point = nb ? beta : NULL;
  G.tangent_basis = P;
  G.normal_force = N;
  G.normal_force_gradient = gN;
  G.weight_out = wo;
  G.mu_s_out = mso;
  G.mu_k_out = mko;
  G.status = o->status;
  G.status_counts = o->counts;
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.precision = prec;
  b.dim = dim;
  b.flags = bp->flags;
  b.n_vertices = bp->nv;
  b.lagged_positions = X;
  b.rest_positions = Xr;
  b.kappa = bp->kappa;
  b.dhat = bp->dhat;
  b.dmin = bp->dmin;
  b.mu_s = bp->mu_s;
  b.mu_k = bp->mu_k;
  b.vertex_mu_s = vms;
  b.vertex_mu_k = vmk;
  b.blend = bp->blend;
  b.n_groups = 1;
  b.groups = &G;
  const fricl_status st = fricl_build(ctx, &b);
  if (st == FRICL_STATUS_OK)
    for (size_t c = 0; c < n; ++c) {
      for (int i = 0; i < nb; ++i)
        o->beta[c * 2 + (size_t)i] =
            bu_get(prec, beta, c * (size_t)nb + (size_t)i);
      for (int i = 0; i < dim * m; ++i)
        o->P[c * 6 + (size_t)i] =
            bu_get(prec, P, c * (size_t)(dim * m) + (size_t)i);
      o->N[c] = bu_get(prec, N, c);
      for (int i = 0; i < k * dim; ++i)
        o->gN[c * 12 + (size_t)i] =
            bu_get(prec, gN, c * (size_t)(k * dim) + (size_t)i);
      o->w[c] = bu_get(prec, wo, c);
      o->mus[c] = bu_get(prec, mso, c);
      o->muk[c] = bu_get(prec, mko, c);
    }
  void *all[] = {X,  Xr,   vms, vmk, pn, pc, dm,  w,  ms,
                 mk, beta, P,   N,   gN, wo, mso, mko};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    free(all[i]);
  return st;
}

/* Spec 5.6 in long double: N and b'(x). */
static inline long double bu_barrier_N(long double d2, long double dmin,
                                       long double dhat, long double kappa) {
  const long double x = d2 - dmin * dmin, xh = (2 * dmin + dhat) * dhat;
  if (!(x > 0) || !(x < xh))
    return 0;
  const long double bp = (xh - x) * (2 * logl(x / xh) - xh / x + 1);
  return -kappa * bp * 2 * sqrtl(d2);
}

static inline int bu_close(double got, double want, double rel, double abs) {
  return fabs(got - want) <= rel * fabs(want) + abs;
}

#endif
