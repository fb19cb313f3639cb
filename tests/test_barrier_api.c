/*
 * test_barrier_api.c - the barrier's public API beyond the per-contact
 * derivatives (test_barrier_fd.c): a random multi-stencil scene assembled
 * through a plan on every host backend (reference, host, host split on
 * three threads) must agree bitwise, every OpenCL device to 1e-10; the
 * global gradient, BSR Hessian and
 * H p must equal the local outputs summed by hand; f32 stays close to f64;
 * bad arguments fail before any work with a message naming the argument
 * (and the first bad contact); NaN positions propagate only to the
 * contacts that read them; zero contacts give zeros. The agreement runs
 * in both distance modes; FRICL_BARRIER_FLAG_AS_CLASSIFIED changes the
 * scene's EV and FV contacts and leaves VV, EE and PV bit for bit.
 */
#include "test_util.h"

#include "barrier_scene.h"
#include "fricl/fricl_barrier.h"

#define NV 400
#define NC 300 /* contacts per group */

typedef struct scene {
  int dim;
  double x[NV * 3];
  int32_t ids[5][NC * 4];
  double w[5][NC], pn[NC * 3], pc[NC];
  size_t ng;
  fricl_stencil types[5];
} scene;

static void make_scene(scene *s, int dim) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  for (int i = 0; i < NV * dim; ++i)
    s->x[i] = bs_range(0, 1);
  const fricl_stencil t3[5] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                               FRICL_STENCIL_PV};
  const fricl_stencil t2[3] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_PV};
  s->ng = dim == 3 ? 5 : 3;
  for (size_t g = 0; g < s->ng; ++g) {
    s->types[g] = dim == 3 ? t3[g] : t2[g];
    const int k = fricl_stencil_vertex_count(s->types[g]);
    for (int c = 0; c < NC; ++c) {
      /* distinct vertices per contact */
      int32_t base = (int32_t)(bs_uniform() * (NV - 4));
      for (int i = 0; i < k; ++i)
        s->ids[g][c * k + i] = base + i;
      s->w[g][c] = bs_range(-0.5, 2.0);
    }
  }
  for (int c = 0; c < NC; ++c) {
    for (int r = 0; r < dim; ++r)
      s->pn[c * dim + r] = bs_range(-1, 1);
    s->pc[c] = bs_range(-0.5, 0.5);
  }
}

typedef struct outputs {
  double pot, grad[NV * 3], prod[NV * 3], dir[NV * 3];
  double *hv;
  double cpot[5][NC];
  double *lg[5], *lh[5];
} outputs;

static fricl_status eval(fricl_context *ctx, const scene *s,
                         const fricl_tangential_plan *plan, fricl_psd psd,
                         outputs *o, const double *x, uint32_t flags) {
  fricl_barrier_group G[5];
  memset(G, 0, sizeof G);
  for (size_t g = 0; g < s->ng; ++g) {
    G[g].type = s->types[g];
    G[g].count = NC;
    G[g].vertices = s->ids[g];
    G[g].weight = s->w[g];
    if (s->types[g] == FRICL_STENCIL_PV) {
      G[g].plane_normal = s->pn;
      G[g].plane_offset = s->pc;
    }
    G[g].potential = o->cpot[g];
    G[g].local_gradient = o->lg[g];
    G[g].local_hessian = o->lh[g];
  }
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.dim = s->dim;
  b.psd = psd;
  b.flags = flags;
  b.n_vertices = NV;
  b.positions = x ? x : s->x;
  b.dhat = 0.15;
  b.kappa = 3.0;
  b.dmin = 0.0; /* finite B everywhere (dmin: test_barrier_fd) */
  b.n_groups = s->ng;
  b.groups = G;
  b.plan = plan;
  b.direction = o->dir;
  b.potential = &o->pot;
  b.gradient = o->grad;
  b.hessian_values = o->hv;
  b.hessian_product = o->prod;
  return fricl_barrier_eval(ctx, &b);
}

