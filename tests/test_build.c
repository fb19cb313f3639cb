/*
 * test_build.c - the lagged build on hand-derived cases of every stencil in
 * 3-D and 2-D (beta, P, d^2 through N), the worked example of the spec
 * (section 6) end to end (build, then the tangential potential), degenerate
 * stencils (status codes, finite fallbacks, no NaN, no effect on the other
 * contacts), mu blending, and the argument checks. On every backend, f64
 * and f32.
 */
#include "build_util.h"

static bu_out *OUT; /* large: on the heap */

static const double KAPPA = 1e6, DHAT = 1e-2;

typedef struct {
  const char *name;
  int dim;
  fricl_stencil type;
  double X[12];    /* the stencil's positions, vertices 0..k-1 */
  double plane[4]; /* PV: normal (dim) then offset */
  double beta[2];
  double P[6];
  double d2;
} hand_case;

/* Worked out by hand from the spec's rules (5.2, 5.3, 5.5). */
static const hand_case hand[] = {
    /* VV 3-D, d = (0,0,h): |cx|^2 == |cy|^2, so c = cy (strict test). */
    {"vv3 tie",
     3,
     FRICL_STENCIL_VV,
     {0, 0, 0, 0, 0, 0.001},
     {0},
     {0, 0},
     {1, 0, 0, 1, 0, 0},
     1e-6},
    /* VV 3-D, d = (0,3,4)e-3: cx = (0,-4,3)e-3 wins; d x cx = (25,0,0)e-6. */
    {"vv3 cx",
     3,
     FRICL_STENCIL_VV,
     {0, 0, 0, 0, 0.003, 0.004},
     {0},
     {0, 0},
     {0, 1, -0.8, 0, 0.6, 0},
     2.5e-5},
    /* VV 2-D: d^ = (0.6, 0.8), P = (-0.8, 0.6). */
    {"vv2",
     2,
     FRICL_STENCIL_VV,
     {0, 0, 0.003, 0.004},
     {0},
     {0, 0},
     {-0.8, 0.6},
     2.5e-5},
    /* EV 3-D: alpha = 0.25, P = [e, e x q] = [(1,0,0), (0,0,1)]. */
    {"ev3",
     3,
     FRICL_STENCIL_EV,
     {0.5, 0.002, 0, 0, 0, 0, 2, 0, 0},
     {0},
     {0.25, 0},
     {1, 0, 0, 0, 0, 1},
     4e-6},
    /* EV 2-D. */
    {"ev2",
     2,
     FRICL_STENCIL_EV,
     {0.5, 0.002, 0, 0, 2, 0},
     {0},
     {0.25, 0},
     {1, 0},
     4e-6},
    /* EV 3-D beyond e1: alpha = 1.5 (unclamped), d = |p - e1|. */
    {"ev3 endpoint",
     3,
     FRICL_STENCIL_EV,
     {3, 0.004, 0.003, 0, 0, 0, 2, 0, 0},
     {0},
     {0, 0},
     {0},
     -1},
    /* EE: crossing at x = 0.5, y = 0; beta = (0.75, 0.5); n = (0,0,4),
     * n x ea = (0,8,0). */
    {"ee",
     3,
     FRICL_STENCIL_EE,
     {-1, 0, 0, 1, 0, 0, 0.5, -1, 0.003, 0.5, 1, 0.003},
     {0},
     {0.75, 0.5},
     {1, 0, 0, 1, 0, 0},
     9e-6},
    /* FV: the worked example of spec 6. */
    {"fv (spec 6)",
     3,
     FRICL_STENCIL_FV,
     {0.02, 0.02, 0.001, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0},
     {0},
     {0.2, 0.2},
     {1, 0, 0, 1, 0, 0},
     1e-6},
    /* FV outside the face: projection beyond edge t1t2 (beta unclamped),
     * distance to that edge. */
    {"fv outside",
     3,
     FRICL_STENCIL_FV,
     {0.052, 0.052, 0.002, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0},
     {0},
     {0.52, 0.52},
     {1, 0, 0, 1, 0, 0},
     -1 /* fv_outside_d2 */},
    /* PV 3-D: n = (0,0,1): the VV rule ties, c = cy. */
    {"pv3",
     3,
     FRICL_STENCIL_PV,
     {0.3, 0.2, 0.004},
     {0, 0, 1, 0},
     {0, 0},
     {1, 0, 0, 1, 0, 0},
     1.6e-5},
    /* PV 2-D, non-unit normal (0, 2), offset -0.2: the line y = 0.1. */
    {"pv2",
     2,
     FRICL_STENCIL_PV,
     {5, 0.103},
     {0, 2, -0.2},
     {0, 0},
     {-1, 0},
     9e-6},
};

static double fv_outside_d2(void) {
  /* p = (0.052, 0.052, 0.002); edge t1t2 from (0.1,0,0) to (0,0.1,0): the
   * closest point is (0.05, 0.05, 0), offset (0.002, 0.002, 0.002). */
  return 0.002 * 0.002 * 3;
}

