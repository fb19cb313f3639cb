/* bench_barrier.c - see bench_barrier.h. Every contact has its own
 * vertices, placed at a random distance inside the barrier's range (the
 * EE pairs crossing, the FV points over the face), so every row evaluates
 * active contacts. The local Hessian rows write into a reused buffer of
 * BB_CHUNK contacts (10^6 dense 12x12 Hessians would not fit in memory);
 * the global row assembles gradient and BSR Hessian (PSD clamp) through a
 * plan made once. Time: the fastest of the repeats, each at least 0.1 s. */
#define _POSIX_C_SOURCE 200809L
#include "bench_barrier.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fricl/fricl_barrier.h"
#include "fricl/fricl_force.h"

#define BB_CHUNK 65536

static double bb_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t bb_state = 0x2545f4914f6cdd1dull;
static double bb_u(void) {
  bb_state ^= bb_state << 13;
  bb_state ^= bb_state >> 7;
  bb_state ^= bb_state << 17;
  return (double)(bb_state >> 11) / 9007199254740992.0;
}

/* Positions (n k vertices) of n contacts of `type`, gap below dhat. */
static void bb_scene(fricl_stencil type, int dim, size_t n, double dhat,
                     double *x, double *pn, double *pc) {
  const int k = fricl_stencil_vertex_count(type);
  for (size_t c = 0; c < n; ++c) {
    double *p = x + c * (size_t)(k * dim);
    const double gap = dhat * (0.2 + 0.6 * bb_u());
    for (int i = 0; i < k * dim; ++i)
      p[i] = bb_u();
    double dir[3] = {0, 0, 0};
    dir[dim - 1] = gap;
    if (type == FRICL_STENCIL_VV || type == FRICL_STENCIL_EV) {
      for (int s = 0; s < dim; ++s)
        p[s] =
            (type == FRICL_STENCIL_VV ? p[dim + s]
                                      : 0.5 * (p[dim + s] + p[2 * dim + s])) +
            dir[s];
    } else if (type == FRICL_STENCIL_EE) {
      for (int s = 0; s < 3; ++s) {
        const double m = 0.5 * (p[s] + p[3 + s]);
        p[6 + s] = m + dir[s] + (s == 0 ? 0.3 : -0.2);
        p[9 + s] = m + dir[s] - (s == 0 ? 0.3 : -0.2);
      }
    } else if (type == FRICL_STENCIL_FV) {
      p[5] = p[8] = p[11] = 0;
      for (int s = 0; s < 3; ++s)
        p[s] = (p[3 + s] + p[6 + s] + p[9 + s]) / 3 + dir[s];
    } else {
      for (int s = 0; s < dim; ++s)
        pn[c * (size_t)dim + (size_t)s] = s == dim - 1 ? 1.0 : 0.0;
      pc[c] = -(p[dim - 1] - gap);
    }
  }
}

typedef struct bb_row {
  const char *what;
  int want;      /* 0 value, 1 + gradient, 2 + local Hessian, 3 global;
                    friction force (global): 4 force, 5 + Jacobian wrt
                    lagged displacements, 6 + Jacobian wrt velocities */
  fricl_psd psd; /* for want >= 2 */
} bb_row;

static void *bb_convert(const double *a, size_t n, fricl_precision p) {
  if (p == FRICL_F64)
    return (void *)a;
  float *f = malloc(n * sizeof *f + 1);
  for (size_t i = 0; f && i < n; ++i)
    f[i] = (float)a[i];
  return f;
}

/* The friction force's rows (want 4..6) on the same contacts: the
 * positions are the lagged displacements (no rest positions) and, scaled
 * by eps_v = 1, the velocities; mu_s = mu_k = mu (one array). */
static int bb_force(fricl_context *ctx, fricl_stencil type, int dim, size_t n,
                    fricl_precision prec, const void *x, const int32_t *ids,
                    const void *pn, const void *pc, const bb_row *r,
                    const void *mu, void *force, void *jv,
                    const fricl_tangential_plan *plan) {
  const int k = fricl_stencil_vertex_count(type);
  fricl_force_group G;
  memset(&G, 0, sizeof G);
  G.type = type;
  G.count = n;
  G.vertices = ids;
  G.mu_s = mu;
  G.mu_k = mu;
  if (type == FRICL_STENCIL_PV) {
    G.plane_normal = pn;
    G.plane_offset = pc;
  }
  fricl_force_batch b;
  fricl_force_batch_init(&b);
  b.precision = prec;
  b.dim = dim;
  b.mu_profile = FRICL_MU_IPCTK;
  b.n_vertices = n * (size_t)k;
  b.lagged_displacements = x;
  b.velocities = x;
  b.eps_v = 1.0;
  b.dhat = 0.01;
  b.kappa = 100;
  b.n_groups = 1;
  b.groups = &G;
  b.force = force;
  if (r->want > 4) {
    b.wrt = r->want == 5 ? FRICL_FORCE_WRT_LAGGED_DISPLACEMENTS
                         : FRICL_FORCE_WRT_VELOCITIES;
    b.plan = plan;
    b.jacobian_values = jv;
  }
  const fricl_status st = fricl_force_eval(ctx, &b);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench: force: %s: %s\n", fricl_status_string(st),
            fricl_context_last_error(ctx));
    return 1;
  }
  return 0;
}

