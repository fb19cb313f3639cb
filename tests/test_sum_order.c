/*
 * test_sum_order.c - every sum of fricl_tangential_eval happens in the
 * documented order, on every backend (README "Determinism"):
 *   - the total D: contacts in group order, in blocks of 1024; each block
 *     summed from 0 in contact order, the block sums added from 0 in order;
 *   - the gradient: per vertex, gamma_i q over its (contact, slot) entries
 *     in contact order, from 0;
 *   - the BSR Hessian: per block, (gamma_i gamma_j) S_rs in contact order;
 *   - the matrix-free product: per vertex, gamma_i t with
 *     t = S (sum_j gamma_j p_j), each inner sum in index order.
 * The oracle recomputes these sums here, in plain C, from the per-contact
 * outputs (D, gamma, q, S) that the same call returned, so a device whose
 * compiler reorders a reduction (Intel's CPU runtime vectorised the block
 * sum into lane-wise partial sums, 1-4 ulp off) fails bitwise. The data
 * spans twelve decades of N so that any other order changes the result,
 * which the test checks too (it could not fail otherwise). Run whole and
 * in chunks of 1024 contacts (the chunked path adds to the running
 * totals), in f64 and f32, 3-D (ev, fv, pv) and 2-D (vv, pv).
 */
#include "tangential_scene.h"

#define POT_BLOCK 1024

typedef struct {
  int dim;
  size_t nv, ng, count[3];
  fricl_stencil type[3];
  int k[3], nb[3];
  int32_t *vx[3];
  double *beta[3], *P[3], *N[3], *w[3], *ms[3], *mk[3], *a[3];
  double *vel, *dir;
} scene;

static void scene_make(scene *S, int dim) {
  memset(S, 0, sizeof *S);
  S->dim = dim;
  S->nv = 500;
  const fricl_stencil t3[3] = {FRICL_STENCIL_EV, FRICL_STENCIL_FV,
                               FRICL_STENCIL_PV};
  const fricl_stencil t2[2] = {FRICL_STENCIL_VV, FRICL_STENCIL_PV};
  const size_t c3[3] = {1700, 1500, 1900}, c2[2] = {2300, 1800};
  S->ng = dim == 3 ? 3 : 2;
  const int m = dim - 1;
  for (size_t g = 0; g < S->ng; ++g) {
    S->type[g] = dim == 3 ? t3[g] : t2[g];
    S->count[g] = dim == 3 ? c3[g] : c2[g];
    const size_t n = S->count[g];
    const int k = S->k[g] = fricl_stencil_vertex_count(S->type[g]);
    const int nb = S->nb[g] = fricl_stencil_coord_count(S->type[g]);
    S->vx[g] = malloc(n * (size_t)k * sizeof(int32_t));
    S->beta[g] = malloc((n * (size_t)nb + 1) * sizeof(double));
    S->P[g] = malloc(n * (size_t)(dim * m) * sizeof(double));
    S->a[g] = malloc(n * (size_t)m * sizeof(double));
    S->N[g] = malloc(n * sizeof(double));
    S->w[g] = malloc(n * sizeof(double));
    S->ms[g] = malloc(n * sizeof(double));
    S->mk[g] = malloc(n * sizeof(double));
    for (size_t c = 0; c < n; ++c) {
      for (int i = 0; i < k; ++i) { /* distinct vertices in a contact */
        int32_t v;
        int dup;
        do {
          v = (int32_t)(urand() * (double)S->nv);
          dup = 0;
          for (int j = 0; j < i; ++j)
            dup |= S->vx[g][c * (size_t)k + (size_t)j] == v;
        } while (dup);
        S->vx[g][c * (size_t)k + (size_t)i] = v;
      }
      for (int i = 0; i < nb; ++i)
        S->beta[g][c * (size_t)nb + (size_t)i] = urange(-0.2, 1.2);
      double Pc[6], nrm[3];
      random_basis(dim, Pc, nrm);
      for (int i = 0; i < dim * m; ++i)
        S->P[g][c * (size_t)(dim * m) + (size_t)i] = Pc[i];
      for (int i = 0; i < m; ++i)
        S->a[g][c * (size_t)m + (size_t)i] = urange(0.5, 1.5);
      S->N[g][c] = pow(10.0, urange(-6, 6)); /* order-sensitive sums */
      S->w[g][c] = urange(-0.5, 1.5);
      S->ms[g][c] = urange(0.1, 0.8);
      S->mk[g][c] = urange(0.1, 0.8);
    }
  }
  S->vel = malloc(S->nv * (size_t)dim * sizeof(double));
  S->dir = malloc(S->nv * (size_t)dim * sizeof(double));
  for (size_t i = 0; i < S->nv * (size_t)dim; ++i) {
    S->vel[i] = urange(-2e-3, 2e-3); /* eps_v = 1e-3: every regime */
    S->dir[i] = urange(-1, 1);
  }
}

