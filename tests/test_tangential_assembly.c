/*
 * test_tangential_assembly.c - the tangential outputs agree with each
 * other and across backends:
 *   - local, factored, global BSR/CSR and matrix-free outputs describe the
 *     same Hessian; the global gradient is the scatter of gamma_i q; the
 *     total potential is the sum of the per-contact ones;
 *   - the PSD projections leave no eigenvalue below -tolerance and equal
 *     NONE wherever NONE is already PSD; ipctk's ABS quirk on request;
 *   - OpenCL f64 equals the C reference bitwise, runs are bitwise
 *     repeatable, chunked runs equal unchunked ones, f32 is close to f64;
 *   - the displacement form's homogeneity (spec 4.8); zero contacts; NaN
 *     velocities stay in the contacts that read them.
 */
#include "tangential_scene.h"

typedef struct {
  int dim;
  size_t nv;
  size_t ng;
  fricl_stencil type[5];
  size_t count[5];
  int32_t *vx[5];
  double *beta[5], *P[5], *N[5], *w[5], *ms[5], *mk[5], *a[5];
  double *vel, *dir;
} scene;

static void scene_make(scene *S, int dim, size_t nv, size_t per_group, double e,
                       double wneg) {
  memset(S, 0, sizeof *S);
  S->dim = dim;
  S->nv = nv;
  const fricl_stencil t3[5] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                               FRICL_STENCIL_PV};
  const fricl_stencil t2[3] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                               FRICL_STENCIL_PV};
  S->ng = dim == 3 ? 5 : 3;
  const int m = dim - 1;
  for (size_t g = 0; g < S->ng; ++g) {
    const fricl_stencil t = dim == 3 ? t3[g] : t2[g];
    const size_t n = per_group, k = (size_t)fricl_stencil_vertex_count(t);
    S->type[g] = t;
    S->count[g] = n;
    S->vx[g] = malloc(n * k * sizeof(int32_t));
    S->beta[g] = malloc(n * 2 * sizeof(double));
    S->P[g] = malloc(n * 6 * sizeof(double));
    S->N[g] = malloc(n * sizeof(double));
    S->w[g] = malloc(n * sizeof(double));
    S->ms[g] = malloc(n * sizeof(double));
    S->mk[g] = malloc(n * sizeof(double));
    S->a[g] = malloc(n * 2 * sizeof(double));
    for (size_t c = 0; c < n; ++c) {
      for (size_t i = 0; i < k; ++i) {
        int32_t v;
        int dup;
        do {
          v = (int32_t)(urand() * (double)nv);
          dup = 0;
          for (size_t j = 0; j < i; ++j)
            dup |= S->vx[g][c * k + j] == v;
        } while (dup);
        S->vx[g][c * k + i] = v;
      }
      const size_t nb = (size_t)fricl_stencil_coord_count(t);
      for (size_t i = 0; i < nb; ++i)
        S->beta[g][c * nb + i] = urange(-0.2, 1.2);
      double nrm[3];
      double P[6];
      random_basis(dim, P, nrm);
      memcpy(S->P[g] + c * (size_t)(dim * m), P,
             sizeof(double) * (size_t)(dim * m));
      S->N[g][c] = urange(0.5, 2.0);
      S->w[g][c] = urand() < wneg ? -urange(0.5, 1.5) : urange(0.5, 1.5);
      S->ms[g][c] = urange(0.1, 0.8);
      S->mk[g][c] = urange(0.1, 0.8);
      for (int i = 0; i < m; ++i)
        S->a[g][c * (size_t)m + (size_t)i] = urange(0.5, 1.5);
    }
  }
  S->vel = malloc(nv * (size_t)dim * sizeof(double));
  S->dir = malloc(nv * (size_t)dim * sizeof(double));
  for (size_t i = 0; i < nv * (size_t)dim; ++i) {
    /* Relative velocities spread over all regimes, a few exactly zero. */
    S->vel[i] = urand() < 0.05 ? 0 : urange(-1.5, 1.5) * e;
    S->dir[i] = urange(-1, 1);
  }
}

