/*
 * test_thread_counts.c - the host pool's dynamic pieces never change a
 * result: on a random multi-stencil 3-D scene large enough for many pieces
 * per thread (an obstacle's few vertices shared by most contacts, as a
 * cloth over a box), the barrier (value, gradient, BSR Hessian) and the
 * friction force (force alone without and with a plan, in rows and in
 * columns; force and Jacobians with respect to lagged displacements and
 * velocities, BSR) on the host backend with 1, 2, 3, 5 and 8 threads (more
 * threads than cores: workers are descheduled mid-piece), with fricl's
 * grains and with every loop split from one item on, each run three times,
 * are bitwise equal to the single-thread reference backend; on every
 * OpenCL device, the force from columns equals the device's from rows.
 */
#include "test_util.h"

#include "barrier_scene.h"
#include "fricl/fricl_barrier.h"
#include "fricl/fricl_force.h"

#define NV 3000
#define NC 2500 /* contacts per group */
#define NG 5
#define HUB 4 /* obstacle vertices NV - HUB .. NV - 1 */

typedef struct scene {
  double x[NV * 3], xc[NV * 3], rest[NV * 3], restc[NV * 3];
  double vel[NV * 3], velc[NV * 3];
  int32_t ids[NG][NC * 4];
  double w[NG][NC], ms[NG][NC], mk[NG][NC], pn[NC * 3], pc[NC];
  fricl_stencil types[NG];
} scene;

static scene S;

static void make_scene(void) {
  const fricl_stencil t[NG] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                               FRICL_STENCIL_PV};
  for (int i = 0; i < NV * 3; ++i) {
    S.x[i] = bs_range(0, 1);
    S.rest[i] = S.x[i] + bs_range(-0.01, 0.01);
    S.vel[i] = bs_range(-0.02, 0.02);
  }
  /* columns: coordinate after coordinate */
  for (int v = 0; v < NV; ++v)
    for (int s = 0; s < 3; ++s) {
      S.xc[s * NV + v] = S.x[v * 3 + s];
      S.restc[s * NV + v] = S.rest[v * 3 + s];
      S.velc[s * NV + v] = S.vel[v * 3 + s];
    }
  for (int g = 0; g < NG; ++g) {
    S.types[g] = t[g];
    const int k = fricl_stencil_vertex_count(t[g]);
    for (int c = 0; c < NC; ++c) {
      /* the first vertex walks the cloth; the others are the obstacle's
       * (FV: its face) or the cloth's neighbours */
      const int32_t base = (int32_t)((c * 7 + g * 131) % (NV - HUB - 8));
      for (int i = 0; i < k; ++i)
        S.ids[g][c * k + i] = t[g] == FRICL_STENCIL_FV && i > 0
                                  ? (int32_t)(NV - HUB + (c + i) % HUB)
                                  : base + i;
      S.w[g][c] = bs_range(0.5, 2.0);
      S.ms[g][c] = bs_range(0.2, 0.6);
      S.mk[g][c] = bs_range(0.1, 0.5);
    }
  }
  for (int c = 0; c < NC; ++c) {
    for (int r = 0; r < 3; ++r)
      S.pn[c * 3 + r] = bs_range(-1, 1);
    S.pc[c] = bs_range(-0.5, 0.5);
  }
}

static fricl_context *context(const char *spec, unsigned threads,
                              size_t grain) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  p.threads = threads;
  fricl_context *ctx = NULL;
  if (fricl_context_create(&ctx, &p) != FRICL_STATUS_OK) {
    ++test_failures;
    fprintf(stderr, "cannot create a %s context\n", spec);
    return NULL;
  }
  ctx->host_grain = grain;
  return ctx;
}

