/* bench_build_cl.c - the lagged build's device tier in `fricl bench` (see
 * bench_ocl.h): the batch's arrays uploaded once, then the build kernels
 * launched on them through the backend's internal launch (no host
 * transfers in the timing). Handles what the benchmark's scene uses: 3-D,
 * per-vertex mu, rest positions, every output. Compiled only with
 * FRICL_WITH_OPENCL. */
#include "bench_ocl.h"

#include <stdlib.h>
#include <string.h>

#include "opencl/build_launch.h"

#define MAX_GROUPS 8
#define NOUT 8 /* beta, P, N, dN/dx, w, mu_s, mu_k, status */

struct bench_build_dev {
  fricl_context *ctx;
  fricl__ocl *o;
  const fricl_build_batch *b;
  size_t esz;
  cl_mem X, R, vms, vmk;
  cl_mem vx[MAX_GROUPS];
  cl_mem out[MAX_GROUPS][NOUT];
};

static int fail_cl(cl_int err, const char *what) {
  fprintf(stderr, "fricl bench (build): %s: %s (%d)\n", what,
          fricl__cl_error_name(err), (int)err);
  return 1;
}

static int dev_buf(bench_build_dev *d, const void *src, size_t bytes,
                   cl_mem *out) {
  cl_int err = CL_SUCCESS;
  *out = clCreateBuffer(d->o->cl_ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1,
                        NULL, &err);
  if (err != CL_SUCCESS) {
    *out = NULL;
    return fail_cl(err, "clCreateBuffer");
  }
  if (src && bytes) {
    err = clEnqueueWriteBuffer(d->o->queue, *out, CL_TRUE, 0, bytes, src, 0,
                               NULL, NULL);
    if (err != CL_SUCCESS)
      return fail_cl(err, "clEnqueueWriteBuffer");
  }
  return 0;
}

void bench_build_dev_close(bench_build_dev *d) {
  if (!d)
    return;
  if (d->o)
    clFinish(d->o->queue);
  cl_mem v[4] = {d->X, d->R, d->vms, d->vmk};
  for (int i = 0; i < 4; ++i)
    if (v[i])
      clReleaseMemObject(v[i]);
  for (int g = 0; g < MAX_GROUPS; ++g) {
    if (d->vx[g])
      clReleaseMemObject(d->vx[g]);
    for (int i = 0; i < NOUT; ++i)
      if (d->out[g][i])
        clReleaseMemObject(d->out[g][i]);
  }
  free(d);
}

int bench_build_dev_open(fricl_context *ctx, const fricl_build_batch *b,
                         bench_build_dev **out) {
  *out = NULL;
  if (b->n_groups > MAX_GROUPS || b->dim != 3 || !b->vertex_mu_s ||
      !b->vertex_mu_k || !b->rest_positions) {
    fprintf(stderr, "fricl bench (build): device tier: unsupported batch\n");
    return 1;
  }
  bench_build_dev *d = calloc(1, sizeof *d);
  if (!d) {
    fprintf(stderr, "fricl bench (build): out of memory\n");
    return 1;
  }
  d->ctx = ctx;
  d->b = b;
  d->esz = fricl__elem_bytes(b->precision);
  const fricl_status st = fricl__ocl_of(ctx, "fricl bench", &d->o);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench (build): %s\n", fricl_context_last_error(ctx));
    free(d);
    return 1;
  }
  const size_t es = d->esz, nv = b->n_vertices;
  int bad = dev_buf(d, b->lagged_positions, nv * 3 * es, &d->X) ||
            dev_buf(d, b->rest_positions, nv * 3 * es, &d->R) ||
            dev_buf(d, b->vertex_mu_s, nv * es, &d->vms) ||
            dev_buf(d, b->vertex_mu_k, nv * es, &d->vmk);
  for (size_t g = 0; g < b->n_groups && !bad; ++g) {
    const fricl_build_group *G = &b->groups[g];
    const size_t n = G->count;
    const size_t k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t nb = (size_t)fricl_stencil_coord_count(G->type);
    bad = dev_buf(d, G->vertices, n * k * 4, &d->vx[g]);
    const size_t per[NOUT] = {nb * es, 6 * es, es, k * 3 * es, es, es, es, 1};
    for (int i = 0; i < NOUT && !bad; ++i)
      if (i > 0 || nb)
        bad = dev_buf(d, NULL, n * per[i], &d->out[g][i]);
  }
  if (bad) {
    bench_build_dev_close(d);
    return 1;
  }
  *out = d;
  return 0;
}

int bench_build_dev_run(void *arg, int count) {
  bench_build_dev *d = arg;
  const fricl_build_batch *b = d->b;
  for (int it = 0; it < count; ++it)
    for (size_t g = 0; g < b->n_groups; ++g) {
      fricl__build_launch l;
      memset(&l, 0, sizeof l);
      l.precision = b->precision;
      l.dim = 3;
      l.type = b->groups[g].type;
      l.blend = (int)b->blend;
      l.mus_mode = l.muk_mode = FRICL__MU_VERTEX;
      l.X = d->X;
      l.Xrest = d->R;
      l.vmus = d->vms;
      l.vmuk = d->vmk;
      l.vert = d->vx[g];
      l.beta = d->out[g][0];
      l.P = d->out[g][1];
      l.N = d->out[g][2];
      l.gN = d->out[g][3];
      l.wout = d->out[g][4];
      l.musout = d->out[g][5];
      l.mukout = d->out[g][6];
      l.status = d->out[g][7];
      l.kappa = b->kappa;
      l.dhat = b->dhat;
      l.dmin_s = b->dmin;
      l.c0 = 0;
      l.n = b->groups[g].count;
      const fricl_status st = fricl__build_enqueue(d->o, &l);
      if (st != FRICL_STATUS_OK) {
        clFinish(d->o->queue);
        fprintf(stderr, "fricl bench (build): build kernel: %s: %s\n",
                fricl_status_string(st), fricl_context_last_error(d->ctx));
        return 1;
      }
    }
  const cl_int err = clFinish(d->o->queue);
  return err == CL_SUCCESS ? 0 : fail_cl(err, "clFinish");
}

/* Read `bytes` of device buffer m and compare them with host array h. */
static int differs(bench_build_dev *d, cl_mem m, const void *h, size_t bytes,
                   long *mismatches) {
  if (!m || !h || !bytes)
    return 0;
  void *tmp = malloc(bytes);
  if (!tmp) {
    fprintf(stderr, "fricl bench (build): out of memory\n");
    return 1;
  }
  const cl_int err = clEnqueueReadBuffer(d->o->queue, m, CL_TRUE, 0, bytes, tmp,
                                         0, NULL, NULL);
  if (err == CL_SUCCESS)
    *mismatches += memcmp(tmp, h, bytes) != 0;
  free(tmp);
  return err == CL_SUCCESS ? 0 : fail_cl(err, "clEnqueueReadBuffer");
}

int bench_build_dev_mismatches(bench_build_dev *d, const fricl_build_batch *b,
                               long *mismatches) {
  *mismatches = 0;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_build_group *G = &b->groups[g];
    const size_t n = G->count;
    const size_t nb = (size_t)fricl_stencil_coord_count(G->type);
    if (differs(d, d->out[g][7], G->status, n, mismatches) ||
        differs(d, d->out[g][1], G->tangent_basis, n * 6 * d->esz,
                mismatches) ||
        differs(d, d->out[g][0], G->closest_point, n * nb * d->esz, mismatches))
      return 1;
  }
  return 0;
}