static void scene_free(scene *S) {
  for (size_t g = 0; g < S->ng; ++g) {
    free(S->vx[g]);
    free(S->beta[g]);
    free(S->P[g]);
    free(S->a[g]);
    free(S->N[g]);
    free(S->w[g]);
    free(S->ms[g]);
    free(S->mk[g]);
  }
  free(S->vel);
  free(S->dir);
}

/* A copy of n doubles in the working precision (caller frees). */
static void *conv(const double *x, size_t n, int f32) {
  if (!f32) {
    double *y = malloc((n + 1) * sizeof *y);
    memcpy(y, x, n * sizeof *y);
    return y;
  }
  float *y = malloc((n + 1) * sizeof *y);
  for (size_t i = 0; i < n; ++i)
    y[i] = (float)x[i];
  return y;
}

/* Outputs of one evaluation, in the working precision. */
typedef struct {
  void *pot, *grad, *hess, *prod;
  void *gpot[3], *gam[3], *q[3], *Sp[3];
} outs;

/* Index of S(r, s) in the packed upper triangle (by rows). */
static int packed(int dim, int r, int s) {
  if (r > s) {
    const int t = r;
    r = s;
    s = t;
  }
  return dim == 3 ? (r == 0 ? s : r == 1 ? 2 + s : 5) : (r == 0 ? s : 2);
}

/* The documented orders, in type T; returns the number of mismatches and
 * sets *sensitive when a 4- or 8-lane reassociation of the total differs. */