static fricl_tangential_plan *make_plan(fricl_context *ctx, size_t *nnz) {
  fricl_contact_group cg[NG];
  memset(cg, 0, sizeof cg);
  for (int g = 0; g < NG; ++g) {
    cg[g].type = S.types[g];
    cg[g].count = NC;
    cg[g].vertices = S.ids[g];
  }
  fricl_tangential_plan *plan = NULL;
  CHECK(fricl_tangential_plan_create(ctx, 3, NV, NG, cg, &plan) ==
            FRICL_STATUS_OK,
        "plan: %s", fricl_context_last_error(ctx));
  const int64_t *rp;
  const int32_t *bc;
  if (plan)
    fricl_tangential_plan_bsr(plan, NULL, nnz, &rp, &bc);
  return plan;
}

/* Everything one context computes, concatenated. */
typedef struct results {
  double *all;
  size_t n;
} results;

static void put(results *r, const double *a, size_t n) {
  memcpy(r->all + r->n, a, n * sizeof *a);
  r->n += n;
}

/* The scene's force groups in fg (NG of them) and a batch over them
 * writing the global force to `force`, vertices in rows. */
static fricl_force_batch force_batch(fricl_force_group *fg, double *force) {
  memset(fg, 0, NG * sizeof *fg);
  for (int g = 0; g < NG; ++g) {
    fg[g].type = S.types[g];
    fg[g].count = NC;
    fg[g].vertices = S.ids[g];
    fg[g].weight = S.w[g];
    fg[g].mu_s = S.ms[g];
    fg[g].mu_k = S.mk[g];
    if (S.types[g] == FRICL_STENCIL_PV) {
      fg[g].plane_normal = S.pn;
      fg[g].plane_offset = S.pc;
    }
  }
  fricl_force_batch fb;
  fricl_force_batch_init(&fb);
  fb.n_vertices = NV;
  fb.rest_positions = S.rest;
  fb.lagged_displacements = S.x;
  fb.velocities = S.vel;
  fb.eps_v = 1e-2;
  fb.kappa = 3.0;
  fb.dhat = 0.2;
  fb.n_groups = NG;
  fb.groups = fg;
  fb.force = force;
  return fb;
}

/* The same batch reading the scene's column-major copies. */
static void columns(fricl_force_batch *b) {
  b->vertex_layout = FRICL_VERTEX_COLUMNS;
  b->rest_positions = S.restc;
  b->lagged_displacements = S.xc;
  b->velocities = S.velc;
}

static void run(fricl_context *ctx, results *r) {
  size_t nnz = 0;
  fricl_tangential_plan *plan = make_plan(ctx, &nnz);
  if (!plan)
    return;
  double *hv = calloc(nnz * 9, sizeof *hv);
  double *jv = calloc(nnz * 9, sizeof *jv);
  double *f = calloc(NV * 3, sizeof *f), pot = 0;
  /* the barrier: value, gradient, Hessian */
  fricl_barrier_group bg[NG];
  memset(bg, 0, sizeof bg);
  for (int g = 0; g < NG; ++g) {
    bg[g].type = S.types[g];
    bg[g].count = NC;
    bg[g].vertices = S.ids[g];
    bg[g].weight = S.w[g];
    if (S.types[g] == FRICL_STENCIL_PV) {
      bg[g].plane_normal = S.pn;
      bg[g].plane_offset = S.pc;
    }
  }
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.n_vertices = NV;
  b.positions = S.x;
  b.dhat = 0.2;
  b.kappa = 3.0;
  b.n_groups = NG;
  b.groups = bg;
  b.potential = &pot;
  b.gradient = f;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_OK, "barrier: %s",
        fricl_context_last_error(ctx));
  put(r, &pot, 1);
  put(r, f, NV * 3);
  b.potential = NULL;
  b.gradient = NULL;
  b.plan = plan;
  b.hessian_values = hv;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_OK, "barrier H: %s",
        fricl_context_last_error(ctx));
  put(r, hv, nnz * 9);
  /* the force */
  fricl_force_group fg[NG];
  fricl_force_batch fb = force_batch(fg, f);
  for (int layout = 0; layout < 2; ++layout)
    for (int with_plan = 0; with_plan < 2; ++with_plan) {
      fricl_force_batch c = fb;
      if (layout)
        columns(&c);
      c.plan = with_plan ? plan : NULL;
      CHECK(fricl_force_eval(ctx, &c) == FRICL_STATUS_OK, "force: %s",
            fricl_context_last_error(ctx));
      put(r, f, NV * 3);
    }
  for (int wrt = 2; wrt <= 3; ++wrt) {
    fricl_force_batch c = fb;
    c.wrt = (fricl_force_wrt)wrt;
    c.plan = plan;
    c.jacobian_values = jv;
    CHECK(fricl_force_eval(ctx, &c) == FRICL_STATUS_OK, "Jacobian: %s",
          fricl_context_last_error(ctx));
    put(r, f, NV * 3);
    put(r, jv, nnz * 9);
  }
  free(hv);
  free(jv);
  free(f);
  fricl_tangential_plan_destroy(plan);
}

