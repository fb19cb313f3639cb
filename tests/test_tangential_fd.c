/*
 * test_tangential_fd.c - the tangential potential's derivatives against
 * finite differences, for every stencil type and dimension, every regime
 * (y = 0, 0 < y < e/2, e/2 < y < e, y > e, and y = e exactly), mu_s > mu_k,
 * mu_s = mu_k and mu_s < mu_k, both mu profiles, with and without
 * anisotropy, on every backend:
 *   gradient  vs central differences of D,
 *   Hessian   (PSD none) vs central differences of the gradient.
 *
 * Tolerances. With step h = 1e-5 e, the central-difference truncation is
 * about h^2 |D'''| ~ 1e-10 of the natural gradient scale s_g = |w N| mu a^2
 * (and of s_H = s_g / e for the Hessian), and rounding adds about
 * 1e-16 s_g / h ~ 2e-11 s_H. We accept 1e-7 of the scale: 1000 times the
 * expected error, while a missing term (the g2 u u^T part, an a^2 factor, a
 * wrong gamma) changes entries by O(scale). Where the Hessian is only
 * continuous, not differentiable (y = 0 and y = e exactly: the potential's
 * third derivative jumps there), the difference quotient straddles the kink
 * and is accurate to O(h) only: 1e-4 of the scale there.
 */
#include "tangential_scene.h"

typedef struct {
  fricl_context *ctx;
  const char *label;
  fricl_mu_profile profile;
  double e;
} fd_env;

/* D, gradient (n_vertices x dim) and local Hessian of one contact. */
static int eval1(const fd_env *env, const scene_group *s, const double *vel,
                 double *D, double *grad, double *H) {
  int32_t vx[4];
  double beta[2], P[6], a[2];
  fricl_contact_group G = scene_view(s, vx, beta, P, a, 1);
  G.local_hessian = H;
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.mu_profile = env->profile;
  b.dim = s->dim;
  b.n_vertices = (size_t)s->k;
  b.velocities = vel;
  b.eps_v = env->e;
  b.n_groups = 1;
  b.groups = &G;
  b.potential = D;
  b.gradient = grad;
  const fricl_status st = fricl_tangential_eval(env->ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "%s: %s", env->label,
        fricl_context_last_error(env->ctx));
  return st == FRICL_STATUS_OK;
}

/* Velocities of the k stencil vertices giving y = target exactly in real
 * arithmetic: random, then scaled; y = 0 uses a common normal motion. */
static void make_velocities(const scene_group *s, double target, double e,
                            double *vel) {
  const int n = s->k * s->dim;
  if (target == 0) {
    const double c = urange(-2, 2) * e;
    for (int i = 0; i < s->k; ++i)
      for (int r = 0; r < s->dim; ++r)
        vel[i * s->dim + r] = c * s->normal[r];
    return;
  }
  for (int i = 0; i < n; ++i)
    vel[i] = urange(-1, 1) * e;
  const double y = spec_y(s, 0, vel);
  for (int i = 0; i < n; ++i)
    vel[i] *= target / y;
}

static void fd_case(const fd_env *env, scene_group *s, double target,
                    int kink) {
  const int n = s->k * s->dim;
  double vel[12], D, grad[12], H[144];
  make_velocities(s, target, env->e, vel);
  if (!eval1(env, s, vel, &D, grad, H))
    return;
  double amax = fmax(s->a[0], s->dim == 3 ? s->a[1] : 0);
  const double s_g =
      fabs(s->w[0] * s->N[0]) * fmax(s->ms[0], s->mk[0]) * amax * amax;
  const double s_H = s_g / env->e;
  const double h = 1e-5 * env->e;
  const double tol_g = 1e-7 * s_g, tol_H = (kink ? 1e-4 : 1e-7) * s_H;
  double worst_g = 0, worst_H = 0;
  for (int i = 0; i < n; ++i) {
    double vp[12], vm[12], Dp, Dm, gp[12], gm[12], Hs[144];
    memcpy(vp, vel, sizeof vp);
    memcpy(vm, vel, sizeof vm);
    vp[i] += h;
    vm[i] -= h;
    if (!eval1(env, s, vp, &Dp, gp, Hs) || !eval1(env, s, vm, &Dm, gm, Hs))
      return;
    const double fd = (Dp - Dm) / (2 * h);
    worst_g = fmax(worst_g, fabs(fd - grad[i]));
    for (int j = 0; j < n; ++j) {
      const double fdh = (gp[j] - gm[j]) / (2 * h);
      /* Vertex ids are the identity here, so global = local order. */
      worst_H = fmax(worst_H, fabs(fdh - H[j * n + i]));
    }
  }
  CHECK(worst_g <= tol_g,
        "%s %s y/e=%g ms=%g mk=%g: gradient off by %.3g (tol %.3g)", env->label,
        fricl_stencil_name(s->type), target / env->e, s->ms[0], s->mk[0],
        worst_g, tol_g);
  CHECK(worst_H <= tol_H,
        "%s %s y/e=%g ms=%g mk=%g: Hessian off by %.3g (tol %.3g)", env->label,
        fricl_stencil_name(s->type), target / env->e, s->ms[0], s->mk[0],
        worst_H, tol_H);
}

