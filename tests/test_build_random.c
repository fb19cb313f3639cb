/*
 * test_build_random.c - the lagged build on random scenes of every stencil
 * (3-D: VV, EV, EE, FV, PV; 2-D: VV, EV, PV):
 *   - beta, P and N against an independent long-double evaluation of the
 *     spec's formulas (5.2, 5.3, 5.5, 5.6), P orthonormal and orthogonal to
 *     the contact normal, the choice rules followed exactly;
 *   - the gradient of N against central finite differences of N;
 *   - the barrier's b', b'' and dN/d(d^2) against finite differences
 *     (through the shared math header);
 *   - OpenCL against the reference (beta, P, mu, status bitwise; N and its
 *     gradient to a few ulp), bitwise repeatability, chunked == unchunked.
 */
#include "build_util.h"

#include "fricl_cl_compat.h"
#define FRICL_REAL double
#define FRICL_FN(name) tb_##name
#define FRICL_SQRT sqrt
#define FRICL_LOG log
#include "fricl_geometry_math.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_LOG

static uint64_t rng = 0x243F6A8885A308D3ull;
static double urand(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ull) >> 11) * 0x1p-53;
}
static double urange(double a, double b) { return a + (b - a) * urand(); }

static void rand_unit(int dim, double *u) {
  for (;;) {
    double l = 0;
    for (int i = 0; i < dim; ++i) {
      u[i] = urange(-1, 1);
      l += u[i] * u[i];
    }
    if (l < 0.1 || l > 1)
      continue;
    l = sqrt(l);
    for (int i = 0; i < dim; ++i)
      u[i] /= l;
    return;
  }
}

static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

#define NPER 40 /* contacts per group */
#define MAXG 5

typedef struct {
  int dim;
  size_t nv;
  double X[MAXG * NPER * 4 * 3];
  int ng;
  fricl_stencil type[MAXG];
  int32_t vx[MAXG][NPER * 4];
  double pn[NPER * 3], pc[NPER];
  double dhat;
} scene;

/* A random contact of each type at distance ~ U(0.05, 1.3) dhat, with its
 * own vertices placed at shuffled indices. */
