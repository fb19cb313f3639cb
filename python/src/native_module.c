/*
 * native_module.c - the fricl._native module: version, status and name
 * tables, devices, the error classes, and the method table.
 */
#include "native.h"

#include <stdarg.h>
#include <stdio.h>

/* The fricl.Error subclasses, indexed by -status (registered by the
 * package at import: fricl/errors.py). */
#define N_STATUS 9
static PyObject *error_classes[N_STATUS];

PyObject *native_raise(fricl_status status, const char *message) {
  PyObject *cls = NULL, *exc;
  int idx = -(int)status;
  if (idx >= 0 && idx < N_STATUS)
    cls = error_classes[idx];
  if (cls == NULL)
    cls = error_classes[-FRICL_STATUS_INTERNAL];
  if (cls == NULL)
    cls = PyExc_RuntimeError;
  exc = PyObject_CallFunction(cls, "s", message ? message : "");
  if (exc != NULL) {
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
  }
  return NULL;
}

PyObject *native_raisef(fricl_status status, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return native_raise(status, buf);
}

static PyObject *register_errors(PyObject *self, PyObject *arg) {
  Py_ssize_t i;
  (void)self;
  if (!PyTuple_Check(arg) || PyTuple_GET_SIZE(arg) != N_STATUS) {
    PyErr_SetString(PyExc_TypeError, "expected a tuple of 9 classes");
    return NULL;
  }
  for (i = 0; i < N_STATUS; i++) {
    PyObject *cls = PyTuple_GET_ITEM(arg, i);
    PyObject *old = error_classes[i];
    Py_INCREF(cls);
    error_classes[i] = cls;
    Py_XDECREF(old);
  }
  Py_RETURN_NONE;
}

static PyObject *version_string(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyUnicode_FromString(fricl_version_string());
}

static PyObject *version_number(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return PyLong_FromUnsignedLong(fricl_version_number());
}

/* A list of the names f(0) .. f(count - 1) (None where f gives NULL). */
static PyObject *names(const char *(*fn)(int), int count) {
  PyObject *list = PyList_New(0);
  int i;
  if (list == NULL)
    return NULL;
  for (i = 0; i < count; i++) {
    const char *s = fn(i);
    PyObject *o;
    if (s != NULL) {
      o = PyUnicode_FromString(s);
    } else {
      Py_INCREF(Py_None);
      o = Py_None;
    }
    if (o == NULL || PyList_Append(list, o) != 0) {
      Py_XDECREF(o);
      Py_DECREF(list);
      return NULL;
    }
    Py_DECREF(o);
  }
  return list;
}

/* Adapters from the typed name functions to int -> const char *. */
static const char *term_name(int i) { return fricl_term_name((fricl_term)i); }
static const char *profile_name(int i) {
  return fricl_mu_profile_name((fricl_mu_profile)i);
}
static const char *stencil_name(int i) {
  return fricl_stencil_name((fricl_stencil)i);
}
static const char *psd_name(int i) { return fricl_psd_name((fricl_psd)i); }
static const char *mollifier_name(int i) {
  return fricl_mollifier_name((fricl_mollifier)i);
}
static const char *blend_name(int i) {
  return fricl_mu_blend_name((fricl_mu_blend)i);
}
static const char *build_status_name(int i) {
  return fricl_build_status_name((fricl_build_status)i);
}
static const char *build_status_text(int i) {
  return fricl_build_status_text((fricl_build_status)i);
}
static const char *law_name(int i) { return fricl_law_name((fricl_law)i); }
static const char *integrator_name(int i) {
  return fricl_integrator_name((fricl_integrator)i);
}
static const char *option_name(int i) { return fricl_law_option_name(1u << i); }
static const char *backend_name(int i) {
  return fricl_backend_name((fricl_backend)i);
}
static const char *status_name(int i) {
  switch (-i) {
#define NAME_(name, value, text)                                               \
  case value:                                                                  \
    return #name;
    FRICL_STATUS_MAP(NAME_)
#undef NAME_
  }
  return NULL;
}
static const char *status_text(int i) {
  return fricl_status_string((fricl_status)-i);
}