static void alloc_outputs(outputs *o, const scene *s, size_t nnz) {
  memset(o, 0, sizeof *o);
  o->hv = calloc(nnz * 9 + 1, sizeof(double));
  for (size_t g = 0; g < s->ng; ++g) {
    const size_t nd =
        (size_t)fricl_stencil_vertex_count(s->types[g]) * (size_t)s->dim;
    o->lg[g] = calloc(NC * nd, sizeof(double));
    o->lh[g] = calloc(NC * nd * nd, sizeof(double));
  }
  for (int i = 0; i < NV * s->dim; ++i)
    o->dir[i] = sin(1.0 + i);
}

static void free_outputs(outputs *o) {
  free(o->hv);
  for (int g = 0; g < 5; ++g) {
    free(o->lg[g]);
    free(o->lh[g]);
  }
}

static fricl_tangential_plan *make_plan(fricl_context *ctx, const scene *s) {
  fricl_barrier_group G[5];
  memset(G, 0, sizeof G);
  for (size_t g = 0; g < s->ng; ++g) {
    G[g].type = s->types[g];
    G[g].count = NC;
    G[g].vertices = s->ids[g];
  }
  fricl_tangential_plan *p = NULL;
  CHECK(fricl_barrier_plan_create(ctx, s->dim, NV, s->ng, G, &p) ==
            FRICL_STATUS_OK,
        "plan: %s", fricl_context_last_error(ctx));
  return p;
}

/* Global outputs against the local ones summed by hand (to rounding). */
static void check_assembly(const scene *s, const fricl_tangential_plan *plan,
                           const outputs *o) {
  const int dim = s->dim;
  static double g[NV * 3], hp[NV * 3];
  memset(g, 0, sizeof g);
  memset(hp, 0, sizeof hp);
  double pot = 0, gs = 0, hs = 0;
  size_t nb = 0;
  const int64_t *rp = NULL;
  const int32_t *cols = NULL;
  fricl_tangential_plan_bsr(plan, NULL, &nb, &rp, &cols);
  double *H = calloc(nb * 9 + 1, sizeof(double));
  for (size_t gi = 0; gi < s->ng; ++gi) {
    const int k = fricl_stencil_vertex_count(s->types[gi]);
    const int nd = k * dim;
    for (int c = 0; c < NC; ++c) {
      pot += o->cpot[gi][c];
      const int32_t *v = s->ids[gi] + c * k;
      const double *lg = o->lg[gi] + (size_t)c * nd;
      const double *lh = o->lh[gi] + (size_t)c * nd * nd;
      for (int i = 0; i < k; ++i)
        for (int r = 0; r < dim; ++r) {
          g[v[i] * dim + r] += lg[i * dim + r];
          for (int j = 0; j < k; ++j)
            for (int q = 0; q < dim; ++q)
              hp[v[i] * dim + r] +=
                  lh[(i * dim + r) * nd + j * dim + q] * o->dir[v[j] * dim + q];
        }
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
          int64_t bl = rp[v[i]];
          while (bl < rp[v[i] + 1] && cols[bl] != v[j])
            ++bl;
          CHECK(bl < rp[v[i] + 1], "block (%d, %d) not in the plan", v[i],
                v[j]);
          for (int r = 0; r < dim; ++r)
            for (int q = 0; q < dim; ++q)
              H[bl * dim * dim + r * dim + q] +=
                  lh[(i * dim + r) * nd + j * dim + q];
        }
    }
  }
  for (int i = 0; i < NV * dim; ++i) {
    gs = fmax(gs, fabs(g[i]));
    hs = fmax(hs, fabs(hp[i]));
  }
  double hmax = 0;
  for (size_t i = 0; i < nb * dim * dim; ++i)
    hmax = fmax(hmax, fabs(H[i]));
  CHECK(fabs(pot - o->pot) <= 1e-12 * fabs(pot) + 1e-300, "potential %g %g",
        pot, o->pot);
  double eg = 0, ep = 0, eh = 0;
  for (int i = 0; i < NV * dim; ++i) {
    eg = fmax(eg, fabs(g[i] - o->grad[i]));
    ep = fmax(ep, fabs(hp[i] - o->prod[i]));
  }
  for (size_t i = 0; i < nb * dim * dim; ++i)
    eh = fmax(eh, fabs(H[i] - o->hv[i]));
  CHECK(eg <= 1e-12 * gs, "gradient assembly error %g (scale %g)", eg, gs);
  CHECK(ep <= 1e-12 * hs, "H p error %g (scale %g)", ep, hs);
  CHECK(eh <= 1e-12 * hmax, "BSR assembly error %g (scale %g)", eh, hmax);
  CHECK(pot > 0 && gs > 0, "scene has no active contact");
  free(H);
}

