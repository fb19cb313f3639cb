/*
 * sliding_block.c - a small deformable block pushed across a plane:
 * implicit Euler, Newton on the incremental potential, fricl's barrier
 * (fricl_barrier_eval) against the ground and fricl's friction
 * (fricl_build for the lagged data once per step, fricl_tangential_eval
 * per Newton iteration), checked against Coulomb's law.
 *
 * The block: the 8 corners of a 10 cm cube (0.125 kg each) joined by 28
 * springs; its 4 bottom corners have plane-vertex contacts with z = 0.
 * Per time step h, from x^t and v^t, Newton minimises over x
 *   E(x) = sum_i m/2 |x_i - x~_i|^2 + h^2 [S(x) + B(x) - F.x]
 *        + h^2 D(x - x^t; eps_v h),      x~ = x^t + h v^t + h^2 g,
 * S the springs, B the barrier, F the push (along x, spread over all
 * vertices) and D the lagged friction potential on displacements (with
 * eps_v h: its gradient is that of D on velocities, its Hessian 1/h of
 * it; force = -grad D). Each Newton step solves the dense 24 x 24 system
 * (Cholesky; Hessians PSD-projected) and backtracks on E.
 *
 * Checks (exit status 1 if one fails), for the `cubic` and `ipctk` mu
 * profiles, mu_s = 0.5 > mu_k = 0.3:
 *   - below breakaway (F = 0.5 mu_k N) the block creeps at <= eps_v;
 *   - above it (F = 1.5 mu_s N) it slides with acceleration
 *     (F - mu_k N) / M, to 2 %.
 * It writes the effective friction coefficient (F - M a) / N against F / N
 * for both profiles as CSV (plot: examples/plot_sliding_block.py), the
 * mean Newton iterations with PSD clamp and none, and fricl's share of
 * the step time.
 *
 * Usage: sliding_block [OUT.csv] [DEVICE]   (defaults: sliding_block.csv,
 * host)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fricl/fricl.h>
#include <fricl/fricl_barrier.h>

#define NV 8
#define ND (3 * NV)
#define NS 28
#define SIDE 0.1
#define MASS 0.125
#define GRAV 9.81
#define KSPRING 2e4
#define DHAT 1e-3
#define KAPPA 1e9
#define EPS_V 1e-3
#define MU_S 0.5
#define MU_K 0.3
#define H 1e-2
#define STEPS 50

typedef struct sim {
  fricl_context *ctx;
  fricl_mu_profile profile;
  fricl_psd psd;
  double x[ND], v[ND], rest[NS];
  int sp[NS][2];
  double push; /* total force along x */
  /* the contacts: bottom corners against z = 0 */
  int32_t ids[4];
  double pn[12], pc[4];
  /* lagged data of the step */
  double basis[4 * 6], normal[4], mus[4], muk[4];
  fricl_tangential_plan *bplan, *tplan;
  double fricl_s, total_s;
  long newton_its, steps;
} sim;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const sim *s, fricl_status st, const char *what) {
  fprintf(stderr, "sliding_block: %s: %s: %s\n", what, fricl_status_string(st),
          fricl_context_last_error(s->ctx));
  return 1;
}

/* Add a plan's BSR values (scaled) into the dense matrix. */
static void add_bsr(const fricl_tangential_plan *p, const double *vals,
                    double scale, double *A) {
  size_t nb = 0;
  const int64_t *rp = NULL;
  const int32_t *cols = NULL;
  fricl_tangential_plan_bsr(p, NULL, &nb, &rp, &cols);
  for (int r = 0; r < NV; ++r)
    for (int64_t b = rp[r]; b < rp[r + 1]; ++b)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          A[(3 * r + i) * ND + 3 * cols[b] + j] +=
              scale * vals[b * 9 + i * 3 + j];
}

