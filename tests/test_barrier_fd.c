/*
 * test_barrier_fd.c - the barrier's derivatives against finite
 * differences on every stencil (3-D: vv ev ee fv pv; 2-D: vv ev pv), with
 * dmin, the physical barrier and mollified (nearly and exactly parallel)
 * edges, in both distance modes (nearest feature, and
 * FRICL_BARRIER_FLAG_AS_CLASSIFIED): the gradient against central
 * differences of B, the Hessian against central differences of the
 * gradient; and the PSD projections: clamp and abs have no eigenvalue
 * below -1e-12 of the scale (an independent Cholesky test), clamp - none
 * is PSD and abs = 2 clamp - none.
 *
 * The two modes where they differ (as_classified_cases): EV contacts (2-D,
 * 3-D) whose point lies beyond an end of the edge and FV contacts whose
 * point projects outside the triangle. There AS_CLASSIFIED takes the line
 * or the plane: B is larger than the nearest feature's, equals bit for
 * bit the explicit type 2 (P_E) or 6 (P_T) in every PSD mode, -1 and the
 * AUTO value in the array are the same as no array, a given type still
 * stands, and the derivatives match finite differences. EE, VV and PV
 * are the same in both modes, bit for bit.
 */
#include "test_util.h"

#include "barrier_eval1.h"
#include "barrier_scene.h"

static const char *mode_name(const be_params *p) {
  return p->as_classified ? "as-classified" : "nearest";
}

/* The derivatives of one contact at x against finite differences, and its
 * PSD projections. parallel == 2: exactly parallel edges (B = 0). Returns
 * 0 when the contact is not active (nothing checked). */
static int check_fd(fricl_context *ctx, int type, int dim, const double *x,
                    const double *xr, const double *pn, double pc, int parallel,
                    const be_params *p, int *checked) {
  const int k = fricl_stencil_vertex_count((fricl_stencil)type);
  const int n = k * dim;
  double B, g[12], H[144];
  fricl_status st =
      be_eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_NONE, &B, g, H);
  CHECK(st == FRICL_STATUS_OK, "eval: %s", fricl_context_last_error(ctx));
  if (parallel == 2) { /* B = 0 (m = 0); active when H is finite, not 0 */
    double hm = 0;
    for (int i = 0; i < n * n; ++i)
      hm = fmax(hm, fabs(H[i]));
    if (!(hm > 0) || !isfinite(hm))
      return 0;
  } else if (!(B > 0) || !isfinite(B)) {
    return 0; /* inactive or inside dmin */
  }
  /* Finite differences; near d = dmin the barrier varies fast, so a
   * failing step is retried smaller before it counts as a failure. */
  const double gs = test_max_abs(g, n), hs = test_max_abs(H, n * n);
  double gerr = 0, herr = 0;
  int bad = 1;
  for (double h = 1e-6; h > 1e-9 && bad; h /= 10) {
    double gfd[12], Hfd[144];
    for (int i = 0; i < n; ++i) {
      double xp[12], xm[12], Bp, Bm, gp[12], gm[12], Hs[144];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[i] += h;
      xm[i] -= h;
      be_eval1(ctx, type, dim, xp, xr, pn, pc, p, FRICL_PSD_NONE, &Bp, gp, Hs);
      be_eval1(ctx, type, dim, xm, xr, pn, pc, p, FRICL_PSD_NONE, &Bm, gm, Hs);
      gfd[i] = (Bp - Bm) / (2 * h);
      for (int j = 0; j < n; ++j)
        Hfd[j * n + i] = (gp[j] - gm[j]) / (2 * h);
    }
    gerr = 0;
    herr = 0;
    for (int i = 0; i < n; ++i)
      gerr = fmax(gerr, fabs(g[i] - gfd[i]));
    for (int i = 0; i < n * n; ++i)
      herr = fmax(herr, fabs(H[i] - Hfd[i]));
    bad = gerr > 1e-5 * gs + 1e-9 || herr > 1e-4 * hs + 1e-8;
  }
  ++*checked;
  CHECK(!bad,
        "%s %dD %s parallel=%d physical=%d dmin=%g: gradient error %.3g "
        "(scale %.3g), Hessian error %.3g (scale %.3g)",
        fricl_stencil_name((fricl_stencil)type), dim, mode_name(p), parallel,
        p->physical, p->dmin, gerr, gs, herr, hs);
  /* Symmetry, PSD projections. */
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      CHECK(H[i * n + j] == H[j * n + i], "Hessian not symmetric");
  double Hc[144], Ha[144], Bc, Ba, gc[12], ga[12];
  be_eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_CLAMP, &Bc, gc, Hc);
  be_eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_ABS, &Ba, ga, Ha);
  const double tau = 1e-12 * hs + 1e-300;
  CHECK(test_cholesky_ok(n, Hc, tau), "%s %dD: clamp not PSD",
        fricl_stencil_name((fricl_stencil)type), dim);
  CHECK(test_cholesky_ok(n, Ha, tau), "%s %dD: abs not PSD",
        fricl_stencil_name((fricl_stencil)type), dim);
  double D[144];
  for (int i = 0; i < n * n; ++i)
    D[i] = Hc[i] - H[i];
  CHECK(test_cholesky_ok(n, D, tau), "%s %dD: clamp - none not PSD",
        fricl_stencil_name((fricl_stencil)type), dim);
  double aerr = 0;
  for (int i = 0; i < n * n; ++i)
    aerr = fmax(aerr, fabs(Ha[i] - (2 * Hc[i] - H[i])));
  CHECK(aerr <= 1e-12 * hs, "%s %dD: abs != 2 clamp - none (%.3g)",
        fricl_stencil_name((fricl_stencil)type), dim, aerr);
  CHECK(Bc == B && Ba == B && memcmp(gc, g, sizeof(double) * (size_t)n) == 0,
        "value/gradient depend on the PSD mode");
  return 1;
}

