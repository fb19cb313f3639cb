/*
 * native_tangential.c - fricl._native.Plan (fricl_tangential_plan, its BSR
 * and CSR patterns and an exact CSC expansion) and tangential_eval
 * (fricl_tangential_eval over a Groups object and buffers).
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include "structmember.h"

/* ------------------------------------------------------------------ plan */

void native_plan_close(native_plan *p) {
  if (p->plan != NULL) {
    fricl_tangential_plan_destroy(p->plan);
    p->plan = NULL;
  }
  if (p->owner != NULL) { /* unlink from the owner's list of live plans */
    if (p->prev != NULL)
      p->prev->next = p->next;
    else if (p->owner->plans == p)
      p->owner->plans = p->next;
    if (p->next != NULL)
      p->next->prev = p->prev;
    p->prev = p->next = NULL;
  }
}

static void plan_dealloc(native_plan *p) {
  if (p->plan != NULL && p->owner != NULL) {
    PyThreadState *ts;
    /* Another thread may be calling fricl on the owner's context. */
    ts = PyEval_SaveThread();
    PyThread_acquire_lock(p->owner->lock, WAIT_LOCK);
    PyEval_RestoreThread(ts);
    native_plan_close(p);
    PyThread_release_lock(p->owner->lock);
  }
  native_plan_close(p);
  free(p->csc_order);
  free(p->csc_colstart);
  free(p->csc_brow);
  Py_XDECREF(p->owner);
  Py_TYPE(p)->tp_free((PyObject *)p);
}

struct plan_args {
  int dim;
  size_t n_vertices;
  const native_groups *groups;
  native_plan *p;
};

/* Create the plan and enter it in the owner's list in the same locked
 * region: a close() of the context that runs between the two would
 * otherwise miss it and leave a plan outliving its fricl_context. */
static fricl_status call_plan(fricl_context *ctx, const void *arg) {
  const struct plan_args *a = arg;
  native_plan *p = a->p;
  native_context *c = p->owner;
  fricl_tangential_plan *plan = NULL;
  fricl_status st = fricl_tangential_plan_create(ctx, a->dim, a->n_vertices,
                                                 a->groups->n_groups,
                                                 a->groups->groups, &plan);
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

/* Plan(ctx, groups, n_vertices) */
static PyObject *plan_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
  PyObject *ctx_obj;
  native_groups *groups;
  Py_ssize_t n_vertices;
  native_context *c;
  native_plan *p;
  struct plan_args a;
  (void)kwds;
  if (!PyArg_ParseTuple(args, "OO!n", &ctx_obj, &native_groups_type, &groups,
                        &n_vertices))
    return NULL;
  if ((c = native_context_check(ctx_obj)) == NULL)
    return NULL;
  if (n_vertices < 0)
    return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                        "n_vertices must be >= 0");
  p = (native_plan *)type->tp_alloc(type, 0);
  if (p == NULL)
    return NULL;
  p->dim = groups->dim;
  p->n_vertices = (size_t)n_vertices;
  Py_INCREF(c);
  p->owner = c;
  a.dim = groups->dim;
  a.n_vertices = (size_t)n_vertices;
  a.groups = groups;
  a.p = p;
  if (native_call(c, call_plan, &a, 0, NULL) != 0) {
    Py_DECREF(p); /* holds no plan: dealloc only drops the owner */
    return NULL;
  }
  return (PyObject *)p;
}

