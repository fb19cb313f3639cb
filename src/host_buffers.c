/* host_buffers.c - buffers over the caller's host arrays, for the host
 * tiers of the OpenCL backends: wrapped in place on unified-memory devices
 * (zero copy), device buffers elsewhere; and reading outputs back. */
#include <string.h>

#include "fault.h"
#include "internal.h"

fricl_status fricl__zero_fill(fricl_context *ctx, cl_mem mem, size_t bytes) {
  /* One blocking write per block of zeros (not clEnqueueFillBuffer, which
   * oclgrind records as pattern-sized stores), from a calloc'ed block the
   * host gets as untouched zero pages. */
  enum { BLOCK = 64 << 20 };
  const size_t block = bytes < BLOCK ? bytes : BLOCK;
  void *zeros = block ? fricl__calloc(1, block) : NULL;
  if (block && !zeros)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "zeroing a device buffer of %zu bytes", bytes);
  cl_int err = CL_SUCCESS;
  for (size_t off = 0; off < bytes && err == CL_SUCCESS; off += block) {
    const size_t n = bytes - off < block ? bytes - off : block;
    err = FRICL__CL(clEnqueueWriteBuffer)(ctx->queue, mem, CL_TRUE, off, n,
                                          zeros, 0, NULL, NULL);
  }
  free(zeros);
  return err == CL_SUCCESS ? FRICL_STATUS_OK
                           : fricl__fail_cl(ctx, err, "zeroing a buffer");
}

fricl_status fricl__host_buffer(fricl_context *ctx, const void *ptr,
                                size_t bytes, fricl__host_access access,
                                cl_mem *mem) {
  *mem = NULL;
  if (!ptr || !bytes)
    return FRICL_STATUS_OK;
  if ((cl_ulong)bytes > ctx->max_alloc_bytes)
    return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                       "an array of %zu bytes exceeds the device's maximum "
                       "allocation (%llu bytes) and this array is not "
                       "chunked",
                       bytes, (unsigned long long)ctx->max_alloc_bytes);
  cl_mem_flags f = access == FRICL__HOST_IN    ? CL_MEM_READ_ONLY
                   : access == FRICL__HOST_OUT ? CL_MEM_WRITE_ONLY
                                               : CL_MEM_READ_WRITE;
  /* Inputs are copied in at creation; outputs are written by the device
   * and read back with fricl__host_read_back. */
  if (ctx->host_unified)
    f |= CL_MEM_USE_HOST_PTR;
  else if (access == FRICL__HOST_IN)
    f |= CL_MEM_COPY_HOST_PTR;
  cl_int err = CL_SUCCESS;
  *mem = FRICL__CL(clCreateBuffer)(
      ctx->cl_ctx, f, bytes,
      (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))
          ? (void *)(uintptr_t)ptr
          : NULL,
      &err);
  if (err != CL_SUCCESS) {
    *mem = NULL;
    return fricl__fail_cl(ctx, err, "clCreateBuffer");
  }
  return FRICL_STATUS_OK;
}

fricl_status fricl__host_read_back(fricl_context *ctx, cl_mem mem, void *dst,
                                   size_t bytes) {
  if (!mem || !bytes)
    return FRICL_STATUS_OK;
  cl_int err;
  if (ctx->host_unified) {
    /* Mapping is what makes the device's writes visible in host memory. */
    void *p = FRICL__CL(clEnqueueMapBuffer)(
        ctx->queue, mem, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS) {
      if (p != dst)
        memcpy(dst, p, bytes);
      err = clEnqueueUnmapMemObject(ctx->queue, mem, p, 0, NULL, NULL);
    }
  } else {
    err = FRICL__CL(clEnqueueReadBuffer)(ctx->queue, mem, CL_TRUE, 0, bytes,
                                         dst, 0, NULL, NULL);
  }
  return err == CL_SUCCESS ? FRICL_STATUS_OK
                           : fricl__fail_cl(ctx, err, "reading results back");
}
