/*
 * native_buffers.c - borrowing array memory through the buffer protocol,
 * with the checks that keep fricl inside the caller's arrays.
 */
#include "native.h"

#include <string.h>

static const char *kind_name(native_kind kind, fricl_precision precision) {
  switch (kind) {
  case NATIVE_REAL:
    return precision == FRICL_F32 ? "float32" : "float64";
  case NATIVE_F64:
    return "float64";
  case NATIVE_I32:
    return "int32";
  case NATIVE_I64:
    return "int64";
  case NATIVE_U8:
    return "uint8";
  case NATIVE_U64:
    return "uint64";
  }
  return "?";
}

/* Does the struct-module format @p fmt with @p itemsize hold @p kind? */
static int format_matches(const char *fmt, Py_ssize_t itemsize,
                          native_kind kind, fricl_precision precision) {
  char c;
  if (fmt == NULL)
    fmt = "B";
  /* Native byte order only ('@', '=' or, on this little-endian check,
   * '<'); the package converts anything else before calling. */
  if (*fmt == '@' || *fmt == '=')
    fmt++;
  else if (*fmt == '<') {
    const uint16_t one = 1;
    if (*(const unsigned char *)&one != 1)
      return 0;
    fmt++;
  }
  if (fmt[0] == '\0' || fmt[1] != '\0')
    return 0;
  c = fmt[0];
  switch (kind) {
  case NATIVE_REAL:
    if (precision == FRICL_F32)
      return c == 'f' && itemsize == 4;
    return c == 'd' && itemsize == 8;
  case NATIVE_F64:
    return c == 'd' && itemsize == 8;
  case NATIVE_I32:
    return (c == 'i' || c == 'l') && itemsize == 4;
  case NATIVE_I64:
    return (c == 'l' || c == 'q') && itemsize == 8;
  case NATIVE_U8:
    return (c == 'B' || c == 'c') && itemsize == 1;
  case NATIVE_U64:
    return (c == 'L' || c == 'Q') && itemsize == 8;
  }
  return 0;
}

/* numpy's dtype objects seen so far (held: their addresses stay valid)
 * with the format numpy_format gave them; the builtin dtypes are
 * singletons, so a call finds its arrays' here by address. */
#define NUMPY_KNOWN 16
static struct {
  PyObject *dtype;
  char format[4]; /* "" when not one of ours */
} numpy_known[NUMPY_KNOWN];
static int numpy_n_known = 0;

/* The format of a dtype, from its `str` ("<f8", "|u1", ...), into buf
 * (4 bytes); NULL for anything else. */
static const char *dtype_format(PyObject *dt, char *buf) {
  PyObject *str = PyObject_GetAttrString(dt, "str");
  const char *s;
  char c = 0;
  if (str == NULL) {
    PyErr_Clear();
    return NULL;
  }
  s = PyUnicode_AsUTF8(str);
  if (s != NULL && strlen(s) == 3) {
    const char kind = s[1], size = s[2];
    if (kind == 'f' && size == '8')
      c = 'd';
    else if (kind == 'f' && size == '4')
      c = 'f';
    else if (kind == 'i' && size == '4')
      c = 'i';
    else if (kind == 'i' && size == '8')
      c = 'q';
    else if (kind == 'u' && size == '1')
      c = 'B';
    else if (kind == 'u' && size == '8')
      c = 'Q';
    if (c != 0) {
      const uint16_t one = 1;
      const int little = *(const unsigned char *)&one == 1;
      const char order = s[0];
      int i = 0;
      /* native order: no prefix; the other one: numpy's own prefix */
      if ((order == '<' && !little) || (order == '>' && little))
        buf[i++] = order;
      buf[i++] = c;
      buf[i] = '\0';
    }
  }
  if (s == NULL)
    PyErr_Clear();
  Py_DECREF(str);
  return c != 0 ? buf : NULL;
}

/* The struct-module format of an exact numpy array, into buf (4 bytes);
 * NULL for anything else. numpy builds the format string of a buffer
 * with snprintf on every request (a small call borrows dozens of
 * arrays): asked for none, it builds none. The dtype's own `str` is
 * formatted on each access too, so a dtype's answer is kept. */
static const char *numpy_format(PyObject *obj, char *buf) {
  static PyTypeObject *ndarray = NULL;
  static PyObject *dtype_name = NULL;
  PyObject *dt;
  const char *fmt;
  int i;
  if (ndarray == NULL) {
    if (strcmp(Py_TYPE(obj)->tp_name, "numpy.ndarray") != 0)
      return NULL;
    ndarray = Py_TYPE(obj); /* numpy's type lives as long as numpy */
  }
  if (Py_TYPE(obj) != ndarray)
    return NULL;
  if (dtype_name == NULL &&
      (dtype_name = PyUnicode_InternFromString("dtype")) == NULL) {
    PyErr_Clear();
    return NULL;
  }
  if ((dt = PyObject_GetAttr(obj, dtype_name)) == NULL) {
    PyErr_Clear();
    return NULL;
  }
  for (i = 0; i < numpy_n_known; i++)
    if (numpy_known[i].dtype == dt) {
      Py_DECREF(dt);
      if (numpy_known[i].format[0] == '\0')
        return NULL;
      memcpy(buf, numpy_known[i].format, 4);
      return buf;
    }
  fmt = dtype_format(dt, buf);
  if (numpy_n_known < NUMPY_KNOWN) { /* the reference is kept */
    numpy_known[numpy_n_known].dtype = dt;
    memset(numpy_known[numpy_n_known].format, 0, 4);
    if (fmt != NULL)
      memcpy(numpy_known[numpy_n_known].format, fmt, strlen(fmt) + 1);
    numpy_n_known++;
  } else {
    Py_DECREF(dt);
  }
  return fmt;
}

