/*
 * test_barrier_multi.c - how barrier calls are routed, and that the route
 * never shows in the results:
 *   - "auto" sends them through the dispatcher like the tangential ones:
 *     the host backend below the crossover (and always on a machine whose
 *     only OpenCL devices are CPUs, with the default crossover), bitwise
 *     the reference; the OpenCL device from a crossover of 1 (within
 *     1e-10 of the reference); never with a crossover of SIZE_MAX;
 *     fricl_context_last_backend reports each;
 *   - explicit "reference", "host" and OpenCL contexts report themselves;
 *   - a context over two devices gives bitwise the result of one device
 *     (global and per-contact outputs, 3-D and 2-D, f64 and f32, PSD
 *     clamp; and 3-D f64 with FRICL_BARRIER_FLAG_AS_CLASSIFIED), under
 *     the default shares and pinned uneven ones both ways, and both
 *     devices take a share of the barrier's work.
 *
 * CTest runs it with POCL_DEVICES="pthread pthread" (label pocl_pair); it
 * fails with OpenCL but without two devices of one kind, so that a
 * missing second device is never a silent pass, and exits 77 (skip) when
 * there is no OpenCL device at all.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "device_pair.h"
#include "test_util.h"

#include "barrier_scene.h"
#include "fricl/fricl_barrier.h"

#define NV 400
#define NC 400 /* contacts per group: a part per device */

typedef struct scene {
  int dim, ng;
  uint32_t flags; /* the batch's */
  double x[NV * 3], dir[NV * 3];
  int32_t ids[5][NC * 4];
  double w[5][NC], pn[NC * 3], pc[NC];
  fricl_stencil types[5];
} scene;

static void make_scene(scene *s, int dim) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  for (int i = 0; i < NV * dim; ++i) {
    s->x[i] = bs_range(0, 1);
    s->dir[i] = cos(0.5 + i);
  }
  const fricl_stencil t3[5] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                               FRICL_STENCIL_PV};
  const fricl_stencil t2[3] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_PV};
  s->ng = dim == 3 ? 5 : 3;
  for (int g = 0; g < s->ng; ++g) {
    s->types[g] = dim == 3 ? t3[g] : t2[g];
    const int k = fricl_stencil_vertex_count(s->types[g]);
    for (int c = 0; c < NC; ++c) {
      const int32_t base = (int32_t)(bs_uniform() * (NV - 4));
      for (int i = 0; i < k; ++i)
        s->ids[g][c * k + i] = base + i;
      s->w[g][c] = bs_range(-0.5, 2.0);
    }
  }
  for (int c = 0; c < NC; ++c) {
    for (int r = 0; r < dim; ++r)
      s->pn[c * dim + r] = bs_range(-1, 1);
    s->pc[c] = bs_range(-0.5, 0.5);
  }
}

/* All outputs of one call, in the precision's type. */
typedef struct outputs {
  size_t esz, nnz;
  void *pot, *grad, *prod, *hv, *gpot[5], *lg[5], *lh[5];
} outputs;

static void *copy_as(const double *src, size_t n, size_t esz) {
  void *p = malloc(n * esz + 1);
  for (size_t i = 0; i < n; ++i) {
    if (esz == 8)
      ((double *)p)[i] = src[i];
    else
      ((float *)p)[i] = (float)src[i];
  }
  return p;
}