static int same_bits(const void *a, const void *b, size_t n) {
  return memcmp(a, b, n) == 0;
}

static void test_backends_and_assembly(int dim, uint32_t flags) {
  static scene s;
  make_scene(&s, dim);
  const char *specs[3] = {"reference", "host", "host-split"};
  static outputs out[3];
  for (int psd = 0; psd < 3; ++psd) {
    for (int b = 0; b < 3; ++b) {
      fricl_context *ctx = test_context(specs[b], 0, 0);
      if (!ctx)
        return;
      fricl_tangential_plan *plan = make_plan(ctx, &s);
      size_t nb = 0;
      fricl_tangential_plan_bsr(plan, NULL, &nb, NULL, NULL);
      alloc_outputs(&out[b], &s, nb);
      CHECK(eval(ctx, &s, plan, (fricl_psd)psd, &out[b], NULL, flags) ==
                FRICL_STATUS_OK,
            "%s: %s", specs[b], fricl_context_last_error(ctx));
      if (b == 0)
        check_assembly(&s, plan, &out[0]);
      else {
        const size_t nvd = NV * (size_t)dim * sizeof(double);
        CHECK(out[b].pot == out[0].pot &&
                  same_bits(out[b].grad, out[0].grad, nvd) &&
                  same_bits(out[b].prod, out[0].prod, nvd) &&
                  same_bits(out[b].hv, out[0].hv, nb * dim * dim * 8),
              "%dD psd %d flags %u: %s differs from the reference", dim, psd,
              flags, specs[b]);
        for (size_t g = 0; g < s.ng; ++g) {
          const size_t nd =
              (size_t)fricl_stencil_vertex_count(s.types[g]) * (size_t)dim;
          CHECK(same_bits(out[b].lh[g], out[0].lh[g], NC * nd * nd * 8),
                "%dD: %s local Hessian differs", dim, specs[b]);
        }
      }
      fricl_tangential_plan_destroy(plan);
      fricl_context_destroy(ctx);
    }
    for (int b = 0; b < 3; ++b)
      free_outputs(&out[b]);
  }
}

static double max_rel(const double *a, const double *b, size_t n) {
  double e = 0, m = 0;
  for (size_t i = 0; i < n; ++i) {
    e = fmax(e, fabs(a[i] - b[i]));
    m = fmax(m, fabs(b[i]));
  }
  return m > 0 ? e / m : e;
}

/* Every OpenCL device against the reference backend: the same assembly
 * on the host, the per-contact math on the device (its log and sqrt may
 * round differently: 1e-10 of scale). */
