/*
 * test_collisions.c - collision sets from positions (fricl_collisions.h):
 *  - hand-made scenes whose collisions, weights, distance types and
 *    mollifier thresholds are worked out by hand from ipctk 1.6.1's rules
 *    (2-D: ev, vv beyond an end, codim. points, planes, dmin; 3-D: fv, ev
 *    with the mesh's edge id, vv, crossing and nearly parallel edges,
 *    planes; area weights; the improved max approximator in 2-D and 3-D);
 *  - the mesh's vertex and edge areas on a mixed mesh, against hand values;
 *  - determinism: random cloth-like scenes built on 1 thread and on 4
 *    threads splitting every loop give the same set bit for bit, and a
 *    set rebuilt in place equals a fresh one;
 *  - the groups go to fricl_barrier_eval as they are (the potential of a
 *    hand scene, the gradient against finite differences, a plan from
 *    fricl_barrier_plan_create and H p against differences of gradients);
 *  - candidates against a brute-force enumeration of the overlapping
 *    boxes (inflated with nextafter, as ipctk's AABB), static and over a
 *    motion, in 2-D and 3-D;
 *  - validation: every bad argument fails with INVALID_ARGUMENT and a
 *    message naming it, and leaves *inout as it was;
 *  - the OpenCL tier (device_min_candidates = 1: every scene's narrow
 *    phase on the device): the hand scenes against their ipctk values, and
 *    every array of the random scenes' sets bit for bit the host's (2-D
 *    and 3-D, dmin > 0, area weighting and the improved max approximator
 *    on and off, a larger cloth); a device context without fp64 (the
 *    context flag), SIZE_MAX and the default threshold take the host
 *    path with the same set. Skipped without an OpenCL fp64 device.
 */
#include "test_util.h"

#include "collision_util.h"

enum {
  VV = FRICL_STENCIL_VV,
  EV = FRICL_STENCIL_EV,
  EE = FRICL_STENCIL_EE,
  FV = FRICL_STENCIL_FV,
  PV = FRICL_STENCIL_PV
};

#define AREA FRICL_COLLISIONS_AREA_WEIGHTING
#define IMP FRICL_COLLISIONS_IMPROVED_MAX_APPROX

/* ------------------------------------------------------------ helpers */

typedef struct planes {
  size_t n;
  double normal[4 * 3], offset[4];
} planes;

/* The builds' device_min_candidates (0: the default). */
static size_t g_device_min;

static fricl_collision_set *build(fricl_context *ctx,
                                  const fricl_collision_mesh *m,
                                  const double *x, double dhat, double dmin,
                                  uint32_t flags, const planes *pl) {
  fricl_collisions_options o;
  fricl_collisions_options_init(&o);
  o.device_min_candidates = g_device_min;
  o.flags = flags;
  o.dhat = dhat;
  o.dmin = dmin;
  if (pl && pl->n) {
    o.n_planes = pl->n;
    o.plane_normals = pl->normal;
    o.plane_offsets = pl->offset;
  }
  fricl_collision_set *s = NULL;
  const fricl_status st = fricl_collisions_build(ctx, m, x, &o, &s);
  CHECK(st == FRICL_STATUS_OK && s, "build: %s: %s", fricl_status_string(st),
        fricl_context_last_error(ctx));
  return s;
}

static const fricl_barrier_group *group_of(const fricl_collision_set *s,
                                           int type) {
  const fricl_barrier_group *g = NULL;
  const size_t n = fricl_collision_set_groups(s, &g);
  for (size_t i = 0; i < n; ++i)
    if ((int)g[i].type == type)
      return &g[i];
  return NULL;
}

/* One expected collision: type, ids, ee distance type (-1: not ee),
 * weight. */
typedef struct want_t {
  int type;
  int32_t a, b;
  int dtype;
  double w;
} want_t;

static const char *TN[5] = {"vv", "ev", "ee", "fv", "pv"};

/* The set holds exactly the wanted collisions (weights to 1e-14). */
static void expect(const fricl_collision_set *s, const char *what,
                   const want_t *w, size_t n) {
  for (int t = 0; t < 5; ++t) {
    size_t nt = 0;
    for (size_t i = 0; i < n; ++i)
      nt += w[i].type == t;
    const size_t got = fricl_collision_set_count(s, (fricl_stencil)t);
    CHECK(got == nt, "%s: %zu %s collisions, want %zu", what, got, TN[t], nt);
    const fricl_barrier_group *g = group_of(s, t);
    CHECK((g != NULL) == (nt != 0), "%s: %s group present: %d", what, TN[t],
          g != NULL);
    if (g)
      CHECK(g->count == got, "%s: %s group count %zu vs %zu", what, TN[t],
            g->count, got);
  }
  for (size_t i = 0; i < n; ++i) {
    const int32_t *ids = NULL;
    const size_t c =
        fricl_collision_set_elements(s, (fricl_stencil)w[i].type, &ids, NULL);
    const fricl_barrier_group *g = group_of(s, w[i].type);
    long at = -1;
    for (size_t j = 0; j < c; ++j)
      if (ids[2 * j] == w[i].a && ids[2 * j + 1] == w[i].b &&
          (w[i].type != EE || g->distance_type[j] == w[i].dtype))
        at = (long)j;
    CHECK(at >= 0, "%s: %s (%d, %d) type %d missing", what, TN[w[i].type],
          (int)w[i].a, (int)w[i].b, w[i].dtype);
    if (at < 0 || !g)
      continue;
    const double got = ((const double *)g->weight)[at];
    CHECK(fabs(got - w[i].w) <= 1e-14 * fabs(w[i].w),
          "%s: %s (%d, %d) w %.17g, want %.17g", what, TN[w[i].type],
          (int)w[i].a, (int)w[i].b, got, w[i].w);
  }
}

/* The vertices of collision j of the group of `type` are v[0..k). */
static void expect_vertices(const fricl_collision_set *s, const char *what,
                            int type, size_t j, const int32_t *v, int k) {
  const fricl_barrier_group *g = group_of(s, type);
  CHECK(g && j < g->count, "%s: no %s collision %zu", what, TN[type], j);
  if (!g || j >= g->count)
    return;
  for (int i = 0; i < k; ++i)
    CHECK(g->vertices[(size_t)k * j + i] == v[i],
          "%s: %s[%zu] vertex %d = %d, want %d", what, TN[type], j, i,
          (int)g->vertices[(size_t)k * j + i], (int)v[i]);
}

/* Barrier b(x, xh) of fricl_barrier.h. */
static double barrier_b(double x, double xh) {
  return x >= xh ? 0 : -(x - xh) * (x - xh) * log(x / xh);
}

/* ------------------------------------------------------ hand scenes 2-D */

static void test_hand_2d(fricl_context *ctx) {
  const int32_t E1[2] = {0, 1};
  /* A point over the interior of an edge: ev (edge 0, vertex 2), the
   * point's area 1 (no edge) halved; the group evaluates the line. */
  {
    const double X[6] = {0, 0, 1, 0, 0.5, 0.1};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, X, 1, E1, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.2, 0, 0, NULL);
    const want_t w[] = {{EV, 0, 2, -1, 1}};
    expect(s, "2-D ev", w, 1);
    const int32_t v[3] = {2, 0, 1};
    expect_vertices(s, "2-D ev", EV, 0, v, 3);
    const fricl_barrier_group *g = group_of(s, EV);
    if (g) {
      CHECK(g->distance_type && g->distance_type[0] == 2,
            "2-D ev: distance type %d, want 2 (the line)",
            g->distance_type ? g->distance_type[0] : -9);
      CHECK(g->dmin && ((const double *)g->dmin)[0] == 0, "2-D ev: dmin");
      CHECK(!g->potential && !g->local_gradient && !g->local_hessian,
            "2-D ev: outputs are NULL");
    }
    /* The potential of the set: kappa w b(d^2, dhat^2), d^2 = 0.01. */
    fricl_barrier_batch b;
    fricl_barrier_batch_init(&b);
    b.dim = 2;
    b.n_vertices = 3;
    b.positions = X;
    b.dhat = 0.2;
    b.kappa = 3;
    const fricl_barrier_group *gs = NULL;
    b.n_groups = fricl_collision_set_groups(s, &gs);
    b.groups = gs;
    double pot = 0;
    b.potential = &pot;
    fricl_status st = fricl_barrier_eval(ctx, &b);
    const double want_pot = 3 * barrier_b(0.1 * 0.1, 0.04);
    CHECK(st == FRICL_STATUS_OK && fabs(pot - want_pot) <= 1e-12 * want_pot,
          "2-D ev potential %.17g, want %.17g (%s)", pot, want_pot,
          fricl_context_last_error(ctx));
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.2, 0, AREA, NULL);
    const want_t wa[] = {{EV, 0, 2, -1, 0.5}};
    expect(s, "2-D ev, area", wa, 1);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* Beyond the end point: vv with that end, sorted ids (1, 2). */
  {
    const double X[6] = {0, 0, 1, 0, 1.1, 0.05};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, X, 1, E1, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.2, 0, 0, NULL);
    const want_t w[] = {{VV, 1, 2, -1, 1}};
    expect(s, "2-D vv at the end", w, 1);
    const int32_t v[2] = {1, 2};
    expect_vertices(s, "2-D vv at the end", VV, 0, v, 2);
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.2, 0, AREA, NULL);
    const want_t wa[] = {{VV, 1, 2, -1, 0.5}};
    expect(s, "2-D vv at the end, area", wa, 1);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* dmin > 0: d = 0.25 is within dhat + dmin = 0.3 and the candidate
   * radius (dhat + dmin) / 2 = 0.15 reaches it; with dmin = 0 the radius
   * 0.1 does not. Every collision carries dmin. */
  {
    const double X[6] = {0, 0, 1, 0, 0.5, 0.25};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, X, 1, E1, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.2, 0.1, 0, NULL);
    const want_t w[] = {{EV, 0, 2, -1, 1}};
    expect(s, "2-D dmin", w, 1);
    const fricl_barrier_group *g = group_of(s, EV);
    CHECK(g && g->dmin && ((const double *)g->dmin)[0] == 0.1,
          "2-D dmin: group dmin");
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.2, 0, 0, NULL);
    expect(s, "2-D dmin 0", NULL, 0);
    const fricl_barrier_group *gs = NULL;
    CHECK(fricl_collision_set_groups(s, &gs) == 0, "2-D dmin 0: groups");
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* Activation: d^2 < (dhat + dmin)^2, checked on candidates whose boxes
   * reach farther along a diagonal: a point 0.995 dhat from the middle of
   * a diagonal edge is in, one at 1.005 dhat out (both are candidates). */
  {
    const double h = 0.2, u = 0.5 * sqrt(2.0);
    for (int out = 0; out < 2; ++out) {
      const double d = (out ? 1.005 : 0.995) * h;
      const double X[6] = {0, 0, 1, 1, 0.5 - d * u, 0.5 + d * u};
      fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, X, 1, E1, 0, NULL);
      fricl_candidate_set *cs = NULL;
      CHECK(fricl_candidates_build(ctx, m, X, NULL, 0.5 * h, NULL, &cs) ==
                    FRICL_STATUS_OK &&
                fricl_candidate_set_pairs(cs, FRICL_STENCIL_EV, NULL) == 1,
            "diagonal: a candidate");
      fricl_candidate_set_destroy(cs);
      fricl_collision_set *s = build(ctx, m, X, h, 0, 0, NULL);
      const want_t w[] = {{EV, 0, 2, -1, 1}};
      expect(s, out ? "diagonal, out" : "diagonal, in", w, (size_t)!out);
      fricl_collision_set_destroy(s);
      /* and with dmin: the same point against dhat + dmin */
      s = build(ctx, m, X, 0.5 * h, 0.5 * h, 0, NULL);
      expect(s, out ? "diagonal, dmin, out" : "diagonal, dmin, in", w,
             (size_t)!out);
      fricl_collision_set_destroy(s);
      fricl_collision_mesh_destroy(m);
    }
  }
  /* Codimensional points (no edges): vv between the two near points,
   * weight 1 with or without areas (0.5 (1 + 1)). */
  {
    const double X[6] = {0, 0, 0.05, 0, 1, 1};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, X, 0, NULL, 0, NULL);
    for (int a = 0; a < 2; ++a) {
      fricl_collision_set *s = build(ctx, m, X, 0.1, 0, a ? AREA : 0, NULL);
      const want_t w[] = {{VV, 0, 1, -1, 1}};
      expect(s, "2-D codim. points", w, 1);
      fricl_collision_set_destroy(s);
    }
    fricl_collision_mesh_destroy(m);
  }
  /* The improved max approximator: a point inside a V, near its apex
   * (vertex 1), over the interiors of both edges: ev with both, and with
   * the approximator vv (1, 3) of weight (1 - 2) x the point's share:
   * -1, or -0.5 with areas (vertex 3's area is 1). */
  {
    const double X[8] = {-1, 0.5, 0, 0, 1, 0.5, 0, 0.1};
    const int32_t E[4] = {0, 1, 1, 2};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 4, X, 2, E, 0, NULL);
    for (int a = 0; a < 2; ++a) {
      const double u = a ? 0.5 : 1;
      fricl_collision_set *s = build(ctx, m, X, 0.2, 0, a ? AREA : 0, NULL);
      const want_t w[] = {{EV, 0, 3, -1, u}, {EV, 1, 3, -1, u}};
      expect(s, "2-D V, IPC", w, 2);
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.2, 0, IMP | (a ? AREA : 0), NULL);
      const want_t wi[] = {
          {EV, 0, 3, -1, u}, {EV, 1, 3, -1, u}, {VV, 1, 3, -1, -u}};
      expect(s, "2-D V, improved", wi, 3);
      fricl_collision_set_destroy(s);
    }
    fricl_collision_mesh_destroy(m);
  }
  /* A plane (the line y = 0): pv only below the candidate radius
   * (dhat + dmin) / 2 = 0.05: y = 0.04 and y = -0.5 (penetrating), not
   * y = 0.06 although it is within dhat; with dmin = 0.04 (radius 0.07)
   * y = 0.06 too. Weight: the vertex area (vertex 0: half its edge). */
  {
    const double X[8] = {0, 0.04, 1, 0.06, 2, -0.5, 0, 0.54};
    const int32_t E[2] = {0, 3};
    planes pl = {1, {0, 1}, {0}};
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 4, X, 1, E, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.1, 0, AREA, &pl);
    const want_t w[] = {{PV, 0, 0, -1, 0.25}, {PV, 0, 2, -1, 1}};
    expect(s, "2-D plane", w, 2);
    const fricl_barrier_group *g = group_of(s, PV);
    if (g && g->count == 2) {
      CHECK(g->vertices[0] == 0 && g->vertices[1] == 2, "2-D plane: vertices");
      const double *n = (const double *)g->plane_normal;
      const double *c = (const double *)g->plane_offset;
      CHECK(n && c && n[0] == 0 && n[1] == 1 && n[2] == 0 && n[3] == 1 &&
                c[0] == 0 && c[1] == 0,
            "2-D plane: the group's planes");
    }
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.1, 0.04, 0, &pl);
    const want_t wd[] = {
        {PV, 0, 0, -1, 1}, {PV, 0, 1, -1, 1}, {PV, 0, 2, -1, 1}};
    expect(s, "2-D plane, dmin", wd, 3);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
}