/* E, and with g its gradient and with A its Hessian, at x. */
static int energy(sim *s, const double *x, const double *xt, const double *xtil,
                  double *E, double *g, double *A) {
  double e = 0;
  if (g)
    memset(g, 0, sizeof(double) * ND);
  if (A)
    memset(A, 0, sizeof(double) * ND * ND);
  for (int i = 0; i < ND; ++i) {
    const double d = x[i] - xtil[i];
    e += 0.5 * MASS * d * d;
    if (g)
      g[i] += MASS * d;
    if (A)
      A[i * ND + i] += MASS;
    if (i % 3 == 0) { /* the push */
      e -= H * H * (s->push / NV) * x[i];
      if (g)
        g[i] -= H * H * (s->push / NV);
    }
  }
  for (int k = 0; k < NS; ++k) { /* springs, Hessian PSD-clamped */
    const int a = s->sp[k][0], b = s->sp[k][1];
    double d[3], l2 = 0;
    for (int r = 0; r < 3; ++r) {
      d[r] = x[3 * a + r] - x[3 * b + r];
      l2 += d[r] * d[r];
    }
    const double l = sqrt(l2), st = l - s->rest[k];
    e += H * H * 0.5 * KSPRING * st * st;
    if (g)
      for (int r = 0; r < 3; ++r) {
        g[3 * a + r] += H * H * KSPRING * st * d[r] / l;
        g[3 * b + r] -= H * H * KSPRING * st * d[r] / l;
      }
    if (A) {
      const double c = st > 0 ? st / l : 0;
      for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) {
          const double v =
              H * H * KSPRING * ((1 - c) * d[r] * d[q] / l2 + (r == q ? c : 0));
          A[(3 * a + r) * ND + 3 * a + q] += v;
          A[(3 * b + r) * ND + 3 * b + q] += v;
          A[(3 * a + r) * ND + 3 * b + q] -= v;
          A[(3 * b + r) * ND + 3 * a + q] -= v;
        }
    }
  }
  /* fricl: the barrier and the friction. */
  const double t0 = now_s();
  double bpot = 0, bgrad[ND], bhv[16 * 9 * 4];
  fricl_barrier_group bg;
  memset(&bg, 0, sizeof bg);
  bg.type = FRICL_STENCIL_PV;
  bg.count = 4;
  bg.vertices = s->ids;
  bg.plane_normal = s->pn;
  bg.plane_offset = s->pc;
  fricl_barrier_batch bb;
  fricl_barrier_batch_init(&bb);
  bb.psd = FRICL_PSD_CLAMP;
  bb.n_vertices = NV;
  bb.positions = x;
  bb.dhat = DHAT;
  bb.kappa = KAPPA;
  bb.n_groups = 1;
  bb.groups = &bg;
  bb.plan = s->bplan;
  bb.potential = &bpot;
  bb.gradient = g ? bgrad : NULL;
  bb.hessian_values = A ? bhv : NULL;
  fricl_status st = fricl_barrier_eval(s->ctx, &bb);
  if (st != FRICL_STATUS_OK)
    return fail(s, st, "barrier");
  double u[ND], tpot = 0, tgrad[ND], thv[16 * 9 * 4];
  for (int i = 0; i < ND; ++i)
    u[i] = x[i] - xt[i];
  fricl_contact_group tg;
  memset(&tg, 0, sizeof tg);
  tg.type = FRICL_STENCIL_PV;
  tg.count = 4;
  tg.vertices = s->ids;
  tg.tangent_basis = s->basis;
  tg.normal_force = s->normal;
  tg.mu_s = s->mus;
  tg.mu_k = s->muk;
  fricl_tangential_batch tb;
  fricl_tangential_batch_init(&tb);
  tb.mu_profile = s->profile;
  tb.psd = s->psd;
  tb.n_vertices = NV;
  tb.velocities = u; /* displacements, with eps_v h */
  tb.eps_v = EPS_V * H;
  tb.n_groups = 1;
  tb.groups = &tg;
  tb.plan = s->tplan;
  tb.potential = &tpot;
  tb.gradient = g ? tgrad : NULL;
  tb.hessian_values = A ? thv : NULL;
  st = fricl_tangential_eval(s->ctx, &tb);
  if (st != FRICL_STATUS_OK)
    return fail(s, st, "friction");
  s->fricl_s += now_s() - t0;

  e += H * H * (bpot + tpot);
  if (g)
    for (int i = 0; i < ND; ++i)
      g[i] += H * H * (bgrad[i] + tgrad[i]);
  if (A) {
    add_bsr(s->bplan, bhv, H * H, A);
    add_bsr(s->tplan, thv, H * H, A);
  }
  *E = e;
  return 0;
}

