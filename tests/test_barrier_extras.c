/*
 * test_barrier_extras.c - the normal potential's 0.4 additions to
 * fricl_barrier_eval: the adhesion function and the extras (force
 * magnitude and its gradient, the Gauss-Newton diagonal and quadratic
 * form), on every stencil (3-D: vv ev ee fv pv; 2-D: vv ev pv):
 *  - adhesion: the value against the piecewise formula written here from
 *    the paper's definition (independent of the kernels' header), the
 *    gradient and the Hessian (PSD none) against central differences,
 *    the projected Hessians' eigenvalues >= 0 (Cholesky);
 *  - the force magnitude's gradient against central differences of the
 *    force magnitude, and (barrier) N against -2 d dB/d(d^2) / w from the
 *    differences of B along the distance;
 *  - the Gauss-Newton terms: where the closest-point coefficients are
 *    constant (vv, pv), the Gauss-Newton Hessian is the exact one: its
 *    diagonal and quadratic form equal those of the unprojected local
 *    Hessian; everywhere the quadratic form at p = e_i is the diagonal's
 *    entry i, and the global outputs are the contacts' sums;
 *  - validation of the new fields (function, adhesion parameters, the
 *    physical flag with adhesion, a quadratic form without direction).
 * On the reference and host backends, each OpenCL device and a context
 * over two (which run these on the host threads): the results agree bit
 * for bit.
 */
#include "test_util.h"

#include "barrier_scene.h"

typedef struct {
  int fn; /* 0 barrier, 1 adhesion */
  double dhat, kappa, dmin, w;
  int physical;
  double ap, aa, Y, ec; /* adhesion */
} xp_params;

typedef struct {
  double B, g[12], H[144], N, gN[12], gnd[12], gnq;
} xp_out;

static fricl_status eval1x(fricl_context *ctx, int type, int dim,
                           const double *x, const double *xr, const double *pn,
                           double pc, const xp_params *p, fricl_psd psd,
                           const double *dir, xp_out *o, int extras) {
  const int k = fricl_stencil_vertex_count((fricl_stencil)type);
  int32_t vx[4] = {0, 1, 2, 3};
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = (fricl_stencil)type;
  G.count = 1;
  G.vertices = vx;
  G.weight = &p->w;
  G.plane_normal = pn;
  G.plane_offset = &pc;
  G.potential = &o->B;
  G.local_gradient = o->g;
  G.local_hessian = o->H;
  fricl_barrier_extras X = {&o->N, o->gN, o->gnd, dir ? &o->gnq : NULL, NULL};
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.dim = dim;
  b.psd = psd;
  b.flags = FRICL_BARRIER_FLAG_AS_CLASSIFIED |
            (p->physical ? FRICL_BARRIER_FLAG_PHYSICAL : 0u);
  b.n_vertices = (size_t)k;
  b.positions = x;
  b.rest_positions = xr;
  b.dhat = p->dhat;
  b.kappa = p->kappa;
  b.dmin = p->dmin;
  b.n_groups = 1;
  b.groups = &G;
  b.function = p->fn ? FRICL_NORMAL_ADHESION : FRICL_NORMAL_BARRIER;
  b.adhesion_dhat_p = p->ap;
  b.adhesion_dhat_a = p->aa;
  b.adhesion_Y = p->Y;
  b.adhesion_eps_c = p->ec;
  b.extras = extras ? &X : NULL;
  b.direction = dir;
  return fricl_barrier_eval(ctx, &b);
}

static fricl_status eval1(fricl_context *ctx, int type, int dim,
                          const double *x, const double *xr, const double *pn,
                          double pc, const xp_params *p, fricl_psd psd,
                          const double *dir, xp_out *o) {
  return eval1x(ctx, type, dim, x, xr, pn, pc, p, psd, dir, o, 1);
}

/* The adhesion function of x = d^2 - dmin^2, from its definition: a
 * quadratic a2 (x - xa)^2 on [xp, xa), continued below xp by the even
 * quadratic a1 x^2 + c1 with the same value and slope at xp. */
