/*
 * native_build.c - fricl._native.build: the lagged build (fricl_build)
 * over buffers, returning the build report.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

static fricl_status call_build(fricl_context *ctx, const void *arg) {
  return fricl_build(ctx, (const fricl_build_batch *)arg);
}

#define GROUP_ENTRIES 17

/* A mu given as a float (batch scalar) or n_vertices values. */
static int vertex_mu(native_views *views, PyObject *obj, const char *name,
                     fricl_precision prec, size_t n, double *scalar,
                     const void **array) {
  void *p = NULL;
  *array = NULL;
  if (PyFloat_Check(obj) || PyLong_Check(obj)) {
    *scalar = PyFloat_AsDouble(obj);
    return (*scalar == -1.0 && PyErr_Occurred()) ? -1 : 0;
  }
  if (native_get(views, obj, name, NATIVE_REAL, prec, n, 0, 0, &p) != 0)
    return -1;
  *array = p;
  return 0;
}

static PyObject *size_list(const size_t *v, int n) {
  PyObject *l = PyList_New(n);
  int i;
  for (i = 0; l != NULL && i < n; i++) {
    PyObject *o = PyLong_FromSize_t(v[i]);
    if (o == NULL) {
      Py_CLEAR(l);
      break;
    }
    PyList_SET_ITEM(l, i, o);
  }
  return l;
}

/* build(ctx, precision, dim, flags, lagged_positions, rest_positions|None,
 *       kappa, dhat, dmin, mu_s, mu_k, blend, groups)
 *   -> (count, first_group, first_contact, total, no_force)
 * groups: tuples (type, vertices, plane_normal, plane_offset, dmin,
 * weight, mu_s, mu_k, closest_point, tangent_basis, normal_force,
 * normal_force_gradient, weight_out, mu_s_out, mu_k_out, status,
 * status_counts); inputs after vertices and every output may be None. */
PyObject *native_build(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *prec_obj, *X, *rest, *mu_s, *mu_k, *items, *result = NULL;
  native_context *c;
  native_views *views;
  fricl_build_batch b;
  fricl_build_report report;
  fricl_build_group groups[FRICL_MAX_GROUPS];
  int dim, blend;
  unsigned int flags;
  double kappa, dhat, dmin;
  size_t nx, nv, i;
  Py_ssize_t ng;
  void *p;
  (void)self;
  if (!PyArg_ParseTuple(args, "OOiIOOdddOOiO!", &ctx_obj, &prec_obj, &dim,
                        &flags, &X, &rest, &kappa, &dhat, &dmin, &mu_s, &mu_k,
                        &blend, &PyTuple_Type, &items))
    return NULL;
  if ((c = native_context_check(ctx_obj)) == NULL)
    return NULL;
  fricl_build_batch_init(&b);
  fricl_build_report_init(&report);
  if (native_precision(prec_obj, &b.precision) != 0)
    return NULL;
  if (dim != 2 && dim != 3)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "dim must be 2 or 3, got %d", dim);
  ng = PyTuple_GET_SIZE(items);
  if (ng > FRICL_MAX_GROUPS)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "n_groups = %ld: at most %d groups per call", (long)ng,
                         FRICL_MAX_GROUPS);
  views = malloc(sizeof *views);
  if (views == NULL)
    return PyErr_NoMemory();
  views->n = 0;
  b.dim = dim;
  b.flags = flags;
  b.kappa = kappa;
  b.dhat = dhat;
  b.dmin = dmin;
  b.blend = (fricl_mu_blend)blend;
  b.report = &report;
  if (native_get_any(views, X, "lagged_positions", NATIVE_REAL, b.precision, 0,
                     &p, &nx) != 0)
    goto done;
  if (nx % (size_t)dim != 0) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument 'lagged_positions': %zu values is not a "
                  "multiple of dim = %d",
                  nx, dim);
    goto done;
  }
  b.lagged_positions = p;
  nv = nx / (size_t)dim;
  b.n_vertices = nv;
  if (native_get(views, rest, "rest_positions", NATIVE_REAL, b.precision, nx, 0,
                 1, &p) != 0)
    goto done;
  b.rest_positions = p;
  if (vertex_mu(views, mu_s, "mu_s", b.precision, nv, &b.mu_s,
                &b.vertex_mu_s) != 0 ||
      vertex_mu(views, mu_k, "mu_k", b.precision, nv, &b.mu_k,
                &b.vertex_mu_k) != 0)
    goto done;
  for (i = 0; i < (size_t)ng; i++) {
    PyObject *it = PyTuple_GET_ITEM(items, i);
    fricl_build_group *g = &groups[i];
    const char *name;
    char label[64];
    size_t m, k, nb, d = (size_t)dim;
    memset(g, 0, sizeof *g);
    if (native_group_head(views, it, GROUP_ENTRIES, "a build group", i,
                          b.precision, &g->type, &name, &g->vertices,
                          &g->count) != 0)
      goto done;
    m = g->count;
    k = (size_t)fricl_stencil_vertex_count(g->type);
    nb = (size_t)fricl_stencil_coord_count(g->type);
#define GET_(idx, field, what, kind, count, writable)                          \
  snprintf(label, sizeof label, "%s." what, name);                             \
  if (native_get(views, PyTuple_GET_ITEM(it, idx), label, kind, b.precision,   \
                 (count), (writable), 1, &p) != 0)                             \
    goto done;                                                                 \
  g->field = p;
    GET_(2, plane_normal, "plane_normal", NATIVE_REAL, m * d, 0)
    GET_(3, plane_offset, "plane_offset", NATIVE_REAL, m, 0)
    GET_(4, dmin, "dmin", NATIVE_REAL, m, 0)
    GET_(5, weight, "weight", NATIVE_REAL, m, 0)
    GET_(6, mu_s, "mu_s", NATIVE_REAL, m, 0)
    GET_(7, mu_k, "mu_k", NATIVE_REAL, m, 0)
    GET_(8, closest_point, "closest_point", NATIVE_REAL, m * nb, 1)
    GET_(9, tangent_basis, "tangent_basis", NATIVE_REAL, m * d * (d - 1), 1)
    GET_(10, normal_force, "normal_force", NATIVE_REAL, m, 1)
    GET_(11, normal_force_gradient, "normal_force_gradient", NATIVE_REAL,
         m * k * d, 1)
    GET_(12, weight_out, "weight_out", NATIVE_REAL, m, 1)
    GET_(13, mu_s_out, "mu_s_out", NATIVE_REAL, m, 1)
    GET_(14, mu_k_out, "mu_k_out", NATIVE_REAL, m, 1)
    GET_(15, status, "status", NATIVE_U8, m, 1)
    GET_(16, status_counts, "status_counts", NATIVE_U64,
         (size_t)FRICL_BUILD_STATUS_COUNT, 1)
#undef GET_
    if (nb == 0)
      g->closest_point = NULL;
  }
  b.n_groups = (size_t)ng;
  b.groups = groups;
  if (native_call(c, call_build, &b, 0, NULL) != 0)
    goto done;
  result = Py_BuildValue(
      "(NNNnn)", size_list(report.count, FRICL_BUILD_STATUS_COUNT),
      size_list(report.first_group, FRICL_BUILD_STATUS_COUNT),
      size_list(report.first_contact, FRICL_BUILD_STATUS_COUNT),
      (Py_ssize_t)report.total, (Py_ssize_t)report.no_force);
done:
  native_release(views);
  free(views);
  return result;
}
