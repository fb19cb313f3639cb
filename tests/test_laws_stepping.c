/*
 * test_laws_stepping.c - fricl_law_step for LuGre and GMS: the measured
 * convergence order of Euler (1) and RK4 (4) against the exact solution at
 * constant velocity, the exact exponential LuGre update (exact to rounding
 * and stable at h |v| / g = 100, where Euler and RK4 blow up), the steady
 * states of the spec's closed forms, and trajectories: one call over
 * n_steps samples equals n_steps single-step calls bitwise (also for
 * Maxwell, and with a per-step normal force). Every backend, f64.
 */
#include "fricl/fricl.h"
#include "test_util.h"

static const double LUGRE_P[7] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2};

/* LuGre g(v) of the reference set, N = 10: a1 + a2 / (1 + (v/vs)^2). */
static double lugre_g(double v) {
  const double r = fabs(v) / 0.01;
  return 3e-4 + 2e-4 / (1 + r * r);
}

/* Final z of one element after `steps` steps of h at constant v. */
static double lugre_run(fricl_context *ctx, fricl_integrator integ, double v,
                        double z0, double h, size_t steps) {
  double *vv = malloc(steps * sizeof *vv);
  for (size_t s = 0; s < steps; ++s)
    vv[s] = v;
  double z = z0;
  fricl_law_batch b;
  fricl_law_batch_init(&b, FRICL_LAW_LUGRE);
  memcpy(b.param, LUGRE_P, sizeof LUGRE_P);
  b.normal_force = 10;
  b.n = 1;
  b.n_steps = steps;
  b.h = h;
  b.integrator = integ;
  b.v = vv;
  b.state = &z;
  b.state_out = &z;
  const fricl_status st = fricl_law_step(ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "lugre step: %s", fricl_context_last_error(ctx));
  free(vv);
  return z;
}

static void test_lugre_order(fricl_context *ctx, const char *be) {
  const double v = 0.01, z0 = -2e-4, T = 0.2;
  const double g = lugre_g(v), zss = g;
  const double exact = zss + (z0 - zss) * exp(-fabs(v) * T / g);
  double e_eu[3], e_rk[3], e_ex[3];
  for (int k = 0; k < 3; ++k) {
    const size_t steps = (size_t)80 << k;
    const double h = T / (double)steps;
    e_eu[k] =
        fabs(lugre_run(ctx, FRICL_INTEGRATOR_EULER, v, z0, h, steps) - exact);
    e_rk[k] =
        fabs(lugre_run(ctx, FRICL_INTEGRATOR_RK4, v, z0, h, steps) - exact);
    e_ex[k] =
        fabs(lugre_run(ctx, FRICL_INTEGRATOR_EXP, v, z0, h, steps) - exact);
  }
  for (int k = 0; k < 2; ++k) {
    const double p_eu = log2(e_eu[k] / e_eu[k + 1]);
    const double p_rk = log2(e_rk[k] / e_rk[k + 1]);
    printf("%s: lugre h = T/%d: euler err %.3g (order %.2f), rk4 err %.3g "
           "(order %.2f), exp err %.3g\n",
           be, 80 << k, e_eu[k], p_eu, e_rk[k], p_rk, e_ex[k]);
    CHECK(p_eu > 0.9 && p_eu < 1.15, "%s: euler order %.3f", be, p_eu);
    CHECK(p_rk > 3.8 && p_rk < 4.3, "%s: rk4 order %.3f", be, p_rk);
  }
  for (int k = 0; k < 3; ++k)
    CHECK(e_ex[k] <= 1e-17, "%s: exp update exact to rounding: %g", be,
          e_ex[k]);
}

static void test_lugre_stiff(fricl_context *ctx, const char *be) {
  /* h |v| / g = 100 */
  const double v = -0.01, g = lugre_g(v), h = 100 * g / fabs(v);
  const double ze = lugre_run(ctx, FRICL_INTEGRATOR_EXP, v, 3e-4, h, 5);
  CHECK(fabs(ze - (-g)) <= 1e-19, "%s: exp at h|v|/g = 100: %g vs %g", be, ze,
        -g);
  const double zu = lugre_run(ctx, FRICL_INTEGRATOR_EULER, v, 3e-4, h, 5);
  const double zr = lugre_run(ctx, FRICL_INTEGRATOR_RK4, v, 3e-4, h, 5);
  CHECK(fabs(zu) > 1e3 * g && fabs(zr) > 1e3 * g,
        "%s: euler/rk4 should be unstable there (documented): %g %g", be, zu,
        zr);
}

