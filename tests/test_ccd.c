/*
 * test_ccd.c - continuous collision detection over candidates (fricl_ccd.h):
 *  - hand motions whose first contact time t* is known exactly (a point
 *    through a triangle, an edge through an edge, a point through an edge
 *    in 2-D, two points meeting, with and without min_distance): each time
 *    of impact lies in [rescaling x t*, t*) (the first advance covers the
 *    rescaled distance, and the advances never reach contact);
 *  - the plane test's closed form (ipctk's point-static-plane times);
 *  - no motion toward contact gives a step of 1 and no impact; a start
 *    within min_distance gives 0;
 *  - determinism: a two-sheet scene on 1 thread and on 4 threads splitting
 *    every loop gives the same times bit for bit, and the step is their
 *    minimum with and without the per-candidate output;
 *  - validation: every bad argument fails with INVALID_ARGUMENT naming it
 *    (and the first bad row or pair), and the inputs are not written; a
 *    newer caller's larger options struct is read as core/abi.h says.
 * Agreement with ipctk 1.6.1's AdditiveCCD itself is checked from Python
 * (tests/python/test_ipctk_ccd.py).
 */
#include "test_util.h"

#include "collision_util.h"
#include "fricl/fricl_ccd.h"

static size_t total(const fricl_candidate_set *s) {
  size_t n = 0;
  for (int t = 0; t < 5; ++t)
    n += fricl_candidate_set_pairs(s, (fricl_stencil)t, NULL);
  return n;
}

/* The one candidate of a hand motion (of type `type`) and its time. */
static double one_toi_r(fricl_context *ctx, const fricl_collision_mesh *m,
                        const double *x0, const double *x1, int type,
                        double dmin, const fricl_collisions_options *pl,
                        double radius) {
  fricl_candidate_set *s = NULL;
  fricl_status st = fricl_candidates_build(ctx, m, x0, x1, radius, pl, &s);
  CHECK(st == FRICL_STATUS_OK, "candidates: %s", fricl_context_last_error(ctx));
  CHECK(total(s) == 1 &&
            fricl_candidate_set_pairs(s, (fricl_stencil)type, NULL) == 1,
        "one candidate of type %d, got %zu", type, total(s));
  fricl_ccd_options o;
  fricl_ccd_options_init(&o);
  o.min_distance = dmin;
  double step = -1, toi = -1;
  st = fricl_ccd_stepsize(ctx, m, s, x0, x1, pl, &o, &step, &toi);
  CHECK(st == FRICL_STATUS_OK, "ccd: %s", fricl_context_last_error(ctx));
  CHECK(step == (toi < 1 ? toi : 1.0), "step %.17g, toi %.17g", step, toi);
  fricl_candidate_set_destroy(s);
  return toi;
}

static double one_toi(fricl_context *ctx, const fricl_collision_mesh *m,
                      const double *x0, const double *x1, int type, double dmin,
                      const fricl_collisions_options *pl) {
  return one_toi_r(ctx, m, x0, x1, type, dmin, pl, 0.0);
}

/* The first advance covers 0.9 t* exactly but for rounding. */
static void in_bracket(const char *what, double toi, double tstar) {
  CHECK(toi >= 0.9 * tstar * (1 - 1e-12) && toi < tstar,
        "%s: toi %.17g not in [%g, %g)", what, toi, 0.9 * tstar, tstar);
}

