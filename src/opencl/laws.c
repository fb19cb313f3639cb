/* laws_cl.c - the friction laws on an OpenCL device: kernel specialisation,
 * argument binding, and the host tier's chunking over elements (zero copy
 * on unified-memory devices, staging buffers elsewhere; per-step arrays of
 * a partial chunk are staged row by row). */
#include <stdio.h>
#include <string.h>

#include "core/fault.h"
#include "core/laws_internal.h"
#include "opencl/opencl.h"

fricl_status fricl__ocl_law_kernel(fricl__ocl *o, const fricl__law_plan *pl,
                                   cl_kernel *kernel, double *build_ms) {
  /* Integers only: parameters are kernel arguments. */
  const int f64 = pl->prec == FRICL_F64;
  const int m = pl->law == FRICL_LAW_GMS ? (int)pl->m : 1;
  char defines[1024];
  snprintf(defines, sizeof defines,
           "%s#define FRICL_REAL %s\n"
           "#define FRICL_FN(name) fricl_##name\n"
           "#define FRICL_GLOBAL __global\n"
           "#define FRICL_GMS_CAP %d\n"
           "#define FRICL_GMS_M %d\n"
           "#define FRICL_LAW %d\n"
           "#define FRICL_OPTS %uu\n"
           "#define FRICL_INTEG %d\n"
           "#define FRICL_STEPPING %d\n"
           "#define FRICL_ALPHA2 %d\n"
           "#define FRICL_NRM_MODE %d\n"
           "#define FRICL_PARR %uu\n"
           "#define FRICL_GE_PE %d\n"
           "#define FRICL_STATE_S %d\n"
           "#define FRICL_HAS_V %d\n"
           "#define FRICL_HAS_X %d\n"
           "#define FRICL_HAS_STIN %d\n"
           "#define FRICL_HAS_STOUT %d\n"
           "#define FRICL_HAS_FORCE %d\n"
           "#define FRICL_HAS_DSTATE %d\n",
           f64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
           f64 ? "double" : "float", m, m, (int)pl->law, (unsigned)pl->options,
           pl->integ, pl->stepping, pl->alpha2,
           pl->nrm_mode < 0 ? 0 : pl->nrm_mode, pl->param_arrays,
           pl->ge_per_element, (int)pl->state, pl->has_v, pl->has_x,
           pl->has_state, pl->has_state_out, pl->has_force, pl->has_dstate);
  static const char *const headers[] = {"fricl_cl_compat.h",
                                        "fricl_laws_math.h", NULL};
  return fricl__ocl_kernel(o, "fricl_laws.cl", headers, "fricl_law_run",
                           defines, kernel, build_ms);
}

/* Buffer slots (also the context's staging slots). */
enum {
  SL_V = 0,
  SL_X = 1,
  SL_NRM = 2,
  SL_P0 = 3, /* .. SL_P0 + 6 */
  SL_GE = 10,
  SL_STIN = 11,
  SL_STOUT = 12,
  SL_FORCE = 13,
  SL_DSTATE = 14,
  SL_COUNT = 15
};

typedef struct {
  cl_mem mem;
  cl_ulong off;
} arg_buf;

#define set_real fricl__ocl_set_real

static cl_int set_buf(cl_kernel k, cl_uint idx, arg_buf b) {
  cl_int err = clSetKernelArg(k, idx, sizeof(cl_mem), &b.mem);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, idx + 1, sizeof(cl_ulong), &b.off);
  return err;
}