static double adhesion_ref(double x, double dmin, const xp_params *p) {
  const double xp = p->ap * p->ap + 2 * dmin * p->ap;
  const double xa = p->aa * p->aa + 2 * dmin * p->aa;
  const double a2 = p->Y * p->ec / (4 * (p->ap + dmin) * (xp - xa));
  if (x >= xa)
    return 0;
  if (x >= xp)
    return a2 * (x - xa) * (x - xa);
  /* slope match: 2 a1 xp = 2 a2 (xp - xa); value match gives c1 */
  const double a1 = a2 * (xp - xa) / xp;
  const double c1 = a2 * (xp - xa) * (xp - xa) - a1 * xp * xp;
  return a1 * x * x + c1;
}

/* Squared distance of the contact from its value: only for the test of
 * N, by inverting nothing: the PV and VV distances directly. */
static double d2_of(int type, int dim, const double *x, const double *pn,
                    double pc) {
  if (type == 4) {
    double s = pc, nn = 0;
    for (int i = 0; i < dim; ++i) {
      s += pn[i] * x[i];
      nn += pn[i] * pn[i];
    }
    return s * s / nn;
  }
  double d = 0;
  for (int i = 0; i < dim; ++i)
    d += (x[i] - x[dim + i]) * (x[i] - x[dim + i]);
  return d;
}