static void test_hand(fricl_context *ctx) {
  /* A point falling through a triangle's interior: contact at t = 0.5
   * (0.45 with min_distance 0.1). */
  {
    const double x0[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.25, 0.25, 1};
    const double x1[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.25, 0.25, -1};
    const int32_t e[] = {0, 1, 1, 2, 2, 0}, f[] = {0, 1, 2};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 4, x0, 3, e, 1, f);
    in_bracket("fv", one_toi(ctx, m, x0, x1, FRICL_STENCIL_FV, 0, NULL), 0.5);
    in_bracket("fv dmin", one_toi(ctx, m, x0, x1, FRICL_STENCIL_FV, 0.1, NULL),
               0.45);
    fricl_collision_mesh_destroy(m);
  }
  /* An edge along y falling through an edge along x. */
  {
    const double x0[] = {-1, 0, 0, 1, 0, 0, 0.1, -1, 1, 0.1, 1, 1};
    const double x1[] = {-1, 0, 0, 1, 0, 0, 0.1, -1, -1, 0.1, 1, -1};
    const int32_t e[] = {0, 1, 2, 3};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 4, x0, 2, e, 0, NULL);
    in_bracket("ee", one_toi(ctx, m, x0, x1, FRICL_STENCIL_EE, 0, NULL), 0.5);
    fricl_collision_mesh_destroy(m);
  }
  /* 2-D: a point falling through an edge; two points meeting. */
  {
    const double x0[] = {0, 0, 1, 0, 0.5, 1};
    const double x1[] = {0, 0, 1, 0, 0.5, -1};
    const int32_t e[] = {0, 1};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, x0, 1, e, 0, NULL);
    in_bracket("ev", one_toi(ctx, m, x0, x1, FRICL_STENCIL_EV, 0, NULL), 0.5);
    fricl_collision_mesh_destroy(m);
  }
  {
    const double x0[] = {0, 0, 1, 0}, x1[] = {1, 0, 0, 0};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 2, x0, 0, NULL, 0, NULL);
    in_bracket("vv", one_toi(ctx, m, x0, x1, FRICL_STENCIL_VV, 0, NULL), 0.5);
    /* Starting within min_distance: an impact at 0. */
    CHECK(one_toi(ctx, m, x0, x1, FRICL_STENCIL_VV, 1.5, NULL) == 0,
          "vv within dmin");
    /* Approaching, but stopping short (a candidate by its inflated
     * boxes): no impact. */
    const double x2[] = {0.3, 0, 0.7, 0};
    CHECK(isinf(one_toi_r(ctx, m, x0, x2, FRICL_STENCIL_VV, 0, NULL, 0.5)),
          "vv stopping short");
    fricl_collision_mesh_destroy(m);
  }
  /* A point falling through the plane z = 0: ipctk's times are where the
   * signed distance is +-0.1 (1 - rescaling times the start), 0.45 and
   * 0.55; the earlier counts. */
  {
    const double x0[] = {0.3, 0.2, 1}, x1[] = {0.3, 0.2, -1};
    const double n[] = {0, 0, 1}, c[] = {0};
    const fricl_collisions_options pl = planes_of(1, n, c);
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 1, x0, 0, NULL, 0, NULL);
    const double t = one_toi(ctx, m, x0, x1, FRICL_STENCIL_PV, 0, &pl);
    CHECK(fabs(t - 0.45) < 1e-15, "pv: %.17g", t);
    fricl_collision_mesh_destroy(m);
  }
}

/* Two sheets of n x n points, the upper one falling through the lower. */
typedef struct sheets {
  size_t nv, nf;
  double *x0, *x1;
  int32_t *faces, *edges;
  size_t ne;
} sheets;

static void sheets_make(sheets *s, int n) {
  s->nv = 2 * (size_t)n * (size_t)n;
  s->nf = 2 * 2 * (size_t)(n - 1) * (size_t)(n - 1);
  s->x0 = malloc(3 * s->nv * sizeof(double));
  s->x1 = malloc(3 * s->nv * sizeof(double));
  s->faces = malloc(3 * s->nf * sizeof(int32_t));
  s->edges = malloc(2 * 3 * s->nf * sizeof(int32_t));
  uint64_t r = 0x9e3779b97f4a7c15ull;
  size_t v = 0, f = 0;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j, ++v) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        const double jit = (double)(r >> 11) * 0x1p-53 * 1e-3;
        s->x0[3 * v] = i / (double)(n - 1) + 0.37 * k / n + jit;
        s->x0[3 * v + 1] = j / (double)(n - 1) + 0.21 * k / n;
        s->x0[3 * v + 2] = 0.05 * k + jit;
        s->x1[3 * v] = s->x0[3 * v] + 0.01 * jit;
        s->x1[3 * v + 1] = s->x0[3 * v + 1];
        s->x1[3 * v + 2] = s->x0[3 * v + 2] - 0.1 * k + 0.2 * jit;
      }
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i + 1 < n; ++i)
      for (int j = 0; j + 1 < n; ++j) {
        const int32_t a = (int32_t)(k * n * n + i * n + j);
        const int32_t q[6] = {a, a + 1, a + n, a + 1, a + n + 1, a + n};
        memcpy(s->faces + 3 * f, q, sizeof q);
        f += 2;
      }
  /* The edges: each face's three sides, deduplicated by a sorted key. */
  s->ne = 0;
  for (size_t i = 0; i < s->nf; ++i)
    for (int j = 0; j < 3; ++j) {
      int32_t a = s->faces[3 * i + j], b = s->faces[3 * i + (j + 1) % 3];
      if (a > b) {
        const int32_t t = a;
        a = b;
        b = t;
      }
      size_t l = 0;
      while (l < s->ne && !(s->edges[2 * l] == a && s->edges[2 * l + 1] == b))
        ++l;
      if (l == s->ne) {
        s->edges[2 * l] = a;
        s->edges[2 * l + 1] = b;
        ++s->ne;
      }
    }
}

