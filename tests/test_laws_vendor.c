/*
 * test_laws_vendor.c - what holds between OpenCL implementations for a
 * stateful law over a long trajectory (LuGre, 200 steps, f64, against the
 * reference backend):
 *   - Euler and RK4 with the rational shape (alpha = 2: no exp, no pow in
 *     the kernel): bitwise, every force and the final state. Basic
 *     arithmetic is correctly rounded on every conforming implementation
 *     and fricl fixes the order of operations and forbids contraction.
 *   - The exponential integrator, z' = z_ss + (z - z_ss) exp(-|v| h / g):
 *     OpenCL allows exp 3 ulp of error (the host's libm: 1), so states
 *     drift apart step by step. The test propagates that allowance exactly
 *     through the update (below) and requires every force and the final
 *     state within the resulting bound. Measured: PoCL 3 ulp, Intel 5.5 ulp
 *     of max|F| after 200 steps; the bound is what a conforming
 *     implementation may reach, whatever its exp.
 *
 * Bound (u = 2^-53; e_n = |z_dev - z_ref| before step n, d = z - z_ss,
 * E = exp(-|v| h / g); g and z_ss are bitwise equal on both sides):
 *   fl(z - z_ss)    differs by <= e_n + 2u|d|
 *   exp             differs by <= (3 + 1) ulp(E) <= 8u E
 *   fl(d E)         differs by <= e_n E + 2u|d|E + 8u|d|E + 2u|d|E
 *   fl(z_ss + dE)   adds 2u|z'|
 * so e_{n+1} <= e_n E + 12u |d| E + 2u |z'|, and the force
 * F = sigma0 z + sigma1 (v - |v| z / g) + sigma2 v differs by at most
 * (sigma0 + |sigma1| |v| / g) e_n + 8u (sigma0 |z| + |sigma1| (|v| +
 * 2 |v z / g|) + |sigma2 v|) (each of its six roundings at most 2u of a
 * term or partial sum). The magnitudes come from the test's own run of
 * the spec's update; a factor 1 + 2^-20 covers second-order terms.
 */
#include "test_util.h"

#define NE 512
#define STEPS 200

static const double P[7] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2};
static const double NRM = 10;

/* Deterministic velocities: both signs, stick to slip, |v| up to 0.05. */
static void make_v(double *v) {
  uint64_t s = 0x2545F4914F6CDD1Dull;
  for (size_t i = 0; i < (size_t)NE * STEPS; ++i) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    const double u = (double)((s * 2685821657736338717ull) >> 11) * 0x1p-53;
    v[i] = (u - 0.5) * 0.1;
  }
}

static fricl_status run(fricl_context *ctx, fricl_integrator integ, double h,
                        const double *v, double *force, double *z) {
  fricl_law_batch b;
  fricl_law_batch_init(&b, FRICL_LAW_LUGRE);
  memcpy(b.param, P, sizeof P);
  b.normal_force = NRM;
  b.n = NE;
  b.n_steps = STEPS;
  b.h = h;
  b.integrator = integ;
  b.v = v;
  for (size_t i = 0; i < NE; ++i)
    z[i] = 0;
  b.state = z;
  b.state_out = z;
  b.force = force;
  return fricl_law_step(ctx, &b);
}

/* g of the rational shape, alpha = 2 (spec: a1 + a2 / (1 + (|v|/vs)^2)). */
static double g_of(double v) {
  const double a1 = NRM * P[1] / P[3], a2 = (NRM * P[0] - NRM * P[1]) / P[3];
  const double r = fabs(v) / P[2];
  return a1 + a2 / (1 + r * r);
}