/* Solve A d = -g by Cholesky (A SPD). 0 on success. */
static int solve(double *A, const double *g, double *d) {
  for (int j = 0; j < ND; ++j) {
    double s = A[j * ND + j];
    for (int k = 0; k < j; ++k)
      s -= A[j * ND + k] * A[j * ND + k];
    if (!(s > 0))
      return 1;
    A[j * ND + j] = sqrt(s);
    for (int i = j + 1; i < ND; ++i) {
      double t = A[i * ND + j];
      for (int k = 0; k < j; ++k)
        t -= A[i * ND + k] * A[j * ND + k];
      A[i * ND + j] = t / A[j * ND + j];
    }
  }
  double y[ND];
  for (int i = 0; i < ND; ++i) {
    double t = -g[i];
    for (int k = 0; k < i; ++k)
      t -= A[i * ND + k] * y[k];
    y[i] = t / A[i * ND + i];
  }
  for (int i = ND - 1; i >= 0; --i) {
    double t = y[i];
    for (int k = i + 1; k < ND; ++k)
      t -= A[k * ND + i] * d[k];
    d[i] = t / A[i * ND + i];
  }
  return 0;
}

/* The lagged friction data at x^t (fricl_build). */
static int lagged(sim *s) {
  const double t0 = now_s();
  fricl_build_group bg;
  memset(&bg, 0, sizeof bg);
  bg.type = FRICL_STENCIL_PV;
  bg.count = 4;
  bg.vertices = s->ids;
  bg.plane_normal = s->pn;
  bg.plane_offset = s->pc;
  bg.tangent_basis = s->basis;
  bg.normal_force = s->normal;
  bg.mu_s_out = s->mus;
  bg.mu_k_out = s->muk;
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.n_vertices = NV;
  b.lagged_positions = s->x;
  b.kappa = KAPPA;
  b.dhat = DHAT;
  b.mu_s = MU_S;
  b.mu_k = MU_K;
  b.n_groups = 1;
  b.groups = &bg;
  const fricl_status st = fricl_build(s->ctx, &b);
  s->fricl_s += now_s() - t0;
  return st == FRICL_STATUS_OK ? 0 : fail(s, st, "lagged build");
}