/* ------------------------------------------------------ hand scenes 3-D */

static void test_hand_3d(fricl_context *ctx) {
  /* One triangle whose edges are listed out of order: edge 2 is (1, 0). A
   * point over it (fv), near its edge (0, 1) (ev with edge id 2), near
   * vertex 0 (vv); weights 1, or a quarter of the point's area 1. */
  {
    const int32_t E[6] = {0, 2, 2, 1, 1, 0};
    const int32_t F[3] = {0, 1, 2};
    const double P[3][3] = {
        {0.25, 0.25, 0.1}, {0.5, -0.05, 0.05}, {-0.05, -0.05, 0.05}};
    for (int c = 0; c < 3; ++c) {
      double X[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
      memcpy(X + 9, P[c], sizeof P[c]);
      fricl_collision_mesh *m = mesh_rest(ctx, 3, 4, X, 3, E, 1, F);
      for (int a = 0; a < 2; ++a) {
        const double u = a ? 0.25 : 1;
        fricl_collision_set *s = build(ctx, m, X, 0.2, 0, a ? AREA : 0, NULL);
        if (c == 0) {
          const want_t w[] = {{FV, 0, 3, -1, u}};
          expect(s, "3-D fv", w, 1);
          const int32_t v[4] = {3, 0, 1, 2};
          expect_vertices(s, "3-D fv", FV, 0, v, 4);
          const fricl_barrier_group *g = group_of(s, FV);
          CHECK(g && g->distance_type && g->distance_type[0] == 6,
                "3-D fv: distance type, want 6 (the plane)");
        } else if (c == 1) {
          const want_t w[] = {{EV, 2, 3, -1, u}};
          expect(s, "3-D ev", w, 1);
          const int32_t v[3] = {3, 1, 0}; /* edge 2 as listed */
          expect_vertices(s, "3-D ev", EV, 0, v, 3);
        } else {
          const want_t w[] = {{VV, 0, 3, -1, u}};
          expect(s, "3-D vv", w, 1);
        }
        fricl_collision_set_destroy(s);
      }
      fricl_collision_mesh_destroy(m);
    }
  }
  /* Two crossing edges (no faces) 0.1 apart: ee of type 8 (EA_EB), not
   * mollified. Rest positions twice the positions: eps_x = 1e-3 4^2 4^2
   * and the edge areas (their rest lengths, 4) give w = (4 + 4) / 4. */
  {
    const double X[12] = {-1, 0, 0, 1, 0, 0, 0, -1, 0.1, 0, 1, 0.1};
    double R[12];
    for (int i = 0; i < 12; ++i)
      R[i] = 2 * X[i];
    const int32_t E[4] = {0, 1, 2, 3};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 4, R, 2, E, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.2, 0, 0, NULL);
    const want_t w[] = {{EE, 0, 1, 8, 1}};
    expect(s, "3-D crossing edges", w, 1);
    const double *eps = NULL;
    const int32_t *ids = NULL;
    if (fricl_collision_set_elements(s, FRICL_STENCIL_EE, &ids, &eps) == 1)
      CHECK(eps && fabs(eps[0] - 0.256) <= 1e-15,
            "3-D crossing edges: eps_x %.17g, want 0.256 (rest)",
            eps ? eps[0] : -1);
    const int32_t v[4] = {0, 1, 2, 3};
    expect_vertices(s, "3-D crossing edges", EE, 0, v, 4);
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.2, 0, AREA, NULL);
    const want_t wa[] = {{EE, 0, 1, 8, 2}};
    expect(s, "3-D crossing edges, area", wa, 1);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* Nearly parallel edges, |ea x eb|^2 = 1.01e-4 below eps_x = 1e-3
   * |ea|^2 |eb|^2: the pair stays ee with its actual type EA_EB0 (4) (the
   * closest points: b0 over the interior of ea). Turned further (|ea x
   * eb|^2 = 0.0225 > eps_x) the same pair reduces to ev (0, 2). */
  {
    const double X[12] = {0, 0, 0, 1, 0, 0, 0.2, 0.05, 0.001, 1.2, 0.06, 0};
    const int32_t E[4] = {0, 1, 2, 3};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 4, X, 2, E, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.1, 0, 0, NULL);
    const want_t w[] = {{EE, 0, 1, 4, 1}};
    expect(s, "3-D nearly parallel", w, 1);
    const double *eps = NULL;
    const int32_t *ids = NULL;
    if (fricl_collision_set_elements(s, FRICL_STENCIL_EE, &ids, &eps) == 1)
      CHECK(eps && fabs(eps[0] - 1.000101e-3) <= 1e-15,
            "3-D nearly parallel: eps_x %.17g", eps ? eps[0] : -1);
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.1, 0, AREA, NULL);
    const want_t wa[] = {{EE, 0, 1, 4, 0.25 * (1 + sqrt(1.000101))}};
    expect(s, "3-D nearly parallel, area", wa, 1);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
    double Y[12];
    memcpy(Y, X, sizeof Y);
    Y[10] = 0.2;
    m = mesh_rest(ctx, 3, 4, Y, 2, E, 0, NULL);
    s = build(ctx, m, Y, 0.1, 0, 0, NULL);
    const want_t wt[] = {{EV, 0, 2, -1, 1}};
    expect(s, "3-D turned edges", wt, 1);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* The improved max approximator on edge-edge pairs: edge A = (0, 1), a
   * polyline 2-3-4 over it, (2, 3) nearly parallel to A (|ea x eb|^2 =
   * 1e-4 < eps_x = 2.501e-4, closest: vertex 3 over A's interior) and
   * (3, 4) rising from vertex 3 (not mollified: ev (A, 3)). The regular ee
   * collision is made in the order (smaller edge id, larger). The
   * approximator's ev candidates (A, 2) and (A, 3) make the mollified
   * corrections in the order (A, (2, 3)), types EA_EB0 (4) and EA_EB1 (5),
   * weight -1; (A, 2) counts no unmollified edge, so ev (A, 2) gets
   * (0 - 1) (-1) = +1; (A, 3) counts one and adds nothing. As in ipctk, ee
   * collisions are one when they join the same edges (either order) with
   * the same stored type; the first one made keeps its order.
   * A first (A = 0, (2, 3) = 1): the regular (0, 1) EA_EB1 (5) and the
   * correction (0, 1) EA_EB1 are one, weight 1 - 1 = 0, dropped; (0, 1)
   * EA_EB0 stays at -1.
   * A last ((2, 3) = 0, A = 2): the regular one is (0, 2) with vertex 3 =
   * edge 0's second vertex over A: EA1_EB (7); the corrections (2, 0) of
   * raw types 4 and 5 merge with nothing: three ee collisions (the +1 of
   * type 7 and the -1 of (2, 0) type 5 are the same distance, so the
   * potential is that of the first numbering).
   * With areas (edge lengths: A 1, (2, 3) L, (3, 4) 1): the regular ee
   * 0.25 (1 + L), the corrections -0.25 |A| each (A first: the merged
   * EA_EB1 0.25 (1 + L) - 0.25 = 0.25 L), ev (A, 3) 0.25 (1 + 1), ev (A,
   * 2) 0.25 |A|. Each set checked against ipctk 1.6.1 (BruteForce). */
  {
    const double X[15] = {0,    0,   0,     1,    0,   0,     0.2, 0.012,
                          0.05, 0.7, 0.002, 0.05, 0.7, 0.002, 1.05};
    const double L = sqrt(0.25 + 0.0001);
    const double r = 0.25 * (1 + L);
    const int32_t E0[6] = {0, 1, 2, 3, 3, 4}, E1[6] = {2, 3, 3, 4, 0, 1};
    /* A first */
    {
      fricl_collision_mesh *m = mesh_rest(ctx, 3, 5, X, 3, E0, 0, NULL);
      const char *what = "3-D polyline";
      fricl_collision_set *s = build(ctx, m, X, 0.1, 0, 0, NULL);
      const want_t w[] = {{EE, 0, 1, 5, 1}, {EV, 0, 3, -1, 1}};
      expect(s, what, w, 2);
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.1, 0, AREA, NULL);
      const want_t wa[] = {{EE, 0, 1, 5, r}, {EV, 0, 3, -1, 0.5}};
      expect(s, what, wa, 2);
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.1, 0, IMP, NULL);
      const want_t wi[] = {
          {EE, 0, 1, 4, -1}, {EV, 0, 3, -1, 1}, {EV, 0, 2, -1, 1}};
      expect(s, "3-D polyline, improved", wi, 3);
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.1, 0, IMP | AREA, NULL);
      const want_t wia[] = {{EE, 0, 1, 4, -0.25},
                            {EE, 0, 1, 5, 0.25 * L},
                            {EV, 0, 3, -1, 0.5},
                            {EV, 0, 2, -1, 0.25}};
      expect(s, "3-D polyline, improved, area", wia, 4);
      fricl_collision_set_destroy(s);
      fricl_collision_mesh_destroy(m);
    }
    /* A last */
    {
      fricl_collision_mesh *m = mesh_rest(ctx, 3, 5, X, 3, E1, 0, NULL);
      const char *what = "3-D polyline (A last)";
      fricl_collision_set *s = build(ctx, m, X, 0.1, 0, 0, NULL);
      const want_t w[] = {{EE, 0, 2, 7, 1}, {EV, 2, 3, -1, 1}};
      expect(s, what, w, 2);
      const int32_t v[4] = {2, 3, 0, 1};
      expect_vertices(s, what, EE, 0, v, 4);
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.1, 0, AREA, NULL);
      const want_t wa[] = {{EE, 0, 2, 7, r}, {EV, 2, 3, -1, 0.5}};
      expect(s, what, wa, 2);
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.1, 0, IMP, NULL);
      const want_t wi[] = {{EE, 0, 2, 7, 1},
                           {EE, 2, 0, 4, -1},
                           {EE, 2, 0, 5, -1},
                           {EV, 2, 3, -1, 1},
                           {EV, 2, 2, -1, 1}};
      expect(s, "3-D polyline (A last), improved", wi, 5);
      /* stored in the order made: the vertices of (A, (2, 3)) */
      const int32_t *ids = NULL;
      const size_t n =
          fricl_collision_set_elements(s, FRICL_STENCIL_EE, &ids, NULL);
      for (size_t j = 0; j < n; ++j)
        if (ids[2 * j] == 2) {
          const int32_t va[4] = {0, 1, 2, 3};
          expect_vertices(s, "3-D polyline (A last), improved", EE, j, va, 4);
        }
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.1, 0, IMP | AREA, NULL);
      const want_t wia[] = {{EE, 0, 2, 7, r},
                            {EE, 2, 0, 4, -0.25},
                            {EE, 2, 0, 5, -0.25},
                            {EV, 2, 3, -1, 0.5},
                            {EV, 2, 2, -1, 0.25}};
      expect(s, "3-D polyline (A last), improved, area", wia, 5);
      fricl_collision_set_destroy(s);
      fricl_collision_mesh_destroy(m);
    }
  }
  /* The same with vertex 2 beyond A's start: the regular ee is (0, 1)
   * EA_EB1 (5) again. The approximator pair (A, 2) is of point-edge type
   * P_E0, so the mollified correction (0, 1) gets EA0_EB0 (0) and the
   * positive remainder is vv (0, 2); (A, 3) makes (0, 1) EA_EB1, which
   * merges with the regular one (1 - 1 = 0, dropped). Vertex 0 is over
   * the interior of (2, 3), so the pair (edge 1, vertex 0) makes the
   * correction in the order (1, 0), type EA_EB0 (4) - stored as made,
   * merging with nothing - and ev (1, 0). With areas the corrections
   * scale by 0.25 x the area of their first edge (A: 1, (2, 3): L) and
   * the regular ee keeps 0.25 (1 + L) - 0.25 = 0.25 L. Checked against
   * ipctk 1.6.1 (BruteForce). */
  {
    const double X[15] = {0,    0,    0,     1,    0,    0,     -0.05, 0.012,
                          0.05, 0.45, 0.002, 0.05, 0.45, 0.002, 1.05};
    const int32_t E[6] = {0, 1, 2, 3, 3, 4};
    const double L = sqrt(0.25 + 0.0001);
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 5, X, 3, E, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.1, 0, 0, NULL);
    const want_t wr[] = {{EE, 0, 1, 5, 1}, {EV, 0, 3, -1, 1}};
    expect(s, "3-D polyline, P_E0, IPC", wr, 2);
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.1, 0, IMP, NULL);
    const want_t w[] = {{EE, 0, 1, 0, -1},
                        {EE, 1, 0, 4, -1},
                        {VV, 0, 2, -1, 1},
                        {EV, 0, 3, -1, 1},
                        {EV, 1, 0, -1, 1}};
    expect(s, "3-D polyline, P_E0", w, 5);
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.1, 0, IMP | AREA, NULL);
    const want_t wa[] = {{EE, 0, 1, 0, -0.25},    {EE, 1, 0, 4, -0.25 * L},
                         {EE, 0, 1, 5, 0.25 * L}, {VV, 0, 2, -1, 0.25},
                         {EV, 0, 3, -1, 0.5},     {EV, 1, 0, -1, 0.25 * L}};
    expect(s, "3-D polyline, P_E0, area", wa, 6);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* Nearly exactly parallel: |ea x eb|^2 = 1e-18, below ipctk's relative
   * parallel threshold 2.5e-16 |ea|^2 |eb|^2, so the parallel
   * classification decides: b1 over the interior of ea, EA_EB1 (the
   * line-line branch would say EA0_EB). Mollified: stays ee. */
  {
    const double X[12] = {0, 0, 0, 1, 0, 0, -0.3, 0.05, 0, 0.2, 0.05, 1e-9};
    const int32_t E[4] = {0, 1, 2, 3};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 4, X, 2, E, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.1, 0, 0, NULL);
    const want_t w[] = {{EE, 0, 1, 5, 1}};
    expect(s, "3-D parallel to 1e-9", w, 1);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* Codim. points in 3-D: vv between the near two. */
  {
    const double X[9] = {0, 0, 0, 0.05, 0, 0.01, 1, 1, 1};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 3, X, 0, NULL, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.1, 0, 0, NULL);
    const want_t w[] = {{VV, 0, 1, -1, 1}};
    expect(s, "3-D codim. points", w, 1);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* Planes z = 0 and x = 3.03 (normal -x): the candidate radius
   * (dhat + dmin) / 2 decides (z = 0.06 is out at dmin = 0, in at 0.04);
   * the plane index is the id. */
  {
    const double X[12] = {0, 0, 0.04, 1, 0, 0.06, 2, 0, 0.15, 3, 0, -0.5};
    planes pl = {2, {0, 0, 1, -1, 0, 0}, {0, 3.03}};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 4, X, 0, NULL, 0, NULL);
    fricl_collision_set *s = build(ctx, m, X, 0.1, 0, 0, &pl);
    const want_t w[] = {
        {PV, 0, 0, -1, 1}, {PV, 0, 3, -1, 1}, {PV, 1, 3, -1, 1}};
    expect(s, "3-D planes", w, 3);
    const fricl_barrier_group *g = group_of(s, PV);
    if (g && g->count == 3) {
      const double *n = (const double *)g->plane_normal;
      const double *c = (const double *)g->plane_offset;
      CHECK(n[8] == 0 && n[6] == -1 && c[2] == 3.03 && c[0] == 0 &&
                g->vertices[2] == 3,
            "3-D planes: the third collision is plane 1");
    }
    fricl_collision_set_destroy(s);
    s = build(ctx, m, X, 0.1, 0.04, 0, &pl);
    const want_t wd[] = {{PV, 0, 0, -1, 1},
                         {PV, 0, 1, -1, 1},
                         {PV, 0, 3, -1, 1},
                         {PV, 1, 3, -1, 1}};
    expect(s, "3-D planes, dmin", wd, 4);
    fricl_collision_set_destroy(s);
    /* dmin > dhat: the radius 0.2 exceeds dhat; z = 0.15 is within
     * dhat + dmin = 0.4 (though past dhat) and kept. */
    s = build(ctx, m, X, 0.1, 0.3, 0, &pl);
    const want_t wb[] = {{PV, 0, 0, -1, 1},
                         {PV, 0, 1, -1, 1},
                         {PV, 0, 2, -1, 1},
                         {PV, 0, 3, -1, 1},
                         {PV, 1, 3, -1, 1}};
    expect(s, "3-D planes, dmin > dhat", wb, 5);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
  /* The improved max approximator in 3-D: a point just off the shared
   * edge (0, 1) of two triangles, over face 0 (fv) and beside face 1
   * (whose closest feature is the edge: ev (0, 4)). The approximator
   * subtracts (2 - 1) x the point's share on that edge: the ev weight
   * sums to exactly 0 and is dropped. */
  {
    const double X[15] = {0, 0,   0,  1, 0,   0,     0.5, 1,
                          0, 0.5, -1, 0, 0.5, 0.001, 0.05};
    const int32_t F[6] = {0, 1, 2, 1, 0, 3};
    const int32_t E[10] = {0, 1, 1, 2, 2, 0, 0, 3, 3, 1};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 5, X, 5, E, 2, F);
    for (int a = 0; a < 2; ++a) {
      const double u = a ? 0.25 : 1;
      fricl_collision_set *s = build(ctx, m, X, 0.2, 0, a ? AREA : 0, NULL);
      const want_t w[] = {{FV, 0, 4, -1, u}, {EV, 0, 4, -1, u}};
      expect(s, "3-D shared edge, IPC", w, 2);
      fricl_collision_set_destroy(s);
      s = build(ctx, m, X, 0.2, 0, IMP | (a ? AREA : 0), NULL);
      const want_t wi[] = {{FV, 0, 4, -1, u}};
      expect(s, "3-D shared edge, improved", wi, 1);
      fricl_collision_set_destroy(s);
    }
    fricl_collision_mesh_destroy(m);
  }
  /* A point near vertex 0 of the same two triangles (vertex region of
   * both: P_T0 of face 0, P_T1 of face 1): vv (0, 4) twice, weight 2. The
   * approximator subtracts (2 - 1) along edge (0, 1) (two faces; the
   * point-edge type is P_E0: vv (0, 4) again) and adds one for vertex 0
   * (interior, not adjacent to 4; vertex 4 is a boundary vertex and adds
   * nothing): 2 - 1 + 1, and with areas 0.25 (2 - 1 + 1). */
  {
    const double X[15] = {0, 0,   0,  1, 0,     0,    0.5, 1,
                          0, 0.5, -1, 0, -0.02, 0.01, 0.05};
    const int32_t F[6] = {0, 1, 2, 1, 0, 3};
    const int32_t E[10] = {0, 1, 1, 2, 2, 0, 0, 3, 3, 1};
    fricl_collision_mesh *m = mesh_rest(ctx, 3, 5, X, 5, E, 2, F);
    for (int c = 0; c < 4; ++c) {
      const uint32_t flags = (c & 1 ? AREA : 0) | (c & 2 ? IMP : 0);
      fricl_collision_set *s = build(ctx, m, X, 0.2, 0, flags, NULL);
      const want_t w[] = {{VV, 0, 4, -1, c & 1 ? 0.5 : 2}};
      expect(s,
             flags & IMP ? "3-D interior vertex, improved"
                         : "3-D interior vertex",
             w, 1);
      fricl_collision_set_destroy(s);
    }
    fricl_collision_mesh_destroy(m);
  }
}