static void one_case(fricl_context *ctx, int type, int dim, int parallel,
                     const xp_params *p, int *checked) {
  const int k = fricl_stencil_vertex_count((fricl_stencil)type);
  const int n = k * dim;
  double x[12], xr[12], pn[3] = {0, 0, 0}, pc = 0;
  const double reach = p->fn ? p->aa : p->dhat;
  const double gap = p->dmin + reach * bs_range(0.15, 0.95);
  bs_contact(type, dim, gap, parallel, x, xr, pn, &pc);
  double dir[12];
  for (int i = 0; i < n; ++i)
    dir[i] = bs_range(-1, 1);
  xp_out o;
  fricl_status st =
      eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_NONE, dir, &o);
  CHECK(st == FRICL_STATUS_OK, "eval: %s", fricl_context_last_error(ctx));
  if (st != FRICL_STATUS_OK || !isfinite(o.B))
    return;
  ++*checked;
  /* Without extras the call runs on the context's backend (an OpenCL
   * device's kernel; the extras above ran on the host threads): the same
   * value, gradient and Hessian within 1e-10 of scale. */
  {
    xp_out d, hc;
    CHECK(eval1x(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_CLAMP, NULL, &d,
                 0) == FRICL_STATUS_OK,
          "plain: %s", fricl_context_last_error(ctx));
    eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_CLAMP, NULL, &hc);
    const double gs0 = fmax(test_max_abs(hc.g, n), 1e-300);
    const double hs0 = fmax(test_max_abs(hc.H, n * n), 1e-300);
    CHECK(fabs(d.B - hc.B) <= 1e-10 * (fabs(hc.B) + 1e-300),
          "fn %d type %d dim %d: B on the backend %.17g vs host %.17g", p->fn,
          type, dim, d.B, hc.B);
    for (int i = 0; i < n; ++i)
      CHECK(fabs(d.g[i] - hc.g[i]) <= 1e-10 * gs0,
            "fn %d type %d dim %d: gradient[%d] on the backend", p->fn, type,
            dim, i);
    for (int i = 0; i < n * n; ++i)
      CHECK(fabs(d.H[i] - hc.H[i]) <= 1e-10 * hs0,
            "fn %d type %d dim %d: H[%d] on the backend %.17g vs %.17g", p->fn,
            type, dim, i, d.H[i], hc.H[i]);
  }
  const double h = 1e-6;
  const double gs = fmax(test_max_abs(o.g, n), 1e-300);
  const double Hs = fmax(test_max_abs(o.H, n * n), 1e-300);
  const double Ns = fmax(test_max_abs(o.gN, n), fabs(o.N) + 1e-300);
  /* Central differences: gradient from B, Hessian from g, grad N from N. */
  for (int i = 0; i < n; ++i) {
    double xp[12], xm[12];
    memcpy(xp, x, sizeof xp);
    memcpy(xm, x, sizeof xm);
    xp[i] += h;
    xm[i] -= h;
    xp_out a, b;
    eval1(ctx, type, dim, xp, xr, pn, pc, p, FRICL_PSD_NONE, NULL, &a);
    eval1(ctx, type, dim, xm, xr, pn, pc, p, FRICL_PSD_NONE, NULL, &b);
    const double fd = (a.B - b.B) / (2 * h);
    CHECK(fabs(fd - o.g[i]) <= 1e-5 * gs + 1e-9,
          "fn %d type %d dim %d: gradient[%d] %.12g vs fd %.12g", p->fn, type,
          dim, i, o.g[i], fd);
    for (int j = 0; j < n; ++j) {
      const double fh = (a.g[j] - b.g[j]) / (2 * h);
      CHECK(fabs(fh - o.H[j * n + i]) <= 1e-5 * Hs + 1e-9,
            "fn %d type %d dim %d: H[%d][%d] %.12g vs fd %.12g", p->fn, type,
            dim, j, i, o.H[j * n + i], fh);
    }
    const double fN = (a.N - b.N) / (2 * h);
    CHECK(fabs(fN - o.gN[i]) <= 1e-5 * Ns + 1e-9,
          "fn %d type %d dim %d: grad N[%d] %.12g vs fd %.12g", p->fn, type,
          dim, i, o.gN[i], fN);
  }
  /* The adhesion value from its definition (vv, pv: d^2 computed here). */
  if (type == 0 || type == 4) {
    const double d2 = d2_of(type, dim, x, pn, pc);
    if (p->fn) {
      const double ref =
          p->w * p->kappa * adhesion_ref(d2 - p->dmin * p->dmin, p->dmin, p);
      CHECK(fabs(o.B - ref) <= 1e-12 * (fabs(ref) + 1e-300),
            "adhesion type %d dim %d: B %.17g vs %.17g", type, dim, o.B, ref);
      const double xp = p->ap * p->ap + 2 * p->dmin * p->ap;
      const double xa = p->aa * p->aa + 2 * p->dmin * p->aa;
      const double a2 = p->Y * p->ec / (4 * (p->ap + p->dmin) * (xp - xa));
      const double Nref = p->kappa * 2 * a2 * (xp - xa);
      CHECK(fabs(o.N - Nref) <= 1e-13 * fabs(Nref) &&
                test_max_abs(o.gN, n) == 0,
            "adhesion N %.17g vs %.17g", o.N, Nref);
    } else if (p->w != 0) {
      /* N = -2 d dB/d(d^2) / w: dB/d(d^2) from g = B'(d^2) grad d^2 */
      double gd[12];
      if (type == 4) {
        double s = pc, nn = 0;
        for (int i = 0; i < dim; ++i) {
          s += pn[i] * x[i];
          nn += pn[i] * pn[i];
        }
        for (int i = 0; i < dim; ++i)
          gd[i] = 2 * s * pn[i] / nn;
      } else {
        for (int i = 0; i < dim; ++i) {
          gd[i] = 2 * (x[i] - x[dim + i]);
          gd[dim + i] = -gd[i];
        }
      }
      double num = 0, den = 0;
      for (int i = 0; i < n; ++i) {
        num += o.g[i] * gd[i];
        den += gd[i] * gd[i];
      }
      const double Nref = -2 * sqrt(d2) * (num / den) / p->w;
      CHECK(fabs(o.N - Nref) <= 1e-10 * (fabs(Nref) + 1e-300),
            "barrier type %d dim %d: N %.17g vs %.17g", type, dim, o.N, Nref);
    }
    /* Constant coefficients: the Gauss-Newton Hessian is the exact one. */
    double q = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        q += dir[i] * o.H[i * n + j] * dir[j];
    CHECK(fabs(q - o.gnq) <= 1e-10 * (fabs(q) + Hs * 1e-6),
          "type %d dim %d: GN quadratic form %.17g vs p^T H p %.17g", type, dim,
          o.gnq, q);
    for (int i = 0; i < n; ++i)
      CHECK(fabs(o.H[i * n + i] - o.gnd[i]) <= 1e-10 * Hs,
            "type %d dim %d: GN diagonal[%d] %.17g vs H %.17g", type, dim, i,
            o.gnd[i], o.H[i * n + i]);
  }
  /* Every stencil: the quadratic form at e_i is the diagonal's entry. */
  for (int i = 0; i < n; ++i) {
    double e[12] = {0};
    e[i] = 1;
    xp_out a;
    eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_NONE, e, &a);
    CHECK(fabs(a.gnq - o.gnd[i]) <= 1e-12 * (test_max_abs(o.gnd, n) + 1e-300),
          "type %d dim %d: GN q(e_%d) %.17g vs diagonal %.17g", type, dim, i,
          a.gnq, o.gnd[i]);
  }
  /* The shape derivative's own term: the unprojected local Hessian,
   * bit for bit, wherever the mollifier is not active. */
  if (!parallel) {
    double S[144];
    int32_t vx[4] = {0, 1, 2, 3};
    fricl_barrier_group G1;
    memset(&G1, 0, sizeof G1);
    G1.type = (fricl_stencil)type;
    G1.count = 1;
    G1.vertices = vx;
    G1.weight = &p->w;
    G1.plane_normal = pn;
    G1.plane_offset = &pc;
    fricl_barrier_extras X1 = {NULL, NULL, NULL, NULL, S};
    fricl_barrier_batch b1;
    fricl_barrier_batch_init(&b1);
    b1.dim = dim;
    b1.flags = FRICL_BARRIER_FLAG_AS_CLASSIFIED |
               (p->physical ? FRICL_BARRIER_FLAG_PHYSICAL : 0u);
    b1.n_vertices = (size_t)k;
    b1.positions = x;
    b1.rest_positions = xr;
    b1.dhat = p->dhat;
    b1.kappa = p->kappa;
    b1.dmin = p->dmin;
    b1.n_groups = 1;
    b1.groups = &G1;
    b1.function = p->fn ? FRICL_NORMAL_ADHESION : FRICL_NORMAL_BARRIER;
    b1.adhesion_dhat_p = p->ap;
    b1.adhesion_dhat_a = p->aa;
    b1.adhesion_Y = p->Y;
    b1.adhesion_eps_c = p->ec;
    b1.extras = &X1;
    CHECK(fricl_barrier_eval(ctx, &b1) == FRICL_STATUS_OK, "shape: %s",
          fricl_context_last_error(ctx));
    CHECK(memcmp(S, o.H, sizeof(double) * (size_t)(n * n)) == 0,
          "type %d dim %d: shape term differs from the local Hessian", type,
          dim);
  }
  /* The projections: PSD. */
  for (int psd = 1; psd <= 2; ++psd) {
    xp_out a;
    eval1(ctx, type, dim, x, xr, pn, pc, p, (fricl_psd)psd, NULL, &a);
    CHECK(test_cholesky_ok(n, a.H, 1e-12 * Hs + 1e-300),
          "fn %d type %d dim %d psd %d: not PSD", p->fn, type, dim, psd);
  }
}

