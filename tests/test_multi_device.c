/*
 * test_multi_device.c - a context over two OpenCL devices gives bitwise the
 * results of one device, for every feature and output: the scalar family
 * (all twelve terms, per-element parameters), the tangential potential
 * (total potential, gradient, global Hessian values, H p, per-contact
 * potential, local and factored Hessians; with and without a plan; 2-D and
 * 3-D; f64 and f32; chunked), the lagged build (every output, statuses,
 * report) and the friction laws (LuGre and Maxwell steps over several
 * samples, LuGre eval). Each comparison runs under several splits: the
 * default shares, pinned uneven shares both ways, and shares that leave
 * one device almost nothing. Also: device lists and all-gpu rejected or
 * accepted with messages naming the bad entry, FRICL_MULTI_SHARES checked,
 * the per-device shares reported and measured, the cl_mem tier on the
 * first device.
 *
 * Needs two OpenCL devices of the same kind (CTest runs it with
 * POCL_DEVICES="pthread pthread": two PoCL CPU devices); it fails without
 * them, so that a missing second device is never a silent pass.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "device_pair.h"
#include "fricl/fricl.h"
#include "fricl/fricl_cl.h"
#include "test_util.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double urange(double a, double b) { return a + (b - a) * urand(); }

/* A context; `shares` (or NULL) is FRICL_MULTI_SHARES during creation. */
static fricl_context *make(const char *spec, size_t max_chunk,
                           const char *shares, fricl_status *status, char *msg,
                           size_t msg_size) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  p.max_chunk_elements = max_chunk;
  char buf[512] = "";
  p.error_buffer = msg ? msg : buf;
  p.error_buffer_size = msg ? msg_size : sizeof buf;
  if (shares)
    setenv("FRICL_MULTI_SHARES", shares, 1);
  fricl_context *ctx = NULL;
  const fricl_status st = fricl_context_create(&ctx, &p);
  unsetenv("FRICL_MULTI_SHARES");
  if (status)
    *status = st;
  else if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "cannot create %s: %s\n", spec, p.error_buffer);
    ++test_failures;
  }
  return ctx;
}

static int same(const void *a, const void *b, size_t bytes) {
  return (a == NULL) == (b == NULL) && (!a || memcmp(a, b, bytes) == 0);
}

static void *rnd_reals(fricl_precision p, size_t n, double lo, double hi) {
  void *a = malloc(n * (p == FRICL_F32 ? 4 : 8) + 8);
  for (size_t i = 0; i < n; ++i) {
    const double v = urange(lo, hi);
    if (p == FRICL_F32)
      ((float *)a)[i] = (float)v;
    else
      ((double *)a)[i] = v;
  }
  return a;
}

static void set_real(fricl_precision p, void *a, size_t i, double v) {
  if (p == FRICL_F32)
    ((float *)a)[i] = (float)v;
  else
    ((double *)a)[i] = v;
}

/* --------------------------------------------------------------- scalar */

static void test_scalar(fricl_context *one, fricl_context *two,
                        const char *label, fricl_precision p) {
  const size_t n = 10007, esz = p == FRICL_F32 ? 4 : 8;
  void *y = rnd_reals(p, n, -3, 3);
  void *eps = rnd_reals(p, n, 0.05, 1);
  void *mus = rnd_reals(p, n, 0.1, 0.9);
  void *muk = rnd_reals(p, n, 0.1, 0.9);
  set_real(p, y, 5, 0.0);
  void *o1[FRICL_TERM_COUNT], *o2[FRICL_TERM_COUNT];
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.precision = p;
  b.mu_profile = FRICL_MU_IPCTK;
  b.n = n;
  b.y = y;
  b.eps_v_array = eps;
  b.mu_s_array = mus;
  b.mu_k_array = muk;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    o1[t] = calloc(n, esz);
    o2[t] = calloc(n, esz);
  }
  memcpy(b.out, o1, sizeof o1);
  CHECK(fricl_scalar_eval(one, &b) == FRICL_STATUS_OK, "%s: %s", label,
        fricl_context_last_error(one));
  memcpy(b.out, o2, sizeof o2);
  CHECK(fricl_scalar_eval(two, &b) == FRICL_STATUS_OK, "%s: %s", label,
        fricl_context_last_error(two));
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    CHECK(same(o1[t], o2[t], n * esz), "%s scalar %s: two devices differ",
          label, fricl_term_name((fricl_term)t));
    free(o1[t]);
    free(o2[t]);
  }
  free(y);
  free(eps);
  free(mus);
  free(muk);
}

/* ----------------------------------------------------------- tangential */

#define TG 5