/* Steady state of the spec: z_ss = sgn(v) g, F_ss = sgn(v) g_F + sigma2 v. */
static void test_lugre_steady(fricl_context *ctx, const char *be) {
  const double vs[4] = {0.01, -0.01, 0.003, -0.05};
  for (int i = 0; i < 4; ++i) {
    double vv[2] = {vs[i], vs[i]}, f[2], z = 0;
    fricl_law_batch b;
    fricl_law_batch_init(&b, FRICL_LAW_LUGRE);
    memcpy(b.param, LUGRE_P, sizeof LUGRE_P);
    b.normal_force = 10;
    b.n = 1;
    b.n_steps = 2;
    b.h = 10.0;
    b.integrator = FRICL_INTEGRATOR_EXP;
    b.v = vv;
    b.state = &z;
    b.state_out = &z;
    b.force = f;
    CHECK(fricl_law_step(ctx, &b) == FRICL_STATUS_OK, "%s", be);
    const double r = fabs(vs[i]) / 0.01;
    const double gF = 3.0 + 2.0 / (1 + r * r);
    const double want = copysign(gF, vs[i]) + 0.4 * vs[i];
    CHECK(fabs(f[1] - want) <= 1e-13 * fabs(want),
          "%s: lugre F_ss at v = %g: %.17g vs %.17g", be, vs[i], f[1], want);
    CHECK(fabs(z - copysign(lugre_g(vs[i]), vs[i])) <= 1e-18, "%s: lugre z_ss",
          be);
  }
}

/* GMS, two elements in the slip regime (nu > 1 keeps |z| > s): z_i(t) =
 * nu_i s + (z0 - nu_i s) exp(-C t / s). */
static void gms_batch(fricl_law_batch *b, const double *ge, size_t m) {
  fricl_law_batch_init(b, FRICL_LAW_GMS);
  const double p[7] = {0.5, 0.3, 0.02, 1e4, 0.1, 0.01, 2};
  memcpy(b->param, p, sizeof p);
  b->normal_force = 10;
  b->gms_elements = m;
  b->gms_params = ge;
}

static void test_gms_order(fricl_context *ctx, const char *be) {
  const double ge[6] = {4e3, 10, 1.5, 6e3, 20, 2.0};
  const double v = 0.01, s = 4e-4, C = 0.02, T = 0.1, z0 = 1.2e-3;
  double err[2][3];
  for (int in = 0; in < 2; ++in)
    for (int k = 0; k < 3; ++k) {
      const size_t steps = (size_t)80 << k;
      double *vv = malloc(steps * sizeof *vv);
      for (size_t q = 0; q < steps; ++q)
        vv[q] = v;
      double z[2] = {z0, z0};
      fricl_law_batch b;
      gms_batch(&b, ge, 2);
      b.n = 1;
      b.n_steps = steps;
      b.h = T / (double)steps;
      b.integrator = in ? FRICL_INTEGRATOR_RK4 : FRICL_INTEGRATOR_EULER;
      b.v = vv;
      b.state = z;
      b.state_out = z;
      CHECK(fricl_law_step(ctx, &b) == FRICL_STATUS_OK, "%s: %s", be,
            fricl_context_last_error(ctx));
      err[in][k] = 0;
      for (int j = 0; j < 2; ++j) {
        const double nu = ge[3 * j + 2];
        const double ex = nu * s + (z0 - nu * s) * exp(-C * T / s);
        err[in][k] = fmax(err[in][k], fabs(z[j] - ex));
      }
      free(vv);
    }
  for (int k = 0; k < 2; ++k) {
    const double pe = log2(err[0][k] / err[0][k + 1]);
    const double pr = log2(err[1][k] / err[1][k + 1]);
    printf("%s: gms h = T/%d: euler order %.2f, rk4 order %.2f\n", be, 80 << k,
           pe, pr);
    CHECK(pe > 0.9 && pe < 1.15, "%s: gms euler order %.3f", be, pe);
    CHECK(pr > 3.8 && pr < 4.3, "%s: gms rk4 order %.3f", be, pr);
  }
  /* Steady state: z_i = nu_i s, F = sum k_i nu_i s + b_v v. */
  double z[2] = {z0, z0}, vv[2] = {v, v}, f[2];
  fricl_law_batch b;
  gms_batch(&b, ge, 2);
  b.n = 1;
  b.n_steps = 2;
  b.h = 5.0; /* RK4 is unstable there; use many small steps instead */
  b.h = 0.01;
  b.integrator = FRICL_INTEGRATOR_RK4;
  b.v = vv;
  b.state = z;
  b.state_out = z;
  b.force = f;
  for (int rep = 0; rep < 200; ++rep)
    fricl_law_step(ctx, &b);
  const double want = 4e3 * 1.5 * s + 6e3 * 2.0 * s + 0.1 * v;
  CHECK(fabs(f[1] - want) <= 1e-12 * want, "%s: gms F_ss %.17g vs %.17g", be,
        f[1], want);
}