/* ----------------------------------------------------------- areas */

static void close_to(const char *what, size_t i, double got, double want) {
  CHECK(fabs(got - want) <= 1e-15 * fabs(want), "%s[%zu] = %.17g, want %.17g",
        what, i, got, want);
}

static void test_areas(fricl_context *ctx) {
  /* Two triangles of area 1 sharing edge (1, 2); a codim. polyline 4-5-6
   * of lengths 3 and 3; a codim. edge (2, 4) from a face vertex; a codim.
   * vertex 7. Vertex areas: faces / 3 first, else half the incident edge
   * lengths, else 1; edge areas: faces / 3, else the length. */
  const double X[24] = {0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 1, 0,
                        0, 0, 1, 0, 0, 4, 0, 3, 4, 5, 5, 5};
  const int32_t F[6] = {0, 1, 2, 1, 3, 2};
  const int32_t E[16] = {0, 1, 1, 2, 2, 0, 1, 3, 3, 2, 4, 5, 5, 6, 2, 4};
  fricl_collision_mesh *m = mesh_rest(ctx, 3, 8, X, 8, E, 2, F);
  const double *va = NULL, *ea = NULL;
  fricl_collision_mesh_areas(m, &va, &ea);
  CHECK(va && ea, "areas: NULL");
  if (va && ea) {
    const double third = 1.0 / 3, two = 2.0 / 3, r2 = sqrt(2.0);
    const double wv[8] = {third, two, two, third, 0.5 * (3 + r2), 3, 1.5, 1};
    const double we[8] = {third, two, third, third, third, 3, 3, r2};
    for (size_t i = 0; i < 8; ++i) {
      close_to("vertex_areas", i, va[i], wv[i]);
      close_to("edge_areas", i, ea[i], we[i]);
    }
  }
  fricl_collision_mesh_destroy(m);
  /* 2-D: a polyline (0,0)-(3,0)-(6,4) and a point. */
  const double Y[8] = {0, 0, 3, 0, 6, 4, 9, 9};
  const int32_t E2[4] = {0, 1, 1, 2};
  m = mesh_rest(ctx, 2, 4, Y, 2, E2, 0, NULL);
  fricl_collision_mesh_areas(m, &va, &ea);
  if (va && ea) {
    const double wv[4] = {1.5, 4, 2.5, 1}, we[2] = {3, 5};
    for (size_t i = 0; i < 4; ++i)
      close_to("2-D vertex_areas", i, va[i], wv[i]);
    for (size_t i = 0; i < 2; ++i)
      close_to("2-D edge_areas", i, ea[i], we[i]);
  }
  fricl_collision_mesh_destroy(m);
  {
    const double Z[10] = {0, 0, 3, 0, 3, 4, 1, 0.05, 2, 0.05};
    const int32_t E3[6] = {0, 1, 1, 2, 3, 4};
    m = mesh_rest(ctx, 2, 5, Z, 3, E3, 0, NULL);
    fricl_collision_set *s = build(ctx, m, Z, 0.1, 0, AREA, NULL);
    /* The ends 3, 4 of a short edge (area 0.5 each) over edge 0: ev of
     * weight half their area; vertices 0, 1 are far from edge 2. */
    const want_t w[] = {{EV, 0, 3, -1, 0.25}, {EV, 0, 4, -1, 0.25}};
    expect(s, "2-D areas in weights", w, 2);
    fricl_collision_set_destroy(s);
    fricl_collision_mesh_destroy(m);
  }
}

/* ------------------------------------------------------- random scenes */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double urange(double a, double b) { return a + (b - a) * urand(); }

typedef struct scene {
  int dim;
  size_t nv, ne, nf;
  double *x, *rest, dhat;
  int32_t *e, *f;
} scene;

static void scene_free(scene *s) {
  free(s->x);
  free(s->rest);
  free(s->e);
  free(s->f);
  memset(s, 0, sizeof *s);
}