/* One random contact of barrier_scene.h, checked by check_fd. */
static int run_case(fricl_context *ctx, int type, int dim, int parallel,
                    const be_params *p, int *checked) {
  double x[12], xr[12], pn[3] = {0, 0, 1}, pc = 0;
  bs_contact(type, dim, 0.5 * p->dhat + p->dmin, parallel, x, xr, pn, &pc);
  if (parallel == 2) {
    /* Exactly parallel edges (dyadic coordinates: ea x eb is exactly 0,
     * the mollifier 0 with a nonzero Hessian), not parallel at rest. */
    for (int s = 0; s < 3; ++s) {
      const double a0 = floor(bs_range(-1, 1) * 64) / 64;
      const double e = floor(bs_range(-1, 1) * 64) / 64;
      const double off = floor(bs_range(-0.6, 0.6) * p->dhat * 256) / 256;
      x[s] = a0;
      x[3 + s] = a0 + e;
      x[6 + s] = a0 + off + 0.25 * e;
      x[9 + s] = a0 + off + 0.75 * e;
      xr[6 + s] = x[6 + s] + bs_range(-1, 1);
    }
  }
  return check_fd(ctx, type, dim, x, xr, pn, pc, parallel, p, checked);
}

/* A unit vector orthogonal to e (dim entries). */
static void unit_normal_to(const double *e, int dim, double *n) {
  if (dim == 2) {
    n[0] = -e[1];
    n[1] = e[0];
  } else {
    const double r[3] = {bs_range(-1, 1), bs_range(-1, 1), bs_range(-1, 1)};
    n[0] = e[1] * r[2] - e[2] * r[1];
    n[1] = e[2] * r[0] - e[0] * r[2];
    n[2] = e[0] * r[1] - e[1] * r[0];
  }
  double l = 0;
  for (int s = 0; s < dim; ++s)
    l += n[s] * n[s];
  l = sqrt(l);
  for (int s = 0; s < dim; ++s)
    n[s] /= l;
}

/* An EV (type 1) or FV (type 3) contact whose point is off its feature:
 * beyond an end of the edge (alpha < 0 or > 1), or projecting outside the
 * triangle (across one edge or beyond a corner), at a distance `gap` from
 * the edge's line or the triangle's plane. */
