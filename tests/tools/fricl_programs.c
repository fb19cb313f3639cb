/*
 * fricl_programs.c - test-only tool: write out the OpenCL programs the
 * library builds, each as the exact text and build options it hands to
 * clBuildProgram, for compile checks with other compilers
 * (tests/gpu/compile_variants.sh: clang for nvptx64, amdgcn, spir64).
 *
 *   fricl_programs OUTDIR   (on FRICL_DEVICE, an OpenCL device; default
 *                            opencl:0:0)
 *
 * It drives the public API (and, for the copy kernel, the internal one)
 * over every program family and records each program through the
 * observer of the test library fricl_static_fi (src/fault.h); nothing of
 * this is in the installed library. The variants are those the library
 * generates for a covering set of calls, per precision:
 *   scalar      each term alone and all terms, both mu profiles; all terms
 *               with each per-element parameter array, and with all three
 *   tangential  per dimension and stencil: every output (PSD clamp, ipctk
 *               profile, weights, anisotropy), every output with PSD abs
 *               and FRICL_TANGENTIAL_FLAG_IPCTK_ABS, the total D alone,
 *               per-contact D alone, the gradient alone (short records);
 *               their gather, block-sum and accumulate kernels
 *   build       per dimension and stencil: every input and output
 *               (rest positions, per-contact dmin and weight, per-vertex
 *               mu_s and per-contact mu_k, physical barrier), the same with
 *               mu_s per contact and mu_k per vertex, and N alone
 *   laws        per law: eval with every output and every option; step
 *               with each of its integrators; every parameter, N and (GMS)
 *               the element parameters per element; N per step
 *   copy        the benchmark's copy kernel
 *   barrier     per dimension and stencil, both tiers (fricl_barrier_eval
 *               on the device, and fricl_barrier_eval_cl on cl_mem
 *               buffers with their gathers and sums): the value alone
 *               (PSD none); every output with PSD clamp, the physical
 *               barrier, rest positions, per-contact weight, dmin and
 *               distance types; every output with PSD abs, weights only
 *   force       per dimension and stencil: the force alone; the Jacobian
 *               with respect to rest positions (weight, anisotropy,
 *               physical barrier); with respect to velocities (no_mu)
 *   collisions  the collision build's narrow phase (f64 only), per
 *               dimension and candidate type: a 2-D polyline with codim.
 *               points (vv, ev) and a 3-D pair of triangles with a codim.
 *               edge and points (vv, ev, ee, fv), on the device at any size
 * and last a larger contact set in the same context (the scratch buffers
 * grow: tests/oclgrind/README.md).
 * so that every #if branch of every kernel file is compiled both ways and
 * every specialisation define takes each of its values at least once.
 * Each distinct (text, options) is written once: OUTDIR/NNN_family.cl
 * and OUTDIR/NNN_family.opts. Exit 0 when every call succeeded.
 * FRICL_PROGRAMS_ONLY=FAMILY runs that family's calls alone (a quicker
 * oclgrind pass over one kernel file).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fault.h"
#include "fricl/fricl.h"
#include "fricl/fricl_barrier_cl.h"
#include "fricl/fricl_collisions.h"
#include "opencl/opencl.h"

static const char *g_out;
static int g_failures, g_programs, g_family_count[8];
static uint64_t g_seen[4096];
static int g_nseen;

static const char *const family_names[8] = {"scalar", "tangential", "build",
                                            "laws",   "copy",       "barrier",
                                            "force",  "collisions"};

static int family_of(const char *src) {
  if (strstr(src, "fricl_barrier_records"))
    return 5;
  if (strstr(src, "fricl_force_records"))
    return 6;
  if (strstr(src, "fricl_collisions_narrow"))
    return 7;
  if (strstr(src, "fricl_scalar_eval"))
    return 0;
  if (strstr(src, "fricl_tangential_block_sum"))
    return 1;
  if (strstr(src, "fricl_build_contacts"))
    return 2;
  if (strstr(src, "fricl_law_run"))
    return 3;
  return 4;
}

static uint64_t fnv1a(uint64_t h, const char *s) {
  for (; *s; ++s)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

static void observer(void *user, const char *source, const char *options) {
  (void)user;
  const uint64_t h = fnv1a(fnv1a(0xcbf29ce484222325ull, source), options);
  for (int i = 0; i < g_nseen; ++i)
    if (g_seen[i] == h)
      return;
  if (g_nseen == (int)(sizeof g_seen / sizeof g_seen[0])) {
    fprintf(stderr, "fricl_programs: too many programs\n");
    ++g_failures;
    return;
  }
  g_seen[g_nseen++] = h;
  const int fam = family_of(source);
  ++g_family_count[fam];
  char path[4096];
  for (int pass = 0; pass < 2; ++pass) {
    snprintf(path, sizeof path, "%s/%03d_%s.%s", g_out, g_programs,
             family_names[fam], pass ? "opts" : "cl");
    FILE *f = fopen(path, "w");
    if (!f || fputs(pass ? options : source, f) < 0 || fclose(f) != 0) {
      fprintf(stderr, "fricl_programs: cannot write %s\n", path);
      ++g_failures;
      return;
    }
  }
  ++g_programs;
}

static void expect_ok(fricl_context *ctx, fricl_status st, const char *what) {
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl_programs: %s: %s: %s\n", what,
            fricl_status_string(st), fricl_context_last_error(ctx));
    ++g_failures;
  }
}

/* Doubles converted to the precision in a scratch buffer (freed by the
 * caller with free). */