/* 3-D: `layers` n x n cloths stacked within dhat (jittered), `nseg`
 * codim. edges and `npts` codim. points among them. */
static void cloth_scene(scene *s, int n, int layers, int nseg, int npts) {
  memset(s, 0, sizeof *s);
  s->dim = 3;
  const double h = 1.0 / (n - 1);
  s->dhat = 0.5 * h;
  const size_t ng = (size_t)n * n;
  s->nv = layers * ng + 2 * (size_t)nseg + npts;
  s->ne = (size_t)layers * (3 * (size_t)(n - 1) * (n - 1) + 2 * (n - 1)) + nseg;
  s->nf = (size_t)layers * 2 * (n - 1) * (n - 1);
  s->x = (double *)malloc(3 * s->nv * sizeof(double));
  s->rest = (double *)malloc(3 * s->nv * sizeof(double));
  s->e = (int32_t *)malloc(2 * s->ne * sizeof(int32_t));
  s->f = (int32_t *)malloc(3 * s->nf * sizeof(int32_t));
  size_t v = 0, e = 0, f = 0;
  for (int l = 0; l < layers; ++l) {
    const int32_t base = (int32_t)v;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c, ++v) {
        s->rest[3 * v] = c * h;
        s->rest[3 * v + 1] = r * h;
        s->rest[3 * v + 2] = l * 0.4 * h;
        s->x[3 * v] = s->rest[3 * v] + 0.05 * h * urange(-1, 1);
        s->x[3 * v + 1] = s->rest[3 * v + 1] + 0.05 * h * urange(-1, 1);
        s->x[3 * v + 2] = s->rest[3 * v + 2] + 0.05 * h * urange(-1, 1);
      }
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        const int32_t a = base + r * n + c;
        if (c < n - 1) {
          s->e[2 * e] = a;
          s->e[2 * e++ + 1] = a + 1;
        }
        if (r < n - 1) {
          s->e[2 * e] = a;
          s->e[2 * e++ + 1] = a + n;
        }
        if (r < n - 1 && c < n - 1) {
          s->e[2 * e] = a + n + 1; /* listed reversed */
          s->e[2 * e++ + 1] = a;
          const int32_t t[6] = {a, a + 1, a + n + 1, a, a + n + 1, a + n};
          memcpy(s->f + 3 * f, t, sizeof t);
          f += 2;
        }
      }
  }
  for (int i = 0; i < nseg; ++i, v += 2) {
    const double p[3] = {urange(0, 1), urange(0, 1), urange(-0.1, 0.6) * h};
    const double d[3] = {urange(-3, 3) * h, urange(-3, 3) * h,
                         urange(-0.3, 0.3) * h};
    for (int k = 0; k < 3; ++k) {
      s->x[3 * v + k] = s->rest[3 * v + k] = p[k];
      s->x[3 * v + 3 + k] = s->rest[3 * v + 3 + k] = p[k] + d[k];
    }
    s->e[2 * e] = (int32_t)v;
    s->e[2 * e++ + 1] = (int32_t)v + 1;
  }
  for (int i = 0; i < npts; ++i, ++v) {
    s->x[3 * v] = s->rest[3 * v] = urange(0, 1);
    s->x[3 * v + 1] = s->rest[3 * v + 1] = urange(0, 1);
    s->x[3 * v + 2] = s->rest[3 * v + 2] = urange(-0.1, 0.6) * h;
  }
  /* a few points in pairs: codim. vv */
  for (int i = 0; i + 1 < npts; i += 4) {
    const size_t a = s->nv - npts + i;
    for (int k = 0; k < 3; ++k)
      s->x[3 * (a + 1) + k] = s->x[3 * a + k] + urange(-0.3, 0.3) * h;
  }
  CHECK(v == s->nv && e == s->ne && f == s->nf, "cloth scene sizes");
}

/* 2-D: `lines` zigzag polylines of n vertices stacked within dhat and
 * `npts` codim. points. */
static void poly_scene(scene *s, int lines, int n, int npts) {
  memset(s, 0, sizeof *s);
  s->dim = 2;
  const double h = 1.0 / (n - 1);
  s->dhat = 0.5 * h;
  s->nv = (size_t)lines * n + npts;
  s->ne = (size_t)lines * (n - 1);
  s->x = (double *)malloc(2 * s->nv * sizeof(double));
  s->rest = (double *)malloc(2 * s->nv * sizeof(double));
  s->e = (int32_t *)malloc(2 * s->ne * sizeof(int32_t));
  size_t v = 0, e = 0;
  for (int l = 0; l < lines; ++l)
    for (int i = 0; i < n; ++i, ++v) {
      s->rest[2 * v] = i * h;
      s->rest[2 * v + 1] = l * 0.45 * h + (i % 2) * 0.3 * h;
      s->x[2 * v] = s->rest[2 * v] + 0.05 * h * urange(-1, 1);
      s->x[2 * v + 1] = s->rest[2 * v + 1] + 0.05 * h * urange(-1, 1);
      if (i + 1 < n) {
        s->e[2 * e] = (int32_t)v + (i % 3 == 0);
        s->e[2 * e++ + 1] = (int32_t)v + (i % 3 != 0);
      }
    }
  for (int i = 0; i < npts; ++i, ++v) {
    s->x[2 * v] = s->rest[2 * v] = urange(0, 1);
    s->x[2 * v + 1] = s->rest[2 * v + 1] = urange(-0.2, lines * 0.5) * h;
  }
  for (int i = 0; i + 1 < npts; i += 3) {
    const size_t a = s->nv - npts + i;
    for (int k = 0; k < 2; ++k)
      s->x[2 * (a + 1) + k] = s->x[2 * a + k] + urange(-0.3, 0.3) * h;
  }
}

/* One plane along the scene's last axis (y in 2-D, z in 3-D) at offset
 * 0.1 dhat. */
static planes floor_plane(const scene *s) {
  planes pl = {1, {0, 0, 1}, {0.1 * s->dhat}};
  if (s->dim == 2) {
    pl.normal[0] = 0;
    pl.normal[1] = 1;
  }
  return pl;
}

static fricl_collision_mesh *scene_mesh(fricl_context *ctx, const scene *s) {
  return mesh_rest(ctx, s->dim, s->nv, s->rest, s->ne, s->e, s->nf, s->f);
}

/* Two sets equal bit for bit: elements, groups, every array. */
static int same_sets(const fricl_collision_set *a, const fricl_collision_set *b,
                     int dim, const char *what) {
  int ok = 1;
  for (int t = 0; t < 5; ++t) {
    const int32_t *ia = NULL, *ib = NULL;
    const double *ea = NULL, *eb = NULL;
    const size_t na =
        fricl_collision_set_elements(a, (fricl_stencil)t, &ia, &ea);
    const size_t nb =
        fricl_collision_set_elements(b, (fricl_stencil)t, &ib, &eb);
    if (na != nb || (na && memcmp(ia, ib, 2 * na * sizeof *ia)) ||
        (na && t == EE && memcmp(ea, eb, na * sizeof *ea))) {
      CHECK(0, "%s: %s elements differ (%zu vs %zu)", what, TN[t], na, nb);
      ok = 0;
    }
  }
  const fricl_barrier_group *ga = NULL, *gb = NULL;
  const size_t na = fricl_collision_set_groups(a, &ga);
  const size_t nb = fricl_collision_set_groups(b, &gb);
  if (na != nb) {
    CHECK(0, "%s: %zu vs %zu groups", what, na, nb);
    return 0;
  }
  for (size_t i = 0; i < na; ++i) {
    const fricl_barrier_group *x = &ga[i], *y = &gb[i];
    const size_t n = x->count;
    const int k = fricl_stencil_vertex_count(x->type);
    int g =
        x->type == y->type && n == y->count &&
        !memcmp(x->vertices, y->vertices, n * k * sizeof(int32_t)) &&
        !memcmp(x->weight, y->weight, n * sizeof(double)) &&
        !memcmp(x->dmin, y->dmin, n * sizeof(double)) &&
        (x->distance_type == NULL) == (y->distance_type == NULL) &&
        (!x->distance_type || !memcmp(x->distance_type, y->distance_type, n)) &&
        (x->plane_normal == NULL) == (y->plane_normal == NULL) &&
        (!x->plane_normal ||
         (!memcmp(x->plane_normal, y->plane_normal, n * dim * sizeof(double)) &&
          !memcmp(x->plane_offset, y->plane_offset, n * sizeof(double))));
    if (!g) {
      CHECK(0, "%s: group %zu (%s) differs", what, i, TN[x->type]);
      ok = 0;
    }
  }
  return ok;
}

static size_t set_total(const fricl_collision_set *s) {
  size_t n = 0;
  for (int t = 0; t < 5; ++t)
    n += fricl_collision_set_count(s, (fricl_stencil)t);
  return n;
}

static int has_negative_weight(const fricl_collision_set *s) {
  const fricl_barrier_group *g = NULL;
  const size_t n = fricl_collision_set_groups(s, &g);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < g[i].count; ++j)
      if (((const double *)g[i].weight)[j] < 0)
        return 1;
  return 0;
}

static void test_determinism(fricl_context *one, fricl_context *many) {
  for (int sc = 0; sc < 2; ++sc) {
    scene s;
    if (sc == 0)
      cloth_scene(&s, 14, 3, 12, 24);
    else
      poly_scene(&s, 4, 30, 20);
    const planes pl = floor_plane(&s);
    fricl_collision_mesh *m1 = scene_mesh(one, &s);
    fricl_collision_mesh *m4 = scene_mesh(many, &s);
    for (int c = 0; c < 8; ++c) {
      const uint32_t flags = (c & 1 ? AREA : 0) | (c & 2 ? IMP : 0);
      const double dmin = c & 4 ? 0.2 * s.dhat : 0;
      char what[96];
      snprintf(what, sizeof what, "determinism %dD flags %u dmin %g", s.dim,
               (unsigned)flags, dmin);
      fricl_collision_set *a = build(one, m1, s.x, s.dhat, dmin, flags, &pl);
      fricl_collision_set *b = build(many, m4, s.x, s.dhat, dmin, flags, &pl);
      /* the mesh of the other context: meshes are plain data */
      fricl_collision_set *c2 = build(many, m1, s.x, s.dhat, dmin, flags, &pl);
      if (a && b && c2) {
        same_sets(a, b, s.dim, what);
        same_sets(a, c2, s.dim, what);
        CHECK(set_total(a) > 100, "%s: only %zu collisions", what,
              set_total(a));
        CHECK(fricl_collision_set_count(a, FRICL_STENCIL_PV) > 0 &&
                  fricl_collision_set_count(a, FRICL_STENCIL_VV) > 0,
              "%s: no pv or vv", what);
        if (s.dim == 3)
          CHECK(fricl_collision_set_count(a, FRICL_STENCIL_EE) > 0 &&
                    fricl_collision_set_count(a, FRICL_STENCIL_FV) > 0,
                "%s: no ee or fv", what);
        if (flags & IMP)
          CHECK(has_negative_weight(a), "%s: no negative weight", what);
      }
      /* Rebuilt in place: another configuration, then this one again. */
      if (b) {
        double *y = (double *)malloc(s.nv * s.dim * sizeof(double));
        for (size_t i = 0; i < s.nv * s.dim; ++i)
          y[i] = s.x[i] + 0.3 * s.dhat * urange(-1, 1);
        fricl_collisions_options o;
        fricl_collisions_options_init(&o);
        o.flags = flags;
        o.dhat = s.dhat;
        o.dmin = dmin;
        o.n_planes = 1;
        o.plane_normals = pl.normal;
        o.plane_offsets = pl.offset;
        fricl_collision_set *keep = b;
        fricl_status st = fricl_collisions_build(many, m4, y, &o, &b);
        CHECK(st == FRICL_STATUS_OK && b == keep, "%s: rebuild", what);
        fricl_collision_set *fresh =
            build(many, m4, y, s.dhat, dmin, flags, &pl);
        if (fresh)
          same_sets(b, fresh, s.dim, "rebuilt (other positions)");
        fricl_collision_set_destroy(fresh);
        st = fricl_collisions_build(many, m4, s.x, &o, &b);
        CHECK(st == FRICL_STATUS_OK && b == keep, "%s: rebuild", what);
        if (a)
          same_sets(a, b, s.dim, "rebuilt (same positions)");
        free(y);
      }
      fricl_collision_set_destroy(a);
      fricl_collision_set_destroy(b);
      fricl_collision_set_destroy(c2);
    }
    /* Candidates too. */
    fricl_collisions_options o;
    fricl_collisions_options_init(&o);
    o.n_planes = 1;
    o.plane_normals = pl.normal;
    o.plane_offsets = pl.offset;
    fricl_candidate_set *ca = NULL, *cb = NULL;
    CHECK(fricl_candidates_build(one, m1, s.x, s.rest, 0.5 * s.dhat, &o, &ca) ==
                  FRICL_STATUS_OK &&
              fricl_candidates_build(many, m4, s.x, s.rest, 0.5 * s.dhat, &o,
                                     &cb) == FRICL_STATUS_OK,
          "determinism: candidates");
    for (int t = 0; ca && cb && t < 5; ++t) {
      const int32_t *pa = NULL, *pb = NULL;
      const size_t na = fricl_candidate_set_pairs(ca, (fricl_stencil)t, &pa);
      const size_t nb = fricl_candidate_set_pairs(cb, (fricl_stencil)t, &pb);
      CHECK(na == nb && (!na || !memcmp(pa, pb, 2 * na * sizeof *pa)),
            "determinism: %s candidates differ (%zu vs %zu)", TN[t], na, nb);
    }
    fricl_candidate_set_destroy(ca);
    fricl_candidate_set_destroy(cb);
    fricl_collision_mesh_destroy(m1);
    fricl_collision_mesh_destroy(m4);
    scene_free(&s);
  }
}

