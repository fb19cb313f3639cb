/*
 * test_tangential_example.c - the worked face-vertex example of the spec
 * (ipc-friction.md section 6), reproduced on every backend to 1e-12
 * relative: D, the gradient blocks, the inner matrix M (NONE, CLAMP, ABS)
 * in both mu profiles, and the zero-velocity and kinetic cases.
 */
#include "test_util.h"

/* Lagged data of the example: p, t0, t1, t2 with beta = (0.2, 0.2). */
static const double N_EX = 2.1425647393651286e+01;

typedef struct {
  double v[3];     /* velocity of p */
  int psd;         /* fricl_psd */
  double D[2];     /* ipctk, cubic */
  double gp[2][2]; /* grad of p (x, y), per profile */
  double M[2][3];  /* M00 M01 M11 per profile */
} example_case;

static const example_case cases[] = {
    /* Case 1: static regime, PSD leaves M unchanged. */
    {{3e-5, 5e-5, 0},
     FRICL_PSD_NONE,
     {3.7177938256755385e-04, 3.6823109837268936e-04},
     {{3.3654128998501945e+00, 5.6090214997503242e+00},
      {3.4180274145945628e+00, 5.6967123576576048e+00}},
     {{8.4332155182634988e+04, -4.6413791353952486e+04, 3.4824111071752334e+04},
      {8.7854010340369731e+04, -4.3467061354637268e+04,
       4.1489144895423310e+04}}},
    {{3e-5, 5e-5, 0},
     FRICL_PSD_CLAMP,
     {3.7177938256755385e-04, 3.6823109837268936e-04},
     {{3.3654128998501945e+00, 5.6090214997503242e+00},
      {3.4180274145945628e+00, 5.6967123576576048e+00}},
     {{8.4332155182634988e+04, -4.6413791353952486e+04, 3.4824111071752334e+04},
      {8.7854010340369731e+04, -4.3467061354637268e+04,
       4.1489144895423310e+04}}},
    /* Case 2: kinetic regime, identical for both profiles. */
    {{3e-4, -2e-4, 7e-5},
     FRICL_PSD_ABS,
     {2.3175381086346325e-03, 2.3175381086346325e-03},
     {{5.3481648660799212e+00, -3.5654432440532813e+00},
      {5.3481648660799212e+00, -3.5654432440532813e+00}},
     {{5.4852972985435105e+03, 8.2279459478152646e+03, 1.2341918921722895e+04},
      {5.4852972985435105e+03, 8.2279459478152646e+03,
       1.2341918921722895e+04}}},
    /* Case 3: negative along-slip eigenvalue, three projections. */
    {{4.8e-5, 6.4e-5, 0},
     FRICL_PSD_NONE,
     {5.1369903650779454e-04, 5.1291742889087414e-04},
     {{3.8998106360028325e+00, 5.1997475146704429e+00},
      {3.9590482659167996e+00, 5.2787310212223990e+00}},
     {{4.9899475753918094e+04, -4.1795438883743437e+04, 2.5518803071734428e+04},
      {4.8467899697663890e+04, -4.5349696678581462e+04,
       2.2013909968491377e+04}}},
    {{4.8e-5, 6.4e-5, 0},
     FRICL_PSD_CLAMP,
     {5.1369903650779454e-04, 5.1291742889087414e-04},
     {{3.8998106360028325e+00, 5.1997475146704429e+00},
      {3.9590482659167996e+00, 5.2787310212223990e+00}},
     {{5.1997475146704429e+04, -3.8998106360028324e+04, 2.9248579770021245e+04},
      {5.2787310212223990e+04, -3.9590482659167995e+04,
       2.9692861994375999e+04}}},
    {{4.8e-5, 6.4e-5, 0},
     FRICL_PSD_ABS,
     {5.1369903650779454e-04, 5.1291742889087414e-04},
     {{3.8998106360028325e+00, 5.1997475146704429e+00},
      {3.9590482659167996e+00, 5.2787310212223990e+00}},
     {{5.4095474539490764e+04, -3.6200773836313211e+04, 3.2978356468308063e+04},
      {5.7106720726784090e+04, -3.3831268639754529e+04,
       3.7371814020260620e+04}}},
    /* Case 4: zero velocity. */
    {{0, 0, 0},
     FRICL_PSD_NONE,
     {1.1605559004894446e-04, 1.1427011943280685e-04},
     {{0, 0}, {0, 0}},
     {{2.1425647393651284e+05, 0, 2.1425647393651284e+05},
      {2.1425647393651284e+05, 0, 2.1425647393651284e+05}}},
};

