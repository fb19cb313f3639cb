/* tangential_device.c - see tangential_device.h. */
#include "tangential_device.h"

#if !FRICL_WITH_OPENCL /* no OpenCL: --build always runs on the host */

int tangential_device_wanted(fricl_context *ctx, const char *device_arg) {
  (void)ctx;
  (void)device_arg;
  return 0;
}

fricl_status tangential_device_run(fricl_context *ctx, build_input *b,
                                   fricl_mu_blend blend, int physical_barrier,
                                   const fricl_tangential_batch *eval) {
  (void)ctx;
  (void)b;
  (void)blend;
  (void)physical_barrier;
  (void)eval;
  return FRICL_STATUS_UNSUPPORTED;
}

#else

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricl/fricl_build.h"
#include "fricl/fricl_cl.h"

int tangential_device_wanted(fricl_context *ctx, const char *device_arg) {
  if (fricl_context_backend(ctx) != FRICL_BACKEND_OPENCL)
    return 0;
  const char *spec = device_arg ? device_arg : getenv("FRICL_DEVICE");
  if (spec && *spec && strcmp(spec, "auto") != 0)
    return 1;
  /* auto sends large calls to a GPU only (docs/devices.md, "Devices and
   * fallbacks"). */
  cl_device_id dev = NULL;
  cl_device_type type = 0;
  return fricl_context_get_cl(ctx, NULL, &dev, NULL) == FRICL_STATUS_OK &&
         clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL) ==
             CL_SUCCESS &&
         (type & CL_DEVICE_TYPE_GPU);
}

/* Every buffer of the run, released at the end, and the outputs among
 * them with the host arrays they are read back into. */
typedef struct {
  cl_mem mem;
  void *host;
  size_t bytes;
} dev_output;

typedef struct {
  cl_context cc;
  cl_command_queue q;
  cl_mem mem[512];
  int n;
  dev_output outputs[512]; /* at most one per buffer */
  int n_outputs;
  cl_int err;
} dev_mem;

static cl_mem alloc(dev_mem *d, size_t bytes) {
  if (d->err != CL_SUCCESS || d->n == (int)(sizeof d->mem / sizeof *d->mem)) {
    d->err = d->err != CL_SUCCESS ? d->err : CL_OUT_OF_RESOURCES;
    return NULL;
  }
  cl_mem m = clCreateBuffer(d->cc, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL,
                            &d->err);
  if (d->err != CL_SUCCESS)
    return NULL;
  d->mem[d->n++] = m;
  return m;
}

/* A device copy of a host array (NULL stays NULL). */
static fricl_buffer_cl up(dev_mem *d, const void *src, size_t bytes) {
  fricl_buffer_cl b = {NULL, 0};
  if (!src)
    return b;
  b.mem = alloc(d, bytes);
  if (b.mem && bytes)
    d->err = clEnqueueWriteBuffer(d->q, b.mem, CL_FALSE, 0, bytes, src, 0, NULL,
                                  NULL);
  return b;
}

/* A device output for a host array (none when the host array is NULL),
 * read back into it by read_back. */
static fricl_buffer_cl out(dev_mem *d, void *host, size_t bytes) {
  fricl_buffer_cl b = {NULL, 0};
  if (host && (b.mem = alloc(d, bytes)) && bytes) {
    const dev_output o = {b.mem, host, bytes};
    d->outputs[d->n_outputs++] = o;
  }
  return b;
}

/* Every output into its host array, in the order they were made. */
static void read_back(dev_mem *d) {
  for (int i = 0; i < d->n_outputs && d->err == CL_SUCCESS; ++i) {
    const dev_output *o = &d->outputs[i];
    d->err = clEnqueueReadBuffer(d->q, o->mem, CL_FALSE, 0, o->bytes, o->host,
                                 0, NULL, NULL);
  }
}