static void *real_array(fricl_precision p, const double *v, size_t n) {
  void *a = malloc((n ? n : 1) * 8);
  for (size_t i = 0; i < n; ++i)
    if (p == FRICL_F32)
      ((float *)a)[i] = (float)v[i];
    else
      ((double *)a)[i] = v[i];
  return a;
}

static void *const_array(fricl_precision p, double v, size_t n) {
  double *d = malloc((n ? n : 1) * sizeof *d);
  for (size_t i = 0; i < n; ++i)
    d[i] = v;
  void *a = real_array(p, d, n);
  free(d);
  return a;
}

/* ------------------------------------------------------------- scalar */

static void scalar_run(fricl_context *ctx, fricl_precision p,
                       fricl_mu_profile prof, uint32_t terms, int arrays) {
  enum { N = 8 };
  double y[N];
  for (int i = 0; i < N; ++i)
    y[i] = 2e-4 * i;
  void *yy = real_array(p, y, N), *eps = const_array(p, 1e-3, N),
       *mus = const_array(p, 0.5, N), *muk = const_array(p, 0.3, N);
  void *out[FRICL_TERM_COUNT];
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.precision = p;
  b.mu_profile = prof;
  b.n = N;
  b.y = yy;
  b.eps_v = 1e-3;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  b.eps_v_array = arrays & 1 ? eps : NULL;
  b.mu_s_array = arrays & 2 ? mus : NULL;
  b.mu_k_array = arrays & 4 ? muk : NULL;
  b.terms = terms;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = out[t] = malloc(N * 8);
  expect_ok(ctx, fricl_scalar_eval(ctx, &b), "scalar");
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    free(out[t]);
  free(yy);
  free(eps);
  free(mus);
  free(muk);
}

static void sweep_scalar(fricl_context *ctx, fricl_precision p) {
  for (int prof = 0; prof < 2; ++prof) {
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      scalar_run(ctx, p, (fricl_mu_profile)prof, FRICL_TERM_BIT(t), 0);
    scalar_run(ctx, p, (fricl_mu_profile)prof, FRICL_TERMS_ALL, 0);
  }
  for (int arrays = 1; arrays < 8; arrays <<= 1)
    scalar_run(ctx, p, FRICL_MU_IPCTK, FRICL_TERMS_ALL, arrays);
  scalar_run(ctx, p, FRICL_MU_IPCTK, FRICL_TERMS_ALL, 7);
}

/* ---------------------------------------------------------- tangential */

/* NV vertices; g_nc contacts per group (3, and NC_MAX in the last run:
 * the context's scratch buffers then grow, as in a solver whose contact
 * set grows). */
enum { NV = 8, NC_MAX = 48 };
static int g_nc = 3;

/* Which outputs a tangential run asks for. */
enum {
  T_TOTAL = 1,
  T_GRAD = 2,
  T_HESS = 4,
  T_PROD = 8,
  T_GPOT = 16,
  T_LOCAL = 32,
  T_FACT = 64,
  T_ALL = 127
};

