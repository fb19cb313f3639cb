/*
 * test_barrier_sizes.c - the barrier on an OpenCL device at launch sizes
 * where the runtime's own choice of work-group size once crashed the
 * process: PoCL, given no local size, took one work-group as large as the
 * launch and put every work item's private arrays on one worker thread's
 * stack (SIGSEGV from about 1,000 contacts of one type). Every launch now
 * gets an explicit local size (src/opencl/launch.c); this checks both
 * tiers (fricl_barrier_eval on the device, fricl_barrier_eval_cl) at 1,
 * 1,000, 1,500, 3,000, 4,096 and 10^5 contacts of one stencil type, for
 * every 3-D and 2-D stencil, against the host backend: 1e-10 of each output's
 * scale in f64 (1e-4 on a device without it). Sizes that are not multiples of a
 * likely work-group size check the padding work items. Exit status 77 (skip)
 * when no OpenCL device exists.
 */
#include "test_util.h"

#include "barrier_scene.h"
#include "fricl/fricl_barrier_cl.h"

/* Above this many contacts the Hessian outputs (global BSR values and the
 * per-contact local Hessians) are left out: for 10^5 edge-edge contacts
 * they would be 115 MB each, and the launches under test are the same. */
#define HESS_MAX 4096

typedef struct scene {
  int dim, k;
  fricl_stencil type;
  size_t n, nv;
  double *x, *dir, *w, *pn, *pc;
  int32_t *ids;
} scene;

/* n contacts of `type`, each on vertices of its own (k consecutive),
 * every one inside the barrier's activation distance. */
static void make_scene(scene *s, int dim, fricl_stencil type, size_t n) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  s->type = type;
  s->n = n;
  s->k = fricl_stencil_vertex_count(type);
  s->nv = n * (size_t)s->k;
  const size_t nvd = s->nv * (size_t)dim;
  s->x = malloc(nvd * sizeof *s->x);
  s->dir = malloc(nvd * sizeof *s->dir);
  s->w = malloc(n * sizeof *s->w);
  s->pn = malloc(n * (size_t)dim * sizeof *s->pn);
  s->pc = malloc(n * sizeof *s->pc);
  s->ids = malloc(s->nv * sizeof *s->ids);
  for (size_t c = 0; c < n; ++c) {
    double x[12], xr[12], pn[3] = {0, 0, 0}, pc = 0;
    bs_contact((int)type, dim, bs_range(0.01, 0.1), c % 9 == 0, x, xr, pn, &pc);
    for (int i = 0; i < s->k * dim; ++i)
      s->x[c * (size_t)(s->k * dim) + (size_t)i] = x[i];
    for (int i = 0; i < s->k; ++i)
      s->ids[c * (size_t)s->k + (size_t)i] = (int32_t)(c * (size_t)s->k) + i;
    for (int r = 0; r < dim; ++r)
      s->pn[c * (size_t)dim + (size_t)r] = pn[r];
    s->pc[c] = pc;
    s->w[c] = bs_range(0.5, 2.0);
  }
  for (size_t i = 0; i < nvd; ++i)
    s->dir[i] = sin(1.0 + (double)i);
}

static void free_scene(scene *s) {
  free(s->x), free(s->dir), free(s->w), free(s->pn), free(s->pc);
  free(s->ids);
}

/* The scene's real arrays in the test's precision (new arrays). */
typedef struct reals {
  void *x, *dir, *w, *pn, *pc;
} reals;

static void *as_prec(const double *src, size_t n, int f32) {
  if (!f32) {
    double *d = malloc(n * sizeof *d + 1);
    memcpy(d, src, n * sizeof *d);
    return d;
  }
  float *f = malloc(n * sizeof *f + 1);
  for (size_t i = 0; i < n; ++i)
    f[i] = (float)src[i];
  return f;
}