static void scene_free(scene *S) {
  for (size_t g = 0; g < S->ng; ++g) {
    free(S->vx[g]), free(S->beta[g]), free(S->P[g]), free(S->N[g]);
    free(S->w[g]), free(S->ms[g]), free(S->mk[g]), free(S->a[g]);
  }
  free(S->vel), free(S->dir);
}

/* Outputs of one evaluation, in the working precision's bytes. */
typedef struct {
  size_t esz;
  void *pot, *grad, *prod, *hess;
  void *gpot[5], *loc[5], *gam[5], *q[5], *S[5];
  size_t nnz;
} outs;

static void outs_alloc(outs *o, const scene *S, fricl_precision p, size_t nnz) {
  memset(o, 0, sizeof *o);
  o->esz = p == FRICL_F64 ? 8 : 4;
  const size_t d = (size_t)S->dim, nvd = S->nv * d;
  o->nnz = nnz;
  o->pot = calloc(1, o->esz);
  o->grad = calloc(nvd, o->esz);
  o->prod = calloc(nvd, o->esz);
  o->hess = calloc(nnz * d * d + 1, o->esz);
  for (size_t g = 0; g < S->ng; ++g) {
    const size_t n = S->count[g],
                 k = (size_t)fricl_stencil_vertex_count(S->type[g]);
    o->gpot[g] = calloc(n + 1, o->esz);
    o->loc[g] = calloc(n * k * d * k * d + 1, o->esz);
    o->gam[g] = calloc(n * k + 1, o->esz);
    o->q[g] = calloc(n * d + 1, o->esz);
    o->S[g] = calloc(n * 6 + 1, o->esz);
  }
}

static void outs_free(outs *o, size_t ng) {
  free(o->pot), free(o->grad), free(o->prod), free(o->hess);
  for (size_t g = 0; g < ng; ++g)
    free(o->gpot[g]), free(o->loc[g]), free(o->gam[g]), free(o->q[g]),
        free(o->S[g]);
}

/* The scene's data converted to float, kept alive for f32 runs. */
typedef struct {
  float *beta[5], *P[5], *N[5], *w[5], *ms[5], *mk[5], *a[5], *vel, *dir;
} scene_f;

static float *to_f(const double *x, size_t n) {
  float *y = malloc((n ? n : 1) * sizeof *y);
  for (size_t i = 0; i < n; ++i)
    y[i] = (float)x[i];
  return y;
}

static void scene_f_make(scene_f *F, const scene *S) {
  for (size_t g = 0; g < S->ng; ++g) {
    const size_t n = S->count[g];
    F->beta[g] = to_f(S->beta[g], n * 2);
    F->P[g] = to_f(S->P[g], n * 6);
    F->N[g] = to_f(S->N[g], n);
    F->w[g] = to_f(S->w[g], n);
    F->ms[g] = to_f(S->ms[g], n);
    F->mk[g] = to_f(S->mk[g], n);
    F->a[g] = to_f(S->a[g], n * 2);
  }
  F->vel = to_f(S->vel, S->nv * (size_t)S->dim);
  F->dir = to_f(S->dir, S->nv * (size_t)S->dim);
}

static void scene_f_free(scene_f *F, size_t ng) {
  for (size_t g = 0; g < ng; ++g)
    free(F->beta[g]), free(F->P[g]), free(F->N[g]), free(F->w[g]),
        free(F->ms[g]), free(F->mk[g]), free(F->a[g]);
  free(F->vel), free(F->dir);
}

