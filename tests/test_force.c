/*
 * test_force.c - the friction force (fricl_force_eval) and its Jacobians:
 *  - every stencil (3-D: vv ev ee fv pv; 2-D: vv ev pv), velocities below,
 *    around and above eps_v, mu_s != mu_k in both profiles, with and
 *    without anisotropy, the physical barrier and dmin: each Jacobian
 *    (rest positions, lagged displacements, velocities) against central
 *    differences of the force (an independent oracle: the force alone);
 *  - the force against the velocity gradient of the tangential potential
 *    D evaluated at the same lagged data (fricl_tangential_eval with N, P
 *    and beta from fricl_build): F = -grad D when a = 1 (the identity ipctk
 *    relies on);
 *  - assembly: the global force and the BSR Jacobian equal the sums of
 *    the per-contact outputs, and the host backend (threaded, every loop
 *    split) equals the reference bitwise; f32 runs and stays close;
 *  - validation: the message names the argument and the first bad index.
 */
#include "test_util.h"

#include "barrier_scene.h"

#define NC 6 /* contacts per stencil and case */

static int identity_checked = 0;

typedef struct fcase {
  int dim, type, profile, aniso, physical;
  double vmag, dmin;
} fcase;

static const double EPS_V = 1e-2, DHAT = 0.3, KAPPA = 7.0;

/* One group of NC contacts of `type` over NC * k vertices. */
typedef struct fscene {
  int dim, type, k;
  size_t nv;
  int32_t ids[NC * 4];
  double rest[NC * 12], disp[NC * 12], vel[NC * 12];
  double pn[NC * 3], pc[NC], w[NC], ms[NC], mk[NC], an[NC * 2];
} fscene;

static void make_scene(fscene *s, const fcase *c) {
  s->dim = c->dim;
  s->type = c->type;
  s->k = fricl_stencil_vertex_count((fricl_stencil)c->type);
  s->nv = (size_t)(NC * s->k);
  for (int i = 0; i < NC; ++i) {
    double x[12], xr[12], pn[3] = {0, 0, 0}, pc = 0;
    bs_contact(c->type, c->dim, 0.1, 0, x, xr, pn, &pc);
    for (int j = 0; j < s->k; ++j) {
      s->ids[i * s->k + j] = i * s->k + j;
      for (int d = 0; d < c->dim; ++d) {
        const int at = (i * s->k + j) * c->dim + d;
        const double u = 0.01 * bs_range(-1, 1);
        s->disp[at] = u;
        s->rest[at] = x[j * c->dim + d] - u;
        s->vel[at] = c->vmag * bs_range(-1, 1);
      }
    }
    for (int d = 0; d < 3; ++d)
      s->pn[i * 3 + d] = pn[d];
    s->pc[i] = pc;
    s->w[i] = bs_range(0.5, 1.5) * (i == 1 ? -1 : 1);
    s->ms[i] = bs_range(0.4, 0.9);
    s->mk[i] = bs_range(0.1, 0.4);
    s->an[i * 2] = c->aniso ? bs_range(0.5, 2) : 1;
    s->an[i * 2 + 1] = c->aniso ? bs_range(0.5, 2) : 1;
  }
  /* the plane normals packed by dim */
  for (int i = 0; i < NC; ++i)
    for (int d = 0; d < c->dim; ++d)
      s->pn[i * c->dim + d] = s->pn[i * 3 + d];
}

static void setup(fricl_force_batch *b, fricl_force_group *g, const fscene *s,
                  const fcase *c) {
  memset(g, 0, sizeof *g);
  g->type = (fricl_stencil)s->type;
  g->count = NC;
  g->vertices = s->ids;
  g->weight = s->w;
  g->mu_s = s->ms;
  g->mu_k = s->mk;
  g->mu_aniso = c->aniso ? s->an : NULL;
  if (s->type == FRICL_STENCIL_PV) {
    g->plane_normal = s->pn;
    g->plane_offset = s->pc;
  }
  fricl_force_batch_init(b);
  b->dim = s->dim;
  b->mu_profile = (fricl_mu_profile)c->profile;
  b->flags = c->physical ? FRICL_FORCE_FLAG_PHYSICAL_BARRIER : 0;
  b->n_vertices = s->nv;
  b->rest_positions = s->rest;
  b->lagged_displacements = s->disp;
  b->velocities = s->vel;
  b->eps_v = EPS_V;
  b->kappa = KAPPA;
  b->dhat = DHAT;
  b->dmin = c->dmin;
  b->n_groups = 1;
  b->groups = g;
}