static void sheets_free(sheets *s) {
  free(s->x0);
  free(s->x1);
  free(s->faces);
  free(s->edges);
}

static void test_determinism(fricl_context *one, fricl_context *many) {
  sheets s;
  sheets_make(&s, 12);
  fricl_collision_mesh *m1 =
      mesh_rest(one, 3, s.nv, s.x0, s.ne, s.edges, s.nf, s.faces);
  fricl_collision_mesh *m4 =
      mesh_rest(many, 3, s.nv, s.x0, s.ne, s.edges, s.nf, s.faces);
  fricl_candidate_set *c1 = NULL, *c4 = NULL;
  CHECK(fricl_candidates_build(one, m1, s.x0, s.x1, 0, NULL, &c1) ==
            FRICL_STATUS_OK,
        "candidates");
  CHECK(fricl_candidates_build(many, m4, s.x0, s.x1, 0, NULL, &c4) ==
            FRICL_STATUS_OK,
        "candidates");
  const size_t n = total(c1);
  CHECK(n > 100 && n == total(c4), "candidates %zu / %zu", n, total(c4));
  double *t1 = malloc(n * sizeof(double)), *t4 = malloc(n * sizeof(double));
  fricl_ccd_options o;
  fricl_ccd_options_init(&o);
  for (int pass = 0; pass < 2; ++pass) {
    o.min_distance = pass ? 1e-3 : 0;
    double s1 = -1, s4 = -1, s4b = -1;
    CHECK(fricl_ccd_stepsize(one, m1, c1, s.x0, s.x1, NULL, &o, &s1, t1) ==
              FRICL_STATUS_OK,
          "ccd 1");
    CHECK(fricl_ccd_stepsize(many, m4, c4, s.x0, s.x1, NULL, &o, &s4, t4) ==
              FRICL_STATUS_OK,
          "ccd 4");
    CHECK(fricl_ccd_stepsize(many, m4, c4, s.x0, s.x1, NULL, &o, &s4b, NULL) ==
              FRICL_STATUS_OK,
          "ccd 4, no tois");
    CHECK(memcmp(t1, t4, n * sizeof(double)) == 0,
          "times differ between 1 and 4 threads");
    double mn = 1, hits = 0;
    for (size_t i = 0; i < n; ++i) {
      CHECK(isinf(t1[i]) || (t1[i] >= 0 && t1[i] <= 1), "toi[%zu] = %g", i,
            t1[i]);
      mn = t1[i] < mn ? t1[i] : mn;
      hits += t1[i] <= 1;
    }
    CHECK(hits > 0 && mn > 0 && mn < 1, "impacts %g, earliest %g", hits, mn);
    CHECK(s1 == mn && s4 == mn && s4b == mn,
          "step %.17g %.17g %.17g, min %.17g", s1, s4, s4b, mn);
  }
  free(t1);
  free(t4);
  fricl_candidate_set_destroy(c1);
  fricl_candidate_set_destroy(c4);
  fricl_collision_mesh_destroy(m1);
  fricl_collision_mesh_destroy(m4);
  sheets_free(&s);
}

static void expect_fail(fricl_context *ctx, fricl_status st, const char *what,
                        const char *needle) {
  const char *msg = fricl_context_last_error(ctx);
  CHECK(st == FRICL_STATUS_INVALID_ARGUMENT && msg && strstr(msg, needle),
        "%s: status %s, message '%s' lacks '%s'", what, fricl_status_string(st),
        msg ? msg : "(null)", needle);
}

