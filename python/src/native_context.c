/*
 * native_context.c - fricl._native.Context: owns a fricl_context, a lock
 * that serialises the calls made on it with the GIL released, and the list
 * of live plans that close() must destroy first.
 */
#include "native.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

native_context *native_context_check(PyObject *obj) {
  native_context *c;
  if (!PyObject_TypeCheck(obj, &native_context_type)) {
    PyErr_Format(PyExc_TypeError, "expected a fricl.Context, got %s",
                 Py_TYPE(obj)->tp_name);
    return NULL;
  }
  c = (native_context *)obj;
  if (c->ctx == NULL) {
    native_raise(FRICL_STATUS_INVALID_ARGUMENT, "the fricl.Context is closed");
    return NULL;
  }
  return c;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int native_call(native_context *c, native_call_fn fn, const void *arg,
                int repeat, double *times) {
  fricl_status st = FRICL_STATUS_OK;
  char *msg = NULL;
  int i;
  PyThreadState *ts;
  ts = PyEval_SaveThread();
  PyThread_acquire_lock(c->lock, WAIT_LOCK);
  if (c->ctx == NULL) {
    st = NATIVE_CLOSED_CONTEXT;
  } else if (repeat <= 0) {
    st = fn(c->ctx, arg);
  } else {
    for (i = 0; i < repeat && st == FRICL_STATUS_OK; i++) {
      double t0 = now();
      st = fn(c->ctx, arg);
      times[i] = now() - t0;
    }
  }
  if (st != FRICL_STATUS_OK && st != NATIVE_CLOSED_CONTEXT &&
      st != NATIVE_CLOSED_PLAN) {
    const char *e = fricl_context_last_error(c->ctx);
    size_t len = strlen(e);
    msg = malloc(len + 1);
    if (msg != NULL)
      memcpy(msg, e, len + 1);
  }
  PyThread_release_lock(c->lock);
  PyEval_RestoreThread(ts);
  if (st == FRICL_STATUS_OK)
    return 0;
  if (st == NATIVE_CLOSED_CONTEXT) {
    native_raise(FRICL_STATUS_INVALID_ARGUMENT, "the fricl.Context is closed");
    return -1;
  }
  if (st == NATIVE_CLOSED_PLAN) {
    native_raise(FRICL_STATUS_INVALID_ARGUMENT, NATIVE_PLAN_CLOSED_MESSAGE);
    return -1;
  }
  native_raise(st, msg ? msg : fricl_status_string(st));
  free(msg);
  return -1;
}

PyObject *native_times_list(const double *times, int repeat) {
  PyObject *l = PyList_New(repeat);
  int i;
  if (l == NULL)
    return NULL;
  for (i = 0; i < repeat; i++) {
    PyObject *f = PyFloat_FromDouble(times[i]);
    if (f == NULL) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, f);
  }
  return l;
}

int native_repeat(PyObject *obj, int *repeat, double **times) {
  long r = 0;
  *repeat = 0;
  *times = NULL;
  if (obj == NULL || obj == Py_None)
    return 0;
  r = PyLong_AsLong(obj);
  if (r == -1 && PyErr_Occurred())
    return -1;
  if (r < 0 || r > 1000000) {
    PyErr_SetString(PyExc_ValueError, "repeat must be in [0, 1e6]");
    return -1;
  }
  if (r > 0) {
    *times = malloc((size_t)r * sizeof **times);
    if (*times == NULL) {
      PyErr_NoMemory();
      return -1;
    }
  }
  *repeat = (int)r;
  return 0;
}

/* Destroy the plans, then the context. Called with the GIL and the lock
 * held (or from dealloc, when no other reference exists). */
static void destroy(native_context *c) {
  while (c->plans != NULL)
    native_plan_close(c->plans); /* unlinks itself */
  fricl_context_destroy(c->ctx);
  c->ctx = NULL;
}

/* An integer argument in [0, max], named in the error: PyArg's unsigned
 * formats would wrap a negative value silently (threads = -1 became
 * UINT_MAX threads). Not given: 0 (the default). */
static int count_arg(PyObject *obj, const char *name, unsigned long long max,
                     unsigned long long *out) {
  PyObject *idx;
  long long v;
  int overflow = 0;
  *out = 0;
  if (obj == NULL)
    return 0;
  idx = PyNumber_Index(obj);
  if (idx == NULL) {
    PyErr_Format(PyExc_TypeError, "argument '%s' must be an int, got %s", name,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  v = PyLong_AsLongLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  if (v == -1 && PyErr_Occurred())
    return -1;
  if (overflow == 0 && v < 0) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument '%s' must be >= 0, got %lld", name, v);
    return -1;
  }
  if (overflow != 0 || (unsigned long long)v > max) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument '%s' must be <= %llu", name, max);
    return -1;
  }
  *out = (unsigned long long)v;
  return 0;
}