/* Local forces (NC x ndof) of the scene with its arrays as given. */
static void local_forces(fricl_context *ctx, fscene *s, const fcase *c,
                         double *F) {
  fricl_force_batch b;
  fricl_force_group g;
  setup(&b, &g, s, c);
  g.local_force = F;
  const fricl_status st = fricl_force_eval(ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "%s", fricl_context_last_error(ctx));
}

static int check_fd(fricl_context *ctx, const fcase *c, int *checked) {
  fscene s;
  make_scene(&s, c);
  const int ndof = s.k * c->dim;
  double J[3][NC * 144], F[NC * 12], N[NC];
  for (int wrt = 1; wrt <= 3; ++wrt) {
    fricl_force_batch b;
    fricl_force_group g;
    setup(&b, &g, &s, c);
    b.wrt = (fricl_force_wrt)wrt;
    g.local_force = F;
    g.local_jacobian = J[wrt - 1];
    g.normal_force = N;
    const fricl_status st = fricl_force_eval(ctx, &b);
    CHECK(st == FRICL_STATUS_OK, "%s", fricl_context_last_error(ctx));
  }
  /* rest and lagged Jacobians are the same (weights constant) */
  CHECK(memcmp(J[0], J[1], sizeof(double) * (size_t)(NC * ndof * ndof)) == 0,
        "rest and lagged Jacobians differ (dim %d type %d)", c->dim, c->type);
  double fscale = 0;
  for (int i = 0; i < NC * ndof; ++i)
    fscale = fmax(fscale, fabs(F[i]));
  for (int wrt = 2; wrt <= 3; ++wrt) {
    double *arr = wrt == 2 ? s.disp : s.vel;
    const double hstep = wrt == 2 ? 1e-6 : 1e-6 * fmax(c->vmag, EPS_V);
    double jscale = 0, err = 0;
    for (int i = 0; i < NC * ndof * ndof; ++i)
      jscale = fmax(jscale, fabs(J[wrt - 1][i]));
    for (int i = 0; i < NC; ++i) {
      if (!(N[i] > 0))
        continue;
      ++*checked;
      for (int j = 0; j < ndof; ++j) {
        const int at = (i * s.k) * c->dim + j;
        const double keep = arr[at];
        /* Central differences; a column that fails at h is retried at
         * h / 16 (a kink of the mu profile within h of the point). */
        double best = INFINITY;
        for (int tries = 0; tries < 2 && best > 0; ++tries) {
          const double h = tries ? hstep / 16 : hstep;
          double Fp[NC * 12], Fm[NC * 12], e = 0;
          arr[at] = keep + h;
          local_forces(ctx, &s, c, Fp);
          arr[at] = keep - h;
          local_forces(ctx, &s, c, Fm);
          arr[at] = keep;
          for (int r = 0; r < ndof; ++r) {
            const double fd = (Fp[i * ndof + r] - Fm[i * ndof + r]) / (2 * h);
            e = fmax(e, fabs(fd - J[wrt - 1][(i * ndof + r) * ndof + j]));
          }
          best = fmin(best, e);
          if (best <= 2e-6 * jscale)
            break;
        }
        err = fmax(err, best);
      }
    }
    const double tol = 2e-5 * fmax(jscale, 1e-3 * fscale / fmax(c->vmag, 1));
    CHECK(err <= tol,
          "dim %d type %d profile %d aniso %d phys %d vmag %g wrt %d: FD "
          "error %.3e > %.3e (Jacobian scale %.3e)",
          c->dim, c->type, c->profile, c->aniso, c->physical, c->vmag, wrt, err,
          tol, jscale);
  }
  return 1;
}

/* F = -grad_v D, D the tangential potential on the data the lagged build
 * makes at rest + lagged displacement (no anisotropy: then ipctk's force is
 * the negative gradient exactly). PV and EV only where the build's
 * nearest-feature distance is the line's: contacts whose closest point is
 * inside the feature (both are checked, skipped otherwise). */