typedef struct {
  int dim;
  size_t nv, ng;
  fricl_precision p;
  fricl_stencil type[TG];
  size_t count[TG];
  int32_t *vx[TG];
  void *beta[TG], *P[TG], *N[TG], *w[TG], *ms[TG], *mk[TG], *an[TG];
  void *vel, *dir;
} tscene;

/* Orthonormal dim x (dim - 1) basis, row-major, into P at contact c. */
static void basis(fricl_precision p, int dim, void *P, size_t c) {
  double a[3] = {urange(-1, 1), urange(-1, 1), urange(-1, 1)}, n2 = 0;
  for (int r = 0; r < dim; ++r)
    n2 += a[r] * a[r];
  for (int r = 0; r < dim; ++r)
    a[r] /= sqrt(n2);
  const size_t m = (size_t)dim - 1, base = c * (size_t)dim * m;
  if (dim == 2) {
    set_real(p, P, base + 0, -a[1]);
    set_real(p, P, base + 1, a[0]);
    return;
  }
  /* e1 = normalise(a x helper), e2 = a x e1 */
  double h[3] = {1, 0, 0};
  if (fabs(a[0]) > 0.8) {
    h[0] = 0;
    h[1] = 1;
  }
  double e1[3] = {a[1] * h[2] - a[2] * h[1], a[2] * h[0] - a[0] * h[2],
                  a[0] * h[1] - a[1] * h[0]};
  const double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (int r = 0; r < 3; ++r)
    e1[r] /= l;
  const double e2[3] = {a[1] * e1[2] - a[2] * e1[1],
                        a[2] * e1[0] - a[0] * e1[2],
                        a[0] * e1[1] - a[1] * e1[0]};
  for (int r = 0; r < 3; ++r) {
    set_real(p, P, base + (size_t)r * 2, e1[r]);
    set_real(p, P, base + (size_t)r * 2 + 1, e2[r]);
  }
}

static void tscene_make(tscene *s, int dim, fricl_precision p) {
  memset(s, 0, sizeof *s);
  s->dim = dim;
  s->p = p;
  s->nv = 2500;
  const fricl_stencil t3[TG] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                                FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                                FRICL_STENCIL_PV};
  const fricl_stencil t2[3] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_PV};
  const size_t c3[TG] = {1500, 1234, 1100, 977, 700};
  const size_t c2[3] = {2100, 1900, 1333};
  s->ng = dim == 3 ? TG : 3;
  for (size_t g = 0; g < s->ng; ++g) {
    const fricl_stencil t = dim == 3 ? t3[g] : t2[g];
    const size_t n = dim == 3 ? c3[g] : c2[g];
    const size_t k = (size_t)fricl_stencil_vertex_count(t);
    const size_t nb = (size_t)fricl_stencil_coord_count(t);
    const size_t m = (size_t)dim - 1;
    s->type[g] = t;
    s->count[g] = n;
    s->vx[g] = malloc(n * k * sizeof(int32_t));
    for (size_t c = 0; c < n; ++c)
      for (size_t i = 0; i < k; ++i) {
        int32_t v;
        int dup;
        do {
          /* A crowded corner: many contacts share vertices, so that the
           * gathers sum long lists across both devices' ranges. */
          v = (int32_t)(urand() < 0.3 ? urand() * 40 : urand() * s->nv);
          dup = 0;
          for (size_t j = 0; j < i; ++j)
            dup |= s->vx[g][c * k + j] == v;
        } while (dup);
        s->vx[g][c * k + i] = v;
      }
    s->beta[g] = nb ? rnd_reals(p, n * nb, -0.2, 1.2) : NULL;
    s->P[g] = rnd_reals(p, n * (size_t)dim * m, 0, 0);
    for (size_t c = 0; c < n; ++c)
      basis(p, dim, s->P[g], c);
    s->N[g] = rnd_reals(p, n, 0.5, 2);
    s->w[g] = rnd_reals(p, n, 0.5, 1.5);
    s->ms[g] = rnd_reals(p, n, 0.1, 0.8);
    s->mk[g] = rnd_reals(p, n, 0.1, 0.8);
    s->an[g] = g % 2 ? rnd_reals(p, n * m, 0.5, 1.5) : NULL;
    if (g == 2) /* a stretch of zero normal force (inactive contacts) */
      for (size_t c = 0; c < n / 4; ++c)
        set_real(p, s->N[g], c, 0.0);
  }
  s->vel = rnd_reals(p, s->nv * (size_t)dim, -0.01, 0.01);
  s->dir = rnd_reals(p, s->nv * (size_t)dim, -1, 1);
}

static void tscene_free(tscene *s) {
  for (size_t g = 0; g < s->ng; ++g) {
    free(s->vx[g]);
    free(s->beta[g]);
    free(s->P[g]);
    free(s->N[g]);
    free(s->w[g]);
    free(s->ms[g]);
    free(s->mk[g]);
    free(s->an[g]);
  }
  free(s->vel);
  free(s->dir);
}