static void test_opencl(int dim, uint32_t flags) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb_ = test_backends(be);
  static scene s;
  make_scene(&s, dim);
  static outputs ref, dev;
  for (int b = 0; b < nb_; ++b) {
    if (strncmp(be[b].spec, "opencl", 6) != 0)
      continue;
    for (int psd = 0; psd < 3; ++psd) {
      fricl_context *rc = test_context("reference", 0, 0);
      fricl_context *dc = test_context(be[b].spec, 0, 0);
      if (!rc || !dc) {
        fricl_context_destroy(rc);
        fricl_context_destroy(dc);
        return;
      }
      fricl_tangential_plan *rp = make_plan(rc, &s), *dp = make_plan(dc, &s);
      size_t nb = 0;
      fricl_tangential_plan_bsr(rp, NULL, &nb, NULL, NULL);
      alloc_outputs(&ref, &s, nb);
      alloc_outputs(&dev, &s, nb);
      CHECK(eval(rc, &s, rp, (fricl_psd)psd, &ref, NULL, flags) ==
                FRICL_STATUS_OK,
            "reference");
      CHECK(eval(dc, &s, dp, (fricl_psd)psd, &dev, NULL, flags) ==
                FRICL_STATUS_OK,
            "%s: %s", be[b].label, fricl_context_last_error(dc));
      CHECK(fricl_context_last_backend(dc) == FRICL_BACKEND_OPENCL,
            "%s: did not run on the device", be[b].label);
      const size_t nvd = NV * (size_t)dim;
      const double e =
          fmax(fmax(max_rel(dev.grad, ref.grad, nvd),
                    max_rel(dev.prod, ref.prod, nvd)),
               fmax(max_rel(dev.hv, ref.hv, nb * (size_t)(dim * dim)),
                    max_rel(&dev.pot, &ref.pot, 1)));
      CHECK(e <= 1e-10, "%s %dD psd %d flags %u: %g from the reference",
            be[b].label, dim, psd, flags, e);
      free_outputs(&ref);
      free_outputs(&dev);
      fricl_tangential_plan_destroy(rp);
      fricl_tangential_plan_destroy(dp);
      fricl_context_destroy(rc);
      fricl_context_destroy(dc);
    }
  }
}

static void test_nan(void) {
  static scene s;
  make_scene(&s, 3);
  fricl_context *ctx = test_context("host", 0, 0);
  static outputs o;
  alloc_outputs(&o, &s, 0);
  free(o.hv);
  o.hv = NULL;
  static double x[NV * 3];
  memcpy(x, s.x, sizeof x);
  const int32_t bad = s.ids[1][7 * 3 + 1]; /* ev contact 7, slot 1 */
  x[bad * 3 + 2] = NAN;
  CHECK(eval(ctx, &s, NULL, FRICL_PSD_CLAMP, &o, x, 0) == FRICL_STATUS_OK,
        "NaN positions are not an error: %s", fricl_context_last_error(ctx));
  CHECK(isnan(o.cpot[1][7]), "NaN did not reach contact 7");
  CHECK(isnan(o.pot), "NaN did not reach the sum");
  CHECK(isnan(o.grad[bad * 3]), "NaN did not reach the gradient");
  int others = 1;
  for (int c = 0; c < NC; ++c) {
    const int32_t *v = s.ids[0] + c * 2;
    if (v[0] != bad && v[1] != bad && v[0] + 1 != bad)
      others &= !isnan(o.cpot[0][c]);
  }
  CHECK(others, "NaN leaked into contacts that do not read it");
  free_outputs(&o);
  fricl_context_destroy(ctx);
}

static void expect_error(fricl_context *ctx, const fricl_barrier_batch *b,
                         const char *needle) {
  const fricl_status st = fricl_barrier_eval(ctx, b);
  const char *msg = fricl_context_last_error(ctx);
  CHECK(st == FRICL_STATUS_INVALID_ARGUMENT && strstr(msg, needle),
        "expected INVALID_ARGUMENT naming '%s', got %s: %s", needle,
        fricl_status_string(st), msg);
}