static void check_gradient_identity(fricl_context *ctx, const fcase *c) {
  fscene s;
  make_scene(&s, c);
  const int ndof = s.k * c->dim, m = c->dim - 1;
  double F[NC * 12], X[NC * 12];
  local_forces(ctx, &s, c, F);
  for (size_t i = 0; i < s.nv * (size_t)c->dim; ++i)
    X[i] = s.rest[i] + s.disp[i];
  double beta[NC * 2], P[NC * 6], Nn[NC], ww[NC], mus[NC], muk[NC];
  uint8_t status[NC];
  fricl_build_group bg;
  memset(&bg, 0, sizeof bg);
  bg.type = (fricl_stencil)s.type;
  bg.count = NC;
  bg.vertices = s.ids;
  bg.weight = s.w;
  bg.mu_s = s.ms;
  bg.mu_k = s.mk;
  if (s.type == FRICL_STENCIL_PV) {
    bg.plane_normal = s.pn;
    bg.plane_offset = s.pc;
  }
  bg.closest_point = beta;
  bg.tangent_basis = P;
  bg.normal_force = Nn;
  bg.weight_out = ww;
  bg.mu_s_out = mus;
  bg.mu_k_out = muk;
  bg.status = status;
  fricl_build_batch bb;
  fricl_build_batch_init(&bb);
  bb.dim = c->dim;
  bb.flags = c->physical ? FRICL_BUILD_FLAG_PHYSICAL_BARRIER : 0;
  bb.n_vertices = s.nv;
  bb.lagged_positions = X;
  bb.kappa = KAPPA;
  bb.dhat = DHAT;
  bb.dmin = c->dmin;
  bb.n_groups = 1;
  bb.groups = &bg;
  fricl_status st = fricl_build(ctx, &bb);
  CHECK(st == FRICL_STATUS_OK, "build: %s", fricl_context_last_error(ctx));
  double D[NC], q[NC * 3], gam[NC * 4];
  fricl_contact_group tg;
  memset(&tg, 0, sizeof tg);
  tg.type = (fricl_stencil)s.type;
  tg.count = NC;
  tg.vertices = s.ids;
  tg.closest_point = fricl_stencil_coord_count(tg.type) ? beta : NULL;
  tg.tangent_basis = P;
  tg.normal_force = Nn;
  tg.weight = ww;
  tg.mu_s = mus;
  tg.mu_k = muk;
  tg.potential = D;
  tg.factored_grad = q;
  tg.factored_gamma = gam;
  fricl_tangential_batch tb;
  fricl_tangential_batch_init(&tb);
  tb.dim = c->dim;
  tb.mu_profile = (fricl_mu_profile)c->profile;
  tb.n_vertices = s.nv;
  tb.velocities = s.vel;
  tb.eps_v = EPS_V;
  tb.n_groups = 1;
  tb.groups = &tg;
  st = fricl_tangential_eval(ctx, &tb);
  CHECK(st == FRICL_STATUS_OK, "tangential: %s", fricl_context_last_error(ctx));
  (void)m;
  for (int i = 0; i < NC; ++i) {
    if (status[i] != FRICL_BUILD_OK)
      continue;
    /* Inside the feature only: there nearest feature = as classified. */
    const int nb = fricl_stencil_coord_count(tg.type);
    int inside = 1;
    for (int b = 0; b < nb; ++b)
      inside &= beta[i * nb + b] > 0 && beta[i * nb + b] < 1;
    if (tg.type == FRICL_STENCIL_FV)
      inside &= beta[i * nb] + beta[i * nb + 1] < 1;
    if (!inside)
      continue;
    ++identity_checked;
    double sc = 0, err = 0;
    for (int r = 0; r < ndof; ++r) {
      const double gr = gam[i * s.k + r / c->dim] * q[i * c->dim + r % c->dim];
      sc = fmax(sc, fabs(gr));
      err = fmax(err, fabs(F[i * ndof + r] + gr));
    }
    CHECK(err <= 1e-11 * fmax(sc, 1e-300),
          "dim %d type %d contact %d: F + grad D = %.3e (scale %.3e)", c->dim,
          c->type, i, err, sc);
  }
}

