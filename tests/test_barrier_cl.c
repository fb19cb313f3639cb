/*
 * test_barrier_cl.c - the barrier's cl_mem tier (fricl_barrier_eval_cl)
 * against its host tier (fricl_barrier_eval) on the same OpenCL device:
 *   - every stencil in 3-D (vv, ev, ee, fv, pv) and 2-D (vv, ev, pv), f64
 *     (where the device has it) and f32, every PSD mode, the physical
 *     barrier, rest positions, per-contact weights, dmin and distance
 *     types, FRICL_BARRIER_FLAG_AS_CLASSIFIED; potential, gradient, BSR
 *     Hessian values, H p and the per-group potential, local gradient and
 *     local Hessian, every buffer at an element offset; agreement to
 *     1e-10 of scale in f64 (the same kernels' math, assembled in the same
 *     order), 1e-5 in f32;
 *   - several chunks of contacts (a small max_chunk_elements) give the
 *     one-chunk result bitwise; two runs are bitwise equal;
 *   - validation before any work, the message naming the argument: a NULL
 *     required buffer, a buffer of another OpenCL context, a buffer too
 *     small, an output aliasing another buffer, a missing or mismatched
 *     plan, bad parameters; UNSUPPORTED on contexts without an OpenCL
 *     device;
 *   - a device vertex index out of range gives NaN for its contact only.
 * Exit status 77 (skip) when no OpenCL device exists.
 */
#include "test_util.h"

#include "barrier_scene.h"
#include "fricl/fricl_barrier_cl.h"

#define NV 300
#define NC 240 /* contacts per group */
#define OFF 3  /* element offset of every device array */

typedef struct scene {
  int dim, ng, physical, rest, as_classified;
  double x[NV * 3], xr[NV * 3], dir[NV * 3];
  int32_t ids[5][NC * 4];
  double w[5][NC], dmin[5][NC], pn[NC * 3], pc[NC];
  int8_t dt[5][NC];
  fricl_stencil types[5];
} scene;

/* Contacts of every stencil of `dim`, most of them active (built from
 * barrier_scene.h's configurations on distinct vertices), with weights,
 * per-contact dmin on group 1 and known distance types on group 2. */
static void make_scene(scene *s, int dim, int variant) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  s->physical = variant & 1;
  s->rest = (variant & 2) != 0;
  s->as_classified = (variant & 4) != 0;
  const fricl_stencil t3[5] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                               FRICL_STENCIL_PV};
  const fricl_stencil t2[3] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_PV};
  s->ng = dim == 3 ? 5 : 3;
  for (int i = 0; i < NV * dim; ++i) {
    s->x[i] = bs_range(-1, 1);
    s->dir[i] = sin(1.0 + i);
  }
  memcpy(s->xr, s->x, sizeof s->x);
  /* A few vertices get a configuration of their own; the rest are
   * shared, so that the gathers add several contacts per vertex. */
  int32_t next = 0;
  for (int g = 0; g < s->ng; ++g) {
    s->types[g] = dim == 3 ? t3[g] : t2[g];
    const int k = fricl_stencil_vertex_count(s->types[g]);
    const int type = (int)s->types[g];
    for (int c = 0; c < NC; ++c) {
      int32_t *v = &s->ids[g][c * k];
      if (c % 3 == 0 && next + k <= NV) {
        double x[12], xr[12], pn[3] = {0, 0, 0}, pc = 0;
        bs_contact(type, dim, bs_range(0.01, 0.1), c % 9 == 0, x, xr, pn, &pc);
        for (int i = 0; i < k; ++i) {
          v[i] = next + i;
          for (int r = 0; r < dim; ++r) {
            s->x[(next + i) * dim + r] = x[i * dim + r];
            s->xr[(next + i) * dim + r] = xr[i * dim + r];
          }
        }
        next += k;
        if (s->types[g] == FRICL_STENCIL_PV) {
          for (int r = 0; r < dim; ++r)
            s->pn[c * dim + r] = pn[r];
          s->pc[c] = pc;
        }
      } else {
        const int32_t base = (int32_t)(bs_uniform() * (NV - 4));
        for (int i = 0; i < k; ++i)
          v[i] = base + i;
        if (s->types[g] == FRICL_STENCIL_PV) {
          for (int r = 0; r < dim; ++r)
            s->pn[c * dim + r] = bs_range(-1, 1) + (r == 0 ? 2 : 0);
          s->pc[c] = -s->pn[c * dim] * s->x[base * dim] + 0.02;
        }
      }
      s->w[g][c] = bs_range(-0.5, 2.0);
      s->dmin[g][c] = g == 1 ? bs_range(0, 0.01) : 0;
      s->dt[g][c] = -1;
    }
  }
  if (dim == 3) /* some EE contacts with a given type (8: ipctk EA_EB) */
    for (int c = 0; c < NC; c += 4)
      s->dt[2][c] = 8;
}