/* Evaluate the scene on ctx (a plan of its own) into o (allocated). */
static fricl_status run(fricl_context *ctx, const scene *s, fricl_precision p,
                        outputs *o) {
  const size_t esz = p == FRICL_F64 ? 8 : 4, dim = (size_t)s->dim;
  const size_t nvd = NV * dim;
  memset(o, 0, sizeof *o);
  o->esz = esz;
  fricl_barrier_group G[5];
  memset(G, 0, sizeof G);
  void *w[5] = {0}, *pn = copy_as(s->pn, NC * dim, esz),
       *pc = copy_as(s->pc, NC, esz);
  void *x = copy_as(s->x, nvd, esz), *dir = copy_as(s->dir, nvd, esz);
  for (int g = 0; g < s->ng; ++g) {
    const size_t nd = (size_t)fricl_stencil_vertex_count(s->types[g]) * dim;
    w[g] = copy_as(s->w[g], NC, esz);
    G[g].type = s->types[g];
    G[g].count = NC;
    G[g].vertices = s->ids[g];
    G[g].weight = w[g];
    if (s->types[g] == FRICL_STENCIL_PV) {
      G[g].plane_normal = pn;
      G[g].plane_offset = pc;
    }
    G[g].potential = o->gpot[g] = calloc(NC, esz);
    G[g].local_gradient = o->lg[g] = calloc(NC * nd, esz);
    G[g].local_hessian = o->lh[g] = calloc(NC * nd * nd, esz);
  }
  fricl_tangential_plan *plan = NULL;
  fricl_status st =
      fricl_barrier_plan_create(ctx, s->dim, NV, (size_t)s->ng, G, &plan);
  if (st == FRICL_STATUS_OK) {
    fricl_tangential_plan_bsr(plan, NULL, &o->nnz, NULL, NULL);
    o->pot = calloc(1, esz);
    o->grad = calloc(nvd, esz);
    o->prod = calloc(nvd, esz);
    o->hv = calloc(o->nnz * dim * dim + 1, esz);
    fricl_barrier_batch b;
    fricl_barrier_batch_init(&b);
    b.precision = p;
    b.dim = s->dim;
    b.psd = FRICL_PSD_CLAMP;
    b.flags = s->flags;
    b.n_vertices = NV;
    b.positions = x;
    b.dhat = 0.15;
    b.kappa = 3.0;
    b.n_groups = (size_t)s->ng;
    b.groups = G;
    b.plan = plan;
    b.direction = dir;
    b.potential = o->pot;
    b.gradient = o->grad;
    b.hessian_values = o->hv;
    b.hessian_product = o->prod;
    st = fricl_barrier_eval(ctx, &b);
  }
  fricl_tangential_plan_destroy(plan);
  for (int g = 0; g < 5; ++g)
    free(w[g]);
  free(pn), free(pc), free(x), free(dir);
  return st;
}

static void free_out(outputs *o) {
  free(o->pot), free(o->grad), free(o->prod), free(o->hv);
  for (int g = 0; g < 5; ++g)
    free(o->gpot[g]), free(o->lg[g]), free(o->lh[g]);
  memset(o, 0, sizeof *o);
}

/* Bitwise equality of every output (tol < 0), or max relative error of
 * the global ones within tol. */
static int agree(const outputs *a, const outputs *b, const scene *s,
                 double tol) {
  const size_t dim = (size_t)s->dim, nvd = NV * dim, esz = a->esz;
  const void *pa[4] = {a->pot, a->grad, a->prod, a->hv};
  const void *pb[4] = {b->pot, b->grad, b->prod, b->hv};
  const size_t n[4] = {1, nvd, nvd, a->nnz * dim * dim};
  if (tol < 0) {
    int ok = a->nnz == b->nnz;
    for (int i = 0; i < 4 && ok; ++i)
      ok = !memcmp(pa[i], pb[i], n[i] * esz);
    for (int g = 0; g < s->ng && ok; ++g) {
      const size_t nd = (size_t)fricl_stencil_vertex_count(s->types[g]) * dim;
      ok = !memcmp(a->gpot[g], b->gpot[g], NC * esz) &&
           !memcmp(a->lg[g], b->lg[g], NC * nd * esz) &&
           !memcmp(a->lh[g], b->lh[g], NC * nd * nd * esz);
    }
    return ok;
  }
  for (int i = 0; i < 4; ++i) {
    double e = 0, m = 0;
    for (size_t j = 0; j < n[i]; ++j) {
      const double x =
          esz == 8 ? ((const double *)pa[i])[j] : ((const float *)pa[i])[j];
      const double y =
          esz == 8 ? ((const double *)pb[i])[j] : ((const float *)pb[i])[j];
      e = fmax(e, fabs(x - y));
      m = fmax(m, fabs(y));
    }
    if (!(e <= tol * m))
      return 0;
  }
  return 1;
}

