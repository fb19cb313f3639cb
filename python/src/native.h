/*
 * native.h - shared pieces of fricl's CPython extension (fricl._native).
 *
 * The extension is a thin layer over the public C API (<fricl/fricl.h>)
 * only: it checks every buffer it is given (element type, C contiguity,
 * exact length) so that no call from Python can make fricl read or write
 * out of bounds, releases the GIL around each fricl call and turns a
 * fricl_status into the matching fricl.Error subclass. Conversions
 * (dtype, layout, broadcasting) are the Python package's job
 * (python/fricl/_convert.py); this layer never copies an array.
 */
#ifndef FRICL_PY_NATIVE_H
#define FRICL_PY_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <fricl/fricl.h>

/* ------------------------------------------------------------- errors */

/* Raise the fricl.Error subclass registered for @p status with
 * @p message (fricl's detailed message, or ours). Returns NULL. */
PyObject *native_raise(fricl_status status, const char *message);
/* printf-style variant for messages of the extension itself. */
PyObject *native_raisef(fricl_status status, const char *fmt, ...);

/* ------------------------------------------------------------ buffers */

/* Element kinds a buffer may be required to hold. */
typedef enum native_kind {
  NATIVE_REAL, /* float64 (FRICL_F64) or float32 (FRICL_F32) */
  NATIVE_F64,  /* float64 whatever the precision */
  NATIVE_I32,
  NATIVE_I64,
  NATIVE_U8,
  NATIVE_U64 /* size_t counts (64-bit platforms) */
} native_kind;

/* Up to NATIVE_MAX_VIEWS buffers held for one call, released together. */
#define NATIVE_MAX_VIEWS 160
typedef struct native_views {
  int n;
  Py_buffer v[NATIVE_MAX_VIEWS];
} native_views;

/*
 * Borrow the memory of @p obj for one call. None gives *ptr = NULL when
 * @p optional, else an error. The buffer must be C-contiguous, of @p kind
 * (for NATIVE_REAL in @p precision), hold exactly @p count elements and
 * be writable when @p writable. @p name is used in the error message
 * (fricl.InvalidArgumentError). Returns 0, or -1 with the error set.
 */
int native_get(native_views *views, PyObject *obj, const char *name,
               native_kind kind, fricl_precision precision, size_t count,
               int writable, int optional, void **ptr);
/* Like native_get for an array whose length is not known in advance:
 * *count receives the number of elements. */
/* The head every group tuple shares: @p it is a tuple of @p entries
 * (`what` names it in the message), entry 0 its stencil type and entry 1
 * its vertex ids (a multiple of the type's vertex count), borrowed
 * through @p views. Sets *type, *name (the type's), *vertices and *count.
 * @return 0, or -1 with the exception set. */
int native_group_head(native_views *views, PyObject *it, Py_ssize_t entries,
                      const char *what, size_t i, fricl_precision precision,
                      fricl_stencil *type, const char **name,
                      const int32_t **vertices, size_t *count);

int native_get_any(native_views *views, PyObject *obj, const char *name,
                   native_kind kind, fricl_precision precision, int writable,
                   void **ptr, size_t *count);
void native_release(native_views *views);

/* Parse a precision (0 = f64, 1 = f32) argument. */
int native_precision(PyObject *obj, fricl_precision *out);

/* n bytes at p as a new bytes object (p may be NULL when n is 0); the
 * second form gives None (a new reference) for p NULL. */
PyObject *native_bytes(const void *p, size_t n);
PyObject *native_bytes_or_none(const void *p, size_t n);

/* ------------------------------------------------------------ context */

struct native_plan;

typedef struct native_context {
  PyObject_HEAD fricl_context *ctx;
  /* Serialises the calls on ctx: fricl requires one call at a time per
   * context, and the GIL is released during each call. */
  PyThread_type_lock lock;
  /* The live plans made on this context, destroyed by close() before the
   * context itself (fricl requires plans to go first). */
  struct native_plan *plans;
  PyObject *weakrefs;
} native_context;

extern PyTypeObject native_context_type;

/* The context of @p obj, or NULL with an error set when @p obj is not an
 * open native context. */
native_context *native_context_check(PyObject *obj);

/*
 * Run @p fn(ctx, arg) with the GIL released and the context's lock held.
 * On failure, fricl's last error message is copied (under the lock) and
 * the matching fricl.Error raised; returns -1. Returns 0 on success.
 * When @p repeat > 0, the call is made @p repeat times and each duration
 * (seconds) is stored in @p times (benchmark of the C API itself).
 */