/* ------------------------------------------------- the host tier */

typedef struct outputs {
  void *pot, *grad, *prod, *hv;
  void *gpot[5], *lg[5], *lh[5];
} outputs;

static size_t ndof_of(const scene *s, int g) {
  return (size_t)fricl_stencil_vertex_count(s->types[g]) * (size_t)s->dim;
}

static void alloc_out(outputs *o, const scene *s, size_t nnz, size_t esz) {
  memset(o, 0, sizeof *o);
  const size_t nvd = NV * (size_t)s->dim;
  o->pot = calloc(1, esz);
  o->grad = calloc(nvd, esz);
  o->prod = calloc(nvd, esz);
  o->hv = calloc(nnz * (size_t)(s->dim * s->dim) + 1, esz);
  for (int g = 0; g < s->ng; ++g) {
    const size_t nd = ndof_of(s, g);
    o->gpot[g] = calloc(NC, esz);
    o->lg[g] = calloc(NC * nd, esz);
    o->lh[g] = calloc(NC * nd * nd, esz);
  }
}

static void free_out(outputs *o) {
  free(o->pot), free(o->grad), free(o->prod), free(o->hv);
  for (int g = 0; g < 5; ++g)
    free(o->gpot[g]), free(o->lg[g]), free(o->lh[g]);
}

/* A copy of n doubles in the precision (a new array). */
static void *as_prec(const double *src, size_t n, fricl_precision p) {
  if (p == FRICL_F64) {
    double *d = malloc(n * sizeof *d + 1);
    memcpy(d, src, n * sizeof *d);
    return d;
  }
  float *f = malloc(n * sizeof *f + 1);
  for (size_t i = 0; i < n; ++i)
    f[i] = (float)src[i];
  return f;
}

/* The scene's real arrays in one precision. */
typedef struct reals {
  void *x, *xr, *dir, *w[5], *dmin[5], *pn, *pc;
} reals;

static void make_reals(reals *r, const scene *s, fricl_precision p) {
  memset(r, 0, sizeof *r);
  const size_t nvd = NV * (size_t)s->dim;
  r->x = as_prec(s->x, nvd, p);
  r->xr = as_prec(s->xr, nvd, p);
  r->dir = as_prec(s->dir, nvd, p);
  for (int g = 0; g < s->ng; ++g) {
    r->w[g] = as_prec(s->w[g], NC, p);
    r->dmin[g] = as_prec(s->dmin[g], NC, p);
  }
  r->pn = as_prec(s->pn, NC * (size_t)s->dim, p);
  r->pc = as_prec(s->pc, NC, p);
}

static void free_reals(reals *r) {
  free(r->x), free(r->xr), free(r->dir), free(r->pn), free(r->pc);
  for (int g = 0; g < 5; ++g)
    free(r->w[g]), free(r->dmin[g]);
}

