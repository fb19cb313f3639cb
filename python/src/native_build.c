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

/* The batch's vertex arrays (b->dim and b->precision set): the lagged
 * positions (their count fixes n_vertices), the rest positions and the
 * per-vertex or scalar mu_s and mu_k. */
static int batch_vertices(native_views *views, fricl_build_batch *b,
                          PyObject *X, PyObject *rest, PyObject *mu_s,
                          PyObject *mu_k) {
  size_t nx;
  void *p;
  if (native_get_any(views, X, "lagged_positions", NATIVE_REAL, b->precision, 0,
                     &p, &nx) != 0)
    return -1;
  if (nx % (size_t)b->dim != 0) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument 'lagged_positions': %zu values is not a "
                  "multiple of dim = %d",
                  nx, b->dim);
    return -1;
  }
  b->lagged_positions = p;
  b->n_vertices = nx / (size_t)b->dim;
  if (native_get(views, rest, "rest_positions", NATIVE_REAL, b->precision, nx,
                 0, 1, &p) != 0)
    return -1;
  b->rest_positions = p;
  if (vertex_mu(views, mu_s, "mu_s", b->precision, b->n_vertices, &b->mu_s,
                &b->vertex_mu_s) != 0 ||
      vertex_mu(views, mu_k, "mu_k", b->precision, b->n_vertices, &b->mu_k,
                &b->vertex_mu_k) != 0)
    return -1;
  return 0;
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
  size_t i;
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
  if (batch_vertices(views, &b, X, rest, mu_s, mu_k) != 0)
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

/* ------------------------------------------------------- BuildGroups */

/* Per group of a BuildGroups: the offsets of its outputs in the packed
 * reals (SIZE_MAX: none) and of its status codes in the packed bytes. */
enum { PK_CP, PK_P, PK_N, PK_DN, PK_W, PK_MS, PK_MK, PK_COUNT };

typedef struct native_build_groups {
  PyObject_HEAD int dim;
  size_t n_groups;
  fricl_build_group groups[FRICL_MAX_GROUPS]; /* the inputs */
  size_t offset[FRICL_MAX_GROUPS][PK_COUNT];
  size_t status_offset[FRICL_MAX_GROUPS];
  size_t n_reals, n_status, n_words; /* n_words: build_packed's `out` */
  PyObject *layout;
  native_views *views; /* the borrowed inputs, released in dealloc */
} native_build_groups;

static void build_groups_dealloc(native_build_groups *g) {
  if (g->views != NULL)
    native_release(g->views);
  free(g->views);
  Py_XDECREF(g->layout);
  Py_TYPE(g)->tp_free((PyObject *)g);
}

#define PREP_ENTRIES 8

/* BuildGroups(dim, ((type, vertices, plane_normal, plane_offset, dmin,
 *             weight, mu_s, mu_k), ...), normal_force_gradient): the
 * lagged build's inputs (float64), read and checked once, with the
 * layout of its outputs packed into one array of reals (closest point,
 * tangent basis, N, dN/dx when asked for, weight, mu_s, mu_k, group after
 * group) and one of status bytes. */