/* Everything one evaluation writes. */
typedef struct {
  double pot[2]; /* f64, or f32 in the first bytes */
  void *grad, *prod, *hess;
  size_t hbytes;
  void *cpot[TG], *hloc[TG], *gam[TG], *qf[TG], *sf[TG];
  size_t bytes[TG][5];
} touts;

/* Evaluate s on ctx with every output; plan NULL: plan-less (gradient and
 * H p only, through the context's cached lists). */
static fricl_status teval(fricl_context *ctx, const tscene *s,
                          const fricl_tangential_plan *plan, touts *o) {
  const size_t esz = s->p == FRICL_F32 ? 4 : 8, dim = (size_t)s->dim;
  memset(o, 0, sizeof *o);
  fricl_contact_group G[TG];
  memset(G, 0, sizeof G);
  for (size_t g = 0; g < s->ng; ++g) {
    const size_t n = s->count[g];
    const size_t k = (size_t)fricl_stencil_vertex_count(s->type[g]);
    const size_t nd = k * dim;
    G[g].type = s->type[g];
    G[g].count = n;
    G[g].vertices = s->vx[g];
    G[g].closest_point = s->beta[g];
    G[g].tangent_basis = s->P[g];
    G[g].normal_force = s->N[g];
    G[g].weight = s->w[g];
    G[g].mu_s = s->ms[g];
    G[g].mu_k = s->mk[g];
    G[g].mu_aniso = s->an[g];
    const size_t per[5] = {1, nd * nd, k, dim, dim * (dim + 1) / 2};
    void **slot[5] = {&o->cpot[g], &o->hloc[g], &o->gam[g], &o->qf[g],
                      &o->sf[g]};
    for (int i = 0; i < 5; ++i) {
      /* local Hessians on groups 0 and 2, factored on 1 and 3 */
      const int want = i == 0 || (i == 1 && g % 2 == 0) || (i > 1 && g % 2);
      if (!want || !plan)
        continue;
      o->bytes[g][i] = n * per[i] * esz;
      *slot[i] = calloc(n * per[i] + 1, esz);
    }
    G[g].potential = o->cpot[g];
    G[g].local_hessian = o->hloc[g];
    G[g].factored_gamma = o->gam[g];
    G[g].factored_grad = o->qf[g];
    G[g].factored_hessian = o->sf[g];
  }
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.precision = s->p;
  b.mu_profile = FRICL_MU_CUBIC;
  b.psd = FRICL_PSD_CLAMP;
  b.dim = s->dim;
  b.n_vertices = s->nv;
  b.velocities = s->vel;
  b.eps_v = 1e-3;
  b.n_groups = s->ng;
  b.groups = G;
  b.plan = plan;
  b.potential = o->pot;
  o->grad = calloc(s->nv * dim, esz);
  o->prod = calloc(s->nv * dim, esz);
  b.gradient = o->grad;
  b.direction = s->dir;
  b.hessian_product = o->prod;
  if (plan) {
    size_t nnz = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    o->hbytes = nnz * dim * dim * esz;
    o->hess = calloc(nnz * dim * dim + 1, esz);
    b.hessian_values = o->hess;
  }
  return fricl_tangential_eval(ctx, &b);
}

static void touts_free(touts *o) {
  free(o->grad);
  free(o->prod);
  free(o->hess);
  for (int g = 0; g < TG; ++g) {
    free(o->cpot[g]);
    free(o->hloc[g]);
    free(o->gam[g]);
    free(o->qf[g]);
    free(o->sf[g]);
  }
}

static double pot_of(const tscene *s, const touts *o) {
  if (s->p == FRICL_F64)
    return o->pot[0];
  float f;
  memcpy(&f, o->pot, sizeof f);
  return f;
}

static void tcompare(const char *label, const tscene *s, const touts *a,
                     const touts *b) {
  const size_t esz = s->p == FRICL_F32 ? 4 : 8;
  const size_t vb = s->nv * (size_t)s->dim * esz;
  CHECK(memcmp(a->pot, b->pot, esz) == 0,
        "%s: total potential differs: %.17g vs %.17g", label, pot_of(s, a),
        pot_of(s, b));
  CHECK(same(a->grad, b->grad, vb), "%s: gradient differs", label);
  CHECK(same(a->prod, b->prod, vb), "%s: H p differs", label);
  CHECK(a->hbytes == b->hbytes && same(a->hess, b->hess, a->hbytes),
        "%s: Hessian (BSR values) differs", label);
  static const char *const what[5] = {"potential", "local Hessian", "gamma",
                                      "factored gradient", "factored S"};
  const void *const *pa[5] = {
      (const void *const *)a->cpot, (const void *const *)a->hloc,
      (const void *const *)a->gam, (const void *const *)a->qf,
      (const void *const *)a->sf};
  const void *const *pb[5] = {
      (const void *const *)b->cpot, (const void *const *)b->hloc,
      (const void *const *)b->gam, (const void *const *)b->qf,
      (const void *const *)b->sf};
  for (size_t g = 0; g < s->ng; ++g)
    for (int i = 0; i < 5; ++i)
      CHECK(same(pa[i][g], pb[i][g], a->bytes[g][i]),
            "%s: group %zu (%s) per-contact %s differs", label, g,
            fricl_stencil_name(s->type[g]), what[i]);
}