static int acquire(native_views *views, PyObject *obj, const char *name,
                   native_kind kind, fricl_precision precision, int writable,
                   Py_buffer **out) {
  Py_buffer *view;
  char np_format[4];
  const char *known = numpy_format(obj, np_format);
  int flags = PyBUF_C_CONTIGUOUS | (known ? 0 : PyBUF_FORMAT);
  if (views->n >= NATIVE_MAX_VIEWS) {
    native_raisef(FRICL_STATUS_INTERNAL, "too many arrays in one call");
    return -1;
  }
  view = &views->v[views->n];
  if (writable)
    flags |= PyBUF_WRITABLE;
  if (PyObject_GetBuffer(obj, view, flags) != 0) {
    PyErr_Clear();
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument '%s': expected a C-contiguous%s %s array, got %s",
                  name, writable ? ", writable" : "",
                  kind_name(kind, precision), Py_TYPE(obj)->tp_name);
    return -1;
  }
  views->n++;
  {
    const char *fmt = known ? known : view->format;
    if (!format_matches(fmt, view->itemsize, kind, precision)) {
      native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                    "argument '%s': expected %s elements, got format '%s' "
                    "(itemsize %zd)",
                    name, kind_name(kind, precision), fmt ? fmt : "B",
                    view->itemsize);
      return -1;
    }
  }
  *out = view;
  return 0;
}

int native_get(native_views *views, PyObject *obj, const char *name,
               native_kind kind, fricl_precision precision, size_t count,
               int writable, int optional, void **ptr) {
  Py_buffer *view;
  size_t have;
  *ptr = NULL;
  if (obj == NULL || obj == Py_None) {
    if (optional)
      return 0;
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT, "argument '%s' is required",
                  name);
    return -1;
  }
  if (acquire(views, obj, name, kind, precision, writable, &view) != 0)
    return -1;
  have = (size_t)(view->len / view->itemsize);
  if (have != count) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument '%s': expected %zu %s elements, got %zu", name,
                  count, kind_name(kind, precision), have);
    return -1;
  }
  *ptr = view->buf;
  return 0;
}

int native_get_any(native_views *views, PyObject *obj, const char *name,
                   native_kind kind, fricl_precision precision, int writable,
                   void **ptr, size_t *count) {
  Py_buffer *view;
  *ptr = NULL;
  *count = 0;
  if (obj == NULL || obj == Py_None) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT, "argument '%s' is required",
                  name);
    return -1;
  }
  if (acquire(views, obj, name, kind, precision, writable, &view) != 0)
    return -1;
  *count = (size_t)(view->len / view->itemsize);
  *ptr = view->buf;
  return 0;
}

void native_release(native_views *views) {
  int i;
  for (i = 0; i < views->n; i++)
    PyBuffer_Release(&views->v[i]);
  views->n = 0;
}

int native_precision(PyObject *obj, fricl_precision *out) {
  long p = PyLong_AsLong(obj);
  if (p == -1 && PyErr_Occurred())
    return -1;
  if (p != FRICL_F64 && p != FRICL_F32) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "precision must be 0 (f64) or 1 (f32), got %ld", p);
    return -1;
  }
  *out = (fricl_precision)p;
  return 0;
}

PyObject *native_bytes(const void *p, size_t n) {
  return PyBytes_FromStringAndSize(n ? (const char *)p : "", (Py_ssize_t)n);
}

PyObject *native_bytes_or_none(const void *p, size_t n) {
  if (p == NULL)
    Py_RETURN_NONE;
  return native_bytes(p, n);
}

int native_group_head(native_views *views, PyObject *it, Py_ssize_t entries,
                      const char *what, size_t i, fricl_precision precision,
                      fricl_stencil *type, const char **name,
                      const int32_t **vertices, size_t *count) {
  char label[64];
  void *p;
  size_t ids, k;
  long t;
  if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != entries) {
    PyErr_Format(PyExc_TypeError, "%s is a tuple of %zd entries", what,
                 entries);
    return -1;
  }
  t = PyLong_AsLong(PyTuple_GET_ITEM(it, 0));
  if (t == -1 && PyErr_Occurred())
    return -1;
  if (t < 0 || t >= FRICL_STENCIL_COUNT ||
      fricl_stencil_name((fricl_stencil)t) == NULL) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "group %zu: unknown stencil type %ld", i, t);
    return -1;
  }
  *type = (fricl_stencil)t;
  *name = fricl_stencil_name(*type);
  k = (size_t)fricl_stencil_vertex_count(*type);
  snprintf(label, sizeof label, "%s.vertices", *name);
  if (native_get_any(views, PyTuple_GET_ITEM(it, 1), label, NATIVE_I32,
                     precision, 0, &p, &ids) != 0)
    return -1;
  if (ids % k != 0) {
    native_raisef(FRICL_STATUS_INVALID_ARGUMENT,
                  "argument '%s': %zu ids is not a multiple of %zu", label, ids,
                  k);
    return -1;
  }
  *vertices = p;
  *count = ids / k;
  return 0;
}