static PyObject *context_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwds) {
  static char *kwlist[] = {
      "device",  "max_chunk_elements", "flags", "build_options",
      "threads", "auto_crossover",     NULL};
  const char *device = NULL, *build_options = NULL;
  PyObject *max_chunk_obj = NULL, *flags_obj = NULL, *threads_obj = NULL;
  Py_ssize_t crossover = 0;
  unsigned long long max_chunk, flags, threads;
  native_context *c;
  fricl_context_params p;
  fricl_status st;
  char err[1024];
  PyThreadState *ts;
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "|zOOzOn", kwlist, &device,
                                   &max_chunk_obj, &flags_obj, &build_options,
                                   &threads_obj, &crossover))
    return NULL;
  if (count_arg(max_chunk_obj, "max_chunk_elements", SIZE_MAX, &max_chunk) !=
          0 ||
      count_arg(flags_obj, "flags", UINT32_MAX, &flags) != 0 ||
      count_arg(threads_obj, "threads", UINT_MAX, &threads) != 0)
    return NULL;
  if (crossover < -1)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                         "argument 'auto_crossover' must be >= 0 (or -1: "
                         "never the device), got %zd",
                         crossover);
  c = (native_context *)type->tp_alloc(type, 0);
  if (c == NULL)
    return NULL;
  c->lock = PyThread_allocate_lock();
  if (c->lock == NULL) {
    Py_DECREF(c);
    return PyErr_NoMemory();
  }
  fricl_context_params_init(&p);
  p.device = device;
  p.max_chunk_elements = (size_t)max_chunk;
  p.flags = (uint32_t)flags;
  p.build_options = build_options;
  p.threads = (unsigned)threads;
  p.auto_crossover = crossover == -1 ? SIZE_MAX : (size_t)crossover;
  err[0] = '\0';
  p.error_buffer = err;
  p.error_buffer_size = sizeof err;
  ts = PyEval_SaveThread();
  st = fricl_context_create(&c->ctx, &p);
  PyEval_RestoreThread(ts);
  if (st != FRICL_STATUS_OK) {
    Py_DECREF(c);
    return native_raise(st, err[0] ? err : fricl_status_string(st));
  }
  return (PyObject *)c;
}

static void context_dealloc(native_context *c) {
  if (c->weakrefs != NULL)
    PyObject_ClearWeakRefs((PyObject *)c);
  if (c->ctx != NULL)
    destroy(c);
  if (c->lock != NULL)
    PyThread_free_lock(c->lock);
  Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *context_close(native_context *c, PyObject *unused) {
  (void)unused;
  PyThreadState *ts;
  if (c->ctx == NULL)
    Py_RETURN_NONE;
  ts = PyEval_SaveThread();
  PyThread_acquire_lock(c->lock, WAIT_LOCK);
  PyEval_RestoreThread(ts);
  if (c->ctx != NULL)
    destroy(c);
  PyThread_release_lock(c->lock);
  Py_RETURN_NONE;
}

static PyObject *get_backend(native_context *c, void *closure) {
  (void)closure;
  if (native_context_check((PyObject *)c) == NULL)
    return NULL;
  return PyLong_FromLong((long)fricl_context_backend(c->ctx));
}

static PyObject *get_device_name(native_context *c, void *closure) {
  (void)closure;
  if (native_context_check((PyObject *)c) == NULL)
    return NULL;
  return PyUnicode_FromString(fricl_context_device_name(c->ctx));
}

static PyObject *get_fell_back(native_context *c, void *closure) {
  (void)closure;
  if (native_context_check((PyObject *)c) == NULL)
    return NULL;
  return PyBool_FromLong(fricl_context_fell_back(c->ctx));
}

static PyObject *get_has_fp64(native_context *c, void *closure) {
  (void)closure;
  if (native_context_check((PyObject *)c) == NULL)
    return NULL;
  return PyBool_FromLong(fricl_context_has_fp64(c->ctx));
}

static PyObject *get_last_backend(native_context *c, void *closure) {
  (void)closure;
  if (native_context_check((PyObject *)c) == NULL)
    return NULL;
  return PyLong_FromLong((long)fricl_context_last_backend(c->ctx));
}

static PyObject *get_threads(native_context *c, void *closure) {
  (void)closure;
  if (native_context_check((PyObject *)c) == NULL)
    return NULL;
  return PyLong_FromUnsignedLong(fricl_context_threads(c->ctx));
}

static PyObject *get_closed(native_context *c, void *closure) {
  (void)closure;
  return PyBool_FromLong(c->ctx == NULL);
}

static PyGetSetDef context_getset[] = {
    {"backend", (getter)get_backend, NULL, "fricl_context_backend() as an int",
     NULL},
    {"device_name", (getter)get_device_name, NULL,
     "fricl_context_device_name()", NULL},
    {"fell_back", (getter)get_fell_back, NULL, "fricl_context_fell_back()",
     NULL},
    {"has_fp64", (getter)get_has_fp64, NULL, "fricl_context_has_fp64()", NULL},
    {"last_backend", (getter)get_last_backend, NULL,
     "fricl_context_last_backend() as an int", NULL},
    {"threads", (getter)get_threads, NULL, "fricl_context_threads()", NULL},
    {"closed", (getter)get_closed, NULL, "True once close() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef context_methods[] = {
    {"close", (PyCFunction)context_close, METH_NOARGS,
     "Destroy the context and every plan made on it (idempotent)."},
    {NULL, NULL, 0, NULL}};

PyTypeObject native_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fricl._native.Context",
    .tp_basicsize = sizeof(native_context),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A fricl_context (use fricl.Context).",
    .tp_weaklistoffset = offsetof(native_context, weakrefs),
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_new = context_new,
};