static void test_errors(void) {
  fricl_context *ctx = test_context("reference", 0, 0);
  double x[12] = {0, 0, 0, 0.05, 0, 0, 1, 1, 1, 2, 2, 2}, pot = 7, grad[12];
  int32_t ids[4] = {0, 1, 2, 3};
  double w[2] = {1, NAN}, dm[2] = {0, -1}, pn[6] = {0, 0, 0, 0, 0, 1},
         pc[2] = {0, 0};
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_VV;
  G.count = 2;
  G.vertices = ids;
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.n_vertices = 4;
  b.positions = x;
  b.dhat = 0.1;
  b.kappa = 1;
  b.n_groups = 1;
  b.groups = &G;
  b.potential = &pot;
  b.gradient = grad;
  fricl_barrier_batch c = b;
  c.dhat = 0;
  expect_error(ctx, &c, "dhat");
  c = b;
  c.kappa = NAN;
  expect_error(ctx, &c, "kappa");
  c = b;
  c.dmin = -1;
  expect_error(ctx, &c, "dmin");
  c = b;
  c.dim = 4;
  expect_error(ctx, &c, "dim");
  c = b;
  c.psd = (fricl_psd)7;
  expect_error(ctx, &c, "psd");
  c = b;
  c.flags = 0x80;
  expect_error(ctx, &c, "flags");
  c.flags = FRICL_BARRIER_FLAG_PHYSICAL | FRICL_BARRIER_FLAG_AS_CLASSIFIED |
            FRICL_BARRIER_FLAG_SHAPE | 0x8; /* the first unknown bit */
  expect_error(ctx, &c, "batch.flags = 0xf");
  c.flags = FRICL_BARRIER_FLAG_PHYSICAL | FRICL_BARRIER_FLAG_AS_CLASSIFIED;
  CHECK(fricl_barrier_eval(ctx, &c) == FRICL_STATUS_OK, "both known flags: %s",
        fricl_context_last_error(ctx));
  pot = 7;
  c = b;
  c.potential = NULL;
  c.gradient = NULL;
  expect_error(ctx, &c, "no output");
  c = b;
  c.gradient = x;
  expect_error(ctx, &c, "overlaps");
  fricl_barrier_group H = G;
  c.groups = &H;
  c = b;
  c.groups = &H;
  H.weight = w;
  expect_error(ctx, &c, "contact 1: weight");
  H = G;
  H.dmin = dm;
  expect_error(ctx, &c, "contact 1: dmin");
  H = G;
  ids[3] = 9;
  H.type = FRICL_STENCIL_EE;
  H.count = 1;
  expect_error(ctx, &c, "vertex index 9");
  ids[3] = 3;
  c.dim = 2;
  expect_error(ctx, &c, "only in 3-D");
  c.dim = 3;
  H = G;
  H.type = FRICL_STENCIL_PV;
  expect_error(ctx, &c, "plane_normal is NULL");
  H.plane_normal = pn;
  H.plane_offset = pc;
  expect_error(ctx, &c, "contact 0: plane_normal is zero");
  H = G;
  H.type = FRICL_STENCIL_EE;
  H.count = 1;
  int8_t dt = 12;
  H.distance_type = &dt;
  expect_error(ctx, &c, "distance_type");
  c = b;
  double hv[9];
  c.hessian_values = hv;
  expect_error(ctx, &c, "plan");
  CHECK(pot == 7, "an invalid call wrote an output");
  /* Zero contacts: zeros. */
  c = b;
  fricl_barrier_group Z = G;
  Z.count = 0;
  c.groups = &Z;
  CHECK(fricl_barrier_eval(ctx, &c) == FRICL_STATUS_OK && pot == 0 &&
            grad[0] == 0,
        "zero contacts: %s", fricl_context_last_error(ctx));
  fricl_context_destroy(ctx);
}