static int step(sim *s) {
  const double t0 = now_s();
  double xt[ND], xtil[ND], g[ND], d[ND], xn[ND];
  static double A[ND * ND];
  memcpy(xt, s->x, sizeof xt);
  for (int i = 0; i < ND; ++i)
    xtil[i] = xt[i] + H * s->v[i] - (i % 3 == 2 ? H * H * GRAV : 0);
  if (lagged(s))
    return 1;
  for (int it = 0; it < 100; ++it) {
    double E, En;
    if (energy(s, s->x, xt, xtil, &E, g, A))
      return 1;
    if (solve(A, g, d)) {
      /* PSD none: the friction Hessian may be indefinite; shift by the
       * mass until the system is positive definite. */
      double shift = MASS;
      int ok = 0;
      for (int t = 0; t < 40 && !ok; ++t, shift *= 4) {
        if (energy(s, s->x, xt, xtil, &E, g, A))
          return 1;
        for (int i = 0; i < ND; ++i)
          A[i * ND + i] += shift;
        ok = !solve(A, g, d);
      }
      if (!ok) {
        fprintf(stderr, "sliding_block: no positive definite system\n");
        return 1;
      }
    }
    double dmax = 0, gd = 0;
    for (int i = 0; i < ND; ++i) {
      dmax = fmax(dmax, fabs(d[i]));
      gd += g[i] * d[i];
    }
    ++s->newton_its;
    if (dmax < 1e-11)
      break;
    /* The squared distance to the plane does not see a vertex pass
     * through it: the step stops 80 % of the way to the plane (the
     * plane-vertex form of IPC's continuous collision filter). */
    double alpha = 1;
    for (int i = 0; i < NV; ++i)
      if (d[3 * i + 2] < 0)
        alpha = fmin(alpha, -0.8 * s->x[3 * i + 2] / d[3 * i + 2]);
    for (int ls = 0; ls < 60; ++ls, alpha *= 0.5) {
      for (int i = 0; i < ND; ++i)
        xn[i] = s->x[i] + alpha * d[i];
      if (energy(s, xn, xt, xtil, &En, NULL, NULL))
        return 1;
      if (isfinite(En) && En <= E + 1e-4 * alpha * gd)
        break;
    }
    memcpy(s->x, xn, sizeof xn);
  }
  for (int i = 0; i < ND; ++i)
    s->v[i] = (s->x[i] - xt[i]) / H;
  ++s->steps;
  s->total_s += now_s() - t0;
  return 0;
}

static double com_vx(const sim *s) {
  double v = 0;
  for (int i = 0; i < NV; ++i)
    v += s->v[3 * i] / NV;
  return v;
}

static int setup(sim *s, const char *device) {
  memset(s, 0, sizeof *s);
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = device;
  fricl_status st = fricl_context_create(&s->ctx, &p);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "sliding_block: context: %s\n", fricl_status_string(st));
    return 1;
  }
  for (int i = 0; i < NV; ++i) {
    s->x[3 * i] = SIDE * (i & 1);
    s->x[3 * i + 1] = SIDE * ((i >> 1) & 1);
    s->x[3 * i + 2] = SIDE * ((i >> 2) & 1) + 0.5 * DHAT;
  }
  int k = 0;
  for (int a = 0; a < NV; ++a)
    for (int b = a + 1; b < NV; ++b, ++k) {
      s->sp[k][0] = a;
      s->sp[k][1] = b;
      double l2 = 0;
      for (int r = 0; r < 3; ++r)
        l2 += (s->x[3 * a + r] - s->x[3 * b + r]) *
              (s->x[3 * a + r] - s->x[3 * b + r]);
      s->rest[k] = sqrt(l2);
    }
  for (int c = 0; c < 4; ++c) {
    s->ids[c] = c;
    s->pn[3 * c + 2] = 1;
  }
  fricl_barrier_group bg;
  memset(&bg, 0, sizeof bg);
  bg.type = FRICL_STENCIL_PV;
  bg.count = 4;
  bg.vertices = s->ids;
  st = fricl_barrier_plan_create(s->ctx, 3, NV, 1, &bg, &s->bplan);
  fricl_contact_group tg;
  memset(&tg, 0, sizeof tg);
  tg.type = FRICL_STENCIL_PV;
  tg.count = 4;
  tg.vertices = s->ids;
  if (st == FRICL_STATUS_OK)
    st = fricl_tangential_plan_create(s->ctx, 3, NV, 1, &tg, &s->tplan);
  return st == FRICL_STATUS_OK ? 0 : fail(s, st, "plans");
}

static void teardown(sim *s) {
  fricl_tangential_plan_destroy(s->bplan);
  fricl_tangential_plan_destroy(s->tplan);
  fricl_context_destroy(s->ctx);
}

/* Run with push F; settle first without it. Returns 0 and the measured
 * acceleration (second half) and final speed. */
