/*
 * native_scalar.c - fricl._native.scalar_eval: the smooth friction family
 * (fricl_scalar_eval) over buffers.
 */
#include "native.h"

#include <stdlib.h>

/* The label of term t's output in messages, as the library's own. */
#define FRICL__TERM_OUT_NAME(name, value, fn, mu) [value] = "out[" #fn "]",

static fricl_status call_scalar(fricl_context *ctx, const void *arg) {
  return fricl_scalar_eval(ctx, (const fricl_scalar_batch *)arg);
}

/* A parameter given as a float (batch scalar) or as n values. */
static int parameter(native_views *views, PyObject *obj, const char *name,
                     fricl_precision precision, size_t n, double *scalar,
                     const void **array) {
  void *p = NULL;
  *array = NULL;
  if (PyFloat_Check(obj) || PyLong_Check(obj)) {
    *scalar = PyFloat_AsDouble(obj);
    return (*scalar == -1.0 && PyErr_Occurred()) ? -1 : 0;
  }
  if (native_get(views, obj, name, NATIVE_REAL, precision, n, 0, 0, &p) != 0)
    return -1;
  *array = p;
  return 0;
}

/* scalar_eval(ctx, precision, profile, terms, y, eps_v, mu_s, mu_k, outs
 *             [, repeat]) -> None (or the list of call times) */
PyObject *native_scalar_eval(PyObject *self, PyObject *args) {
  static const char *out_names[FRICL_TERM_COUNT] = {
      FRICL_TERM_MAP(FRICL__TERM_OUT_NAME)};
  PyObject *ctx_obj, *prec_obj, *y, *eps_v, *mu_s, *mu_k, *outs,
      *repeat_obj = NULL, *result = NULL;
  int profile;
  unsigned int terms;
  native_context *c;
  native_views views;
  fricl_scalar_batch b;
  void *p;
  size_t n;
  int t, repeat = 0;
  double *times = NULL;
  (void)self;
  views.n = 0;
  if (!PyArg_ParseTuple(args, "OOiIOOOOO!|O", &ctx_obj, &prec_obj, &profile,
                        &terms, &y, &eps_v, &mu_s, &mu_k, &PyTuple_Type, &outs,
                        &repeat_obj))
    return NULL;
  if ((c = native_context_check(ctx_obj)) == NULL)
    return NULL;
  fricl_scalar_batch_init(&b);
  if (native_precision(prec_obj, &b.precision) != 0)
    return NULL;
  if (PyTuple_GET_SIZE(outs) != FRICL_TERM_COUNT)
    return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                        "outs must be a tuple of one entry per term");
  if (native_repeat(repeat_obj, &repeat, &times) != 0)
    return NULL;
  b.mu_profile = (fricl_mu_profile)profile;
  b.terms = terms;
  if (native_get_any(&views, y, "y", NATIVE_REAL, b.precision, 0, &p, &n) != 0)
    goto done;
  b.y = p;
  b.n = n;
  if (parameter(&views, eps_v, "eps_v", b.precision, n, &b.eps_v,
                &b.eps_v_array) != 0 ||
      parameter(&views, mu_s, "mu_s", b.precision, n, &b.mu_s, &b.mu_s_array) !=
          0 ||
      parameter(&views, mu_k, "mu_k", b.precision, n, &b.mu_k, &b.mu_k_array) !=
          0)
    goto done;
  for (t = 0; t < FRICL_TERM_COUNT; t++)
    if (native_get(&views, PyTuple_GET_ITEM(outs, t), out_names[t], NATIVE_REAL,
                   b.precision, n, 1, 1, &b.out[t]) != 0)
      goto done;
  if (native_call(c, call_scalar, &b, repeat, times) != 0)
    goto done;
  if (repeat > 0)
    result = native_times_list(times, repeat);
  else {
    Py_INCREF(Py_None);
    result = Py_None;
  }
done:
  native_release(&views);
  free(times);
  return result;
}