static void make_reals(reals *r, const scene *s, int f32) {
  const size_t nvd = s->nv * (size_t)s->dim;
  r->x = as_prec(s->x, nvd, f32);
  r->dir = as_prec(s->dir, nvd, f32);
  r->w = as_prec(s->w, s->n, f32);
  r->pn = as_prec(s->pn, s->n * (size_t)s->dim, f32);
  r->pc = as_prec(s->pc, s->n, f32);
}

static void free_reals(reals *r) {
  free(r->x), free(r->dir), free(r->w), free(r->pn), free(r->pc);
}

/* Every output, each NULL when not computed at this size. */
enum { O_POT, O_GRAD, O_PROD, O_HV, O_GPOT, O_LG, O_LH, O_COUNT };
static const char *const out_names[O_COUNT] = {
    "potential",  "gradient",       "hessian_product", "hessian_values",
    "group pot.", "local_gradient", "local_hessian"};

typedef struct outputs {
  void *v[O_COUNT];
  size_t len[O_COUNT];
} outputs;

static void alloc_out(outputs *o, const scene *s, size_t nnz, size_t esz) {
  const size_t nvd = s->nv * (size_t)s->dim, nd = (size_t)s->k * (size_t)s->dim,
               bb = (size_t)(s->dim * s->dim);
  const int hess = s->n <= HESS_MAX;
  const size_t len[O_COUNT] = {1,
                               nvd,
                               nvd,
                               hess ? nnz * bb : 0,
                               s->n,
                               s->n * nd,
                               hess ? s->n * nd * nd : 0};
  for (int i = 0; i < O_COUNT; ++i) {
    o->len[i] = len[i];
    o->v[i] = len[i] ? calloc(len[i], esz) : NULL;
  }
}

static void free_out(outputs *o) {
  for (int i = 0; i < O_COUNT; ++i)
    free(o->v[i]);
}

static fricl_status host_tier(fricl_context *ctx, const scene *s,
                              const reals *r, fricl_precision p,
                              const fricl_tangential_plan *plan, outputs *o) {
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = s->type;
  G.count = s->n;
  G.vertices = s->ids;
  G.weight = r->w;
  if (s->type == FRICL_STENCIL_PV) {
    G.plane_normal = r->pn;
    G.plane_offset = r->pc;
  }
  G.potential = o->v[O_GPOT];
  G.local_gradient = o->v[O_LG];
  G.local_hessian = o->v[O_LH];
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.precision = p;
  b.dim = s->dim;
  b.psd = FRICL_PSD_CLAMP;
  b.n_vertices = s->nv;
  b.positions = r->x;
  b.dhat = 0.12;
  b.kappa = 3.0;
  b.n_groups = 1;
  b.groups = &G;
  b.plan = plan;
  b.direction = r->dir;
  b.potential = o->v[O_POT];
  b.gradient = o->v[O_GRAD];
  b.hessian_product = o->v[O_PROD];
  b.hessian_values = o->v[O_HV];
  return fricl_barrier_eval(ctx, &b);
}

/* ------------------------------------------------------- cl_mem tier */

typedef struct devbufs {
  cl_context cc;
  cl_command_queue q;
  cl_mem m[16];
  int n;
} devbufs;

/* A device buffer of `bytes` (at least 1), holding src when not NULL. */
static fricl_buffer_cl dev_buf(devbufs *d, const void *src, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(
      d->cc, CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0),
      bytes ? bytes : 1, (void *)src, &err);
  CHECK(err == CL_SUCCESS && d->n < 16, "clCreateBuffer: %d", (int)err);
  if (err != CL_SUCCESS)
    return (fricl_buffer_cl){NULL, 0};
  d->m[d->n++] = m;
  return (fricl_buffer_cl){m, 0};
}

static void release_bufs(devbufs *d) {
  for (int i = 0; i < d->n; ++i)
    clReleaseMemObject(d->m[i]);
  d->n = 0;
}

