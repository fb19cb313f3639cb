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

/* The state: a fricl__ocl_records of these per-vertex arrays. */
enum { REST, DISP, VEL };

static const char *const headers[] = {"fricl_cl_compat.h",
                                      "fricl_scalar_math.h",
                                      "fricl_tangential_codes.h",
                                      "fricl_tangential_adhesion_math.h",
                                      "fricl_tangential_math.h",
                                      "fricl_distance_math.h",
                                      "fricl_geometry_math.h",
                                      "fricl_force_math.h",
                                      NULL};

/* The kernel's FRICL_WRT: 0 no Jacobian, 2 with respect to the
 * velocities, 1 to the positions. */
static int wrt_of(const fricl__force_work *w) {
  return !w->want_jac ? 0 : w->b->wrt == FRICL_FORCE_WRT_VELOCITIES ? 2 : 1;
}

/* The records kernel of `type` for the work `arg` (a
 * fricl__ocl_make_kernel_fn). */
static fricl_status make_kernel(fricl__ocl *o, const void *arg,
                                fricl_stencil type, cl_kernel *k) {
  const fricl__force_work *w = arg;
  const int dim = w->b->dim, wrt = wrt_of(w);
  char defines[512];
  const int off =
      fricl__ocl_precision_defines(defines, sizeof defines, w->b->precision);
  snprintf(defines + off, sizeof defines - (size_t)off,
           "#define FRICL_SQRT sqrt\n#define FRICL_LOG log\n"
           "#define FRICL_FABS fabs\n#define FRICL_FORCE_OUT __global\n"
           "#define FRICL_DIM %d\n#define FRICL_STENCIL %d\n"
           "#define FRICL_WRT %d\n",
           dim, (int)type, wrt);
  return fricl__ocl_kernel(o, "fricl_force.cl", headers, "fricl_force_records",
                           defines, k, NULL);
}

/* The records of contacts lo .. lo + n of group g (a fricl__force_source). */
static fricl_status records(void *state, const fricl__force_work *w, size_t g,
                            size_t lo, size_t n, void *rec) {
  fricl__ocl_records *s = state;
  const fricl_force_batch *b = w->b;
  const fricl_force_group *G = &b->groups[g];
  fricl_context *ctx = s->o->base.ctx;
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t k = (size_t)fricl__stencil_vertex_count(G->type);
  const size_t dim = (size_t)b->dim;
  const size_t rb = n * REC * esz;
  cl_kernel kern = NULL;
  FRICL__TRY(fricl__ocl_records_begin(s, G->type, make_kernel, w, rb,
                                      "clCreateBuffer (force records)", &kern));
  fricl_status st = FRICL_STATUS_OK;
  cl_int err = CL_SUCCESS;
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
  cl_mem pn, pc;
  fricl__ocl_upload_plane(s->o, G->type, G->plane_normal, G->plane_offset, lo,
                          n, dim, esz, &pn, &pc, &err);
  if (err != CL_SUCCESS) {
    st = fricl__fail_cl(ctx, err, "clCreateBuffer (force contacts)");
    goto done;
  }
  {
    const cl_mem bufs[10] = {s->vert[REST],
                             s->vert[DISP],
                             s->vert[VEL],
                             ids,
                             wt,
                             ms,
                             mk,
                             an,
                             pn,
                             pc};
    const cl_int has =
        (G->weight ? 1 : 0) | (G->mu_aniso ? 2 : 0) | (s->vert[REST] ? 4 : 0);
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
  const void *const vert[] = {[REST] = b->rest_positions,
                              [DISP] = b->lagged_displacements,
                              [VEL] = b->velocities};
  fricl__ocl_records *s = NULL;
  fricl_status st = fricl__ocl_records_open(
      o, vert, 3,
      b->n_vertices * (size_t)b->dim * fricl__elem_bytes(b->precision),
      "clCreateBuffer (force positions)", &s);
  if (st == FRICL_STATUS_OK) {
    const fricl__force_source src = {records, s};
    st = fricl__force_host(ctx, w, 0, &src);
  }
  fricl__ocl_records_close(s);
  return st;
}