/* ------------------------------------------------ relabelling */

/* One collision in the ids of the unpermuted mesh. */
typedef struct key {
  int type, dtype;
  int32_t a, b;
  double w, eps;
} key;

static int cmp_key(const void *x, const void *y) {
  const key *p = (const key *)x, *q = (const key *)y;
  if (p->type != q->type)
    return p->type - q->type;
  if (p->a != q->a)
    return (p->a > q->a) - (p->a < q->a);
  if (p->b != q->b)
    return (p->b > q->b) - (p->b < q->b);
  return p->dtype - q->dtype;
}

/* How keys_of writes the ee collisions: as stored (ids mapped), in the
 * order (smaller edge, larger) with the type swapped accordingly, or so
 * and the type replaced by its class {t, swap(t)} with the weights of
 * equal keys summed. */
enum { EE_RAW, EE_CANONICAL, EE_ORBIT };

/* The collisions of a set with ids mapped through the inverse
 * permutations (vi, ei, fi; NULL: identity), vv as (smaller, larger), ee
 * as `ee` says, sorted. */
static key *keys_of(const fricl_collision_set *s, const int32_t *vi,
                    const int32_t *ei, const int32_t *fi, int ee, size_t *n) {
  static const int swap[9] = {0, 2, 1, 3, 6, 7, 4, 5, 8};
  static const int orbit[9] = {0, 1, 1, 3, 4, 5, 4, 5, 8};
  *n = set_total(s);
  key *k = (key *)calloc(*n + 1, sizeof *k);
  size_t c = 0;
  for (int t = 0; t < 5; ++t) {
    const int32_t *ids = NULL;
    const double *eps = NULL;
    const size_t m =
        fricl_collision_set_elements(s, (fricl_stencil)t, &ids, &eps);
    const fricl_barrier_group *g = group_of(s, t);
    for (size_t j = 0; j < m; ++j, ++c) {
      int32_t a = ids[2 * j], b = ids[2 * j + 1];
      int dt = t == EE ? g->distance_type[j] : -1;
      if (t == VV && vi) {
        a = vi[a];
        b = vi[b];
      } else if ((t == EV || t == EE) && ei) {
        a = ei[a];
        b = t == EE ? ei[b] : vi[b];
      } else if (t == EV && vi) {
        b = vi[b];
      } else if (t == FV) {
        a = fi ? fi[a] : a;
        b = vi ? vi[b] : b;
      } else if (t == PV && vi) {
        b = vi[b];
      }
      if ((t == VV || (t == EE && ee != EE_RAW)) && a > b) {
        const int32_t x = a;
        a = b;
        b = x;
        if (t == EE)
          dt = swap[dt];
      }
      if (t == EE && ee == EE_ORBIT)
        dt = orbit[dt];
      k[c].type = t;
      k[c].a = a;
      k[c].b = b;
      k[c].dtype = dt;
      k[c].w = ((const double *)g->weight)[j];
      k[c].eps = t == EE ? eps[j] : 0;
    }
  }
  qsort(k, *n, sizeof *k, cmp_key);
  if (ee == EE_ORBIT && *n) {
    size_t w = 0;
    for (size_t i = 1; i < *n; ++i) {
      if (cmp_key(&k[w], &k[i]) == 0)
        k[w].w += k[i].w;
      else
        k[++w] = k[i];
    }
    *n = w + 1;
  }
  return k;
}

/* The same collisions and weights (sums in another order: 1e-13 of the
 * largest weight; a collision whose weight cancels may be on one side). */
static void same_keys(const key *p, size_t np, const key *q, size_t nq,
                      const char *what) {
  double big = 0;
  for (size_t i = 0; i < np; ++i)
    big = fmax(big, fabs(p[i].w));
  const double tol = 1e-13 * big;
  size_t i = 0, j = 0, bad = 0;
  while (i < np || j < nq) {
    const int c = i == np ? 1 : (j == nq ? -1 : cmp_key(&p[i], &q[j]));
    if (c < 0) {
      bad += fabs(p[i].w) > tol;
      if (fabs(p[i].w) > tol && bad <= 3)
        CHECK(0, "%s: %s (%d, %d) type %d w %g only before relabelling", what,
              TN[p[i].type], (int)p[i].a, (int)p[i].b, p[i].dtype, p[i].w);
      ++i;
    } else if (c > 0) {
      bad += fabs(q[j].w) > tol;
      if (fabs(q[j].w) > tol && bad <= 3)
        CHECK(0, "%s: %s (%d, %d) type %d w %g only after relabelling", what,
              TN[q[j].type], (int)q[j].a, (int)q[j].b, q[j].dtype, q[j].w);
      ++j;
    } else {
      const int ok = fabs(p[i].w - q[j].w) <= tol &&
                     fabs(p[i].eps - q[j].eps) <= 1e-14 * fabs(p[i].eps);
      bad += !ok;
      if (!ok && bad <= 3)
        CHECK(0, "%s: %s (%d, %d) type %d: w %.17g vs %.17g", what,
              TN[p[i].type], (int)p[i].a, (int)p[i].b, p[i].dtype, p[i].w,
              q[j].w);
      ++i;
      ++j;
    }
  }
  CHECK(bad == 0, "%s: %zu differences", what, bad);
}

static void shuffle(int32_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (int32_t)i;
  for (size_t i = n; i > 1; --i) {
    const size_t j = (size_t)(urand() * (double)i) % i;
    const int32_t t = p[i - 1];
    p[i - 1] = p[j];
    p[j] = t;
  }
}

/* Every ee collision of a set without the improved max approximator is
 * stored as (smaller edge id, larger). */
static void ee_ascending(const fricl_collision_set *s, const char *what) {
  const int32_t *ids = NULL;
  const size_t n =
      fricl_collision_set_elements(s, FRICL_STENCIL_EE, &ids, NULL);
  size_t bad = 0;
  for (size_t j = 0; j < n; ++j)
    bad += !(ids[2 * j] < ids[2 * j + 1]);
  CHECK(bad == 0, "%s: %zu of %zu ee collisions not (smaller, larger)", what,
        bad, n);
}

/* Relabelling the vertices and faces (each edge and face keeps its vertex
 * order, the edges keep their ids) relabels the set and changes nothing
 * else: the same collisions, ee in the same stored order and type.
 * Relabelling the edges too changes the order the ee collisions are made
 * in (regular ones: (smaller id, larger)), and with it, under the
 * improved max approximator, which of them merge (ipctk's identity: the
 * same edges in either order with the same stored type): without the
 * approximator the set is relabelled, ee canonical ((smaller, larger),
 * the type swapped accordingly); with it everything but ee is, and each
 * edge pair's ee weights summed per class {t, swap(t)} (what a merge
 * keeps) are. */
static void test_relabelling(fricl_context *ctx) {
  uint64_t saved = 0;
  for (int sc = 0; sc < 4; ++sc) {
    /* edges too first (the random draws of the tests after this one stay
     * as they were) */
    const int edges_too = sc < 2;
    if (sc == 2)
      saved = rng_state;
    scene s, t;
    if (!(sc & 1))
      cloth_scene(&s, 10, 3, 10, 16);
    else
      poly_scene(&s, 4, 20, 12);
    const int dim = s.dim;
    t = s;
    int32_t *sv = (int32_t *)malloc((s.nv + 1) * sizeof *sv);
    int32_t *se = (int32_t *)malloc((s.ne + 1) * sizeof *se);
    int32_t *sf = (int32_t *)malloc((s.nf + 1) * sizeof *sf);
    shuffle(sv, s.nv);
    shuffle(se, s.ne);
    if (!edges_too)
      for (size_t i = 0; i < s.ne; ++i)
        se[i] = (int32_t)i;
    shuffle(sf, s.nf);
    int32_t *iv = (int32_t *)malloc((s.nv + 1) * sizeof *iv);
    int32_t *ie = (int32_t *)malloc((s.ne + 1) * sizeof *ie);
    int32_t *jf = (int32_t *)malloc((s.nf + 1) * sizeof *jf);
    t.x = (double *)malloc(s.nv * dim * sizeof(double));
    t.rest = (double *)malloc(s.nv * dim * sizeof(double));
    t.e = (int32_t *)malloc((2 * s.ne + 1) * sizeof(int32_t));
    t.f = (int32_t *)malloc((3 * s.nf + 1) * sizeof(int32_t));
    for (size_t i = 0; i < s.nv; ++i) {
      iv[sv[i]] = (int32_t)i;
      memcpy(t.x + sv[i] * dim, s.x + i * dim, dim * sizeof(double));
      memcpy(t.rest + sv[i] * dim, s.rest + i * dim, dim * sizeof(double));
    }
    for (size_t i = 0; i < s.ne; ++i) {
      ie[se[i]] = (int32_t)i;
      t.e[2 * se[i]] = sv[s.e[2 * i]];
      t.e[2 * se[i] + 1] = sv[s.e[2 * i + 1]];
    }
    for (size_t i = 0; i < s.nf; ++i) {
      jf[sf[i]] = (int32_t)i;
      for (int k = 0; k < 3; ++k)
        t.f[3 * sf[i] + k] = sv[s.f[3 * i + k]];
    }
    const planes pl = floor_plane(&s);
    fricl_collision_mesh *ms = scene_mesh(ctx, &s);
    fricl_collision_mesh *mt = scene_mesh(ctx, &t);
    for (int c = 0; c < 4; ++c) {
      const uint32_t flags = (c & 1 ? AREA : 0) | (c & 2 ? IMP : 0);
      char what[80];
      snprintf(what, sizeof what, "relabelled %dD%s flags %u", dim,
               edges_too ? " (edges too)" : "", (unsigned)flags);
      fricl_collision_set *a =
          build(ctx, ms, s.x, s.dhat, 0.1 * s.dhat, flags, &pl);
      fricl_collision_set *b =
          build(ctx, mt, t.x, s.dhat, 0.1 * s.dhat, flags, &pl);
      if (a && b) {
        size_t na = 0, nb = 0;
        const int ee =
            !edges_too ? EE_RAW : (flags & IMP ? EE_ORBIT : EE_CANONICAL);
        key *ka = keys_of(a, NULL, NULL, NULL, ee, &na);
        key *kb = keys_of(b, iv, ie, jf, ee, &nb);
        if (!(flags & IMP)) {
          ee_ascending(a, what);
          ee_ascending(b, what);
        } else if (dim == 3) {
          /* the approximator's corrections stored as made: some with
           * edge0 > edge1, so the comparison sees the stored order */
          const int32_t *ids = NULL;
          const size_t ne =
              fricl_collision_set_elements(a, FRICL_STENCIL_EE, &ids, NULL);
          size_t down = 0;
          for (size_t j = 0; j < ne; ++j)
            down += ids[2 * j] > ids[2 * j + 1];
          CHECK(down > 0, "%s: no ee collision with edge0 > edge1 (of %zu)",
                what, ne);
        }
        CHECK(na > 100, "%s: only %zu collisions", what, na);
        same_keys(ka, na, kb, nb, what);
        free(ka);
        free(kb);
      }
      fricl_collision_set_destroy(a);
      fricl_collision_set_destroy(b);
    }
    fricl_collision_mesh_destroy(ms);
    fricl_collision_mesh_destroy(mt);
    free(sv);
    free(se);
    free(sf);
    free(iv);
    free(ie);
    free(jf);
    scene_free(&t);
    scene_free(&s);
  }
  rng_state = saved;
}

/* ------------------------------------------------- into the barrier */

static fricl_status eval_at(fricl_context *ctx, const scene *s,
                            const fricl_collision_set *set, const double *x,
                            double dhat, double dmin, double *pot, double *g,
                            const fricl_tangential_plan *plan, const double *p,
                            double *hp) {
  const fricl_barrier_group *gs = NULL;
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.dim = s->dim;
  b.n_vertices = s->nv;
  b.positions = x;
  b.rest_positions = s->rest;
  b.dhat = dhat;
  b.kappa = 1;
  b.dmin = dmin;
  b.n_groups = fricl_collision_set_groups(set, &gs);
  b.groups = gs;
  b.plan = plan;
  b.potential = pot;
  b.gradient = g;
  b.direction = p;
  b.hessian_product = hp;
  if (g)
    memset(g, 0, s->nv * s->dim * sizeof(double));
  return fricl_barrier_eval(ctx, &b);
}