static void off_feature_contact(int type, int dim, double gap, double *x) {
  for (;;) {
    for (int i = 0; i < 4 * dim; ++i)
      x[i] = bs_range(-1, 1);
    double n[3];
    if (type == 1) {
      double e[3], ee = 0;
      for (int s = 0; s < dim; ++s) {
        e[s] = x[2 * dim + s] - x[dim + s];
        ee += e[s] * e[s];
      }
      if (ee < 0.25)
        continue;
      unit_normal_to(e, dim, n);
      const double a =
          bs_uniform() < 0.5 ? bs_range(-0.6, -0.05) : bs_range(1.05, 1.6);
      for (int s = 0; s < dim; ++s)
        x[s] = x[dim + s] + a * e[s] + gap * n[s];
      return;
    }
    double u[3], v[3];
    for (int s = 0; s < 3; ++s) {
      u[s] = x[6 + s] - x[3 + s];
      v[s] = x[9 + s] - x[3 + s];
    }
    const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    const double cc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    if (cc < 0.3)
      continue;
    /* Barycentric (b1, b2) on t1, t2: across t0t1 (b2 < 0), t2t0 (b1 < 0),
     * t1t2 (b1 + b2 > 1), or beyond the corner t0 (both < 0). */
    double b1 = bs_range(0.1, 0.5), b2 = bs_range(0.1, 0.5);
    const int region = (int)(bs_uniform() * 4);
    if (region == 0)
      b2 = bs_range(-0.5, -0.05);
    else if (region == 1)
      b1 = bs_range(-0.5, -0.05);
    else if (region == 2)
      b2 = 1 - b1 + bs_range(0.05, 0.5);
    else
      b1 = bs_range(-0.5, -0.05), b2 = bs_range(-0.5, -0.05);
    for (int s = 0; s < 3; ++s)
      x[s] = x[3 + s] + b1 * u[s] + b2 * v[s] + gap * c[s] / cc;
    return;
  }
}

/* B, g and H of a contact in every PSD mode (H: 3 x 144). */
typedef struct {
  double B[3], g[3][12], H[3][144];
} be_all;

static void eval_all(fricl_context *ctx, int type, int dim, const double *x,
                     const be_params *p, be_all *o) {
  const double pn[3] = {0, 0, 1};
  memset(o, 0, sizeof *o); /* compared whole: entries past ndof are 0 */
  for (int psd = 0; psd < 3; ++psd)
    CHECK(be_eval1(ctx, type, dim, x, x, pn, 0, p, (fricl_psd)psd, &o->B[psd],
                   o->g[psd], o->H[psd]) == FRICL_STATUS_OK,
          "eval: %s", fricl_context_last_error(ctx));
}

static int same_all(const be_all *a, const be_all *b) {
  return memcmp(a, b, sizeof *a) == 0;
}

/* The two modes where they differ: EV (2-D, 3-D) and FV contacts off their
 * feature. */