static void check_exp(const char *be, double h, const double *v,
                      const double *fd, const double *zd, const double *fr,
                      const double *zr) {
  const double u = 0x1p-53, slack = 1 + 0x1p-20;
  const double s0 = P[3], s1 = P[4], s2 = P[5];
  double fmax_abs = 0, worst_ulp = 0, worst_ratio = 0, bound_ulp = 0;
  for (size_t i = 0; i < (size_t)NE * STEPS; ++i)
    fmax_abs = fmax(fmax_abs, fabs(fr[i]));
  const double fulp = ulp_of(fmax_abs, 0);
  int bad = 0;
  for (size_t i = 0; i < NE; ++i) {
    double z = 0, e = 0; /* magnitudes of the spec's run; the bound */
    for (size_t n = 0; n < STEPS; ++n) {
      const double vi = v[n * NE + i], g = g_of(vi);
      const size_t k = n * NE + i;
      const double bf =
          slack *
          ((s0 + fabs(s1) * fabs(vi) / g) * e +
           8 * u *
               (s0 * fabs(z) + fabs(s1) * (fabs(vi) + 2 * fabs(vi * z / g)) +
                fabs(s2 * vi)));
      const double df = fabs(fd[k] - fr[k]);
      if (!(df <= bf) && bad++ < 5)
        fprintf(stderr, "  %s: element %zu step %zu: |dF| %.3g > bound %.3g\n",
                be, i, n, df, bf);
      worst_ulp = fmax(worst_ulp, df / fulp);
      if (bf > 0)
        worst_ratio = fmax(worst_ratio, df / bf);
      bound_ulp = fmax(bound_ulp, bf / fulp);
      const double zss = vi > 0 ? g : vi < 0 ? -g : 0;
      const double E = exp(-(fabs(vi) * h / g));
      const double zn = zss + (z - zss) * E;
      e = slack * (e * E + 12 * u * fabs(z - zss) * E + 2 * u * fabs(zn) +
                   8 * DBL_TRUE_MIN);
      z = zn;
    }
    const double dz = fabs(zd[i] - zr[i]);
    if (!(dz <= e) && bad++ < 5)
      fprintf(stderr, "  %s: element %zu: final |dz| %.3g > bound %.3g\n", be,
              i, dz, e);
  }
  CHECK(bad == 0, "%s: exp integrator, h = %g: %d value(s) beyond the bound",
        be, h, bad);
  printf("%s: lugre exp h = %g: max |dF| %.1f ulp of max|F| (bound up to "
         "%.0f ulp; worst use of the bound %.2f)\n",
         be, h, worst_ulp, bound_ulp, worst_ratio);
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  double *v = malloc(sizeof(double) * NE * STEPS);
  double *fr = malloc(sizeof(double) * NE * STEPS);
  double *fd = malloc(sizeof(double) * NE * STEPS);
  double zr[NE], zd[NE];
  make_v(v);
  fricl_context *ref = test_context("reference", 0, 0);
  for (int b = 0; b < nb && ref; ++b) {
    if (strcmp(be[b].spec, "reference") == 0)
      continue;
    fricl_context *ctx = test_context(be[b].spec, 0, 0);
    if (!ctx)
      continue;
    if (!fricl_context_has_fp64(ctx)) {
      printf("%s: no fp64, skipped\n", be[b].label);
      fricl_context_destroy(ctx);
      continue;
    }
    const fricl_integrator plain[2] = {FRICL_INTEGRATOR_EULER,
                                       FRICL_INTEGRATOR_RK4};
    for (int k = 0; k < 2; ++k) {
      CHECK(run(ref, plain[k], 1e-4, v, fr, zr) == FRICL_STATUS_OK &&
                run(ctx, plain[k], 1e-4, v, fd, zd) == FRICL_STATUS_OK,
            "%s: %s", be[b].label, fricl_context_last_error(ctx));
      CHECK(memcmp(fr, fd, sizeof(double) * NE * STEPS) == 0 &&
                memcmp(zr, zd, sizeof zr) == 0,
            "%s: lugre %s over %d steps not bitwise the reference", be[b].label,
            k ? "rk4" : "euler", STEPS);
    }
    const double hs[2] = {1e-4, 1e-3};
    for (int k = 0; k < 2; ++k) {
      CHECK(run(ref, FRICL_INTEGRATOR_EXP, hs[k], v, fr, zr) ==
                    FRICL_STATUS_OK &&
                run(ctx, FRICL_INTEGRATOR_EXP, hs[k], v, fd, zd) ==
                    FRICL_STATUS_OK,
            "%s: %s", be[b].label, fricl_context_last_error(ctx));
      check_exp(be[b].label, hs[k], v, fd, zd, fr, zr);
    }
    fricl_context_destroy(ctx);
  }
  fricl_context_destroy(ref);
  free(v);
  free(fr);
  free(fd);
  return test_report("test_laws_vendor");
}
