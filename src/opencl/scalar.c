/* scalar_cl.c - the smooth-friction scalar family on an OpenCL device:
 * kernel specialisation, argument binding, and the host tier's chunking
 * (zero copy on unified-memory devices, staging buffers elsewhere). */
#include <stdio.h>
#include <string.h>

#include "core/fault.h"
#include "opencl/opencl.h"

fricl_status fricl__ocl_scalar_kernel(fricl__ocl *o, fricl_precision prec,
                                      fricl_mu_profile profile, unsigned mask,
                                      int eps_array, int mus_array,
                                      int muk_array, cl_kernel *kernel,
                                      double *build_ms) {
  /* Only integers go into the source text: float parameters are kernel
   * arguments, so no locale or rounding can change a constant. */
  char defines[512];
  snprintf(defines, sizeof defines,
           "%s#define FRICL_REAL %s\n"
           "#define FRICL_FN(name) fricl_##name\n"
           "#define FRICL_FABS fabs\n"
           "#define FRICL_TERM_MASK 0x%03xu\n"
           "#define FRICL_PROFILE %d\n"
           "#define FRICL_EPS_ARRAY %d\n"
           "#define FRICL_MUS_ARRAY %d\n"
           "#define FRICL_MUK_ARRAY %d\n",
           prec == FRICL_F64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                             : "",
           prec == FRICL_F64 ? "double" : "float", mask, (int)profile,
           eps_array != 0, mus_array != 0, muk_array != 0);
  static const char *const headers[] = {"fricl_cl_compat.h",
                                        "fricl_scalar_math.h", NULL};
  return fricl__ocl_kernel(o, "fricl_scalar.cl", headers, "fricl_scalar_eval",
                           defines, kernel, build_ms);
}

typedef struct {
  cl_mem mem;
  cl_ulong off;
} arg_buf;

static cl_int set_buf(cl_kernel k, cl_uint idx, arg_buf b) {
  cl_int err = clSetKernelArg(k, idx, sizeof(cl_mem), &b.mem);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, idx + 1, sizeof(cl_ulong), &b.off);
  return err;
}

#define set_real fricl__ocl_set_real

/* Bind every argument of fricl_scalar_eval and enqueue n work items. */
static fricl_status enqueue(fricl__ocl *o, cl_kernel k, fricl_precision p,
                            size_t n, arg_buf y, arg_buf eps, double eps_s,
                            arg_buf mus, double mus_s, arg_buf muk,
                            double muk_s, const arg_buf *out, cl_uint num_wait,
                            const cl_event *wait, cl_event *done) {
  const cl_ulong n64 = (cl_ulong)n;
  cl_int err = clSetKernelArg(k, 0, sizeof n64, &n64);
  if (err == CL_SUCCESS)
    err = set_buf(k, 1, y);
  if (err == CL_SUCCESS)
    err = set_buf(k, 3, eps);
  if (err == CL_SUCCESS)
    err = set_real(k, 5, p, eps_s);
  if (err == CL_SUCCESS)
    err = set_buf(k, 6, mus);
  if (err == CL_SUCCESS)
    err = set_real(k, 8, p, mus_s);
  if (err == CL_SUCCESS)
    err = set_buf(k, 9, muk);
  if (err == CL_SUCCESS)
    err = set_real(k, 11, p, muk_s);
  for (cl_uint t = 0; t < FRICL_TERM_COUNT && err == CL_SUCCESS; ++t)
    err = set_buf(k, 12 + 2 * t, out[t]);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(o->base.ctx, err, "clSetKernelArg");
  err = fricl__ocl_launch(o, k, n, num_wait, wait, done);
  static const cl_uint mem_args[] = {1,  3,  6,  9,  12, 14, 16, 18,
                                     20, 22, 24, 26, 28, 30, 32, 34};
  fricl__kernel_unbind(k, mem_args, (int)(sizeof mem_args / sizeof *mem_args));
  if (err != CL_SUCCESS)
    return fricl__fail_cl(o->base.ctx, err, "clEnqueueNDRangeKernel");
  return FRICL_STATUS_OK;
}

/* One chunk [off, off + m) of a host-tier batch. Wrapped buffers (unified
 * memory) are created per chunk and released here; staging buffers belong
 * to the context. */