/* y = e exactly: a plane-vertex contact with P = (e_x, e_y) and e a power
 * of two, so that y = |v_x| = e with no rounding; and vertex-vertex. */
static void exact_boundary(fd_env *env, int dim) {
  scene_group s;
  scene_random(&s, FRICL_STENCIL_PV, dim, 1, 1, 0);
  memset(s.P, 0, sizeof s.P);
  if (dim == 3) {
    s.P[0] = 1, s.P[3] = 1; /* rows x, y of a 3x2 matrix */
    s.normal[0] = 0, s.normal[1] = 0, s.normal[2] = 1;
  } else {
    s.P[0] = 1;
    s.normal[0] = 0, s.normal[1] = 1;
  }
  const double e_saved = env->e;
  env->e = 0x1p-10;
  double vel[3] = {env->e, 0, 0}, D, g[3], H[9];
  if (eval1(env, &s, vel, &D, g, H)) {
    /* Continuity across y = e: D = mu_k N w e on both sides. */
    const double want = s.mk[0] * s.N[0] * s.w[0] * env->e;
    CHECK(fabs(D - want) <= 4e-16 * want,
          "%s pv dim %d: D(y = e) = %.17g, "
          "want %.17g",
          env->label, dim, D, want);
  }
  fd_case(env, &s, env->e, 1);
  env->e = e_saved;
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nbk = test_backends(be);
  const fricl_stencil types3[5] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                                   FRICL_STENCIL_EE, FRICL_STENCIL_FV,
                                   FRICL_STENCIL_PV};
  const fricl_stencil types2[3] = {FRICL_STENCIL_VV, FRICL_STENCIL_EV,
                                   FRICL_STENCIL_PV};
  const double regimes[5] = {0, 0.3, 0.7, 2.5, 1.0};
  const double mus[3][2] = {{0.5, 0.3}, {0.4, 0.4}, {0.2, 0.6}};
  for (int bi = 0; bi < nbk; ++bi) {
    fricl_context *ctx = test_context(be[bi].spec, 0, 0);
    if (!ctx)
      continue;
    for (int prof = 0; prof < 2; ++prof) {
      char label[256];
      snprintf(label, sizeof label, "%s %s", be[bi].label,
               prof ? "ipctk" : "cubic");
      fd_env env = {ctx, label, prof ? FRICL_MU_IPCTK : FRICL_MU_CUBIC, 1e-3};
      for (int dim = 2; dim <= 3; ++dim) {
        const int nt = dim == 3 ? 5 : 3;
        for (int t = 0; t < nt; ++t)
          for (int r = 0; r < 4; ++r)
            for (int mu = 0; mu < 3; ++mu)
              for (int an = 0; an < 2; ++an) {
                scene_group s;
                scene_random(&s, dim == 3 ? types3[t] : types2[t], dim, 1,
                             fricl_stencil_vertex_count(dim == 3 ? types3[t]
                                                                 : types2[t]),
                             an);
                for (int i = 0; i < s.k; ++i)
                  s.vx[i] = i;
                s.ms[0] = mus[mu][0];
                s.mk[0] = mus[mu][1];
                fd_case(&env, &s, regimes[r] * env.e, r == 0);
              }
        exact_boundary(&env, dim);
      }
    }
    fricl_context_destroy(ctx);
  }
  return test_report("test_tangential_fd");
}