static fricl_status host_eval(fricl_context *ctx, const scene *s,
                              const reals *r, fricl_precision p, fricl_psd psd,
                              const fricl_tangential_plan *plan, outputs *o) {
  fricl_barrier_group G[5];
  memset(G, 0, sizeof G);
  for (int g = 0; g < s->ng; ++g) {
    G[g].type = s->types[g];
    G[g].count = NC;
    G[g].vertices = s->ids[g];
    G[g].weight = r->w[g];
    G[g].dmin = g == 1 ? r->dmin[g] : NULL;
    G[g].distance_type = s->types[g] == FRICL_STENCIL_EE ? s->dt[g] : NULL;
    if (s->types[g] == FRICL_STENCIL_PV) {
      G[g].plane_normal = r->pn;
      G[g].plane_offset = r->pc;
    }
    G[g].potential = o->gpot[g];
    G[g].local_gradient = o->lg[g];
    G[g].local_hessian = o->lh[g];
  }
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.precision = p;
  b.dim = s->dim;
  b.psd = psd;
  b.flags = (s->physical ? FRICL_BARRIER_FLAG_PHYSICAL : 0u) |
            (s->as_classified ? FRICL_BARRIER_FLAG_AS_CLASSIFIED : 0u);
  b.n_vertices = NV;
  b.positions = r->x;
  b.rest_positions = s->rest ? r->xr : NULL;
  b.dhat = 0.12;
  b.kappa = 3.0;
  b.dmin = 0.0;
  b.n_groups = (size_t)s->ng;
  b.groups = G;
  b.plan = plan;
  b.direction = r->dir;
  b.potential = o->pot;
  b.gradient = o->grad;
  b.hessian_values = o->hv;
  b.hessian_product = o->prod;
  return fricl_barrier_eval(ctx, &b);
}

/* --------------------------------------------------- the cl_mem tier */

typedef struct devbufs {
  cl_context cc;
  cl_command_queue q;
  cl_mem m[64];
  int n;
} devbufs;

/* A buffer with `bytes` of src (or zeros) at element offset OFF. */
static fricl_buffer_cl dev_buf(devbufs *d, const void *src, size_t bytes,
                               size_t esz) {
  cl_int err = CL_SUCCESS;
  const size_t total = bytes + OFF * esz;
  cl_mem m = clCreateBuffer(d->cc, CL_MEM_READ_WRITE, total, NULL, &err);
  CHECK(err == CL_SUCCESS && d->n < 64, "clCreateBuffer %d", (int)err);
  if (err != CL_SUCCESS)
    return (fricl_buffer_cl){NULL, 0};
  /* Fill with a pattern, so that unwritten outputs show. */
  unsigned char *fill = malloc(total);
  memset(fill, 0x7f, total);
  if (src && bytes)
    memcpy(fill + OFF * esz, src, bytes);
  clEnqueueWriteBuffer(d->q, m, CL_TRUE, 0, total, fill, 0, NULL, NULL);
  free(fill);
  d->m[d->n++] = m;
  return (fricl_buffer_cl){m, OFF};
}

static void read_buf(devbufs *d, fricl_buffer_cl b, void *dst, size_t bytes,
                     size_t esz) {
  CHECK(clEnqueueReadBuffer(d->q, b.mem, CL_TRUE, b.offset * esz, bytes, dst, 0,
                            NULL, NULL) == CL_SUCCESS,
        "read back");
}

static void release_bufs(devbufs *d) {
  for (int i = 0; i < d->n; ++i)
    clReleaseMemObject(d->m[i]);
  d->n = 0;
}

typedef struct clbatch {
  fricl_barrier_group_cl G[5];
  fricl_barrier_batch_cl b;
} clbatch;