/* Every enum's names, from the library itself (one source of truth). */
static PyObject *tables(PyObject *self, PyObject *unused) {
  PyObject *d = PyDict_New();
  struct {
    const char *key;
    const char *(*fn)(int);
    int count;
  } t[] = {
      {"terms", term_name, FRICL_TERM_COUNT},
      {"mu_profiles", profile_name, FRICL_TABLE_COUNT(FRICL_MU_PROFILE_MAP)},
      {"stencils", stencil_name, FRICL_STENCIL_COUNT},
      {"psd", psd_name, FRICL_TABLE_COUNT(FRICL_PSD_MAP)},
      {"mollifiers", mollifier_name, FRICL_MOLLIFIER_COUNT},
      {"blends", blend_name, FRICL_BLEND_COUNT},
      {"build_statuses", build_status_name, FRICL_BUILD_STATUS_COUNT},
      {"build_status_texts", build_status_text, FRICL_BUILD_STATUS_COUNT},
      {"laws", law_name, FRICL_LAW_COUNT},
      {"integrators", integrator_name, FRICL_TABLE_COUNT(FRICL_INTEGRATOR_MAP)},
      {"law_options", option_name, 3},
      {"backends", backend_name, FRICL_TABLE_COUNT(FRICL_BACKEND_MAP)},
      {"statuses", status_name, N_STATUS},
      {"status_texts", status_text, N_STATUS},
  };
  size_t i;
  (void)self;
  (void)unused;
  if (d == NULL)
    return NULL;
  for (i = 0; i < sizeof t / sizeof t[0]; i++) {
    PyObject *l = names(t[i].fn, t[i].count);
    if (l == NULL || PyDict_SetItemString(d, t[i].key, l) != 0) {
      Py_XDECREF(l);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(l);
  }
  return d;
}

static PyObject *stencil_sizes(PyObject *self, PyObject *unused) {
  PyObject *l = PyList_New(FRICL_STENCIL_COUNT);
  int i;
  (void)self;
  (void)unused;
  if (l == NULL)
    return NULL;
  for (i = 0; i < FRICL_STENCIL_COUNT; i++)
    PyList_SET_ITEM(l, i,
                    Py_BuildValue("(ii)",
                                  fricl_stencil_vertex_count((fricl_stencil)i),
                                  fricl_stencil_coord_count((fricl_stencil)i)));
  return l;
}

static PyObject *devices(PyObject *self, PyObject *unused) {
  size_t count = 0, i;
  fricl_device_info *infos = NULL;
  PyObject *list;
  fricl_status st;
  PyThreadState *ts;
  (void)self;
  (void)unused;
  ts = PyEval_SaveThread();
  st = fricl_devices_list(NULL, 0, &count);
  if (st == FRICL_STATUS_OK && count > 0) {
    infos = calloc(count, sizeof *infos);
    if (infos == NULL)
      st = FRICL_STATUS_OUT_OF_MEMORY;
    else
      st = fricl_devices_list(infos, count, &count);
  }
  PyEval_RestoreThread(ts);
  if (st != FRICL_STATUS_OK) {
    free(infos);
    return native_raise(st, "fricl_devices_list failed");
  }
  list = PyList_New(0);
  for (i = 0; list != NULL && i < count; i++) {
    const fricl_device_info *d = &infos[i];
    char spec[64];
    PyObject *o;
    snprintf(spec, sizeof spec, "opencl:%d:%d", d->platform_index,
             d->device_index);
    o = Py_BuildValue(
        "{s:s,s:i,s:i,s:O,s:O,s:O,s:O,s:I,s:K,s:K,s:s,s:s,s:s,s:s}", "spec",
        spec, "platform_index", d->platform_index, "device_index",
        d->device_index, "is_gpu", d->is_gpu ? Py_True : Py_False, "is_cpu",
        d->is_cpu ? Py_True : Py_False, "has_fp64",
        d->has_fp64 ? Py_True : Py_False, "is_default",
        d->is_default ? Py_True : Py_False, "compute_units", d->compute_units,
        "global_mem_bytes", (unsigned long long)d->global_mem_bytes,
        "max_alloc_bytes", (unsigned long long)d->max_alloc_bytes,
        "platform_name", d->platform_name, "device_name", d->device_name,
        "device_version", d->device_version, "driver_version",
        d->driver_version);
    if (o == NULL || PyList_Append(list, o) != 0) {
      Py_XDECREF(o);
      Py_CLEAR(list);
      break;
    }
    Py_DECREF(o);
  }
  free(infos);
  return list;
}

static PyMethodDef methods[] = {
    {"version_string", version_string, METH_NOARGS,
     "fricl_version_string() of the linked library."},
    {"version_number", version_number, METH_NOARGS,
     "fricl_version_number() of the linked library."},
    {"tables", tables, METH_NOARGS, "Names of every fricl enum."},
    {"stencil_sizes", stencil_sizes, METH_NOARGS,
     "(vertex count, closest-point coordinate count) per stencil."},
    {"devices", devices, METH_NOARGS, "fricl_devices_list()."},
    {"_register_errors", register_errors, METH_O,
     "Register the fricl.Error subclasses, indexed by -status."},
    {"scalar_eval", native_scalar_eval, METH_VARARGS, "fricl_scalar_eval."},
    {"tangential_eval", native_tangential_eval, METH_VARARGS,
     "fricl_tangential_eval."},
    {"build", native_build, METH_VARARGS, "fricl_build."},
    {"build_packed", native_build_packed, METH_VARARGS,
     "fricl_build of a BuildGroups into packed outputs."},
    {"packed_groups", native_packed_groups, METH_VARARGS,
     "The contact groups of build_packed's outputs, less one status."},
    {"barrier_eval", native_barrier_eval, METH_VARARGS, "fricl_barrier_eval."},
    {"force_eval", native_force_eval, METH_VARARGS, "fricl_force_eval."},
    {"barrier_plan", native_barrier_plan, METH_VARARGS,
     "fricl_barrier_plan_create."},
    {"shape_assemble", native_shape_assemble, METH_VARARGS,
     "H + sum_c a_c b_c^T as CSC (the shape derivative's weight term)."},
    {"collision_mesh", native_collision_mesh, METH_VARARGS,
     "fricl_collision_mesh_create."},
    {"collisions_build", native_collisions_build, METH_VARARGS,
     "fricl_collisions_build."},
    {"candidates_build", native_candidates_build, METH_VARARGS,
     "fricl_candidates_build."},
    {"ccd_stepsize", native_ccd_stepsize, METH_VARARGS, "fricl_ccd_stepsize."},
    {"law", native_law, METH_VARARGS, "fricl_law_eval / fricl_law_step."},
    {"law_info", native_law_info, METH_VARARGS, "fricl_law_get_info."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "_native",
    "fricl's CPython extension: the public C API over buffers. Use the "
    "fricl package, not this module.",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__native(void);
PyMODINIT_FUNC PyInit__native(void) {
  PyObject *m;
  if (PyType_Ready(&native_context_type) < 0 ||
      PyType_Ready(&native_plan_type) < 0 ||
      PyType_Ready(&native_groups_type) < 0 ||
      PyType_Ready(&native_barrier_groups_type) < 0 ||
      PyType_Ready(&native_build_groups_type) < 0)
    return NULL;
  m = PyModule_Create(&module);
  if (m == NULL)
    return NULL;
  Py_INCREF(&native_context_type);
  Py_INCREF(&native_plan_type);
  Py_INCREF(&native_groups_type);
  Py_INCREF(&native_barrier_groups_type);
  Py_INCREF(&native_build_groups_type);
  if (PyModule_AddObject(m, "Context", (PyObject *)&native_context_type) < 0 ||
      PyModule_AddObject(m, "Plan", (PyObject *)&native_plan_type) < 0 ||
      PyModule_AddObject(m, "Groups", (PyObject *)&native_groups_type) < 0 ||
      PyModule_AddObject(m, "BarrierGroups",
                         (PyObject *)&native_barrier_groups_type) < 0 ||
      PyModule_AddObject(m, "BuildGroups",
                         (PyObject *)&native_build_groups_type) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