#define SUM_ORACLE(T, NAME)                                                    \
  static int NAME(const scene *S, const outs *o, const int64_t *bptr,          \
                  const int32_t *bcol, size_t nnz, const T *dir,               \
                  int *sensitive) {                                            \
    const int dim = S->dim;                                                    \
    int bad = 0;                                                               \
    /* Total D. */                                                             \
    T total = 0, blk = 0;                                                      \
    size_t cg = 0;                                                             \
    for (size_t g = 0; g < S->ng; ++g)                                         \
      for (size_t c = 0; c < S->count[g]; ++c, ++cg) {                         \
        const T d = ((const T *)o->gpot[g])[c];                                \
        blk += d;                                                              \
        if ((cg + 1) % POT_BLOCK == 0) {                                       \
          total += blk;                                                        \
          blk = 0;                                                             \
        }                                                                      \
      }                                                                        \
    if (cg % POT_BLOCK)                                                        \
      total += blk;                                                            \
    if (memcmp(&total, o->pot, sizeof total) != 0) {                           \
      fprintf(stderr, "  total D %.17g, in order %.17g\n",                     \
              (double)*(const T *)o->pot, (double)total);                      \
      ++bad;                                                                   \
    }                                                                          \
    /* Would a 4- or 8-lane split of the first block change its sum? */        \
    {                                                                          \
      T s = 0, p4[4] = {0}, p8[8] = {0};                                       \
      size_t i = 0;                                                            \
      for (size_t g = 0; g < S->ng && i < POT_BLOCK; ++g)                      \
        for (size_t c = 0; c < S->count[g] && i < POT_BLOCK; ++c, ++i) {       \
          const T d = ((const T *)o->gpot[g])[c];                              \
          s += d;                                                              \
          p4[i % 4] += d;                                                      \
          p8[i % 8] += d;                                                      \
        }                                                                      \
      const T s4 = (p4[0] + p4[1]) + (p4[2] + p4[3]);                          \
      const T s8 = ((p8[0] + p8[1]) + (p8[2] + p8[3])) +                       \
                   ((p8[4] + p8[5]) + (p8[6] + p8[7]));                        \
      *sensitive = s4 != s || s8 != s;                                         \
    }                                                                          \
    /* Gradient and H p, per vertex in contact order; BSR per block. */        \
    const size_t nvd = S->nv * (size_t)dim;                                    \
    T *grad = calloc(nvd, sizeof(T)), *prod = calloc(nvd, sizeof(T));          \
    T *hess = calloc(nnz * (size_t)(dim * dim) + 1, sizeof(T));                \
    for (size_t g = 0; g < S->ng; ++g) {                                       \
      const int k = S->k[g], npk = dim * (dim + 1) / 2;                        \
      for (size_t c = 0; c < S->count[g]; ++c) {                               \
        const int32_t *vx = S->vx[g] + c * (size_t)k;                          \
        const T *gam = (const T *)o->gam[g] + c * (size_t)k;                   \
        const T *q = (const T *)o->q[g] + c * (size_t)dim;                     \
        const T *Sp = (const T *)o->Sp[g] + c * (size_t)npk;                   \
        T pc[3], t[3];                                                         \
        for (int r = 0; r < dim; ++r) {                                        \
          T s = 0;                                                             \
          for (int j = 0; j < k; ++j)                                          \
            s += gam[j] * dir[(size_t)vx[j] * (size_t)dim + (size_t)r];        \
          pc[r] = s;                                                           \
        }                                                                      \
        for (int r = 0; r < dim; ++r) {                                        \
          T s = 0;                                                             \
          for (int u = 0; u < dim; ++u)                                        \
            s += Sp[packed(dim, r, u)] * pc[u];                                \
          t[r] = s;                                                            \
        }                                                                      \
        for (int i = 0; i < k; ++i)                                            \
          for (int r = 0; r < dim; ++r) {                                      \
            grad[(size_t)vx[i] * (size_t)dim + (size_t)r] += gam[i] * q[r];    \
            prod[(size_t)vx[i] * (size_t)dim + (size_t)r] += gam[i] * t[r];    \
          }                                                                    \
        for (int i = 0; i < k; ++i)                                            \
          for (int j = 0; j < k; ++j) {                                        \
            int64_t b = bptr[vx[i]];                                           \
            while (b < bptr[vx[i] + 1] && bcol[b] != vx[j])                    \
              ++b;                                                             \
            const T coef = gam[i] * gam[j];                                    \
            for (int r = 0; r < dim; ++r)                                      \
              for (int s = 0; s < dim; ++s)                                    \
                hess[(size_t)b * (size_t)(dim * dim) +                         \
                     (size_t)(r * dim + s)] += coef * Sp[packed(dim, r, s)];   \
          }                                                                    \
      }                                                                        \
    }                                                                          \
    if (memcmp(grad, o->grad, nvd * sizeof(T)) != 0) {                         \
      fprintf(stderr, "  gradient not in contact order\n");                    \
      ++bad;                                                                   \
    }                                                                          \
    if (memcmp(prod, o->prod, nvd * sizeof(T)) != 0) {                         \
      fprintf(stderr, "  H p not in contact order\n");                         \
      ++bad;                                                                   \
    }                                                                          \
    if (memcmp(hess, o->hess, nnz * (size_t)(dim * dim) * sizeof(T)) != 0) {   \
      fprintf(stderr, "  BSR Hessian not in contact order\n");                 \
      ++bad;                                                                   \
    }                                                                          \
    free(grad);                                                                \
    free(prod);                                                                \
    free(hess);                                                                \
    return bad;                                                                \
  }

SUM_ORACLE(double, oracle_d)
SUM_ORACLE(float, oracle_f)

