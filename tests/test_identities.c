/*
 * test_identities.c - the identities of spec 2.2 and 3.9, checked on every
 * backend: derivative chains by central finite differences, the quotient
 * forms f1/x and (f2 x - f1)/x^3 reconstructed, continuity at e/2 and e,
 * and homogeneity in (y, eps_v) - bitwise for powers of two.
 */
#include "test_util.h"

enum { F0, F1, F2, F1X, F2X, MU, MUP, MF0, MF1, MF2, MF1X, MF2X };

/* Evaluate all twelve terms at n points (double in, double out). */
static int eval_all(fricl_context *ctx, int f32, fricl_mu_profile prof,
                    size_t n, const double *y, double e, double ms, double mk,
                    double out[FRICL_TERM_COUNT][64]) {
  float yf[64], of[FRICL_TERM_COUNT][64];
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.precision = f32 ? FRICL_F32 : FRICL_F64;
  b.mu_profile = prof;
  b.n = n;
  b.eps_v = e;
  b.mu_s = ms;
  b.mu_k = mk;
  for (size_t i = 0; i < n; ++i)
    yf[i] = (float)y[i];
  b.y = f32 ? (const void *)yf : (const void *)y;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = f32 ? (void *)of[t] : (void *)out[t];
  const fricl_status st = fricl_scalar_eval(ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "eval: %s", fricl_context_last_error(ctx));
  if (f32)
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      for (size_t i = 0; i < n; ++i)
        out[t][i] = of[t][i];
  return st == FRICL_STATUS_OK;
}

/* Pairs (function, its derivative) for central differences. */
static const int deriv_pairs[][2] = {
    {F0, F1}, {F1, F2}, {MF0, MF1}, {MF1, MF2}, {MU, MUP}};

static void check_derivatives(fricl_context *ctx, const char *be,
                              fricl_mu_profile prof, double e, double ms,
                              double mk) {
  /* Points away from the kinks (e/2 for ipctk's second derivatives, e). */
  static const double rhos[] = {0.03, 0.17, 0.31, 0.44, 0.58,
                                0.66, 0.79, 0.93, 1.2,  3.5};
  const double h = 1e-6 * e;
  for (size_t k = 0; k < sizeof rhos / sizeof *rhos; ++k) {
    const double y0 = rhos[k] * e;
    double y[3] = {y0 - h, y0, y0 + h}, o[FRICL_TERM_COUNT][64];
    if (!eval_all(ctx, 0, prof, 3, y, e, ms, mk, o))
      return;
    const double mmax = fmax(fmax(ms, mk), 1e-300);
    for (size_t p = 0; p < sizeof deriv_pairs / sizeof *deriv_pairs; ++p) {
      const int f = deriv_pairs[p][0], d = deriv_pairs[p][1];
      const double fd = (o[f][2] - o[f][0]) / (2 * h);
      /* Scale of the derivative: 1/e for f2-like, 1 for f1-like, times
       * mu_max for the mu forms. Truncation ~ (h/e)^2, rounding ~ 1e-16 e/h:
       * both below 1e-9 of the scale. A missing term is O(1). */
      const double scale = (d == F2 || d == MF2 || d == MUP ? 1.0 / e : 1.0) *
                           (d >= MU ? mmax : 1.0);
      CHECK(fabs(fd - o[d][1]) <= 1e-8 * scale,
            "%s %s e=%g ms=%g mk=%g y=%g: d/dy %s = %.17g by FD, %s = %.17g",
            be, fricl_mu_profile_name(prof), e, ms, mk, y0,
            fricl_term_name((fricl_term)f), fd, fricl_term_name((fricl_term)d),
            o[d][1]);
    }
    /* Quotient forms: f1/x * y = f1, and g2 y^3 = h' y - h (y > 0). */
    CHECK(fabs(o[F1X][1] * y0 - o[F1][1]) <= 4e-16 * fmax(1.0, fabs(o[F1][1])),
          "%s f1_over_x*y != f1 at y=%g", be, y0);
    CHECK(fabs(o[MF1X][1] * y0 - o[MF1][1]) <= 8e-16 * mmax,
          "%s mu_f1_over_x*y != mu_f1 at y=%g", be, y0);
    const double rec = o[F2][1] * y0 - o[F1][1], got = o[F2X][1] * y0 * y0 * y0;
    CHECK(fabs(got - rec) <= 1e-14 * fmax(1.0, fabs(o[F1][1])),
          "%s f2x*y^3 = %.17g, f2*y - f1 = %.17g at y=%g", be, got, rec, y0);
    const double mrec = o[MF2][1] * y0 - o[MF1][1];
    const double mgot = o[MF2X][1] * y0 * y0 * y0;
    CHECK(fabs(mgot - mrec) <= 1e-13 * mmax,
          "%s mu_f2x*y^3 = %.17g, mu_f2*y - mu_f1 = %.17g at y=%g", be, mgot,
          mrec, y0);
  }
}

/* Value (and, through one-sided differences, slope) continuity at a knot:
 * C2 for F and f0, C1 for mu, h and f1 (spec 2.2, 3.3, 3.4). */