static fricl_status run(fricl_context *ctx, const scene *S, const scene_f *F,
                        fricl_precision p, fricl_mu_profile prof, fricl_psd psd,
                        uint32_t flags, double e,
                        const fricl_tangential_plan *plan, outs *o) {
  fricl_contact_group G[5];
  for (size_t g = 0; g < S->ng; ++g) {
    memset(&G[g], 0, sizeof G[g]);
    const int f = p == FRICL_F32;
    G[g].type = S->type[g];
    G[g].count = S->count[g];
    G[g].vertices = S->vx[g];
    G[g].closest_point =
        fricl_stencil_coord_count(S->type[g])
            ? (f ? (const void *)F->beta[g] : (const void *)S->beta[g])
            : NULL;
    G[g].tangent_basis = f ? (const void *)F->P[g] : (const void *)S->P[g];
    G[g].normal_force = f ? (const void *)F->N[g] : (const void *)S->N[g];
    G[g].weight = f ? (const void *)F->w[g] : (const void *)S->w[g];
    G[g].mu_s = f ? (const void *)F->ms[g] : (const void *)S->ms[g];
    G[g].mu_k = f ? (const void *)F->mk[g] : (const void *)S->mk[g];
    G[g].mu_aniso = f ? (const void *)F->a[g] : (const void *)S->a[g];
    if (o) {
      G[g].potential = o->gpot[g];
      G[g].local_hessian = o->loc[g];
      G[g].factored_gamma = o->gam[g];
      G[g].factored_grad = o->q[g];
      G[g].factored_hessian = o->S[g];
    }
  }
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.precision = p;
  b.mu_profile = prof;
  b.psd = psd;
  b.flags = flags;
  b.dim = S->dim;
  b.n_vertices = S->nv;
  b.velocities = p == FRICL_F32 ? (const void *)F->vel : (const void *)S->vel;
  b.direction = p == FRICL_F32 ? (const void *)F->dir : (const void *)S->dir;
  b.eps_v = e;
  b.n_groups = S->ng;
  b.groups = G;
  b.plan = plan;
  if (o) {
    b.potential = o->pot;
    b.gradient = o->grad;
    b.hessian_product = o->prod;
    b.hessian_values = plan ? o->hess : NULL;
  }
  return fricl_tangential_eval(ctx, &b);
}

static int outs_equal(const outs *a, const outs *b, const scene *S) {
  const size_t d = (size_t)S->dim, nvd = S->nv * d, es = a->esz;
  int eq = memcmp(a->pot, b->pot, es) == 0 &&
           memcmp(a->grad, b->grad, nvd * es) == 0 &&
           memcmp(a->prod, b->prod, nvd * es) == 0 &&
           memcmp(a->hess, b->hess, a->nnz * d * d * es) == 0;
  for (size_t g = 0; g < S->ng; ++g) {
    const size_t n = S->count[g],
                 k = (size_t)fricl_stencil_vertex_count(S->type[g]);
    eq = eq && memcmp(a->gpot[g], b->gpot[g], n * es) == 0 &&
         memcmp(a->loc[g], b->loc[g], n * k * d * k * d * es) == 0 &&
         memcmp(a->gam[g], b->gam[g], n * k * es) == 0 &&
         memcmp(a->q[g], b->q[g], n * d * es) == 0 &&
         memcmp(a->S[g], b->S[g], n * (d * (d + 1) / 2) * es) == 0;
  }
  return eq;
}

/* Eigenvalues of a symmetric n x n matrix (cyclic Jacobi; a is destroyed). */
static void jacobi_eig(double *a, int n, double *ev) {
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q)
        off += a[p * n + q] * a[p * n + q];
    if (off < 1e-300)
      break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0)
          continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t =
            (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        const double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int r = 0; r < n; ++r) {
          const double arp = a[r * n + p], arq = a[r * n + q];
          a[r * n + p] = c * arp - s * arq;
          a[r * n + q] = s * arp + c * arq;
        }
        for (int r = 0; r < n; ++r) {
          const double apr = a[p * n + r], aqr = a[q * n + r];
          a[p * n + r] = c * apr - s * aqr;
          a[q * n + r] = s * apr + c * aqr;
        }
      }
  }
  for (int i = 0; i < n; ++i)
    ev[i] = a[i * n + i];
}

