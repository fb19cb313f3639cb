/*
 * native_barrier.c - fricl._native.barrier_eval: the normal-contact
 * barrier (fricl_barrier_eval) over buffers; with the Hessian, a plan is
 * made for the call and the assembled matrix returned as CSR.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include <fricl/fricl_barrier.h>

#define GROUP_ENTRIES 7

typedef struct barrier_call {
  fricl_barrier_batch b;
  fricl_barrier_extras extras[FRICL_MAX_GROUPS];
  int want_hessian;
  const native_plan *plan; /* or NULL: a plan for the call, CSR out */
  void *bsr_out;           /* with plan: the BSR values */
  /* filled by the call */
  double potential64;
  float potential32;
  size_t nrows, nnz;
  int64_t *row_ptr;
  int32_t *cols;
  void *values;
} barrier_call;

static fricl_status call_barrier(fricl_context *ctx, const void *arg) {
  barrier_call *c = (barrier_call *)arg;
  fricl_tangential_plan *plan = NULL;
  if (c->plan != NULL) { /* read under the lock: close() may have run */
    if (c->plan->plan == NULL)
      return NATIVE_CLOSED_PLAN;
    fricl_barrier_batch b = c->b;
    b.plan = c->plan->plan;
    b.hessian_values = c->want_hessian ? c->bsr_out : NULL;
    return fricl_barrier_eval(ctx, &b);
  }
  void *bsr = NULL;
  fricl_status st = FRICL_STATUS_OK;
  const size_t esz = c->b.precision == FRICL_F32 ? 4 : 8;
  const size_t d = (size_t)c->b.dim;
  if (c->want_hessian) {
    size_t nb = 0;
    st = fricl_barrier_plan_create(ctx, c->b.dim, c->b.n_vertices,
                                   c->b.n_groups, c->b.groups, &plan);
    if (st != FRICL_STATUS_OK)
      return st;
    fricl_tangential_plan_bsr(plan, NULL, &nb, NULL, NULL);
    c->nrows = c->b.n_vertices * d;
    c->nnz = nb * d * d;
    bsr = malloc(c->nnz * esz + 8);
    c->values = malloc(c->nnz * esz + 8);
    c->row_ptr = malloc((c->nrows + 1) * sizeof *c->row_ptr);
    c->cols = malloc(c->nnz * sizeof *c->cols + 8);
    if (!bsr || !c->values || !c->row_ptr || !c->cols) {
      st = FRICL_STATUS_OUT_OF_MEMORY;
      goto done;
    }
    c->b.plan = plan;
    c->b.hessian_values = bsr;
  }
  st = fricl_barrier_eval(ctx, &c->b);
  if (st == FRICL_STATUS_OK && plan)
    st = fricl_tangential_plan_csr(plan, c->b.precision, bsr, c->row_ptr,
                                   c->cols, c->values);
done:
  free(bsr);
  fricl_tangential_plan_destroy(plan);
  c->b.plan = NULL;
  c->b.hessian_values = NULL;
  return st;
}

/* The group tuples into fricl_barrier_groups (arrays borrowed through
 * `views`). */
static int parse_groups(native_views *views, PyObject *items, int dim,
                        fricl_precision precision,
                        fricl_barrier_group *groups) {
  const Py_ssize_t ng = PyTuple_GET_SIZE(items);
  void *p;
  size_t i;
  if (ng > FRICL_MAX_GROUPS) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "n_groups = %ld: at most %d groups per call", (long)ng,
                  FRICL_MAX_GROUPS);
    return -1;
  }
  for (i = 0; i < (size_t)ng; i++) {
    PyObject *it = PyTuple_GET_ITEM(items, i);
    fricl_barrier_group *g = &groups[i];
    const char *name;
    char label[64];
    size_t m, d = (size_t)dim;
    memset(g, 0, sizeof *g);
    if (native_group_head(views, it, GROUP_ENTRIES, "a barrier group", i,
                          precision, &g->type, &name, &g->vertices,
                          &g->count) != 0)
      return -1;
    m = g->count;
#define GET_(idx, what, kind, count)                                           \
  snprintf(label, sizeof label, "%s." what, name);                             \
  if (native_get(views, PyTuple_GET_ITEM(it, idx), label, kind, precision,     \
                 (count), 0, 1, &p) != 0)                                      \
    return -1;
    GET_(2, "weight", NATIVE_REAL, m)
    g->weight = p;
    GET_(3, "dmin", NATIVE_REAL, m)
    g->dmin = p;
    GET_(4, "distance_type", NATIVE_U8, m)
    g->distance_type = (const int8_t *)p;
    GET_(5, "plane_normal", NATIVE_REAL, m * d)
    g->plane_normal = p;
    GET_(6, "plane_offset", NATIVE_REAL, m)
    g->plane_offset = p;
#undef GET_
  }
  return 0;
}