static void test_validation(fricl_context *ctx) {
  const double x0[] = {0, 0, 1, 0, 0.5, 1};
  double x1[] = {0, 0, 1, 0, 0.5, -1};
  const int32_t e[] = {0, 1};
  fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, x0, 1, e, 0, NULL);
  fricl_candidate_set *s = NULL;
  CHECK(fricl_candidates_build(ctx, m, x0, x1, 0, NULL, &s) == FRICL_STATUS_OK,
        "candidates");
  double step = 7;
  fricl_ccd_options o;
  fricl_ccd_options_init(&o);
  CHECK(o.conservative_rescaling == 0.9 && o.min_distance == 0 &&
            o.max_iterations == 10000000,
        "defaults");
  expect_fail(ctx, fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &o, NULL, NULL),
              "step NULL", "step");
  expect_fail(ctx,
              fricl_ccd_stepsize(ctx, NULL, s, x0, x1, NULL, &o, &step, NULL),
              "mesh NULL", "mesh");
  o.conservative_rescaling = 0;
  expect_fail(ctx, fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &o, &step, NULL),
              "rescaling 0", "conservative_rescaling");
  o.conservative_rescaling = NAN;
  expect_fail(ctx, fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &o, &step, NULL),
              "rescaling NaN", "conservative_rescaling");
  fricl_ccd_options_init(&o);
  o.min_distance = -1;
  expect_fail(ctx, fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &o, &step, NULL),
              "min_distance", "min_distance");
  fricl_ccd_options_init(&o);
  o.struct_size = 4;
  expect_fail(ctx, fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &o, &step, NULL),
              "struct_size", "struct_size");
  /* A newer caller's larger struct: accepted with an all-zero tail,
   * rejected with a field this library does not know. */
  {
    struct {
      fricl_ccd_options o;
      uint64_t later;
    } big;
    memset(&big, 0, sizeof big);
    fricl_ccd_options_init(&big.o);
    big.o.struct_size = (uint32_t)sizeof big;
    CHECK(fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &big.o, &step, NULL) ==
              FRICL_STATUS_OK,
          "larger struct, zero tail: %s", fricl_context_last_error(ctx));
    big.later = 1;
    expect_fail(
        ctx, fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &big.o, &step, NULL),
        "larger struct, set tail", "options.struct_size");
    step = 7;
  }
  fricl_ccd_options_init(&o);
  x1[5] = NAN;
  expect_fail(ctx, fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, &o, &step, NULL),
              "positions1 NaN", "positions1[5] is not finite (row 2)");
  x1[5] = -1;
  CHECK(step == 7, "step written on a failure");
  /* A set made on a larger mesh names its first pair outside this one. */
  {
    const double y[] = {0, 0, 1, 0, 0.5, 1, 0.5, 2, 0.5, 3};
    const int32_t e2[] = {0, 1, 3, 4};
    double y1[10];
    memcpy(y1, y, sizeof y);
    y1[5] = 2.5; /* vertex 2 rises into edge 1's box */
    fricl_collision_mesh *big = mesh_rest(ctx, 2, 5, y, 2, e2, 0, NULL);
    fricl_candidate_set *sb = NULL;
    CHECK(fricl_candidates_build(ctx, big, y, y1, 0, NULL, &sb) ==
              FRICL_STATUS_OK,
          "candidates");
    expect_fail(ctx,
                fricl_ccd_stepsize(ctx, m, sb, x0, x1, NULL, NULL, &step, NULL),
                "foreign set", "is not in this mesh");
    fricl_candidate_set_destroy(sb);
    fricl_collision_mesh_destroy(big);
  }
  /* Plane-vertex pairs need their planes. */
  {
    const double p0[] = {0.3, 0.2, 1}, p1[] = {0.3, 0.2, -1};
    const double n[] = {0, 0, 1}, c[] = {0};
    const fricl_collisions_options pl = planes_of(1, n, c);
    fricl_collision_mesh *pm = mesh_rest(ctx, 3, 1, p0, 0, NULL, 0, NULL);
    fricl_candidate_set *sp = NULL;
    CHECK(fricl_candidates_build(ctx, pm, p0, p1, 0, &pl, &sp) ==
              FRICL_STATUS_OK,
          "candidates");
    expect_fail(
        ctx, fricl_ccd_stepsize(ctx, pm, sp, p0, p1, NULL, NULL, &step, NULL),
        "planes missing", "pv pair 0");
    fricl_candidate_set_destroy(sp);
    fricl_collision_mesh_destroy(pm);
  }
  /* Inputs are not written; a valid call works after the failures. */
  const double keep[] = {0, 0, 1, 0, 0.5, -1};
  CHECK(fricl_ccd_stepsize(ctx, m, s, x0, x1, NULL, NULL, &step, NULL) ==
                FRICL_STATUS_OK &&
            step >= 0.45 && step < 0.5,
        "valid call: %g", step);
  CHECK(memcmp(x1, keep, sizeof keep) == 0, "positions1 written");
  fricl_candidate_set_destroy(s);
  fricl_collision_mesh_destroy(m);
}

int main(void) {
  fricl_context *one = host_ctx(1, 0);
  fricl_context *many = host_ctx(4, 1);
  if (!one || !many)
    return test_report("test_ccd");
  test_hand(one);
  test_hand(many);
  test_determinism(one, many);
  test_validation(one);
  fricl_context_destroy(one);
  fricl_context_destroy(many);
  return test_report("test_ccd");
}
