/*
 * test_numerical_safety.c - inside the documented domain every output is
 * finite: an exhaustive grid of edge arguments (0, subnormals, e/2 and e and
 * their neighbours, far outside) times eps_v over many decades, mu pairs
 * with zeros and equal values, both profiles, both precisions, every
 * backend. The only infinities the spec documents, the two (.. y - ..)/y^3
 * functions at y = 0 and their overflow as y -> 0, are checked only where
 * their exact value fits the format.
 *
 * Domain (f64 / f32): y in [0, 1e300 / 1e30]; eps_v in [1e-100, 1e100] /
 * [1e-10, 1e10]; mu_s, mu_k in [0, 10]. The x3 functions are checked for
 * y >= 1e-3 eps_v, where |value| <= 10 * 24 * 1e3 / eps_v^3 fits both
 * formats over the eps_v ranges above.
 */
#include "test_util.h"

#define NY 40

static int is_x3(int t) {
  return t == FRICL_SMOOTH_FRICTION_F2_X_MINUS_F1_OVER_X3 ||
         t == FRICL_SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3;
}

static void grid(fricl_context *ctx, const char *be, int f32) {
  const double eps_f64[] = {1e-100, 1e-30, 1e-8, 1e-3, 1.0, 1e8, 1e100};
  const double eps_f32[] = {1e-10, 1e-6, 1e-3, 1.0, 1e3, 1e10};
  const double *eps = f32 ? eps_f32 : eps_f64;
  const int neps = f32 ? 6 : 7;
  static const double mus[][2] = {{0.5, 0.3}, {1.0, 0.1},  {0.3, 0.5},
                                  {0.4, 0.4}, {0.0, 0.2},  {0.2, 0.0},
                                  {0.0, 0.0}, {10.0, 1e-9}};
  const double ymax = f32 ? 1e30 : 1e300;
  for (int k = 0; k < neps; ++k) {
    const double e = f32 ? (double)(float)eps[k] : eps[k];
    /* Edge arguments relative to e, in the working precision. */
    double y[NY];
    int m = 0;
    const double rel[] = {0.0,   1e-3, 0.25,  1.0 / 3, 0.5,  2.0 / 3, 0.75,
                          0.999, 1.0,  1.001, 2.0,     10.0, 1e3};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; ++i)
      y[m++] = rel[i] * e;
    const double half = 0.5 * e;
    y[m++] = f32 ? nextafterf((float)half, 0.0f) : nextafter(half, 0.0);
    y[m++] =
        f32 ? nextafterf((float)half, INFINITY) : nextafter(half, INFINITY);
    y[m++] = f32 ? nextafterf((float)e, 0.0f) : nextafter(e, 0.0);
    y[m++] = f32 ? nextafterf((float)e, INFINITY) : nextafter(e, INFINITY);
    y[m++] = f32 ? 1e-45 : 5e-324;     /* smallest subnormal */
    y[m++] = f32 ? 1e-40 : 1e-310;     /* a subnormal */
    y[m++] = f32 ? 1.2e-38 : 2.3e-308; /* smallest normal, about */
    y[m++] = ymax;
    y[m++] = 1.0;
    for (int t = 0; t < m; ++t)
      if (y[t] > ymax)
        y[t] = ymax;
    for (size_t mu = 0; mu < sizeof mus / sizeof *mus; ++mu)
      for (int prof = 0; prof < 2; ++prof) {
        float yf[NY], of[FRICL_TERM_COUNT][NY];
        double od[FRICL_TERM_COUNT][NY];
        fricl_scalar_batch b;
        fricl_scalar_batch_init(&b);
        b.precision = f32 ? FRICL_F32 : FRICL_F64;
        b.mu_profile = (fricl_mu_profile)prof;
        b.n = (size_t)m;
        b.eps_v = e;
        b.mu_s = mus[mu][0];
        b.mu_k = mus[mu][1];
        for (int i = 0; i < m; ++i)
          yf[i] = (float)y[i];
        b.y = f32 ? (const void *)yf : (const void *)y;
        for (int t = 0; t < FRICL_TERM_COUNT; ++t)
          b.out[t] = f32 ? (void *)of[t] : (void *)od[t];
        const fricl_status st = fricl_scalar_eval(ctx, &b);
        CHECK(st == FRICL_STATUS_OK, "%s: %s", be,
              fricl_context_last_error(ctx));
        if (st != FRICL_STATUS_OK)
          continue;
        for (int t = 0; t < FRICL_TERM_COUNT; ++t)
          for (int i = 0; i < m; ++i) {
            const double yi = f32 ? (double)yf[i] : y[i];
            if (is_x3(t) && !(yi >= 1e-3 * e))
              continue;
            const double v = f32 ? (double)of[t][i] : od[t][i];
            CHECK(isfinite(v),
                  "%s %s %s %s: y=%a eps_v=%a mu_s=%g mu_k=%g gives %g", be,
                  f32 ? "f32" : "f64",
                  fricl_mu_profile_name((fricl_mu_profile)prof),
                  fricl_term_name((fricl_term)t), yi, e, mus[mu][0], mus[mu][1],
                  v);
          }
      }
  }
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx)
      continue;
    if (fricl_context_has_fp64(ctx))
      grid(ctx, be[i].label, 0);
    grid(ctx, be[i].label, 1);
    fricl_context_destroy(ctx);
  }
  return test_report("test_numerical_safety");
}