static fricl_tangential_plan *plan_of(fricl_context *ctx, const tscene *s) {
  fricl_contact_group G[TG];
  memset(G, 0, sizeof G);
  for (size_t g = 0; g < s->ng; ++g) {
    G[g].type = s->type[g];
    G[g].count = s->count[g];
    G[g].vertices = s->vx[g];
  }
  fricl_tangential_plan *plan = NULL;
  CHECK(fricl_tangential_plan_create(ctx, s->dim, s->nv, s->ng, G, &plan) ==
            FRICL_STATUS_OK,
        "plan: %s", fricl_context_last_error(ctx));
  return plan;
}

static void test_tangential(fricl_context *one, fricl_context *two,
                            const char *label, int dim, fricl_precision p) {
  tscene s;
  tscene_make(&s, dim, p);
  fricl_tangential_plan *p1 = plan_of(one, &s), *p2 = plan_of(two, &s);
  char lab[160];
  for (int with_plan = 1; with_plan >= 0 && p1 && p2; --with_plan) {
    snprintf(lab, sizeof lab, "%s tangential %dD %s%s", label, dim,
             p == FRICL_F32 ? "f32" : "f64", with_plan ? "" : " (no plan)");
    touts a, b;
    fricl_status st = teval(one, &s, with_plan ? p1 : NULL, &a);
    CHECK(st == FRICL_STATUS_OK, "%s one: %s", lab,
          fricl_context_last_error(one));
    st = teval(two, &s, with_plan ? p2 : NULL, &b);
    CHECK(st == FRICL_STATUS_OK, "%s two: %s", lab,
          fricl_context_last_error(two));
    tcompare(lab, &s, &a, &b);
    /* Again on the same contexts (warm scratch, measured shares). */
    touts c;
    st = teval(two, &s, with_plan ? p2 : NULL, &c);
    CHECK(st == FRICL_STATUS_OK, "%s two again: %s", lab,
          fricl_context_last_error(two));
    tcompare(lab, &s, &a, &c);
    touts_free(&a);
    touts_free(&b);
    touts_free(&c);
  }
  fricl_tangential_plan_destroy(p1);
  fricl_tangential_plan_destroy(p2);
  tscene_free(&s);
}

/* No contacts: zeros from one device, the same from two. */
static void test_tangential_empty(fricl_context *two) {
  double vel[6] = {0}, grad[6] = {1, 1, 1, 1, 1, 1}, pot = 1;
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.n_vertices = 2;
  b.velocities = vel;
  b.eps_v = 1e-3;
  b.potential = &pot;
  b.gradient = grad;
  CHECK(fricl_tangential_eval(two, &b) == FRICL_STATUS_OK, "empty: %s",
        fricl_context_last_error(two));
  CHECK(pot == 0 && grad[0] == 0 && grad[5] == 0, "empty: zeros expected");
}

/* ---------------------------------------------------------------- build */

typedef struct {
  fricl_precision p;
  size_t nv;
  void *X, *vmus, *vmuk;
  fricl_build_group G[TG];
  void *in[TG][5]; /* plane normal, plane offset, dmin, weight, mu_s */
  int32_t *vx[TG];
} bscene;