static PyObject *build_groups_new(PyTypeObject *type, PyObject *args,
                                  PyObject *kwds) {
  PyObject *items;
  native_build_groups *g;
  int dim, want_dn;
  size_t i, reals = 0, codes = 0;
  void *p;
  (void)kwds;
  if (!PyArg_ParseTuple(args, "iO!p", &dim, &PyTuple_Type, &items, &want_dn))
    return NULL;
  if (dim != 2 && dim != 3)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "dim must be 2 or 3, got %d", dim);
  if (PyTuple_GET_SIZE(items) > FRICL_MAX_GROUPS)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "n_groups = %ld: at most %d groups per call",
                         (long)PyTuple_GET_SIZE(items), FRICL_MAX_GROUPS);
  g = (native_build_groups *)type->tp_alloc(type, 0);
  if (g == NULL)
    return NULL;
  g->dim = dim;
  g->views = malloc(sizeof *g->views);
  if (g->views == NULL) {
    PyErr_NoMemory();
    goto fail;
  }
  g->views->n = 0;
  g->n_groups = (size_t)PyTuple_GET_SIZE(items);
  if ((g->layout = PyTuple_New((Py_ssize_t)g->n_groups)) == NULL)
    goto fail;
  for (i = 0; i < g->n_groups; i++) {
    PyObject *it = PyTuple_GET_ITEM(items, i), *row;
    fricl_build_group *b = &g->groups[i];
    const char *name;
    char label[64];
    size_t m, k, nb, d = (size_t)dim, j;
    memset(b, 0, sizeof *b);
    if (native_group_head(g->views, it, PREP_ENTRIES, "a build group", i,
                          FRICL_F64, &b->type, &name, &b->vertices,
                          &b->count) != 0)
      goto fail;
    m = b->count;
    k = (size_t)fricl_stencil_vertex_count(b->type);
    nb = (size_t)fricl_stencil_coord_count(b->type);
#define GET_(idx, field, what, count)                                          \
  snprintf(label, sizeof label, "%s." what, name);                             \
  if (native_get(g->views, PyTuple_GET_ITEM(it, idx), label, NATIVE_REAL,      \
                 FRICL_F64, (count), 0, 1, &p) != 0)                           \
    goto fail;                                                                 \
  b->field = p;
    GET_(2, plane_normal, "plane_normal", m * d)
    GET_(3, plane_offset, "plane_offset", m)
    GET_(4, dmin, "dmin", m)
    GET_(5, weight, "weight", m)
    GET_(6, mu_s, "mu_s", m)
    GET_(7, mu_k, "mu_k", m)
#undef GET_
    {
      const size_t sizes[PK_COUNT] = {
          m * nb, m * d * (d - 1), m, want_dn ? m * k * d : 0, m, m, m};
      for (j = 0; j < PK_COUNT; j++) {
        g->offset[i][j] = (j == PK_CP && nb == 0) || (j == PK_DN && !want_dn)
                              ? SIZE_MAX
                              : reals;
        reals += sizes[j];
      }
    }
    g->status_offset[i] = codes;
    codes += m;
    row = Py_BuildValue(
        "(innnnnnnnn)", (int)b->type, (Py_ssize_t)m,
        g->offset[i][PK_CP] == SIZE_MAX ? (Py_ssize_t)-1
                                        : (Py_ssize_t)g->offset[i][PK_CP],
        (Py_ssize_t)g->offset[i][PK_P], (Py_ssize_t)g->offset[i][PK_N],
        g->offset[i][PK_DN] == SIZE_MAX ? (Py_ssize_t)-1
                                        : (Py_ssize_t)g->offset[i][PK_DN],
        (Py_ssize_t)g->offset[i][PK_W], (Py_ssize_t)g->offset[i][PK_MS],
        (Py_ssize_t)g->offset[i][PK_MK], (Py_ssize_t)g->status_offset[i]);
    if (row == NULL)
      goto fail;
    PyTuple_SET_ITEM(g->layout, (Py_ssize_t)i, row);
  }
  g->n_reals = reals;
  g->n_status = codes;
  g->n_words = reals + 3 * (size_t)FRICL_BUILD_STATUS_COUNT + (codes + 7) / 8;
  return (PyObject *)g;
fail:
  Py_DECREF(g);
  return NULL;
}

static PyObject *build_groups_layout(native_build_groups *g, void *closure) {
  (void)closure;
  Py_INCREF(g->layout);
  return g->layout;
}

static PyObject *build_groups_n_reals(native_build_groups *g, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(g->n_reals);
}

static PyObject *build_groups_n_status(native_build_groups *g, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(g->n_status);
}

static PyObject *build_groups_n_words(native_build_groups *g, void *closure) {
  (void)closure;
  return PyLong_FromSize_t(g->n_words);
}