static void cl_setup(clbatch *c, devbufs *d, const scene *s, const reals *r,
                     fricl_precision p, fricl_psd psd,
                     const fricl_tangential_plan *plan, size_t nnz) {
  const size_t esz = p == FRICL_F64 ? 8 : 4;
  const size_t dim = (size_t)s->dim, nvd = NV * dim;
  memset(c->G, 0, sizeof c->G);
  for (int g = 0; g < s->ng; ++g) {
    fricl_barrier_group_cl *G = &c->G[g];
    const size_t k = (size_t)fricl_stencil_vertex_count(s->types[g]);
    const size_t nd = k * dim;
    G->type = s->types[g];
    G->count = NC;
    G->vertices = dev_buf(d, s->ids[g], NC * k * 4, 4);
    G->weight = dev_buf(d, r->w[g], NC * esz, esz);
    if (g == 1)
      G->dmin = dev_buf(d, r->dmin[g], NC * esz, esz);
    if (s->types[g] == FRICL_STENCIL_EE)
      G->distance_type = dev_buf(d, s->dt[g], NC, 1);
    if (s->types[g] == FRICL_STENCIL_PV) {
      G->plane_normal = dev_buf(d, r->pn, NC * dim * esz, esz);
      G->plane_offset = dev_buf(d, r->pc, NC * esz, esz);
    }
    G->potential = dev_buf(d, NULL, NC * esz, esz);
    G->local_gradient = dev_buf(d, NULL, NC * nd * esz, esz);
    G->local_hessian = dev_buf(d, NULL, NC * nd * nd * esz, esz);
  }
  fricl_barrier_batch_cl *b = &c->b;
  fricl_barrier_batch_cl_init(b);
  b->precision = p;
  b->dim = s->dim;
  b->psd = psd;
  b->flags = (s->physical ? FRICL_BARRIER_FLAG_PHYSICAL : 0u) |
             (s->as_classified ? FRICL_BARRIER_FLAG_AS_CLASSIFIED : 0u);
  b->n_vertices = NV;
  b->positions = dev_buf(d, r->x, nvd * esz, esz);
  if (s->rest)
    b->rest_positions = dev_buf(d, r->xr, nvd * esz, esz);
  b->dhat = 0.12;
  b->kappa = 3.0;
  b->dmin = 0.0;
  b->n_groups = (size_t)s->ng;
  b->groups = c->G;
  b->plan = plan;
  b->direction = dev_buf(d, r->dir, nvd * esz, esz);
  b->potential = dev_buf(d, NULL, esz, esz);
  b->gradient = dev_buf(d, NULL, nvd * esz, esz);
  b->hessian_product = dev_buf(d, NULL, nvd * esz, esz);
  b->hessian_values = dev_buf(d, NULL, nnz * dim * dim * esz, esz);
}

static void cl_read(devbufs *d, const clbatch *c, const scene *s, size_t nnz,
                    size_t esz, outputs *o) {
  const size_t dim = (size_t)s->dim, nvd = NV * dim;
  const fricl_barrier_batch_cl *b = &c->b;
  read_buf(d, b->potential, o->pot, esz, esz);
  read_buf(d, b->gradient, o->grad, nvd * esz, esz);
  read_buf(d, b->hessian_product, o->prod, nvd * esz, esz);
  read_buf(d, b->hessian_values, o->hv, nnz * dim * dim * esz, esz);
  for (int g = 0; g < s->ng; ++g) {
    const size_t nd = ndof_of(s, g);
    read_buf(d, c->G[g].potential, o->gpot[g], NC * esz, esz);
    read_buf(d, c->G[g].local_gradient, o->lg[g], NC * nd * esz, esz);
    read_buf(d, c->G[g].local_hessian, o->lh[g], NC * nd * nd * esz, esz);
  }
}

/* ------------------------------------------------------- comparisons */

static double at(const void *a, size_t i, size_t esz) {
  return esz == 8 ? ((const double *)a)[i] : (double)((const float *)a)[i];
}

/* max |a - b| / max |b| (NaN: 1). */
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