static fricl_context *make(const char *spec, size_t crossover,
                           const char *shares) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  p.auto_crossover = crossover;
  char err[512] = "";
  p.error_buffer = err;
  p.error_buffer_size = sizeof err;
  if (shares)
    setenv("FRICL_MULTI_SHARES", shares, 1);
  fricl_context *ctx = NULL;
  const fricl_status st = fricl_context_create(&ctx, &p);
  if (shares)
    unsetenv("FRICL_MULTI_SHARES");
  CHECK(st == FRICL_STATUS_OK, "create %s: %s", spec, err);
  return st == FRICL_STATUS_OK ? ctx : NULL;
}

static const char *name_of(fricl_context *ctx) {
  return fricl_backend_name(fricl_context_last_backend(ctx));
}

/* "auto" and the explicit specs: who ran, and the results. */
static void routes(int have_device, int gpu) {
  static scene s;
  make_scene(&s, 3);
  outputs ref, out;
  fricl_context *r = make("reference", 0, NULL);
  if (!r)
    return;
  CHECK(run(r, &s, FRICL_F64, &ref) == FRICL_STATUS_OK, "reference: %s",
        fricl_context_last_error(r));
  CHECK(fricl_context_last_backend(r) == FRICL_BACKEND_REFERENCE,
        "reference ran on %s", name_of(r));
  /* Default crossover: CPU devices never (the host is as fast); a GPU
   * from 2^14 contacts, more than this call has. */
  fricl_context *a = make("auto", 0, NULL);
  if (a) {
    CHECK(run(a, &s, FRICL_F64, &out) == FRICL_STATUS_OK, "auto: %s",
          fricl_context_last_error(a));
    CHECK(fricl_context_last_backend(a) == FRICL_BACKEND_HOST,
          "auto, default crossover: ran on %s", name_of(a));
    CHECK(agree(&out, &ref, &s, -1), "auto on the host: not bitwise the "
                                     "reference");
    free_out(&out);
    fricl_context_destroy(a);
  }
  (void)gpu;
  /* Crossover 1: the device, when there is one. */
  a = make("auto", 1, NULL);
  if (a) {
    CHECK(run(a, &s, FRICL_F64, &out) == FRICL_STATUS_OK, "auto x1: %s",
          fricl_context_last_error(a));
    CHECK(fricl_context_last_backend(a) ==
              (have_device ? FRICL_BACKEND_OPENCL : FRICL_BACKEND_HOST),
          "auto, crossover 1: ran on %s", name_of(a));
    CHECK(agree(&out, &ref, &s, 1e-10), "auto x1: not the reference");
    free_out(&out);
    fricl_context_destroy(a);
  }
  /* Crossover above the call's contacts: the host. */
  a = make("auto", (size_t)NC * 5 + 1, NULL);
  if (a) {
    CHECK(run(a, &s, FRICL_F64, &out) == FRICL_STATUS_OK, "auto x: %s",
          fricl_context_last_error(a));
    CHECK(fricl_context_last_backend(a) == FRICL_BACKEND_HOST,
          "auto, crossover above the call: ran on %s", name_of(a));
    free_out(&out);
    fricl_context_destroy(a);
  }
  a = make("auto", SIZE_MAX, NULL);
  if (a) {
    CHECK(run(a, &s, FRICL_F64, &out) == FRICL_STATUS_OK, "auto max");
    CHECK(fricl_context_last_backend(a) == FRICL_BACKEND_HOST,
          "auto, crossover SIZE_MAX: ran on %s", name_of(a));
    free_out(&out);
    fricl_context_destroy(a);
  }
  fricl_context *h = make("host", 0, NULL);
  if (h) {
    CHECK(run(h, &s, FRICL_F64, &out) == FRICL_STATUS_OK, "host");
    CHECK(fricl_context_last_backend(h) == FRICL_BACKEND_HOST, "host ran on %s",
          name_of(h));
    CHECK(agree(&out, &ref, &s, -1), "host: not bitwise the reference");
    free_out(&out);
    fricl_context_destroy(h);
  }
  free_out(&ref);
  fricl_context_destroy(r);
}