static native_plan *plan_check(PyObject *obj) {
  native_plan *p;
  if (!PyObject_TypeCheck(obj, &native_plan_type)) {
    PyErr_Format(PyExc_TypeError, "expected a fricl plan, got %s",
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  p = (native_plan *)obj;
  if (p->plan == NULL) {
    native_raise(FRICL_STATUS_INVALID_ARGUMENT, NATIVE_PLAN_CLOSED_MESSAGE);
    return NULL;
  }
  return p;
}

/* bsr_pattern(row_ptr int64 (n + 1), block_cols int32 (nnz_blocks)) */
static PyObject *plan_bsr_pattern(native_plan *p, PyObject *args) {
  PyObject *rp_obj, *bc_obj;
  native_views views;
  void *rp, *bc;
  const int64_t *row_ptr;
  const int32_t *cols;
  size_t nb, nnz;
  views.n = 0;
  if (!PyArg_ParseTuple(args, "OO", &rp_obj, &bc_obj))
    return NULL;
  /* The sizes are the plan's, cached at creation; the plan itself is read
   * only after the buffers are taken, since taking them may run Python
   * code (another thread may then close the plan). From the check on, the
   * GIL is held, which close() needs to free the plan. */
  nb = p->n_vertices;
  nnz = p->nnz_blocks;
  if (native_get(&views, rp_obj, "row_ptr", NATIVE_I64, FRICL_F64, nb + 1, 1, 0,
                 &rp) != 0 ||
      native_get(&views, bc_obj, "block_cols", NATIVE_I32, FRICL_F64, nnz, 1, 0,
                 &bc) != 0 ||
      plan_check((PyObject *)p) == NULL) {
    native_release(&views);
    return NULL;
  }
  fricl_tangential_plan_bsr(p->plan, &nb, &nnz, &row_ptr, &cols);
  memcpy(rp, row_ptr, (nb + 1) * sizeof *row_ptr);
  if (nnz > 0)
    memcpy(bc, cols, nnz * sizeof *cols);
  native_release(&views);
  Py_RETURN_NONE;
}

struct csr_args {
  const native_plan *p; /* its plan is read under the context's lock */
  fricl_precision precision;
  const void *bsr;
  int64_t *row_ptr;
  int32_t *cols;
  void *values;
};

static fricl_status call_csr(fricl_context *ctx, const void *arg) {
  const struct csr_args *a = arg;
  (void)ctx;
  if (a->p->plan == NULL)
    return NATIVE_CLOSED_PLAN;
  return fricl_tangential_plan_csr(a->p->plan, a->precision, a->bsr, a->row_ptr,
                                   a->cols, a->values);
}

/* csr(precision, bsr_values|None, row_ptr|None, cols|None, values|None) */
static PyObject *plan_csr(native_plan *p, PyObject *args) {
  PyObject *prec_obj, *bsr_obj, *rp_obj, *cols_obj, *val_obj;
  native_views views;
  struct csr_args a;
  size_t d2, n, nnz;
  void *bsr = NULL, *rp = NULL, *cols = NULL;
  int rc = -1;
  views.n = 0;
  if (!PyArg_ParseTuple(args, "OOOOO", &prec_obj, &bsr_obj, &rp_obj, &cols_obj,
                        &val_obj))
    return NULL;
  if (plan_check((PyObject *)p) == NULL ||
      native_precision(prec_obj, &a.precision) != 0)
    return NULL;
  d2 = (size_t)p->dim * (size_t)p->dim;
  n = p->n_vertices * (size_t)p->dim;
  nnz = p->nnz_blocks * d2;
  a.p = p;
  if (native_get(&views, bsr_obj, "bsr_values", NATIVE_REAL, a.precision, nnz,
                 0, val_obj == Py_None, &bsr) != 0 ||
      native_get(&views, rp_obj, "row_ptr", NATIVE_I64, a.precision, n + 1, 1,
                 1, &rp) != 0 ||
      native_get(&views, cols_obj, "cols", NATIVE_I32, a.precision, nnz, 1, 1,
                 &cols) != 0 ||
      native_get(&views, val_obj, "values", NATIVE_REAL, a.precision, nnz, 1, 1,
                 &a.values) != 0)
    goto done;
  a.bsr = bsr;
  a.row_ptr = rp;
  a.cols = cols;
  rc = native_call(p->owner, call_csr, &a, 0, NULL);
done:
  native_release(&views);
  if (rc != 0)
    return NULL;
  Py_RETURN_NONE;
}

/* The CSC order of the plan's blocks (see native.h): a counting
 * transpose of the BSR pattern. */
static int csc_map(native_plan *p) {
  const int64_t *row_ptr;
  const int32_t *cols;
  size_t nb, nnzb, a, k, b, t, *fill;
  if (p->csc_order != NULL)
    return 0;
  fricl_tangential_plan_bsr(p->plan, &nb, &nnzb, &row_ptr, &cols);
  fill = calloc(nb + 1, sizeof *fill);
  p->csc_order = malloc((nnzb + 1) * sizeof *p->csc_order);
  p->csc_brow = malloc((nnzb + 1) * sizeof *p->csc_brow);
  p->csc_colstart = calloc(nb + 1, sizeof *p->csc_colstart);
  if (fill == NULL || p->csc_order == NULL || p->csc_brow == NULL ||
      p->csc_colstart == NULL) {
    free(fill);
    free(p->csc_order);
    free(p->csc_brow);
    free(p->csc_colstart);
    p->csc_order = p->csc_brow = p->csc_colstart = NULL;
    PyErr_NoMemory();
    return -1;
  }
  for (k = 0; k < nnzb; k++)
    p->csc_colstart[(size_t)cols[k] + 1]++;
  for (b = 0; b < nb; b++)
    p->csc_colstart[b + 1] += p->csc_colstart[b];
  for (a = 0; a < nb; a++) /* rows ascending within each column */
    for (k = (size_t)row_ptr[a]; k < (size_t)row_ptr[a + 1]; k++) {
      b = (size_t)cols[k];
      t = p->csc_colstart[b] + fill[b]++;
      p->csc_order[t] = k;
      p->csc_brow[t] = a;
    }
  free(fill);
  return 0;
}

/* The scalar CSC pattern (indptr and/or indices, of type T, which the
 * caller checked fit): column b d + j holds rows brow d + i, i < d, of
 * each block of block column b, rows ascending (the same rows for each
 * j: written once, copied d - 1 times). */
#define CSC_PATTERN_(T)                                                        \
  do {                                                                         \
    T *ip_ = ip, *ix_ = ix;                                                    \
    size_t b_, j_, t_, i_, pos_ = 0;                                           \
    for (b_ = 0; b_ < p->n_vertices; b_++) {                                   \
      size_t t0_ = p->csc_colstart[b_], t1_ = p->csc_colstart[b_ + 1];         \
      size_t len_ = (t1_ - t0_) * d;                                           \
      if (ix_ != NULL) {                                                       \
        T *col_ = ix_ + pos_;                                                  \
        for (t_ = t0_; t_ < t1_; t_++)                                         \
          for (i_ = 0; i_ < d; i_++)                                           \
            *col_++ = (T)(p->csc_brow[t_] * d + i_);                           \
        for (j_ = 1; j_ < d; j_++)                                             \
          memcpy(ix_ + pos_ + j_ * len_, ix_ + pos_, len_ * sizeof(T));        \
      }                                                                        \
      for (j_ = 0; j_ < d; j_++, pos_ += len_)                                 \
        if (ip_ != NULL)                                                       \
          ip_[b_ * d + j_] = (T)pos_;                                          \
    }                                                                          \
    if (ip_ != NULL)                                                           \
      ip_[p->n_vertices * d] = (T)pos_;                                        \
  } while (0)

/* The values of block column b, column j of each block, for every block
 * column, in CSC order: sequential writes. The blocks of a column are
 * scattered over the BSR values (a transpose), so the next blocks are
 * prefetched while the current ones are copied. */
#if defined(__GNUC__) || defined(__clang__)
#define CSC_PREFETCH_(addr) __builtin_prefetch(addr)
#else
#define CSC_PREFETCH_(addr) ((void)0)
#endif
#define CSC_AHEAD 16
#define CSC_FILL_(T)                                                           \
  do {                                                                         \
    const T *v = bsr;                                                          \
    T *o = data;                                                               \
    const size_t *ord = p->csc_order;                                          \
    size_t b_, j_, t_, i_, pos_ = 0, nb_ = p->nnz_blocks;                      \
    for (b_ = 0; b_ < p->n_vertices; b_++) {                                   \
      size_t t0_ = p->csc_colstart[b_], t1_ = p->csc_colstart[b_ + 1];         \
      for (t_ = t0_; t_ < t1_; t_++)                                           \
        if (t_ + CSC_AHEAD < nb_) {                                            \
          const T *ahead_ = v + ord[t_ + CSC_AHEAD] * d * d;                   \
          CSC_PREFETCH_(ahead_);                                               \
          CSC_PREFETCH_(ahead_ + d * d - 1);                                   \
        }                                                                      \
      for (j_ = 0; j_ < d; j_++)                                               \
        for (t_ = t0_; t_ < t1_; t_++) {                                       \
          const T *blk = v + ord[t_] * d * d + j_;                             \
          for (i_ = 0; i_ < d; i_++)                                           \
            o[pos_++] = blk[i_ * d];                                           \
        }                                                                      \
    }                                                                          \
  } while (0)

/* csc(precision, bsr_values, indptr|None, indices|None, data|None,
 *     index64) - the exact CSC arrays of the matrix whose BSR values are
 * given (no symmetry assumed). index64: int64 indices, else int32 (the
 * caller checks that they fit). */
static PyObject *plan_csc(native_plan *p, PyObject *args) {
  PyObject *prec_obj, *bsr_obj, *ip_obj, *ix_obj, *data_obj;
  int index64;
  fricl_precision prec;
  native_views views;
  size_t d, n, nnz, nnzb;
  void *bsr = NULL, *ip = NULL, *ix = NULL, *data = NULL;
  native_kind ik;
  PyThreadState *ts;
  views.n = 0;
  if (!PyArg_ParseTuple(args, "OOOOOp", &prec_obj, &bsr_obj, &ip_obj, &ix_obj,
                        &data_obj, &index64))
    return NULL;
  /* The precision first: converting it may run Python code, and the plan
   * must stay checked until csc_map has read it (the GIL held between). */
  if (native_precision(prec_obj, &prec) != 0 ||
      plan_check((PyObject *)p) == NULL)
    return NULL;
  d = (size_t)p->dim;
  n = p->n_vertices * d;
  nnzb = p->nnz_blocks;
  nnz = nnzb * d * d;
  ik = index64 ? NATIVE_I64 : NATIVE_I32;
  if (!index64 && (nnz > INT32_MAX || n > INT32_MAX))
    return native_raise(FRICL_STATUS_UNSUPPORTED,
                        "the Hessian needs int64 indices");
  if (csc_map(p) != 0)
    return NULL;
  if (native_get(&views, bsr_obj, "bsr_values", NATIVE_REAL, prec, nnz, 0,
                 data_obj == Py_None, &bsr) != 0 ||
      native_get(&views, ip_obj, "indptr", ik, prec, n + 1, 1, 1, &ip) != 0 ||
      native_get(&views, ix_obj, "indices", ik, prec, nnz, 1, 1, &ix) != 0 ||
      native_get(&views, data_obj, "data", NATIVE_REAL, prec, nnz, 1, 1,
                 &data) != 0) {
    native_release(&views);
    return NULL;
  }
  ts = PyEval_SaveThread();
  if (ip != NULL || ix != NULL) {
    if (index64)
      CSC_PATTERN_(int64_t);
    else
      CSC_PATTERN_(int32_t);
  }
  if (data != NULL) {
    if (prec == FRICL_F64)
      CSC_FILL_(double);
    else
      CSC_FILL_(float);
  }
  PyEval_RestoreThread(ts);
  native_release(&views);
  Py_RETURN_NONE;
}

static PyObject *plan_close_method(native_plan *p, PyObject *unused) {
  (void)unused;
  PyThreadState *ts;
  if (p->plan == NULL)
    Py_RETURN_NONE;
  /* Destroy under the owner's lock: a call may be running on it. */
  ts = PyEval_SaveThread();
  PyThread_acquire_lock(p->owner->lock, WAIT_LOCK);
  PyEval_RestoreThread(ts);
  native_plan_close(p);
  PyThread_release_lock(p->owner->lock);
  Py_RETURN_NONE;
}

static PyObject *plan_get_closed(native_plan *p, void *closure) {
  (void)closure;
  return PyBool_FromLong(p->plan == NULL);
}

static PyMethodDef plan_methods[] = {
    {"bsr_pattern", (PyCFunction)plan_bsr_pattern, METH_VARARGS,
     "Copy the BSR row pointers (int64) and block columns (int32)."},
    {"csr", (PyCFunction)plan_csr, METH_VARARGS,
     "fricl_tangential_plan_csr into the given arrays."},
    {"csc", (PyCFunction)plan_csc, METH_VARARGS,
     "CSC arrays of the matrix with the given BSR values."},
    {"close", (PyCFunction)plan_close_method, METH_NOARGS,
     "Destroy the plan now (idempotent)."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef plan_members[] = {
    {"dim", T_INT, offsetof(native_plan, dim), READONLY, "2 or 3"},
    {"n_vertices", T_PYSSIZET, offsetof(native_plan, n_vertices), READONLY,
     "vertices (block rows)"},
    {"nnz_blocks", T_PYSSIZET, offsetof(native_plan, nnz_blocks), READONLY,
     "stored dim x dim blocks of the Hessian"},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef plan_getset[] = {
    {"closed", (getter)plan_get_closed, NULL, "True once destroyed", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject native_plan_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fricl._native.Plan",
    .tp_basicsize = sizeof(native_plan),
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A fricl_tangential_plan (use fricl.Plan).",
    .tp_methods = plan_methods,
    .tp_members = plan_members,
    .tp_getset = plan_getset,
    .tp_new = plan_new,
};

/* ----------------------------------------------------------- evaluation */

struct tangential_args {
  fricl_tangential_batch b; /* b.plan is set in the call */
  const native_plan *plan;  /* or NULL */
};

/* The plan is read here, under the context's lock: close() takes that
 * lock to free it, and may have run while the caller waited for it. */
static fricl_status call_tangential(fricl_context *ctx, const void *arg) {
  const struct tangential_args *a = arg;
  fricl_tangential_batch b = a->b;
  if (a->plan != NULL) {
    if (a->plan->plan == NULL)
      return NATIVE_CLOSED_PLAN;
    b.plan = a->plan->plan;
  }
  return fricl_tangential_eval(ctx, &b);
}

#define LOCAL_GROUPS 8

/* tangential_eval(ctx, groups, plan|None, profile, psd, flags, n_vertices,
 *   velocities, eps_v, direction|None, potential|None, gradient|None,
 *   hessian_values|None, hessian_product|None, per_group|None
 *   [, repeat|None[, mollifier]]) -> None (or the list of call times)
 * mollifier: a fricl_mollifier value (default 0, friction).
 * per_group: one tuple per group of (potential, local_hessian,
 * factored_gamma, factored_grad, factored_hessian), each None or an
 * array. */
PyObject *native_tangential_eval(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *plan_obj, *vel, *dir, *pot, *grad, *hess, *prod,
      *per_group, *repeat_obj = NULL, *result = NULL;
  native_groups *g;
  native_plan *plan = NULL;
  native_context *c;
  int profile, psd, repeat = 0, mollifier = 0;
  unsigned int flags;
  Py_ssize_t n_vertices;
  double eps_v, *times = NULL;
  native_views views;
  struct tangential_args ta;
  fricl_contact_group local[LOCAL_GROUPS], *groups = NULL;
  size_t n, i, d;
  void *p;
  (void)self;
  views.n = 0;
  if (!PyArg_ParseTuple(args, "OO!OiiInOdOOOOOO|Oi", &ctx_obj,
                        &native_groups_type, &g, &plan_obj, &profile, &psd,
                        &flags, &n_vertices, &vel, &eps_v, &dir, &pot, &grad,
                        &hess, &prod, &per_group, &repeat_obj, &mollifier))
    return NULL;
  if ((c = native_context_check(ctx_obj)) == NULL)
    return NULL;
  if (plan_obj != Py_None) {
    if ((plan = plan_check(plan_obj)) == NULL)
      return NULL;
    if (plan->owner != c)
      return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                          "the plan was made on another fricl.Context");
  }
  if (n_vertices < 0)
    return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                        "n_vertices must be >= 0");
  if (native_repeat(repeat_obj, &repeat, &times) != 0)
    return NULL;
  d = (size_t)g->dim;
  n = (size_t)n_vertices * d;
  fricl_tangential_batch_init(&ta.b);
  ta.plan = plan;
  ta.b.precision = g->precision;
  ta.b.mu_profile = (fricl_mu_profile)profile;
  ta.b.mollifier = (fricl_mollifier)mollifier;
  ta.b.psd = (fricl_psd)psd;
  ta.b.flags = flags;
  ta.b.dim = g->dim;
  ta.b.n_vertices = (size_t)n_vertices;
  ta.b.eps_v = eps_v;
  ta.b.n_groups = g->n_groups;
  ta.b.groups = g->groups;
  if (native_get(&views, vel, "velocities", NATIVE_REAL, ta.b.precision, n, 0,
                 0, &p) != 0)
    goto done;
  ta.b.velocities = p;
  if (native_get(&views, dir, "direction", NATIVE_REAL, ta.b.precision, n, 0, 1,
                 &p) != 0)
    goto done;
  ta.b.direction = p;
  if (native_get(&views, pot, "potential", NATIVE_REAL, ta.b.precision, 1, 1, 1,
                 &ta.b.potential) != 0 ||
      native_get(&views, grad, "gradient", NATIVE_REAL, ta.b.precision, n, 1, 1,
                 &ta.b.gradient) != 0 ||
      native_get(&views, prod, "hessian_product", NATIVE_REAL, ta.b.precision,
                 n, 1, 1, &ta.b.hessian_product) != 0)
    goto done;
  if (hess != Py_None && plan == NULL) {
    native_raise(FRICL_STATUS_INVALID_ARGUMENT, "hessian_values needs a plan");
    goto done;
  }
  if (native_get(&views, hess, "hessian_values", NATIVE_REAL, ta.b.precision,
                 plan ? plan->nnz_blocks * d * d : 0, 1, 1,
                 &ta.b.hessian_values) != 0)
    goto done;
  if (per_group != Py_None) {
    if (!PyTuple_Check(per_group) ||
        (size_t)PyTuple_GET_SIZE(per_group) != g->n_groups) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "per_group must be a tuple of %zu tuples", g->n_groups);
      goto done;
    }
    groups = g->n_groups <= LOCAL_GROUPS ? local
                                         : malloc(g->n_groups * sizeof *groups);
    if (groups == NULL) {
      PyErr_NoMemory();
      goto done;
    }
    memcpy(groups, g->groups, g->n_groups * sizeof *groups);
    for (i = 0; i < g->n_groups; i++) {
      PyObject *it = PyTuple_GET_ITEM(per_group, i);
      fricl_contact_group *cg = &groups[i];
      size_t k = (size_t)fricl_stencil_vertex_count(cg->type), nd = k * d,
             m = cg->count;
      const char *name = fricl_stencil_name(cg->type);
      char label[5][64];
      if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "per_group entries are tuples of 5 entries");
        goto done;
      }
      snprintf(label[0], 64, "%s.potential", name);
      snprintf(label[1], 64, "%s.local_hessian", name);
      snprintf(label[2], 64, "%s.factored_gamma", name);
      snprintf(label[3], 64, "%s.factored_grad", name);
      snprintf(label[4], 64, "%s.factored_hessian", name);
      if (native_get(&views, PyTuple_GET_ITEM(it, 0), label[0], NATIVE_REAL,
                     ta.b.precision, m, 1, 1, &cg->potential) != 0 ||
          native_get(&views, PyTuple_GET_ITEM(it, 1), label[1], NATIVE_REAL,
                     ta.b.precision, m * nd * nd, 1, 1,
                     &cg->local_hessian) != 0 ||
          native_get(&views, PyTuple_GET_ITEM(it, 2), label[2], NATIVE_REAL,
                     ta.b.precision, m * k, 1, 1, &cg->factored_gamma) != 0 ||
          native_get(&views, PyTuple_GET_ITEM(it, 3), label[3], NATIVE_REAL,
                     ta.b.precision, m * d, 1, 1, &cg->factored_grad) != 0 ||
          native_get(&views, PyTuple_GET_ITEM(it, 4), label[4], NATIVE_REAL,
                     ta.b.precision, m * d * (d + 1) / 2, 1, 1,
                     &cg->factored_hessian) != 0)
        goto done;
    }
    ta.b.groups = groups;
  }
  if (native_call(c, call_tangential, &ta, repeat, times) != 0)
    goto done;
  if (repeat > 0)
    result = native_times_list(times, repeat);
  else {
    Py_INCREF(Py_None);
    result = Py_None;
  }
done:
  native_release(&views);
  if (groups != NULL && groups != local)
    free(groups);
  free(times);
  return result;
}