/* f32 against f64 on one active vv contact (relative 1e-4). */
static void test_f32(void) {
  fricl_context *ctx = test_context("host", 0, 0);
  const double xd[6] = {0, 0, 0, 0.03, 0.02, 0.01};
  float xf[6];
  for (int i = 0; i < 6; ++i)
    xf[i] = (float)xd[i];
  int32_t ids[2] = {0, 1};
  double pd, gd[6], hd[36];
  float pf, gf[6], hf[36];
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_VV;
  G.count = 1;
  G.vertices = ids;
  G.potential = &pd;
  G.local_gradient = gd;
  G.local_hessian = hd;
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.psd = FRICL_PSD_CLAMP;
  b.n_vertices = 2;
  b.positions = xd;
  b.dhat = 0.1;
  b.kappa = 2;
  b.n_groups = 1;
  b.groups = &G;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_OK, "f64");
  G.potential = &pf;
  G.local_gradient = gf;
  G.local_hessian = hf;
  b.precision = FRICL_F32;
  b.positions = xf;
  CHECK(fricl_barrier_eval(ctx, &b) == FRICL_STATUS_OK, "f32: %s",
        fricl_context_last_error(ctx));
  double eh = 0, sh = 0;
  for (int i = 0; i < 36; ++i) {
    eh = fmax(eh, fabs(hf[i] - hd[i]));
    sh = fmax(sh, fabs(hd[i]));
  }
  CHECK(fabs(pf - pd) <= 1e-4 * fabs(pd), "f32 potential %g vs %g", pf, pd);
  CHECK(eh <= 1e-4 * sh, "f32 Hessian error %g (scale %g)", eh, sh);
  fricl_context_destroy(ctx);
}

/* The scene's EV and FV contacts (random points, many beyond an edge's
 * end or outside a triangle) change with FRICL_BARRIER_FLAG_AS_CLASSIFIED;
 * VV, EE and PV do not, bit for bit. */
static void test_modes_differ(int dim) {
  static scene s;
  make_scene(&s, dim);
  fricl_context *ctx = test_context("reference", 0, 0);
  if (!ctx)
    return;
  static outputs near, as;
  alloc_outputs(&near, &s, 0);
  alloc_outputs(&as, &s, 0);
  free(near.hv); /* no plan: no BSR values */
  free(as.hv);
  near.hv = as.hv = NULL;
  CHECK(eval(ctx, &s, NULL, FRICL_PSD_CLAMP, &near, NULL, 0) ==
                FRICL_STATUS_OK &&
            eval(ctx, &s, NULL, FRICL_PSD_CLAMP, &as, NULL,
                 FRICL_BARRIER_FLAG_AS_CLASSIFIED) == FRICL_STATUS_OK,
        "eval: %s", fricl_context_last_error(ctx));
  for (size_t g = 0; g < s.ng; ++g) {
    const int changes =
        s.types[g] == FRICL_STENCIL_EV || s.types[g] == FRICL_STENCIL_FV;
    int differ = 0;
    for (int c = 0; c < NC; ++c)
      differ += memcmp(&near.cpot[g][c], &as.cpot[g][c], sizeof(double)) != 0;
    const size_t nd =
        (size_t)fricl_stencil_vertex_count(s.types[g]) * (size_t)dim;
    if (changes)
      CHECK(differ > 0, "%dD %s: %d contacts change as classified", dim,
            fricl_stencil_name(s.types[g]), differ);
    else
      CHECK(!differ && same_bits(near.lh[g], as.lh[g], NC * nd * nd * 8),
            "%dD %s: as classified changes it", dim,
            fricl_stencil_name(s.types[g]));
  }
  free_outputs(&near);
  free_outputs(&as);
  fricl_context_destroy(ctx);
}

int main(void) {
  for (int as = 0; as < 2; ++as) {
    const uint32_t flags = as ? FRICL_BARRIER_FLAG_AS_CLASSIFIED : 0u;
    test_backends_and_assembly(3, flags);
    test_backends_and_assembly(2, flags);
    test_opencl(3, flags);
    test_opencl(2, flags);
  }
  test_modes_differ(3);
  test_modes_differ(2);
  test_nan();
  test_errors();
  test_f32();
  return test_report("test_barrier_api");
}