static int close_rel(double got, double want, double scale) {
  return fabs(got - want) <= 1e-12 * scale;
}

static void run_case(fricl_context *ctx, const char *label,
                     const example_case *ex, int profile_idx) {
  const double beta[2] = {0.2, 0.2};
  const double P[6] = {1, 0, 0, 1, 0, 0}; /* 3 x 2 row-major: e_x, e_y */
  const double N = N_EX, ms = 0.5, mk = 0.3;
  const int32_t vx[4] = {0, 1, 2, 3};
  double vel[12] = {0};
  memcpy(vel, ex->v, sizeof ex->v);
  double pot = 0, pot_c = 0, grad[12], H[144], gam[4], q[3], S[6];
  fricl_contact_group G = {0};
  G.type = FRICL_STENCIL_FV;
  G.count = 1;
  G.vertices = vx;
  G.closest_point = beta;
  G.tangent_basis = P;
  G.normal_force = &N;
  G.mu_s = &ms;
  G.mu_k = &mk;
  G.potential = &pot_c;
  G.local_hessian = H;
  G.factored_gamma = gam;
  G.factored_grad = q;
  G.factored_hessian = S;
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.mu_profile = profile_idx == 0 ? FRICL_MU_IPCTK : FRICL_MU_CUBIC;
  b.psd = (fricl_psd)ex->psd;
  b.n_vertices = 4;
  b.velocities = vel;
  b.eps_v = 1e-4;
  b.n_groups = 1;
  b.groups = &G;
  b.potential = &pot;
  b.gradient = grad;
  const fricl_status st = fricl_tangential_eval(ctx, &b);
  CHECK(st == FRICL_STATUS_OK, "%s: eval failed: %s", label,
        fricl_context_last_error(ctx));
  if (st != FRICL_STATUS_OK)
    return;
  const double *M = ex->M[profile_idx];
  const double *gp = ex->gp[profile_idx];
  const double Mscale = fmax(fabs(M[0]), fabs(M[2]));
  const double gscale = fmax(fabs(gp[0]), fabs(gp[1]));
  CHECK(close_rel(pot, ex->D[profile_idx], fabs(ex->D[profile_idx])),
        "%s: D = %.17g, want %.17g", label, pot, ex->D[profile_idx]);
  CHECK(pot == pot_c, "%s: total %.17g != per-contact %.17g", label, pot,
        pot_c);
  const double gam_want[4] = {1, -0.6, -0.2, -0.2};
  for (int i = 0; i < 4; ++i) {
    CHECK(fabs(gam[i] - gam_want[i]) <= 1e-15, "%s: gamma[%d] = %.17g", label,
          i, gam[i]);
    for (int r = 0; r < 2; ++r)
      CHECK(close_rel(grad[3 * i + r], gam_want[i] * gp[r], gscale),
            "%s: grad[%d][%d] = %.17g, want %.17g", label, i, r,
            grad[3 * i + r], gam_want[i] * gp[r]);
    CHECK(fabs(grad[3 * i + 2]) <= 1e-12 * gscale, "%s: grad z", label);
  }
  /* S = M in the x-y block (P spans x-y, a = 1). */
  CHECK(close_rel(S[0], M[0], Mscale) && close_rel(S[1], M[1], Mscale) &&
            close_rel(S[3], M[2], Mscale),
        "%s: S = (%.17g %.17g %.17g), want (%.17g %.17g %.17g)", label, S[0],
        S[1], S[3], M[0], M[1], M[2]);
  CHECK(fabs(S[2]) + fabs(S[4]) + fabs(S[5]) <= 1e-12 * Mscale,
        "%s: S has z entries", label);
  /* Local blocks: H_ij = gamma_i gamma_j S. */
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const double c = gam_want[i] * gam_want[j];
      CHECK(close_rel(H[(3 * i) * 12 + 3 * j], c * M[0], Mscale) &&
                close_rel(H[(3 * i) * 12 + 3 * j + 1], c * M[1], Mscale) &&
                close_rel(H[(3 * i + 1) * 12 + 3 * j + 1], c * M[2], Mscale),
            "%s: H block (%d,%d)", label, i, j);
    }
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx)
      continue;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
      for (int p = 0; p < 2; ++p) {
        char label[256];
        snprintf(label, sizeof label, "%s case %zu %s psd=%s", be[i].label, c,
                 p == 0 ? "ipctk" : "cubic",
                 fricl_psd_name((fricl_psd)cases[c].psd));
        run_case(ctx, label, &cases[c], p);
      }
    fricl_context_destroy(ctx);
  }
  return test_report("test_tangential_example");
}
