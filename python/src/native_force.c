/*
 * native_force.c - fricl._native.force_eval: the friction force and its
 * Jacobian (fricl_force_eval) over buffers, the Jacobian into the BSR
 * values of a plan the caller made on the same topology.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include <fricl/fricl_force.h>

#define GROUP_ENTRIES 8

typedef struct force_call {
  fricl_force_batch b;
  const native_plan *plan; /* or NULL */
  void *jv;                /* with plan: the BSR values, or NULL */
} force_call;

static fricl_status call_force(fricl_context *ctx, const void *arg) {
  const force_call *c = (const force_call *)arg;
  fricl_force_batch b = c->b;
  if (c->plan != NULL) { /* read under the lock: close() may have run */
    if (c->plan->plan == NULL)
      return NATIVE_CLOSED_PLAN;
    b.plan = c->plan->plan;
    b.jacobian_values = c->jv;
  }
  return fricl_force_eval(ctx, &b);
}

/* The group tuples (type, vertices, weight, mu_s, mu_k, mu_aniso,
 * plane_normal, plane_offset) and the per-group outputs (local_force,
 * local_jacobian, normal_force) into fricl_force_groups. */
static int parse_groups(native_views *views, PyObject *items, PyObject *outs,
                        int dim, fricl_precision precision,
                        fricl_force_group *groups) {
  const Py_ssize_t ng = PyTuple_GET_SIZE(items);
  void *p;
  size_t i;
  for (i = 0; i < (size_t)ng; i++) {
    PyObject *it = PyTuple_GET_ITEM(items, i);
    fricl_force_group *g = &groups[i];
    const char *name;
    char label[64];
    size_t m, k, d = (size_t)dim;
    memset(g, 0, sizeof *g);
    if (native_group_head(views, it, GROUP_ENTRIES, "a force group", i,
                          precision, &g->type, &name, &g->vertices,
                          &g->count) != 0)
      return -1;
    m = g->count;
    k = (size_t)fricl_stencil_vertex_count(g->type);
#define GET_(obj, what, count, wr)                                             \
  snprintf(label, sizeof label, "%s." what, name);                             \
  if (native_get(views, (obj), label, NATIVE_REAL, precision, (count), (wr),   \
                 1, &p) != 0)                                                  \
    return -1;
    GET_(PyTuple_GET_ITEM(it, 2), "weight", m, 0)
    g->weight = p;
    GET_(PyTuple_GET_ITEM(it, 3), "mu_s", m, 0)
    g->mu_s = p;
    GET_(PyTuple_GET_ITEM(it, 4), "mu_k", m, 0)
    g->mu_k = p;
    GET_(PyTuple_GET_ITEM(it, 5), "mu_aniso", m * (d - 1), 0)
    g->mu_aniso = p;
    GET_(PyTuple_GET_ITEM(it, 6), "plane_normal", m * d, 0)
    g->plane_normal = p;
    GET_(PyTuple_GET_ITEM(it, 7), "plane_offset", m, 0)
    g->plane_offset = p;
    if (outs != Py_None) {
      PyObject *o = PyTuple_GET_ITEM(outs, i);
      if (!PyTuple_Check(o) || PyTuple_GET_SIZE(o) != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "per-group force outputs are tuples of 3 entries");
        return -1;
      }
      GET_(PyTuple_GET_ITEM(o, 0), "local_force", m * k * d, 1)
      g->local_force = p;
      GET_(PyTuple_GET_ITEM(o, 1), "local_jacobian", m * k * d * k * d, 1)
      g->local_jacobian = p;
      GET_(PyTuple_GET_ITEM(o, 2), "normal_force", m, 1)
      g->normal_force = p;
    }
#undef GET_
  }
  return 0;
}

/* force_eval(ctx, precision, profile, dim, flags, wrt, rest|None,
 *            lagged_displacements, velocities, eps_v, kappa, dhat, dmin,
 *            groups, force|None, plan|None, jacobian_values|None,
 *            per_group|None[, column_major]) -> None
 * column_major = 1: rest, lagged_displacements and velocities are the
 * C-contiguous transposes (dim x n_vertices) of the caller's
 * Fortran-ordered arrays, read in place (FRICL_VERTEX_COLUMNS). */