static void as_classified_cases(fricl_context *ctx) {
  static const struct { int type, dim; } st[] = {{1, 2}, {1, 3}, {3, 3}};
  for (size_t s = 0; s < sizeof st / sizeof st[0]; ++s)
    for (int variant = 0; variant < 4; ++variant) {
      const int type = st[s].type, dim = st[s].dim;
      const int8_t line = type == 1 ? 2 : 6; /* P_E, P_T */
      const int8_t auto_type = type == 1 ? 3 : 7;
      be_params near = {0.3, 7.5, 0.0, 1.25, 0, 0, NULL};
      if (variant & 1)
        near.dmin = 0.05;
      if (variant & 2)
        near.physical = 1;
      be_params as = near;
      as.as_classified = 1;
      int checked = 0, differ = 0;
      for (int trial = 0; trial < 60; ++trial) {
        double x[12];
        off_feature_contact(type, dim,
                            near.dmin + bs_range(0.15, 0.8) * near.dhat, x);
        be_all bn, ba, bt, bm, ga, gn;
        eval_all(ctx, type, dim, x, &near, &bn);
        eval_all(ctx, type, dim, x, &as, &ba);
        /* The modes differ: the line or plane is nearer than the feature
         * the point is nearest to, and B decreases with the distance. */
        const int d = ba.B[0] > bn.B[0] && ba.B[0] > 0 &&
                      memcmp(ba.g[0], bn.g[0], sizeof ba.g[0]) != 0;
        differ += d;
        CHECK(d,
              "%s %dD variant %d: as-classified B %.17g, nearest %.17g: "
              "the modes do not differ off the feature",
              fricl_stencil_name((fricl_stencil)type), dim, variant, ba.B[0],
              bn.B[0]);
        /* As classified = the explicit P_E / P_T, bit for bit. */
        be_params forced = near;
        forced.dtype = &line;
        eval_all(ctx, type, dim, x, &forced, &bt);
        CHECK(same_all(&ba, &bt),
              "%s %dD variant %d: as-classified differs from distance_type "
              "%d",
              fricl_stencil_name((fricl_stencil)type), dim, variant, line);
        /* -1 and AUTO in the array: the same as no array. */
        const int8_t none[2] = {-1, auto_type};
        for (int i = 0; i < 2; ++i) {
          be_params q = as;
          q.dtype = &none[i];
          eval_all(ctx, type, dim, x, &q, &bm);
          CHECK(same_all(&ba, &bm),
                "%s %dD: as-classified with distance_type %d differs from "
                "no distance_type",
                fricl_stencil_name((fricl_stencil)type), dim, none[i]);
        }
        /* A given type stands in either mode (0: point-point with p, e0
         * or t0). */
        const int8_t zero = 0;
        be_params qa = as, qn = near;
        qa.dtype = qn.dtype = &zero;
        eval_all(ctx, type, dim, x, &qa, &ga);
        eval_all(ctx, type, dim, x, &qn, &gn);
        CHECK(same_all(&ga, &gn),
              "%s %dD: a given distance_type 0 depends on the mode",
              fricl_stencil_name((fricl_stencil)type), dim);
        /* The derivatives of what as-classified computes. */
        check_fd(ctx, type, dim, x, x, NULL, 0, 0, &as, &checked);
      }
      CHECK(checked >= 50 && differ >= 50,
            "%s %dD variant %d: only %d active, %d differing",
            fricl_stencil_name((fricl_stencil)type), dim, variant, checked,
            differ);
    }
  /* EE without a type keeps classifying; VV and PV have one distance: the
   * flag changes nothing there, bit for bit. */
  static const struct {
    int type, dim;
  } same_st[] = {{0, 3}, {2, 3}, {4, 3}, {0, 2}, {4, 2}};
  for (size_t s = 0; s < sizeof same_st / sizeof same_st[0]; ++s)
    for (int trial = 0; trial < 40; ++trial) {
      const int type = same_st[s].type, dim = same_st[s].dim;
      double x[12], xr[12], pn[3] = {0, 0, 1}, pc = 0;
      bs_contact(type, dim, 0.15, trial % 4 == 0, x, xr, pn, &pc);
      be_params near = {0.3, 7.5, 0.0, 1.25, 0, 0, NULL};
      be_params as = near;
      as.as_classified = 1;
      for (int psd = 0; psd < 3; ++psd) {
        double Bn, Ba, gn[12] = {0}, ga[12] = {0}, Hn[144] = {0}, Ha[144] = {0};
        be_eval1(ctx, type, dim, x, xr, pn, pc, &near, (fricl_psd)psd, &Bn, gn,
                 Hn);
        be_eval1(ctx, type, dim, x, xr, pn, pc, &as, (fricl_psd)psd, &Ba, ga,
                 Ha);
        CHECK(memcmp(&Bn, &Ba, sizeof Bn) == 0 &&
                  memcmp(gn, ga, sizeof gn) == 0 &&
                  memcmp(Hn, Ha, sizeof Hn) == 0,
              "%s %dD psd %d: as-classified differs from nearest",
              fricl_stencil_name((fricl_stencil)type), dim, psd);
      }
    }
}

int main(void) {
  fricl_context *ctx = test_context("reference", 0, 0);
  if (!ctx)
    return 1;
  static const struct {
    int type, dim;
  } st[] = {{0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3}, {0, 2}, {1, 2}, {4, 2}};
  for (size_t s = 0; s < sizeof st / sizeof st[0]; ++s)
    for (int variant = 0; variant < 4; ++variant) {
      be_params p = {0.3, 7.5, 0.0, 1.25, 0, 0, NULL};
      if (variant & 1)
        p.dmin = 0.05;
      if (variant & 2)
        p.physical = 1;
      for (int parallel = 0; parallel <= 2 * (st[s].type == 2); ++parallel) {
        /* Both modes on the same configurations (the random stream rewound
         * for the second), the stream then continuing as with one mode. */
        const uint64_t start = bs_state;
        uint64_t after = start;
        for (int as = 0; as < 2; ++as) {
          bs_state = start;
          p.as_classified = as;
          int checked = 0;
          for (int trial = 0; trial < 400 && checked < 40; ++trial)
            run_case(ctx, st[s].type, st[s].dim, parallel, &p, &checked);
          CHECK(checked >= 20,
                "%s %dD %s variant %d parallel %d: only %d active",
                fricl_stencil_name((fricl_stencil)st[s].type), st[s].dim,
                mode_name(&p), variant, parallel, checked);
          if (!as)
            after = bs_state;
        }
        bs_state = after;
      }
    }
  as_classified_cases(ctx);
  fricl_context_destroy(ctx);
  return test_report("test_barrier_fd");
}