static fricl_status host_chunk(fricl__ocl *o, const fricl_scalar_batch *b,
                               cl_kernel k, size_t off, size_t m) {
  fricl_context *ctx = o->base.ctx;
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t bytes = m * esz;
  const void *in_ptr[4] = {b->y, b->eps_v_array, b->mu_s_array, b->mu_k_array};
  cl_mem mems[4 + FRICL_TERM_COUNT] = {0};
  int wrapped = o->host_unified;
  fricl_status st = FRICL_STATUS_OK;
  cl_int err = CL_SUCCESS;
  for (int s = 0; s < 4 + FRICL_TERM_COUNT && st == FRICL_STATUS_OK; ++s) {
    const int is_in = s < 4;
    const void *base = is_in ? in_ptr[s] : b->out[s - 4];
    if (!base)
      continue;
    char *ptr = (char *)(uintptr_t)base + off * esz;
    fricl__ocl_moved(o, is_in ? bytes : 0, is_in ? 0 : bytes);
    if (wrapped) {
      /* Inputs are wrapped read-only: the device never writes them. */
      mems[s] = FRICL__CL(clCreateBuffer)(
          o->cl_ctx,
          CL_MEM_USE_HOST_PTR | (is_in ? CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY),
          bytes, ptr, &err);
      if (err != CL_SUCCESS)
        st = fricl__fail_cl(ctx, err, "clCreateBuffer (host pointer)");
    } else {
      st = fricl__ocl_staging(o, FRICL__SLOT_SCALAR + s, bytes, &mems[s]);
      if (st == FRICL_STATUS_OK && is_in) {
        err = FRICL__CL(clEnqueueWriteBuffer)(o->queue, mems[s], CL_FALSE, 0,
                                              bytes, ptr, 0, NULL, NULL);
        if (err != CL_SUCCESS)
          st = fricl__fail_cl(ctx, err, "clEnqueueWriteBuffer");
      }
    }
  }
  if (st == FRICL_STATUS_OK) {
    arg_buf out[FRICL_TERM_COUNT];
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      out[t] = (arg_buf){mems[4 + t], 0};
    st = enqueue(o, k, b->precision, m, (arg_buf){mems[0], 0},
                 (arg_buf){mems[1], 0}, b->eps_v, (arg_buf){mems[2], 0},
                 b->mu_s, (arg_buf){mems[3], 0}, b->mu_k, out, 0, NULL, NULL);
  }
  for (int t = 0; t < FRICL_TERM_COUNT && st == FRICL_STATUS_OK; ++t) {
    cl_mem mem = mems[4 + t];
    if (!mem)
      continue;
    char *dst = (char *)b->out[t] + off * esz;
    if (wrapped) {
      /* Mapping is what makes the device's writes visible in host memory. */
      void *p = FRICL__CL(clEnqueueMapBuffer)(
          o->queue, mem, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &err);
      if (err == CL_SUCCESS) {
        if (p != dst)
          memcpy(dst, p, bytes);
        err = clEnqueueUnmapMemObject(o->queue, mem, p, 0, NULL, NULL);
      }
    } else {
      err = FRICL__CL(clEnqueueReadBuffer)(o->queue, mem, CL_TRUE, 0, bytes,
                                           dst, 0, NULL, NULL);
    }
    if (err != CL_SUCCESS)
      st = fricl__fail_cl(ctx, err, "reading results back");
  }
  /* Also on error: nothing enqueued may outlive the caller's pointers. */
  clFinish(o->queue);
  if (wrapped) {
    for (int s = 0; s < 4 + FRICL_TERM_COUNT; ++s)
      if (mems[s])
        clReleaseMemObject(mems[s]);
  }
  return st;
}

fricl_status fricl__ocl_scalar(fricl__backend *be,
                               const fricl__scalar_work *w) {
  fricl__ocl *o = (fricl__ocl *)be;
  const fricl_scalar_batch *b = w->b;
  cl_kernel k = NULL;
  fricl_status st = fricl__ocl_scalar_kernel(
      o, b->precision, b->mu_profile, w->mask, b->eps_v_array != NULL,
      b->mu_s_array != NULL, b->mu_k_array != NULL, &k, NULL);
  if (st != FRICL_STATUS_OK)
    return st;
  const size_t chunk =
      fricl__ocl_chunk_elements(o, fricl__elem_bytes(b->precision));
  for (size_t off = 0; off < b->n && st == FRICL_STATUS_OK; off += chunk) {
    const size_t m = fricl__chunk_len(b->n, off, chunk);
    st = host_chunk(o, b, k, off, m);
  }
  return st;
}

fricl_status fricl__ocl_scalar_enqueue(fricl__ocl *o,
                                       const fricl_scalar_batch_cl *b,
                                       cl_uint num_wait, const cl_event *wait,
                                       cl_event *done) {
  unsigned mask = 0;
  arg_buf out[FRICL_TERM_COUNT];
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    if (b->out[t].mem)
      mask |= 1u << t;
    out[t] = (arg_buf){b->out[t].mem, (cl_ulong)b->out[t].offset};
  }
  cl_kernel k = NULL;
  fricl_status st = fricl__ocl_scalar_kernel(
      o, b->precision, b->mu_profile, mask, b->eps_v_array.mem != NULL,
      b->mu_s_array.mem != NULL, b->mu_k_array.mem != NULL, &k, NULL);
  if (st != FRICL_STATUS_OK)
    return st;
  return enqueue(
      o, k, b->precision, b->n, (arg_buf){b->y.mem, (cl_ulong)b->y.offset},
      (arg_buf){b->eps_v_array.mem, (cl_ulong)b->eps_v_array.offset}, b->eps_v,
      (arg_buf){b->mu_s_array.mem, (cl_ulong)b->mu_s_array.offset}, b->mu_s,
      (arg_buf){b->mu_k_array.mem, (cl_ulong)b->mu_k_array.offset}, b->mu_k,
      out, num_wait, wait, done);
}