PyObject *native_force_eval(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *prec_obj, *rest, *disp, *vel, *items, *force_obj;
  PyObject *plan_obj, *jv_obj, *outs, *result = NULL;
  native_context *ctx;
  native_views *views;
  force_call c;
  fricl_force_group groups[FRICL_MAX_GROUPS];
  int dim, profile, wrt, column_major = 0;
  unsigned int flags;
  double eps_v, kappa, dhat, dmin;
  size_t nx;
  Py_ssize_t ng;
  void *p;
  (void)self;
  if (!PyArg_ParseTuple(args, "OOiiIiOOOddddO!OOOO|i", &ctx_obj, &prec_obj,
                        &profile, &dim, &flags, &wrt, &rest, &disp, &vel,
                        &eps_v, &kappa, &dhat, &dmin, &PyTuple_Type, &items,
                        &force_obj, &plan_obj, &jv_obj, &outs, &column_major))
    return NULL;
  if ((ctx = native_context_check(ctx_obj)) == NULL)
    return NULL;
  memset(&c, 0, sizeof c);
  if (plan_obj != Py_None) {
    if (!PyObject_TypeCheck(plan_obj, &native_plan_type))
      return PyErr_Format(PyExc_TypeError, "expected a fricl plan, got %s",
                          Py_TYPE(plan_obj)->tp_name);
    c.plan = (const native_plan *)plan_obj;
    if (c.plan->plan == NULL)
      return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                          NATIVE_PLAN_CLOSED_MESSAGE);
    if (c.plan->owner != ctx)
      return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                          "the plan was made on another fricl.Context");
  }
  fricl_force_batch_init(&c.b);
  if (native_precision(prec_obj, &c.b.precision) != 0)
    return NULL;
  if (dim != 2 && dim != 3)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "dim must be 2 or 3, got %d", dim);
  ng = PyTuple_GET_SIZE(items);
  if (ng > FRICL_MAX_GROUPS)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "n_groups = %ld: at most %d groups per call", (long)ng,
                         FRICL_MAX_GROUPS);
  if (outs != Py_None && (!PyTuple_Check(outs) || PyTuple_GET_SIZE(outs) != ng))
    return PyErr_Format(PyExc_TypeError,
                        "per_group must be a tuple with one entry per group");
  views = malloc(sizeof *views);
  if (views == NULL)
    return PyErr_NoMemory();
  views->n = 0;
  c.b.dim = dim;
  c.b.flags = flags;
  c.b.mu_profile = (fricl_mu_profile)profile;
  c.b.wrt = (fricl_force_wrt)wrt;
  c.b.eps_v = eps_v;
  c.b.kappa = kappa;
  c.b.dhat = dhat;
  c.b.dmin = dmin;
  if (native_get_any(views, disp, "lagged_displacements", NATIVE_REAL,
                     c.b.precision, 0, &p, &nx) != 0)
    goto done;
  if (nx % (size_t)dim != 0) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument 'lagged_displacements': %zu values is not a "
                  "multiple of dim = %d",
                  nx, dim);
    goto done;
  }
  c.b.lagged_displacements = p;
  c.b.n_vertices = nx / (size_t)dim;
  if (native_get(views, rest, "rest_positions", NATIVE_REAL, c.b.precision, nx,
                 0, 1, &p) != 0)
    goto done;
  c.b.rest_positions = p;
  if (native_get(views, vel, "velocities", NATIVE_REAL, c.b.precision, nx, 0, 0,
                 &p) != 0)
    goto done;
  c.b.velocities = p;
  if (column_major)
    c.b.vertex_layout = FRICL_VERTEX_COLUMNS;
  if (native_get(views, force_obj, "force", NATIVE_REAL, c.b.precision, nx, 1,
                 1, &p) != 0)
    goto done;
  c.b.force = p;
  if (parse_groups(views, items, outs, dim, c.b.precision, groups) != 0)
    goto done;
  if (c.plan != NULL &&
      native_get(views, jv_obj, "jacobian_values", NATIVE_REAL, c.b.precision,
                 c.plan->nnz_blocks * (size_t)dim * (size_t)dim, 1, 1,
                 &c.jv) != 0)
    goto done;
  c.b.n_groups = (size_t)ng;
  c.b.groups = groups;
  if (native_call(ctx, call_force, &c, 0, NULL) != 0)
    goto done;
  Py_INCREF(Py_None);
  result = Py_None;
done:
  native_release(views);
  free(views);
  return result;
}