/* Every output of a against b; returns the worst relative error. */
static double compare(const outputs *a, const outputs *b, const scene *s,
                      size_t nnz, size_t esz) {
  const size_t dim = (size_t)s->dim, nvd = NV * dim;
  double e = rel(a->pot, b->pot, 1, esz);
  e = fmax(e, rel(a->grad, b->grad, nvd, esz));
  e = fmax(e, rel(a->prod, b->prod, nvd, esz));
  e = fmax(e, rel(a->hv, b->hv, nnz * dim * dim, esz));
  for (int g = 0; g < s->ng; ++g) {
    const size_t nd = ndof_of(s, g);
    e = fmax(e, rel(a->gpot[g], b->gpot[g], NC, esz));
    e = fmax(e, rel(a->lg[g], b->lg[g], NC * nd, esz));
    e = fmax(e, rel(a->lh[g], b->lh[g], NC * nd * nd, esz));
  }
  return e;
}

static int same(const outputs *a, const outputs *b, const scene *s, size_t nnz,
                size_t esz) {
  const size_t dim = (size_t)s->dim, nvd = NV * dim;
  int ok = !memcmp(a->pot, b->pot, esz) &&
           !memcmp(a->grad, b->grad, nvd * esz) &&
           !memcmp(a->prod, b->prod, nvd * esz) &&
           !memcmp(a->hv, b->hv, nnz * dim * dim * esz);
  for (int g = 0; g < s->ng; ++g) {
    const size_t nd = ndof_of(s, g);
    ok = ok && !memcmp(a->gpot[g], b->gpot[g], NC * esz) &&
         !memcmp(a->lg[g], b->lg[g], NC * nd * esz) &&
         !memcmp(a->lh[g], b->lh[g], NC * nd * nd * esz);
  }
  return ok;
}

static fricl_tangential_plan *make_plan(fricl_context *ctx, const scene *s) {
  fricl_barrier_group G[5];
  memset(G, 0, sizeof G);
  for (int g = 0; g < s->ng; ++g) {
    G[g].type = s->types[g];
    G[g].count = NC;
    G[g].vertices = s->ids[g];
  }
  fricl_tangential_plan *plan = NULL;
  CHECK(fricl_barrier_plan_create(ctx, s->dim, NV, (size_t)s->ng, G, &plan) ==
            FRICL_STATUS_OK,
        "plan: %s", fricl_context_last_error(ctx));
  return plan;
}

/* ---------------------------------------------------------- agreement */

/* One device, one dimension, precision, variant: host tier vs cl_mem tier
 * (two runs, and once more on a context that cuts the contacts into
 * chunks of 1024) for every PSD mode. */