static void test_barrier_feed(fricl_context *ctx) {
  for (int sc = 0; sc < 2; ++sc) {
    scene s;
    /* no codim. points or segments: nothing within dmin */
    if (sc == 0)
      cloth_scene(&s, 5, 2, 0, 0);
    else
      poly_scene(&s, 3, 8, 0);
    const size_t n = s.nv * s.dim;
    planes pl = {1, {0, 0, 1}, {0.4 * s.dhat}};
    if (s.dim == 2) {
      pl.normal[0] = 0;
      pl.normal[1] = 1;
    }
    fricl_collision_mesh *m = scene_mesh(ctx, &s);
    for (int c = 0; c < 2; ++c) {
      const uint32_t flags = c ? AREA | IMP : 0;
      const double dmin = c ? 0.05 * s.dhat : 0;
      fricl_collision_set *set = build(ctx, m, s.x, s.dhat, dmin, flags, &pl);
      if (!set)
        continue;
      const fricl_barrier_group *gs = NULL;
      const size_t ng = fricl_collision_set_groups(set, &gs);
      CHECK(set_total(set) > 10, "barrier feed: %zu collisions",
            set_total(set));
      fricl_tangential_plan *plan = NULL;
      fricl_status st =
          fricl_barrier_plan_create(ctx, s.dim, s.nv, ng, gs, &plan);
      CHECK(st == FRICL_STATUS_OK && plan, "barrier plan: %s: %s",
            fricl_status_string(st), fricl_context_last_error(ctx));
      double *g = (double *)calloc(n, sizeof *g);
      double *gp = (double *)calloc(n, sizeof *gp);
      double *gm = (double *)calloc(n, sizeof *gm);
      double *x = (double *)malloc(n * sizeof *x);
      double *p = (double *)malloc(n * sizeof *p);
      double *hp = (double *)calloc(n, sizeof *hp);
      double pot = 0, pp = 0, pm = 0;
      for (size_t i = 0; i < n; ++i)
        p[i] = urange(-1, 1);
      st = eval_at(ctx, &s, set, s.x, s.dhat, dmin, &pot, g, plan, p, hp);
      CHECK(st == FRICL_STATUS_OK && isfinite(pot) && pot > 0,
            "barrier feed %dD: %s, potential %g: %s", s.dim,
            fricl_status_string(st), pot, fricl_context_last_error(ctx));
      double gmax = 0, hmax = 0, err = 0, herr = 0;
      for (size_t i = 0; i < n; ++i) {
        gmax = fmax(gmax, fabs(g[i]));
        hmax = fmax(hmax, fabs(hp[i]));
      }
      const double h = 1e-6 * s.dhat;
      memcpy(x, s.x, n * sizeof *x);
      for (size_t i = 0; i < n && st == FRICL_STATUS_OK; ++i) {
        x[i] = s.x[i] + h;
        eval_at(ctx, &s, set, x, s.dhat, dmin, &pp, NULL, NULL, NULL, NULL);
        x[i] = s.x[i] - h;
        eval_at(ctx, &s, set, x, s.dhat, dmin, &pm, NULL, NULL, NULL, NULL);
        x[i] = s.x[i];
        err = fmax(err, fabs((pp - pm) / (2 * h) - g[i]));
      }
      for (size_t i = 0; i < n; ++i)
        x[i] = s.x[i] + h * p[i];
      eval_at(ctx, &s, set, x, s.dhat, dmin, &pp, gp, NULL, NULL, NULL);
      for (size_t i = 0; i < n; ++i)
        x[i] = s.x[i] - h * p[i];
      eval_at(ctx, &s, set, x, s.dhat, dmin, &pm, gm, NULL, NULL, NULL);
      for (size_t i = 0; i < n; ++i)
        herr = fmax(herr, fabs((gp[i] - gm[i]) / (2 * h) - hp[i]));
      CHECK(gmax > 0 && err <= 1e-6 * gmax,
            "barrier feed %dD flags %u: gradient vs differences %g of %g",
            s.dim, (unsigned)flags, err, gmax);
      CHECK(hmax > 0 && herr <= 1e-5 * hmax,
            "barrier feed %dD flags %u: H p vs differences %g of %g", s.dim,
            (unsigned)flags, herr, hmax);
      free(g);
      free(gp);
      free(gm);
      free(x);
      free(p);
      free(hp);
      fricl_tangential_plan_destroy(plan);
      fricl_collision_set_destroy(set);
    }
    fricl_collision_mesh_destroy(m);
    scene_free(&s);
  }
}

/* ------------------------------------------- candidates by brute force */

typedef struct bbox {
  double lo[3], hi[3];
} bbox;

typedef struct pairs {
  int32_t *v;
  size_t n, cap;
} pairs;

static void push(pairs *p, int32_t a, int32_t b) {
  if (p->n + 2 > p->cap) {
    p->cap = p->cap ? 2 * p->cap : 256;
    p->v = (int32_t *)realloc(p->v, p->cap * sizeof *p->v);
  }
  p->v[p->n++] = a;
  p->v[p->n++] = b;
}

static int cmp_pair(const void *x, const void *y) {
  const int32_t *a = (const int32_t *)x, *b = (const int32_t *)y;
  if (a[0] != b[0])
    return (a[0] > b[0]) - (a[0] < b[0]);
  return (a[1] > b[1]) - (a[1] < b[1]);
}

static int overlaps(const bbox *a, const bbox *b) {
  for (int d = 0; d < 3; ++d)
    if (!(a->lo[d] <= b->hi[d] && b->lo[d] <= a->hi[d]))
      return 0;
  return 1;
}

static bbox box_union(const bbox *vb, const int32_t *ids, int k) {
  bbox b = vb[ids[0]];
  for (int j = 1; j < k; ++j)
    for (int d = 0; d < 3; ++d) {
      b.lo[d] = fmin(b.lo[d], vb[ids[j]].lo[d]);
      b.hi[d] = fmax(b.hi[d], vb[ids[j]].hi[d]);
    }
  return b;
}

static int in(const int32_t *ids, int k, int32_t v) {
  for (int j = 0; j < k; ++j)
    if (ids[j] == v)
      return 1;
  return 0;
}

/* The candidates of the header, enumerated over all pairs. */
static void brute_candidates(const scene *s, const double *x0, const double *x1,
                             double r, const planes *pl, pairs out[5]) {
  const int dim = s->dim;
  bbox *vb = (bbox *)calloc(s->nv, sizeof *vb);
  for (size_t i = 0; i < s->nv; ++i)
    for (int d = 0; d < dim; ++d) {
      double lo = x0[i * dim + d], hi = lo;
      if (x1) {
        lo = fmin(lo, x1[i * dim + d]);
        hi = fmax(hi, x1[i * dim + d]);
      }
      vb[i].lo[d] = nextafter(lo - r, -INFINITY);
      vb[i].hi[d] = nextafter(hi + r, INFINITY);
    }
  unsigned char *used = (unsigned char *)calloc(s->nv, 1);
  unsigned char *face_edge = (unsigned char *)calloc(s->ne + 1, 1);
  for (size_t i = 0; i < 2 * s->ne; ++i)
    used[s->e[i]] = 1;
  for (size_t f = 0; f < s->nf; ++f)
    for (int j = 0; j < 3; ++j) {
      const int32_t a = s->f[3 * f + j], b = s->f[3 * f + (j + 1) % 3];
      for (size_t e = 0; e < s->ne; ++e)
        if ((s->e[2 * e] == a && s->e[2 * e + 1] == b) ||
            (s->e[2 * e] == b && s->e[2 * e + 1] == a))
          face_edge[e] = 1;
    }
  if (dim == 2) {
    for (size_t e = 0; e < s->ne; ++e) {
      const bbox eb = box_union(vb, s->e + 2 * e, 2);
      for (size_t v = 0; v < s->nv; ++v)
        if (!in(s->e + 2 * e, 2, (int32_t)v) && overlaps(&eb, &vb[v]))
          push(&out[EV], (int32_t)e, (int32_t)v);
    }
  } else {
    for (size_t a = 0; a < s->ne; ++a) {
      const bbox ea = box_union(vb, s->e + 2 * a, 2);
      for (size_t b = a + 1; b < s->ne; ++b) {
        const bbox eb = box_union(vb, s->e + 2 * b, 2);
        if (!in(s->e + 2 * a, 2, s->e[2 * b]) &&
            !in(s->e + 2 * a, 2, s->e[2 * b + 1]) && overlaps(&ea, &eb))
          push(&out[EE], (int32_t)a, (int32_t)b);
      }
    }
    for (size_t f = 0; f < s->nf; ++f) {
      const bbox fb = box_union(vb, s->f + 3 * f, 3);
      for (size_t v = 0; v < s->nv; ++v)
        if (!in(s->f + 3 * f, 3, (int32_t)v) && overlaps(&fb, &vb[v]))
          push(&out[FV], (int32_t)f, (int32_t)v);
    }
    for (size_t e = 0; e < s->ne; ++e) {
      if (face_edge[e])
        continue;
      const bbox eb = box_union(vb, s->e + 2 * e, 2);
      for (size_t v = 0; v < s->nv; ++v)
        if (!used[v] && overlaps(&eb, &vb[v]))
          push(&out[EV], (int32_t)e, (int32_t)v);
    }
  }
  for (size_t a = 0; a < s->nv; ++a)
    for (size_t b = a + 1; b < s->nv; ++b)
      if (!used[a] && !used[b] && overlaps(&vb[a], &vb[b]))
        push(&out[VV], (int32_t)a, (int32_t)b);
  for (size_t p = 0; pl && p < pl->n; ++p)
    for (size_t v = 0; v < s->nv; ++v) {
      int hit = 0;
      for (int t = 0; t < (x1 ? 2 : 1); ++t) {
        const double *y = (t ? x1 : x0) + v * dim;
        double sd = 0;
        for (int d = 0; d < dim; ++d)
          sd += pl->normal[p * dim + d] * y[d];
        hit |= sd + pl->offset[p] < r;
      }
      if (hit)
        push(&out[PV], (int32_t)p, (int32_t)v);
    }
  for (int t = 0; t < 5; ++t)
    if (out[t].n) /* qsort's array may not be NULL, even when empty */
      qsort(out[t].v, out[t].n / 2, 2 * sizeof(int32_t), cmp_pair);
  free(vb);
  free(used);
  free(face_edge);
}

static void test_candidates(fricl_context *one, fricl_context *many) {
  for (int sc = 0; sc < 2; ++sc) {
    scene s;
    if (sc == 0)
      cloth_scene(&s, 7, 2, 10, 16);
    else
      poly_scene(&s, 3, 16, 12);
    const size_t n = s.nv * s.dim;
    planes pl = {2, {0}, {0}};
    if (s.dim == 3) {
      const double nn[6] = {0, 0, 1, 0.6, 0, 0.8};
      memcpy(pl.normal, nn, sizeof nn);
      pl.offset[0] = 0.2 * s.dhat;
      pl.offset[1] = -0.5;
    } else {
      const double nn[4] = {0, 1, 0.6, 0.8};
      memcpy(pl.normal, nn, sizeof nn);
      pl.offset[0] = 0.2 * s.dhat;
      pl.offset[1] = -0.5;
    }
    double *x1 = (double *)malloc(n * sizeof *x1);
    for (size_t i = 0; i < n; ++i)
      x1[i] = s.x[i] + 0.5 * s.dhat * urange(-1, 1);
    fricl_collisions_options o;
    fricl_collisions_options_init(&o);
    o.n_planes = pl.n;
    o.plane_normals = pl.normal;
    o.plane_offsets = pl.offset;
    for (int motion = 0; motion < 2; ++motion)
      for (int ri = 0; ri < 2; ++ri) {
        const double r = ri ? 0.5 * s.dhat : 0;
        pairs want[5];
        memset(want, 0, sizeof want);
        brute_candidates(&s, s.x, motion ? x1 : NULL, r, &pl, want);
        for (int c = 0; c < 2; ++c) {
          fricl_context *ctx = c ? many : one;
          fricl_collision_mesh *m = scene_mesh(ctx, &s);
          fricl_candidate_set *cs = NULL;
          const fricl_status st = fricl_candidates_build(
              ctx, m, s.x, motion ? x1 : NULL, r, &o, &cs);
          CHECK(st == FRICL_STATUS_OK, "candidates: %s",
                fricl_context_last_error(ctx));
          size_t total = 0;
          for (int t = 0; cs && t < 5; ++t) {
            const int32_t *ids = NULL;
            const size_t k =
                fricl_candidate_set_pairs(cs, (fricl_stencil)t, &ids);
            total += k;
            CHECK(k == want[t].n / 2 &&
                      (!k || !memcmp(ids, want[t].v, 2 * k * sizeof *ids)),
                  "candidates %dD motion %d r %g threads %u: %s %zu pairs, "
                  "brute force %zu",
                  s.dim, motion, r, fricl_context_threads(ctx), TN[t], k,
                  want[t].n / 2);
          }
          CHECK(total > 50, "candidates %dD: only %zu", s.dim, total);
          if (s.dim == 3 && r > 0)
            CHECK(fricl_candidate_set_pairs(cs, FRICL_STENCIL_EV, NULL) > 0 &&
                      fricl_candidate_set_pairs(cs, FRICL_STENCIL_VV, NULL) > 0,
                  "candidates 3-D: no codim. ev or vv pairs");
          /* refilled in place: the same */
          fricl_candidate_set *keep = cs;
          CHECK(fricl_candidates_build(ctx, m, x1, NULL, r, &o, &cs) ==
                        FRICL_STATUS_OK &&
                    fricl_candidates_build(ctx, m, s.x, motion ? x1 : NULL, r,
                                           &o, &cs) == FRICL_STATUS_OK &&
                    cs == keep,
                "candidates: rebuild");
          for (int t = 0; cs && t < 5; ++t) {
            const int32_t *ids = NULL;
            const size_t k =
                fricl_candidate_set_pairs(cs, (fricl_stencil)t, &ids);
            CHECK(k == want[t].n / 2 &&
                      (!k || !memcmp(ids, want[t].v, 2 * k * sizeof *ids)),
                  "candidates rebuilt: %s", TN[t]);
          }
          fricl_candidate_set_destroy(cs);
          fricl_collision_mesh_destroy(m);
        }
        for (int t = 0; t < 5; ++t)
          free(want[t].v);
      }
    free(x1);
    scene_free(&s);
  }
}

