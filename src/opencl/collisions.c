/* collisions.c - the collision build's narrow phase on an OpenCL device
 * (kernels/fricl_collisions.cl): every broad-phase candidate's distance
 * type, -1 when inactive, f64, the same bits as the host's
 * (kernels/fricl_collision_narrow_math.h with contraction off on both).
 * The positions and the topology are uploaded once per call, each type's
 * candidates by one launch; core turns the results into the set. */
#include <limits.h>
#include <stdio.h>

#include "core/collisions.h"
#include "opencl/opencl.h"

static const char *const headers[] = {"fricl_cl_compat.h",
                                      "fricl_distance_math.h",
                                      "fricl_collision_narrow_math.h", NULL};

static fricl_status kernel_of(fricl__ocl *o, int dim, int type, cl_kernel *k) {
  char defines[256];
  snprintf(defines, sizeof defines,
           "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
           "#define FRICL_REAL double\n"
           "#define FRICL_FN(name) fricl__cn_##name\n"
           "#define FRICL_SQRT sqrt\n#define FRICL_DIM %d\n"
           "#define FRICL_CN_TYPE %d\n",
           dim, type);
  return fricl__ocl_kernel(o, "fricl_collisions.cl", headers,
                           "fricl_collisions_narrow", defines, k, NULL);
}

/* One type's candidates: pairs in, types out (blocking read). */
static fricl_status run_type(fricl__ocl *o, const fricl__narrow_work *w, int t,
                             cl_mem x, cl_mem topo) {
  fricl_context *ctx = o->base.ctx;
  const size_t n = w->n[t];
  cl_kernel k = NULL;
  FRICL__TRY(kernel_of(o, w->dim, t, &k));
  cl_int err = CL_SUCCESS;
  cl_mem pairs =
      fricl__ocl_upload(o, w->pairs[t], 2 * n * sizeof(int32_t), &err);
  cl_mem out = err == CL_SUCCESS
                   ? FRICL__CL(clCreateBuffer)(o->cl_ctx, CL_MEM_WRITE_ONLY, n,
                                               NULL, &err)
                   : NULL;
  if (err != CL_SUCCESS) {
    fricl__ocl_release(pairs);
    fricl__ocl_release(out);
    return fricl__fail_cl(ctx, err, "clCreateBuffer (collision candidates)");
  }
  const cl_mem in[3] = {pairs, topo, x};
  const cl_int nn = (cl_int)n;
  const double thr[2] = {w->active, w->apart};
  err = fricl__ocl_args_mem(k, 0, in, 3, err);
  err = fricl__ocl_args_real(k, 3, FRICL_F64, thr, 2, err);
  err = fricl__ocl_args_int(k, 5, &nn, 1, err);
  err = fricl__ocl_args_mem(k, 6, &out, 1, err);
  if (err == CL_SUCCESS)
    err = fricl__ocl_run_records(o, k, n, out, n, w->type[t]);
  const cl_uint idx[4] = {0, 1, 2, 6};
  fricl__kernel_unbind(k, idx, 4);
  fricl__ocl_release(pairs);
  fricl__ocl_release(out);
  return err == CL_SUCCESS
             ? FRICL_STATUS_OK
             : fricl__fail_cl(ctx, err, "collision narrow-phase kernel");
}

fricl_status fricl__ocl_collisions_narrow(fricl__backend *be,
                                          const fricl__narrow_work *w) {
  fricl__ocl *o = (fricl__ocl *)be;
  fricl_context *ctx = be->ctx;
  const fricl_collision_mesh *m = w->mesh;
  /* Beyond int indices or one allocation: the host's threads. */
  const size_t xb = m->nv * (size_t)m->dim * sizeof(double);
  int fits = m->nv * (size_t)m->dim <= (size_t)INT_MAX &&
             3 * m->nf <= (size_t)INT_MAX && 2 * m->ne <= (size_t)INT_MAX &&
             (!o->max_alloc_bytes || xb <= o->max_alloc_bytes);
  for (int t = 0; t < 4; ++t)
    fits = fits && w->n[t] <= (size_t)INT_MAX / 2 &&
           (!o->max_alloc_bytes ||
            2 * w->n[t] * sizeof(int32_t) <= o->max_alloc_bytes);
  if (!fits)
    return fricl__collisions_narrow_host(ctx, w);
  if (!w->total)
    return FRICL_STATUS_OK;
  cl_int err = CL_SUCCESS;
  cl_mem x = fricl__ocl_upload(o, w->x, xb, &err);
  cl_mem edges =
      w->n[1] || w->n[2]
          ? fricl__ocl_upload(o, m->edges, 2 * m->ne * sizeof(int32_t), &err)
          : NULL;
  cl_mem faces = w->n[3] ? fricl__ocl_upload(o, m->faces,
                                             3 * m->nf * sizeof(int32_t), &err)
                         : NULL;
  fricl_status st =
      err == CL_SUCCESS
          ? FRICL_STATUS_OK
          : fricl__fail_cl(ctx, err, "clCreateBuffer (collision positions)");
  for (int t = 0; st == FRICL_STATUS_OK && t < 4; ++t)
    if (w->n[t])
      st = run_type(o, w, t, x, t == 3 ? faces : edges);
  fricl__ocl_release(x);
  fricl__ocl_release(edges);
  fricl__ocl_release(faces);
  return st;
}