static void agree(const char *spec, int dim, fricl_precision p, int variant) {
  fricl_context *ctx = test_context(spec, 0, 0);
  fricl_context *small = test_context(spec, 1500, 0);
  if (!ctx || !small) {
    fricl_context_destroy(ctx);
    fricl_context_destroy(small);
    return;
  }
  const size_t esz = p == FRICL_F64 ? 8 : 4;
  const double tol = p == FRICL_F64 ? 1e-10 : 1e-5;
  static scene s;
  make_scene(&s, dim, variant);
  reals r;
  make_reals(&r, &s, p);
  fricl_tangential_plan *plan = make_plan(ctx, &s);
  fricl_tangential_plan *plan_small = make_plan(small, &s);
  size_t nnz = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  devbufs d, ds;
  fricl_context_get_cl(ctx, &d.cc, NULL, &d.q);
  fricl_context_get_cl(small, &ds.cc, NULL, &ds.q);
  d.n = ds.n = 0;
  for (int psd = 0; psd < 3; ++psd) {
    outputs h, c1, c2, c3;
    alloc_out(&h, &s, nnz, esz);
    alloc_out(&c1, &s, nnz, esz);
    alloc_out(&c2, &s, nnz, esz);
    alloc_out(&c3, &s, nnz, esz);
    CHECK(host_eval(ctx, &s, &r, p, (fricl_psd)psd, plan, &h) ==
              FRICL_STATUS_OK,
          "%s host tier: %s", spec, fricl_context_last_error(ctx));
    clbatch cb, cs;
    cl_setup(&cb, &d, &s, &r, p, (fricl_psd)psd, plan, nnz);
    cl_setup(&cs, &ds, &s, &r, p, (fricl_psd)psd, plan_small, nnz);
    cl_event done = NULL;
    CHECK(fricl_barrier_eval_cl(ctx, &cb.b, 0, NULL, &done) == FRICL_STATUS_OK,
          "%s cl_mem tier: %s", spec, fricl_context_last_error(ctx));
    CHECK(done && clWaitForEvents(1, &done) == CL_SUCCESS, "done event");
    if (done)
      clReleaseEvent(done);
    CHECK(fricl_context_last_backend(ctx) == FRICL_BACKEND_OPENCL,
          "cl_mem tier: last backend");
    cl_read(&d, &cb, &s, nnz, esz, &c1);
    CHECK(fricl_barrier_eval_cl(ctx, &cb.b, 0, NULL, NULL) == FRICL_STATUS_OK,
          "%s cl_mem tier again: %s", spec, fricl_context_last_error(ctx));
    cl_read(&d, &cb, &s, nnz, esz, &c2);
    CHECK(fricl_barrier_eval_cl(small, &cs.b, 0, NULL, NULL) == FRICL_STATUS_OK,
          "%s cl_mem tier, chunks: %s", spec, fricl_context_last_error(small));
    cl_read(&ds, &cs, &s, nnz, esz, &c3);
    const double e = compare(&c1, &h, &s, nnz, esz);
    CHECK(e <= tol,
          "%s %dD %s variant %d psd %d: cl_mem tier %g from the "
          "host tier",
          spec, dim, p == FRICL_F64 ? "f64" : "f32", variant, psd, e);
    CHECK(same(&c1, &c2, &s, nnz, esz), "%s %dD psd %d: two runs differ", spec,
          dim, psd);
    CHECK(same(&c1, &c3, &s, nnz, esz),
          "%s %dD psd %d: chunks of 1024 contacts differ from one pass", spec,
          dim, psd);
    /* The scene is active: a comparison of zeros would prove nothing. */
    CHECK(at(h.pot, 0, esz) != 0 && at(h.grad, 0, esz) == at(h.grad, 0, esz),
          "inactive scene");
    release_bufs(&d);
    release_bufs(&ds);
    free_out(&h), free_out(&c1), free_out(&c2), free_out(&c3);
  }
  fricl_tangential_plan_destroy(plan);
  fricl_tangential_plan_destroy(plan_small);
  free_reals(&r);
  fricl_context_destroy(ctx);
  fricl_context_destroy(small);
}

/* ------------------------------------------------------------ errors */

static void expect(fricl_context *ctx, const fricl_barrier_batch_cl *b,
                   fricl_status want, const char *needle, const char *what) {
  const fricl_status st = fricl_barrier_eval_cl(ctx, b, 0, NULL, NULL);
  CHECK(st == want && strstr(fricl_context_last_error(ctx), needle),
        "%s: got %s \"%s\", expected %s naming \"%s\"", what,
        fricl_status_string(st), fricl_context_last_error(ctx),
        fricl_status_string(want), needle);
}