static void make_scene(scene *S, int dim) {
  memset(S, 0, sizeof *S);
  S->dim = dim;
  S->dhat = 1e-2;
  const fricl_stencil t3[] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                              FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                              FRICL_STENCIL_PV};
  const fricl_stencil t2[] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                              FRICL_STENCIL_PV};
  S->ng = dim == 3 ? 5 : 3;
  size_t nv = 0;
  for (int g = 0; g < S->ng; ++g) {
    S->type[g] = dim == 3 ? t3[g] : t2[g];
    const int k = fricl_stencil_vertex_count(S->type[g]);
    for (int c = 0; c < NPER; ++c)
      for (int i = 0; i < k; ++i)
        S->vx[g][c * k + i] = (int32_t)nv++;
  }
  S->nv = nv;
  /* Shuffle the vertex numbering. */
  int32_t *perm = malloc(nv * sizeof *perm);
  for (size_t i = 0; i < nv; ++i)
    perm[i] = (int32_t)i;
  for (size_t i = nv - 1; i > 0; --i) {
    const size_t j = (size_t)(urand() * (double)(i + 1));
    const int32_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (int g = 0; g < S->ng; ++g) {
    const int k = fricl_stencil_vertex_count(S->type[g]);
    for (int c = 0; c < NPER; ++c) {
      double P[4][3] = {{0}};
      const double d = S->dhat * urange(0.05, 1.3);
      double o[3], u[3], v[3], nrm[3];
      for (int i = 0; i < dim; ++i)
        o[i] = urange(-1, 1);
      rand_unit(dim, u);
      switch (S->type[g]) {
      case FRICL_STENCIL_VV:
        for (int i = 0; i < dim; ++i) {
          P[0][i] = o[i];
          P[1][i] = o[i] + d * u[i];
        }
        break;
      case FRICL_STENCIL_EV: {
        const double len = urange(0.2, 1), al = urange(0.05, 0.95);
        rand_unit(dim, v);
        if (dim == 3) { /* n = a direction orthogonal to u */
          cross3(u, v, nrm);
          const double l =
              sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
          for (int i = 0; i < 3; ++i)
            nrm[i] /= l;
        } else {
          nrm[0] = -u[1];
          nrm[1] = u[0];
        }
        for (int i = 0; i < dim; ++i) {
          P[1][i] = o[i];
          P[2][i] = o[i] + len * u[i];
          P[0][i] = o[i] + al * len * u[i] + d * nrm[i];
        }
        break;
      }
      case FRICL_STENCIL_EE: {
        rand_unit(3, v);
        cross3(u, v, nrm);
        const double l =
            sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        if (l < 0.2) { /* keep away from the skip rule */
          --c;
          continue;
        }
        const double ba = urange(0.1, 0.9), bb = urange(0.1, 0.9);
        const double la = urange(0.3, 1), lb = urange(0.3, 1);
        for (int i = 0; i < 3; ++i) {
          nrm[i] /= l;
          const double pa = o[i], pb = o[i] + d * nrm[i];
          P[0][i] = pa - ba * la * u[i];
          P[1][i] = pa + (1 - ba) * la * u[i];
          P[2][i] = pb - bb * lb * v[i];
          P[3][i] = pb + (1 - bb) * lb * v[i];
        }
        break;
      }
      case FRICL_STENCIL_FV: {
        double e0[3], e1[3];
        rand_unit(3, e0);
        rand_unit(3, e1);
        cross3(e0, e1, nrm);
        const double l =
            sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        if (l < 0.3) {
          --c;
          continue;
        }
        const double b1 = urange(0.05, 0.6), b2 = urange(0.05, 0.35);
        const double s0 = urange(0.3, 1), s1 = urange(0.3, 1);
        for (int i = 0; i < 3; ++i) {
          nrm[i] /= l;
          P[1][i] = o[i];
          P[2][i] = o[i] + s0 * e0[i];
          P[3][i] = o[i] + s1 * e1[i];
          P[0][i] = o[i] + b1 * s0 * e0[i] + b2 * s1 * e1[i] + d * nrm[i];
        }
        break;
      }
      default: { /* PV: plane through o with normal u scaled */
        const double sc = urange(0.5, 3);
        double dot = 0;
        for (int i = 0; i < dim; ++i) {
          S->pn[c * dim + i] = sc * u[i];
          dot += sc * u[i] * o[i];
          P[0][i] = o[i] + d * u[i];
        }
        S->pc[c] = -dot;
        break;
      }
      }
      for (int i = 0; i < k; ++i)
        for (int r = 0; r < dim; ++r)
          S->X[(size_t)perm[S->vx[g][c * k + i]] * (size_t)dim + (size_t)r] =
              P[i][r];
    }
    for (int c = 0; c < NPER * k; ++c)
      S->vx[g][c] = perm[S->vx[g][c]];
  }
  free(perm);
}

/* ---------------------------------------------------- long-double oracle */

typedef long double ld;

static void ld_col(ld *P, int dim, int col, const ld *v) {
  ld n = 0;
  for (int i = 0; i < dim; ++i)
    n += v[i] * v[i];
  n = sqrtl(n);
  for (int i = 0; i < dim; ++i)
    P[i * (dim - 1) + col] = v[i] / n;
}