/* One row: evaluate all n contacts once (in chunks for local outputs). */
static int bb_eval(fricl_context *ctx, fricl_stencil type, int dim, size_t n,
                   fricl_precision prec, const void *x, const int32_t *ids,
                   const void *pn, const void *pc, const bb_row *r, void *local,
                   void *grad, void *hv, const fricl_tangential_plan *plan,
                   const void *mu) {
  const int k = fricl_stencil_vertex_count(type);
  if (r->want >= 4)
    return bb_force(ctx, type, dim, n, prec, x, ids, pn, pc, r, mu, grad, hv,
                    plan);
  double pot64;
  float pot32;
  const size_t step = r->want == 3 ? n : BB_CHUNK;
  const size_t esz = prec == FRICL_F64 ? 8 : 4;
  for (size_t lo = 0; lo < n; lo += step) {
    const size_t m = n - lo < step ? n - lo : step;
    fricl_barrier_group G;
    memset(&G, 0, sizeof G);
    G.type = type;
    G.count = m;
    G.vertices = ids + lo * (size_t)k;
    if (type == FRICL_STENCIL_PV) {
      G.plane_normal = (const char *)pn + lo * (size_t)dim * esz;
      G.plane_offset = (const char *)pc + lo * esz;
    }
    if (r->want < 3)
      G.potential = local;
    if (r->want == 1)
      G.local_gradient = (char *)local + BB_CHUNK * esz;
    if (r->want == 2)
      G.local_hessian = (char *)local + BB_CHUNK * esz;
    fricl_barrier_batch b;
    fricl_barrier_batch_init(&b);
    b.precision = prec;
    b.psd = r->psd;
    b.dim = dim;
    b.n_vertices = n * (size_t)k;
    b.positions = x;
    b.dhat = 0.01;
    b.kappa = 100;
    b.n_groups = 1;
    b.groups = &G;
    if (r->want == 3) {
      b.potential = prec == FRICL_F64 ? (void *)&pot64 : (void *)&pot32;
      b.gradient = grad;
      b.hessian_values = hv;
      b.plan = plan;
    }
    const fricl_status st = fricl_barrier_eval(ctx, &b);
    if (st != FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench: barrier: %s: %s\n", fricl_status_string(st),
              fricl_context_last_error(ctx));
      return 1;
    }
  }
  return 0;
}

