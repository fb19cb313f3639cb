/* force.c - the friction force on an OpenCL device
 * (kernels/fricl_force.cl): the per-contact records (N, local force, local
 * Jacobian) chunk by chunk on the device; the host adds them into the
 * global outputs in contact order (src/core/force_pass_impl.h), so the
 * assembly is the host backends' whatever the device. The device's
 * results differ from the host's by the rounding of its log and sqrt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/force.h"
#include "opencl/opencl.h"

#define REC 157

typedef struct ocl_force {
  fricl__ocl *o;
  cl_mem rest, disp, vel, rec;
  size_t rec_bytes;
  cl_kernel kernel[FRICL_STENCIL_COUNT];
} ocl_force;

static const char *const headers[] = {"fricl_cl_compat.h",
                                      "fricl_scalar_math.h",
                                      "fricl_tangential_codes.h",
                                      "fricl_tangential_adhesion_math.h",
                                      "fricl_tangential_math.h",
                                      "fricl_distance_math.h",
                                      "fricl_geometry_math.h",
                                      "fricl_force_math.h",
                                      NULL};

static fricl_status make_kernel(ocl_force *s, fricl_precision p, int dim,
                                fricl_stencil type, int wrt, cl_kernel *k) {
  char defines[512];
  const int off = fricl__ocl_precision_defines(defines, sizeof defines, p);
  snprintf(defines + off, sizeof defines - (size_t)off,
           "#define FRICL_SQRT sqrt\n#define FRICL_LOG log\n"
           "#define FRICL_FABS fabs\n#define FRICL_FORCE_OUT __global\n"
           "#define FRICL_DIM %d\n#define FRICL_STENCIL %d\n"
           "#define FRICL_WRT %d\n",
           dim, (int)type, wrt);
  return fricl__ocl_kernel(s->o, "fricl_force.cl", headers,
                           "fricl_force_records", defines, k, NULL);
}

static void close_state(ocl_force *s) {
  if (!s)
    return;
  fricl__ocl_release(s->rest);
  fricl__ocl_release(s->disp);
  fricl__ocl_release(s->vel);
  fricl__ocl_release(s->rec);
  free(s);
}

/* The records of contacts lo .. lo + n of group g (a fricl__force_source). */
static fricl_status records(void *state, const fricl__force_work *w, size_t g,
                            size_t lo, size_t n, void *rec) {
  ocl_force *s = state;
  const fricl_force_batch *b = w->b;
  const fricl_force_group *G = &b->groups[g];
  fricl_context *ctx = s->o->base.ctx;
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t k = (size_t)fricl__stencil_vertex_count(G->type);
  const size_t dim = (size_t)b->dim;
  const int wrt = !w->want_jac                           ? 0
                  : b->wrt == FRICL_FORCE_WRT_VELOCITIES ? 2
                                                         : 1;
  cl_kernel kern = s->kernel[G->type];
  if (!kern) {
    FRICL__TRY(make_kernel(s, b->precision, b->dim, G->type, wrt, &kern));
    s->kernel[G->type] = kern;
  }
  const size_t rb = n * REC * esz;
  FRICL__TRY(fricl__ocl_grow(s->o, &s->rec, &s->rec_bytes, rb,
                             "clCreateBuffer (force records)"));
  fricl_status st = FRICL_STATUS_OK;
  cl_int err = CL_SUCCESS;
  const int pv = G->type == FRICL_STENCIL_PV;
  const int no_mu = (b->flags & FRICL_FORCE_FLAG_NO_MU) != 0;
  cl_mem ids = fricl__ocl_upload_rows(s->o, G->vertices, lo, n,
                                      k * sizeof(int32_t), &err);
  cl_mem wt = fricl__ocl_upload_rows(s->o, G->weight, lo, n, esz, &err);
  cl_mem ms =
      no_mu ? NULL : fricl__ocl_upload_rows(s->o, G->mu_s, lo, n, esz, &err);
  cl_mem mk =
      no_mu ? NULL : fricl__ocl_upload_rows(s->o, G->mu_k, lo, n, esz, &err);
  cl_mem an =
      fricl__ocl_upload_rows(s->o, G->mu_aniso, lo, n, (dim - 1) * esz, &err);
  cl_mem pn =
      pv ? fricl__ocl_upload_rows(s->o, G->plane_normal, lo, n, dim * esz, &err)
         : NULL;
  cl_mem pc =
      pv ? fricl__ocl_upload_rows(s->o, G->plane_offset, lo, n, esz, &err)
         : NULL;
  if (err != CL_SUCCESS) {
    st = fricl__fail_cl(ctx, err, "clCreateBuffer (force contacts)");
    goto done;
  }
  {
    const cl_mem bufs[10] = {s->rest, s->disp, s->vel, ids, wt,
                             ms,      mk,      an,     pn,  pc};
    const cl_int has =
        (G->weight ? 1 : 0) | (G->mu_aniso ? 2 : 0) | (s->rest ? 4 : 0);
    const cl_int physical = (b->flags & FRICL_FORCE_FLAG_PHYSICAL_BARRIER) != 0;
    const cl_int profile = (cl_int)b->mu_profile, nomu = no_mu, nn = (cl_int)n;
    const cl_int ints[4] = {has, nomu, physical, profile};
    const double reals[4] = {b->eps_v, b->kappa, b->dhat, b->dmin};
    err = fricl__ocl_args_mem(kern, 0, bufs, 10, err);
    err = fricl__ocl_args_int(kern, 10, ints, 4, err);
    err = fricl__ocl_args_real(kern, 14, b->precision, reals, 4, err);
    err = fricl__ocl_args_int(kern, 18, &nn, 1, err);
    err = fricl__ocl_args_mem(kern, 19, &s->rec, 1, err);
    if (err == CL_SUCCESS)
      err = fricl__ocl_run_records(s->o, kern, n, s->rec, rb, rec);
    if (err != CL_SUCCESS)
      st = fricl__fail_cl(ctx, err, "force kernel");
    const cl_uint idx[11] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 19};
    fricl__kernel_unbind(kern, idx, 11);
  }
done:
  fricl__ocl_release(ids);
  fricl__ocl_release(wt);
  fricl__ocl_release(ms);
  fricl__ocl_release(mk);
  fricl__ocl_release(an);
  fricl__ocl_release(pn);
  fricl__ocl_release(pc);
  return st;
}

fricl_status fricl__ocl_force(fricl__backend *be, const fricl__force_work *w) {
  fricl__ocl *o = (fricl__ocl *)be;
  fricl_context *ctx = be->ctx;
  const fricl_force_batch *b = w->b;
  if (!w->total || b->n_vertices > (size_t)INT32_MAX / 3)
    return fricl__force_host(ctx, w, 0, NULL);
  ocl_force *s = fricl__calloc(1, sizeof *s);
  if (!s)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  s->o = o;
  const size_t vb =
      b->n_vertices * (size_t)b->dim * fricl__elem_bytes(b->precision);
  cl_int err = CL_SUCCESS;
  s->rest = fricl__ocl_upload(s->o, b->rest_positions, vb, &err);
  s->disp = fricl__ocl_upload(s->o, b->lagged_displacements, vb, &err);
  s->vel = fricl__ocl_upload(s->o, b->velocities, vb, &err);
  fricl_status st = FRICL_STATUS_OK;
  if (err != CL_SUCCESS) {
    st = fricl__fail_cl(ctx, err, "clCreateBuffer (force positions)");
  } else {
    const fricl__force_source src = {records, s};
    st = fricl__force_host(ctx, w, 0, &src);
  }
  close_state(s);
  return st;
}