/* Boxes that touch only through the outward nudge: an edge at y = 0.1
 * and a point at y = 0.1 + 0.2 (0.30000000000000004) with radius 0.1: the
 * point's y - r rounds to 0.20000000000000004 > 0.1 + r = 0.2, and the
 * nextafter nudges make the boxes meet (ipctk lists the pair); a point
 * one double higher is out. */
static void test_candidate_ties(fricl_context *ctx) {
  const double y = 0.1, r = 0.1;
  double X[6] = {0, y, 1, y, 0.5, 0.1 + 0.2};
  const int32_t E[2] = {0, 1};
  CHECK(X[5] - r > y + r, "the tie needs the nudge");
  for (int up = 0; up < 2; ++up) {
    if (up)
      X[5] = nextafter(X[5], INFINITY);
    fricl_collision_mesh *m = mesh_rest(ctx, 2, 3, X, 1, E, 0, NULL);
    fricl_candidate_set *cs = NULL;
    CHECK(fricl_candidates_build(ctx, m, X, NULL, r, NULL, &cs) ==
              FRICL_STATUS_OK,
          "tie: %s", fricl_context_last_error(ctx));
    const int32_t *ids = NULL;
    const size_t n = fricl_candidate_set_pairs(cs, FRICL_STENCIL_EV, &ids);
    CHECK(n == (size_t)!up && (up || (ids[0] == 0 && ids[1] == 2)),
          "tie (one double up: %d): %zu ev candidates", up, n);
    /* over a motion whose end is the tie */
    double X0[6];
    memcpy(X0, X, sizeof X0);
    X0[5] = 5;
    CHECK(fricl_candidates_build(ctx, m, X0, X, r, NULL, &cs) ==
                  FRICL_STATUS_OK &&
              fricl_candidate_set_pairs(cs, FRICL_STENCIL_EV, NULL) ==
                  (size_t)!up,
          "tie over a motion (one double up: %d)", up);
    fricl_candidate_set_destroy(cs);
    fricl_collision_mesh_destroy(m);
  }
}

/* -------------------------------------------------------- validation */

static void expect_invalid(fricl_context *ctx, fricl_status st,
                           const char *what, const char *sub1,
                           const char *sub2) {
  const char *msg = fricl_context_last_error(ctx);
  CHECK(st == FRICL_STATUS_INVALID_ARGUMENT, "%s: status %s", what,
        fricl_status_string(st));
  CHECK(msg && strstr(msg, sub1) && (!sub2 || strstr(msg, sub2)),
        "%s: message \"%s\" does not name \"%s\"%s%s", what, msg ? msg : "",
        sub1, sub2 ? " and " : "", sub2 ? sub2 : "");
}

static fricl_status try_mesh(fricl_context *ctx, int dim, size_t nv,
                             const double *rest, size_t ne, const int32_t *e,
                             size_t nf, const int32_t *f) {
  fricl_collision_mesh_desc d = mesh_desc_of(dim, nv, rest, ne, e, nf, f);
  fricl_collision_mesh *m = (fricl_collision_mesh *)&d; /* not NULL */
  const fricl_status st = fricl_collision_mesh_create(ctx, &d, &m);
  if (st == FRICL_STATUS_OK)
    fricl_collision_mesh_destroy(m);
  else
    CHECK(m == NULL, "failed mesh_create leaves *out NULL");
  return st;
}

static void test_validation(fricl_context *ctx) {
  const double R[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const int32_t E[12] = {0, 1, 1, 2, 2, 0, 0, 3, 1, 3, 2, 3};
  const int32_t F[3] = {0, 1, 2};
  /* mesh_create */
  fricl_collision_mesh_desc d;
  fricl_collision_mesh_desc_init(&d);
  CHECK(d.dim == 3 && d.struct_size == sizeof d, "desc_init");
  d.n_vertices = 4;
  d.rest_positions = R;
  fricl_collision_mesh *m = NULL;
  CHECK(fricl_collision_mesh_create(NULL, &d, &m) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "mesh_create(NULL ctx)");
  expect_invalid(ctx, fricl_collision_mesh_create(ctx, NULL, &m),
                 "mesh_create(NULL desc)", "desc", NULL);
  expect_invalid(ctx, fricl_collision_mesh_create(ctx, &d, NULL),
                 "mesh_create(NULL out)", "out", NULL);
  d.struct_size = 8;
  expect_invalid(ctx, fricl_collision_mesh_create(ctx, &d, &m),
                 "desc.struct_size", "struct_size", NULL);
  expect_invalid(ctx, try_mesh(ctx, 4, 4, R, 0, NULL, 0, NULL), "dim 4", "dim",
                 "4");
  expect_invalid(ctx, try_mesh(ctx, 1, 4, R, 0, NULL, 0, NULL), "dim 1", "dim",
                 NULL);
  {
    const int32_t Ebad[4] = {0, 1, 1, 7};
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 2, Ebad, 0, NULL),
                   "edge vertex out of range", "edges[1]", "7");
    const int32_t Eneg[4] = {0, 1, -1, 2};
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 2, Eneg, 0, NULL),
                   "negative edge vertex", "edges[1]", "-1");
    const int32_t Erep[4] = {0, 1, 2, 2};
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 2, Erep, 0, NULL),
                   "repeated edge vertex", "edges[1]", "2");
    const int32_t Fbad[6] = {0, 1, 2, 0, 9, 3};
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 6, E, 2, Fbad),
                   "face vertex out of range", "faces[1]", "9");
    const int32_t Frep[6] = {0, 1, 2, 3, 1, 3};
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 6, E, 2, Frep),
                   "repeated face vertex", "faces[1]", "3");
    /* face (0, 1, 3): its edge (3, 0) is not among the first 5 edges */
    const int32_t F2[6] = {0, 1, 2, 0, 1, 3};
    const int32_t E5[10] = {0, 1, 1, 2, 2, 0, 1, 3, 2, 3};
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 5, E5, 2, F2),
                   "face edge missing", "faces[1]", "(3, 0)");
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 0, NULL, 1, F),
                   "no edges for a face", "faces[0]", "edge");
    expect_invalid(ctx, try_mesh(ctx, 3, 4, R, 2, NULL, 0, NULL), "NULL edges",
                   "edges", NULL);
    expect_invalid(ctx, try_mesh(ctx, 3, 4, NULL, 0, NULL, 0, NULL),
                   "NULL rest positions", "rest_positions", NULL);
    expect_invalid(ctx, try_mesh(ctx, 2, 4, R, 0, NULL, 1, F), "faces in 2-D",
                   "n_faces", NULL);
    double Rn[12];
    memcpy(Rn, R, sizeof Rn);
    Rn[7] = NAN;
    expect_invalid(ctx, try_mesh(ctx, 3, 4, Rn, 0, NULL, 0, NULL),
                   "NaN rest position", "rest_positions", "row 2");
    Rn[7] = 1;
    Rn[3] = INFINITY;
    expect_invalid(ctx, try_mesh(ctx, 3, 4, Rn, 0, NULL, 0, NULL),
                   "inf rest position", "rest_positions", "row 1");
    CHECK(try_mesh(ctx, 3, 4, R, 6, E, 1, F) == FRICL_STATUS_OK,
          "the good mesh");
  }
  m = mesh_rest(ctx, 3, 4, R, 6, E, 1, F);
  if (!m)
    return;
  /* collisions_build: a set to keep through every failure */
  double X[12];
  memcpy(X, R, sizeof X);
  X[11] = 0.05; /* vertex 3 near the face */
  fricl_collision_set *ref = build(ctx, m, X, 1.5, 0, AREA, NULL);
  fricl_collision_set *set = build(ctx, m, X, 1.5, 0, AREA, NULL);
  fricl_collisions_options o;
  fricl_collisions_options_init(&o);
  CHECK(o.struct_size == sizeof o && o.flags == 0 && o.n_planes == 0,
        "options_init");
  o.dhat = 0.1;
  o.flags = AREA | IMP;
  const double pn[6] = {0, 0, 1, 0, 0, 0}, pc[2] = {0, 0};
  fricl_collision_set *keep = set;
  fricl_collision_set *none = NULL;
#define BUILD_FAILS(what, sub1, sub2)                                          \
  do {                                                                         \
    expect_invalid(ctx, fricl_collisions_build(ctx, m, X, &o, &set), what,     \
                   sub1, sub2);                                                \
    CHECK(set == keep, "%s: *inout changed", what);                            \
    if (set == keep && ref)                                                    \
      same_sets(ref, set, 3, what);                                            \
    expect_invalid(ctx, fricl_collisions_build(ctx, m, X, &o, &none), what,    \
                   sub1, sub2);                                                \
    CHECK(none == NULL, "%s: NULL *inout changed", what);                      \
  } while (0)
  CHECK(fricl_collisions_build(NULL, m, X, &o, &set) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            set == keep,
        "build(NULL ctx)");
  expect_invalid(ctx, fricl_collisions_build(ctx, NULL, X, &o, &set),
                 "build(NULL mesh)", "mesh", NULL);
  CHECK(set == keep, "build(NULL mesh): *inout changed");
  expect_invalid(ctx, fricl_collisions_build(ctx, m, X, &o, NULL),
                 "build(NULL inout)", "inout", NULL);
  expect_invalid(ctx, fricl_collisions_build(ctx, m, X, NULL, &set),
                 "build(NULL options)", "options", NULL);
  CHECK(set == keep, "build(NULL options): *inout changed");
  expect_invalid(ctx, fricl_collisions_build(ctx, m, NULL, &o, &set),
                 "build(NULL positions)", "positions", NULL);
  CHECK(set == keep, "build(NULL positions): *inout changed");
  o.struct_size = 4;
  BUILD_FAILS("options.struct_size", "struct_size", NULL);
  o.struct_size = sizeof o;
  o.flags = 0x4;
  BUILD_FAILS("unknown flags", "flags", "0x4");
  o.flags = AREA | 0x100;
  BUILD_FAILS("unknown flags", "flags", NULL);
  o.flags = AREA;
  const double bad_dhat[4] = {0, -1, NAN, INFINITY};
  for (int i = 0; i < 4; ++i) {
    o.dhat = bad_dhat[i];
    BUILD_FAILS("dhat", "dhat", NULL);
  }
  o.dhat = 0.1;
  const double bad_dmin[3] = {-1e-300, NAN, INFINITY};
  for (int i = 0; i < 3; ++i) {
    o.dmin = bad_dmin[i];
    BUILD_FAILS("dmin", "dmin", NULL);
  }
  o.dmin = 0;
  X[10] = NAN;
  BUILD_FAILS("NaN position", "positions", "row 3");
  X[10] = 0;
  X[2] = -INFINITY;
  BUILD_FAILS("inf position", "positions", "row 0");
  X[2] = 0;
  o.n_planes = 2;
  o.plane_normals = pn;
  o.plane_offsets = pc;
  BUILD_FAILS("zero plane normal", "plane_normals[1]", "zero");
  o.plane_normals = NULL;
  BUILD_FAILS("NULL plane normals", "plane_normals", NULL);
  o.plane_normals = pn;
  o.plane_offsets = NULL;
  BUILD_FAILS("NULL plane offsets", "plane_offsets", NULL);
  {
    const double pcn[2] = {0, NAN};
    const double pnn[6] = {0, 0, 1, 0, INFINITY, 0};
    o.n_planes = 2;
    o.plane_offsets = pcn;
    o.plane_normals = pnn;
    BUILD_FAILS("inf plane normal", "plane_normals", "row 1");
    const double pn2[6] = {0, 0, 1, 0, 1, 0};
    o.plane_normals = pn2;
    BUILD_FAILS("NaN plane offset", "plane_offsets", "row 1");
  }
  o.n_planes = 0;
  o.plane_normals = NULL;
  o.plane_offsets = NULL;
