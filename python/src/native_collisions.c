/*
 * native_collisions.c - fricl._native.collision_mesh / collisions_build /
 * candidates_build / ccd_stepsize: collision sets from positions
 * (fricl_collisions.h) and CCD over candidates (fricl_ccd.h). A mesh is a
 * capsule owning a fricl_collision_mesh, a candidate set one owning a
 * fricl_candidate_set; a build returns its arrays as bytes, per stencil
 * type (vv, ev, ee, fv, pv).
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include <fricl/fricl_ccd.h>
#include <fricl/fricl_collisions.h>

#define MESH_CAPSULE "fricl.collision_mesh"
#define CANDIDATES_CAPSULE "fricl.candidate_set"

static void candidates_free(PyObject *cap) {
  fricl_candidate_set_destroy(
      (fricl_candidate_set *)PyCapsule_GetPointer(cap, CANDIDATES_CAPSULE));
}

static void mesh_free(PyObject *cap) {
  fricl_collision_mesh_destroy(
      (fricl_collision_mesh *)PyCapsule_GetPointer(cap, MESH_CAPSULE));
}

typedef struct mesh_call {
  fricl_collision_mesh_desc d;
  fricl_collision_mesh *out;
} mesh_call;

static fricl_status call_mesh(fricl_context *ctx, const void *arg) {
  mesh_call *c = (mesh_call *)arg;
  return fricl_collision_mesh_create(ctx, &c->d, &c->out);
}

/* collision_mesh(ctx, dim, rest float64, edges int32, faces int32) */
PyObject *native_collision_mesh(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *rest, *edges, *faces, *result = NULL;
  native_context *ctx;
  native_views views;
  mesh_call c;
  int dim;
  size_t n;
  void *p;
  (void)self;
  if (!PyArg_ParseTuple(args, "OiOOO", &ctx_obj, &dim, &rest, &edges, &faces))
    return NULL;
  if ((ctx = native_context_check(ctx_obj)) == NULL)
    return NULL;
  if (dim != 2 && dim != 3)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "dim must be 2 or 3, got %d", dim);
  views.n = 0;
  memset(&c, 0, sizeof c);
  fricl_collision_mesh_desc_init(&c.d);
  c.d.dim = dim;
  if (native_get_any(&views, rest, "rest_positions", NATIVE_F64, FRICL_F64, 0,
                     &p, &n) != 0)
    goto done;
  c.d.rest_positions = p;
  c.d.n_vertices = n / (size_t)dim;
  if (native_get_any(&views, edges, "edges", NATIVE_I32, FRICL_F64, 0, &p,
                     &n) != 0)
    goto done;
  c.d.edges = p;
  c.d.n_edges = n / 2;
  if (native_get_any(&views, faces, "faces", NATIVE_I32, FRICL_F64, 0, &p,
                     &n) != 0)
    goto done;
  c.d.faces = p;
  c.d.n_faces = n / 3;
  if (native_call(ctx, call_mesh, &c, 0, NULL) != 0)
    goto done;
  result = PyCapsule_New(c.out, MESH_CAPSULE, mesh_free);
  if (!result)
    fricl_collision_mesh_destroy(c.out);
done:
  native_release(&views);
  return result;
}

static const fricl_collision_mesh *mesh_of(PyObject *cap) {
  return (const fricl_collision_mesh *)PyCapsule_GetPointer(cap, MESH_CAPSULE);
}

typedef struct build_call {
  const fricl_collision_mesh *mesh;
  const double *x, *x1;
  double radius;
  fricl_collisions_options o;
  fricl_collision_set *set;
  fricl_candidate_set *cand;
} build_call;

static fricl_status call_build(fricl_context *ctx, const void *arg) {
  build_call *c = (build_call *)arg;
  return fricl_collisions_build(ctx, c->mesh, c->x, &c->o, &c->set);
}

static fricl_status call_candidates(fricl_context *ctx, const void *arg) {
  build_call *c = (build_call *)arg;
  return fricl_candidates_build(ctx, c->mesh, c->x, c->x1, c->radius, &c->o,
                                &c->cand);
}

/* Planes (optional) into the options. */
static int get_planes(native_views *views, PyObject *pn, PyObject *pc, int dim,
                      fricl_collisions_options *o) {
  void *p;
  size_t n;
  if (pn == Py_None)
    return 0;
  if (native_get_any(views, pn, "plane_normals", NATIVE_F64, FRICL_F64, 0, &p,
                     &n) != 0)
    return -1;
  o->plane_normals = p;
  o->n_planes = n / (size_t)dim;
  if (native_get(views, pc, "plane_offsets", NATIVE_F64, FRICL_F64, o->n_planes,
                 0, 0, &p) != 0)
    return -1;
  o->plane_offsets = p;
  return 0;
}