/* ---------------------------------------------------- BarrierGroups */

static void bgroups_dealloc(native_barrier_groups *g) {
  if (g->views != NULL)
    native_release(g->views);
  free(g->views);
  free(g->groups);
  Py_TYPE(g)->tp_free((PyObject *)g);
}

/* BarrierGroups(dim, precision, ((type, vertices, weight, dmin,
 *               distance_type, plane_normal, plane_offset), ...)) */
static PyObject *bgroups_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwds) {
  PyObject *prec_obj, *items;
  native_barrier_groups *g;
  int dim;
  (void)kwds;
  if (!PyArg_ParseTuple(args, "iOO!", &dim, &prec_obj, &PyTuple_Type, &items))
    return NULL;
  if (dim != 2 && dim != 3)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "dim must be 2 or 3, got %d", dim);
  g = (native_barrier_groups *)type->tp_alloc(type, 0);
  if (g == NULL)
    return NULL;
  g->dim = dim;
  if (native_precision(prec_obj, &g->precision) != 0)
    goto fail;
  g->groups = calloc(FRICL_MAX_GROUPS, sizeof *g->groups);
  g->views = malloc(sizeof *g->views);
  if (g->groups == NULL || g->views == NULL) {
    PyErr_NoMemory();
    goto fail;
  }
  g->views->n = 0;
  if (parse_groups(g->views, items, dim, g->precision, g->groups) != 0)
    goto fail;
  g->n_groups = (size_t)PyTuple_GET_SIZE(items);
  return (PyObject *)g;
fail:
  Py_DECREF(g);
  return NULL;
}

PyTypeObject native_barrier_groups_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fricl._native.BarrierGroups",
    .tp_basicsize = sizeof(native_barrier_groups),
    .tp_dealloc = (destructor)bgroups_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The barrier's contact groups, read once and held.",
    .tp_new = bgroups_new,
};

/* items: a BarrierGroups of this dim and precision (its groups are used
 * as they are) or a tuple of group tuples (parsed into `groups`).
 * @return the groups, or NULL with an exception set. */
static fricl_barrier_group *groups_of(native_views *views, PyObject *items,
                                      int dim, fricl_precision precision,
                                      fricl_barrier_group *groups,
                                      size_t *n_groups) {
  if (PyObject_TypeCheck(items, &native_barrier_groups_type)) {
    const native_barrier_groups *g = (const native_barrier_groups *)items;
    if (g->dim != dim || g->precision != precision) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "groups: made for dim %d and precision %d, the call has "
                    "dim %d and precision %d",
                    g->dim, (int)g->precision, dim, (int)precision);
      return NULL;
    }
    /* copied: the call sets the groups' output pointers */
    memcpy(groups, g->groups, g->n_groups * sizeof *groups);
    *n_groups = g->n_groups;
    return groups;
  }
  if (!PyTuple_Check(items)) {
    PyErr_Format(PyExc_TypeError,
                 "groups: expected a tuple or a BarrierGroups, got %s",
                 Py_TYPE(items)->tp_name);
    return NULL;
  }
  if (parse_groups(views, items, dim, precision, groups) != 0)
    return NULL;
  *n_groups = (size_t)PyTuple_GET_SIZE(items);
  return groups;
}

/* The extra outputs (0.4): outs is None or a tuple per group of
 * (force_magnitude, force_magnitude_gradient, gauss_newton_diagonal,
 * gauss_newton_quadratic_form, potential, local_gradient, local_hessian,
 * shape_derivative),
 * each a writable buffer or None. */