/* Internal consistency of one f64 evaluation. */
static void check_consistency(const char *label, const scene *S, const outs *o,
                              const fricl_tangential_plan *plan) {
  const size_t d = (size_t)S->dim, nv = S->nv, nvd = nv * d;
  double *gsum = calloc(nvd, sizeof *gsum);
  double *dense = calloc(nvd * nvd, sizeof *dense);
  double psum = 0, hmax = 0, gmax = 0;
  for (size_t g = 0; g < S->ng; ++g) {
    const size_t n = S->count[g],
                 k = (size_t)fricl_stencil_vertex_count(S->type[g]);
    const size_t nd = k * d, npk = d * (d + 1) / 2;
    const double *gam = o->gam[g], *q = o->q[g], *Sp = o->S[g], *L = o->loc[g];
    for (size_t c = 0; c < n; ++c) {
      psum += ((const double *)o->gpot[g])[c];
      double gw[4];
      spec_gamma(S->type[g],
                 S->beta[g] + c * (size_t)fricl_stencil_coord_count(S->type[g]),
                 gw);
      for (size_t i = 0; i < k; ++i) {
        CHECK(fabs(gam[c * k + i] - gw[i]) <= 1e-15, "%s: gamma", label);
        const size_t vi = (size_t)S->vx[g][c * k + i];
        for (size_t r = 0; r < d; ++r) {
          gsum[vi * d + r] += gam[c * k + i] * q[c * d + r];
          gmax = fmax(gmax, fabs(gam[c * k + i] * q[c * d + r]));
        }
        for (size_t j = 0; j < k; ++j) {
          const size_t vj = (size_t)S->vx[g][c * k + j];
          for (size_t r = 0; r < d; ++r)
            for (size_t s = 0; s < d; ++s) {
              const size_t lo = r < s ? r : s, hi = r < s ? s : r;
              const double Srs =
                  Sp[c * npk + lo * d - lo * (lo - 1) / 2 + hi - lo];
              const double hl = L[c * nd * nd + (i * d + r) * nd + j * d + s];
              CHECK(hl == (gam[c * k + i] * gam[c * k + j]) * Srs,
                    "%s: local != gamma gamma S (group %zu contact %zu)", label,
                    g, c);
              dense[(vi * d + r) * nvd + vj * d + s] += hl;
              hmax = fmax(hmax, fabs(hl));
            }
        }
      }
    }
  }
  const double pot = *(const double *)o->pot;
  CHECK(fabs(pot - psum) <= 1e-13 * fmax(fabs(psum), 1e-300) + 1e-300,
        "%s: total %.17g vs sum %.17g", label, pot, psum);
  double worst = 0;
  for (size_t i = 0; i < nvd; ++i)
    worst = fmax(worst, fabs(((const double *)o->grad)[i] - gsum[i]));
  CHECK(worst <= 1e-13 * gmax, "%s: gradient vs scatter: %.3g", label, worst);
  /* Global CSR: sorted unique columns, equal to the dense sum. */
  size_t nnzb = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnzb, NULL, NULL);
  const size_t nnz = nnzb * d * d;
  int64_t *rp = malloc((nvd + 1) * sizeof *rp);
  int32_t *cols = malloc((nnz + 1) * sizeof *cols);
  double *vals = malloc((nnz + 1) * sizeof *vals);
  CHECK(fricl_tangential_plan_csr(plan, FRICL_F64, o->hess, rp, cols, vals) ==
            FRICL_STATUS_OK,
        "%s: csr", label);
  double *fromcsr = calloc(nvd * nvd, sizeof *fromcsr);
  for (size_t r = 0; r < nvd; ++r)
    for (int64_t x = rp[r]; x < rp[r + 1]; ++x) {
      CHECK(x == rp[r] || cols[x] > cols[x - 1], "%s: CSR row %zu unsorted",
            label, r);
      fromcsr[r * nvd + (size_t)cols[x]] = vals[x];
    }
  CHECK(rp[nvd] == (int64_t)nnz, "%s: csr nnz", label);
  worst = 0;
  for (size_t i = 0; i < nvd * nvd; ++i)
    worst = fmax(worst, fabs(fromcsr[i] - dense[i]));
  CHECK(worst <= 1e-13 * hmax, "%s: global Hessian vs sum of local: %.3g",
        label, worst);
  /* Matrix-free product against the dense matrix. */
  worst = 0;
  double pmax = 0;
  for (size_t r = 0; r < nvd; ++r) {
    double s = 0;
    for (size_t c = 0; c < nvd; ++c)
      s += dense[r * nvd + c] * S->dir[c];
    pmax = fmax(pmax, fabs(s));
    worst = fmax(worst, fabs(((const double *)o->prod)[r] - s));
  }
  CHECK(worst <= 1e-12 * fmax(pmax, hmax), "%s: H p vs dense: %.3g", label,
        worst);
  free(gsum), free(dense), free(rp), free(cols), free(vals), free(fromcsr);
}