/* Bind every argument and enqueue `count` work items. */
static fricl_status enqueue(fricl__ocl *o, cl_kernel k,
                            const fricl__law_plan *pl, size_t count, size_t ld,
                            const arg_buf *bufs, cl_uint num_wait,
                            const cl_event *wait, cl_event *done) {
  const cl_ulong n64 = (cl_ulong)count, steps64 = (cl_ulong)pl->n_steps,
                 ld64 = (cl_ulong)ld;
  cl_int err = clSetKernelArg(k, 0, sizeof n64, &n64);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, 1, sizeof steps64, &steps64);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, 2, sizeof ld64, &ld64);
  if (err == CL_SUCCESS)
    err = set_real(k, 3, pl->prec, pl->h);
  if (err == CL_SUCCESS)
    err = set_buf(k, 4, bufs[SL_V]);
  if (err == CL_SUCCESS)
    err = set_buf(k, 6, bufs[SL_X]);
  if (err == CL_SUCCESS)
    err = set_buf(k, 8, bufs[SL_NRM]);
  if (err == CL_SUCCESS)
    err = set_real(k, 10, pl->prec, pl->normal_force);
  for (cl_uint p = 0; p < FRICL__LAW_KPARAMS && err == CL_SUCCESS; ++p) {
    err = set_buf(k, 11 + 3 * p, bufs[SL_P0 + p]);
    if (err == CL_SUCCESS)
      err = set_real(k, 13 + 3 * p, pl->prec, pl->param[p]);
  }
  static const int tail[5] = {SL_GE, SL_STIN, SL_STOUT, SL_FORCE, SL_DSTATE};
  for (cl_uint t = 0; t < 5 && err == CL_SUCCESS; ++t)
    err = set_buf(k, 32 + 2 * t, bufs[tail[t]]);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(o->base.ctx, err, "clSetKernelArg");
  err = fricl__ocl_launch(o, k, count, num_wait, wait, done);
  /* The cached kernel must not keep handles of buffers released later. */
  cl_uint mem_args[3 + FRICL__LAW_KPARAMS + 5];
  int nm = 0;
  mem_args[nm++] = 4;
  mem_args[nm++] = 6;
  mem_args[nm++] = 8;
  for (cl_uint p = 0; p < FRICL__LAW_KPARAMS; ++p)
    mem_args[nm++] = 11 + 3 * p;
  for (cl_uint t = 0; t < 5; ++t)
    mem_args[nm++] = 32 + 2 * t;
  fricl__kernel_unbind(k, mem_args, nm);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(o->base.ctx, err, "clEnqueueNDRangeKernel");
  return FRICL_STATUS_OK;
}

/* --------------------------------------------------------- host tier */

typedef enum { K_STEP, K_ELEM, K_SHARED } kind;

typedef struct {
  const void *ptr; /* host base (whole batch) */
  kind k;
  size_t per; /* values per element (K_ELEM) or in all (K_SHARED) */
  int out;
} host_arr;

static void describe(const fricl__law_plan *pl, const fricl_law_batch *b,
                     host_arr *a) {
  memset(a, 0, SL_COUNT * sizeof *a);
  a[SL_V] = (host_arr){pl->has_v ? b->v : NULL, K_STEP, 1, 0};
  a[SL_X] = (host_arr){pl->has_x ? b->x : NULL, K_STEP, 1, 0};
  a[SL_NRM] = (host_arr){pl->nrm_mode > 0 ? b->normal : NULL,
                         pl->nrm_mode == 2 ? K_STEP : K_ELEM, 1, 0};
  for (int p = 0; p < FRICL__LAW_KPARAMS; ++p)
    a[SL_P0 + p] = (host_arr){
        (pl->param_arrays >> p) & 1u ? b->param_array[p] : NULL, K_ELEM, 1, 0};
  if (pl->has_ge)
    a[SL_GE] = pl->ge_per_element
                   ? (host_arr){b->gms_params, K_ELEM, 3 * pl->m, 0}
                   : (host_arr){b->gms_params, K_SHARED, 3 * pl->m, 0};
  a[SL_STIN] = (host_arr){b->state, K_ELEM, pl->state, 0};
  /* In place: state_out is the state's buffer (bound below). */
  a[SL_STOUT] =
      (host_arr){pl->in_place ? NULL : b->state_out, K_ELEM, pl->state, 1};
  a[SL_FORCE] = (host_arr){b->force, K_STEP, 1, 1};
  a[SL_DSTATE] = (host_arr){b->dstate, K_ELEM, pl->state, 1};
}

/* Bytes of array `a` for a chunk of c elements (n_steps rows for K_STEP). */
static size_t chunk_bytes(const fricl__law_plan *pl, const host_arr *a,
                          size_t c, size_t esz) {
  switch (a->k) {
  case K_STEP:
    return c * pl->n_steps * esz;
  case K_ELEM:
    return c * a->per * esz;
  default:
    return a->per * esz;
  }
}

/* Host address of the chunk's first value of array a (row 0). */
static char *chunk_ptr(const host_arr *a, size_t off, size_t esz) {
  char *base = (char *)(uintptr_t)a->ptr;
  return a->k == K_SHARED ? base : base + off * a->per * esz;
}

/* Copy between host and a staging buffer: contiguous, or n_steps rows of c
 * values when a per-step array is cut into chunks (rows `dev_ld` values
 * apart on the device). */