static void bscene_make(bscene *s, fricl_precision p) {
  memset(s, 0, sizeof *s);
  s->p = p;
  s->nv = 3000;
  s->X = rnd_reals(p, s->nv * 3, 0, 1);
  s->vmus = rnd_reals(p, s->nv, 0.1, 0.9);
  s->vmuk = rnd_reals(p, s->nv, 0.1, 0.9);
  const fricl_stencil t[TG] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                               FRICL_STENCIL_PV};
  const size_t cnt[TG] = {1300, 1100, 1500, 1000, 800};
  for (int g = 0; g < TG; ++g) {
    const size_t n = cnt[g], k = (size_t)fricl_stencil_vertex_count(t[g]);
    s->vx[g] = malloc(n * k * sizeof(int32_t));
    for (size_t c = 0; c < n; ++c)
      for (size_t i = 0; i < k; ++i) {
        int32_t v;
        int dup;
        do {
          v = (int32_t)(urand() * s->nv);
          dup = 0;
          for (size_t j = 0; j < i; ++j)
            dup |= s->vx[g][c * k + j] == v;
        } while (dup);
        s->vx[g][c * k + i] = v;
      }
    fricl_build_group *G = &s->G[g];
    G->type = t[g];
    G->count = n;
    G->vertices = s->vx[g];
    if (t[g] == FRICL_STENCIL_PV) {
      s->in[g][0] = rnd_reals(p, n * 3, -1, 1);
      s->in[g][1] = rnd_reals(p, n, -0.5, 0.5);
      G->plane_normal = s->in[g][0];
      G->plane_offset = s->in[g][1];
    }
    if (g == 1) {
      s->in[g][2] = rnd_reals(p, n, 0, 0.01);
      G->dmin = s->in[g][2];
    }
    if (g == 3) {
      s->in[g][3] = rnd_reals(p, n, 0.5, 2);
      s->in[g][4] = rnd_reals(p, n, 0.1, 0.6);
      G->weight = s->in[g][3];
      G->mu_s = s->in[g][4];
    }
  }
}

static void bscene_free(bscene *s) {
  free(s->X);
  free(s->vmus);
  free(s->vmuk);
  for (int g = 0; g < TG; ++g) {
    free(s->vx[g]);
    for (int i = 0; i < 5; ++i)
      free(s->in[g][i]);
  }
}

enum { BO = 8 };

typedef struct {
  void *out[TG][BO];
  size_t bytes[TG][BO];
  size_t counts[TG][FRICL_BUILD_STATUS_COUNT];
  fricl_build_report rep;
} bouts;

static fricl_status brun(fricl_context *ctx, bscene *s, bouts *o) {
  const size_t esz = s->p == FRICL_F32 ? 4 : 8;
  memset(o, 0, sizeof *o);
  fricl_build_group G[TG];
  for (int g = 0; g < TG; ++g) {
    G[g] = s->G[g];
    const size_t n = G[g].count;
    const size_t k = (size_t)fricl_stencil_vertex_count(G[g].type);
    const size_t nb = (size_t)fricl_stencil_coord_count(G[g].type);
    const size_t per[BO] = {nb * esz, 6 * esz, esz, k * 3 * esz,
                            esz,      esz,     esz, 1};
    for (int i = 0; i < BO; ++i) {
      o->bytes[g][i] = n * per[i];
      o->out[g][i] = per[i] ? calloc(n * per[i] + 1, 1) : NULL;
    }
    G[g].closest_point = o->out[g][0];
    G[g].tangent_basis = o->out[g][1];
    G[g].normal_force = o->out[g][2];
    G[g].normal_force_gradient = o->out[g][3];
    G[g].weight_out = o->out[g][4];
    G[g].mu_s_out = o->out[g][5];
    G[g].mu_k_out = o->out[g][6];
    G[g].status = o->out[g][7];
    G[g].status_counts = o->counts[g];
  }
  fricl_build_report_init(&o->rep);
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.precision = s->p;
  b.n_vertices = s->nv;
  b.lagged_positions = s->X;
  b.kappa = 10;
  b.dhat = 0.08;
  b.dmin = 0.001;
  b.vertex_mu_s = s->vmus;
  b.vertex_mu_k = s->vmuk;
  b.blend = FRICL_BLEND_HARMONIC;
  b.n_groups = TG;
  b.groups = G;
  b.report = &o->rep;
  return fricl_build(ctx, &b);
}

static void test_build(fricl_context *one, fricl_context *two,
                       const char *label, fricl_precision p) {
  bscene s;
  bscene_make(&s, p);
  bouts a, b;
  CHECK(brun(one, &s, &a) == FRICL_STATUS_OK, "%s build one: %s", label,
        fricl_context_last_error(one));
  CHECK(brun(two, &s, &b) == FRICL_STATUS_OK, "%s build two: %s", label,
        fricl_context_last_error(two));
  static const char *const what[BO] = {
      "closest_point", "tangent_basis", "normal_force", "normal_force_gradient",
      "weight_out",    "mu_s_out",      "mu_k_out",     "status"};
  for (int g = 0; g < TG; ++g) {
    for (int i = 0; i < BO; ++i) {
      CHECK(same(a.out[g][i], b.out[g][i], a.bytes[g][i]),
            "%s build %s: group %d %s differs", label,
            p == FRICL_F32 ? "f32" : "f64", g, what[i]);
      free(a.out[g][i]);
      free(b.out[g][i]);
    }
    CHECK(memcmp(a.counts[g], b.counts[g], sizeof a.counts[g]) == 0,
          "%s build: group %d status counts differ", label, g);
  }
  CHECK(memcmp(&a.rep, &b.rep, sizeof a.rep) == 0, "%s build: reports differ",
        label);
  /* The scene must exercise more than one status. */
  CHECK(a.rep.count[FRICL_BUILD_OK] > 0 && a.rep.no_force > 0,
        "%s build: ok %zu, no force %zu", label, a.rep.count[FRICL_BUILD_OK],
        a.rep.no_force);
  bscene_free(&s);
}