static void tangential_run(fricl_context *ctx, fricl_precision p, int dim,
                           fricl_stencil type, unsigned outs, fricl_psd psd,
                           uint32_t flags, int extras) {
  const int k = fricl_stencil_vertex_count(type);
  const int nb = fricl_stencil_coord_count(type), m = dim - 1;
  const int ndof = k * dim;
  int32_t vx[NC_MAX * 4];
  for (int c = 0; c < g_nc; ++c)
    for (int i = 0; i < k; ++i)
      vx[c * k + i] = (c + 2 * i) % NV;
  double beta[NC_MAX * 2], P[NC_MAX * 6], v[NV * 3], dir[NV * 3];
  for (int i = 0; i < g_nc * 2; ++i)
    beta[i] = 0.3 + 0.1 * i;
  for (int c = 0; c < g_nc; ++c)
    for (int i = 0; i < dim * m; ++i) /* e_x (and e_y): orthonormal */
      P[c * dim * m + i] = dim == 3 ? (i == 0 || i == 3) : (i == 0);
  for (int i = 0; i < NV * 3; ++i) {
    v[i] = 1e-3 * sin(1.7 * i);
    dir[i] = cos(0.3 * i);
  }
  void *a_beta = real_array(p, beta, (size_t)g_nc * (size_t)nb);
  void *a_P = real_array(p, P, (size_t)g_nc * (size_t)(dim * m));
  void *a_v = real_array(p, v, NV * (size_t)dim);
  void *a_dir = real_array(p, dir, NV * (size_t)dim);
  void *a_N = const_array(p, 1, (size_t)g_nc),
       *a_w = const_array(p, 0.5, (size_t)g_nc);
  void *a_ms = const_array(p, 0.5, (size_t)g_nc),
       *a_mk = const_array(p, 0.3, (size_t)g_nc);
  void *a_an = const_array(p, 1.2, (size_t)g_nc * (size_t)m);
  fricl_contact_group G;
  memset(&G, 0, sizeof G);
  G.type = type;
  G.count = (size_t)g_nc;
  G.vertices = vx;
  G.closest_point = nb ? a_beta : NULL;
  G.tangent_basis = a_P;
  G.normal_force = a_N;
  G.mu_s = a_ms;
  G.mu_k = a_mk;
  G.weight = extras ? a_w : NULL;
  G.mu_aniso = extras ? a_an : NULL;
  void *gpot = malloc((size_t)g_nc * 8),
       *loc = malloc((size_t)g_nc * (size_t)ndof * ndof * 8);
  void *gam = malloc((size_t)g_nc * 4 * 8), *q = malloc((size_t)g_nc * 3 * 8),
       *S = malloc((size_t)g_nc * 6 * 8);
  if (outs & T_GPOT)
    G.potential = gpot;
  if (outs & T_LOCAL)
    G.local_hessian = loc;
  if (outs & T_FACT) {
    G.factored_gamma = gam;
    G.factored_grad = q;
    G.factored_hessian = S;
  }
  fricl_tangential_plan *plan = NULL;
  expect_ok(ctx, fricl_tangential_plan_create(ctx, dim, NV, 1, &G, &plan),
            "tangential plan");
  size_t nnz = 0;
  if (plan)
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  void *pot = malloc(8), *grad = malloc(NV * 3 * 8),
       *hess = malloc((nnz + 1) * 9 * 8), *prod = malloc(NV * 3 * 8);
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.precision = p;
  b.mu_profile = extras ? FRICL_MU_IPCTK : FRICL_MU_CUBIC;
  b.psd = psd;
  b.flags = flags;
  b.dim = dim;
  b.n_vertices = NV;
  b.velocities = a_v;
  b.eps_v = 1e-3;
  b.n_groups = 1;
  b.groups = &G;
  b.plan = plan;
  b.potential = outs & T_TOTAL ? pot : NULL;
  b.gradient = outs & T_GRAD ? grad : NULL;
  b.hessian_values = outs & T_HESS ? hess : NULL;
  if (outs & T_PROD) {
    b.direction = a_dir;
    b.hessian_product = prod;
  }
  if (plan)
    expect_ok(ctx, fricl_tangential_eval(ctx, &b), "tangential");
  fricl_tangential_plan_destroy(plan);
  void *all[] = {a_beta, a_P, a_v, a_dir, a_N, a_w, a_ms, a_mk, a_an,
                 gpot,   loc, gam, q,     S,   pot, grad, hess, prod};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    free(all[i]);
}

static const struct {
  int dim;
  fricl_stencil type;
} shapes[8] = {{3, FRICL_STENCIL_VV}, {3, FRICL_STENCIL_EV},
               {3, FRICL_STENCIL_EE}, {3, FRICL_STENCIL_FV},
               {3, FRICL_STENCIL_PV}, {2, FRICL_STENCIL_VV},
               {2, FRICL_STENCIL_EV}, {2, FRICL_STENCIL_PV}};

static void sweep_tangential(fricl_context *ctx, fricl_precision p) {
  for (int s = 0; s < 8; ++s) {
    const int d = shapes[s].dim;
    const fricl_stencil t = shapes[s].type;
    tangential_run(ctx, p, d, t, T_ALL, FRICL_PSD_CLAMP, 0, 1);
    tangential_run(ctx, p, d, t, T_ALL, FRICL_PSD_ABS,
                   FRICL_TANGENTIAL_FLAG_IPCTK_ABS, 1);
    tangential_run(ctx, p, d, t, T_TOTAL, FRICL_PSD_NONE, 0, 0);
    tangential_run(ctx, p, d, t, T_GPOT, FRICL_PSD_NONE, 0, 0);
    tangential_run(ctx, p, d, t, T_GRAD, FRICL_PSD_NONE, 0, 0);
  }
}

/* --------------------------------------------------------------- build */