/* A motion's positions (X1 may be None unless need_x1: static) and its
 * planes into *x0, *x1 and o. */
static int get_motion(native_views *views, PyObject *X0, PyObject *X1,
                      int need_x1, PyObject *pn, PyObject *pc, int dim,
                      const double **x0, const double **x1,
                      fricl_collisions_options *o) {
  void *p;
  size_t n;
  if (native_get_any(views, X0, "vertices_t0", NATIVE_F64, FRICL_F64, 0, &p,
                     &n) != 0)
    return -1;
  *x0 = p;
  *x1 = NULL;
  if (X1 != Py_None || need_x1) {
    if (native_get(views, X1, "vertices_t1", NATIVE_F64, FRICL_F64, n, 0, 0,
                   &p) != 0)
      return -1;
    *x1 = p;
  }
  return get_planes(views, pn, pc, dim, o);
}

/* collisions_build(ctx, mesh, X float64, dhat, dmin, flags, plane_normals,
 *                  plane_offsets[, device_min_candidates]) -> 5 tuples (ids,
 * vertices, weights, distance types, eps_x | None, plane normals | None, plane
 * offsets | None) in the order vv, ev, ee, fv, pv */
PyObject *native_collisions_build(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *mesh_obj, *X, *pn, *pc, *result = NULL;
  native_context *ctx;
  native_views views;
  build_call c;
  unsigned int flags;
  int dim;
  void *p;
  size_t n;
  (void)self;
  unsigned long long device_min = 0;
  memset(&c, 0, sizeof c);
  fricl_collisions_options_init(&c.o);
  if (!PyArg_ParseTuple(args, "OOiOddIOO|K", &ctx_obj, &mesh_obj, &dim, &X,
                        &c.o.dhat, &c.o.dmin, &flags, &pn, &pc, &device_min))
    return NULL;
  c.o.flags = flags;
  c.o.device_min_candidates =
      device_min > (unsigned long long)SIZE_MAX ? SIZE_MAX : (size_t)device_min;
  if ((ctx = native_context_check(ctx_obj)) == NULL ||
      (c.mesh = mesh_of(mesh_obj)) == NULL)
    return NULL;
  views.n = 0;
  if (native_get_any(&views, X, "vertices", NATIVE_F64, FRICL_F64, 0, &p, &n) !=
      0)
    goto done;
  c.x = p;
  if (get_planes(&views, pn, pc, dim, &c.o) != 0)
    goto done;
  if (native_call(ctx, call_build, &c, 0, NULL) != 0)
    goto done;
  result = PyTuple_New(5);
  for (int t = 0; result && t < 5; ++t) {
    const int32_t *ids;
    const double *eps;
    const fricl_barrier_group *g = NULL, *gs;
    const size_t ng = fricl_collision_set_groups(c.set, &gs);
    const size_t m =
        fricl_collision_set_elements(c.set, (fricl_stencil)t, &ids, &eps);
    for (size_t i = 0; i < ng; ++i)
      if ((int)gs[i].type == t)
        g = &gs[i];
    const size_t k = (size_t)fricl_stencil_vertex_count((fricl_stencil)t);
    PyObject *it;
    if (!g)
      it =
          Py_BuildValue("(yyyyOOO)", "", "", "", "", Py_None, Py_None, Py_None);
    else
      it = Py_BuildValue(
          "(NNNNNNN)", native_bytes(ids, 2 * m * sizeof(int32_t)),
          native_bytes(g->vertices, k * m * sizeof(int32_t)),
          native_bytes(g->weight, m * sizeof(double)),
          native_bytes_or_none(g->distance_type, m),
          native_bytes_or_none(eps, m * sizeof(double)),
          native_bytes_or_none(g->plane_normal,
                               m * (size_t)dim * sizeof(double)),
          native_bytes_or_none(g->plane_offset, m * sizeof(double)));
    if (!it) {
      Py_CLEAR(result);
      break;
    }
    PyTuple_SET_ITEM(result, t, it);
  }
done:
  fricl_collision_set_destroy(c.set);
  native_release(&views);
  return result;
}

/* candidates_build(ctx, mesh, dim, X0, X1 | None, radius, plane_normals,
 *                  plane_offsets) -> (5 bytes of int32 pairs, the set) */