/* Global force and BSR Jacobian: sums of the local outputs; host equals
 * the reference bitwise. Two groups sharing vertices. */
static void check_assembly(fricl_context *ref, fricl_context *host) {
  fcase c = {3, FRICL_STENCIL_FV, 1, 1, 0, 2 * EPS_V, 0};
  fscene s;
  make_scene(&s, &c);
  fricl_force_group g[2];
  fricl_force_batch b;
  setup(&b, &g[0], &s, &c);
  g[1] = g[0];
  int32_t ids2[NC * 4];
  for (int i = 0; i < NC * 4; ++i)
    ids2[i] = (int32_t)((i * 7 + 3) % (int)s.nv);
  for (int i = 0; i < NC; ++i) /* distinct vertices per contact */
    for (int j = 0; j < 4; ++j)
      ids2[i * 4 + j] = (int32_t)((i + 1 + j * NC) % (int)s.nv);
  g[1].vertices = ids2;
  b.n_groups = 2;
  b.groups = g;
  b.wrt = FRICL_FORCE_WRT_LAGGED_DISPLACEMENTS;
  fricl_contact_group cg[2];
  memset(cg, 0, sizeof cg);
  for (int i = 0; i < 2; ++i) {
    cg[i].type = g[i].type;
    cg[i].count = g[i].count;
    cg[i].vertices = g[i].vertices;
  }
  fricl_context *ctxs[2] = {ref, host};
  double force[2][NC * 12], *jv[2] = {NULL, NULL}, LF[2][NC * 12],
                            LJ[2][NC * 144];
  size_t nnz = 0;
  const int64_t *rp = NULL;
  const int32_t *bc = NULL;
  fricl_tangential_plan *plans[2] = {NULL, NULL};
  for (int t = 0; t < 2; ++t) {
    fricl_status st =
        fricl_tangential_plan_create(ctxs[t], 3, s.nv, 2, cg, &plans[t]);
    CHECK(st == FRICL_STATUS_OK, "plan");
    fricl_tangential_plan_bsr(plans[t], NULL, &nnz, &rp, &bc);
    jv[t] = calloc(nnz * 9, sizeof(double));
    fricl_force_group gg[2] = {g[0], g[1]};
    gg[0].local_force = LF[0];
    gg[0].local_jacobian = LJ[0];
    gg[1].local_force = LF[1];
    gg[1].local_jacobian = LJ[1];
    fricl_force_batch bt = b;
    bt.groups = gg;
    bt.plan = plans[t];
    bt.force = force[t];
    bt.jacobian_values = jv[t];
    st = fricl_force_eval(ctxs[t], &bt);
    CHECK(st == FRICL_STATUS_OK, "%s", fricl_context_last_error(ctxs[t]));
  }
  /* Again with the same plan (its kept block indices), and into CSC:
   * the transpose of fricl_tangential_plan_csr's order. */
  {
    double *again = calloc(nnz * 9, sizeof(double));
    double *csc = calloc(nnz * 9, sizeof(double));
    double *csr = calloc(nnz * 9, sizeof(double));
    int64_t *crp = calloc(s.nv * 3 + 1, sizeof(int64_t));
    int32_t *ccol = calloc(nnz * 9, sizeof(int32_t));
    fricl_force_batch bt = b;
    bt.plan = plans[1];
    bt.jacobian_values = again;
    fricl_status st = fricl_force_eval(host, &bt);
    CHECK(st == FRICL_STATUS_OK && memcmp(again, jv[1], nnz * 9 * 8) == 0,
          "second call with the plan differs");
    bt.flags |= FRICL_FORCE_FLAG_JACOBIAN_CSC;
    bt.jacobian_values = csc;
    st = fricl_force_eval(host, &bt);
    CHECK(st == FRICL_STATUS_OK, "csc: %s", fricl_context_last_error(host));
    st = fricl_tangential_plan_csr(plans[1], FRICL_F64, jv[1], crp, ccol, csr);
    CHECK(st == FRICL_STATUS_OK, "csr");
    /* CSC position of CSR entry (row, col): the rank of row among the
     * rows of column col, which are CSR row col's columns. */
    size_t bad = 0;
    for (size_t row = 0; row < s.nv * 3; ++row)
      for (int64_t p = crp[row]; p < crp[row + 1]; ++p) {
        const size_t col = (size_t)ccol[p];
        int64_t q = crp[col];
        while (q < crp[col + 1] && (size_t)ccol[q] != row)
          ++q;
        bad += q == crp[col + 1] || csc[q] != csr[p];
      }
    CHECK(bad == 0, "%zu CSC values differ from the CSR transposed", bad);
    free(again);
    free(csc);
    free(csr);
    free(crp);
    free(ccol);
  }
  CHECK(memcmp(force[0], force[1], sizeof force[0]) == 0,
        "host force differs from the reference");
  CHECK(memcmp(jv[0], jv[1], nnz * 9 * sizeof(double)) == 0,
        "host Jacobian differs from the reference");
  /* sums of the local outputs (from the host run) */
  double fsum[NC * 12] = {0}, *dense = calloc(s.nv * 3 * s.nv * 3, 8);
  const size_t n3 = s.nv * 3;
  for (int gi = 0; gi < 2; ++gi)
    for (int i = 0; i < NC; ++i)
      for (int a = 0; a < 4; ++a)
        for (int r = 0; r < 3; ++r) {
          const int32_t va = g[gi].vertices[i * 4 + a];
          fsum[va * 3 + r] += LF[gi][i * 12 + a * 3 + r];
          for (int bb = 0; bb < 4; ++bb)
            for (int q = 0; q < 3; ++q) {
              const int32_t vb = g[gi].vertices[i * 4 + bb];
              dense[(size_t)(va * 3 + r) * n3 + (size_t)(vb * 3 + q)] +=
                  LJ[gi][(i * 12 + a * 3 + r) * 12 + bb * 3 + q];
            }
        }
  double ef = 0, ej = 0, sf = 0, sj = 0;
  for (size_t i = 0; i < n3; ++i) {
    ef = fmax(ef, fabs(fsum[i] - force[1][i]));
    sf = fmax(sf, fabs(fsum[i]));
  }
  for (size_t r = 0; r < s.nv; ++r)
    for (int64_t p = rp[r]; p < rp[r + 1]; ++p)
      for (int a = 0; a < 3; ++a)
        for (int q = 0; q < 3; ++q) {
          const double want =
              dense[(r * 3 + (size_t)a) * n3 + (size_t)bc[p] * 3 + (size_t)q];
          ej =
              fmax(ej, fabs(jv[1][(size_t)p * 9 + (size_t)(a * 3 + q)] - want));
          sj = fmax(sj, fabs(want));
        }
  CHECK(ef <= 1e-14 * sf && ej <= 1e-14 * sj,
        "assembly: force %.3e / %.3e, Jacobian %.3e / %.3e", ef, sf, ej, sj);
  /* f32: close to f64 */
  float fr[NC * 12], fd[NC * 12], fv[NC * 12], fw[NC], fms[NC], fmk[NC],
      fan[NC * 2], ff[NC * 12];
  for (size_t i = 0; i < n3; ++i) {
    fr[i] = (float)s.rest[i];
    fd[i] = (float)s.disp[i];
    fv[i] = (float)s.vel[i];
  }
  for (int i = 0; i < NC; ++i) {
    fw[i] = (float)s.w[i];
    fms[i] = (float)s.ms[i];
    fmk[i] = (float)s.mk[i];
    fan[2 * i] = (float)s.an[2 * i];
    fan[2 * i + 1] = (float)s.an[2 * i + 1];
  }
  fricl_force_group gf = g[0];
  gf.weight = fw;
  gf.mu_s = fms;
  gf.mu_k = fmk;
  gf.mu_aniso = fan;
  fricl_force_batch bf = b;
  bf.precision = FRICL_F32;
  bf.wrt = FRICL_FORCE_WRT_NONE;
  bf.rest_positions = fr;
  bf.lagged_displacements = fd;
  bf.velocities = fv;
  bf.groups = &gf;
  bf.n_groups = 1;
  bf.force = ff;
  fricl_status st = fricl_force_eval(host, &bf);
  CHECK(st == FRICL_STATUS_OK, "f32: %s", fricl_context_last_error(host));
  double f64[NC * 12];
  fricl_force_batch b64 = b;
  b64.groups = &g[0];
  b64.n_groups = 1;
  b64.wrt = FRICL_FORCE_WRT_NONE;
  b64.force = f64;
  b64.plan = NULL;
  st = fricl_force_eval(host, &b64);
  CHECK(st == FRICL_STATUS_OK, "%s", fricl_context_last_error(host));
  double e32 = 0, s32 = 0;
  for (size_t i = 0; i < n3; ++i) {
    e32 = fmax(e32, fabs((double)ff[i] - f64[i]));
    s32 = fmax(s32, fabs(f64[i]));
  }
  CHECK(e32 <= 1e-3 * s32, "f32 force %.3e off (scale %.3e)", e32, s32);
  free(dense);
  for (int t = 0; t < 2; ++t) {
    free(jv[t]);
    fricl_tangential_plan_destroy(plans[t]);
  }
}