/* Min eigenvalue (relative to the largest magnitude) of every local
 * Hessian; and, for CLAMP, equality with NONE where NONE is PSD. */
static void check_psd(const char *label, const scene *S, const outs *proj,
                      const outs *none, fricl_psd psd) {
  const size_t d = (size_t)S->dim;
  for (size_t g = 0; g < S->ng; ++g) {
    const size_t n = S->count[g],
                 nd = (size_t)fricl_stencil_vertex_count(S->type[g]) * d;
    for (size_t c = 0; c < n; ++c) {
      const double *Hp = (const double *)proj->loc[g] + c * nd * nd;
      const double *Hn = (const double *)none->loc[g] + c * nd * nd;
      double a[144], ev[12], an[144], evn[12], big = 0, bign = 0;
      memcpy(a, Hp, nd * nd * sizeof(double));
      memcpy(an, Hn, nd * nd * sizeof(double));
      jacobi_eig(a, (int)nd, ev);
      jacobi_eig(an, (int)nd, evn);
      double mn = 0, mnn = 0;
      for (size_t i = 0; i < nd; ++i) {
        big = fmax(big, fabs(ev[i]));
        bign = fmax(bign, fabs(evn[i]));
        mn = fmin(mn, ev[i]);
        mnn = fmin(mnn, evn[i]);
      }
      CHECK(mn >= -1e-12 * big, "%s %s: eigenvalue %.3g (max %.3g)", label,
            fricl_psd_name(psd), mn, big);
      if (mnn >= -1e-12 * bign) {
        double diff = 0;
        for (size_t i = 0; i < nd * nd; ++i)
          diff = fmax(diff, fabs(Hp[i] - Hn[i]));
        CHECK(diff <= 1e-12 * bign, "%s %s: differs from a PSD NONE by %.3g",
              label, fricl_psd_name(psd), diff);
      }
    }
  }
}