static void build_run(fricl_context *ctx, fricl_precision p, int dim,
                      fricl_stencil type, int config) {
  const int k = fricl_stencil_vertex_count(type);
  const int nb = fricl_stencil_coord_count(type), m = dim - 1;
  double X[NV * 3], nrm[NC_MAX * 3];
  for (int i = 0; i < NV * 3; ++i)
    X[i] = 0.5 * sin(1.3 * i + 0.2) + 0.01 * i;
  for (int i = 0; i < g_nc * 3; ++i)
    nrm[i] = i % dim == dim - 1 ? 1 : 0.1;
  int32_t vx[NC_MAX * 4];
  for (int c = 0; c < g_nc; ++c)
    for (int i = 0; i < k; ++i)
      vx[c * k + i] = (c + 2 * i) % NV;
  void *aX = real_array(p, X, NV * (size_t)dim);
  void *aR = real_array(p, X, NV * (size_t)dim);
  void *aN = real_array(p, nrm, (size_t)g_nc * (size_t)dim);
  void *aoff = const_array(p, -0.1, (size_t)g_nc),
       *admin = const_array(p, 1e-3, (size_t)g_nc);
  void *aw = const_array(p, 2, (size_t)g_nc),
       *cmu = const_array(p, 0.4, (size_t)g_nc);
  void *vmu = const_array(p, 0.3, NV);
  void *cp = malloc((size_t)g_nc * 2 * 8), *P = malloc((size_t)g_nc * 6 * 8),
       *Nf = malloc((size_t)g_nc * 8), *dN = malloc((size_t)g_nc * 12 * 8),
       *wo = malloc((size_t)g_nc * 8), *mso = malloc((size_t)g_nc * 8),
       *mko = malloc((size_t)g_nc * 8);
  uint8_t status[NC_MAX];
  size_t counts[FRICL_BUILD_STATUS_COUNT];
  fricl_build_group G;
  memset(&G, 0, sizeof G);
  G.type = type;
  G.count = (size_t)g_nc;
  G.vertices = vx;
  if (type == FRICL_STENCIL_PV) {
    G.plane_normal = aN;
    G.plane_offset = aoff;
  }
  G.normal_force = Nf;
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.precision = p;
  b.dim = dim;
  b.n_vertices = NV;
  b.lagged_positions = aX;
  b.kappa = 1e3;
  b.dhat = 1e-1;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  b.n_groups = 1;
  b.groups = &G;
  if (config > 0) { /* everything */
    b.rest_positions = aR;
    b.flags = FRICL_BUILD_FLAG_PHYSICAL_BARRIER;
    b.blend = config == 1 ? FRICL_BLEND_HARMONIC : FRICL_BLEND_MIN;
    G.dmin = admin;
    G.weight = aw;
    if (config == 1) {
      b.vertex_mu_s = vmu;
      G.mu_k = cmu;
    } else {
      G.mu_s = cmu;
      b.vertex_mu_k = vmu;
    }
    G.closest_point = nb ? cp : NULL;
    G.tangent_basis = P;
    G.normal_force_gradient = dN;
    G.weight_out = wo;
    G.mu_s_out = mso;
    G.mu_k_out = mko;
    G.status = status;
    G.status_counts = counts;
  }
  (void)m;
  expect_ok(ctx, fricl_build(ctx, &b), "build");
  void *all[] = {aX, aR, aN, aoff, admin, aw,  cmu, vmu,
                 cp, P,  Nf, dN,   wo,    mso, mko};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    free(all[i]);
}

static void sweep_build(fricl_context *ctx, fricl_precision p) {
  for (int s = 0; s < 8; ++s)
    for (int config = 0; config < 3; ++config)
      build_run(ctx, p, shapes[s].dim, shapes[s].type, config);
}

/* ------------------------------------------------------------- barrier */

/* A cl_mem copy of a host array (NULL mem for NULL or empty). */
static fricl_buffer_cl cl_copy(cl_context cc, const void *src, size_t bytes,
                               cl_mem *keep, int *nkeep) {
  if (!bytes)
    return (fricl_buffer_cl){NULL, 0};
  cl_int err = CL_SUCCESS;
  cl_mem m =
      clCreateBuffer(cc, CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0),
                     bytes, (void *)(uintptr_t)src, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "fricl_programs: clCreateBuffer: %d\n", (int)err);
    ++g_failures;
    return (fricl_buffer_cl){NULL, 0};
  }
  keep[(*nkeep)++] = m;
  return (fricl_buffer_cl){m, 0};
}

/* config 0: the value alone, PSD none; 1: every output, PSD clamp,
 * physical, rest positions, weight, dmin, distance types; 2: every output,
 * PSD abs, weights. Both tiers. */