/* The report fricl_build would have filled, from the statuses. */
static void report(build_input *b) {
  fricl_build_report *r = &b->report;
  fricl_build_report_init(r);
  for (int s = 0; s < FRICL_BUILD_STATUS_COUNT; ++s)
    r->first_group[s] = r->first_contact[s] = SIZE_MAX;
  size_t gi = 0;
  for (int t = 0; t < BUILD_N_TYPES; ++t) {
    const build_type *g = &b->g[t];
    if (!g->present)
      continue;
    for (size_t c = 0; c < g->m; ++c) {
      const unsigned s = g->status[c];
      if (s >= FRICL_BUILD_STATUS_COUNT)
        continue;
      if (!r->count[s]) {
        r->first_group[s] = gi;
        r->first_contact[s] = c;
      }
      ++r->count[s];
      r->no_force += s != FRICL_BUILD_OK;
    }
    r->total += g->m;
    ++gi;
  }
}

fricl_status tangential_device_run(fricl_context *ctx, build_input *b,
                                   fricl_mu_blend blend, int physical_barrier,
                                   const fricl_tangential_batch *eval) {
  fricl_build_batch hb;
  fricl_build_group hg[BUILD_N_TYPES];
  build_input_batch(b, blend, physical_barrier, &hb, hg);
  /* The same checks, and messages, as the host path. */
  fricl_status st = fricl_build_validate(ctx, &hb);
  if (st != FRICL_STATUS_OK)
    return st;
  dev_mem *d = calloc(1, sizeof *d);
  if (!d)
    return FRICL_STATUS_OUT_OF_MEMORY;
  if (fricl_context_get_cl(ctx, &d->cc, NULL, &d->q) != FRICL_STATUS_OK) {
    free(d);
    return FRICL_STATUS_UNSUPPORTED;
  }
  const size_t esz = b->precision == FRICL_F32 ? sizeof(float) : sizeof(double);
  const size_t dim = (size_t)b->dim, m1 = dim - 1, nv = b->n;
  /* The build on the device. */
  fricl_build_batch_cl db;
  fricl_build_batch_cl_init(&db);
  db.precision = hb.precision;
  db.dim = hb.dim;
  db.flags = hb.flags;
  db.n_vertices = nv;
  db.lagged_positions = up(d, hb.lagged_positions, nv * dim * esz);
  db.rest_positions = up(d, hb.rest_positions, nv * dim * esz);
  db.kappa = hb.kappa;
  db.dhat = hb.dhat;
  db.dmin = hb.dmin;
  db.mu_s = hb.mu_s;
  db.mu_k = hb.mu_k;
  db.vertex_mu_s = up(d, hb.vertex_mu_s, nv * esz);
  db.vertex_mu_k = up(d, hb.vertex_mu_k, nv * esz);
  db.blend = hb.blend;
  db.n_groups = hb.n_groups;
  fricl_build_group_cl dg[BUILD_N_TYPES];
  fricl_contact_group_cl eg[BUILD_N_TYPES];
  memset(dg, 0, sizeof dg);
  memset(eg, 0, sizeof eg);
  db.groups = dg;
  for (size_t i = 0; i < hb.n_groups; ++i) {
    const fricl_build_group *G = &hg[i];
    const fricl_contact_group *E = &eval->groups[i];
    const size_t n = G->count, k = (size_t)fricl_stencil_vertex_count(G->type),
                 nb = (size_t)fricl_stencil_coord_count(G->type), nd = k * dim;
    fricl_build_group_cl *D = &dg[i];
    D->type = G->type;
    D->count = n;
    D->vertices = up(d, G->vertices, n * k * sizeof(int32_t));
    D->plane_normal = up(d, G->plane_normal, n * dim * esz);
    D->plane_offset = up(d, G->plane_offset, n * esz);
    D->dmin = up(d, G->dmin, n * esz);
    D->weight = up(d, G->weight, n * esz);
    D->mu_s = up(d, G->mu_s, n * esz);
    D->mu_k = up(d, G->mu_k, n * esz);
    D->closest_point = out(d, G->closest_point, n * nb * esz);
    D->tangent_basis = out(d, G->tangent_basis, n * dim * m1 * esz);
    D->normal_force = out(d, G->normal_force, n * esz);
    D->weight_out = out(d, G->weight_out, n * esz);
    D->mu_s_out = out(d, G->mu_s_out, n * esz);
    D->mu_k_out = out(d, G->mu_k_out, n * esz);
    D->status = out(d, G->status, n);
    /* The evaluation reads the build's outputs where they are. */
    fricl_contact_group_cl *C = &eg[i];
    C->type = E->type;
    C->count = E->count;
    C->vertices = D->vertices;
    C->closest_point = D->closest_point;
    C->tangent_basis = D->tangent_basis;
    C->normal_force = D->normal_force;
    C->weight = D->weight_out;
    C->mu_s = D->mu_s_out;
    C->mu_k = D->mu_k_out;
    C->mu_aniso = up(d, E->mu_aniso, n * m1 * esz);
    C->potential = out(d, E->potential, n * esz);
    C->local_hessian = out(d, E->local_hessian, n * nd * nd * esz);
    C->factored_gamma = out(d, E->factored_gamma, n * k * esz);
    C->factored_grad = out(d, E->factored_grad, n * dim * esz);
    C->factored_hessian =
        out(d, E->factored_hessian, n * (dim * (dim + 1) / 2) * esz);
  }
  /* The plan: the caller's, or one for the gradient's gathers. */
  fricl_tangential_plan *own = NULL;
  const fricl_tangential_plan *plan = eval->plan;
  if (!plan && (eval->gradient || eval->hessian_product) &&
      d->err == CL_SUCCESS) {
    st = fricl_tangential_plan_create(ctx, eval->dim, eval->n_vertices,
                                      eval->n_groups, eval->groups, &own);
    plan = own;
  }
  size_t nnz = 0;
  if (plan)
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  fricl_tangential_batch_cl eb;
  fricl_tangential_batch_cl_init(&eb);
  eb.precision = eval->precision;
  eb.mu_profile = eval->mu_profile;
  eb.mollifier = eval->mollifier;
  eb.psd = eval->psd;
  eb.flags = eval->flags;
  eb.dim = eval->dim;
  eb.n_vertices = nv;
  eb.velocities = up(d, eval->velocities, nv * dim * esz);
  eb.eps_v = eval->eps_v;
  eb.n_groups = eval->n_groups;
  eb.groups = eg;
  eb.plan = plan;
  eb.direction = up(d, eval->direction, nv * dim * esz);
  eb.potential = out(d, eval->potential, esz);
  eb.gradient = out(d, eval->gradient, nv * dim * esz);
  eb.hessian_values = out(d, eval->hessian_values, nnz * dim * dim * esz);
  eb.hessian_product = out(d, eval->hessian_product, nv * dim * esz);
  /* The CLI's own OpenCL calls failed, not the library's: the context's
   * last error does not describe them, so the detail is printed here. */
  if (st == FRICL_STATUS_OK && d->err != CL_SUCCESS) {
    fprintf(stderr,
            "fricl tangential: OpenCL error %d creating or filling the "
            "device arrays\n",
            (int)d->err);
    st = FRICL_STATUS_OPENCL_ERROR;
  }
  /* The build, then the evaluation on its buffers: one in-order queue,
   * nothing between them passes through the host. */
  if (st == FRICL_STATUS_OK)
    st = fricl_build_cl(ctx, &db, 0, NULL, NULL);
  if (st == FRICL_STATUS_OK)
    st = fricl_tangential_eval_cl(ctx, &eb, 0, NULL, NULL);
  /* Results, and the build's outputs for the output file. */
  if (st == FRICL_STATUS_OK)
    read_back(d);
  const cl_int fin = clFinish(d->q);
  if (st == FRICL_STATUS_OK && (d->err != CL_SUCCESS || fin != CL_SUCCESS)) {
    fprintf(stderr,
            "fricl tangential: OpenCL error %d reading the results back\n",
            (int)(d->err != CL_SUCCESS ? d->err : fin));
    st = FRICL_STATUS_OPENCL_ERROR;
  }
  if (st == FRICL_STATUS_OK)
    report(b);
  for (int i = 0; i < d->n; ++i)
    clReleaseMemObject(d->mem[i]);
  fricl_tangential_plan_destroy(own);
  free(d);
  return st;
}

#endif /* FRICL_WITH_OPENCL */