static int parse_outputs(native_views *views, PyObject *outs, int dim,
                         barrier_call *c, fricl_barrier_group *groups,
                         Py_ssize_t ng) {
  static const char *const names[8] = {"force_magnitude",
                                       "force_magnitude_gradient",
                                       "gauss_newton_diagonal",
                                       "gauss_newton_quadratic_form",
                                       "potential",
                                       "local_gradient",
                                       "local_hessian",
                                       "shape_derivative"};
  if (outs == Py_None)
    return 0;
  if (!PyTuple_Check(outs) || PyTuple_GET_SIZE(outs) != ng) {
    PyErr_SetString(PyExc_TypeError,
                    "outputs: a tuple with one entry per group");
    return -1;
  }
  for (Py_ssize_t g = 0; g < ng; g++) {
    PyObject *it = PyTuple_GET_ITEM(outs, g);
    const size_t m = groups[g].count;
    const size_t nd =
        (size_t)fricl_stencil_vertex_count(groups[g].type) * (size_t)dim;
    const size_t counts[8] = {m, m * nd, m * nd,      m,
                              m, m * nd, m * nd * nd, m * nd * nd};
    void *p[8];
    if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 8) {
      PyErr_SetString(PyExc_TypeError, "outputs: a group's entry is a tuple "
                                       "of 8 buffers or None");
      return -1;
    }
    for (int i = 0; i < 8; i++)
      if (native_get(views, PyTuple_GET_ITEM(it, i), names[i], NATIVE_REAL,
                     c->b.precision, counts[i], 1, 1, &p[i]) != 0)
        return -1;
    c->extras[g].force_magnitude = p[0];
    c->extras[g].force_magnitude_gradient = p[1];
    c->extras[g].gauss_newton_diagonal = p[2];
    c->extras[g].gauss_newton_quadratic_form = p[3];
    groups[g].potential = p[4];
    groups[g].local_gradient = p[5];
    groups[g].local_hessian = p[6];
    c->extras[g].shape_derivative = p[7];
  }
  c->b.extras = c->extras;
  return 0;
}

/* barrier_eval(ctx, precision, dim, flags, psd, positions,
 *              rest_positions|None, dhat, kappa, dmin, groups, gradient|None,
 *              want_hessian, plan|None, hessian_values|None,
 *              function|None, outputs|None, gn_diagonal|None,
 *              direction|None, gn_quadratic_form|None)
 * function: None (the barrier) or (1, dhat_p, dhat_a, Y, eps_c) for
 * adhesion; outputs as parse_outputs; gn_quadratic_form a writable
 * buffer of one real (needs direction).
 *   -> (potential, None | (row_ptr int64 bytes, cols int32 bytes,
 *                          values bytes, n_rows))
 * groups: tuples (type, vertices, weight, dmin, distance_type (uint8 bytes
 * of int8 values), plane_normal, plane_offset); all after vertices may be
 * None. */