static void ld_cross(const ld *a, const ld *b, ld *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static ld ld_dot(const ld *a, const ld *b, int dim) {
  ld s = 0;
  for (int i = 0; i < dim; ++i)
    s += a[i] * b[i];
  return s;
}

static void ld_vv_basis(const ld *d, int dim, ld *P) {
  if (dim == 2) {
    const ld n = sqrtl(d[0] * d[0] + d[1] * d[1]);
    P[0] = -d[1] / n;
    P[1] = d[0] / n;
    return;
  }
  /* |cx|^2 > |cy|^2  <=>  |d_y| > |d_x| (spec 5.3). */
  const ld cx[3] = {0, -d[2], d[1]}, cy[3] = {d[2], 0, -d[0]};
  const ld *c = fabsl(d[1]) > fabsl(d[0]) ? cx : cy;
  ld t[3];
  ld_cross(d, c, t);
  ld_col(P, 3, 0, c);
  ld_col(P, 3, 1, t);
}

/* beta, P, d^2 and the unit contact normal (for the span check). */
static void oracle(int type, int dim, const ld *x, const ld *pn, ld pc,
                   ld *beta, ld *P, ld *d2, ld *nrm) {
  ld a[3], b[3], q[3], n[3], t[3];
  const ld *x0 = x, *x1 = x + dim, *x2 = x + 2 * dim, *x3 = x + 3 * dim;
  for (int i = 0; i < dim; ++i) {
    a[i] = x1[i] - x0[i];
  }
  switch (type) {
  case FRICL_STENCIL_VV:
    ld_vv_basis(a, dim, P);
    *d2 = ld_dot(a, a, dim);
    for (int i = 0; i < dim; ++i)
      nrm[i] = a[i] / sqrtl(*d2);
    return;
  case FRICL_STENCIL_EV: {
    for (int i = 0; i < dim; ++i) {
      b[i] = x2[i] - x1[i]; /* e */
      q[i] = x0[i] - x1[i];
    }
    const ld ee = ld_dot(b, b, dim);
    beta[0] = ld_dot(q, b, dim) / ee;
    ld r[3];
    for (int i = 0; i < dim; ++i)
      r[i] = q[i] - beta[0] * b[i];
    *d2 = ld_dot(r, r, dim);
    for (int i = 0; i < dim; ++i)
      nrm[i] = r[i] / sqrtl(*d2);
    ld_col(P, dim, 0, b);
    if (dim == 3) {
      ld_cross(b, q, n);
      ld_col(P, 3, 1, n);
    }
    return;
  }
  case FRICL_STENCIL_EE: {
    ld w0[3];
    for (int i = 0; i < 3; ++i) {
      b[i] = x3[i] - x2[i];
      w0[i] = x0[i] - x2[i];
    }
    ld_cross(a, b, n);
    const ld A = ld_dot(a, a, 3), B = ld_dot(a, b, 3), C = ld_dot(b, b, 3);
    const ld det = A * C - B * B, wa = ld_dot(w0, a, 3), wb = ld_dot(w0, b, 3);
    beta[0] = (B * wb - C * wa) / det;
    beta[1] = (A * wb - B * wa) / det;
    const ld nn = ld_dot(n, n, 3), s = ld_dot(w0, n, 3);
    *d2 = s * s / nn;
    for (int i = 0; i < 3; ++i)
      nrm[i] = n[i] / sqrtl(nn);
    ld_col(P, 3, 0, a);
    ld_cross(n, a, t);
    ld_col(P, 3, 1, t);
    return;
  }
  case FRICL_STENCIL_FV: {
    ld E0[3], E1[3];
    for (int i = 0; i < 3; ++i) {
      E0[i] = x2[i] - x1[i];
      E1[i] = x3[i] - x1[i];
      q[i] = x0[i] - x1[i];
    }
    ld_cross(E0, E1, n);
    const ld a00 = ld_dot(E0, E0, 3), a01 = ld_dot(E0, E1, 3),
             a11 = ld_dot(E1, E1, 3);
    const ld b0 = ld_dot(E0, q, 3), b1 = ld_dot(E1, q, 3);
    const ld det = a00 * a11 - a01 * a01;
    beta[0] = (a11 * b0 - a01 * b1) / det;
    beta[1] = (a00 * b1 - a01 * b0) / det;
    const ld nn = ld_dot(n, n, 3), s = ld_dot(q, n, 3);
    *d2 = s * s / nn;
    for (int i = 0; i < 3; ++i)
      nrm[i] = n[i] / sqrtl(nn);
    ld_col(P, 3, 0, E0);
    ld_cross(n, E0, t);
    ld_col(P, 3, 1, t);
    return;
  }
  default: {
    const ld nn = ld_dot(pn, pn, dim), s = ld_dot(pn, x0, dim) + pc;
    *d2 = s * s / nn;
    for (int i = 0; i < dim; ++i)
      nrm[i] = pn[i] / sqrtl(nn);
    ld_vv_basis(pn, dim, P);
    return;
  }
  }
}

/* ------------------------------------------------------------ outputs */

typedef struct {
  void *beta[MAXG], *P[MAXG], *N[MAXG], *gN[MAXG], *mus[MAXG], *muk[MAXG];
  uint8_t st[MAXG][NPER];
  size_t es;
} outs;

static void outs_alloc(outs *o, fricl_precision p) {
  memset(o, 0, sizeof *o);
  o->es = p == FRICL_F64 ? 8 : 4;
  for (int g = 0; g < MAXG; ++g) {
    o->beta[g] = calloc(NPER * 2, o->es);
    o->P[g] = calloc(NPER * 6, o->es);
    o->N[g] = calloc(NPER, o->es);
    o->gN[g] = calloc(NPER * 12, o->es);
    o->mus[g] = calloc(NPER, o->es);
    o->muk[g] = calloc(NPER, o->es);
  }
}

static void outs_free(outs *o) {
  for (int g = 0; g < MAXG; ++g) {
    free(o->beta[g]);
    free(o->P[g]);
    free(o->N[g]);
    free(o->gN[g]);
    free(o->mus[g]);
    free(o->muk[g]);
  }
}

/* Build the scene with per-vertex mu (average of the default) on ctx. */
static fricl_status run_scene(fricl_context *ctx, const scene *S,
                              fricl_precision p, const double *Xd, outs *o) {
  const size_t nx = S->nv * (size_t)S->dim;
  void *X = bu_conv(p, Xd ? Xd : S->X, nx);
  double *vm = malloc(S->nv * sizeof *vm);
  for (size_t v = 0; v < S->nv; ++v)
    vm[v] = 0.1 + 0.5 * (double)(v % 7) / 7.0;
  void *vms = bu_conv(p, vm, S->nv);
  void *pn = bu_conv(p, S->pn, NPER * (size_t)S->dim);
  void *pc = bu_conv(p, S->pc, NPER);
  fricl_build_group G[MAXG];
  memset(G, 0, sizeof G);
  for (int g = 0; g < S->ng; ++g) {
    G[g].type = S->type[g];
    G[g].count = NPER;
    G[g].vertices = S->vx[g];
    if (S->type[g] == FRICL_STENCIL_PV) {
      G[g].plane_normal = pn;
      G[g].plane_offset = pc;
    }
    G[g].closest_point =
        fricl_stencil_coord_count(S->type[g]) ? o->beta[g] : NULL;
    G[g].tangent_basis = o->P[g];
    G[g].normal_force = o->N[g];
    G[g].normal_force_gradient = o->gN[g];
    G[g].mu_s_out = o->mus[g];
    G[g].mu_k_out = o->muk[g];
    G[g].status = o->st[g];
  }
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.precision = p;
  b.dim = S->dim;
  b.n_vertices = S->nv;
  b.lagged_positions = X;
  b.kappa = 1e4;
  b.dhat = S->dhat;
  b.vertex_mu_s = vms;
  b.mu_k = 0.25;
  b.n_groups = (size_t)S->ng;
  b.groups = G;
  const fricl_status st = fricl_build(ctx, &b);
  free(X);
  free(vm);
  free(vms);
  free(pn);
  free(pc);
  return st;
}

static double outv(const outs *o, void *const *arr, int g, size_t i) {
  return o->es == 8 ? ((const double *)arr[g])[i]
                    : (double)((const float *)arr[g])[i];
}

/* Against the long-double oracle, and the structural properties. */
static void check_oracle(fricl_context *ctx, const char *label, int dim,
                         fricl_precision p) {
  scene *S = malloc(sizeof *S);
  make_scene(S, dim);
  outs o;
  outs_alloc(&o, p);
  const fricl_status st = run_scene(ctx, S, p, NULL, &o);
  CHECK(st == FRICL_STATUS_OK, "%s: %s", label, fricl_context_last_error(ctx));
  const double tb = p == FRICL_F64 ? 1e-11 : 2e-3;
  const double tn = p == FRICL_F64 ? 1e-9 : 2e-2;
  const int m = dim - 1;
  for (int g = 0; g < S->ng && st == FRICL_STATUS_OK; ++g) {
    const int type = (int)S->type[g];
    const int k = fricl_stencil_vertex_count(S->type[g]);
    const int nb = fricl_stencil_coord_count(S->type[g]);
    for (int c = 0; c < NPER; ++c) {
      ld x[12], pn[3] = {0, 0, 0}, beta[2] = {0, 0}, P[6], d2, nrm[3];
      for (int i = 0; i < k; ++i)
        for (int r = 0; r < dim; ++r) {
          double xv =
              S->X[(size_t)S->vx[g][c * k + i] * (size_t)dim + (size_t)r];
          if (p == FRICL_F32)
            xv = (double)(float)xv;
          x[i * dim + r] = xv;
        }
      ld pc = 0;
      if (type == FRICL_STENCIL_PV) {
        for (int r = 0; r < dim; ++r)
          pn[r] = p == FRICL_F32 ? (double)(float)S->pn[c * dim + r]
                                 : S->pn[c * dim + r];
        pc = p == FRICL_F32 ? (double)(float)S->pc[c] : S->pc[c];
      }
      oracle(type, dim, x, pn, pc, beta, P, &d2, nrm);
      const char *tn_ = fricl_stencil_name(S->type[g]);
      const int want_st =
          d2 < (ld)S->dhat * S->dhat ? FRICL_BUILD_OK : FRICL_BUILD_INACTIVE;
      CHECK(o.st[g][c] == want_st, "%s %s %d: status %d, want %d", label, tn_,
            c, o.st[g][c], want_st);
      for (int i = 0; i < nb; ++i) {
        const double got = outv(&o, o.beta, g, (size_t)(c * nb + i));
        CHECK(fabs(got - (double)beta[i]) <= tb * (1 + fabs((double)beta[i])),
              "%s %s %d: beta[%d] = %.17g, oracle %.17Lg", label, tn_, c, i,
              got, beta[i]);
      }
      /* P: the oracle's rule, orthonormal, orthogonal to the normal. The
       * cross products of EV and FV lose eps |x| / d relative in the
       * working precision (inherent to the spec's formulas; f32 shows it). */
      double Pg[6];
      const double tp = p == FRICL_F64
                            ? 1e-12
                            : 1e-6 + 8 * FLT_EPSILON * 2 / sqrt((double)d2);
      for (int i = 0; i < dim * m; ++i) {
        Pg[i] = outv(&o, o.P, g, (size_t)(c * dim * m + i));
        CHECK(fabs(Pg[i] - (double)P[i]) <= tp,
              "%s %s %d: P[%d] = %.17g, "
              "oracle %.17Lg",
              label, tn_, c, i, Pg[i], P[i]);
      }
      for (int a = 0; a < m; ++a) {
        double nd = 0;
        for (int r = 0; r < dim; ++r)
          nd += Pg[r * m + a] * (double)nrm[r];
        CHECK(fabs(nd) <= tp, "%s %s %d: P col %d . normal = %g", label, tn_, c,
              a, nd);
        for (int b2 = a; b2 < m; ++b2) {
          double s = 0;
          for (int r = 0; r < dim; ++r)
            s += Pg[r * m + a] * Pg[r * m + b2];
          CHECK(fabs(s - (a == b2)) <= 4 * tp,
                "%s %s %d: P^T P (%d,%d) = %.17g", label, tn_, c, a, b2, s);
        }
      }
      const double Nw = (double)bu_barrier_N(d2, 0, S->dhat, 1e4);
      const double Ng = outv(&o, o.N, g, (size_t)c);
      /* N loses relative accuracy as d -> dhat: absolute on the scale of
       * the group's largest force. */
      CHECK(fabs(Ng - Nw) <= tn * (fabs(Nw) + 1e4 * S->dhat * 1e-3),
            "%s %s %d: N = %.17g, oracle %.17g", label, tn_, c, Ng, Nw);
    }
  }
  outs_free(&o);
  free(S);
}

/* dN/dx against central differences of N (reference backend, f64). */
static void check_grad_fd(fricl_context *ctx, int dim) {
  scene *S = malloc(sizeof *S);
  make_scene(S, dim);
  outs o, op, om;
  outs_alloc(&o, FRICL_F64);
  outs_alloc(&op, FRICL_F64);
  outs_alloc(&om, FRICL_F64);
  CHECK(run_scene(ctx, S, FRICL_F64, NULL, &o) == FRICL_STATUS_OK, "fd");
  double *Xp = malloc(S->nv * (size_t)dim * sizeof *Xp);
  /* One coordinate of every contact at a time: every contact owns its
   * vertices, so one perturbation of "slot i, axis r" of all contacts at
   * once gives every contact's partial derivative. */
  const double h = 1e-9;
  for (int slot = 0; slot < 4; ++slot)
    for (int r = 0; r < dim; ++r) {
      memcpy(Xp, S->X, S->nv * (size_t)dim * sizeof *Xp);
      for (int g = 0; g < S->ng; ++g) {
        const int k = fricl_stencil_vertex_count(S->type[g]);
        if (slot < k)
          for (int c = 0; c < NPER; ++c)
            Xp[(size_t)S->vx[g][c * k + slot] * (size_t)dim + (size_t)r] += h;
      }
      CHECK(run_scene(ctx, S, FRICL_F64, Xp, &op) == FRICL_STATUS_OK, "fd");
      for (int g = 0; g < S->ng; ++g) {
        const int k = fricl_stencil_vertex_count(S->type[g]);
        if (slot < k)
          for (int c = 0; c < NPER; ++c)
            Xp[(size_t)S->vx[g][c * k + slot] * (size_t)dim + (size_t)r] -=
                2 * h;
      }
      CHECK(run_scene(ctx, S, FRICL_F64, Xp, &om) == FRICL_STATUS_OK, "fd");
      for (int g = 0; g < S->ng; ++g) {
        const int k = fricl_stencil_vertex_count(S->type[g]);
        if (slot >= k)
          continue;
        for (int c = 0; c < NPER; ++c) {
          if (o.st[g][c] != FRICL_BUILD_OK)
            continue;
          const double fd =
              (((double *)op.N[g])[c] - ((double *)om.N[g])[c]) / (2 * h);
          const double an = ((double *)o.gN[g])[(size_t)c * (size_t)(k * dim) +
                                                (size_t)(slot * dim + r)];
          double gmax = 0;
          for (int i = 0; i < k * dim; ++i)
            gmax = fmax(
                gmax,
                fabs(((double *)
                          o.gN[g])[(size_t)c * (size_t)(k * dim) + (size_t)i]));
          CHECK(fabs(fd - an) <= 1e-5 * gmax + 1e-9,
                "%dD %s contact %d: dN/dx[%d][%d] = %.10g, FD %.10g (max %g)",
                dim, fricl_stencil_name(S->type[g]), c, slot, r, an, fd, gmax);
        }
      }
    }
  free(Xp);
  outs_free(&o);
  outs_free(&op);
  outs_free(&om);
  free(S);
}

/* b'(x) = FD of b, b'' = FD of b', dN/d(d^2) = FD of N, in long double
 * where the function itself is the spec's formula. */
static void check_barrier_fd(void) {
  const double dhats[3] = {1e-3, 1e-2, 0.5};
  const double dmins[3] = {0, 1e-3, 0.2};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int i = 1; i < 20; ++i) {
        const double dhat = dhats[a], dmin = dmins[b], kappa = 7;
        const ld xh = (2 * (ld)dmin + dhat) * dhat;
        const double d = dmin + dhat * i / 20.0, d2 = d * d;
        double dN;
        int region;
        const double N =
            tb_barrier_force(d2, dmin, dhat, kappa, 0, &dN, &region);
        CHECK(region == 0, "barrier region at d = %g", d);
        /* b(x) = -(x - x^)^2 ln(x / x^), in long double. */
        const ld x = (ld)d2 - (ld)dmin * dmin, hx = x * 1e-6L;
        const ld bpl = (-(x + hx - xh) * (x + hx - xh) * logl((x + hx) / xh) +
                        (x - hx - xh) * (x - hx - xh) * logl((x - hx) / xh)) /
                       (2 * hx);
        const double bp = N / (-kappa * 2 * d);
        CHECK(fabs(bp - (double)bpl) <= 1e-8 * fabs((double)bpl) + 1e-300,
              "b'(x) at d = %g (dhat %g, dmin %g): %.15g, FD %.15Lg", d, dhat,
              dmin, bp, bpl);
        /* dN/d(d^2) against FD of N in d^2 (double, step relative). */
        const double h = (d2 - dmin * dmin) * 1e-6;
        double t;
        int rr;
        const double Np =
            tb_barrier_force(d2 + h, dmin, dhat, kappa, 0, &t, &rr);
        const double Nm =
            tb_barrier_force(d2 - h, dmin, dhat, kappa, 0, &t, &rr);
        const double fd = (Np - Nm) / (2 * h);
        CHECK(fabs(fd - dN) <= 1e-6 * fabs(dN) + 1e-9 * fabs(N) / d2,
              "dN/d(d^2) at d = %g (dhat %g, dmin %g): %.12g, FD %.12g", d,
              dhat, dmin, dN, fd);
      }
  /* Outside (0, x^): exactly 0, no NaN. */
  const double probes[4] = {0, 1e-300, 1e-4, 1};
  for (int i = 0; i < 4; ++i) {
    double dN;
    int region;
    const double N =
        tb_barrier_force(probes[i], 1e-2, 1e-2, 1, 0, &dN, &region);
    CHECK(N == 0 && dN == 0 && region != 0,
          "barrier outside at d2 = %g: N %g "
          "dN %g region %d",
          probes[i], N, dN, region);
  }
}