/* The global extras are the contacts' sums; every backend agrees. */
static void global_case(fricl_context *ctx, const xp_params *p, double *sig) {
  enum { NV = 40, NC = 60 };
  double X[NV * 3], R[NV * 3], dir[NV * 3];
  for (int i = 0; i < NV * 3; ++i) {
    X[i] = bs_range(0, 0.6);
    R[i] = X[i];
    dir[i] = bs_range(-1, 1);
  }
  int32_t ids[NC * 3];
  double w[NC], N[NC], gN[NC * 9], gnd[NC * 9], gnq[NC];
  for (int c = 0; c < NC; ++c) {
    ids[c * 3] = c % NV;
    ids[c * 3 + 1] = (c * 7 + 1) % NV;
    ids[c * 3 + 2] = (c * 13 + 2) % NV;
    if (ids[c * 3 + 1] == ids[c * 3])
      ids[c * 3 + 1] = (ids[c * 3] + 1) % NV;
    while (ids[c * 3 + 2] == ids[c * 3] || ids[c * 3 + 2] == ids[c * 3 + 1])
      ids[c * 3 + 2] = (ids[c * 3 + 2] + 1) % NV;
    w[c] = bs_range(0.5, 2);
  }
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_EV;
  G.count = NC;
  G.vertices = ids;
  G.weight = w;
  fricl_barrier_extras E = {N, gN, gnd, gnq, NULL};
  double GD[NV * 3], GQ = 0;
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.n_vertices = NV;
  b.positions = X;
  b.rest_positions = R;
  b.dhat = p->dhat;
  b.kappa = p->kappa;
  b.dmin = p->dmin;
  b.flags = FRICL_BARRIER_FLAG_AS_CLASSIFIED;
  b.function = p->fn ? FRICL_NORMAL_ADHESION : FRICL_NORMAL_BARRIER;
  b.adhesion_dhat_p = p->ap;
  b.adhesion_dhat_a = p->aa;
  b.adhesion_Y = p->Y;
  b.adhesion_eps_c = p->ec;
  b.n_groups = 1;
  b.groups = &G;
  b.extras = &E;
  b.direction = dir;
  b.gauss_newton_diagonal = GD;
  b.gauss_newton_quadratic_form = &GQ;
  fricl_status st = fricl_barrier_eval(ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "global: %s", fricl_context_last_error(ctx));
  double ref[NV * 3] = {0}, q = 0, scale = 0;
  for (int c = 0; c < NC; ++c) {
    q += gnq[c];
    for (int i = 0; i < 3; ++i)
      for (int s = 0; s < 3; ++s) {
        ref[ids[c * 3 + i] * 3 + s] += gnd[c * 9 + i * 3 + s];
        scale = fmax(scale, fabs(gnd[c * 9 + i * 3 + s]));
      }
  }
  for (int i = 0; i < NV * 3; ++i)
    CHECK(fabs(GD[i] - ref[i]) <= 1e-13 * scale,
          "global GN diagonal[%d] %.17g vs %.17g", i, GD[i], ref[i]);
  CHECK(fabs(GQ - q) <= 1e-13 * (fabs(q) + scale),
        "global GN quadratic form %.17g vs %.17g", GQ, q);
  /* FRICL_BARRIER_FLAG_SHAPE: the Hessian outputs hold the shape terms:
   * the local ones are extras.shape_derivative's, H p their sum. */
  {
    double S[NC * 81], L[NC * 81], Hp[NV * 3];
    fricl_barrier_extras E2 = {NULL, NULL, NULL, NULL, S};
    fricl_barrier_group G2 = G;
    G2.local_hessian = L;
    fricl_barrier_batch b2 = b;
    b2.groups = &G2;
    b2.extras = &E2;
    b2.flags |= FRICL_BARRIER_FLAG_SHAPE;
    b2.gauss_newton_diagonal = NULL;
    b2.gauss_newton_quadratic_form = NULL;
    b2.hessian_product = Hp;
    CHECK(fricl_barrier_eval(ctx, &b2) == FRICL_STATUS_OK, "shape flag: %s",
          fricl_context_last_error(ctx));
    CHECK(memcmp(S, L, sizeof S) == 0, "shape flag: local terms differ");
    double ref2[NV * 3] = {0}, sc2 = 0;
    for (int c = 0; c < NC; ++c)
      for (int i = 0; i < 3; ++i)
        for (int r = 0; r < 3; ++r) {
          double t = 0;
          for (int j2 = 0; j2 < 3; ++j2)
            for (int u = 0; u < 3; ++u)
              t += S[c * 81 + (i * 3 + r) * 9 + j2 * 3 + u] *
                   dir[ids[c * 3 + j2] * 3 + u];
          ref2[ids[c * 3 + i] * 3 + r] += t;
          sc2 = fmax(sc2, fabs(t));
        }
    for (int i = 0; i < NV * 3; ++i)
      CHECK(fabs(Hp[i] - ref2[i]) <= 1e-12 * sc2 + 1e-300,
            "shape flag: S p[%d] %.17g vs %.17g", i, Hp[i], ref2[i]);
    b2.psd = FRICL_PSD_CLAMP;
    CHECK(fricl_barrier_eval(ctx, &b2) == FRICL_STATUS_INVALID_ARGUMENT &&
              strstr(fricl_context_last_error(ctx), "FLAG_SHAPE"),
          "shape flag with clamp: %s", fricl_context_last_error(ctx));
  }
  /* a signature of everything, for the backends' bitwise agreement */
  double s = GQ;
  for (int i = 0; i < NV * 3; ++i)
    s = s * 1.000001 + GD[i];
  for (int c = 0; c < NC; ++c) {
    s = s * 1.000001 + N[c];
    for (int i = 0; i < 9; ++i)
      s = s * 1.000001 + gN[c * 9 + i];
  }
  *sig = s;
}