static fricl_status stage(fricl__ocl *o, const fricl__law_plan *pl,
                          const host_arr *a, cl_mem mem, size_t off, size_t c,
                          size_t dev_ld, int write) {
  const size_t esz = fricl__elem_bytes(pl->prec);
  const int rows = a->k == K_STEP && c < pl->n && pl->n_steps > 1;
  const size_t nrows = rows ? pl->n_steps : 1;
  const size_t bytes = rows ? c * esz : chunk_bytes(pl, a, c, esz);
  const size_t step = rows ? dev_ld * esz : 0;
  for (size_t r = 0; r < nrows; ++r) {
    char *host = chunk_ptr(a, off, esz) + r * pl->n * esz;
    cl_int err =
        write
            ? FRICL__CL(clEnqueueWriteBuffer)(o->queue, mem, CL_FALSE, r * step,
                                              bytes, host, 0, NULL, NULL)
            : FRICL__CL(clEnqueueReadBuffer)(o->queue, mem, CL_TRUE, r * step,
                                             bytes, host, 0, NULL, NULL);
    if (err != CL_SUCCESS)
      return fricl__fail_cl(o->base.ctx, err,
                            write ? "clEnqueueWriteBuffer"
                                  : "reading results back");
  }
  return FRICL_STATUS_OK;
}

/* Elements [off, off + c) of a host-tier batch. On unified memory arrays
 * are wrapped in place, except the per-step outputs of a cut (c < n with
 * several steps), whose rows interleave with the other elements': those
 * are staged. A cut's per-step inputs are wrapped rows apart (the
 * kernel's leading dimension is then n) when the span fits one
 * allocation, else every per-step array is staged compactly. */
static fricl_status host_chunk(fricl__ocl *o, const fricl__law_plan *pl,
                               const fricl_law_batch *b, cl_kernel k,
                               size_t off, size_t c) {
  fricl_context *ctx = o->base.ctx;
  const size_t esz = fricl__elem_bytes(pl->prec);
  host_arr a[SL_COUNT];
  describe(pl, b, a);
  const int rows = pl->n_steps > 1 && c < pl->n;
  const size_t span = ((pl->n_steps - 1) * pl->n + c) * esz;
  const int strided =
      rows && o->host_unified && (cl_ulong)span <= o->max_alloc_bytes;
  const size_t ld = c == pl->n || strided ? pl->n : c;
  cl_mem mems[SL_COUNT] = {0};
  int wrapped[SL_COUNT] = {0};
  arg_buf bufs[SL_COUNT];
  fricl_status st = FRICL_STATUS_OK;
  cl_int err = CL_SUCCESS;
  for (int s = 0; s < SL_COUNT && st == FRICL_STATUS_OK; ++s) {
    if (!a[s].ptr)
      continue;
    const int step_arr = a[s].k == K_STEP && rows;
    const size_t bytes =
        step_arr && strided ? span : chunk_bytes(pl, &a[s], c, esz);
    /* The in-place state is read and written through one buffer. */
    const int rw = s == SL_STIN && pl->in_place;
    const size_t logical = chunk_bytes(pl, &a[s], c, esz);
    fricl__ocl_moved(o, a[s].out ? 0 : logical, a[s].out || rw ? logical : 0);
    wrapped[s] = o->host_unified && (!step_arr || (strided && !a[s].out));
    if (wrapped[s]) {
      const cl_mem_flags fl =
          rw ? CL_MEM_READ_WRITE
             : (a[s].out ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY);
      mems[s] =
          FRICL__CL(clCreateBuffer)(o->cl_ctx, CL_MEM_USE_HOST_PTR | fl, bytes,
                                    chunk_ptr(&a[s], off, esz), &err);
      if (err != CL_SUCCESS) {
        mems[s] = NULL;
        st = fricl__fail_cl(ctx, err, "clCreateBuffer (host pointer)");
      }
    } else {
      st = fricl__ocl_staging(o, FRICL__SLOT_SCALAR + s, bytes, &mems[s]);
      if (st == FRICL_STATUS_OK && !a[s].out)
        st = stage(o, pl, &a[s], mems[s], off, c, ld, 1);
    }
  }
  for (int s = 0; s < SL_COUNT; ++s)
    bufs[s] = (arg_buf){mems[s], 0};
  if (pl->in_place)
    bufs[SL_STOUT] = bufs[SL_STIN];
  if (st == FRICL_STATUS_OK)
    st = enqueue(o, k, pl, c, ld, bufs, 0, NULL, NULL);
  /* Results: force, dstate, state_out (or the in-place state). */
  for (int s = 0; s < SL_COUNT && st == FRICL_STATUS_OK; ++s) {
    const int in_place_state = s == SL_STIN && pl->in_place;
    if (!mems[s] || !(a[s].out || in_place_state))
      continue;
    if (wrapped[s]) {
      const size_t bytes = chunk_bytes(pl, &a[s], c, esz);
      char *dst = chunk_ptr(&a[s], off, esz);
      void *p =
          FRICL__CL(clEnqueueMapBuffer)(o->queue, mems[s], CL_TRUE, CL_MAP_READ,
                                        0, bytes, 0, NULL, NULL, &err);
      if (err == CL_SUCCESS) {
        if (p != dst)
          memcpy(dst, p, bytes);
        err = clEnqueueUnmapMemObject(o->queue, mems[s], p, 0, NULL, NULL);
      }
      if (err != CL_SUCCESS)
        st = fricl__fail_cl(ctx, err, "reading results back");
    } else {
      host_arr dst = a[s];
      if (in_place_state)
        dst.ptr = b->state_out;
      st = stage(o, pl, &dst, mems[s], off, c, ld, 0);
    }
  }
  /* Also on error: nothing enqueued may outlive the caller's pointers. */
  clFinish(o->queue);
  for (int s = 0; s < SL_COUNT; ++s)
    if (mems[s] && wrapped[s])
      clReleaseMemObject(mems[s]);
  return st;
}