int bench_barrier_run(const bench_options *o, fricl_context *ctx,
                      size_t contacts) {
  static const bb_row rows[] = {{"value", 0, FRICL_PSD_NONE},
                                {"+gradient", 1, FRICL_PSD_NONE},
                                {"+local H none", 2, FRICL_PSD_NONE},
                                {"+local H clamp", 2, FRICL_PSD_CLAMP},
                                {"+local H abs", 2, FRICL_PSD_ABS},
                                {"+global (clamp)", 3, FRICL_PSD_CLAMP},
                                {"force", 4, FRICL_PSD_NONE},
                                {"force+J(u)", 5, FRICL_PSD_NONE},
                                {"force+J(v)", 6, FRICL_PSD_NONE}};
  static const struct {
    fricl_stencil type;
    int dim;
  } st[] = {{FRICL_STENCIL_VV, 3}, {FRICL_STENCIL_EV, 3}, {FRICL_STENCIL_EE, 3},
            {FRICL_STENCIL_FV, 3}, {FRICL_STENCIL_PV, 3}, {FRICL_STENCIL_VV, 2},
            {FRICL_STENCIL_EV, 2}, {FRICL_STENCIL_PV, 2}};
  const size_t n = contacts ? contacts : 1000000;
  const int repeats = o->quick ? 1 : (o->repeats > 0 ? o->repeats : 3);
  printf("\nBarrier (fricl_barrier_eval) and friction force with its "
         "Jacobians (fricl_force_eval), %s: %zu contacts per row, "
         "contacts/s (best of %d)\n",
         fricl_context_device_name(ctx), n, repeats);
  printf("%-8s %-4s", "stencil", "prec");
  for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r)
    printf(" %16s", rows[r].what);
  printf("\n");
  int rc = 0;
  for (size_t si = 0; si < sizeof st / sizeof st[0] && !rc; ++si) {
    const int dim = st[si].dim, k = fricl_stencil_vertex_count(st[si].type);
    const size_t nd = (size_t)(k * dim), nv = n * (size_t)k;
    double *x = malloc(nv * (size_t)dim * sizeof *x);
    double *pn = malloc(n * (size_t)dim * sizeof *pn + 8);
    double *pc = malloc(n * sizeof *pc + 8);
    int32_t *ids = malloc(nv * sizeof *ids);
    double *local = malloc(BB_CHUNK * (1 + nd * nd) * sizeof(double));
    double *grad = malloc(nv * (size_t)dim * sizeof(double));
    double *mu = malloc(n * sizeof *mu + 8);
    for (size_t i = 0; mu && i < n; ++i)
      mu[i] = 0.2 + 0.4 * (double)(i % 7) / 6;
    if (!x || !pn || !pc || !ids || !local || !grad || !mu) {
      fprintf(stderr, "fricl bench: barrier: out of memory\n");
      rc = 1;
    }
    if (!rc) {
      bb_scene(st[si].type, dim, n, 0.01, x, pn, pc);
      for (size_t i = 0; i < nv; ++i)
        ids[i] = (int32_t)i;
    }
    for (int p = 0; p < 2 && !rc; ++p) {
      const fricl_precision prec = p ? FRICL_F32 : FRICL_F64;
      void *xs = bb_convert(x, nv * (size_t)dim, prec);
      void *pns = bb_convert(pn, n * (size_t)dim, prec);
      void *pcs = bb_convert(pc, n, prec);
      void *mus = bb_convert(mu, n, prec);
      fricl_barrier_group G;
      memset(&G, 0, sizeof G);
      G.type = st[si].type;
      G.count = n;
      G.vertices = ids;
      fricl_tangential_plan *plan = NULL;
      size_t nb = 0;
      void *hv = NULL;
      if (fricl_barrier_plan_create(ctx, dim, nv, 1, &G, &plan) ==
          FRICL_STATUS_OK) {
        fricl_tangential_plan_bsr(plan, NULL, &nb, NULL, NULL);
        hv = malloc(nb * (size_t)(dim * dim) * sizeof(double) + 8);
      }
      if (!xs || !pns || !pcs || !mus || !plan || !hv) {
        fprintf(stderr, "fricl bench: barrier: setup failed\n");
        rc = 1;
      }
      char label[16];
      snprintf(label, sizeof label, "%s%s", fricl_stencil_name(st[si].type),
               dim == 2 ? " 2d" : "");
      printf("%-8s %-4s", label, p ? "f32" : "f64");
      for (size_t r = 0; r < sizeof rows / sizeof rows[0] && !rc; ++r) {
        double best = 1e300;
        for (int rep = 0; rep < repeats && !rc; ++rep) {
          const double t0 = bb_now();
          rc = bb_eval(ctx, st[si].type, dim, n, prec, xs, ids, pns, pcs,
                       &rows[r], local, grad, hv, plan, mus);
          const double t = bb_now() - t0;
          best = t < best ? t : best;
        }
        printf(" %16.3g", (double)n / best);
        fflush(stdout);
      }
      printf("\n");
      fricl_tangential_plan_destroy(plan);
      free(hv);
      if (xs != (void *)x)
        free(xs);
      if (pns != (void *)pn)
        free(pns);
      if (pcs != (void *)pc)
        free(pcs);
      if (mus != (void *)mu)
        free(mus);
    }
    free(x);
    free(pn);
    free(pc);
    free(ids);
    free(local);
    free(grad);
    free(mu);
  }
  return rc;
}

int bench_barrier_global(fricl_context *ctx, fricl_stencil type, size_t n,
                         int repeats, double *seconds) {
  static const bb_row row = {"+global (clamp)", 3, FRICL_PSD_CLAMP};
  const int dim = 3, k = fricl_stencil_vertex_count(type);
  const size_t nv = n * (size_t)k;
  double *x = malloc(nv * (size_t)dim * sizeof *x);
  double *pn = malloc(n * (size_t)dim * sizeof *pn + 8);
  double *pc = malloc(n * sizeof *pc + 8);
  int32_t *ids = malloc(nv * sizeof *ids);
  double *grad = malloc(nv * (size_t)dim * sizeof(double));
  fricl_tangential_plan *plan = NULL;
  void *hv = NULL;
  int rc = !x || !pn || !pc || !ids || !grad;
  if (!rc) {
    bb_scene(type, dim, n, 0.01, x, pn, pc);
    for (size_t i = 0; i < nv; ++i)
      ids[i] = (int32_t)i;
    fricl_barrier_group G;
    memset(&G, 0, sizeof G);
    G.type = type;
    G.count = n;
    G.vertices = ids;
    size_t nb = 0;
    rc = fricl_barrier_plan_create(ctx, dim, nv, 1, &G, &plan) !=
         FRICL_STATUS_OK;
    if (!rc) {
      fricl_tangential_plan_bsr(plan, NULL, &nb, NULL, NULL);
      hv = malloc(nb * (size_t)(dim * dim) * sizeof(double) + 8);
      rc = !hv;
    }
  }
  if (rc)
    fprintf(stderr, "fricl bench: barrier: setup failed\n");
  double best = 1e300;
  for (int rep = 0; rep < repeats && !rc; ++rep) {
    const double t0 = bb_now();
    rc = bb_eval(ctx, type, dim, n, FRICL_F64, x, ids, pn, pc, &row, NULL, grad,
                 hv, plan, NULL);
    const double t = bb_now() - t0;
    best = t < best ? t : best;
  }
  *seconds = best;
  fricl_tangential_plan_destroy(plan);
  free(hv);
  free(x);
  free(pn);
  free(pc);
  free(ids);
  free(grad);
  return rc;
}