int main(void) {
  make_scene();
  /* pot + 6 force-sized + 4 nnz-sized outputs; nnz <= NG NC 16 */
  const size_t cap = 1 + 6 * NV * 3 + 4 * (size_t)NG * NC * 16 * 9;
  results ref = {calloc(cap, sizeof(double)), 0};
  fricl_context *rc = context("reference", 1, 0);
  if (!rc)
    return 1;
  run(rc, &ref);
  fricl_context_destroy(rc);
  size_t nonzero = 0;
  for (size_t i = 0; i < ref.n; ++i)
    nonzero += ref.all[i] != 0.0;
  CHECK(ref.n > NV * 3 * 6 && nonzero > ref.n / 10,
        "reference: %zu values, %zu nonzero", ref.n, nonzero);
  printf("test_thread_counts: %zu values, %zu nonzero\n", ref.n, nonzero);
  const unsigned threads[] = {1, 2, 3, 5, 8};
  const size_t grains[] = {0, 1};
  int runs = 0;
  for (size_t t = 0; t < sizeof threads / sizeof threads[0]; ++t)
    for (size_t gi = 0; gi < 2; ++gi) {
      fricl_context *ctx = context("host", threads[t], grains[gi]);
      if (!ctx)
        continue;
      for (int rep = 0; rep < 3; ++rep) {
        results r = {calloc(cap, sizeof(double)), 0};
        run(ctx, &r);
        size_t bad = r.n == ref.n ? 0 : 1, first = SIZE_MAX;
        for (size_t i = 0; !bad && i < r.n; ++i)
          if (memcmp(&r.all[i], &ref.all[i], sizeof(double)) != 0) {
            first = first == SIZE_MAX ? i : first;
            ++bad;
          }
        CHECK(bad == 0,
              "host, %u threads, grain %zu, run %d: %zu values differ from "
              "the reference (first at %zu of %zu)",
              threads[t], grains[gi], rep, bad, first, r.n);
        free(r.all);
        ++runs;
      }
      fricl_context_destroy(ctx);
    }
  free(ref.all);
  /* OpenCL devices read rows: columns are copied into rows first, so the
   * force from columns equals the device's own from rows, bitwise. */
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    if (strncmp(be[i].spec, "opencl", 6) != 0)
      continue;
    fricl_context *dev = test_context(be[i].spec, 0, 0);
    if (!dev)
      continue;
    fricl_force_group fg[NG];
    static double fr[NV * 3], fc[NV * 3];
    fricl_force_batch fb = force_batch(fg, fr);
    fricl_status st = fricl_force_eval(dev, &fb);
    columns(&fb);
    fb.force = fc;
    if (st == FRICL_STATUS_OK)
      st = fricl_force_eval(dev, &fb);
    CHECK(st == FRICL_STATUS_OK, "%s: %s", be[i].label,
          fricl_context_last_error(dev));
    CHECK(memcmp(fr, fc, sizeof fr) == 0,
          "%s: the force from columns differs from rows", be[i].label);
    printf("test_thread_counts: %s: columns equal rows\n", be[i].label);
    fricl_context_destroy(dev);
  }
  printf("test_thread_counts: %d host runs (1-8 threads, two grains) against "
         "the reference\n",
         runs);
  return test_report("test_thread_counts");
}