static fricl_status cl_tier(fricl_context *ctx, const scene *s, const reals *r,
                            fricl_precision p,
                            const fricl_tangential_plan *plan, outputs *o) {
  const size_t esz = p == FRICL_F64 ? 8 : 4;
  const size_t dim = (size_t)s->dim;
  devbufs d;
  d.n = 0;
  if (fricl_context_get_cl(ctx, &d.cc, NULL, &d.q) != FRICL_STATUS_OK)
    return FRICL_STATUS_INTERNAL;
  fricl_buffer_cl ob[O_COUNT];
  for (int i = 0; i < O_COUNT; ++i)
    ob[i] = o->len[i] ? dev_buf(&d, NULL, o->len[i] * esz)
                      : (fricl_buffer_cl){NULL, 0};
  fricl_barrier_group_cl G;
  memset(&G, 0, sizeof G);
  G.type = s->type;
  G.count = s->n;
  G.vertices = dev_buf(&d, s->ids, s->nv * sizeof *s->ids);
  G.weight = dev_buf(&d, r->w, s->n * esz);
  if (s->type == FRICL_STENCIL_PV) {
    G.plane_normal = dev_buf(&d, r->pn, s->n * dim * esz);
    G.plane_offset = dev_buf(&d, r->pc, s->n * esz);
  }
  G.potential = ob[O_GPOT];
  G.local_gradient = ob[O_LG];
  G.local_hessian = ob[O_LH];
  fricl_barrier_batch_cl b;
  fricl_barrier_batch_cl_init(&b);
  b.precision = p;
  b.dim = s->dim;
  b.psd = FRICL_PSD_CLAMP;
  b.n_vertices = s->nv;
  b.positions = dev_buf(&d, r->x, s->nv * dim * esz);
  b.dhat = 0.12;
  b.kappa = 3.0;
  b.n_groups = 1;
  b.groups = &G;
  b.plan = plan;
  b.direction = dev_buf(&d, r->dir, s->nv * dim * esz);
  b.potential = ob[O_POT];
  b.gradient = ob[O_GRAD];
  b.hessian_product = ob[O_PROD];
  b.hessian_values = ob[O_HV];
  fricl_status st = fricl_barrier_eval_cl(ctx, &b, 0, NULL, NULL);
  for (int i = 0; i < O_COUNT && st == FRICL_STATUS_OK; ++i)
    if (ob[i].mem &&
        clEnqueueReadBuffer(d.q, ob[i].mem, CL_TRUE, 0, o->len[i] * esz,
                            o->v[i], 0, NULL, NULL) != CL_SUCCESS)
      st = FRICL_STATUS_INTERNAL;
  release_bufs(&d);
  return st;
}

/* ------------------------------------------------------- comparison */

static double at(const void *a, size_t i, size_t esz) {
  return esz == 8 ? ((const double *)a)[i] : (double)((const float *)a)[i];
}

/* max |a - b| / max |b| over n values (a NaN on one side only: 1). */
static double rel(const void *a, const void *b, size_t n, size_t esz) {
  double e = 0, m = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = at(a, i, esz), y = at(b, i, esz);
    if (isnan(x) != isnan(y))
      return 1;
    if (isnan(x))
      continue;
    e = fmax(e, fabs(x - y));
    m = fmax(m, fabs(y));
  }
  return m > 0 ? e / m : e;
}

static void compare(const outputs *got, const outputs *want, size_t esz,
                    double tol, const char *what) {
  for (int i = 0; i < O_COUNT; ++i) {
    if (!want->len[i])
      continue;
    const double e = rel(got->v[i], want->v[i], want->len[i], esz);
    CHECK(e <= tol, "%s: %s %g from the host backend", what, out_names[i], e);
  }
}

/* --------------------------------------------------------------- main */