/* n_steps in one call == n_steps calls of one step, bitwise. */
static void test_trajectory(fricl_context *ctx, const char *be) {
  enum { N = 5, S = 40, M = 4 };
  static double v[S * N], x[S * N], nrm[S * N], f1[S * N], f2[S * N];
  for (int s = 0; s < S; ++s)
    for (int i = 0; i < N; ++i) {
      const double t = s * 0.01;
      v[s * N + i] = 0.02 * sin(7 * t + i) + 0.005 * i;
      x[s * N + i] = 0.01 * cos(5 * t + i);
      nrm[s * N + i] = 10 + 2 * sin(3 * t + i);
    }
  const double ge[3 * M] = {4e3, 10, 0.3, 6e3, 20, 0.3,
                            1e3, 5,  0.2, 2e3, 1,  0.2};
  for (int law = 0; law < 3; ++law) {
    const int S2 = law == 0 ? 2 : (law == 1 ? 1 : M);
    double st1[N * M] = {0}, st2[N * M] = {0};
    for (int integ = 0; integ < (law == 0 ? 1 : 2); ++integ) {
      for (int i = 0; i < N * M; ++i)
        st1[i] = st2[i] = 1e-5 * i;
      fricl_law_batch b;
      if (law == 0) {
        fricl_law_batch_init(&b, FRICL_LAW_MAXWELL);
        b.param[0] = 1000;
        b.param[1] = 0.15;
        b.x = x;
      } else if (law == 1) {
        fricl_law_batch_init(&b, FRICL_LAW_LUGRE);
        memcpy(b.param, LUGRE_P, sizeof LUGRE_P);
        b.v = v;
      } else {
        gms_batch(&b, ge, M);
        b.v = v;
      }
      b.integrator = integ ? FRICL_INTEGRATOR_RK4 : FRICL_INTEGRATOR_EULER;
      b.h = 1e-3;
      b.n = N;
      b.n_steps = S;
      b.normal = nrm;
      b.normal_per_step = 1;
      b.state = st1;
      b.state_out = st1;
      b.force = f1;
      CHECK(fricl_law_step(ctx, &b) == FRICL_STATUS_OK, "%s: %s", be,
            fricl_context_last_error(ctx));
      for (int s = 0; s < S; ++s) {
        fricl_law_batch c = b;
        c.n_steps = 1;
        c.normal_per_step = 0;
        c.normal = nrm + s * N;
        c.v = b.v ? v + s * N : NULL;
        c.x = b.x ? x + s * N : NULL;
        c.state = st2;
        c.state_out = st2;
        c.force = f2 + s * N;
        CHECK(fricl_law_step(ctx, &c) == FRICL_STATUS_OK, "%s: %s", be,
              fricl_context_last_error(ctx));
      }
      CHECK(memcmp(f1, f2, sizeof f1) == 0 &&
                memcmp(st1, st2, N * S2 * sizeof(double)) == 0,
            "%s: law %d integ %d: trajectory != sequential steps", be, law,
            integ);
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
    if (!fricl_context_has_fp64(ctx)) {
      fricl_context_destroy(ctx);
      continue;
    }
    test_lugre_order(ctx, be[i].label);
    test_lugre_stiff(ctx, be[i].label);
    test_lugre_steady(ctx, be[i].label);
    test_gms_order(ctx, be[i].label);
    test_trajectory(ctx, be[i].label);
    fricl_context_destroy(ctx);
  }
  return test_report("test_laws_stepping");
}