static void run_backend(const test_backend *be, int dim) {
  char label[256];
  snprintf(label, sizeof label, "%s dim %d", be->label, dim);
  const double e = 1e-3;
  scene S;
  scene_make(&S, dim, 80, 40, e, 0.2);
  scene_f F;
  scene_f_make(&F, &S);
  fricl_context *ctx = test_context(be->spec, 0, 0);
  fricl_context *ref = test_context("reference", 0, 0);
  if (!ctx || !ref)
    return;
  fricl_contact_group G[5];
  for (size_t g = 0; g < S.ng; ++g) {
    memset(&G[g], 0, sizeof G[g]);
    G[g].type = S.type[g];
    G[g].count = S.count[g];
    G[g].vertices = S.vx[g];
  }
  fricl_tangential_plan *plan = NULL, *plan_ref = NULL;
  CHECK(fricl_tangential_plan_create(ctx, dim, S.nv, S.ng, G, &plan) ==
            FRICL_STATUS_OK,
        "%s: plan: %s", label, fricl_context_last_error(ctx));
  CHECK(fricl_tangential_plan_create(ref, dim, S.nv, S.ng, G, &plan_ref) ==
            FRICL_STATUS_OK,
        "%s: plan", label);
  size_t nnz = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  for (int prof = 0; prof < 2; ++prof) {
    outs none, o, o2, r;
    outs_alloc(&none, &S, FRICL_F64, nnz);
    for (int psd = 0; psd < 3; ++psd) {
      char lab[300];
      snprintf(lab, sizeof lab, "%s %s psd=%s", label, prof ? "ipctk" : "cubic",
               fricl_psd_name((fricl_psd)psd));
      outs_alloc(&o, &S, FRICL_F64, nnz);
      outs_alloc(&o2, &S, FRICL_F64, nnz);
      outs_alloc(&r, &S, FRICL_F64, nnz);
      CHECK(run(ctx, &S, &F, FRICL_F64, (fricl_mu_profile)prof, (fricl_psd)psd,
                0, e, plan, &o) == FRICL_STATUS_OK,
            "%s: %s", lab, fricl_context_last_error(ctx));
      run(ctx, &S, &F, FRICL_F64, (fricl_mu_profile)prof, (fricl_psd)psd, 0, e,
          plan, &o2);
      run(ref, &S, &F, FRICL_F64, (fricl_mu_profile)prof, (fricl_psd)psd, 0, e,
          plan_ref, &r);
      CHECK(outs_equal(&o, &o2, &S), "%s: not bitwise repeatable", lab);
      CHECK(outs_equal(&o, &r, &S), "%s: differs from the C reference", lab);
      check_consistency(lab, &S, &o, plan);
      if (psd == 0)
        run(ctx, &S, &F, FRICL_F64, (fricl_mu_profile)prof, FRICL_PSD_NONE, 0,
            e, plan, &none);
      else
        check_psd(lab, &S, &o, &none, (fricl_psd)psd);
      /* f32 against f64, relative to the gradient/Hessian scales. */
      outs f;
      outs_alloc(&f, &S, FRICL_F32, nnz);
      CHECK(run(ctx, &S, &F, FRICL_F32, (fricl_mu_profile)prof, (fricl_psd)psd,
                0, e, plan, &f) == FRICL_STATUS_OK,
            "%s f32: %s", lab, fricl_context_last_error(ctx));
      double gmax = 0, gerr = 0, hmax = 0, herr = 0;
      for (size_t i = 0; i < S.nv * (size_t)dim; ++i) {
        gmax = fmax(gmax, fabs(((double *)o.grad)[i]));
        gerr = fmax(gerr, fabs(((double *)o.grad)[i] - ((float *)f.grad)[i]));
      }
      for (size_t i = 0; i < nnz * (size_t)(dim * dim); ++i) {
        hmax = fmax(hmax, fabs(((double *)o.hess)[i]));
        herr = fmax(herr, fabs(((double *)o.hess)[i] - ((float *)f.hess)[i]));
      }
      CHECK(gerr <= 1e-4 * gmax && herr <= 1e-4 * hmax,
            "%s: f32 vs f64: gradient %.3g of %.3g, Hessian %.3g of %.3g", lab,
            gerr, gmax, herr, hmax);
      outs_free(&f, S.ng);
      outs_free(&o, S.ng);
      outs_free(&o2, S.ng);
      outs_free(&r, S.ng);
    }
    outs_free(&none, S.ng);
  }
  fricl_tangential_plan_destroy(plan);
  fricl_tangential_plan_destroy(plan_ref);
  fricl_context_destroy(ctx);
  fricl_context_destroy(ref);
  scene_f_free(&F, S.ng);
  scene_free(&S);
}

