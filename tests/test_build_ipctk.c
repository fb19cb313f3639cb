/*
 * test_build_ipctk.c - the lagged build against ipctk (the IPC Toolkit's
 * Python package): reads the cases written by tests/ipctk/gen_build_cases.py
 * (random meshes, ipctk's normal and tangential collisions with per-vertex
 * mu and several blend rules), runs fricl_build on the same collisions and
 * compares field by field to 1e-10 relative: beta, P, N, dN/dx, mu_s, mu_k,
 * weight, and the near-parallel edge-edge pairs ipctk drops (status
 * EE_PARALLEL here). On the reference backend and every OpenCL device, f64.
 *
 * usage: test_build_ipctk CASES_FILE
 * Exit status 77 (skip) with a loud message when the file is missing
 * because ipctk could not be imported by the generator.
 */
#include "test_util.h"

#define TOL 1e-10

typedef struct {
  int type, k, kept;
  int32_t ids[4];
  double dmin;
  int nb;
  double beta[2], P[6], N, gN[12], mus, muk, w;
} row;

typedef struct {
  int dim, nv, physical, blend, nrows;
  double kappa, dhat;
  double *X, *R, *mus, *muk;
  row *rows;
} tcase;

static int read_reals(FILE *f, const char *tag, double *out, size_t n) {
  char t[16];
  if (fscanf(f, "%15s", t) != 1 || strcmp(t, tag) != 0)
    return 1;
  for (size_t i = 0; i < n; ++i)
    if (fscanf(f, "%lf", &out[i]) != 1)
      return 1;
  return 0;
}

/* Reads one case; 1 at the end of the file, -1 on a format error. */
static int read_case(FILE *f, tcase *c) {
  char t[16];
  memset(c, 0, sizeof *c);
  if (fscanf(f, "%15s", t) != 1)
    return 1;
  if (strcmp(t, "case") != 0 ||
      fscanf(f, "%d %d %lf %lf %d %d %d", &c->dim, &c->nv, &c->kappa, &c->dhat,
             &c->physical, &c->blend, &c->nrows) != 7 ||
      c->nv <= 0 || c->nrows < 0)
    return -1;
  const size_t nx = (size_t)c->nv * (size_t)c->dim;
  c->X = malloc(nx * sizeof(double));
  c->R = malloc(nx * sizeof(double));
  c->mus = malloc((size_t)c->nv * sizeof(double));
  c->muk = malloc((size_t)c->nv * sizeof(double));
  c->rows = calloc((size_t)c->nrows + 1, sizeof(row));
  if (read_reals(f, "X", c->X, nx) || read_reals(f, "R", c->R, nx) ||
      read_reals(f, "MUS", c->mus, (size_t)c->nv) ||
      read_reals(f, "MUK", c->muk, (size_t)c->nv))
    return -1;
  const int m = c->dim - 1;
  for (int i = 0; i < c->nrows; ++i) {
    row *r = &c->rows[i];
    if (fscanf(f, "%15s %d %d", t, &r->type, &r->k) != 3 ||
        strcmp(t, "C") != 0 || r->k < 1 || r->k > 4)
      return -1;
    for (int j = 0; j < r->k; ++j)
      if (fscanf(f, "%d", &r->ids[j]) != 1)
        return -1;
    if (fscanf(f, "%d %lf", &r->kept, &r->dmin) != 2)
      return -1;
    if (!r->kept)
      continue;
    if (fscanf(f, "%d", &r->nb) != 1 || r->nb < 0 || r->nb > 2)
      return -1;
    for (int j = 0; j < r->nb; ++j)
      if (fscanf(f, "%lf", &r->beta[j]) != 1)
        return -1;
    for (int j = 0; j < c->dim * m; ++j)
      if (fscanf(f, "%lf", &r->P[j]) != 1)
        return -1;
    if (fscanf(f, "%lf", &r->N) != 1)
      return -1;
    for (int j = 0; j < r->k * c->dim; ++j)
      if (fscanf(f, "%lf", &r->gN[j]) != 1)
        return -1;
    if (fscanf(f, "%lf %lf %lf", &r->mus, &r->muk, &r->w) != 3)
      return -1;
  }
  return 0;
}

static void free_case(tcase *c) {
  free(c->X);
  free(c->R);
  free(c->mus);
  free(c->muk);
  free(c->rows);
}

/* Relative difference on the scale max(|a|, |b|, floor). */
static double rel(double a, double b, double floor) {
  const double s = fmax(fmax(fabs(a), fabs(b)), floor);
  return fabs(a - b) / s;
}

typedef struct {
  double beta, P, N, gN, mu, w;
  long compared, skipped, sign_flips, zero_force;
} stats;