static PyGetSetDef build_groups_getset[] = {
    {"layout", (getter)build_groups_layout, NULL,
     "Per group: (type, count, then the offsets of closest_point (-1: "
     "none), tangent_basis, normal_force, normal_force_gradient (-1: none), "
     "weight, mu_s, mu_k in the reals and of status in the bytes).",
     NULL},
    {"n_reals", (getter)build_groups_n_reals, NULL,
     "Reals of the packed outputs.", NULL},
    {"n_status", (getter)build_groups_n_status, NULL,
     "Bytes of the packed status codes (the contacts).", NULL},
    {"n_words", (getter)build_groups_n_words, NULL,
     "float64 words of build_packed's out: the reals, the report, the "
     "status bytes.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject native_build_groups_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fricl._native.BuildGroups",
    .tp_basicsize = sizeof(native_build_groups),
    .tp_dealloc = (destructor)build_groups_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The lagged build's input groups, read once and held, with "
              "the layout of its packed outputs.",
    .tp_getset = build_groups_getset,
    .tp_new = build_groups_new,
};

/* build_packed(ctx, groups, flags, lagged_positions, rest_positions|None,
 *              kappa, dhat, dmin, mu_s, mu_k, blend, out) -> (total,
 *              no_force)
 * The lagged build (float64) of a BuildGroups into its packed outputs,
 * one float64 array `out` of groups.n_words: the reals (groups.n_reals),
 * then the report (3 FRICL_BUILD_STATUS_COUNT uint64: the counts, first
 * groups and first contacts per status), then the status bytes
 * (groups.n_status). */
PyObject *native_build_packed(PyObject *self, PyObject *args) {
  PyObject *ctx_obj, *prep_obj, *X, *rest, *mu_s, *mu_k, *out_obj;
  PyObject *result = NULL;
  const native_build_groups *prep;
  native_context *c;
  native_views views;
  fricl_build_batch b;
  fricl_build_report report;
  fricl_build_group groups[FRICL_MAX_GROUPS];
  int blend;
  unsigned int flags;
  double kappa, dhat, dmin;
  double *reals;
  uint8_t *codes;
  uint64_t *rep;
  size_t i, s;
  void *p;
  (void)self;
  if (!PyArg_ParseTuple(args, "OO!IOOdddOOiO", &ctx_obj,
                        &native_build_groups_type, &prep_obj, &flags, &X, &rest,
                        &kappa, &dhat, &dmin, &mu_s, &mu_k, &blend, &out_obj))
    return NULL;
  if ((c = native_context_check(ctx_obj)) == NULL)
    return NULL;
  prep = (const native_build_groups *)prep_obj;
  fricl_build_batch_init(&b);
  fricl_build_report_init(&report);
  views.n = 0;
  b.precision = FRICL_F64;
  b.dim = prep->dim;
  b.flags = flags;
  b.kappa = kappa;
  b.dhat = dhat;
  b.dmin = dmin;
  b.blend = (fricl_mu_blend)blend;
  b.report = &report;
  if (batch_vertices(&views, &b, X, rest, mu_s, mu_k) != 0)
    goto done;
  if (native_get(&views, out_obj, "out", NATIVE_F64, FRICL_F64, prep->n_words,
                 1, 0, &p) != 0)
    goto done;
  reals = p;
  rep = (uint64_t *)(reals + prep->n_reals);
  codes = (uint8_t *)(rep + 3 * (size_t)FRICL_BUILD_STATUS_COUNT);
  for (i = 0; i < prep->n_groups; i++) {
    fricl_build_group *g = &groups[i];
    const size_t *o = prep->offset[i];
    *g = prep->groups[i];
    g->closest_point = o[PK_CP] == SIZE_MAX ? NULL : reals + o[PK_CP];
    g->tangent_basis = reals + o[PK_P];
    g->normal_force = reals + o[PK_N];
    g->normal_force_gradient = o[PK_DN] == SIZE_MAX ? NULL : reals + o[PK_DN];
    g->weight_out = reals + o[PK_W];
    g->mu_s_out = reals + o[PK_MS];
    g->mu_k_out = reals + o[PK_MK];
    g->status = codes + prep->status_offset[i];
  }
  b.n_groups = prep->n_groups;
  b.groups = groups;
  if (native_call(c, call_build, &b, 0, NULL) != 0)
    goto done;
  for (s = 0; s < (size_t)FRICL_BUILD_STATUS_COUNT; s++) {
    rep[s] = (uint64_t)report.count[s];
    rep[FRICL_BUILD_STATUS_COUNT + s] = (uint64_t)report.first_group[s];
    rep[2 * FRICL_BUILD_STATUS_COUNT + s] = (uint64_t)report.first_contact[s];
  }
  result = Py_BuildValue("(nn)", (Py_ssize_t)report.total,
                         (Py_ssize_t)report.no_force);
done:
  native_release(&views);
  return result;
}

/* The contacts of group i whose status is not `drop`. */
static size_t kept_count(const native_build_groups *prep, size_t i,
                         const uint8_t *codes, int drop) {
  const uint8_t *st = codes + prep->status_offset[i];
  size_t j, m = prep->groups[i].count, kept = 0;
  for (j = 0; j < m; j++)
    kept += st[j] != (uint8_t)drop;
  return kept;
}

/* Copy the rows (of `width` elements of `size` bytes) of the contacts
 * kept, in order, to dst; returns the end of dst. */
static char *copy_kept(char *dst, const void *src, size_t width, size_t size,
                       const uint8_t *st, size_t m, int drop) {
  size_t j, row = width * size;
  for (j = 0; j < m; j++)
    if (st[j] != (uint8_t)drop) {
      memcpy(dst, (const char *)src + j * row, row);
      dst += row;
    }
  return dst;
}

/*
 * packed_groups(prep, out, drop) -> Groups: the contact groups (float64)
 * of a build_packed output `out` of `prep`, in prep's order, ready for
 * tangential_eval and Plan with no Python object per group: the closest
 * points, bases, N, weights and mu are read in place from `out`
 * (borrowed) and the vertex ids from prep's (held), except in the groups
 * that had contacts of status `drop` (-1: none), which are left out:
 * those groups get their own compact copies (the same order).
 */
PyObject *native_packed_groups(PyObject *self, PyObject *args) {
  PyObject *prep_obj, *out_obj;
  const native_build_groups *prep;
  native_groups *g;
  const double *reals;
  const uint8_t *codes;
  size_t i, d, m_, own_reals = 0, own_ids = 0, kept[FRICL_MAX_GROUPS];
  int drop;
  double *rp;
  int32_t *ip;
  void *p;
  (void)self;
  if (!PyArg_ParseTuple(args, "O!Oi", &native_build_groups_type, &prep_obj,
                        &out_obj, &drop))
    return NULL;
  prep = (const native_build_groups *)prep_obj;
  d = (size_t)prep->dim;
  m_ = d * (d - 1);
  g = (native_groups *)native_groups_type.tp_alloc(&native_groups_type, 0);
  if (g == NULL)
    return NULL;
  g->dim = prep->dim;
  g->precision = FRICL_F64;
  g->groups =
      calloc(prep->n_groups > 0 ? prep->n_groups : 1, sizeof *g->groups);
  g->views = malloc(sizeof *g->views);
  if (g->groups == NULL || g->views == NULL) {
    PyErr_NoMemory();
    goto fail;
  }
  g->views->n = 0;
  if (native_get(g->views, out_obj, "out", NATIVE_F64, FRICL_F64, prep->n_words,
                 0, 0, &p) != 0)
    goto fail;
  reals = p;
  codes = (const uint8_t *)(reals + prep->n_reals +
                            3 * (size_t)FRICL_BUILD_STATUS_COUNT);
  /* the report's count of `drop`: none, nothing to leave out */
  if (drop >= 0 && drop < FRICL_BUILD_STATUS_COUNT &&
      ((const uint64_t *)(reals + prep->n_reals))[drop] == 0)
    drop = -1;
  for (i = 0; i < prep->n_groups; i++) {
    const fricl_build_group *b = &prep->groups[i];
    kept[i] = drop < 0 ? b->count : kept_count(prep, i, codes, drop);
    if (kept[i] < b->count) {
      size_t nb = (size_t)fricl_stencil_coord_count(b->type);
      own_reals += kept[i] * (nb + m_ + 4);
      own_ids += kept[i] * (size_t)fricl_stencil_vertex_count(b->type);
    }
  }
  if (own_reals + own_ids > 0) {
    g->own = malloc(own_reals * sizeof(double) + own_ids * sizeof(int32_t));
    if (g->own == NULL) {
      PyErr_NoMemory();
      goto fail;
    }
  }
  rp = g->own;
  ip = (int32_t *)(rp + own_reals);
  for (i = 0; i < prep->n_groups; i++) {
    const fricl_build_group *b = &prep->groups[i];
    const size_t *o = prep->offset[i];
    fricl_contact_group *cg = &g->groups[i];
    size_t m = b->count, nb = (size_t)fricl_stencil_coord_count(b->type);
    size_t k = (size_t)fricl_stencil_vertex_count(b->type);
    const double *cp = nb > 0 ? reals + o[PK_CP] : NULL;
    cg->type = b->type;
    cg->count = kept[i];
    if (kept[i] == m) { /* in place */
      cg->vertices = b->vertices;
      cg->closest_point = cp;
      cg->tangent_basis = reals + o[PK_P];
      cg->normal_force = reals + o[PK_N];
      cg->weight = reals + o[PK_W];
      cg->mu_s = reals + o[PK_MS];
      cg->mu_k = reals + o[PK_MK];
    } else { /* the kept contacts' copies */
      const uint8_t *st = codes + prep->status_offset[i];
      const size_t c = kept[i];
      cg->vertices = ip;
      ip = (int32_t *)copy_kept((char *)ip, b->vertices, k, sizeof *ip, st, m,
                                drop);
      cg->closest_point = nb > 0 ? rp : NULL;
      if (nb > 0)
        copy_kept((char *)rp, cp, nb, sizeof *rp, st, m, drop);
      rp += c * nb;
      cg->tangent_basis = rp;
      copy_kept((char *)rp, reals + o[PK_P], m_, sizeof *rp, st, m, drop);
      rp += c * m_;
#define KEPT_(field, slot)                                                     \
  cg->field = rp;                                                              \
  copy_kept((char *)rp, reals + o[slot], 1, sizeof *rp, st, m, drop);          \
  rp += c;
      KEPT_(normal_force, PK_N)
      KEPT_(weight, PK_W)
      KEPT_(mu_s, PK_MS)
      KEPT_(mu_k, PK_MK)
#undef KEPT_
    }
  }
  g->n_groups = prep->n_groups;
  Py_INCREF(prep_obj);
  g->owner = prep_obj; /* holds the vertex arrays */
  return (PyObject *)g;
fail:
  Py_DECREF(g); /* dealloc releases what was borrowed */
  return NULL;
}