/* ----------------------------------------------------- backends agree */

static int same_bits(const void *a, const void *b, size_t n) {
  return memcmp(a, b, n) == 0;
}

static void compare(const char *label, const scene *S, const outs *a,
                    const outs *b, int bitwise_N) {
  const size_t es = a->es;
  const int dim = S->dim, m = dim - 1;
  for (int g = 0; g < S->ng; ++g) {
    const int k = fricl_stencil_vertex_count(S->type[g]);
    const int nb = fricl_stencil_coord_count(S->type[g]);
    const char *tn = fricl_stencil_name(S->type[g]);
    CHECK(same_bits(a->st[g], b->st[g], NPER), "%s %s: status", label, tn);
    CHECK(same_bits(a->beta[g], b->beta[g], NPER * (size_t)nb * es),
          "%s %s: beta not bitwise", label, tn);
    CHECK(same_bits(a->P[g], b->P[g], NPER * (size_t)(dim * m) * es),
          "%s %s: P not bitwise", label, tn);
    CHECK(same_bits(a->mus[g], b->mus[g], NPER * es) &&
              same_bits(a->muk[g], b->muk[g], NPER * es),
          "%s %s: mu not bitwise", label, tn);
    if (bitwise_N) {
      CHECK(same_bits(a->N[g], b->N[g], NPER * es) &&
                same_bits(a->gN[g], b->gN[g], NPER * (size_t)(k * dim) * es),
            "%s %s: N / gradient not bitwise", label, tn);
      continue;
    }
    /* log is not correctly rounded in OpenCL: a few ulp. */
    const double tol = es == 8 ? 1e-13 : 2e-5;
    for (int c = 0; c < NPER; ++c) {
      double gmax = 0;
      for (int i = 0; i < k * dim; ++i)
        gmax = fmax(gmax, fabs(outv(a, a->gN, g, (size_t)(c * k * dim + i))));
      const double na = outv(a, a->N, g, (size_t)c),
                   nbv = outv(b, b->N, g, (size_t)c);
      CHECK(fabs(na - nbv) <= tol * fabs(na), "%s %s %d: N %.17g vs %.17g",
            label, tn, c, na, nbv);
      for (int i = 0; i < k * dim; ++i) {
        const double ga = outv(a, a->gN, g, (size_t)(c * k * dim + i));
        const double gb = outv(b, b->gN, g, (size_t)(c * k * dim + i));
        CHECK(fabs(ga - gb) <= tol * gmax, "%s %s %d: dN[%d] %.17g vs %.17g",
              label, tn, c, i, ga, gb);
      }
    }
  }
}