static void validation(fricl_context *ctx) {
  double x[6] = {0, 0, 0, 0.1, 0, 0}, B, dir[6] = {0};
  int32_t vx[2] = {0, 1};
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_VV;
  G.count = 1;
  G.vertices = vx;
  G.potential = &B;
  double q;
  fricl_barrier_extras E = {NULL, NULL, NULL, &q, NULL};
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.n_vertices = 2;
  b.positions = x;
  b.dhat = 1;
  b.kappa = 1;
  b.n_groups = 1;
  b.groups = &G;
  b.function = (fricl_normal_function)7;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "batch.function"),
        "function 7: %s", fricl_context_last_error(ctx));
  b.function = FRICL_NORMAL_ADHESION;
  b.adhesion_dhat_p = 0.5;
  b.adhesion_dhat_a = 0.2;
  b.adhesion_Y = 1;
  b.adhesion_eps_c = 1;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "adhesion_dhat_p"),
        "dhat_p > dhat_a: %s", fricl_context_last_error(ctx));
  b.adhesion_dhat_a = 1;
  b.adhesion_Y = 0;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "adhesion_Y"),
        "Y = 0: %s", fricl_context_last_error(ctx));
  b.adhesion_Y = 1;
  b.flags = FRICL_BARRIER_FLAG_PHYSICAL;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "PHYSICAL"),
        "physical adhesion: %s", fricl_context_last_error(ctx));
  b.flags = 0;
  b.dhat = 0; /* not read by adhesion */
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_OK, "adhesion: %s",
        fricl_context_last_error(ctx));
  b.extras = &E;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "direction"),
        "quadratic form without direction: %s", fricl_context_last_error(ctx));
  b.direction = dir;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_OK, "with direction: %s",
        fricl_context_last_error(ctx));
  G.potential = NULL;
  E.gauss_newton_quadratic_form = NULL;
  E.force_magnitude = &q;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_OK,
        "extras as the only output: %s", fricl_context_last_error(ctx));
}