static void check_hand(fricl_context *ctx, const char *label,
                       fricl_precision prec) {
  const double tol = prec == FRICL_F64 ? 1e-14 : 2e-6;
  for (size_t h = 0; h < sizeof hand / sizeof hand[0]; ++h) {
    const hand_case *hc = &hand[h];
    const int k = fricl_stencil_vertex_count(hc->type), dim = hc->dim;
    const int nb = fricl_stencil_coord_count(hc->type), m = dim - 1;
    int32_t vx[4] = {0, 1, 2, 3};
    double pn[3] = {0, 0, 0}, pc = 0;
    for (int i = 0; i < dim; ++i)
      pn[i] = hc->plane[i];
    pc = hc->plane[dim];
    bu_params bp = {0};
    bp.dim = dim;
    bp.nv = (size_t)k;
    bp.X = hc->X;
    bp.kappa = KAPPA;
    bp.dhat = DHAT;
    bp.mu_s = 0.5;
    bp.mu_k = 0.3;
    bu_group bg = {0};
    bg.type = hc->type;
    bg.count = 1;
    bg.vx = vx;
    if (hc->type == FRICL_STENCIL_PV) {
      bg.pn = pn;
      bg.pc = &pc;
    }
    const fricl_status st = bu_run(ctx, prec, &bp, &bg, OUT);
    CHECK(st == FRICL_STATUS_OK, "%s %s: %s", label, hc->name,
          fricl_context_last_error(ctx));
    if (st != FRICL_STATUS_OK)
      continue;
    double d2 = hc->d2;
    if (strcmp(hc->name, "fv outside") == 0)
      d2 = fv_outside_d2();
    if (strcmp(hc->name, "ev3 endpoint") == 0) {
      d2 = 1 + 0.004 * 0.004 + 0.003 * 0.003; /* |p - e1|^2 */
      CHECK(bu_close(OUT->beta[0], 1.5, tol, 0), "%s ev3 endpoint: alpha %g",
            label, OUT->beta[0]);
    } else {
      for (int i = 0; i < nb; ++i)
        CHECK(bu_close(OUT->beta[i], hc->beta[i], tol, tol),
              "%s %s: beta[%d] "
              "= %.17g, want %.17g",
              label, hc->name, i, OUT->beta[i], hc->beta[i]);
      for (int i = 0; i < dim * m; ++i)
        CHECK(bu_close(OUT->P[i], hc->P[i], 0, tol),
              "%s %s: P[%d] = %.17g, "
              "want %.17g",
              label, hc->name, i, OUT->P[i], hc->P[i]);
    }
    const double Nw = (double)bu_barrier_N(d2, 0, DHAT, KAPPA);
    const int active = d2 < DHAT * DHAT;
    CHECK(OUT->status[0] == (active ? FRICL_BUILD_OK : FRICL_BUILD_INACTIVE),
          "%s %s: status %d", label, hc->name, OUT->status[0]);
    CHECK(bu_close(OUT->N[0], Nw, prec == FRICL_F64 ? 1e-11 : 1e-3, 0),
          "%s %s: N = %.17g, want %.17g (d2 %g)", label, hc->name, OUT->N[0],
          Nw, d2);
    CHECK(OUT->w[0] == 1 && bu_close(OUT->mus[0], 0.5, 1e-7, 0) &&
              bu_close(OUT->muk[0], 0.3, 1e-7, 0),
          "%s %s: w/mu %g %g %g", label, hc->name, OUT->w[0], OUT->mus[0],
          OUT->muk[0]);
    (void)k;
  }
}