/* Chunked (1024-contact chunks) equals unchunked, bitwise. */
static void check_chunking(const test_backend *be) {
  scene S;
  scene_make(&S, 3, 900, 700, 1e-3, 0.1); /* 3500 contacts */
  fricl_context *whole = test_context(be->spec, 0, 0);
  fricl_context *chunked = test_context(be->spec, 1000, 0);
  if (!whole || !chunked)
    return;
  fricl_contact_group G[5];
  for (size_t g = 0; g < S.ng; ++g) {
    memset(&G[g], 0, sizeof G[g]);
    G[g].type = S.type[g];
    G[g].count = S.count[g];
    G[g].vertices = S.vx[g];
  }
  fricl_tangential_plan *p1 = NULL, *p2 = NULL;
  fricl_tangential_plan_create(whole, 3, S.nv, S.ng, G, &p1);
  fricl_tangential_plan_create(chunked, 3, S.nv, S.ng, G, &p2);
  size_t nnz = 0;
  fricl_tangential_plan_bsr(p1, NULL, &nnz, NULL, NULL);
  outs a, b;
  outs_alloc(&a, &S, FRICL_F64, nnz);
  outs_alloc(&b, &S, FRICL_F64, nnz);
  CHECK(run(whole, &S, NULL, FRICL_F64, FRICL_MU_CUBIC, FRICL_PSD_CLAMP, 0,
            1e-3, p1, &a) == FRICL_STATUS_OK,
        "%s: %s", be->label, fricl_context_last_error(whole));
  CHECK(run(chunked, &S, NULL, FRICL_F64, FRICL_MU_CUBIC, FRICL_PSD_CLAMP, 0,
            1e-3, p2, &b) == FRICL_STATUS_OK,
        "%s: %s", be->label, fricl_context_last_error(chunked));
  CHECK(outs_equal(&a, &b, &S), "%s: chunked differs from unchunked",
        be->label);
  outs_free(&a, S.ng);
  outs_free(&b, S.ng);
  fricl_tangential_plan_destroy(p1);
  fricl_tangential_plan_destroy(p2);
  fricl_context_destroy(whole);
  fricl_context_destroy(chunked);
  scene_free(&S);
}

/* Displacements dx = h v with eps_v h: D scales by h, gradient invariant,
 * Hessian by 1/h (spec 4.8); bitwise for h a power of two. */
static void check_homogeneity(const test_backend *be) {
  scene S;
  scene_make(&S, 3, 60, 20, 1e-3, 0.0);
  fricl_context *ctx = test_context(be->spec, 0, 0);
  if (!ctx)
    return;
  const double h = 0.25;
  outs a, b;
  outs_alloc(&a, &S, FRICL_F64, 0);
  outs_alloc(&b, &S, FRICL_F64, 0);
  run(ctx, &S, NULL, FRICL_F64, FRICL_MU_IPCTK, FRICL_PSD_NONE, 0, 1e-3, NULL,
      &a);
  for (size_t i = 0; i < S.nv * 3; ++i)
    S.vel[i] *= h;
  run(ctx, &S, NULL, FRICL_F64, FRICL_MU_IPCTK, FRICL_PSD_NONE, 0, 1e-3 * h,
      NULL, &b);
  CHECK(*(double *)b.pot == h * *(double *)a.pot,
        "%s: D(h v; h e) %.17g vs "
        "h D %.17g",
        be->label, *(double *)b.pot, h * *(double *)a.pot);
  CHECK(memcmp(a.grad, b.grad, S.nv * 3 * sizeof(double)) == 0,
        "%s: gradient not invariant", be->label);
  int ok = 1;
  for (size_t g = 0; g < S.ng; ++g) {
    const size_t k = (size_t)fricl_stencil_vertex_count(S.type[g]);
    for (size_t i = 0; i < S.count[g] * 9 * k * k; ++i)
      ok &= ((double *)b.loc[g])[i] == ((double *)a.loc[g])[i] / h;
  }
  CHECK(ok, "%s: Hessian does not scale by 1/h", be->label);
  outs_free(&a, S.ng);
  outs_free(&b, S.ng);
  fricl_context_destroy(ctx);
  scene_free(&S);
}