/* An OpenCL device against the reference: per-contact N, force and
 * Jacobian (every wrt) and the global force, every stencil and dim, within
 * the rounding of the device's log and sqrt (f64), and f32 runs. */
static void check_device(fricl_context *ref, fricl_context *dev,
                         const char *label) {
  int compared = 0;
  for (int dim = 2; dim <= 3; ++dim)
    for (int type = 0; type < 5; ++type) {
      if (dim == 2 && (type == 2 || type == 3))
        continue;
      for (int wrt = 0; wrt <= 3; ++wrt) {
        const fcase c = {
            dim, type, 1, dim == 3, wrt == 1, EPS_V, wrt == 2 ? 0.01 : 0.0};
        fscene s;
        make_scene(&s, &c);
        const int ndof = s.k * dim;
        double F[2][NC * 12], J[2][NC * 144], N[2][NC], G[2][NC * 12];
        fricl_context *ctxs[2] = {ref, dev};
        for (int t = 0; t < 2; ++t) {
          fricl_force_batch b;
          fricl_force_group g;
          setup(&b, &g, &s, &c);
          b.wrt = (fricl_force_wrt)wrt;
          g.local_force = F[t];
          g.local_jacobian = wrt ? J[t] : NULL;
          g.normal_force = N[t];
          b.force = G[t];
          const fricl_status st = fricl_force_eval(ctxs[t], &b);
          CHECK(st == FRICL_STATUS_OK, "%s: %s", label,
                fricl_context_last_error(ctxs[t]));
        }
        CHECK(fricl_context_last_backend(dev) == FRICL_BACKEND_OPENCL,
              "%s: the force did not run on the device", label);
        double sf = 0, ef = 0, sj = 0, ej = 0, sn = 0, en = 0;
        for (int i = 0; i < NC * ndof; ++i) {
          sf = fmax(sf, fabs(F[0][i]));
          ef = fmax(ef, fabs(F[0][i] - F[1][i]));
          ef = fmax(ef, fabs(G[0][i] - G[1][i]));
        }
        for (int i = 0; wrt && i < NC * ndof * ndof; ++i) {
          sj = fmax(sj, fabs(J[0][i]));
          ej = fmax(ej, fabs(J[0][i] - J[1][i]));
        }
        for (int i = 0; i < NC; ++i) {
          sn = fmax(sn, fabs(N[0][i]));
          en = fmax(en, fabs(N[0][i] - N[1][i]));
        }
        CHECK(ef <= 1e-12 * sf && ej <= 1e-12 * sj && en <= 1e-12 * sn,
              "%s dim %d type %d wrt %d: force %.2e/%.2e Jacobian "
              "%.2e/%.2e N %.2e/%.2e",
              label, dim, type, wrt, ef, sf, ej, sj, en, sn);
        ++compared;
      }
    }
  CHECK(compared == 32, "%d cases", compared);
}