/* ----------------------------------------------------------------- laws */

static const double LUGRE_P[7] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2};

static void test_laws(fricl_context *one, fricl_context *two,
                      const char *label) {
  const size_t n = 6007, S = 3;
  double *v = rnd_reals(FRICL_F64, n * S, -0.02, 0.02);
  double *x = rnd_reals(FRICL_F64, n * S, -1e-3, 1e-3);
  double *nrm = rnd_reals(FRICL_F64, n * S, 5, 15);
  double *z0 = rnd_reals(FRICL_F64, 2 * n, -1e-4, 1e-4);
  double *zs[2], *fs[2], *dz[2];
  for (int law = 0; law < 3; ++law) {
    fricl_law_info info;
    fricl_law_get_info(law == 1 ? FRICL_LAW_MAXWELL : FRICL_LAW_LUGRE, &info);
    const size_t ns = n * (size_t)info.state_size;
    for (int k = 0; k < 2; ++k) {
      fricl_context *ctx = k ? two : one;
      zs[k] = malloc(ns * sizeof(double));
      memcpy(zs[k], z0, ns * sizeof(double));
      fs[k] = calloc(n * S, sizeof(double));
      dz[k] = calloc(ns, sizeof(double));
      fricl_law_batch b;
      fricl_status st;
      if (law < 2) {
        fricl_law_batch_init(&b,
                             law == 0 ? FRICL_LAW_LUGRE : FRICL_LAW_MAXWELL);
        if (law == 0) {
          memcpy(b.param, LUGRE_P, sizeof LUGRE_P);
          b.v = v;
        } else {
          b.param[0] = 1000;
          b.param[1] = 0.15;
          b.x = x;
        }
        b.integrator = FRICL_INTEGRATOR_RK4;
        b.h = 1e-3;
        b.n = n;
        b.n_steps = S;
        b.normal = nrm;
        b.normal_per_step = 1;
        b.state = zs[k];
        b.state_out = zs[k];
        b.force = fs[k];
        st = fricl_law_step(ctx, &b);
      } else {
        fricl_law_batch_init(&b, FRICL_LAW_LUGRE);
        memcpy(b.param, LUGRE_P, sizeof LUGRE_P);
        b.n = n;
        b.v = v;
        b.normal = nrm;
        b.state = zs[k];
        b.force = fs[k];
        b.dstate = dz[k];
        st = fricl_law_eval(ctx, &b);
      }
      CHECK(st == FRICL_STATUS_OK, "%s law %d: %s", label, law,
            fricl_context_last_error(ctx));
    }
    CHECK(same(zs[0], zs[1], ns * sizeof(double)), "%s law %d: state differs",
          label, law);
    CHECK(same(fs[0], fs[1], n * S * sizeof(double)),
          "%s law %d: force differs", label, law);
    CHECK(same(dz[0], dz[1], ns * sizeof(double)), "%s law %d: dz/dt differs",
          label, law);
    for (int k = 0; k < 2; ++k) {
      free(zs[k]);
      free(fs[k]);
      free(dz[k]);
    }
  }
  free(v);
  free(x);
  free(nrm);
  free(z0);
}

/* ------------------------------------------------------ specs, queries */

static void expect_bad(const char *spec, fricl_status want, const char *needle,
                       const char *shares) {
  char msg[512] = "";
  fricl_status st = FRICL_STATUS_OK;
  fricl_context *ctx = make(spec, 0, shares, &st, msg, sizeof msg);
  CHECK(!ctx && st == want, "spec \"%s\": status %s, expected %s", spec,
        fricl_status_string(st), fricl_status_string(want));
  CHECK(strstr(msg, needle) != NULL, "spec \"%s\": message \"%s\" lacks \"%s\"",
        spec, msg, needle);
  fricl_context_destroy(ctx);
}