static void run_size(fricl_context *host, fricl_context *dev, const char *spec,
                     int dim, fricl_stencil type, size_t n, int f32) {
  const fricl_precision p = f32 ? FRICL_F32 : FRICL_F64;
  const size_t esz = f32 ? 4 : 8;
  const double tol = f32 ? 1e-4 : 1e-10;
  char what[256];
  snprintf(what, sizeof what, "%.64s %dD %.8s x %zu %s", spec, dim,
           fricl_stencil_name(type), n, f32 ? "f32" : "f64");
  scene s;
  make_scene(&s, dim, type, n);
  reals r;
  make_reals(&r, &s, f32);
  fricl_barrier_group pg;
  memset(&pg, 0, sizeof pg);
  pg.type = type;
  pg.count = n;
  pg.vertices = s.ids;
  fricl_tangential_plan *hplan = NULL, *dplan = NULL;
  CHECK(fricl_barrier_plan_create(host, dim, s.nv, 1, &pg, &hplan) ==
            FRICL_STATUS_OK,
        "%s: host plan: %s", what, fricl_context_last_error(host));
  CHECK(fricl_barrier_plan_create(dev, dim, s.nv, 1, &pg, &dplan) ==
            FRICL_STATUS_OK,
        "%s: device plan: %s", what, fricl_context_last_error(dev));
  size_t nnz = 0;
  fricl_tangential_plan_bsr(hplan, NULL, &nnz, NULL, NULL);
  outputs want, got_host, got_cl;
  alloc_out(&want, &s, nnz, esz);
  alloc_out(&got_host, &s, nnz, esz);
  alloc_out(&got_cl, &s, nnz, esz);
  CHECK(host_tier(host, &s, &r, p, hplan, &want) == FRICL_STATUS_OK,
        "%s: host backend: %s", what, fricl_context_last_error(host));
  /* A comparison of zeros would prove nothing. */
  CHECK(at(want.v[O_POT], 0, esz) > 0, "%s: inactive scene", what);
  CHECK(host_tier(dev, &s, &r, p, dplan, &got_host) == FRICL_STATUS_OK &&
            fricl_context_last_backend(dev) == FRICL_BACKEND_OPENCL,
        "%s: fricl_barrier_eval on the device: %s", what,
        fricl_context_last_error(dev));
  compare(&got_host, &want, esz, tol, what);
  CHECK(cl_tier(dev, &s, &r, p, dplan, &got_cl) == FRICL_STATUS_OK,
        "%s: fricl_barrier_eval_cl: %s", what, fricl_context_last_error(dev));
  compare(&got_cl, &want, esz, tol, what);
  free_out(&want), free_out(&got_host), free_out(&got_cl);
  fricl_tangential_plan_destroy(hplan);
  fricl_tangential_plan_destroy(dplan);
  free_reals(&r);
  free_scene(&s);
}

int main(void) {
  static const size_t sizes[] = {1, 1000, 1500, 3000, 4096, 100000};
  static const fricl_stencil t3[] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                                     FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                                     FRICL_STENCIL_PV};
  static const fricl_stencil t2[] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                                     FRICL_STENCIL_PV};
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  int devices = 0;
  fricl_context *host = test_context("host", 0, 0);
  for (int i = 0; i < nb && host; ++i) {
    if (strncmp(be[i].spec, "opencl:", 7) != 0)
      continue;
    ++devices;
    fricl_context *dev = test_context(be[i].spec, 0, 0);
    if (!dev)
      continue;
    const int f32 = !fricl_context_has_fp64(dev);
    for (int dim = 3; dim >= 2; --dim) {
      const int nt = dim == 3 ? 5 : 3;
      for (int t = 0; t < nt; ++t)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z) {
          const fricl_stencil type = dim == 3 ? t3[t] : t2[t];
          run_size(host, dev, be[i].spec, dim, type, sizes[z], f32);
        }
    }
    fricl_context_destroy(dev);
  }
  fricl_context_destroy(host);
  if (!devices) {
    printf("test_barrier_sizes: SKIP (no OpenCL device)\n");
    return test_failures ? 1 : 77;
  }
  return test_report("test_barrier_sizes");
}