fricl_status fricl__ocl_laws(fricl__backend *be, const fricl__laws_work *w) {
  return fricl__ocl_laws_range(be, w, 0, w->pl->n);
}

fricl_status fricl__ocl_laws_range(fricl__backend *be,
                                   const fricl__laws_work *w, size_t lo,
                                   size_t hi) {
  fricl__ocl *o = (fricl__ocl *)be;
  const fricl__law_plan *pl = w->pl;
  const fricl_law_batch *b = w->b;
  cl_kernel k = NULL;
  fricl_status st = fricl__ocl_law_kernel(o, pl, &k, NULL);
  if (st != FRICL_STATUS_OK)
    return st;
  size_t per = pl->n_steps;
  if (pl->state > per)
    per = pl->state;
  if (pl->ge_per_element && 3 * pl->m > per)
    per = 3 * pl->m;
  const size_t chunk =
      fricl__ocl_chunk_elements(o, per * fricl__elem_bytes(pl->prec));
  for (size_t off = lo; off < hi && st == FRICL_STATUS_OK; off += chunk)
    st = host_chunk(o, pl, b, k, off, fricl__chunk_len(hi, off, chunk));
  return st;
}

/* ----------------------------------------------------------- cl tier */

fricl_status fricl__ocl_laws_enqueue(fricl__ocl *o, const fricl__law_plan *pl,
                                     const fricl_law_batch_cl *b,
                                     cl_uint num_wait, const cl_event *wait,
                                     cl_event *done) {
  cl_kernel k = NULL;
  fricl_status st = fricl__ocl_law_kernel(o, pl, &k, NULL);
  if (st != FRICL_STATUS_OK)
    return st;
  arg_buf bufs[SL_COUNT];
#define B(buf) ((arg_buf){(buf).mem, (cl_ulong)(buf).offset})
  static const arg_buf none = {NULL, 0};
  bufs[SL_V] = pl->has_v ? B(b->v) : none;
  bufs[SL_X] = pl->has_x ? B(b->x) : none;
  bufs[SL_NRM] = pl->nrm_mode > 0 ? B(b->normal) : none;
  for (int p = 0; p < FRICL__LAW_KPARAMS; ++p)
    bufs[SL_P0 + p] =
        (pl->param_arrays >> p) & 1u ? B(b->param_array[p]) : none;
  bufs[SL_GE] = pl->has_ge ? B(b->gms_params) : none;
  bufs[SL_STIN] = B(b->state);
  bufs[SL_STOUT] = B(b->state_out);
  bufs[SL_FORCE] = B(b->force);
  bufs[SL_DSTATE] = B(b->dstate);
#undef B
  return enqueue(o, k, pl, pl->n, pl->n, bufs, num_wait, wait, done);
}
