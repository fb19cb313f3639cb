/* buffers.c - device buffers for the host tiers: the caller's arrays
 * wrapped in place on unified-memory devices (CL_MEM_USE_HOST_PTR: a
 * buffer object over existing memory, no device allocation, no copy), the
 * backend's persistent grow-only staging buffers elsewhere (so that a
 * Newton loop allocates nothing on the device after its first call); and
 * reading outputs back. */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "opencl/opencl.h"

/*
 * Zero mem's first `bytes` (blocking), one host write per block of zeros
 * (not clEnqueueFillBuffer, which oclgrind performs as pattern-sized
 * stores), from a calloc'ed block the host gets as untouched zero pages.
 *
 * Every staging buffer is zeroed when it is created: scratch that one
 * kernel writes and another reads (contact records, per-contact D, block
 * sums) is then never memory nobody wrote, on any device. It also keeps
 * oclgrind 21.10 right about it: its shadow state of a released buffer
 * stays with the buffer index, and a new buffer that reuses the index
 * without a full host write inherits the old (smaller) shadow, which made
 * `fricl tangential --build` report uninitialized values
 * (tests/oclgrind/README.md). Once per growth of a grow-only buffer.
 */
static fricl_status zero_fill(fricl__ocl *o, cl_mem mem, size_t bytes) {
  enum { BLOCK = 64 << 20 };
  const size_t block = bytes < BLOCK ? bytes : BLOCK;
  void *zeros = block ? fricl__calloc(1, block) : NULL;
  if (block && !zeros)
    return fricl__fail(o->base.ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "zeroing a device buffer of %zu bytes", bytes);
  cl_int err = CL_SUCCESS;
  for (size_t off = 0; off < bytes && err == CL_SUCCESS; off += block) {
    const size_t n = bytes - off < block ? bytes - off : block;
    err = FRICL__CL(clEnqueueWriteBuffer)(o->queue, mem, CL_TRUE, off, n, zeros,
                                          0, NULL, NULL);
  }
  free(zeros);
  return err == CL_SUCCESS
             ? FRICL_STATUS_OK
             : fricl__fail_cl(o->base.ctx, err, "zeroing a buffer");
}

fricl_status fricl__ocl_staging(fricl__ocl *o, int slot, size_t bytes,
                                cl_mem *mem) {
  fricl__staging *s = &o->staging[slot];
  if (s->mem && s->bytes >= bytes) {
    *mem = s->mem;
    return FRICL_STATUS_OK;
  }
  if (s->mem)
    clReleaseMemObject(s->mem);
  s->mem = NULL;
  s->bytes = 0;
  cl_int err = CL_SUCCESS;
  cl_mem m = FRICL__CL(clCreateBuffer)(o->cl_ctx, CL_MEM_READ_WRITE,
                                       bytes ? bytes : 1, NULL, &err);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(o->base.ctx, err, "clCreateBuffer (staging)");
  const fricl_status st = zero_fill(o, m, bytes ? bytes : 1);
  if (st != FRICL_STATUS_OK) {
    clReleaseMemObject(m);
    return st;
  }
  s->mem = m;
  s->bytes = bytes;
  *mem = m;
  return FRICL_STATUS_OK;
}

fricl_status fricl__ocl_host_buffer(fricl__ocl *o, int slot, const void *ptr,
                                    size_t bytes, fricl__host_access access,
                                    cl_mem *mem, int *owned) {
  fricl_context *ctx = o->base.ctx;
  *mem = NULL;
  *owned = 0;
  if (!ptr || !bytes)
    return FRICL_STATUS_OK;
  if ((cl_ulong)bytes > o->max_alloc_bytes)
    return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                       "an array of %zu bytes exceeds the device's maximum "
                       "allocation (%llu bytes) and this array is not "
                       "chunked",
                       bytes, (unsigned long long)o->max_alloc_bytes);
  cl_int err = CL_SUCCESS;
  if (access == FRICL__HOST_IN)
    fricl__ocl_moved(o, bytes, 0);
  if (o->host_unified) {
    const cl_mem_flags f = access == FRICL__HOST_IN    ? CL_MEM_READ_ONLY
                           : access == FRICL__HOST_OUT ? CL_MEM_WRITE_ONLY
                                                       : CL_MEM_READ_WRITE;
    *mem = FRICL__CL(clCreateBuffer)(o->cl_ctx, f | CL_MEM_USE_HOST_PTR, bytes,
                                     (void *)(uintptr_t)ptr, &err);
    if (err != CL_SUCCESS) {
      *mem = NULL;
      return fricl__fail_cl(ctx, err, "clCreateBuffer (host pointer)");
    }
    *owned = 1;
    return FRICL_STATUS_OK;
  }
  fricl_status st = fricl__ocl_staging(o, slot, bytes, mem);
  /* Outputs (also the accumulated ones: the first chunk starts them from
   * zero) need nothing copied in. */
  if (st != FRICL_STATUS_OK || access != FRICL__HOST_IN)
    return st;
  /* In order on the queue: the kernels that read it come after. */
  err = FRICL__CL(clEnqueueWriteBuffer)(o->queue, *mem, CL_FALSE, 0, bytes, ptr,
                                        0, NULL, NULL);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(ctx, err, "clEnqueueWriteBuffer");
  return FRICL_STATUS_OK;
}