#undef BUILD_FAILS
  /* still usable after all that */
  CHECK(fricl_collisions_build(ctx, m, X, &o, &set) == FRICL_STATUS_OK &&
            set == keep,
        "build after failures: %s", fricl_context_last_error(ctx));
  /* candidates */
  fricl_candidate_set *cs = NULL;
  CHECK(fricl_candidates_build(ctx, m, X, NULL, 0.1, NULL, &cs) ==
            FRICL_STATUS_OK,
        "candidates: %s", fricl_context_last_error(ctx));
  fricl_candidate_set *ckeep = cs;
  const int32_t *ids0 = NULL;
  const size_t nfv = fricl_candidate_set_pairs(cs, FRICL_STENCIL_FV, &ids0);
  CHECK(nfv == 1 && ids0[0] == 0 && ids0[1] == 3, "candidates: fv (0, 3)");
#define CAND_FAILS(call, what, sub1, sub2)                                     \
  do {                                                                         \
    expect_invalid(ctx, call, what, sub1, sub2);                               \
    CHECK(cs == ckeep &&                                                       \
              fricl_candidate_set_pairs(cs, FRICL_STENCIL_FV, NULL) == nfv,    \
          "%s: *inout changed", what);                                         \
  } while (0)
  CHECK(fricl_candidates_build(NULL, m, X, NULL, 0.1, NULL, &cs) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "candidates(NULL ctx)");
  CAND_FAILS(fricl_candidates_build(ctx, NULL, X, NULL, 0.1, NULL, &cs),
             "candidates(NULL mesh)", "mesh", NULL);
  CAND_FAILS(fricl_candidates_build(ctx, m, X, NULL, 0.1, NULL, NULL),
             "candidates(NULL inout)", "inout", NULL);
  CAND_FAILS(fricl_candidates_build(ctx, m, X, NULL, -0.1, NULL, &cs),
             "negative radius", "inflation_radius", NULL);
  CAND_FAILS(fricl_candidates_build(ctx, m, X, NULL, NAN, NULL, &cs),
             "NaN radius", "inflation_radius", NULL);
  CAND_FAILS(fricl_candidates_build(ctx, m, NULL, NULL, 0.1, NULL, &cs),
             "NULL positions0", "positions0", NULL);
  {
    double Y[12];
    memcpy(Y, X, sizeof Y);
    Y[4] = NAN;
    CAND_FAILS(fricl_candidates_build(ctx, m, Y, NULL, 0.1, NULL, &cs),
               "NaN positions0", "positions0", "row 1");
    CAND_FAILS(fricl_candidates_build(ctx, m, X, Y, 0.1, NULL, &cs),
               "NaN positions1", "positions1", "row 1");
  }
  fricl_collisions_options po;
  fricl_collisions_options_init(&po);
  po.n_planes = 2;
  po.plane_normals = pn;
  po.plane_offsets = pc;
  CAND_FAILS(fricl_candidates_build(ctx, m, X, NULL, 0.1, &po, &cs),
             "candidates: zero plane normal", "plane_normals[1]", "zero");
  po.struct_size = 2;
  CAND_FAILS(fricl_candidates_build(ctx, m, X, NULL, 0.1, &po, &cs),
             "candidates: planes.struct_size", "struct_size", NULL);
#undef CAND_FAILS
  fricl_candidate_set_destroy(cs);
  /* NULL objects are no-ops; queries of NULL give 0 */
  fricl_collision_set_destroy(NULL);
  fricl_candidate_set_destroy(NULL);
  fricl_collision_mesh_destroy(NULL);
  const fricl_barrier_group *g = (const fricl_barrier_group *)&o;
  CHECK(fricl_collision_set_groups(NULL, &g) == 0 && g == NULL, "groups(NULL)");
  const int32_t *ids = (const int32_t *)&o;
  const double *eps = (const double *)&o;
  CHECK(fricl_collision_set_elements(NULL, FRICL_STENCIL_EE, &ids, &eps) == 0 &&
            !ids && !eps,
        "elements(NULL)");
  CHECK(fricl_collision_set_count(set, (fricl_stencil)7) == 0 &&
            fricl_collision_set_count(set, (fricl_stencil)-1) == 0,
        "count of a bad type");
  fricl_collision_set_destroy(set);
  fricl_collision_set_destroy(ref);
  fricl_collision_mesh_destroy(m);
}

/* ----------------------------------------------------- the OpenCL tier */

/* An OpenCL context on the first device with fp64 (NULL: none); flags:
 * its context flags. */
static fricl_context *device_ctx(uint32_t flags) {
  fricl_device_info inf[8];
  size_t n = 0;
  if (fricl_devices_list(inf, 8, &n) != FRICL_STATUS_OK)
    return NULL;
  for (size_t i = 0; i < n && i < 8; ++i) {
    if (!inf[i].has_fp64)
      continue;
    char spec[32];
    snprintf(spec, sizeof spec, "opencl:%d:%d", inf[i].platform_index,
             inf[i].device_index);
    fricl_context_params p;
    fricl_context_params_init(&p);
    p.device = spec;
    p.flags = flags;
    fricl_context *ctx = NULL;
    if (fricl_context_create(&ctx, &p) == FRICL_STATUS_OK)
      return ctx;
  }
  return NULL;
}

/* Whether every OpenCL device has fp64. */
static int all_fp64(void) {
  fricl_device_info inf[8];
  size_t n = 0;
  if (fricl_devices_list(inf, 8, &n) != FRICL_STATUS_OK || n > 8)
    return 0;
  for (size_t i = 0; i < n; ++i)
    if (!inf[i].has_fp64)
      return 0;
  return 1;
}

/* A build of s on ctx with the given threshold; *on_device: whether its
 * narrow phase ran on the device. */
static fricl_collision_set *tier_build(fricl_context *ctx,
                                       const fricl_collision_mesh *m,
                                       const scene *s, double dmin,
                                       uint32_t flags, const planes *pl,
                                       size_t min, int *on_device) {
  const size_t keep = g_device_min;
  g_device_min = min;
  ctx->last_backend = FRICL_BACKEND_HOST;
  fricl_collision_set *set = build(ctx, m, s->x, s->dhat, dmin, flags, pl);
  g_device_min = keep;
  *on_device = fricl_context_last_backend(ctx) == FRICL_BACKEND_OPENCL;
  return set;
}

static void test_device_tier(fricl_context *host) {
  fricl_context *dev = device_ctx(0);
  if (!dev) {
    printf("test_collisions: OpenCL tier skipped (no OpenCL fp64 device)\n");
    return;
  }
  fricl_context *nofp64 = device_ctx(FRICL_CONTEXT_FLAG_NO_FP64);
  /* The hand scenes against their ipctk values, on the device. */
  g_device_min = 1;
  test_hand_2d(dev);
  test_hand_3d(dev);
  g_device_min = 0;
  for (int sc = 0; sc < 3; ++sc) {
    scene s;
    if (sc == 0)
      cloth_scene(&s, 14, 3, 12, 24);
    else if (sc == 1)
      poly_scene(&s, 4, 30, 20);
    else
      cloth_scene(&s, 48, 4, 60, 200);
    const planes pl = floor_plane(&s);
    fricl_collision_mesh *mh = scene_mesh(host, &s);
    fricl_collision_mesh *md = scene_mesh(dev, &s);
    for (int c = 0; c < 8; ++c) {
      if (sc == 2 && c != 3 && c != 4)
        continue;
      const uint32_t flags = (c & 1 ? AREA : 0) | (c & 2 ? IMP : 0);
      const double dmin = c & 4 ? 0.2 * s.dhat : 0;
      char what[112];
      snprintf(what, sizeof what, "device tier %dD nv %zu flags %u dmin %g",
               s.dim, s.nv, (unsigned)flags, dmin);
      int on = 0;
      fricl_collision_set *a =
          tier_build(host, mh, &s, dmin, flags, &pl, 1, &on);
      CHECK(!on, "%s: a host context used a device", what);
      fricl_collision_set *b =
          tier_build(dev, md, &s, dmin, flags, &pl, 1, &on);
      CHECK(on, "%s: the narrow phase did not run on the device", what);
      if (a && b) {
        same_sets(a, b, s.dim, what);
        CHECK(set_total(a) > 100, "%s: only %zu collisions", what,
              set_total(a));
      }
      /* Rebuilt in place on the device, then on its host path. */
      fricl_collision_set *keep = b;
      fricl_collisions_options o;
      fricl_collisions_options_init(&o);
      o.flags = flags;
      o.dhat = s.dhat;
      o.dmin = dmin;
      o.n_planes = 1;
      o.plane_normals = pl.normal;
      o.plane_offsets = pl.offset;
      o.device_min_candidates = SIZE_MAX;
      if (b) {
        CHECK(fricl_collisions_build(dev, md, s.x, &o, &b) == FRICL_STATUS_OK &&
                  b == keep,
              "%s: rebuild on the host path", what);
        if (a)
          same_sets(a, b, s.dim, "device context, SIZE_MAX: host path");
      }
      /* The default threshold: these scenes stay on the host. */
      if (sc < 2) {
        fricl_collision_set *d =
            tier_build(dev, md, &s, dmin, flags, &pl, 0, &on);
        CHECK(!on, "%s: default threshold used the device", what);
        if (a && d)
          same_sets(a, d, s.dim, "device context, default threshold");
        fricl_collision_set_destroy(d);
      }
      if (nofp64) {
        fricl_collision_set *d =
            tier_build(nofp64, md, &s, dmin, flags, &pl, 1, &on);
        CHECK(!on, "%s: a context without fp64 used the device", what);
        if (a && d)
          same_sets(a, d, s.dim, "device context without fp64");
        fricl_collision_set_destroy(d);
      }
      fricl_collision_set_destroy(a);
      fricl_collision_set_destroy(b);
    }
    fricl_collision_mesh_destroy(mh);
    fricl_collision_mesh_destroy(md);
    scene_free(&s);
  }
  /* "auto": the device once open and allowed by the crossover (set to 1
   * here, so that a CPU device counts); never opened by the build. */
  fricl_context_params ap;
  fricl_context_params_init(&ap);
  ap.device = "auto";
  ap.auto_crossover = 1;
  fricl_context *aut = NULL;
  if (fricl_context_create(&aut, &ap) == FRICL_STATUS_OK) {
    scene s;
    poly_scene(&s, 4, 30, 20);
    fricl_collision_mesh *m = scene_mesh(aut, &s);
    int on = 0;
    fricl_collision_set *a = tier_build(aut, m, &s, 0, AREA, NULL, 1, &on);
    CHECK(!on && !aut->dev_resolved, "auto: the build opened the device");
    fricl_collision_set *b = NULL;
    /* opens it; every device with fp64: whichever auto took has it */
    if (fricl_context_backend(aut) == FRICL_BACKEND_OPENCL && all_fp64()) {
      b = tier_build(aut, m, &s, 0, AREA, NULL, 1, &on);
      CHECK(on, "auto with crossover 1: not on the device");
      if (a && b)
        same_sets(a, b, s.dim, "auto, device and host");
    }
    fricl_collision_set_destroy(a);
    fricl_collision_set_destroy(b);
    fricl_collision_mesh_destroy(m);
    scene_free(&s);
    fricl_context_destroy(aut);
  }
  fricl_context_destroy(nofp64);
  fricl_context_destroy(dev);
}

int main(void) {
  fricl_context *one = host_ctx(1, 0);
  fricl_context *many = host_ctx(4, 1);
  if (!one || !many)
    return test_report("test_collisions");
  CHECK(fricl_context_threads(many) == 4, "4 threads: %u",
        fricl_context_threads(many));
  test_hand_2d(one);
  test_hand_2d(many);
  test_hand_3d(one);
  test_hand_3d(many);
  test_areas(one);
  test_determinism(one, many);
  test_relabelling(many);
  test_barrier_feed(many);
  test_candidates(one, many);
  test_candidate_ties(many);
  test_validation(one);
  test_device_tier(many);
  fricl_context_destroy(one);
  fricl_context_destroy(many);
  return test_report("test_collisions");
}