PyObject *native_barrier_eval(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *prec_obj, *X, *rest, *items, *grad, *result = NULL;
  PyObject *plan_obj = Py_None, *hv_obj = Py_None, *fn_obj = Py_None;
  PyObject *outs = Py_None, *gnd_obj = Py_None, *dir_obj = Py_None;
  PyObject *gnq_obj = Py_None;
  native_context *ctx;
  native_views *views;
  barrier_call c;
  fricl_barrier_group groups[FRICL_MAX_GROUPS];
  int dim, psd, want_h;
  unsigned int flags;
  double dhat, kappa, dmin;
  size_t nx;
  Py_ssize_t ng;
  void *p;
  (void)self;
  if (!PyArg_ParseTuple(args, "OOiIiOOdddOOp|OOOOOOO", &ctx_obj, &prec_obj,
                        &dim, &flags, &psd, &X, &rest, &dhat, &kappa, &dmin,
                        &items, &grad, &want_h, &plan_obj, &hv_obj, &fn_obj,
                        &outs, &gnd_obj, &dir_obj, &gnq_obj))
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
  fricl_barrier_batch_init(&c.b);
  if (native_precision(prec_obj, &c.b.precision) != 0)
    return NULL;
  if (dim != 2 && dim != 3)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "dim must be 2 or 3, got %d", dim);
  views = malloc(sizeof *views);
  if (views == NULL)
    return PyErr_NoMemory();
  views->n = 0;
  c.b.dim = dim;
  c.b.flags = flags;
  c.b.psd = (fricl_psd)psd;
  c.b.dhat = dhat;
  c.b.kappa = kappa;
  c.b.dmin = dmin;
  c.want_hessian = want_h;
  if (fn_obj != Py_None) {
    int fn;
    if (!PyArg_ParseTuple(fn_obj,
                          "idddd;function: (kind, dhat_p, dhat_a, Y, "
                          "eps_c)",
                          &fn, &c.b.adhesion_dhat_p, &c.b.adhesion_dhat_a,
                          &c.b.adhesion_Y, &c.b.adhesion_eps_c)) {
      free(views);
      return NULL;
    }
    c.b.function = (fricl_normal_function)fn;
  }
  if (native_get_any(views, X, "positions", NATIVE_REAL, c.b.precision, 0, &p,
                     &nx) != 0)
    goto done;
  if (nx % (size_t)dim != 0) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument 'positions': %zu values is not a multiple of "
                  "dim = %d",
                  nx, dim);
    goto done;
  }
  c.b.positions = p;
  c.b.n_vertices = nx / (size_t)dim;
  if (native_get(views, rest, "rest_positions", NATIVE_REAL, c.b.precision, nx,
                 0, 1, &p) != 0)
    goto done;
  c.b.rest_positions = p;
  if (native_get(views, grad, "gradient", NATIVE_REAL, c.b.precision, nx, 1, 1,
                 &p) != 0)
    goto done;
  c.b.gradient = p;
  {
    size_t n_groups = 0;
    if (groups_of(views, items, dim, c.b.precision, groups, &n_groups) == NULL)
      goto done;
    ng = (Py_ssize_t)n_groups;
  }
  if (parse_outputs(views, outs, dim, &c, groups, ng) != 0)
    goto done;
  if (native_get(views, gnd_obj, "gauss_newton_diagonal", NATIVE_REAL,
                 c.b.precision, nx, 1, 1, &p) != 0)
    goto done;
  c.b.gauss_newton_diagonal = p;
  if (native_get(views, dir_obj, "direction", NATIVE_REAL, c.b.precision, nx, 0,
                 1, &p) != 0)
    goto done;
  c.b.direction = p;
  if (native_get(views, gnq_obj, "gauss_newton_quadratic_form", NATIVE_REAL,
                 c.b.precision, 1, 1, 1, &p) != 0)
    goto done;
  c.b.gauss_newton_quadratic_form = p;
  if (c.plan != NULL && want_h &&
      native_get(views, hv_obj, "hessian_values", NATIVE_REAL, c.b.precision,
                 c.plan->nnz_blocks * (size_t)dim * (size_t)dim, 1, 0,
                 &c.bsr_out) != 0)
    goto done;
  c.b.n_groups = (size_t)ng;
  c.b.groups = groups;
  /* A call for extras alone does not compute the potential (returned as
   * 0): the library then skips the contacts' records. */
  if (outs == Py_None && gnd_obj == Py_None && gnq_obj == Py_None)
    c.b.potential = c.b.precision == FRICL_F32 ? (void *)&c.potential32
                                               : (void *)&c.potential64;
  else if (!want_h && c.b.gradient == NULL)
    c.b.potential = NULL;
  else
    c.b.potential = c.b.precision == FRICL_F32 ? (void *)&c.potential32
                                               : (void *)&c.potential64;
  if (native_call(ctx, call_barrier, &c, 0, NULL) != 0)
    goto done;
  {
    const double pot =
        c.b.precision == FRICL_F32 ? (double)c.potential32 : c.potential64;
    const size_t esz = c.b.precision == FRICL_F32 ? 4 : 8;
    PyObject *h = Py_None;
    Py_INCREF(Py_None);
    if (want_h && c.plan == NULL) {
      Py_DECREF(Py_None);
      h = Py_BuildValue(
          "(NNNn)", native_bytes(c.row_ptr, (c.nrows + 1) * sizeof(int64_t)),
          native_bytes(c.cols, c.nnz * sizeof(int32_t)),
          native_bytes(c.values, c.nnz * esz), (Py_ssize_t)c.nrows);
      if (h == NULL)
        goto done;
    }
    result = Py_BuildValue("(dN)", pot, h);
  }
done:
  free(c.row_ptr);
  free(c.cols);
  free(c.values);
  native_release(views);
  free(views);
  return result;
}

/* ------------------------------------------------------------ plans */