PyObject *native_candidates_build(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *mesh_obj, *X0, *X1, *pn, *pc, *result = NULL;
  native_context *ctx;
  native_views views;
  build_call c;
  int dim;
  (void)self;
  memset(&c, 0, sizeof c);
  fricl_collisions_options_init(&c.o);
  if (!PyArg_ParseTuple(args, "OOiOOdOO", &ctx_obj, &mesh_obj, &dim, &X0, &X1,
                        &c.radius, &pn, &pc))
    return NULL;
  if ((ctx = native_context_check(ctx_obj)) == NULL ||
      (c.mesh = mesh_of(mesh_obj)) == NULL)
    return NULL;
  views.n = 0;
  if (get_motion(&views, X0, X1, 0, pn, pc, dim, &c.x, &c.x1, &c.o) != 0)
    goto done;
  if (native_call(ctx, call_candidates, &c, 0, NULL) != 0)
    goto done;
  PyObject *pairs = PyTuple_New(5);
  for (int t = 0; pairs && t < 5; ++t) {
    const int32_t *ids;
    const size_t m = fricl_candidate_set_pairs(c.cand, (fricl_stencil)t, &ids);
    PyObject *b = native_bytes(ids, 2 * m * sizeof(int32_t));
    if (!b) {
      Py_CLEAR(pairs);
      break;
    }
    PyTuple_SET_ITEM(pairs, t, b);
  }
  PyObject *set =
      pairs ? PyCapsule_New(c.cand, CANDIDATES_CAPSULE, candidates_free) : NULL;
  if (set) {
    c.cand = NULL; /* the capsule owns it */
    result = Py_BuildValue("(NN)", pairs, set);
  } else
    Py_XDECREF(pairs);
done:
  fricl_candidate_set_destroy(c.cand);
  native_release(&views);
  return result;
}

typedef struct ccd_call {
  const fricl_collision_mesh *mesh;
  const fricl_candidate_set *set;
  const double *x0, *x1;
  fricl_collisions_options planes;
  fricl_ccd_options o;
  double step, *tois;
} ccd_call;

static fricl_status call_ccd(fricl_context *ctx, const void *arg) {
  ccd_call *c = (ccd_call *)arg;
  return fricl_ccd_stepsize(ctx, c->mesh, c->set, c->x0, c->x1, &c->planes,
                            &c->o, &c->step, c->tois);
}

/* ccd_stepsize(ctx, mesh, set, dim, X0, X1, plane_normals, plane_offsets,
 *              min_distance, conservative_rescaling, max_iterations,
 *              with_tois)
 * -> step, or (step, bytes of float64 per candidate) with_tois */
PyObject *native_ccd_stepsize(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *mesh_obj, *set_obj, *X0, *X1, *pn, *pc, *result = NULL;
  native_context *ctx;
  native_views views;
  ccd_call c;
  int dim, with_tois;
  long long max_iterations;
  (void)self;
  memset(&c, 0, sizeof c);
  fricl_collisions_options_init(&c.planes);
  fricl_ccd_options_init(&c.o);
  if (!PyArg_ParseTuple(args, "OOOiOOOOddLp", &ctx_obj, &mesh_obj, &set_obj,
                        &dim, &X0, &X1, &pn, &pc, &c.o.min_distance,
                        &c.o.conservative_rescaling, &max_iterations,
                        &with_tois))
    return NULL;
  c.o.max_iterations = (int64_t)max_iterations;
  if ((ctx = native_context_check(ctx_obj)) == NULL ||
      (c.mesh = mesh_of(mesh_obj)) == NULL ||
      (c.set = (const fricl_candidate_set *)PyCapsule_GetPointer(
           set_obj, CANDIDATES_CAPSULE)) == NULL)
    return NULL;
  views.n = 0;
  if (get_motion(&views, X0, X1, 1, pn, pc, dim, &c.x0, &c.x1, &c.planes) != 0)
    goto done;
  size_t count = 0;
  for (int t = 0; t < 5; ++t)
    count += fricl_candidate_set_pairs(c.set, (fricl_stencil)t, NULL);
  PyObject *tois = NULL;
  if (with_tois) {
    tois =
        PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * sizeof(double)));
    if (!tois)
      goto done;
    c.tois = (double *)PyBytes_AS_STRING(tois);
  }
  if (native_call(ctx, call_ccd, &c, 0, NULL) != 0) {
    Py_XDECREF(tois);
    goto done;
  }
  result = with_tois ? Py_BuildValue("(dN)", c.step, tois)
                     : PyFloat_FromDouble(c.step);
done:
  native_release(&views);
  return result;
}