typedef fricl_status (*native_call_fn)(fricl_context *ctx, const void *arg);
/* Statuses of the extension itself that a native_call_fn returns when an
 * object it was given was closed while the caller waited for the lock:
 * objects that close() frees may only be read under that lock, so the
 * check is made there (native_call raises the matching error). */
#define NATIVE_CLOSED_CONTEXT ((fricl_status)-1000)
#define NATIVE_CLOSED_PLAN ((fricl_status)-1001)
#define NATIVE_PLAN_CLOSED_MESSAGE                                             \
  "the fricl.Plan is closed (by plan.close() or with its fricl.Context)"
int native_call(native_context *c, native_call_fn fn, const void *arg,
                int repeat, double *times);
/* A list of @p n floats, or NULL. */
PyObject *native_times_list(const double *times, int repeat);
/* Parse the optional repeat argument; 0 means a normal call. */
int native_repeat(PyObject *obj, int *repeat, double **times);

/* --------------------------------------------------------------- plan */

typedef struct native_plan {
  PyObject_HEAD native_context *owner; /* strong reference */
  fricl_tangential_plan *plan;         /* NULL once closed */
  struct native_plan *prev, *next;     /* owner's list of live plans */
  int dim;
  size_t n_vertices, nnz_blocks;
  /* CSC of the Hessian (the exact transpose of the plan's BSR order, no
   * symmetry assumed), built on first use: csc_order lists the blocks by
   * block column, then block row (csc_colstart[b] .. csc_colstart[b + 1]
   * for block column b), so that the values are written in CSC order, and
   * csc_brow the block row of each; the scalar pattern is written from
   * them straight into the caller's arrays. */
  size_t *csc_order, *csc_colstart, *csc_brow;
} native_plan;

extern PyTypeObject native_plan_type;
void native_plan_close(native_plan *p); /* destroy the fricl plan */

/* ----------------------------------------------------------- groups */

/* An immutable set of contact groups (inputs only) with the buffers it
 * borrows from the arrays it was made from. */
typedef struct native_groups {
  PyObject_HEAD int dim;
  fricl_precision precision;
  size_t n_groups;
  fricl_contact_group *groups;
  native_views *views; /* the borrowed arrays, released in dealloc */
  PyObject *owner;     /* a strong reference to what holds more of them */
  void *own;           /* arrays made for the groups (malloc), or NULL */
} native_groups;

extern PyTypeObject native_groups_type;

/* The barrier's groups (fricl_barrier_group inputs), parsed and checked
 * once and held with their buffers for any number of barrier_eval calls
 * (a small call otherwise spent most of its time reading the tuples). */
typedef struct native_barrier_groups {
  PyObject_HEAD int dim;
  fricl_precision precision;
  size_t n_groups;
  fricl_barrier_group *groups;
  native_views *views; /* the borrowed arrays, released in dealloc */
} native_barrier_groups;

extern PyTypeObject native_barrier_groups_type;
/* The lagged build's prepared input groups (native_build.c). */
extern PyTypeObject native_build_groups_type;

/* ------------------------------------------------------ entry points */

PyObject *native_scalar_eval(PyObject *self, PyObject *args);
PyObject *native_tangential_eval(PyObject *self, PyObject *args);
PyObject *native_barrier_eval(PyObject *self, PyObject *args);
PyObject *native_barrier_plan(PyObject *self, PyObject *args);
PyObject *native_shape_assemble(PyObject *self, PyObject *args);
PyObject *native_force_eval(PyObject *self, PyObject *args);
PyObject *native_collision_mesh(PyObject *self, PyObject *args);
PyObject *native_collisions_build(PyObject *self, PyObject *args);
PyObject *native_candidates_build(PyObject *self, PyObject *args);
PyObject *native_ccd_stepsize(PyObject *self, PyObject *args);
PyObject *native_build(PyObject *self, PyObject *args);
PyObject *native_build_packed(PyObject *self, PyObject *args);
PyObject *native_packed_groups(PyObject *self, PyObject *args);
PyObject *native_law(PyObject *self, PyObject *args);
PyObject *native_law_info(PyObject *self, PyObject *args);

#endif /* FRICL_PY_NATIVE_H */