/* Two devices against one, bitwise, under several splits. */
static void two_devices(int dim, fricl_precision p, uint32_t flags) {
  static scene s;
  make_scene(&s, dim);
  s.flags = flags;
  fricl_context *one = make(spec_one, 0, NULL);
  if (!one)
    return;
  if (p == FRICL_F64 && !fricl_context_has_fp64(one)) {
    fricl_context_destroy(one);
    return;
  }
  outputs ref, out;
  CHECK(run(one, &s, p, &ref) == FRICL_STATUS_OK, "one device: %s",
        fricl_context_last_error(one));
  const char *splits[3] = {NULL, "1,3", "5,1"};
  for (int i = 0; i < 3; ++i) {
    fricl_context *two = make(spec_two, 0, splits[i]);
    if (!two)
      continue;
    for (int rep = 0; rep < 2; ++rep) {
      CHECK(run(two, &s, p, &out) == FRICL_STATUS_OK, "two devices: %s",
            fricl_context_last_error(two));
      CHECK(fricl_context_last_backend(two) == FRICL_BACKEND_OPENCL,
            "two devices ran on %s", name_of(two));
      CHECK(agree(&out, &ref, &s, -1),
            "%dD %s flags %u shares %s (call %d): two devices differ from "
            "one",
            dim, p == FRICL_F64 ? "f64" : "f32", flags,
            splits[i] ? splits[i] : "default", rep + 1);
      free_out(&out);
    }
    fricl_context_device d[2];
    size_t n = 0;
    fricl_context_devices(two, d, 2, &n);
    CHECK(n == 2 && d[0].share[FRICL_FEATURE_BARRIER] > 0 &&
              d[1].share[FRICL_FEATURE_BARRIER] > 0,
          "both devices take a share of the barrier (%g, %g)",
          n == 2 ? d[0].share[FRICL_FEATURE_BARRIER] : 0.0,
          n == 2 ? d[1].share[FRICL_FEATURE_BARRIER] : 0.0);
    if (splits[i] && n == 2)
      CHECK(fabs(d[0].share[FRICL_FEATURE_BARRIER] -
                 (i == 1 ? 0.25 : 5.0 / 6.0)) < 1e-2,
            "pinned barrier share %g", d[0].share[FRICL_FEATURE_BARRIER]);
    fricl_context_destroy(two);
  }
  free_out(&ref);
  fricl_context_destroy(one);
}

int main(void) {
  fricl_device_info inf[16];
  size_t n = 0;
  fricl_devices_list(inf, 16, &n);
  int gpu = 0;
  for (size_t i = 0; i < n && i < 16; ++i)
    gpu |= inf[i].is_gpu;
  routes(n > 0, gpu);
  if (n == 0) {
    printf("test_barrier_multi: routes checked; SKIP the device parts (no "
           "OpenCL device)\n");
    return test_failures ? 1 : 77;
  }
  CHECK(find_pair(), "two OpenCL devices of one kind are needed (CTest sets "
                     "POCL_DEVICES=\"pthread pthread\")");
  if (spec_two[0])
    for (int dim = 3; dim >= 2; --dim) {
      two_devices(dim, FRICL_F64, 0);
      two_devices(dim, FRICL_F32, 0);
    }
  /* The flags reach every device's part (3-D: EV and FV contacts change). */
  if (spec_two[0])
    two_devices(3, FRICL_F64, FRICL_BARRIER_FLAG_AS_CLASSIFIED);
  return test_report("test_barrier_multi");
}