static void expect_error(fricl_context *ctx, const fricl_force_batch *b,
                         const char *needle) {
  const fricl_status st = fricl_force_eval(ctx, b);
  const char *msg = fricl_context_last_error(ctx);
  CHECK(st == FRICL_STATUS_INVALID_ARGUMENT && strstr(msg, needle),
        "expected INVALID_ARGUMENT naming '%s', got %s: %s", needle,
        fricl_status_string(st), msg);
}

static void check_validation(fricl_context *ctx) {
  fcase c = {3, FRICL_STENCIL_EV, 0, 0, 0, EPS_V, 0};
  fscene s;
  make_scene(&s, &c);
  fricl_force_batch b;
  fricl_force_group g;
  double F[NC * 9], out[NC * 9];
  setup(&b, &g, &s, &c);
  expect_error(ctx, &b, "no output");
  b.force = out;
  fricl_force_batch e = b;
  e.wrt = (fricl_force_wrt)7;
  expect_error(ctx, &e, "batch.wrt");
  e = b;
  e.eps_v = 0;
  expect_error(ctx, &e, "eps_v");
  e = b;
  e.dhat = -1;
  expect_error(ctx, &e, "dhat");
  e = b;
  e.flags = 0x80;
  expect_error(ctx, &e, "flags");
  e = b;
  e.lagged_displacements = NULL;
  expect_error(ctx, &e, "lagged_displacements");
  double bad[NC * 9];
  memcpy(bad, s.disp, sizeof bad);
  bad[5] = NAN;
  e = b;
  e.lagged_displacements = bad;
  expect_error(ctx, &e, "lagged_displacements[1][2]");
  fricl_force_group gg = g;
  double mu[NC];
  memcpy(mu, s.ms, sizeof mu);
  mu[3] = -1;
  gg.mu_s = mu;
  e = b;
  e.groups = &gg;
  expect_error(ctx, &e, "mu_s");
  gg = g;
  gg.local_jacobian = F;
  e.groups = &gg;
  expect_error(ctx, &e, "wrt is none");
  e = b;
  e.force = (void *)s.vel;
  expect_error(ctx, &e, "overlaps");
  int32_t ids[NC * 3];
  memcpy(ids, s.ids, sizeof ids);
  ids[4] = 1000;
  gg = g;
  gg.vertices = ids;
  e = b;
  e.groups = &gg;
  expect_error(ctx, &e, "contact 1");
  /* NO_MU needs no mu arrays */
  gg = g;
  gg.mu_s = gg.mu_k = NULL;
  e = b;
  e.groups = &gg;
  expect_error(ctx, &e, "mu_s is NULL");
  e.flags = FRICL_FORCE_FLAG_NO_MU;
  CHECK(fricl_force_eval(ctx, &e) == FRICL_STATUS_OK, "no_mu: %s",
        fricl_context_last_error(ctx));
}