static void test_specs(void) {
  char s[512];
  snprintf(s, sizeof s, "%s,", spec_one);
  expect_bad(s, FRICL_STATUS_INVALID_ARGUMENT, "entry 2 is empty", NULL);
  snprintf(s, sizeof s, ",%s", spec_one);
  expect_bad(s, FRICL_STATUS_INVALID_ARGUMENT, "entry 1 is empty", NULL);
  snprintf(s, sizeof s, "%s,bogus", spec_one);
  expect_bad(s, FRICL_STATUS_INVALID_ARGUMENT, "entry 2: device \"bogus\"",
             NULL);
  snprintf(s, sizeof s, "%s,opencl:0:99", spec_one);
  expect_bad(s, FRICL_STATUS_DEVICE_NOT_FOUND,
             "entry 2: device \"opencl:0:99\"", NULL);
  snprintf(s, sizeof s, "%s,host", spec_one);
  expect_bad(s, FRICL_STATUS_INVALID_ARGUMENT, "entry 2 (\"host\")", NULL);
  snprintf(s, sizeof s, "auto,%s", spec_one);
  expect_bad(s, FRICL_STATUS_INVALID_ARGUMENT, "entry 1 (\"auto\")", NULL);
  snprintf(s, sizeof s, "%s, %s", spec_one, spec_one);
  expect_bad(s, FRICL_STATUS_INVALID_ARGUMENT, "name the same device", NULL);
  snprintf(s, sizeof s, "%s,%s,%s,%s,%s,%s,%s,%s,%s", spec_one, spec_one,
           spec_one, spec_one, spec_one, spec_one, spec_one, spec_one,
           spec_one);
  expect_bad(s, FRICL_STATUS_INVALID_ARGUMENT, "more than 8 devices", NULL);
  expect_bad(spec_two, FRICL_STATUS_INVALID_ARGUMENT, "FRICL_MULTI_SHARES",
             "1,x");
  expect_bad(spec_two, FRICL_STATUS_INVALID_ARGUMENT, "2 positive", "1");
  expect_bad(spec_two, FRICL_STATUS_INVALID_ARGUMENT, "2 positive", "1,0");
  expect_bad(spec_two, FRICL_STATUS_INVALID_ARGUMENT, "2 positive", "1,2,3");
  /* all-gpu: every GPU, or DEVICE_NOT_FOUND without one. */
  fricl_device_info inf[16];
  size_t n = 0, gpus = 0;
  fricl_devices_list(inf, 16, &n);
  for (size_t i = 0; i < n && i < 16; ++i)
    gpus += inf[i].is_gpu != 0;
  if (!gpus) {
    expect_bad("all-gpu", FRICL_STATUS_DEVICE_NOT_FOUND, "no OpenCL GPU", NULL);
  } else {
    fricl_context *ctx = make("all-gpu", 0, NULL, NULL, NULL, 0);
    size_t count = 0;
    CHECK(ctx &&
              fricl_context_devices(ctx, NULL, 0, &count) == FRICL_STATUS_OK &&
              count == (gpus > 8 ? 8 : gpus),
          "all-gpu: %zu devices for %zu GPUs", count, gpus);
    fricl_context_destroy(ctx);
  }
  /* Spaces around entries are fine. */
  snprintf(s, sizeof s, " %s , %s ", spec_one, strchr(spec_two, ',') + 1);
  fricl_context *ctx = make(s, 0, NULL, NULL, NULL, 0);
  CHECK(ctx != NULL, "spaces in a list");
  fricl_context_destroy(ctx);
}

