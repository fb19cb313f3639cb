/*
 * native_laws.c - fricl._native.law (fricl_law_eval / fricl_law_step) and
 * law_info (fricl_law_get_info) over buffers.
 */
#include "native.h"

#include <stdlib.h>

static fricl_status call_eval(fricl_context *ctx, const void *arg) {
  return fricl_law_eval(ctx, (const fricl_law_batch *)arg);
}

static fricl_status call_step(fricl_context *ctx, const void *arg) {
  return fricl_law_step(ctx, (const fricl_law_batch *)arg);
}

/* law_info(law) -> dict */
PyObject *native_law_info(PyObject *self, PyObject *args) {
  int law, i;
  fricl_law_info info;
  fricl_status st;
  PyObject *params, *d;
  (void)self;
  if (!PyArg_ParseTuple(args, "i", &law))
    return NULL;
  st = fricl_law_get_info((fricl_law)law, &info);
  if (st != FRICL_STATUS_OK)
    return native_raisef(st, "unknown law %d", law);
  params = PyList_New(info.param_count);
  for (i = 0; params != NULL && i < info.param_count; i++) {
    const fricl_law_param_info *p = &info.params[i];
    PyObject *t = Py_BuildValue("(ssds)", p->name, p->unit, p->default_value,
                                p->description);
    if (t == NULL) {
      Py_CLEAR(params);
      break;
    }
    PyList_SET_ITEM(params, i, t);
  }
  if (params == NULL)
    return NULL;
  d = Py_BuildValue("{s:s,s:s,s:N,s:O,s:O,s:O,s:i,s:O,s:I}", "name", info.name,
                    "description", info.description, "params", params,
                    "uses_velocity", info.uses_velocity ? Py_True : Py_False,
                    "uses_position", info.uses_position ? Py_True : Py_False,
                    "uses_normal", info.uses_normal ? Py_True : Py_False,
                    "state_size", info.state_size, "ode_state",
                    info.ode_state ? Py_True : Py_False, "options",
                    info.options);
  return d;
}

/* law(ctx, step, precision, law, options, n, n_steps, h, integrator, v, x,
 *     normal, normal_per_step, normal_force, params, param_arrays,
 *     gms_elements, gms_params, gms_per_element, state, state_out, force,
 *     dstate) -> None */
PyObject *native_law(PyObject *self, PyObject *args) {
  static const char *param_names[FRICL_LAW_MAX_PARAMS] = {
      "param_array[0]", "param_array[1]", "param_array[2]", "param_array[3]",
      "param_array[4]", "param_array[5]", "param_array[6]", "param_array[7]"};
  PyObject *ctx_obj, *prec_obj, *v, *x, *normal, *params, *param_arrays,
      *gms_params, *state, *state_out, *force, *dstate, *result = NULL;
  native_context *c;
  native_views *views;
  fricl_law_batch b;
  fricl_law_info info;
  int step, law, integrator, normal_per_step, gms_per_element, k;
  unsigned int options;
  Py_ssize_t n, n_steps, gms_elements;
  double h, normal_force;
  size_t S, per_step, m;
  void *p;
  (void)self;
  if (!PyArg_ParseTuple(args, "OpOiInndiOOOpdO!O!nOpOOOO", &ctx_obj, &step,
                        &prec_obj, &law, &options, &n, &n_steps, &h,
                        &integrator, &v, &x, &normal, &normal_per_step,
                        &normal_force, &PyTuple_Type, &params, &PyTuple_Type,
                        &param_arrays, &gms_elements, &gms_params,
                        &gms_per_element, &state, &state_out, &force, &dstate))
    return NULL;
  if ((c = native_context_check(ctx_obj)) == NULL)
    return NULL;
  if (fricl_law_get_info((fricl_law)law, &info) != FRICL_STATUS_OK)
    return native_raisef(FRICL_STATUS_INVALID_ARGUMENT, "unknown law %d", law);
  if (n < 0 || n_steps < 0 || gms_elements < 0)
    return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                        "n, n_steps and gms_elements must be >= 0");
  if (PyTuple_GET_SIZE(params) != FRICL_LAW_MAX_PARAMS ||
      PyTuple_GET_SIZE(param_arrays) != FRICL_LAW_MAX_PARAMS)
    return native_raise(FRICL_STATUS_INVALID_ARGUMENT,
                        "params and param_arrays hold 8 entries each");
  fricl_law_batch_init(&b, (fricl_law)law);
  if (native_precision(prec_obj, &b.precision) != 0)
    return NULL;
  b.options = options;
  b.n = (size_t)n;
  b.n_steps = (size_t)n_steps;
  b.h = h;
  b.integrator = (fricl_integrator)integrator;
  b.normal_per_step = normal_per_step;
  b.normal_force = normal_force;
  b.gms_elements = (size_t)gms_elements;
  b.gms_params_per_element = gms_per_element;
  for (k = 0; k < FRICL_LAW_MAX_PARAMS; k++) {
    b.param[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(params, k));
    if (b.param[k] == -1.0 && PyErr_Occurred())
      return NULL;
  }
  m = law == FRICL_LAW_GMS ? (size_t)gms_elements : 1;
  S = (size_t)info.state_size * m;
  per_step = (size_t)n * (size_t)(n_steps > 0 ? n_steps : 1);
  views = malloc(sizeof *views);
  if (views == NULL)
    return PyErr_NoMemory();
  views->n = 0;
  if (native_get(views, v, "v", NATIVE_REAL, b.precision, per_step, 0, 1, &p) !=
      0)
    goto done;
  b.v = p;
  if (native_get(views, x, "x", NATIVE_REAL, b.precision, per_step, 0, 1, &p) !=
      0)
    goto done;
  b.x = p;
  if (native_get(views, normal, "normal", NATIVE_REAL, b.precision,
                 normal_per_step ? per_step : (size_t)n, 0, 1, &p) != 0)
    goto done;
  b.normal = p;
  for (k = 0; k < FRICL_LAW_MAX_PARAMS; k++) {
    if (native_get(views, PyTuple_GET_ITEM(param_arrays, k), param_names[k],
                   NATIVE_REAL, b.precision, (size_t)n, 0, 1, &p) != 0)
      goto done;
    b.param_array[k] = p;
  }
  if (native_get(views, gms_params, "gms_params", NATIVE_REAL, b.precision,
                 3 * (size_t)gms_elements *
                     (gms_per_element ? (size_t)n : (size_t)1),
                 0, 1, &p) != 0)
    goto done;
  b.gms_params = p;
  if (native_get(views, state, "state", NATIVE_REAL, b.precision, (size_t)n * S,
                 0, 1, &p) != 0)
    goto done;
  b.state = p;
  if (native_get(views, state_out, "state_out", NATIVE_REAL, b.precision,
                 (size_t)n * S, 1, 1, &b.state_out) != 0 ||
      native_get(views, force, "force", NATIVE_REAL, b.precision, per_step, 1,
                 1, &b.force) != 0 ||
      native_get(views, dstate, "dstate", NATIVE_REAL, b.precision,
                 (size_t)n * S, 1, 1, &b.dstate) != 0)
    goto done;
  if (native_call(c, step ? call_step : call_eval, &b, 0, NULL) != 0)
    goto done;
  Py_INCREF(Py_None);
  result = Py_None;
done:
  native_release(views);
  free(views);
  return result;
}