static void errors(const char *spec) {
  fricl_context *ctx = test_context(spec, 0, 0);
  fricl_context *other = test_context(spec, 0, 0);
  if (!ctx || !other) {
    fricl_context_destroy(ctx);
    fricl_context_destroy(other);
    return;
  }
  const fricl_precision p = fricl_context_has_fp64(ctx) ? FRICL_F64 : FRICL_F32;
  const size_t esz = p == FRICL_F64 ? 8 : 4;
  static scene s;
  make_scene(&s, 3, 0);
  reals r;
  make_reals(&r, &s, p);
  fricl_tangential_plan *plan = make_plan(ctx, &s);
  fricl_tangential_plan *plan_other = make_plan(other, &s);
  size_t nnz = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  devbufs d;
  fricl_context_get_cl(ctx, &d.cc, NULL, &d.q);
  d.n = 0;
  clbatch c;
  cl_setup(&c, &d, &s, &r, p, FRICL_PSD_CLAMP, plan, nnz);
  CHECK(fricl_barrier_eval_cl(ctx, &c.b, 0, NULL, NULL) == FRICL_STATUS_OK,
        "valid batch: %s", fricl_context_last_error(ctx));
  fricl_barrier_batch_cl b = c.b;

  /* A NULL required buffer. */
  fricl_barrier_group_cl G[5];
  memcpy(G, c.G, sizeof G);
  b.groups = G;
  G[2].vertices.mem = NULL;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "groups[2] (ee): vertices",
         "NULL vertices");
  memcpy(G, c.G, sizeof G);
  G[4].plane_normal.mem = NULL;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "plane_normal",
         "NULL plane normal");
  memcpy(G, c.G, sizeof G);
  b.positions.mem = NULL;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.positions",
         "NULL positions");
  b = c.b;
  b.direction.mem = NULL;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.direction",
         "NULL direction with H p");
  /* A buffer of another OpenCL context (the other fricl context's). */
  b = c.b;
  cl_context occ = NULL;
  fricl_context_get_cl(other, &occ, NULL, NULL);
  cl_int err = CL_SUCCESS;
  cl_mem foreign = clCreateBuffer(occ, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
  if (occ != d.cc && foreign) {
    b.gradient = (fricl_buffer_cl){foreign, 0};
    expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT,
           "batch.gradient.mem belongs to another OpenCL context",
           "foreign buffer");
  }
  if (foreign)
    clReleaseMemObject(foreign);
  /* A buffer too small for its offset and size. */
  b = c.b;
  b.gradient.offset = 1000000;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.gradient: offset",
         "gradient offset past the end");
  memcpy(G, c.G, sizeof G);
  b = c.b;
  b.groups = G;
  G[1].local_hessian.offset = 999999;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "groups[1].local_hessian",
         "local Hessian too small");
  /* Outputs that alias an input or each other. */
  b = c.b;
  b.gradient = c.b.positions;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT,
         "output batch.gradient overlaps input batch.positions",
         "gradient over positions");
  b = c.b;
  b.hessian_product = c.b.gradient;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT,
         "output batch.gradient overlaps output batch.hessian_product",
         "H p over gradient");
  /* Plans: missing, from another context, for another topology. */
  b = c.b;
  b.plan = NULL;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.plan is required",
         "no plan");
  b.plan = plan_other;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "another context",
         "plan of another context");
  memcpy(G, c.G, sizeof G);
  b = c.b;
  b.groups = G;
  G[0].count = NC - 1;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.plan was made for",
         "plan mismatch (count)");
  b = c.b;
  b.n_groups = 4;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.plan was made for",
         "plan mismatch (groups)");
  /* Parameters. */
  b = c.b;
  b.dhat = 0;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "dhat", "dhat 0");
  b = c.b;
  b.kappa = NAN;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "kappa", "kappa NaN");
  b = c.b;
  b.psd = (fricl_psd)7;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.psd", "psd 7");
  b = c.b;
  b.flags = 0x10;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "batch.flags", "flags");
  b = c.b;
  b.dim = 2;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "groups[2]", "ee in 2-D");
  b = c.b;
  b.struct_size = 8;
  expect(ctx, &b, FRICL_STATUS_INVALID_ARGUMENT, "struct_size", "struct_size");
  /* No output at all. */
  memset(G, 0, sizeof G);
  G[0].type = FRICL_STENCIL_VV;
  G[0].count = 0;
  fricl_barrier_batch_cl e;
  fricl_barrier_batch_cl_init(&e);
  e.precision = p;
  e.dhat = 0.1;
  e.kappa = 1;
  e.n_vertices = NV;
  e.n_groups = 1;
  e.groups = G;
  expect(ctx, &e, FRICL_STATUS_INVALID_ARGUMENT, "no output", "no output");
  /* Zero contacts: zeros. */
  e.potential = c.b.potential;
  CHECK(fricl_barrier_eval_cl(ctx, &e, 0, NULL, NULL) == FRICL_STATUS_OK,
        "zero contacts: %s", fricl_context_last_error(ctx));
  double z = 1;
  float zf = 1;
  if (p == FRICL_F64)
    read_buf(&d, e.potential, &z, 8, 8);
  else {
    read_buf(&d, e.potential, &zf, 4, 4);
    z = zf;
  }
  CHECK(z == 0, "zero contacts: potential %g", z);

  /* A device vertex index out of range: NaN for that contact only. */
  b = c.b;
  memcpy(G, c.G, sizeof G);
  b.groups = G;
  int32_t bad[2] = {NV + 5, 1};
  G[0].vertices = dev_buf(&d, s.ids[0], NC * 2 * 4, 4);
  clEnqueueWriteBuffer(d.q, G[0].vertices.mem, CL_TRUE, OFF * 4 + 7 * 2 * 4,
                       sizeof bad, bad, 0, NULL, NULL);
  CHECK(fricl_barrier_eval_cl(ctx, &b, 0, NULL, NULL) == FRICL_STATUS_OK,
        "bad device index: %s", fricl_context_last_error(ctx));
  void *gp = malloc(NC * esz);
  read_buf(&d, G[0].potential, gp, NC * esz, esz);
  int nan_ok = isnan(at(gp, 7, esz));
  for (int i = 0; i < NC; ++i)
    if (i != 7 && isnan(at(gp, (size_t)i, esz)))
      nan_ok = 0;
  CHECK(nan_ok, "a bad device vertex index: NaN for its contact only");
  free(gp);

  release_bufs(&d);
  free_reals(&r);
  fricl_tangential_plan_destroy(plan);
  fricl_tangential_plan_destroy(plan_other);
  fricl_context_destroy(ctx);
  fricl_context_destroy(other);
}