static void barrier_run(fricl_context *ctx, fricl_precision p, int dim,
                        fricl_stencil type, int config) {
  const size_t k = (size_t)fricl_stencil_vertex_count(type);
  const size_t esz = p == FRICL_F64 ? 8 : 4, nc = (size_t)g_nc;
  const size_t ndof = k * (size_t)dim, nvd = NV * (size_t)dim;
  double X[NV * 3], R[NV * 3], nrm[NC_MAX * 3];
  for (int i = 0; i < NV * 3; ++i) {
    X[i] = 0.05 * sin(1.3 * i + 0.2) + 0.01 * i;
    R[i] = X[i] + 0.1 * cos(0.7 * i);
  }
  for (size_t i = 0; i < nc * 3; ++i)
    nrm[i] = (int)(i % (size_t)dim) == dim - 1 ? 1 : 0.1;
  int32_t vx[NC_MAX * 4];
  int8_t dt[NC_MAX];
  for (size_t c = 0; c < nc; ++c) {
    for (size_t i = 0; i < k; ++i)
      vx[c * k + i] = (int32_t)((c + 2 * i) % NV);
    dt[c] = (int8_t)(c % 2 ? -1 : 0);
  }
  void *aX = real_array(p, X, nvd), *aR = real_array(p, R, nvd);
  void *aN = real_array(p, nrm, nc * (size_t)dim);
  void *aoff = const_array(p, -0.02, nc), *admin = const_array(p, 1e-3, nc);
  void *aw = const_array(p, 1.5, nc), *dir = const_array(p, 0.3, nvd);
  void *gpot = malloc(nc * esz), *lg = malloc(nc * ndof * esz),
       *lh = malloc(nc * ndof * ndof * esz);
  void *pot = malloc(esz), *grad = malloc(nvd * esz), *prod = malloc(nvd * esz);
  fricl_barrier_group G;
  memset(&G, 0, sizeof G);
  G.type = type;
  G.count = nc;
  G.vertices = vx;
  if (type == FRICL_STENCIL_PV) {
    G.plane_normal = aN;
    G.plane_offset = aoff;
  }
  fricl_tangential_plan *plan = NULL;
  expect_ok(ctx, fricl_barrier_plan_create(ctx, dim, NV, 1, &G, &plan),
            "barrier plan");
  size_t nnz = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  void *hv = malloc((nnz ? nnz : 1) * (size_t)(dim * dim) * esz);
  fricl_barrier_batch b;
  fricl_barrier_batch_init(&b);
  b.precision = p;
  b.dim = dim;
  b.n_vertices = NV;
  b.positions = aX;
  b.dhat = 0.5;
  b.kappa = 10;
  b.n_groups = 1;
  b.groups = &G;
  b.plan = plan;
  b.potential = pot;
  b.psd = config == 0   ? FRICL_PSD_NONE
          : config == 1 ? FRICL_PSD_CLAMP
                        : FRICL_PSD_ABS;
  if (config > 0) {
    G.weight = aw;
    G.potential = gpot;
    G.local_gradient = lg;
    G.local_hessian = lh;
    b.direction = dir;
    b.gradient = grad;
    b.hessian_values = hv;
    b.hessian_product = prod;
  }
  if (config == 1) {
    G.dmin = admin;
    G.distance_type =
        type == FRICL_STENCIL_VV || type == FRICL_STENCIL_PV ? NULL : dt;
    b.rest_positions = aR;
    b.flags = FRICL_BARRIER_FLAG_PHYSICAL;
  }
  expect_ok(ctx, fricl_barrier_eval(ctx, &b), "barrier (host tier)");
  /* The cl_mem tier on copies of the same arrays. */
  cl_context cc = NULL;
  cl_command_queue q = NULL;
  fricl_context_get_cl(ctx, &cc, NULL, &q);
  cl_mem keep[24];
  int nkeep = 0;
  fricl_barrier_group_cl D;
  memset(&D, 0, sizeof D);
  D.type = type;
  D.count = nc;
  D.vertices = cl_copy(cc, vx, nc * k * 4, keep, &nkeep);
  D.weight = cl_copy(cc, G.weight, G.weight ? nc * esz : 0, keep, &nkeep);
  D.dmin = cl_copy(cc, G.dmin, G.dmin ? nc * esz : 0, keep, &nkeep);
  D.plane_normal =
      cl_copy(cc, G.plane_normal, G.plane_normal ? nc * (size_t)dim * esz : 0,
              keep, &nkeep);
  D.plane_offset =
      cl_copy(cc, G.plane_offset, G.plane_offset ? nc * esz : 0, keep, &nkeep);
  D.distance_type =
      cl_copy(cc, G.distance_type, G.distance_type ? nc : 0, keep, &nkeep);
  D.potential = cl_copy(cc, NULL, G.potential ? nc * esz : 0, keep, &nkeep);
  D.local_gradient =
      cl_copy(cc, NULL, G.local_gradient ? nc * ndof * esz : 0, keep, &nkeep);
  D.local_hessian = cl_copy(
      cc, NULL, G.local_hessian ? nc * ndof * ndof * esz : 0, keep, &nkeep);
  fricl_barrier_batch_cl c;
  fricl_barrier_batch_cl_init(&c);
  c.precision = p;
  c.psd = b.psd;
  c.flags = b.flags;
  c.dim = dim;
  c.n_vertices = NV;
  c.positions = cl_copy(cc, aX, nvd * esz, keep, &nkeep);
  c.rest_positions = cl_copy(cc, b.rest_positions,
                             b.rest_positions ? nvd * esz : 0, keep, &nkeep);
  c.dhat = b.dhat;
  c.kappa = b.kappa;
  c.n_groups = 1;
  c.groups = &D;
  c.plan = plan;
  c.direction =
      cl_copy(cc, b.direction, b.direction ? nvd * esz : 0, keep, &nkeep);
  c.potential = cl_copy(cc, NULL, esz, keep, &nkeep);
  c.gradient = cl_copy(cc, NULL, b.gradient ? nvd * esz : 0, keep, &nkeep);
  c.hessian_product =
      cl_copy(cc, NULL, b.hessian_product ? nvd * esz : 0, keep, &nkeep);
  c.hessian_values = cl_copy(
      cc, NULL,
      b.hessian_values ? (nnz ? nnz : 1) * (size_t)(dim * dim) * esz : 0, keep,
      &nkeep);
  expect_ok(ctx, fricl_barrier_eval_cl(ctx, &c, 0, NULL, NULL),
            "barrier (cl_mem tier)");
  if (q)
    clFinish(q);
  for (int i = 0; i < nkeep; ++i)
    clReleaseMemObject(keep[i]);
  fricl_tangential_plan_destroy(plan);
  void *all[] = {aX,   aR, aN, aoff, admin, aw,   dir,
                 gpot, lg, lh, pot,  grad,  prod, hv};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    free(all[i]);
}

