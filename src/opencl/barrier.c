/* barrier.c - the normal-contact barrier's per-contact records on an
 * OpenCL device (kernels/fricl_barrier.cl), chunk by chunk; the host adds
 * them into the global outputs (src/host/barrier_host_impl.h), so the
 * assembly is the host backends' whatever the device. The device's
 * results differ from the host's by the rounding of its log and sqrt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/barrier.h"
#include "core/fault.h"
#include "opencl/opencl.h"

#define REC 157

typedef struct ocl_barrier {
  fricl__ocl *o;
  cl_mem pos, rest, rec;
  size_t rec_bytes;
  cl_kernel kernel[FRICL_STENCIL_COUNT];
} ocl_barrier;

static const char *const headers[] = {
    "fricl_cl_compat.h", "fricl_distance_math.h", "fricl_eigen_math.h",
    "fricl_barrier_math.h", NULL};

static fricl_status make_kernel(ocl_barrier *s, fricl_precision p, int dim,
                                fricl_stencil type, cl_kernel *k) {
  char defines[512];
  const int off = fricl__ocl_precision_defines(defines, sizeof defines, p);
  snprintf(defines + off, sizeof defines - (size_t)off,
           "#define FRICL_SQRT sqrt\n#define FRICL_LOG log\n"
           "#define FRICL_DIM %d\n#define FRICL_STENCIL %d\n",
           dim, (int)type);
  return fricl__ocl_kernel(s->o, "fricl_barrier.cl", headers,
                           "fricl_barrier_records", defines, k, NULL);
}

static cl_mem make_buffer(ocl_barrier *s, const void *host, size_t bytes,
                          cl_int *err) {
  if (!host || !bytes)
    return NULL;
  fricl__ocl_moved(s->o, bytes, 0);
  return FRICL__CL(clCreateBuffer)(s->o->cl_ctx,
                                   CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   bytes, (void *)host, err);
}

static void release(cl_mem m) {
  if (m)
    clReleaseMemObject(m);
}

fricl_status fricl__ocl_barrier_open(fricl_context *ctx,
                                     const fricl_barrier_batch *b,
                                     void **state) {
  fricl__ocl *o = fricl__ocl_cast(ctx->dev);
  *state = NULL;
  if (!o)
    return fricl__fail(ctx, FRICL_STATUS_INTERNAL, "no OpenCL device");
  ocl_barrier *s = fricl__calloc(1, sizeof *s);
  if (!s)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  s->o = o;
  const size_t vb =
      b->n_vertices * (size_t)b->dim * fricl__elem_bytes(b->precision);
  cl_int err = CL_SUCCESS;
  s->pos = make_buffer(s, b->positions, vb, &err);
  if (err == CL_SUCCESS && b->rest_positions)
    s->rest = make_buffer(s, b->rest_positions, vb, &err);
  *state = s;
  if (err != CL_SUCCESS)
    return fricl__fail_cl(ctx, err, "clCreateBuffer (barrier positions)");
  return FRICL_STATUS_OK;
}

void fricl__ocl_barrier_close(void *state) {
  ocl_barrier *s = state;
  if (!s)
    return;
  release(s->pos);
  release(s->rest);
  release(s->rec);
  free(s);
}

fricl_status fricl__ocl_barrier_records(void *state,
                                        const fricl__barrier_work *w, size_t g,
                                        size_t lo, size_t n, void *rec) {
  ocl_barrier *s = state;
  const fricl_barrier_batch *b = w->b;
  const fricl_barrier_group *G = &b->groups[g];
  fricl_context *ctx = s->o->base.ctx;
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t k = (size_t)fricl_stencil_vertex_count(G->type);
  const size_t dim = (size_t)b->dim;
  cl_kernel kern = s->kernel[G->type];
  fricl_status st = FRICL_STATUS_OK;
  if (!kern) {
    st = make_kernel(s, b->precision, b->dim, G->type, &kern);
    if (st != FRICL_STATUS_OK)
      return st;
    s->kernel[G->type] = kern;
  }
  cl_int err = CL_SUCCESS;
  const size_t rb = n * REC * esz;
  if (rb > s->rec_bytes) {
    release(s->rec);
    s->rec = FRICL__CL(clCreateBuffer)(s->o->cl_ctx, CL_MEM_WRITE_ONLY, rb,
                                       NULL, &err);
    if (err != CL_SUCCESS) {
      s->rec = NULL;
      s->rec_bytes = 0;
      return fricl__fail_cl(ctx, err, "clCreateBuffer (barrier records)");
    }
    s->rec_bytes = rb;
  }
  const int pv = G->type == FRICL_STENCIL_PV;
  cl_mem ids =
      make_buffer(s, G->vertices + lo * k, n * k * sizeof(int32_t), &err);
  cl_mem wt = NULL, dm = NULL, pn = NULL, pc = NULL, dt = NULL;
  if (err == CL_SUCCESS && G->weight)
    wt = make_buffer(s, (const char *)G->weight + lo * esz, n * esz, &err);
  if (err == CL_SUCCESS && G->dmin)
    dm = make_buffer(s, (const char *)G->dmin + lo * esz, n * esz, &err);
  if (err == CL_SUCCESS && pv)
    pn = make_buffer(s, (const char *)G->plane_normal + lo * dim * esz,
                     n * dim * esz, &err);
  if (err == CL_SUCCESS && pv)
    pc =
        make_buffer(s, (const char *)G->plane_offset + lo * esz, n * esz, &err);
  if (err == CL_SUCCESS && G->distance_type)
    dt = make_buffer(s, G->distance_type + lo, n, &err);
  if (err != CL_SUCCESS) {
    st = fricl__fail_cl(ctx, err, "clCreateBuffer (barrier contacts)");
    goto done;
  }
  const cl_ulong nn = n;
  const cl_int psd = (cl_int)b->psd,
               physical = (b->flags & FRICL_BARRIER_FLAG_PHYSICAL) != 0,
               want = w->want,
               given = (G->weight ? 1 : 0) | (G->dmin ? 2 : 0) |
                       (G->distance_type ? 4 : 0) | (s->rest ? 8 : 0);
  const cl_mem bufs[9] = {s->pos, s->rest, ids, wt, dm, pn, pc, dt, s->rec};
  err = clSetKernelArg(kern, 0, sizeof nn, &nn);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(kern, 1, sizeof psd, &psd);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(kern, 2, sizeof physical, &physical);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(kern, 3, sizeof want, &want);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(kern, 4, sizeof given, &given);
  if (err == CL_SUCCESS)
    err = fricl__ocl_set_real(kern, 5, b->precision, b->dhat);
  if (err == CL_SUCCESS)
    err = fricl__ocl_set_real(kern, 6, b->precision, b->kappa);
  if (err == CL_SUCCESS)
    err = fricl__ocl_set_real(kern, 7, b->precision, b->dmin);
  for (cl_uint i = 0; i < 9 && err == CL_SUCCESS; ++i)
    err = clSetKernelArg(kern, 8 + i, sizeof(cl_mem), &bufs[i]);
  if (err == CL_SUCCESS) {
    const size_t global = n;
    err = FRICL__CL(clEnqueueNDRangeKernel)(s->o->queue, kern, 1, NULL, &global,
                                            NULL, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS) {
    err = FRICL__CL(clEnqueueReadBuffer)(s->o->queue, s->rec, CL_TRUE, 0, rb,
                                         rec, 0, NULL, NULL);
    fricl__ocl_moved(s->o, 0, rb);
  }
  if (err != CL_SUCCESS)
    st = fricl__fail_cl(ctx, err, "barrier kernel");
  {
    const cl_uint idx[9] = {8, 9, 10, 11, 12, 13, 14, 15, 16};
    fricl__kernel_unbind(kern, idx, 9);
  }
done:
  release(ids);
  release(wt);
  release(dm);
  release(pn);
  release(pc);
  release(dt);
  return st;
}