/* ipctk's ABS quirk: with w N < 0 its kinetic and y = 0 branches give 0. */
static void check_ipctk_abs(const test_backend *be) {
  fricl_context *ctx = test_context(be->spec, 0, 0);
  if (!ctx)
    return;
  const int32_t vx[1] = {0};
  const double P[6] = {1, 0, 0, 1, 0, 0}, N = 2, w = -1, ms = 0.5, mk = 0.3;
  for (int zero = 0; zero < 2; ++zero) {
    const double vel[3] = {zero ? 0 : 5e-3, zero ? 0 : 1e-3, 0};
    double Hu[9], Hq[9];
    for (int quirk = 0; quirk < 2; ++quirk) {
      fricl_contact_group G = {0};
      G.type = FRICL_STENCIL_PV;
      G.count = 1;
      G.vertices = vx;
      G.tangent_basis = P;
      G.normal_force = &N;
      G.weight = &w;
      G.mu_s = &ms;
      G.mu_k = &mk;
      G.local_hessian = quirk ? Hq : Hu;
      fricl_tangential_batch b;
      fricl_tangential_batch_init(&b);
      b.psd = FRICL_PSD_ABS;
      b.flags = quirk ? FRICL_TANGENTIAL_FLAG_IPCTK_ABS : 0;
      b.n_vertices = 1;
      b.velocities = vel;
      b.eps_v = 1e-3;
      b.n_groups = 1;
      b.groups = &G;
      CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "%s",
            fricl_context_last_error(ctx));
    }
    double nu = 0, nq = 0, tr = 0;
    for (int i = 0; i < 9; ++i)
      nu += fabs(Hu[i]), nq += fabs(Hq[i]);
    tr = Hu[0] + Hu[4] + Hu[8];
    CHECK(nu > 0 && tr > 0 && nq == 0,
          "%s %s: ABS with w < 0: uniform |H| (trace %.3g) and ipctk's 0 "
          "(norm %.3g)",
          be->label, zero ? "y = 0" : "kinetic", tr, nq);
  }
  fricl_context_destroy(ctx);
}

/* A NaN velocity reaches the outputs of the contacts that read it only. */
static void check_nan(const test_backend *be) {
  fricl_context *ctx = test_context(be->spec, 0, 0);
  if (!ctx)
    return;
  const int32_t vx[4] = {0, 1, 2, 3};
  const double beta[2] = {0.3, 0.4}, P[6] = {1, 0, 0, 1, 0, 0};
  const double N[2] = {1, 1}, ms[2] = {0.5, 0.5}, mk[2] = {0.3, 0.3};
  double vel[12] = {1e-3, 0, 0, NAN, 0, 0, 2e-3, 1e-3, 0, 0, 0, 0};
  double pot[2], grad[12];
  fricl_contact_group G = {0};
  G.type = FRICL_STENCIL_VV;
  G.count = 2;
  G.vertices = vx;
  G.tangent_basis = P;
  G.normal_force = N;
  G.mu_s = ms;
  G.mu_k = mk;
  G.potential = pot;
  double P2[12] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0};
  G.tangent_basis = P2;
  (void)beta;
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.n_vertices = 4;
  b.velocities = vel;
  b.eps_v = 1e-3;
  b.n_groups = 1;
  b.groups = &G;
  b.gradient = grad;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "%s",
        fricl_context_last_error(ctx));
  CHECK(isnan(pot[0]) && isfinite(pot[1]), "%s: NaN isolation %g %g", be->label,
        pot[0], pot[1]);
  CHECK(isnan(grad[0]) && isfinite(grad[6]) && isfinite(grad[9]),
        "%s: NaN gradient isolation", be->label);
  fricl_context_destroy(ctx);
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    run_backend(&be[i], 3);
    run_backend(&be[i], 2);
    check_chunking(&be[i]);
    check_homogeneity(&be[i]);
    check_ipctk_abs(&be[i]);
    check_nan(&be[i]);
  }
  return test_report("test_tangential_assembly");
}