static void sweep_barrier(fricl_context *ctx, fricl_precision p) {
  for (int s = 0; s < 8; ++s)
    for (int config = 0; config < 3; ++config)
      barrier_run(ctx, p, shapes[s].dim, shapes[s].type, config);
}

/* --------------------------------------------------------------- force */

/* wrt 0 (force alone), rest positions (with weight, anisotropy, the
 * physical barrier, rest positions given) and velocities (no_mu, no rest
 * positions): every define of kernels/fricl_force.cl. */
static void force_run(fricl_context *ctx, fricl_precision p, int dim,
                      fricl_stencil type, int wrt) {
  const size_t k = (size_t)fricl_stencil_vertex_count(type);
  const size_t esz = p == FRICL_F64 ? 8 : 4, nc = (size_t)g_nc;
  const size_t ndof = k * (size_t)dim, nvd = NV * (size_t)dim;
  double X[NV * 3], V[NV * 3], nrm[NC_MAX * 3];
  for (int i = 0; i < NV * 3; ++i) {
    X[i] = 0.05 * sin(1.3 * i + 0.2) + 0.01 * i;
    V[i] = 1e-3 * cos(0.7 * i);
  }
  for (size_t i = 0; i < nc * 3; ++i)
    nrm[i] = (int)(i % (size_t)dim) == dim - 1 ? 1 : 0.1;
  int32_t vx[NC_MAX * 4];
  for (size_t c = 0; c < nc; ++c)
    for (size_t i = 0; i < k; ++i)
      vx[c * k + i] = (int32_t)((c + 2 * i) % NV);
  void *aX = real_array(p, X, nvd), *aV = real_array(p, V, nvd);
  void *aU = const_array(p, 1e-4, nvd), *aN = real_array(p, nrm, nc * 3);
  void *aoff = const_array(p, -0.02, nc), *aw = const_array(p, 1.5, nc);
  void *ams = const_array(p, 0.5, nc), *amk = const_array(p, 0.3, nc);
  void *aan = const_array(p, 0.8, nc * 2);
  void *F = malloc(nvd * esz), *lj = malloc(nc * ndof * ndof * esz);
  fricl_force_group G;
  memset(&G, 0, sizeof G);
  G.type = type;
  G.count = nc;
  G.vertices = vx;
  G.mu_s = ams;
  G.mu_k = amk;
  if (type == FRICL_STENCIL_PV) {
    G.plane_normal = aN;
    G.plane_offset = aoff;
  }
  fricl_force_batch b;
  fricl_force_batch_init(&b);
  b.precision = p;
  b.dim = dim;
  b.mu_profile = FRICL_MU_IPCTK;
  b.n_vertices = NV;
  b.lagged_displacements = aU;
  b.velocities = aV;
  b.eps_v = 1e-3;
  b.kappa = 10;
  b.dhat = 0.2;
  b.n_groups = 1;
  b.groups = &G;
  b.force = F;
  if (wrt == FRICL_FORCE_WRT_REST_POSITIONS) {
    b.rest_positions = aX;
    b.flags = FRICL_FORCE_FLAG_PHYSICAL_BARRIER;
    G.weight = aw;
    G.mu_aniso = aan;
  } else {
    b.lagged_displacements = aX;
    if (wrt == FRICL_FORCE_WRT_VELOCITIES)
      b.flags = FRICL_FORCE_FLAG_NO_MU;
  }
  b.wrt = (fricl_force_wrt)wrt;
  if (wrt)
    G.local_jacobian = lj;
  expect_ok(ctx, fricl_force_eval(ctx, &b), "force");
  if (fricl_context_last_backend(ctx) != FRICL_BACKEND_OPENCL) {
    fprintf(stderr, "fricl_programs: the force did not run on the device\n");
    ++g_failures;
  }
  void *all[] = {aX, aV, aU, aN, aoff, aw, ams, amk, aan, F, lj};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    free(all[i]);
}

static void sweep_force(fricl_context *ctx, fricl_precision p) {
  for (int s = 0; s < 8; ++s)
    for (int wrt = 0; wrt <= 3; wrt += wrt ? 2 : 1)
      force_run(ctx, p, shapes[s].dim, shapes[s].type, wrt);
}

/* ---------------------------------------------------------------- laws */

/* Valid parameters of every law (fricl_law_info order). */
static const double LAW_P[FRICL_LAW_COUNT][7] = {
    {0.1, 0.05, 0.3, 1e-3, 1e-3},
    {-0.01, -1, 0.02, 2},
    {0.1, 0.05, 0.005, 0.01, 0.2},
    {-100, 1, 0.01, 0},
    {0.15},
    {0.25, 0.15, 0.01, 2},
    {1000, 0.15},
    {0.25, 0.15, 0.01, 2, 1e4},
    {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2},
    {0.5, 0.3, 20, 1e4, 0.1, 0.01, 2}};