int main(void) {
  /* No OpenCL device in the context: UNSUPPORTED, whatever the batch. */
  const char *hosts[2] = {"reference", "host"};
  for (int i = 0; i < 2; ++i) {
    fricl_context *h = test_context(hosts[i], 0, 0);
    if (!h)
      continue;
    fricl_barrier_batch_cl b;
    fricl_barrier_batch_cl_init(&b);
    CHECK(fricl_barrier_eval_cl(h, &b, 0, NULL, NULL) ==
                  FRICL_STATUS_UNSUPPORTED &&
              strstr(fricl_context_last_error(h), "fricl_barrier_eval_cl"),
          "%s: %s", hosts[i], fricl_context_last_error(h));
    fricl_context_destroy(h);
  }
  test_backend be[TEST_MAX_BACKENDS];
  const int n = test_backends(be);
  int devices = 0;
  for (int i = 0; i < n; ++i) {
    if (strncmp(be[i].spec, "opencl:", 7) != 0)
      continue;
    ++devices;
    fricl_context *probe = test_context(be[i].spec, 0, 0);
    const int fp64 = probe && fricl_context_has_fp64(probe);
    fricl_context_destroy(probe);
    /* Variants: 1 physical, 2 rest positions, 4 as classified. */
    static const int variants[] = {0, 1, 2, 3, 6};
    for (int dim = 3; dim >= 2; --dim)
      for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
        const int variant = variants[v];
        if (fp64)
          agree(be[i].spec, dim, FRICL_F64, variant);
        if (variant == 0 || variant == 3 || variant == 6)
          agree(be[i].spec, dim, FRICL_F32, variant);
      }
    errors(be[i].spec);
  }
  if (!devices) {
    printf("test_barrier_cl: SKIP (no OpenCL device)\n");
    return test_failures ? 1 : 77;
  }
  return test_report("test_barrier_cl");
}