static int run(sim *s, double push, double *accel, double *speed) {
  s->push = 0;
  for (int i = 0; i < 10; ++i)
    if (step(s))
      return 1;
  for (int i = 0; i < ND; ++i)
    s->v[i] = 0;
  s->push = push;
  double vmid = 0;
  for (int i = 0; i < STEPS; ++i) {
    if (step(s))
      return 1;
    if (i == STEPS / 2 - 1)
      vmid = com_vx(s);
  }
  *accel = (com_vx(s) - vmid) / (H * (STEPS - STEPS / 2));

  *speed = fabs(com_vx(s));
  return 0;
}

int main(int argc, char **argv) {
  const char *csv = argc > 1 ? argv[1] : "sliding_block.csv";
  const char *device = argc > 2 ? argv[2] : "host";
  const double M = NV * MASS, N = M * GRAV;
  FILE *f = fopen(csv, "w");
  if (!f) {
    perror(csv);
    return 1;
  }
  fprintf(f, "profile,push_over_N,mu_eff,final_speed\n");
  int failures = 0;
  double fricl_s = 0, total_s = 0;
  const fricl_mu_profile profiles[2] = {FRICL_MU_CUBIC, FRICL_MU_IPCTK};
  for (int p = 0; p < 2; ++p) {
    const char *pname = p ? "ipctk" : "cubic";
    double breakaway = 0;
    for (int k = 1; k <= 60; ++k) {
      sim s;
      if (setup(&s, device))
        return 1;
      s.profile = profiles[p];
      s.psd = FRICL_PSD_CLAMP;
      const double F = 0.01 * k * N;
      double a, v;
      if (run(&s, F, &a, &v))
        return 1;
      if (v <= EPS_V)
        breakaway = F / N;
      fprintf(f, "%s,%.4f,%.6f,%.6g\n", pname, F / N, (F - M * a) / N, v);
      fricl_s += s.fricl_s;
      total_s += s.total_s;
      teardown(&s);
    }
    printf("%s: breakaway at F / N = %.2f (mu_s %.2f, mu_k %.2f; the static "
           "peak is max mu(y) f1(y) over y < eps_v)\n",
           pname, breakaway, MU_S, MU_K);
    /* The two checks. */
    sim s;
    double a, v;
    if (setup(&s, device))
      return 1;
    s.profile = profiles[p];
    s.psd = FRICL_PSD_CLAMP;
    if (run(&s, 0.5 * MU_K * N, &a, &v))
      return 1;
    const int creep_ok = v <= EPS_V;
    printf("%s: F = 0.5 mu_k N: speed %.3g m/s (eps_v %g): %s\n", pname, v,
           EPS_V, creep_ok ? "static (ok)" : "FAIL");
    teardown(&s);
    if (setup(&s, device))
      return 1;
    s.profile = profiles[p];
    s.psd = FRICL_PSD_CLAMP;
    const double F = 1.5 * MU_S * N, want = (F - MU_K * N) / M;
    if (run(&s, F, &a, &v))
      return 1;
    const int slide_ok = fabs(a - want) <= 0.02 * want;
    printf("%s: F = 1.5 mu_s N: acceleration %.4f m/s^2, (F - mu_k N)/M = "
           "%.4f: %s\n",
           pname, a, want, slide_ok ? "ok" : "FAIL");
    teardown(&s);
    failures += !creep_ok + !slide_ok;
  }
  fclose(f);
  /* Newton iterations per step, friction Hessian PSD clamp against none. */
  for (int q = 0; q < 2; ++q) {
    sim s;
    double a, v;
    if (setup(&s, device))
      return 1;
    s.profile = FRICL_MU_CUBIC;
    s.psd = q ? FRICL_PSD_NONE : FRICL_PSD_CLAMP;
    if (run(&s, 1.5 * MU_S * N, &a, &v))
      return 1;
    printf("friction PSD %s: %.2f Newton iterations per step\n",
           q ? "none" : "clamp", (double)s.newton_its / (double)s.steps);
    teardown(&s);
  }
  printf("fricl's share of the step time: %.1f %% (%.3f of %.3f s)\n",
         100 * fricl_s / total_s, fricl_s, total_s);
  printf("wrote %s\n", csv);
  printf("Coulomb checks: %s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