enum { LN = 4, LSTEPS = 3, LM = 2 };

/* mode 0: eval, every output and option; 1..3: step with integrator
 * mode - 1 (non-ODE laws: mode 1 only); 4: eval, everything per element;
 * 5: step, N per step. */
static void law_run(fricl_context *ctx, fricl_precision p, fricl_law law,
                    int mode) {
  fricl_law_info info;
  fricl_law_get_info(law, &info);
  const int step = mode >= 1 && mode != 4;
  const size_t S = (size_t)info.state_size * (law == FRICL_LAW_GMS ? LM : 1);
  double v[LN * LSTEPS], ge[LN * 3 * LM];
  for (int i = 0; i < LN * LSTEPS; ++i)
    v[i] = 0.02 * sin(0.9 * i + 0.1);
  for (int i = 0; i < LN * 3 * LM; ++i)
    ge[i] = i % 3 == 2 ? 1.5 : 1e3;
  void *av = real_array(p, v, LN * LSTEPS), *ax = real_array(p, v, LN * LSTEPS);
  void *an = const_array(p, 10, LN * LSTEPS);
  void *age = real_array(p, ge, LN * 3 * LM);
  void *ast = const_array(p, 1e-5, LN * (S ? S : 1));
  void *ads = malloc(LN * (S ? S : 1) * 8), *af = malloc(LN * LSTEPS * 8);
  void *pa[7];
  for (int q = 0; q < 7; ++q)
    pa[q] = const_array(p, LAW_P[law][q], LN);
  fricl_law_batch b;
  fricl_law_batch_init(&b, law);
  b.precision = p;
  b.n = LN;
  b.n_steps = step ? LSTEPS : 1;
  for (int q = 0; q < info.param_count; ++q) {
    b.param[q] = LAW_P[law][q];
    if (mode == 4)
      b.param_array[q] = pa[q];
  }
  if (info.uses_velocity)
    b.v = av;
  if (info.uses_position)
    b.x = ax;
  if (info.uses_normal) {
    b.normal_force = 10;
    if (mode == 4 || mode == 5) {
      b.normal = an;
      b.normal_per_step = mode == 5;
    }
  }
  if (law == FRICL_LAW_GMS) {
    b.gms_elements = LM;
    b.gms_params = age;
    b.gms_params_per_element = mode == 4;
  }
  if (mode == 0)
    b.options = info.options;
  b.force = af;
  if (S) {
    b.state = ast;
    if (!info.ode_state || step)
      b.state_out = ast; /* in place */
    else
      b.dstate = ads;
  }
  if (step && info.ode_state) {
    b.h = 1e-3;
    b.integrator =
        mode == 5 ? FRICL_INTEGRATOR_EULER : (fricl_integrator)(mode - 1);
  }
  char what[64];
  snprintf(what, sizeof what, "law %s mode %d", info.name, mode);
  expect_ok(ctx, step ? fricl_law_step(ctx, &b) : fricl_law_eval(ctx, &b),
            what);
  void *all[] = {av, ax, an, age, ast, ads, af};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    free(all[i]);
  for (int q = 0; q < 7; ++q)
    free(pa[q]);
}

static void sweep_laws(fricl_context *ctx, fricl_precision p) {
  for (int l = 0; l < FRICL_LAW_COUNT; ++l) {
    fricl_law_info info;
    fricl_law_get_info((fricl_law)l, &info);
    const int integrators =
        !info.ode_state ? 1 : (l == FRICL_LAW_LUGRE ? 3 : 2);
    law_run(ctx, p, (fricl_law)l, 0);
    for (int i = 0; i < integrators; ++i)
      law_run(ctx, p, (fricl_law)l, 1 + i);
    law_run(ctx, p, (fricl_law)l, 4);
    if (info.uses_normal)
      law_run(ctx, p, (fricl_law)l, 5);
  }
}

/* ---------------------------------------------------------------- copy */

static void copy_kernel(fricl_context *ctx, fricl_precision p) {
  cl_kernel k = NULL;
  fricl__ocl *o = NULL;
  if (fricl__ocl_of(ctx, "fricl_programs", &o) != FRICL_STATUS_OK) {
    expect_ok(ctx, FRICL_STATUS_UNSUPPORTED, "copy kernel");
    return;
  }
  const char *defines = p == FRICL_F64
                            ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                              "#define FRICL_REAL double\n"
                            : "#define FRICL_REAL float\n";
  expect_ok(ctx,
            fricl__ocl_kernel(o, "fricl_copy.cl", NULL, "fricl_copy", defines,
                              &k, NULL),
            "copy kernel");
}

/* --------------------------------------------------------- collisions */