static void run_case(const char *spec, const char *label, const scene *S,
                     int f32, size_t chunk) {
  char lab[256];
  snprintf(lab, sizeof lab, "%s dim %d %s chunk %zu", label, S->dim,
           f32 ? "f32" : "f64", chunk);
  fricl_context *ctx = test_context(spec, chunk, 0);
  if (!ctx)
    return;
  if (!f32 && !fricl_context_has_fp64(ctx)) {
    printf("%s: no fp64, skipped\n", lab);
    fricl_context_destroy(ctx);
    return;
  }
  const int dim = S->dim, m = dim - 1;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  fricl_contact_group G[3];
  void *in[3][8];
  outs o;
  memset(&o, 0, sizeof o);
  memset(G, 0, sizeof G);
  for (size_t g = 0; g < S->ng; ++g) {
    const size_t n = S->count[g];
    const int k = S->k[g];
    in[g][0] = conv(S->beta[g], n * (size_t)S->nb[g], f32);
    in[g][1] = conv(S->P[g], n * (size_t)(dim * m), f32);
    in[g][2] = conv(S->N[g], n, f32);
    in[g][3] = conv(S->w[g], n, f32);
    in[g][4] = conv(S->ms[g], n, f32);
    in[g][5] = conv(S->mk[g], n, f32);
    in[g][6] = conv(S->a[g], n * (size_t)m, f32);
    G[g].type = S->type[g];
    G[g].count = n;
    G[g].vertices = S->vx[g];
    G[g].closest_point = S->nb[g] ? in[g][0] : NULL;
    G[g].tangent_basis = in[g][1];
    G[g].normal_force = in[g][2];
    G[g].weight = in[g][3];
    G[g].mu_s = in[g][4];
    G[g].mu_k = in[g][5];
    G[g].mu_aniso = in[g][6];
    G[g].potential = o.gpot[g] = calloc(n + 1, es);
    G[g].factored_gamma = o.gam[g] = calloc(n * (size_t)k + 1, es);
    G[g].factored_grad = o.q[g] = calloc(n * (size_t)dim + 1, es);
    G[g].factored_hessian = o.Sp[g] =
        calloc(n * (size_t)(dim * (dim + 1) / 2) + 1, es);
  }
  fricl_tangential_plan *plan = NULL;
  CHECK(fricl_tangential_plan_create(ctx, dim, S->nv, S->ng, G, &plan) ==
            FRICL_STATUS_OK,
        "%s: plan: %s", lab, fricl_context_last_error(ctx));
  size_t nbr = 0, nnz = 0;
  const int64_t *bptr = NULL;
  const int32_t *bcol = NULL;
  if (plan)
    fricl_tangential_plan_bsr(plan, &nbr, &nnz, &bptr, &bcol);
  void *vel = conv(S->vel, S->nv * (size_t)dim, f32);
  void *dir = conv(S->dir, S->nv * (size_t)dim, f32);
  o.pot = calloc(1, es);
  o.grad = calloc(S->nv * (size_t)dim, es);
  o.prod = calloc(S->nv * (size_t)dim, es);
  o.hess = calloc(nnz * (size_t)(dim * dim) + 1, es);
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.precision = f32 ? FRICL_F32 : FRICL_F64;
  b.psd = FRICL_PSD_CLAMP;
  b.dim = dim;
  b.n_vertices = S->nv;
  b.velocities = vel;
  b.eps_v = 1e-3;
  b.n_groups = S->ng;
  b.groups = G;
  b.plan = plan;
  b.direction = dir;
  b.potential = o.pot;
  b.gradient = o.grad;
  b.hessian_values = o.hess;
  b.hessian_product = o.prod;
  const fricl_status st =
      plan ? fricl_tangential_eval(ctx, &b) : FRICL_STATUS_INVALID_ARGUMENT;
  CHECK(st == FRICL_STATUS_OK, "%s: eval: %s", lab,
        fricl_context_last_error(ctx));
  if (st == FRICL_STATUS_OK) {
    int sensitive = 0;
    const int bad = f32 ? oracle_f(S, &o, bptr, bcol, nnz, dir, &sensitive)
                        : oracle_d(S, &o, bptr, bcol, nnz, dir, &sensitive);
    CHECK(bad == 0, "%s: %d sum(s) not in the documented order", lab, bad);
    CHECK(sensitive, "%s: the data does not tell orders apart", lab);
    if (!bad)
      printf("%s: every sum in the documented order\n", lab);
  }
  fricl_tangential_plan_destroy(plan);
  for (size_t g = 0; g < S->ng; ++g) {
    for (int i = 0; i < 7; ++i)
      free(in[g][i]);
    free(o.gpot[g]);
    free(o.gam[g]);
    free(o.q[g]);
    free(o.Sp[g]);
  }
  free(vel);
  free(dir);
  free(o.pot);
  free(o.grad);
  free(o.prod);
  free(o.hess);
  fricl_context_destroy(ctx);
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  scene S3, S2;
  scene_make(&S3, 3);
  scene_make(&S2, 2);
  for (int i = 0; i < nb; ++i)
    for (int f32 = 0; f32 < 2; ++f32) {
      run_case(be[i].spec, be[i].label, &S3, f32, 0);
      run_case(be[i].spec, be[i].label, &S2, f32, 0);
      run_case(be[i].spec, be[i].label, &S3, f32, POT_BLOCK);
    }
  scene_free(&S3);
  scene_free(&S2);
  return test_report("test_sum_order");
}