static void test_queries(void) {
  fricl_context *two = make(spec_two, 0, NULL, NULL, NULL, 0);
  fricl_context *one = make(spec_one, 0, NULL, NULL, NULL, 0);
  fricl_context *host = make("host", 0, NULL, NULL, NULL, 0);
  if (!two || !one || !host)
    return;
  CHECK(fricl_context_backend(two) == FRICL_BACKEND_OPENCL, "backend");
  CHECK(strstr(fricl_context_device_name(two), "2 devices") != NULL,
        "device name \"%s\"", fricl_context_device_name(two));
  fricl_context_device d[3];
  size_t count = 9;
  CHECK(fricl_context_devices(host, d, 3, &count) == FRICL_STATUS_OK &&
            count == 0,
        "host: %zu devices", count);
  CHECK(fricl_context_devices(one, d, 3, &count) == FRICL_STATUS_OK &&
            count == 1 && d[0].share[FRICL_FEATURE_TANGENTIAL] == 1.0,
        "one device: %zu devices", count);
  CHECK(fricl_context_devices(two, d, 3, &count) == FRICL_STATUS_OK &&
            count == 2,
        "two devices: %zu", count);
  for (int f = 0; f < FRICL_FEATURE_COUNT; ++f)
    CHECK(fabs(d[0].share[f] + d[1].share[f] - 1) < 1e-12 &&
              d[0].share[f] > 0 && d[1].share[f] > 0,
          "feature %d: shares %g + %g", f, d[0].share[f], d[1].share[f]);
  char s0[32];
  snprintf(s0, sizeof s0, "opencl:%d:%d", d[0].platform_index,
           d[0].device_index);
  CHECK(strcmp(s0, spec_one) == 0, "first device %s, expected %s", s0,
        spec_one);
  CHECK(fricl_context_devices(two, NULL, 0, NULL) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "count NULL");
  /* The cl_mem tier is the first device's. */
  cl_device_id dev1 = NULL, dev2 = NULL;
  CHECK(fricl_context_get_cl(one, NULL, &dev1, NULL) == FRICL_STATUS_OK &&
            fricl_context_get_cl(two, NULL, &dev2, NULL) == FRICL_STATUS_OK &&
            dev1 == dev2,
        "cl_mem tier of a list: the first device");
  /* Rates: measured after split calls of >= 4096 items per device (the
   * first call builds kernels and is not measured). */
  const size_t n = 1 << 16;
  double *y = rnd_reals(FRICL_F64, n, -1, 1), *out = calloc(n, 8);
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.n = n;
  b.y = y;
  b.eps_v = 0.1;
  b.out[FRICL_SMOOTH_FRICTION_F0] = out;
  for (int r = 0; r < 3; ++r)
    CHECK(fricl_scalar_eval(two, &b) == FRICL_STATUS_OK, "%s",
          fricl_context_last_error(two));
  fricl_context_devices(two, d, 3, &count);
  CHECK(d[0].items_per_second[FRICL_FEATURE_SCALAR] > 0 &&
            d[1].items_per_second[FRICL_FEATURE_SCALAR] > 0,
        "scalar rates %g, %g", d[0].items_per_second[FRICL_FEATURE_SCALAR],
        d[1].items_per_second[FRICL_FEATURE_SCALAR]);
  CHECK(fricl_context_last_backend(two) == FRICL_BACKEND_OPENCL,
        "last backend");
  free(y);
  free(out);
  /* Pinned shares are reported as pinned. */
  fricl_context *pinned = make(spec_two, 0, "1,3", NULL, NULL, 0);
  fricl_context_devices(pinned, d, 3, &count);
  CHECK(fabs(d[0].share[FRICL_FEATURE_BUILD] - 0.25) < 1e-12, "pinned share %g",
        d[0].share[FRICL_FEATURE_BUILD]);
  /* NO_FP64 holds for every device of a list. */
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec_two;
  p.flags = FRICL_CONTEXT_FLAG_NO_FP64;
  fricl_context *nofp = NULL;
  CHECK(fricl_context_create(&nofp, &p) == FRICL_STATUS_OK, "no-fp64 list");
  double yy = 0.5, o = 0;
  fricl_scalar_batch_init(&b);
  b.n = 1;
  b.y = &yy;
  b.eps_v = 0.1;
  b.out[FRICL_SMOOTH_FRICTION_F0] = &o;
  CHECK(fricl_scalar_eval(nofp, &b) == FRICL_STATUS_NO_FP64, "no-fp64 f64");
  fricl_context_destroy(nofp);
  fricl_context_destroy(pinned);
  fricl_context_destroy(host);
  fricl_context_destroy(one);
  fricl_context_destroy(two);
}

/* --------------------------------------------------------------- driver */

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (!find_pair()) {
    fprintf(stderr, "test_multi_device: needs two OpenCL devices of one kind "
                    "(run with POCL_DEVICES=\"pthread pthread\")\n");
    return 1;
  }
  printf("one device: %s, two: %s\n", spec_one, spec_two);
  test_specs();
  test_queries();
  /* Splits: measured shares, uneven both ways, one device nearly idle;
   * then small chunks (several chunks, each split). */
  static const struct {
    const char *shares;
    size_t chunk;
  } modes[] = {{NULL, 0},    {"1,3", 0},   {"5,2", 0},
               {"1,100", 0}, {NULL, 2048}, {"2,1", 3000}};
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
    char label[96];
    snprintf(label, sizeof label, "[shares %s, chunk %zu]",
             modes[i].shares ? modes[i].shares : "measured", modes[i].chunk);
    fricl_context *one = make(spec_one, modes[i].chunk, NULL, NULL, NULL, 0);
    fricl_context *two =
        make(spec_two, modes[i].chunk, modes[i].shares, NULL, NULL, 0);
    if (!one || !two)
      return test_report("test_multi_device");
    printf("%s\n", label);
    test_scalar(one, two, label, FRICL_F64);
    test_scalar(one, two, label, FRICL_F32);
    test_tangential(one, two, label, 3, FRICL_F64);
    test_tangential(one, two, label, 2, FRICL_F64);
    test_tangential(one, two, label, 3, FRICL_F32);
    test_tangential_empty(two);
    test_build(one, two, label, FRICL_F64);
    test_build(one, two, label, FRICL_F32);
    test_laws(one, two, label);
    fricl_context_destroy(one);
    fricl_context_destroy(two);
  }
  return test_report("test_multi_device");
}