/* One collision build with its narrow phase on the device. */
static void collisions_run(fricl_context *ctx, int dim, size_t nv,
                           const double *x, size_t ne, const int32_t *e,
                           size_t nf, const int32_t *f) {
  fricl_collision_mesh_desc d;
  fricl_collision_mesh_desc_init(&d);
  d.dim = dim;
  d.n_vertices = nv;
  d.rest_positions = x;
  d.n_edges = ne;
  d.edges = e;
  d.n_faces = nf;
  d.faces = f;
  fricl_collision_mesh *m = NULL;
  expect_ok(ctx, fricl_collision_mesh_create(ctx, &d, &m), "collision mesh");
  fricl_collisions_options o;
  fricl_collisions_options_init(&o);
  o.dhat = 0.2;
  o.flags = FRICL_COLLISIONS_IMPROVED_MAX_APPROX;
  o.device_min_candidates = 1;
  fricl_collision_set *set = NULL;
  if (m)
    expect_ok(ctx, fricl_collisions_build(ctx, m, x, &o, &set), "collisions");
  fricl_collision_set_destroy(set);
  fricl_collision_mesh_destroy(m);
}

static void sweep_collisions(fricl_context *ctx) {
  /* 2-D: a polyline and two codim. points near it and each other. */
  const double x2[] = {0, 0, 0.5, 0.05, 1, 0, 0.3, 0.1, 0.35, 0.12};
  const int32_t e2[] = {0, 1, 1, 2};
  collisions_run(ctx, 2, 5, x2, 2, e2, 0, NULL);
  /* 3-D: two triangles 0.05 apart (fv, ee), a codim. edge and two
   * codim. points (ev, vv). */
  const double x3[] = {0,   0,    0,     1,    0,    0,    0,    1,
                       0,   0.2,  0.2,   0.05, 1.2,  0.2,  0.05, 0.2,
                       1.2, 0.05, 0.3,   0.3,  -0.1, 0.6,  0.3,  -0.1,
                       0.4, 0.35, -0.05, 0.42, 0.36, -0.06};
  const int32_t e3[] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3, 6, 7};
  const int32_t f3[] = {0, 1, 2, 3, 4, 5};
  collisions_run(ctx, 3, 10, x3, 7, e3, 2, f3);
}

/* FRICL_PROGRAMS_ONLY names one family (or is unset: all of them). */
static int wants(const char *family) {
  const char *only = getenv("FRICL_PROGRAMS_ONLY");
  return !only || !*only || strcmp(only, family) == 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fricl_programs OUTDIR\n");
    return 2;
  }
  g_out = argv[1];
  if (mkdir(g_out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "fricl_programs: cannot create %s\n", g_out);
    return 1;
  }
  /* An explicit OpenCL device: "auto" would keep these tiny batches on the
   * host backend. */
  const char *env = getenv("FRICL_DEVICE");
  fricl_context_params cp;
  fricl_context_params_init(&cp);
  cp.device = env && *env ? env : "opencl:0:0";
  char err[512] = "";
  cp.error_buffer = err;
  cp.error_buffer_size = sizeof err;
  fricl_context *ctx = NULL;
  if (fricl_context_create(&ctx, &cp) != FRICL_STATUS_OK ||
      fricl_context_backend(ctx) != FRICL_BACKEND_OPENCL) {
    fprintf(stderr, "fricl_programs: needs an OpenCL device: %s\n",
            ctx ? "the default device is the reference backend" : err);
    fricl_context_destroy(ctx);
    return 1;
  }
  fricl__fault_observe_programs(observer, NULL);
  for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
    if (p == FRICL_F64 && !fricl_context_has_fp64(ctx)) {
      fprintf(stderr,
              "fricl_programs: no fp64 on %s: f64 variants not "
              "written\n",
              fricl_context_device_name(ctx));
      continue;
    }
    const fricl_precision pp = (fricl_precision)p;
    if (wants("scalar"))
      sweep_scalar(ctx, pp);
    if (wants("tangential"))
      sweep_tangential(ctx, pp);
    if (wants("build"))
      sweep_build(ctx, pp);
    if (wants("laws"))
      sweep_laws(ctx, pp);
    if (wants("copy"))
      copy_kernel(ctx, pp);
    if (wants("barrier"))
      sweep_barrier(ctx, pp);
    if (wants("force"))
      sweep_force(ctx, pp);
    if (wants("collisions") && pp == FRICL_F64)
      sweep_collisions(ctx);
  }
  /* Growth: the same programs on a larger contact set, in the same
   * context, so that its scratch buffers are released and made larger. */
  g_nc = NC_MAX;
  const fricl_precision pg =
      fricl_context_has_fp64(ctx) ? FRICL_F64 : FRICL_F32;
  if (wants("tangential"))
    tangential_run(ctx, pg, 3, FRICL_STENCIL_FV, T_ALL, FRICL_PSD_CLAMP, 0, 1);
  if (wants("build"))
    build_run(ctx, pg, 3, FRICL_STENCIL_EE, 1);
  if (wants("barrier"))
    barrier_run(ctx, pg, 3, FRICL_STENCIL_EE, 1);
  fricl__fault_observe_programs(NULL, NULL);
  printf("fricl_programs: %d programs on %s:", g_programs,
         fricl_context_device_name(ctx));
  for (int f = 0; f < 8; ++f)
    printf(" %s %d", family_names[f], g_family_count[f]);
  printf("\n");
  fricl_context_destroy(ctx);
  return g_failures ? 1 : 0;
}