struct barrier_plan_args {
  native_plan *p;
  int dim;
  size_t n_vertices, n_groups;
  const fricl_barrier_group *groups;
};

/* Create the plan and enter it in the owner's list under the lock (as
 * native_tangential.c's plans: close() must see it). */
static fricl_status call_barrier_plan(fricl_context *ctx, const void *arg) {
  const struct barrier_plan_args *a = arg;
  native_plan *p = a->p;
  native_context *c = p->owner;
  fricl_tangential_plan *plan = NULL;
  fricl_status st = fricl_barrier_plan_create(ctx, a->dim, a->n_vertices,
                                              a->n_groups, a->groups, &plan);
  if (st != FRICL_STATUS_OK)
    return st;
  p->plan = plan;
  fricl_tangential_plan_bsr(plan, NULL, &p->nnz_blocks, NULL, NULL);
  p->next = c->plans;
  if (c->plans != NULL)
    c->plans->prev = p;
  c->plans = p;
  return FRICL_STATUS_OK;
}

/* barrier_plan(ctx, dim, n_vertices, groups) -> fricl._native.Plan of a
 * barrier contact set (the groups as for barrier_eval). */
PyObject *native_barrier_plan(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *items, *result = NULL;
  native_context *ctx;
  native_views views;
  fricl_barrier_group groups[FRICL_MAX_GROUPS];
  struct barrier_plan_args a;
  int dim;
  Py_ssize_t nv;
  (void)self;
  size_t n_groups = 0;
  if (!PyArg_ParseTuple(args, "OinO", &ctx_obj, &dim, &nv, &items))
    return NULL;
  if ((ctx = native_context_check(ctx_obj)) == NULL)
    return NULL;
  if (nv < 0)
    return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                        "n_vertices must be >= 0");
  views.n = 0;
  /* only the types and vertices are read: any precision will do */
  if (groups_of(&views, items, dim,
                PyObject_TypeCheck(items, &native_barrier_groups_type)
                    ? ((const native_barrier_groups *)items)->precision
                    : FRICL_F64,
                groups, &n_groups) == NULL)
    goto done;
  native_plan *p =
      (native_plan *)native_plan_type.tp_alloc(&native_plan_type, 0);
  if (p == NULL)
    goto done;
  p->dim = dim;
  p->n_vertices = (size_t)nv;
  Py_INCREF(ctx);
  p->owner = ctx;
  a.p = p;
  a.dim = dim;
  a.n_vertices = (size_t)nv;
  a.n_groups = n_groups;
  a.groups = groups;
  if (native_call(ctx, call_barrier_plan, &a, 0, NULL) != 0) {
    Py_DECREF(p);
    goto done;
  }
  result = (PyObject *)p;
done:
  native_release(&views);
  return result;
}

/* ------------------------------------------------ shape derivative */

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The CSC pattern of H + sum_c a_c b_c^T (see native_shape_assemble):
 * each column's rows sorted, no duplicates. @return 0, or -1 with the
 * exception set. */
static int shape_pattern(size_t n, const int64_t *hp, const int64_t *hi,
                         const int64_t *ap, const int64_t *ar,
                         const int64_t *wp, const int64_t *wc, int64_t **ip_out,
                         int64_t **ix_out) {
  int64_t *ip = malloc((n + 1) * sizeof *ip);
  int64_t *mark = malloc((n ? n : 1) * sizeof *mark);
  size_t cap = 1024, nnz = 0;
  int64_t *ix = malloc(cap * sizeof *ix);
  if (!ip || !mark || !ix)
    goto oom;
  for (size_t r = 0; r < n; ++r)
    mark[r] = -1;
  ip[0] = 0;
  for (size_t j = 0; j < n; ++j) {
    const size_t start = nnz;
    for (int pass = 0; pass < 2; ++pass) {
      const int64_t lo = pass ? wp[j] : hp[j],
                    hi_ = pass ? wp[j + 1] : hp[j + 1];
      for (int64_t q = lo; q < hi_; ++q) {
        const int64_t c = pass ? wc[q] : -1;
        const int64_t r0 = pass ? ap[c] : q, r1 = pass ? ap[c + 1] : q + 1;
        for (int64_t t = r0; t < r1; ++t) {
          const int64_t r = pass ? ar[t] : hi[t];
          if (mark[r] == (int64_t)j)
            continue;
          mark[r] = (int64_t)j;
          if (nnz == cap) {
            int64_t *nx = realloc(ix, 2 * cap * sizeof *ix);
            if (!nx)
              goto oom;
            ix = nx;
            cap *= 2;
          }
          ix[nnz++] = r;
        }
      }
    }
    qsort(ix + start, nnz - start, sizeof *ix, cmp_i64);
    ip[j + 1] = (int64_t)nnz;
  }
  free(mark);
  *ip_out = ip;
  *ix_out = ix;
  return 0;
oom:
  free(ip);
  free(mark);
  free(ix);
  PyErr_NoMemory();
  return -1;
}