/* Spec 6 end to end: build, then the tangential potential of case 1. */
static void check_example(fricl_context *ctx, const char *label) {
  const double X[12] = {0.02, 0.02, 0.001, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0};
  const int32_t vx[4] = {0, 1, 2, 3};
  double beta[2], P[6], N, w, ms, mk, gN[12];
  uint8_t status;
  fricl_build_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_FV;
  G.count = 1;
  G.vertices = vx;
  G.closest_point = beta;
  G.tangent_basis = P;
  G.normal_force = &N;
  G.normal_force_gradient = gN;
  G.weight_out = &w;
  G.mu_s_out = &ms;
  G.mu_k_out = &mk;
  G.status = &status;
  fricl_build_report rep;
  fricl_build_report_init(&rep);
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.n_vertices = 4;
  b.lagged_positions = X;
  b.kappa = 1e6;
  b.dhat = 1e-2;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  b.n_groups = 1;
  b.groups = &G;
  b.report = &rep;
  fricl_status st = fricl_build(ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "%s example: %s", label,
        fricl_context_last_error(ctx));
  const double Nw = 2.1425647393651286e+01;
  CHECK(fabs(N - Nw) <= 1e-12 * Nw, "%s example: N = %.17g, want %.17g", label,
        N, Nw);
  CHECK(fabs(beta[0] - 0.2) <= 1e-15 && fabs(beta[1] - 0.2) <= 1e-15,
        "%s example: beta %.17g %.17g", label, beta[0], beta[1]);
  const double Pw[6] = {1, 0, 0, 1, 0, 0};
  for (int i = 0; i < 6; ++i)
    CHECK(P[i] == Pw[i], "%s example: P[%d] = %.17g", label, i, P[i]);
  CHECK(status == FRICL_BUILD_OK && w == 1 && ms == 0.5 && mk == 0.3,
        "%s example: status %d w %g mu %g %g", label, status, w, ms, mk);
  CHECK(rep.total == 1 && rep.count[FRICL_BUILD_OK] == 1 && rep.no_force == 0 &&
            rep.first_group[FRICL_BUILD_OK] == 0 &&
            rep.first_contact[FRICL_BUILD_OK] == 0 &&
            rep.first_group[FRICL_BUILD_INACTIVE] == SIZE_MAX,
        "%s example: report", label);
  /* dN/dp = dN/d(d^2) 2 r with r = (0,0,0.001): only z, and the triangle
   * gets gamma_i times it. */
  CHECK(gN[0] == 0 && gN[1] == 0 && gN[2] < 0, "%s example: dN/dp %g %g %g",
        label, gN[0], gN[1], gN[2]);
  CHECK(fabs(gN[5] + 0.6 * gN[2]) <= 1e-12 * fabs(gN[2]) &&
            fabs(gN[8] + 0.2 * gN[2]) <= 1e-12 * fabs(gN[2]) &&
            fabs(gN[11] + 0.2 * gN[2]) <= 1e-12 * fabs(gN[2]),
        "%s example: dN/dt %g %g %g", label, gN[5], gN[8], gN[11]);

  /* Evaluate with the build's outputs, case 1 of spec 6. */
  const double vel[12] = {3e-5, 5e-5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const double Dw[2] = {3.7177938256755385e-04, 3.6823109837268936e-04};
  const double gw[2][2] = {{3.3654128998501945e+00, 5.6090214997503242e+00},
                           {3.4180274145945628e+00, 5.6967123576576048e+00}};
  for (int prof = 0; prof < 2; ++prof) {
    double D = 0, grad[12];
    fricl_contact_group C;
    memset(&C, 0, sizeof C);
    C.type = FRICL_STENCIL_FV;
    C.count = 1;
    C.vertices = vx;
    C.closest_point = beta;
    C.tangent_basis = P;
    C.normal_force = &N;
    C.weight = &w;
    C.mu_s = &ms;
    C.mu_k = &mk;
    fricl_tangential_batch t;
    fricl_tangential_batch_init(&t);
    t.mu_profile = prof == 0 ? FRICL_MU_IPCTK : FRICL_MU_CUBIC;
    t.n_vertices = 4;
    t.velocities = vel;
    t.eps_v = 1e-4;
    t.n_groups = 1;
    t.groups = &C;
    t.potential = &D;
    t.gradient = grad;
    st = fricl_tangential_eval(ctx, &t);
    CHECK(st == FRICL_STATUS_OK, "%s example eval: %s", label,
          fricl_context_last_error(ctx));
    CHECK(fabs(D - Dw[prof]) <= 1e-12 * Dw[prof],
          "%s example %s: D = %.17g, want %.17g", label,
          prof ? "cubic" : "ipctk", D, Dw[prof]);
    CHECK(fabs(grad[0] - gw[prof][0]) <= 1e-12 * fabs(gw[prof][0]) &&
              fabs(grad[1] - gw[prof][1]) <= 1e-12 * fabs(gw[prof][1]),
          "%s example %s: grad_p = %.17g %.17g", label,
          prof ? "cubic" : "ipctk", grad[0], grad[1]);
  }
}

/* ----------------------------------------------------------- degenerate */

typedef struct {
  const char *name;
  int dim;
  fricl_stencil type;
  double X[12];
  double rest[12]; /* all zero: no rest positions */
  double plane[4];
  double dmin;
  int want;
} degen_case;

static const degen_case degen[] = {
    {"vv coincident 3d",
     3,
     FRICL_STENCIL_VV,
     {1, 2, 3, 1, 2, 3},
     {0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_COINCIDENT},
    {"vv coincident 2d",
     2,
     FRICL_STENCIL_VV,
     {1, 2, 1, 2},
     {0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_COINCIDENT},
    {"ev zero edge",
     3,
     FRICL_STENCIL_EV,
     {0, 0.001, 0, 1, 1, 1, 1, 1, 1},
     {0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_EDGE},
    {"ev zero edge 2d",
     2,
     FRICL_STENCIL_EV,
     {0, 0.001, 1, 1, 1, 1},
     {0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_EDGE},
    {"ev point on line",
     3,
     FRICL_STENCIL_EV,
     {2.001, 0, 0, 0, 0, 0, 2, 0, 0},
     {0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_POINT_ON_LINE},
    {"ee parallel (skipped)",
     3,
     FRICL_STENCIL_EE,
     {0, 0, 0, 1, 0, 0, 0, 0.001, 0, 1, 0.001, 0},
     {0},
     {0},
     0,
     FRICL_BUILD_EE_PARALLEL},
    {"ee near parallel (skipped)",
     3,
     FRICL_STENCIL_EE,
     {0, 0, 0, 1, 0, 0, 0, 0.001, 0, 1, 0.011, 0.001},
     {0},
     {0},
     0,
     FRICL_BUILD_EE_PARALLEL},
    /* eps_x from rest positions with a zero-length rest edge is 0: the
     * exactly parallel lagged pair is not skipped but degenerate. */
    {"ee parallel, eps_x = 0",
     3,
     FRICL_STENCIL_EE,
     {0, 0, 0, 1, 0, 0, 0, 0.001, 0, 1, 0.001, 0},
     {0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_PARALLEL},
    {"ee zero edge, eps_x = 0",
     3,
     FRICL_STENCIL_EE,
     {0, 0, 0, 0, 0, 0, 0, 0.001, 0, 1, 0.001, 0},
     {0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_EDGE},
    {"fv collinear",
     3,
     FRICL_STENCIL_FV,
     {0, 0.001, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0},
     {0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_FACE},
    {"fv point triangle",
     3,
     FRICL_STENCIL_FV,
     {0, 0, 0.001, 1, 1, 1, 1, 1, 1, 1, 1, 1},
     {0},
     {0},
     0,
     FRICL_BUILD_DEGENERATE_FACE},
    {"pv zero normal",
     3,
     FRICL_STENCIL_PV,
     {0, 0, 0.001},
     {0},
     {0, 0, 0, 0},
     0,
     FRICL_BUILD_DEGENERATE_NORMAL},
    {"pv zero normal 2d",
     2,
     FRICL_STENCIL_PV,
     {0, 0.001},
     {0},
     {0, 0, 0},
     0,
     FRICL_BUILD_DEGENERATE_NORMAL},
    {"vv overflow",
     3,
     FRICL_STENCIL_VV,
     {-1e200, 0, 0, 1e200, 0, 0},
     {0},
     {0},
     0,
     FRICL_BUILD_NONFINITE},
    {"fv on the face (d = 0)",
     3,
     FRICL_STENCIL_FV,
     {0.02, 0.02, 0, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0},
     {0},
     {0},
     0,
     FRICL_BUILD_INSIDE_DMIN},
    {"ev inside dmin",
     3,
     FRICL_STENCIL_EV,
     {0.5, 0.002, 0, 0, 0, 0, 2, 0, 0},
     {0},
     {0},
     0.003,
     FRICL_BUILD_INSIDE_DMIN},
    {"ev inactive",
     3,
     FRICL_STENCIL_EV,
     {0.5, 0.02, 0, 0, 0, 0, 2, 0, 0},
     {0},
     {0},
     0,
     FRICL_BUILD_INACTIVE},
    /* d = dmin + dhat exactly in binary: x = x^ is inactive. */
    {"vv at dhat",
     3,
     FRICL_STENCIL_VV,
     {0, 0, 0, 0.0078125, 0, 0},
     {0},
     {0},
     0,
     -2},
};

static int all_finite(const bu_out *o) {
  for (size_t c = 0; c < o->count; ++c) {
    for (int i = 0; i < 2; ++i)
      if (!isfinite(o->beta[c * 2 + (size_t)i]))
        return 0;
    for (int i = 0; i < 6; ++i)
      if (!isfinite(o->P[c * 6 + (size_t)i]))
        return 0;
    for (int i = 0; i < 12; ++i)
      if (!isfinite(o->gN[c * 12 + (size_t)i]))
        return 0;
    if (!isfinite(o->N[c]) || !isfinite(o->mus[c]) || !isfinite(o->muk[c]) ||
        !isfinite(o->w[c]))
      return 0;
  }
  return 1;
}

/* Each degenerate case as contact 1 of 3, between two healthy copies of
 * a regular contact of the same type: the status, the fallback, no NaN,
 * and the neighbours bitwise as when built alone. */
static void check_degenerate(fricl_context *ctx, const char *label,
                             fricl_precision prec) {
  for (size_t h = 0; h < sizeof degen / sizeof degen[0]; ++h) {
    const degen_case *dc = &degen[h];
    const int dim = dc->dim, m = dim - 1;
    const int k = fricl_stencil_vertex_count(dc->type);
    /* Healthy stencil: the matching hand case's positions. */
    const hand_case *hc = NULL;
    for (size_t j = 0; j < sizeof hand / sizeof hand[0]; ++j)
      if (hand[j].type == dc->type && hand[j].dim == dim) {
        hc = &hand[j];
        break;
      }
    double X[24], R[24], pn[9], pc[3], dmin[3] = {0, dc->dmin, 0};
    int32_t vx[12];
    int has_rest = 0;
    for (int i = 0; i < 12; ++i)
      has_rest |= dc->rest[i] != 0;
    /* The overflow case needs values that overflow in float too. */
    const double sc =
        prec == FRICL_F32 && dc->want == FRICL_BUILD_NONFINITE ? 1e-170 : 1;
    for (int i = 0; i < k * dim; ++i) {
      X[i] = hc->X[i];
      X[k * dim + i] = dc->X[i] * sc;
      R[i] = hc->X[i];
      R[k * dim + i] = has_rest ? dc->rest[i] : dc->X[i];
    }
    for (int c = 0; c < 3; ++c) {
      for (int i = 0; i < k; ++i)
        vx[c * k + i] = (c == 1 ? k : 0) + i;
      const double *pl = c == 1 ? dc->plane : hc->plane;
      for (int i = 0; i < dim; ++i)
        pn[c * dim + i] = pl[i];
      pc[c] = pl[dim];
    }
    bu_params bp = {0};
    bp.dim = dim;
    bp.nv = (size_t)(2 * k);
    bp.X = X;
    bp.Xrest = has_rest ? R : NULL;
    bp.kappa = KAPPA;
    bp.dhat = h + 1 == sizeof degen / sizeof degen[0] ? 0.0078125 : DHAT;
    bp.mu_s = 0.5;
    bp.mu_k = 0.3;
    bu_group bg = {0};
    bg.type = dc->type;
    bg.count = 3;
    bg.vx = vx;
    bg.dmin = dmin;
    if (dc->type == FRICL_STENCIL_PV) {
      bg.pn = pn;
      bg.pc = pc;
    }
    fricl_status st = bu_run(ctx, prec, &bp, &bg, OUT);
    CHECK(st == FRICL_STATUS_OK, "%s %s: %s", label, dc->name,
          fricl_context_last_error(ctx));
    if (st != FRICL_STATUS_OK)
      continue;
    const int want = dc->want == -2 ? FRICL_BUILD_INACTIVE : dc->want;
    CHECK(OUT->status[1] == want, "%s %s: status %d (%s), want %d", label,
          dc->name, OUT->status[1],
          fricl_build_status_name((fricl_build_status)OUT->status[1]), want);
    CHECK(all_finite(OUT), "%s %s: non-finite output", label, dc->name);
    CHECK(OUT->N[1] == 0, "%s %s: N = %g", label, dc->name, OUT->N[1]);
    for (int i = 0; i < k * dim; ++i)
      CHECK(OUT->gN[12 + i] == 0, "%s %s: dN[%d] = %g", label, dc->name, i,
            OUT->gN[12 + i]);
    CHECK(OUT->counts[want] == 1 && OUT->counts[OUT->status[0]] >= 2,
          "%s %s: counts", label, dc->name);
    const int fallback =
        want >= FRICL_BUILD_EE_PARALLEL && want <= FRICL_BUILD_NONFINITE;
    if (fallback) {
      for (int r = 0; r < dim; ++r)
        for (int c = 0; c < m; ++c)
          CHECK(OUT->P[6 + (size_t)(r * m + c)] == (r == c),
                "%s %s: fallback P", label, dc->name);
      CHECK(OUT->beta[2] == 0 && OUT->beta[3] == 0, "%s %s: fallback beta",
            label, dc->name);
    }
    /* Neighbours equal a clean run of the healthy contact alone. */
    bu_out *solo = malloc(sizeof *solo);
    bg.count = 1;
    bg.dmin = NULL;
    bp.nv = (size_t)k;
    bp.Xrest = NULL;
    st = bu_run(ctx, prec, &bp, &bg, solo);
    CHECK(st == FRICL_STATUS_OK, "%s %s: solo", label, dc->name);
    for (int c = 0; c < 3; c += 2) {
      const int same =
          OUT->N[c] == solo->N[0] && OUT->status[c] == solo->status[0] &&
          memcmp(&OUT->P[c * 6], &solo->P[0], 6 * sizeof(double)) == 0 &&
          memcmp(&OUT->beta[c * 2], &solo->beta[0], 2 * sizeof(double)) == 0 &&
          memcmp(&OUT->gN[c * 12], &solo->gN[0], 12 * sizeof(double)) == 0;
      CHECK(same, "%s %s: neighbour %d changed", label, dc->name, c);
    }
    free(solo);
  }
}

/* ------------------------------------------------------------------ mu */

/* Per-vertex mu on an EV contact with alpha = 0.25: edge value
 * mu(e0) + 0.25 (mu(e1) - mu(e0)) blended with mu(p), every rule; and the
 * negative and non-finite cases. */
static void check_mu(fricl_context *ctx, const char *label,
                     fricl_precision prec) {
  const double X[9] = {0.5, 0.002, 0, 0, 0, 0, 2, 0, 0};
  const double vms[3] = {0.2, 0.4, 0.8}; /* p, e0, e1 */
  const double vmk[3] = {0.1, 0.3, 0.5};
  const int32_t vx[3] = {0, 1, 2};
  const double es = 0.4 + 0.25 * 0.4, ek = 0.3 + 0.25 * 0.2; /* 0.5, 0.35 */
  const double want_s[5] = {(es + 0.2) / 2, 0.2, es, es * 0.2,
                            2 * es * 0.2 / (es + 0.2)};
  const double want_k[5] = {(ek + 0.1) / 2, 0.1, ek, ek * 0.1,
                            2 * ek * 0.1 / (ek + 0.1)};
  const double tol = prec == FRICL_F64 ? 1e-15 : 1e-6;
  for (int bl = 0; bl < FRICL_BLEND_COUNT; ++bl) {
    bu_params bp = {0};
    bp.dim = 3;
    bp.nv = 3;
    bp.X = X;
    bp.kappa = KAPPA;
    bp.dhat = DHAT;
    bp.vmus = vms;
    bp.vmuk = vmk;
    bp.blend = (fricl_mu_blend)bl;
    bu_group bg = {0};
    bg.type = FRICL_STENCIL_EV;
    bg.count = 1;
    bg.vx = vx;
    CHECK(bu_run(ctx, prec, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s mu", label);
    CHECK(bu_close(OUT->mus[0], want_s[bl], tol, 0) &&
              bu_close(OUT->muk[0], want_k[bl], tol, 0),
          "%s blend %s: mu = %.17g %.17g, want %.17g %.17g", label,
          fricl_mu_blend_name((fricl_mu_blend)bl), OUT->mus[0], OUT->muk[0],
          want_s[bl], want_k[bl]);
    CHECK(OUT->status[0] == FRICL_BUILD_OK, "%s blend: status", label);
    /* Mixed sources: mu_s per contact, mu_k per vertex. */
    const double cms = 0.7;
    bg.mus = &cms;
    CHECK(bu_run(ctx, prec, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s mu", label);
    CHECK(bu_close(OUT->mus[0], 0.7, tol, 0) &&
              bu_close(OUT->muk[0], want_k[bl], tol, 0),
          "%s mixed sources %s: %g %g", label,
          fricl_mu_blend_name((fricl_mu_blend)bl), OUT->mus[0], OUT->muk[0]);
  }
  /* alpha = 1.5 (beyond e1): edge mu_s = 0.4 + 1.5 (0 - 0.4) = -0.2. */
  const double X2[9] = {3, 0.002, 0, 0, 0, 0, 2, 0, 0};
  const double vms2[3] = {0.1, 0.4, 0};
  bu_params bp = {0};
  bp.dim = 3;
  bp.nv = 3;
  bp.X = X2;
  bp.kappa = KAPPA;
  bp.dhat = 2; /* active: d ~ 1 */
  bp.vmus = vms2;
  bp.mu_k = 0.3;
  bu_group bg = {0};
  bg.type = FRICL_STENCIL_EV;
  bg.count = 1;
  bg.vx = vx;
  CHECK(bu_run(ctx, prec, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s mu", label);
  CHECK(OUT->status[0] == FRICL_BUILD_MU_NEGATIVE && OUT->N[0] == 0 &&
            OUT->mus[0] == 0 && OUT->muk[0] == 0 && all_finite(OUT),
        "%s negative mu: status %d N %g mu %g %g", label, OUT->status[0],
        OUT->N[0], OUT->mus[0], OUT->muk[0]);
  CHECK(bu_close(OUT->beta[0], 1.5, 1e-6, 0), "%s negative mu: beta %g", label,
        OUT->beta[0]);
  /* Product of huge values overflows. */
  const double big = prec == FRICL_F64 ? 1e200 : 1e30;
  const double vbig[3] = {big, big, big};
  bp.X = X;
  bp.dhat = DHAT;
  bp.vmus = vbig;
  bp.blend = FRICL_BLEND_PRODUCT;
  CHECK(bu_run(ctx, prec, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s mu", label);
  CHECK(OUT->status[0] == FRICL_BUILD_MU_NONFINITE && OUT->N[0] == 0 &&
            all_finite(OUT),
        "%s overflowing mu: status %d", label, OUT->status[0]);
  /* Harmonic mean of zeros is 0, not NaN. */
  const double vzero[3] = {0, 0, 0};
  bp.vmus = vzero;
  bp.blend = FRICL_BLEND_HARMONIC;
  CHECK(bu_run(ctx, prec, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s mu", label);
  CHECK(OUT->status[0] == FRICL_BUILD_OK && OUT->mus[0] == 0,
        "%s harmonic of zeros: status %d mu %g", label, OUT->status[0],
        OUT->mus[0]);
}

/* Physical barrier: N scales by dhat / x^^2; weights are copied. */
static void check_physical(fricl_context *ctx, const char *label) {
  const double X[6] = {0, 0, 0, 0.001, 0, 0};
  const int32_t vx[2] = {0, 1};
  const double w = -0.5, dmin = 0.002;
  bu_params bp = {0};
  bp.dim = 3;
  bp.nv = 2;
  bp.X = X;
  bp.kappa = 10;
  bp.dhat = 0.01;
  bu_group bg = {0};
  bg.type = FRICL_STENCIL_VV;
  bg.count = 1;
  bg.vx = vx;
  bg.w = &w;
  CHECK(bu_run(ctx, FRICL_F64, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s", label);
  const double N0 = OUT->N[0], g0 = OUT->gN[3];
  CHECK(OUT->w[0] == -0.5, "%s weight copied: %g", label, OUT->w[0]);
  bp.flags = FRICL_BUILD_FLAG_PHYSICAL_BARRIER;
  CHECK(bu_run(ctx, FRICL_F64, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s", label);
  const double s = 0.01 / (1e-4 * 1e-4);
  CHECK(bu_close(OUT->N[0], N0 * s, 1e-14, 0) &&
            bu_close(OUT->gN[3], g0 * s, 1e-14, 0),
        "%s physical: N %.17g vs %.17g", label, OUT->N[0], N0 * s);
  /* Per-contact dmin: N from x = d^2 - dmin^2 and x^ = (2 dmin + dhat)
   * dhat; the factor is sqrt(d^2). */
  bp.flags = 0;
  bg.dmin = &dmin;
  bp.X = X;
  const double X2[6] = {0, 0, 0, 0.005, 0, 0};
  bp.X = X2;
  CHECK(bu_run(ctx, FRICL_F64, &bp, &bg, OUT) == FRICL_STATUS_OK, "%s", label);
  const double Nw = (double)bu_barrier_N(2.5e-5L, 0.002L, 0.01L, 10.0L);
  CHECK(bu_close(OUT->N[0], Nw, 1e-12, 0) && Nw > 0,
        "%s dmin: N %.17g want %.17g", label, OUT->N[0], Nw);
}

/* ----------------------------------------------------------- arguments */

static void expect_invalid(fricl_context *ctx, const fricl_build_batch *b,
                           const char *needle, const char *what) {
  const fricl_status st = fricl_build(ctx, b);
  const char *msg = fricl_context_last_error(ctx);
  CHECK(st == FRICL_STATUS_INVALID_ARGUMENT && strstr(msg, needle),
        "%s: status %s, message \"%s\" lacks \"%s\"", what,
        fricl_status_string(st), msg, needle);
}

static void check_arguments(fricl_context *ctx, const char *label) {
  double X[12] = {0.02, 0.02, 0.001, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0};
  int32_t vx[8] = {0, 1, 2, 3, 0, 1, 2, 3};
  double N[2] = {-7, -7}, beta[4];
  fricl_build_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_FV;
  G.count = 2;
  G.vertices = vx;
  G.normal_force = N;
  G.closest_point = beta;
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.n_vertices = 4;
  b.lagged_positions = X;
  b.kappa = 1;
  b.dhat = 0.01;
  b.n_groups = 1;
  b.groups = &G;
  CHECK(fricl_build(ctx, &b) == FRICL_STATUS_OK, "%s: baseline", label);
  N[0] = N[1] = -7;

  vx[6] = 4;
  expect_invalid(ctx, &b, "contact 1", "index out of range");
  vx[6] = -1;
  expect_invalid(ctx, &b, "vertex index -1", "negative index");
  vx[6] = 2;
  b.dhat = 0;
  expect_invalid(ctx, &b, "dhat", "dhat = 0");
  b.dhat = -1;
  expect_invalid(ctx, &b, "dhat", "dhat < 0");
  b.dhat = NAN;
  expect_invalid(ctx, &b, "dhat", "dhat NaN");
  b.dhat = 0.01;
  b.kappa = -1;
  expect_invalid(ctx, &b, "kappa", "kappa < 0");
  b.kappa = INFINITY;
  expect_invalid(ctx, &b, "kappa", "kappa inf");
  b.kappa = 1;
  b.dmin = -1e-3;
  expect_invalid(ctx, &b, "dmin", "dmin < 0");
  b.dmin = 0;
  b.mu_s = -0.1;
  expect_invalid(ctx, &b, "mu_s", "mu_s < 0");
  b.mu_s = 0;
  X[7] = NAN;
  expect_invalid(ctx, &b, "lagged_positions[2][1]", "NaN position");
  X[7] = INFINITY;
  expect_invalid(ctx, &b, "vertex 2", "inf position");
  X[7] = 0;
  double R[12] = {0};
  R[3] = NAN;
  b.rest_positions = R;
  expect_invalid(ctx, &b, "rest_positions[1][0]", "NaN rest position");
  b.rest_positions = NULL;
  double vm[4] = {0.1, 0.2, -0.3, 0.4};
  b.vertex_mu_k = vm;
  expect_invalid(ctx, &b, "vertex_mu_k[2]", "negative vertex mu");
  b.vertex_mu_k = NULL;
  double cm[2] = {0.1, NAN};
  G.mu_s = cm;
  expect_invalid(ctx, &b, "contact 1: mu_s", "NaN contact mu");
  G.mu_s = NULL;
  double dm[2] = {0, -1};
  G.dmin = dm;
  expect_invalid(ctx, &b, "contact 1: dmin", "negative contact dmin");
  G.dmin = NULL;
  G.type = FRICL_STENCIL_PV;
  expect_invalid(ctx, &b, "plane_normal", "PV without plane");
  G.type = FRICL_STENCIL_FV;
  b.dim = 2;
  expect_invalid(ctx, &b, "only in 3-D", "FV in 2-D");
  b.dim = 4;
  expect_invalid(ctx, &b, "dim", "dim 4");
  b.dim = 3;
  b.blend = (fricl_mu_blend)9;
  expect_invalid(ctx, &b, "blend", "bad blend");
  b.blend = FRICL_BLEND_AVERAGE;
  b.flags = 0x10;
  expect_invalid(ctx, &b, "flags", "bad flags");
  b.flags = 0;
  G.type = (fricl_stencil)7;
  expect_invalid(ctx, &b, "type", "bad type");
  G.type = FRICL_STENCIL_FV;
  G.normal_force = X;
  expect_invalid(ctx, &b, "overlaps input", "output over input");
  G.normal_force = beta + 1;
  expect_invalid(ctx, &b, "overlaps output", "output over output");
  G.normal_force = N;
  G.vertices = NULL;
  expect_invalid(ctx, &b, "vertices is NULL", "no vertices");
  G.vertices = vx;
  b.lagged_positions = NULL;
  expect_invalid(ctx, &b, "lagged_positions is NULL", "no positions");
  b.lagged_positions = X;
  b.struct_size = 8;
  expect_invalid(ctx, &b, "struct_size", "struct_size");
  fricl_build_batch_init(&b);
  CHECK(fricl_build(ctx, NULL) == FRICL_STATUS_INVALID_ARGUMENT, "NULL batch");
  /* Nothing was written by any failed call. */
  CHECK(N[0] == -7 && N[1] == -7, "%s: a failed call wrote outputs", label);
  /* Zero contacts: OK, nothing written. */
  b.n_vertices = 0;
  b.dhat = 0.01;
  CHECK(fricl_build(ctx, &b) == FRICL_STATUS_OK, "%s: empty build: %s", label,
        fricl_context_last_error(ctx));
  /* Names. */
  fricl_mu_blend bl;
  CHECK(fricl_mu_blend_from_name("harmonic", &bl) == FRICL_STATUS_OK &&
            bl == FRICL_BLEND_HARMONIC &&
            strcmp(fricl_mu_blend_name(FRICL_BLEND_MIN), "min") == 0 &&
            fricl_mu_blend_from_name("median", &bl) != FRICL_STATUS_OK,
        "blend names");
  CHECK(strcmp(fricl_build_status_name(FRICL_BUILD_EE_PARALLEL),
               "ee_parallel") == 0 &&
            fricl_build_status_name((fricl_build_status)13) == NULL &&
            fricl_build_status_text(FRICL_BUILD_INACTIVE) != NULL,
        "status names");
}

/* Inputs are never modified. */
static void check_inputs_untouched(fricl_context *ctx, const char *label) {
  double X[12] = {0.02, 0.02, 0.001, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0};
  const int32_t vx[4] = {0, 1, 2, 3};
  double vm[4] = {0.1, 0.2, 0.3, 0.4}, w = 2, dm = 0;
  double Xc[12], vmc[4];
  memcpy(Xc, X, sizeof X);
  memcpy(vmc, vm, sizeof vm);
  double beta[2], P[6], N, gN[12], mo[2];
  fricl_build_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_FV;
  G.count = 1;
  G.vertices = vx;
  G.weight = &w;
  G.dmin = &dm;
  G.closest_point = beta;
  G.tangent_basis = P;
  G.normal_force = &N;
  G.normal_force_gradient = gN;
  G.mu_s_out = &mo[0];
  G.mu_k_out = &mo[1];
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.n_vertices = 4;
  b.lagged_positions = X;
  b.rest_positions = X;
  b.vertex_mu_s = vm;
  b.vertex_mu_k = vm;
  b.kappa = 1;
  b.dhat = 0.01;
  b.n_groups = 1;
  b.groups = &G;
  CHECK(fricl_build(ctx, &b) == FRICL_STATUS_OK, "%s: %s", label,
        fricl_context_last_error(ctx));
  CHECK(memcmp(X, Xc, sizeof X) == 0 && memcmp(vm, vmc, sizeof vm) == 0 &&
            w == 2 && dm == 0 && vx[3] == 3,
        "%s: inputs modified", label);
}

int main(void) {
  OUT = malloc(sizeof *OUT);
  test_backend be[TEST_MAX_BACKENDS];
  const int nbe = test_backends(be);
  for (int i = 0; i < nbe; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx)
      continue;
    char label[200];
    for (int p = 0; p < 2; ++p) {
      const fricl_precision prec = p ? FRICL_F32 : FRICL_F64;
      if (prec == FRICL_F64 && !fricl_context_has_fp64(ctx))
        continue;
      snprintf(label, sizeof label, "%s %s", be[i].label, p ? "f32" : "f64");
      check_hand(ctx, label, prec);
      check_degenerate(ctx, label, prec);
      check_mu(ctx, label, prec);
    }
    if (fricl_context_has_fp64(ctx)) {
      check_example(ctx, be[i].label);
      check_physical(ctx, be[i].label);
      check_arguments(ctx, be[i].label);
      check_inputs_untouched(ctx, be[i].label);
    }
    fricl_context_destroy(ctx);
  }
  free(OUT);
  return test_report("test_build");
}
