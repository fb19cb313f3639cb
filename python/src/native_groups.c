/*
 * native_groups.c - fricl._native.Groups: the inputs of a set of contact
 * groups (fricl_contact_group without outputs), checked once and held for
 * as many evaluations as the caller likes. The arrays are borrowed through
 * the buffer protocol for the object's lifetime (no copy), so numpy keeps
 * them from being resized while the object lives.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include "structmember.h"

#define VIEWS_PER_GROUP 8

static void groups_dealloc(native_groups *g) {
  if (g->views != NULL)
    native_release(g->views);
  free(g->views);
  free(g->groups);
  free(g->own);
  Py_XDECREF(g->owner);
  Py_TYPE(g)->tp_free((PyObject *)g);
}

/* Groups(dim, precision, ((type, vertices, closest_point, tangent_basis,
 *         normal_force, weight, mu_s, mu_k, mu_aniso), ...)) */
static PyObject *groups_new(PyTypeObject *type, PyObject *args,
                            PyObject *kwds) {
  PyObject *prec_obj, *items;
  native_groups *g;
  native_views *views;
  int dim;
  Py_ssize_t i, n;
  (void)kwds;
  if (!PyArg_ParseTuple(args, "iOO!", &dim, &prec_obj, &PyTuple_Type, &items))
    return NULL;
  if (dim != 2 && dim != 3)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "dim must be 2 or 3, got %d", dim);
  n = PyTuple_GET_SIZE(items);
  if (n * VIEWS_PER_GROUP > NATIVE_MAX_VIEWS)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "at most %d contact groups",
                         NATIVE_MAX_VIEWS / VIEWS_PER_GROUP);
  g = (native_groups *)type->tp_alloc(type, 0);
  if (g == NULL)
    return NULL;
  g->dim = dim;
  if (native_precision(prec_obj, &g->precision) != 0)
    goto fail;
  g->groups = calloc(n > 0 ? (size_t)n : 1, sizeof *g->groups);
  views = malloc(sizeof *views);
  if (g->groups == NULL || views == NULL) {
    free(views);
    PyErr_NoMemory();
    goto fail;
  }
  views->n = 0;
  for (i = 0; i < n; i++) {
    PyObject *it = PyTuple_GET_ITEM(items, i);
    fricl_contact_group *cg = &g->groups[i];
    const char *name;
    char label[64];
    void *p;
    size_t m = (size_t)dim - 1;
    int nb;
    if (native_group_head(views, it, 9, "a group", (size_t)i, g->precision,
                          &cg->type, &name, &cg->vertices, &cg->count) != 0)
      goto fail_views;
    nb = fricl_stencil_coord_count(cg->type);
#define GET_(idx, field, what, count, optional)                                \
  snprintf(label, sizeof label, "%s." what, name);                             \
  if (native_get(views, PyTuple_GET_ITEM(it, idx), label, NATIVE_REAL,         \
                 g->precision, (count), 0, (optional), &p) != 0)               \
    goto fail_views;                                                           \
  cg->field = p;
    GET_(2, closest_point, "closest_point", cg->count * (size_t)nb,
         nb == 0 || cg->count == 0)
    GET_(3, tangent_basis, "tangent_basis", cg->count * (size_t)dim * m, 0)
    GET_(4, normal_force, "normal_force", cg->count, 0)
    GET_(5, weight, "weight", cg->count, 1)
    GET_(6, mu_s, "mu_s", cg->count, 0)
    GET_(7, mu_k, "mu_k", cg->count, 0)
    GET_(8, mu_aniso, "mu_aniso", cg->count * m, 1)
#undef GET_
    if (nb == 0)
      cg->closest_point = NULL;
  }
  g->n_groups = (size_t)n;
  g->views = views; /* released in dealloc */
  return (PyObject *)g;
fail_views:
  native_release(views);
  free(views);
fail:
  Py_DECREF(g);
  return NULL;
}

static PyObject *get_count(native_groups *g, void *closure) {
  size_t i, total = 0;
  (void)closure;
  for (i = 0; i < g->n_groups; i++)
    total += g->groups[i].count;
  return PyLong_FromSize_t(total);
}

/* same(other): the same contacts (types, counts and vertex ids, group by
 * group, in order), whatever the other inputs: a plan made for one is
 * the other's (a plan reads only the topology). */
static PyObject *groups_same(native_groups *g, PyObject *other) {
  const native_groups *h;
  size_t i;
  if (!PyObject_TypeCheck(other, &native_groups_type)) {
    PyErr_Format(PyExc_TypeError, "same() expects a fricl Groups, got %s",
                 Py_TYPE(other)->tp_name);
    return NULL;
  }
  h = (const native_groups *)other;
  if (g->dim != h->dim || g->n_groups != h->n_groups)
    Py_RETURN_FALSE;
  for (i = 0; i < g->n_groups; i++) {
    const fricl_contact_group *a = &g->groups[i], *b = &h->groups[i];
    size_t n = a->count * (size_t)fricl_stencil_vertex_count(a->type);
    if (a->type != b->type || a->count != b->count ||
        (n > 0 && memcmp(a->vertices, b->vertices, n * sizeof(int32_t)) != 0))
      Py_RETURN_FALSE;
  }
  Py_RETURN_TRUE;
}

static PyMethodDef groups_methods[] = {
    {"same", (PyCFunction)groups_same, METH_O,
     "same(other) -> bool: the same types, counts and vertex ids, in order."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef groups_getset[] = {
    {"count", (getter)get_count, NULL, "contacts over all groups", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef groups_members[] = {
    {"dim", T_INT, offsetof(native_groups, dim), READONLY, "2 or 3"},
    {"n_groups", T_PYSSIZET, offsetof(native_groups, n_groups), READONLY,
     "number of groups"},
    {NULL, 0, 0, 0, NULL}};

PyTypeObject native_groups_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fricl._native.Groups",
    .tp_basicsize = sizeof(native_groups),
    .tp_dealloc = (destructor)groups_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Checked, borrowed inputs of contact groups.",
    .tp_methods = groups_methods,
    .tp_getset = groups_getset,
    .tp_members = groups_members,
    .tp_new = groups_new,
};