/* shape_assemble(n, h_indptr, h_indices, h_data, a_ptr, a_rows, a_vals,
 *                w_ptr, w_coll, w_vals, indptr|None, indices|None,
 *                data|None)
 * S = H + sum_c a_c b_c^T as a CSC matrix (n x n): H in CSC (h_*), a_c
 * the sparse column of collision c (rows a_rows[a_ptr[c] .. a_ptr[c+1]),
 * values a_vals), b_c^T's entries grouped by column j (w_ptr over the n
 * columns; collision w_coll, value w_vals, ascending collisions in a
 * column). Without indptr: -> (indptr, indices) bytes of int64, S's
 * pattern (rows sorted). With the pattern (of the same H pattern, a and
 * b rows) and data (writable float64, its nnz): fills data, -> None.
 * Each entry is (sum over c ascending of a * b) + H's, the order scipy's
 * H + G W^T takes. All index arrays int64; single thread,
 * deterministic. */
PyObject *native_shape_assemble(PyObject *self, PyObject *args) {
  PyObject *o[12];
  Py_ssize_t n_;
  native_views views;
  void *p[12];
  size_t cnt[12];
  PyObject *result = NULL;
  int64_t *ip = NULL, *ix = NULL, *pos = NULL;
  double *data = NULL;
  int own = 0;
  (void)self;
  if (!PyArg_ParseTuple(args, "nOOOOOOOOOOOO", &n_, &o[0], &o[1], &o[2], &o[3],
                        &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10],
                        &o[11]))
    return NULL;
  if (n_ < 0)
    return native_raise(FRICL_STATUS_INVALID_ARGUMENT, "n must be >= 0");
  const size_t n = (size_t)n_;
  static const char *const names[12] = {
      "h_indptr", "h_indices", "h_data", "a_ptr",  "a_rows",  "a_vals",
      "w_ptr",    "w_coll",    "w_vals", "indptr", "indices", "data"};
  static const native_kind kinds[12] = {
      NATIVE_I64, NATIVE_I64, NATIVE_F64, NATIVE_I64, NATIVE_I64, NATIVE_F64,
      NATIVE_I64, NATIVE_I64, NATIVE_F64, NATIVE_I64, NATIVE_I64, NATIVE_F64};
  views.n = 0;
  for (int i = 0; i < 12; ++i) {
    p[i] = NULL;
    cnt[i] = 0;
    if (i >= 9 && o[i] == Py_None)
      continue;
    if (native_get_any(&views, o[i], names[i], kinds[i], FRICL_F64, i == 11,
                       &p[i], &cnt[i]) != 0)
      goto done;
  }
  const int64_t *hp = p[0], *hi = p[1], *ap = p[3], *ar = p[4], *wp = p[6],
                *wc = p[7];
  const double *hd = p[2], *av = p[5], *wv = p[8];
  const size_t nc = cnt[3] ? cnt[3] - 1 : 0;
  /* the index arrays: checked before any work */
  if (cnt[0] != n + 1 || cnt[6] != n + 1 || cnt[3] < 1 || hp[0] != 0 ||
      (size_t)hp[n] != cnt[1] || cnt[1] != cnt[2] || ap[0] != 0 ||
      (size_t)ap[nc] != cnt[4] || cnt[4] != cnt[5] || wp[0] != 0 ||
      (size_t)wp[n] != cnt[7] || cnt[7] != cnt[8]) {
    native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                 "shape_assemble: inconsistent array sizes");
    goto done;
  }
  for (size_t j = 0; j < n; ++j)
    if (hp[j + 1] < hp[j] || wp[j + 1] < wp[j]) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "shape_assemble: h_indptr or w_ptr decreases at %zu", j);
      goto done;
    }
  for (size_t c = 0; c < nc; ++c)
    if (ap[c + 1] < ap[c]) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "shape_assemble: a_ptr decreases at %zu", c);
      goto done;
    }
  for (size_t t = 0; t < cnt[1]; ++t)
    if (hi[t] < 0 || (size_t)hi[t] >= n) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "shape_assemble: h_indices[%zu] = %lld out of range", t,
                    (long long)hi[t]);
      goto done;
    }
  for (size_t t = 0; t < cnt[4]; ++t)
    if (ar[t] < 0 || (size_t)ar[t] >= n) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "shape_assemble: a_rows[%zu] = %lld out of range", t,
                    (long long)ar[t]);
      goto done;
    }
  for (size_t t = 0; t < cnt[7]; ++t)
    if (wc[t] < 0 || (size_t)wc[t] >= nc) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "shape_assemble: w_coll[%zu] = %lld out of range", t,
                    (long long)wc[t]);
      goto done;
    }
  if ((p[9] == NULL) != (p[10] == NULL) || (p[9] == NULL) != (p[11] == NULL) ||
      (p[9] &&
       (cnt[9] != n + 1 || ((int64_t *)p[9])[0] != 0 ||
        (size_t)((int64_t *)p[9])[n] != cnt[10] || cnt[11] != cnt[10]))) {
    native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                 "shape_assemble: indptr, indices and data are not a pattern "
                 "of n columns and its values");
    goto done;
  }
  if (p[9]) { /* the pattern's rows: in range, for the scatter below */
    const int64_t *jp = p[9], *jx = p[10];
    for (size_t j = 0; j < n; ++j)
      if (jp[j + 1] < jp[j]) {
        native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                      "shape_assemble: indptr decreases at %zu", j);
        goto done;
      }
    for (size_t t = 0; t < cnt[10]; ++t)
      if (jx[t] < 0 || (size_t)jx[t] >= n) {
        native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                      "shape_assemble: indices[%zu] = %lld out of range", t,
                      (long long)jx[t]);
        goto done;
      }
  }
  if (p[9] == NULL) {
    if (shape_pattern(n, hp, hi, ap, ar, wp, wc, &ip, &ix) != 0)
      goto done;
    own = 1;
    result = Py_BuildValue("(NN)", native_bytes(ip, (n + 1) * sizeof *ip),
                           native_bytes(ix, (size_t)ip[n] * sizeof *ix));
    goto done;
  }
  ip = p[9];
  ix = p[10];
  data = p[11];
  pos = malloc((n ? n : 1) * sizeof *pos);
  if (!pos) {
    PyErr_NoMemory();
    goto done;
  }
  /* pos: a row's entry in the current column, -1 elsewhere (a row the
   * pattern lacks is an error, not a write elsewhere) */
  size_t bad = SIZE_MAX;
  Py_BEGIN_ALLOW_THREADS;
  for (size_t r = 0; r < n; ++r)
    pos[r] = -1;
  for (size_t j = 0; j < n && bad == SIZE_MAX; ++j) {
    for (int64_t q = ip[j]; q < ip[j + 1]; ++q) {
      pos[ix[q]] = q;
      data[q] = 0.0;
    }
    /* sum over the collisions (ascending) of a * b, then + H */
    for (int64_t q = wp[j]; q < wp[j + 1]; ++q) {
      const int64_t c = wc[q];
      const double v = wv[q];
      for (int64_t t = ap[c]; t < ap[c + 1]; ++t) {
        const int64_t e = pos[ar[t]];
        if (e < 0)
          bad = j;
        else
          data[e] += av[t] * v;
      }
    }
    for (int64_t q = hp[j]; q < hp[j + 1]; ++q) {
      const int64_t e = pos[hi[q]];
      if (e < 0)
        bad = j;
      else
        data[e] = hd[q] + data[e];
    }
    for (int64_t q = ip[j]; q < ip[j + 1]; ++q)
      pos[ix[q]] = -1;
  }
  Py_END_ALLOW_THREADS;
  if (bad != SIZE_MAX) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "shape_assemble: column %zu has rows the pattern lacks", bad);
    goto done;
  }
  Py_INCREF(Py_None);
  result = Py_None;
done:
  if (own) {
    free(ip);
    free(ix);
  }
  free(pos);
  native_release(&views);
  return result;
}