int main(void) {
  fricl_context *ref = test_context("reference", 0, 0);
  fricl_context *host = test_context("host-split", 0, 0);
  if (!ref || !host)
    return 1;
  int checked = 0;
  const int types3[] = {0, 1, 2, 3, 4}, types2[] = {0, 1, 4};
  const double vmags[] = {0.2 * EPS_V, 0.8 * EPS_V, 5 * EPS_V};
  for (int dim = 2; dim <= 3; ++dim) {
    const int nt = dim == 3 ? 5 : 3;
    for (int ti = 0; ti < nt; ++ti)
      for (int vi = 0; vi < 3; ++vi)
        for (int prof = 0; prof < 2; ++prof)
          for (int an = 0; an < 2; ++an) {
            const int type = dim == 3 ? types3[ti] : types2[ti];
            const fcase c = {dim,
                             type,
                             prof,
                             an && dim == 3,
                             (vi + an) % 2,
                             vmags[vi],
                             vi == 2 ? 0.02 : 0.0};
            check_fd(ref, &c, &checked);
            if (!c.aniso)
              check_gradient_identity(ref, &c);
          }
  }
  CHECK(checked > 300, "only %d active contacts checked", checked);
  CHECK(identity_checked > 100, "only %d contacts checked against grad D",
        identity_checked);
  check_assembly(ref, host);
  check_validation(ref);
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    if (strncmp(be[i].spec, "opencl", 6) != 0)
      continue;
    fricl_context *dev = test_context(be[i].spec, 0, 0);
    if (!dev)
      continue;
    check_device(ref, dev, be[i].label);
    fricl_context_destroy(dev);
  }
  fricl_context_destroy(ref);
  fricl_context_destroy(host);
  printf("test_force: %d active contacts checked against finite "
         "differences, %d against grad D\n",
         checked, identity_checked);
  return test_report("test_force");
}
