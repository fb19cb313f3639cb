/*
 * test_barrier_fd.c - the barrier's derivatives against finite
 * differences on every stencil (3-D: vv ev ee fv pv; 2-D: vv ev pv), with
 * dmin, the physical barrier and mollified (nearly and exactly parallel)
 * edges: the
 * gradient against central differences of B, the Hessian against central
 * differences of the gradient; and the PSD projections: clamp and abs have
 * no eigenvalue below -1e-12 of the scale (an independent Cholesky test),
 * clamp - none is PSD and abs = 2 clamp - none.
 */
#include "test_util.h"

#include "barrier_eval1.h"
#include "barrier_scene.h"

/* H + tau I has a Cholesky factor (n <= 12). */
static int cholesky_ok(int n, const double *H, double tau) {
  double L[144];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      double s = H[i * n + j] + (i == j ? tau : 0);
      for (int q = 0; q < j; ++q)
        s -= L[i * n + q] * L[j * n + q];
      if (i == j) {
        if (!(s > 0))
          return 0;
        L[i * n + i] = sqrt(s);
      } else {
        L[i * n + j] = s / L[j * n + j];
      }
    }
  return 1;
}

static double max_abs(const double *a, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i)
    m = fmax(m, fabs(a[i]));
  return m;
}

static int run_case(fricl_context *ctx, int type, int dim, int parallel,
                    const be_params *p, int *checked) {
  const int k = fricl_stencil_vertex_count((fricl_stencil)type);
  const int n = k * dim;
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
  const double gs = max_abs(g, n), hs = max_abs(H, n * n);
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
        "%s %dD parallel=%d physical=%d dmin=%g: gradient error %.3g (scale "
        "%.3g), Hessian error %.3g (scale %.3g)",
        fricl_stencil_name((fricl_stencil)type), dim, parallel, p->physical,
        p->dmin, gerr, gs, herr, hs);
  /* Symmetry, PSD projections. */
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      CHECK(H[i * n + j] == H[j * n + i], "Hessian not symmetric");
  double Hc[144], Ha[144], Bc, Ba, gc[12], ga[12];
  be_eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_CLAMP, &Bc, gc, Hc);
  be_eval1(ctx, type, dim, x, xr, pn, pc, p, FRICL_PSD_ABS, &Ba, ga, Ha);
  const double tau = 1e-12 * hs + 1e-300;
  CHECK(cholesky_ok(n, Hc, tau), "%s %dD: clamp not PSD",
        fricl_stencil_name((fricl_stencil)type), dim);
  CHECK(cholesky_ok(n, Ha, tau), "%s %dD: abs not PSD",
        fricl_stencil_name((fricl_stencil)type), dim);
  double D[144];
  for (int i = 0; i < n * n; ++i)
    D[i] = Hc[i] - H[i];
  CHECK(cholesky_ok(n, D, tau), "%s %dD: clamp - none not PSD",
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

int main(void) {
  fricl_context *ctx = test_context("reference", 0, 0);
  if (!ctx)
    return 1;
  static const struct {
    int type, dim;
  } st[] = {{0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3}, {0, 2}, {1, 2}, {4, 2}};
  for (size_t s = 0; s < sizeof st / sizeof st[0]; ++s)
    for (int variant = 0; variant < 4; ++variant) {
      be_params p = {0.3, 7.5, 0.0, 1.25, 0};
      if (variant & 1)
        p.dmin = 0.05;
      if (variant & 2)
        p.physical = 1;
      for (int parallel = 0; parallel <= 2 * (st[s].type == 2); ++parallel) {
        int checked = 0;
        for (int trial = 0; trial < 400 && checked < 40; ++trial)
          run_case(ctx, st[s].type, st[s].dim, parallel, &p, &checked);
        CHECK(checked >= 20, "%s %dD variant %d parallel %d: only %d active",
              fricl_stencil_name((fricl_stencil)st[s].type), st[s].dim, variant,
              parallel, checked);
      }
    }
  fricl_context_destroy(ctx);
  return test_report("test_barrier_fd");
}