static void run_case(fricl_context *ctx, const char *label, int ci,
                     const tcase *c, stats *s) {
  const int dim = c->dim, m = dim - 1;
  fricl_build_group G[4];
  memset(G, 0, sizeof G);
  int32_t *vx[4];
  double *dmin[4], *win[4], *beta[4], *P[4], *N[4], *gN[4], *ms[4], *mk[4],
      *w[4];
  uint8_t *st[4];
  int *map[4]; /* group slot -> row */
  for (int t = 0; t < 4; ++t) {
    size_t n = 0;
    for (int i = 0; i < c->nrows; ++i)
      n += c->rows[i].type == t;
    const size_t k = (size_t)fricl_stencil_vertex_count((fricl_stencil)t);
    vx[t] = malloc((n * k + 1) * sizeof(int32_t));
    dmin[t] = malloc((n + 1) * sizeof(double));
    win[t] = malloc((n + 1) * sizeof(double));
    beta[t] = calloc(n * 2 + 1, sizeof(double));
    P[t] = calloc(n * 6 + 1, sizeof(double));
    N[t] = calloc(n + 1, sizeof(double));
    gN[t] = calloc(n * 12 + 1, sizeof(double));
    ms[t] = calloc(n + 1, sizeof(double));
    mk[t] = calloc(n + 1, sizeof(double));
    w[t] = calloc(n + 1, sizeof(double));
    st[t] = calloc(n + 1, 1);
    map[t] = malloc((n + 1) * sizeof(int));
    size_t j = 0;
    for (int i = 0; i < c->nrows; ++i)
      if (c->rows[i].type == t) {
        for (size_t v = 0; v < k; ++v)
          vx[t][j * k + v] = c->rows[i].ids[v];
        dmin[t][j] = c->rows[i].dmin;
        /* The normal collision's weight (ipctk merges duplicate VV/EV
         * candidates into one collision of weight > 1). */
        win[t][j] = c->rows[i].kept ? c->rows[i].w : 1;
        map[t][j++] = i;
      }
    G[t].type = (fricl_stencil)t;
    G[t].count = n;
    G[t].vertices = vx[t];
    G[t].dmin = dmin[t];
    G[t].weight = win[t];
    G[t].closest_point = fricl_stencil_coord_count(G[t].type) ? beta[t] : NULL;
    G[t].tangent_basis = P[t];
    G[t].normal_force = N[t];
    G[t].normal_force_gradient = gN[t];
    G[t].mu_s_out = ms[t];
    G[t].mu_k_out = mk[t];
    G[t].weight_out = w[t];
    G[t].status = st[t];
  }
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.dim = dim;
  b.flags = c->physical ? FRICL_BUILD_FLAG_PHYSICAL_BARRIER : 0;
  b.n_vertices = (size_t)c->nv;
  b.lagged_positions = c->X;
  b.rest_positions = c->R;
  b.kappa = c->kappa;
  b.dhat = c->dhat;
  b.vertex_mu_s = c->mus;
  b.vertex_mu_k = c->muk;
  b.blend = (fricl_mu_blend)c->blend;
  b.n_groups = dim == 3 ? 4 : 2; /* EE and FV exist only in 3-D */
  b.groups = G;
  const fricl_status rc = fricl_build(ctx, &b);
  CHECK(rc == FRICL_STATUS_OK, "%s case %d: %s", label, ci,
        fricl_context_last_error(ctx));
  for (int t = 0; t < (int)b.n_groups && rc == FRICL_STATUS_OK; ++t) {
    const int k = fricl_stencil_vertex_count((fricl_stencil)t);
    const char *tn = fricl_stencil_name((fricl_stencil)t);
    for (size_t j = 0; j < G[t].count; ++j) {
      const row *r = &c->rows[map[t][j]];
      if (!r->kept) {
        ++s->skipped;
        CHECK(st[t][j] == FRICL_BUILD_EE_PARALLEL && N[t][j] == 0,
              "%s case %d %s %zu: ipctk dropped it (near-parallel), fricl "
              "status %d",
              label, ci, tn, j, st[t][j]);
        continue;
      }
      ++s->compared;
      /* ipctk keeps collisions inside the dmin shell (d <= dmin) with
       * N = 0; fricl marks them INSIDE_DMIN. */
      const int want_ok = r->N != 0;
      if (!want_ok)
        ++s->zero_force;
      CHECK(want_ok ? st[t][j] == FRICL_BUILD_OK
                    : st[t][j] == FRICL_BUILD_INSIDE_DMIN,
            "%s case %d %s %zu: status %d (%s), ipctk N = %g", label, ci, tn, j,
            st[t][j], fricl_build_status_name((fricl_build_status)st[t][j]),
            r->N);
      for (int i = 0; i < r->nb; ++i) {
        const double e =
            rel(beta[t][j * (size_t)r->nb + (size_t)i], r->beta[i], 1);
        s->beta = fmax(s->beta, e);
        CHECK(e <= TOL, "%s case %d %s %zu: beta[%d] %.17g, ipctk %.17g", label,
              ci, tn, j, i, beta[t][j * (size_t)r->nb + (size_t)i], r->beta[i]);
      }
      /* P: the spec's rules are ipctk's; a column may differ in sign only
       * where a convention differs (counted and reported). */
      for (int col = 0; col < m; ++col) {
        double ep = 0, en = 0;
        for (int rr = 0; rr < dim; ++rr) {
          const double a = P[t][j * (size_t)(dim * m) + (size_t)(rr * m + col)];
          const double bb = r->P[rr * m + col];
          ep = fmax(ep, fabs(a - bb));
          en = fmax(en, fabs(a + bb));
        }
        if (en < ep) {
          ++s->sign_flips;
          ep = en;
        }
        s->P = fmax(s->P, ep);
        CHECK(ep <= TOL, "%s case %d %s %zu: P column %d differs by %g", label,
              ci, tn, j, col, ep);
      }
      const double eN = rel(N[t][j], r->N, DBL_MIN);
      s->N = fmax(s->N, eN);
      CHECK(eN <= TOL, "%s case %d %s %zu: N %.17g, ipctk %.17g", label, ci, tn,
            j, N[t][j], r->N);
      double gmax = 0;
      for (int i = 0; i < k * dim; ++i)
        gmax = fmax(gmax, fabs(r->gN[i]));
      for (int i = 0; i < k * dim; ++i) {
        const double e =
            fabs(gN[t][j * (size_t)(k * dim) + (size_t)i] - r->gN[i]) /
            fmax(gmax, DBL_MIN);
        s->gN = fmax(s->gN, e);
        CHECK(e <= TOL, "%s case %d %s %zu: dN/dx[%d] %.17g, ipctk %.17g",
              label, ci, tn, j, i, gN[t][j * (size_t)(k * dim) + (size_t)i],
              r->gN[i]);
      }
      const double em =
          fmax(rel(ms[t][j], r->mus, 0), rel(mk[t][j], r->muk, 0));
      s->mu = fmax(s->mu, em);
      CHECK(em <= TOL, "%s case %d %s %zu: mu %.17g %.17g, ipctk %.17g %.17g",
            label, ci, tn, j, ms[t][j], mk[t][j], r->mus, r->muk);
      s->w = fmax(s->w, fabs(w[t][j] - r->w));
      CHECK(w[t][j] == r->w, "%s case %d %s %zu: weight %g, ipctk %g", label,
            ci, tn, j, w[t][j], r->w);
    }
  }
  for (int t = 0; t < 4; ++t) {
    free(vx[t]);
    free(dmin[t]);
    free(win[t]);
    free(beta[t]);
    free(P[t]);
    free(N[t]);
    free(gN[t]);
    free(ms[t]);
    free(mk[t]);
    free(w[t]);
    free(st[t]);
    free(map[t]);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_build_ipctk CASES_FILE\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    fprintf(stderr,
            "**********************************************************"
            "************\n*** SKIPPED: ipctk not installed: %s was not "
            "written by tests/ipctk/gen_build_cases.py; the ipctk "
            "cross-check of the lagged build did NOT run\n*********"
            "*************************************************"
            "************\n",
            argv[1]);
    return 77;
  }
  char head[128];
  if (!fgets(head, sizeof head, f) ||
      strncmp(head, "fricl-build-ipctk 1", 19) != 0) {
    head[0] = '\0';
    fprintf(stderr, "%s: not a build cross-check file\n", argv[1]);
    fclose(f);
    return 1;
  }
  head[strcspn(head, "\n")] = '\0';
  tcase cases[64];
  int nc = 0, r = 0;
  while (nc < 64 && (r = read_case(f, &cases[nc])) == 0)
    ++nc;
  fclose(f);
  CHECK(r >= 0, "format error in case %d of %s", nc, argv[1]);
  CHECK(nc > 0, "no cases in %s", argv[1]);
  test_backend be[TEST_MAX_BACKENDS];
  const int nbe = test_backends(be);
  for (int i = 0; i < nbe; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx || !fricl_context_has_fp64(ctx)) {
      fricl_context_destroy(ctx);
      continue;
    }
    stats s;
    memset(&s, 0, sizeof s);
    for (int c = 0; c < nc; ++c)
      run_case(ctx, be[i].label, c, &cases[c], &s);
    printf("%s (%s): %ld collisions compared, %ld near-parallel EE skipped "
           "by both; max relative difference beta %.2e, P %.2e, N %.2e, "
           "dN/dx %.2e, mu %.2e, weight %.2e; P column sign flips %ld; "
           "%ld inside dmin (N = 0 in both)\n",
           be[i].label, head + 20, s.compared, s.skipped, s.beta, s.P, s.N,
           s.gN, s.mu, s.w, s.sign_flips, s.zero_force);
    fricl_context_destroy(ctx);
  }
  for (int c = 0; c < nc; ++c)
    free_case(&cases[c]);
  return test_report("test_build_ipctk");
}