int main(void) {
  test_backend bk[TEST_MAX_BACKENDS + 1];
  int nb = test_backends(bk);
  /* Two OpenCL devices (CTest sets POCL_DEVICES="pthread pthread"): also
   * a context over both (the multi-device backend). */
  for (int i = 0; i + 1 < nb; ++i)
    if (strncmp(bk[i].spec, "opencl:", 7) == 0 &&
        strncmp(bk[i + 1].spec, "opencl:", 7) == 0) {
      char two[64];
      const size_t la = strlen(bk[i].spec), lb = strlen(bk[i + 1].spec);
      if (la + lb + 2 > sizeof two)
        break;
      memcpy(two, bk[i].spec, la);
      two[la] = ',';
      memcpy(two + la + 1, bk[i + 1].spec, lb + 1);
      memcpy(bk[nb].spec, two, la + lb + 2);
      memcpy(bk[nb].label, two, la + lb + 2);
      ++nb;
      break;
    }
  const struct {
    int type, dim;
  } st[] = {{0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3}, {0, 2}, {1, 2}, {4, 2}};
  double sig0[4] = {0};
  for (int bi = 0; bi < nb; ++bi) {
    fricl_context *ctx = test_context(bk[bi].spec, 0, 0);
    if (!ctx)
      continue;
    int checked = 0;
    bs_state = 0x9e3779b97f4a7c15ull;
    for (int fn = 0; fn < 2; ++fn)
      for (int v = 0; v < 3; ++v) {
        xp_params p = {
            fn,  0.3, 1.7, v == 2 ? 0.05 : 0, 1.3, v == 1 && !fn, 0.1,
            0.3, 2.0, 0.7};
        if (v == 2)
          p.w = -0.6; /* a negative weight (improved max approximator) */
        for (size_t s = 0; s < sizeof st / sizeof st[0]; ++s)
          for (int rep = 0; rep < 12; ++rep)
            one_case(ctx, st[s].type, st[s].dim,
                     st[s].type == 2 && rep % 3 == 2, &p, &checked);
        double sig;
        global_case(ctx, &p, &sig);
        if (v == 0) {
          if (bi == 0)
            sig0[fn] = sig;
          else
            CHECK(memcmp(&sig, &sig0[fn], sizeof sig) == 0,
                  "%s: global extras differ from the reference (fn %d)",
                  bk[bi].label, fn);
        }
      }
    validation(ctx);
    printf("%s: %d contacts checked\n", bk[bi].label, checked);
    CHECK(checked > 300, "too few contacts checked: %d", checked);
    fricl_context_destroy(ctx);
  }
  if (test_failures)
    fprintf(stderr, "%d failures\n", test_failures);
  return test_failures ? 1 : 0;
}