fricl_status fricl__ocl_read_back(fricl__ocl *o, cl_mem mem, void *dst,
                                  size_t bytes) {
  if (!mem || !bytes)
    return FRICL_STATUS_OK;
  fricl__ocl_moved(o, 0, bytes);
  cl_int err;
  if (o->host_unified) {
    /* Mapping is what makes the device's writes visible in host memory. */
    void *p = FRICL__CL(clEnqueueMapBuffer)(o->queue, mem, CL_TRUE, CL_MAP_READ,
                                            0, bytes, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS) {
      if (p != dst)
        memcpy(dst, p, bytes);
      err = clEnqueueUnmapMemObject(o->queue, mem, p, 0, NULL, NULL);
    }
  } else {
    err = FRICL__CL(clEnqueueReadBuffer)(o->queue, mem, CL_TRUE, 0, bytes, dst,
                                         0, NULL, NULL);
  }
  return err == CL_SUCCESS
             ? FRICL_STATUS_OK
             : fricl__fail_cl(o->base.ctx, err, "reading results back");
}

cl_mem fricl__ocl_upload(fricl__ocl *o, const void *host, size_t bytes,
                         cl_int *err) {
  if (!host || !bytes || *err != CL_SUCCESS)
    return NULL;
  fricl__ocl_moved(o, bytes, 0);
  return FRICL__CL(clCreateBuffer)(o->cl_ctx,
                                   CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   bytes, (void *)host, err);
}

void fricl__ocl_release(cl_mem m) {
  if (m)
    clReleaseMemObject(m);
}

fricl_status fricl__ocl_grow(fricl__ocl *o, cl_mem *buf, size_t *have,
                             size_t bytes, const char *what) {
  if (bytes <= *have)
    return FRICL_STATUS_OK;
  fricl__ocl_release(*buf);
  cl_int err = CL_SUCCESS;
  *buf = FRICL__CL(clCreateBuffer)(o->cl_ctx, CL_MEM_WRITE_ONLY, bytes, NULL,
                                   &err);
  if (err != CL_SUCCESS) {
    *buf = NULL;
    *have = 0;
    return fricl__fail_cl(o->base.ctx, err, what);
  }
  *have = bytes;
  return FRICL_STATUS_OK;
}

cl_int fricl__ocl_run_records(fricl__ocl *o, cl_kernel kern, size_t n,
                              cl_mem rec, size_t bytes, void *host) {
  cl_int err = fricl__ocl_launch(o, kern, n, 0, NULL, NULL);
  if (err == CL_SUCCESS) {
    err = FRICL__CL(clEnqueueReadBuffer)(o->queue, rec, CL_TRUE, 0, bytes, host,
                                         0, NULL, NULL);
    fricl__ocl_moved(o, 0, bytes);
  }
  return err;
}

fricl_status fricl__ocl_records_open(fricl__ocl *o, const void *const *vert,
                                     int n, size_t bytes, const char *what,
                                     fricl__ocl_records **out) {
  fricl__ocl_records *s = *out = fricl__calloc(1, sizeof *s);
  if (!s)
    return fricl__fail(o->base.ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "out of memory");
  s->o = o;
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n && i < FRICL__OCL_RECORDS_VERTEX_ARRAYS; ++i)
    s->vert[i] = fricl__ocl_upload(o, vert[i], bytes, &err);
  return err == CL_SUCCESS ? FRICL_STATUS_OK
                           : fricl__fail_cl(o->base.ctx, err, what);
}

void fricl__ocl_records_close(fricl__ocl_records *s) {
  if (!s)
    return;
  for (int i = 0; i < FRICL__OCL_RECORDS_VERTEX_ARRAYS; ++i)
    fricl__ocl_release(s->vert[i]);
  fricl__ocl_release(s->rec);
  free(s);
}

fricl_status fricl__ocl_records_begin(fricl__ocl_records *s, fricl_stencil type,
                                      fricl__ocl_make_kernel_fn make,
                                      const void *arg, size_t bytes,
                                      const char *what, cl_kernel *k) {
  if (!s->kernel[type]) {
    cl_kernel made = NULL;
    FRICL__TRY(make(s->o, arg, type, &made));
    s->kernel[type] = made;
  }
  *k = s->kernel[type];
  return fricl__ocl_grow(s->o, &s->rec, &s->rec_bytes, bytes, what);
}