static void check_continuity(fricl_context *ctx, const char *be,
                             fricl_mu_profile prof, double e, double ms,
                             double mk, double knot) {
  const double h = 1e-7 * e;
  double y[4] = {knot - 2 * h, knot - h, knot + h, knot + 2 * h};
  double o[FRICL_TERM_COUNT][64];
  if (!eval_all(ctx, 0, prof, 4, y, e, ms, mk, o))
    return;
  static const int cont[] = {F0, F1, MU, MF0, MF1};
  const double mmax = fmax(ms, mk);
  for (size_t i = 0; i < sizeof cont / sizeof *cont; ++i) {
    const int f = cont[i];
    const double left = 2 * o[f][1] - o[f][0];  /* linear extrapolation */
    const double right = 2 * o[f][2] - o[f][3]; /* to the knot from each side */
    const double slope_l = (o[f][1] - o[f][0]) / h;
    const double slope_r = (o[f][3] - o[f][2]) / h;
    const double sc = (f == F0 || f == MF0 ? e : 1.0) * (f >= MU ? mmax : 1.0);
    CHECK(fabs(left - right) <= 1e-9 * sc,
          "%s %s: %s jumps at y=%g: %.17g vs %.17g", be,
          fricl_mu_profile_name(prof), fricl_term_name((fricl_term)f), knot,
          left, right);
    CHECK(fabs(slope_l - slope_r) <= 1e-5 * sc / e,
          "%s %s: slope of %s jumps at y=%g: %.17g vs %.17g", be,
          fricl_mu_profile_name(prof), fricl_term_name((fricl_term)f), knot,
          slope_l, slope_r);
  }
}

/* Homogeneity: F, f0 scale by L; mu, h, f1 invariant; mu', h', g, f2,
 * f1_over_x by 1/L; g2, f2x by 1/L^3 (spec 3.9). Bitwise for L = 2^k. */
static void check_homogeneity(fricl_context *ctx, const char *be, int f32,
                              fricl_mu_profile prof) {
  static const int power[FRICL_TERM_COUNT] = {1,  0, -1, -1, -3, 0,
                                              -1, 1, 0,  -1, -1, -3};
  const double e = 1e-3, ms = 0.5, mk = 0.3;
  double y[64];
  for (int i = 0; i < 64; ++i)
    y[i] = e * (i / 25.0) * (i % 3 == 0 ? -1 : 1);
  double base[FRICL_TERM_COUNT][64], sc[FRICL_TERM_COUNT][64], ys[64];
  if (!eval_all(ctx, f32, prof, 64, y, e, ms, mk, base))
    return;
  static const double lambdas[] = {0.25, 8.0, 3.0};
  for (int l = 0; l < 3; ++l) {
    const double lam = lambdas[l];
    for (int i = 0; i < 64; ++i)
      ys[i] = f32 ? (double)(float)((float)y[i] * (float)lam) : y[i] * lam;
    if (!eval_all(ctx, f32, prof, 64, ys, e * lam, ms, mk, sc))
      return;
    const int exact = lam != 3.0;
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      for (int i = 0; i < 64; ++i) {
        const double want = base[t][i] * pow(lam, power[t]);
        const double got = sc[t][i];
        if (isinf(want) || isnan(want)) {
          CHECK(isnan(want) ? isnan(got) : got == want, "%s inf/nan", be);
          continue;
        }
        if (exact) {
          CHECK(got == want || (f32 && (float)got == (float)want),
                "%s %s %s lambda=%g y=%g: %.17g != %.17g (bitwise)", be,
                f32 ? "f32" : "f64", fricl_term_name((fricl_term)t), lam, y[i],
                got, want);
        } else {
          const double tol = (f32 ? 1e-5 : 1e-13) * fmax(fabs(want), 1e-300);
          /* Non-dyadic lambda: a few ULP, more where terms cancel. */
          CHECK(fabs(got - want) <= tol ||
                    fabs(got - want) <=
                        (f32 ? 1e-5 : 1e-13) * pow(lam, power[t]) * 1e3,
                "%s %s %s lambda=3 y=%g: %.17g vs %.17g", be,
                f32 ? "f32" : "f64", fricl_term_name((fricl_term)t), y[i], got,
                want);
        }
      }
  }
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  static const double mus[][2] = {
      {0.5, 0.3}, {1.0, 0.1}, {0.3, 0.5}, {0.4, 0.4}, {0.0, 0.2}};
  static const double eps[] = {1e-8, 1e-4, 1e-3, 1.0};
  for (int b = 0; b < nb; ++b) {
    fricl_context *ctx = test_context(be[b].spec, 0, 0);
    if (!ctx)
      continue;
    for (int p = 0; p < 2; ++p) {
      const fricl_mu_profile prof = (fricl_mu_profile)p;
      for (size_t m = 0; m < sizeof mus / sizeof *mus; ++m)
        for (size_t k = 0; k < sizeof eps / sizeof *eps; ++k) {
          check_derivatives(ctx, be[b].label, prof, eps[k], mus[m][0],
                            mus[m][1]);
          check_continuity(ctx, be[b].label, prof, eps[k], mus[m][0], mus[m][1],
                           eps[k]);
          if (prof == FRICL_MU_IPCTK)
            check_continuity(ctx, be[b].label, prof, eps[k], mus[m][0],
                             mus[m][1], eps[k] / 2);
        }
      check_homogeneity(ctx, be[b].label, 0, prof);
      check_homogeneity(ctx, be[b].label, 1, prof);
    }
    fricl_context_destroy(ctx);
  }
  return test_report("test_identities");
}