static void check_backends(int dim) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nbe = test_backends(be);
  fricl_context *ref = test_context("reference", 0, 0);
  scene *S = malloc(sizeof *S);
  make_scene(S, dim);
  for (int p = 0; p < 2; ++p) {
    const fricl_precision prec = p ? FRICL_F32 : FRICL_F64;
    outs r;
    outs_alloc(&r, prec);
    CHECK(run_scene(ref, S, prec, NULL, &r) == FRICL_STATUS_OK, "ref");
    for (int i = 0; i < nbe; ++i) {
      fricl_context *ctx = test_context(be[i].spec, 0, 0);
      fricl_context *chk = test_context(be[i].spec, 7, 0);
      if (!ctx || !chk || (prec == FRICL_F64 && !fricl_context_has_fp64(ctx))) {
        fricl_context_destroy(ctx);
        fricl_context_destroy(chk);
        continue;
      }
      char label[256];
      snprintf(label, sizeof label, "%dD %s %s", dim, be[i].label,
               p ? "f32" : "f64");
      outs a, b, c;
      outs_alloc(&a, prec);
      outs_alloc(&b, prec);
      outs_alloc(&c, prec);
      CHECK(run_scene(ctx, S, prec, NULL, &a) == FRICL_STATUS_OK, "%s: %s",
            label, fricl_context_last_error(ctx));
      CHECK(run_scene(ctx, S, prec, NULL, &b) == FRICL_STATUS_OK, "%s", label);
      CHECK(run_scene(chk, S, prec, NULL, &c) == FRICL_STATUS_OK, "%s", label);
      char l2[300];
      snprintf(l2, sizeof l2, "%s repeat", label);
      compare(l2, S, &a, &b, 1);
      snprintf(l2, sizeof l2, "%s chunks of 7", label);
      compare(l2, S, &a, &c, 1);
      if (strcmp(be[i].spec, "reference") != 0) {
        /* The host backend runs the reference's own loops: bitwise. */
        snprintf(l2, sizeof l2, "%s vs reference", label);
        compare(l2, S, &r, &a, strncmp(be[i].spec, "host", 4) == 0);
      }
      outs_free(&a);
      outs_free(&b);
      outs_free(&c);
      fricl_context_destroy(ctx);
      fricl_context_destroy(chk);
    }
    outs_free(&r);
  }
  free(S);
  fricl_context_destroy(ref);
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nbe = test_backends(be);
  for (int i = 0; i < nbe; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx)
      continue;
    for (int dim = 2; dim <= 3; ++dim)
      for (int p = 0; p < 2; ++p) {
        if (!p && !fricl_context_has_fp64(ctx))
          continue;
        char label[256];
        snprintf(label, sizeof label, "%dD %s %s", dim, be[i].label,
                 p ? "f32" : "f64");
        check_oracle(ctx, label, dim, p ? FRICL_F32 : FRICL_F64);
      }
    fricl_context_destroy(ctx);
  }
  fricl_context *ref = test_context("reference", 0, 0);
  check_grad_fd(ref, 3);
  check_grad_fd(ref, 2);
  fricl_context_destroy(ref);
  check_barrier_fd();
  check_backends(3);
  check_backends(2);
  return test_report("test_build_random");
}
