/*
 * test_tangential_api.c - the tangential API's contract: every invalid
 * input is rejected before any work with a message naming the argument
 * (and the group and first bad contact), outputs are left untouched on
 * rejection, zero contacts is a valid no-op, plans must match, names
 * round-trip.
 */
#include "test_util.h"

#define EXPECT_REJECT(ctx, b, needle)                                          \
  do {                                                                         \
    const fricl_status st_ = fricl_tangential_eval(ctx, b);                    \
    const char *msg_ = fricl_context_last_error(ctx);                          \
    CHECK(st_ == FRICL_STATUS_INVALID_ARGUMENT && strstr(msg_, needle),        \
          "expected rejection mentioning \"%s\", got %s: %s", needle,          \
          fricl_status_string(st_), msg_);                                     \
  } while (0)

static void api_checks(const test_backend *be) {
  fricl_context *ctx = test_context(be->spec, 0, 0);
  if (!ctx)
    return;
  int32_t vx[6] = {0, 1, 2, 1, 2, 3};
  double beta[2] = {0.5, 0.25};
  double P[6] = {1, 0, 0, 1, 0, 0};
  double N[2] = {1, 2}, w[2] = {1, 1}, ms[2] = {0.5, 0.5}, mk[2] = {0.3, 0.3};
  double vel[12] = {1e-3, 0, 0, 0, 2e-3, 0, 0, 0, 0, 1e-3, 1e-3, 0};
  double P2[12];
  for (int i = 0; i < 12; ++i)
    P2[i] = P[i % 6];
  double pot = -7, grad[12];
  for (int i = 0; i < 12; ++i)
    grad[i] = -7;
  fricl_contact_group G = {0};
  G.type = FRICL_STENCIL_EV;
  G.count = 2;
  G.vertices = vx;
  G.closest_point = beta;
  G.tangent_basis = P2;
  G.normal_force = N;
  G.weight = w;
  G.mu_s = ms;
  G.mu_k = mk;
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.n_vertices = 4;
  b.velocities = vel;
  b.eps_v = 1e-3;
  b.n_groups = 1;
  b.groups = &G;
  b.potential = &pot;
  b.gradient = grad;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "%s: baseline: %s",
        be->label, fricl_context_last_error(ctx));
  const double pot_ok = pot;
  pot = -7;
  grad[0] = -7;

  vx[4] = 9;
  EXPECT_REJECT(ctx, &b, "contact 1: vertex index 9");
  vx[4] = -1;
  EXPECT_REJECT(ctx, &b, "contact 1: vertex index -1");
  vx[4] = 2;
  N[1] = -1;
  EXPECT_REJECT(ctx, &b, "contact 1: normal_force");
  N[1] = INFINITY;
  EXPECT_REJECT(ctx, &b, "normal_force");
  N[1] = 2;
  w[0] = NAN;
  EXPECT_REJECT(ctx, &b, "contact 0: weight");
  w[0] = -3; /* negative weights are valid */
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "negative w: %s",
        fricl_context_last_error(ctx));
  w[0] = 1;
  ms[1] = -0.1;
  EXPECT_REJECT(ctx, &b, "mu_s");
  ms[1] = 0.5;
  mk[0] = NAN;
  EXPECT_REJECT(ctx, &b, "mu_k");
  mk[0] = 0.3;
  beta[1] = NAN;
  EXPECT_REJECT(ctx, &b, "closest_point");
  beta[1] = 0.25;
  b.eps_v = 0;
  EXPECT_REJECT(ctx, &b, "eps_v");
  b.eps_v = -1;
  EXPECT_REJECT(ctx, &b, "eps_v");
  b.eps_v = 1e-3;
  b.dim = 4;
  EXPECT_REJECT(ctx, &b, "dim = 4");
  b.dim = 2;
  G.type = FRICL_STENCIL_EE;
  EXPECT_REJECT(ctx, &b, "only in 3-D");
  G.type = FRICL_STENCIL_EV;
  b.dim = 3;
  G.mu_s = NULL;
  EXPECT_REJECT(ctx, &b, "mu_s is NULL");
  G.mu_s = ms;
  b.gradient = vel; /* aliases the input */
  EXPECT_REJECT(ctx, &b, "overlaps");
  b.gradient = grad;
  G.potential = grad + 1; /* aliases another output */
  EXPECT_REJECT(ctx, &b, "overlaps");
  G.potential = NULL;
  b.psd = (fricl_psd)7;
  EXPECT_REJECT(ctx, &b, "batch.psd");
  b.psd = FRICL_PSD_NONE;
  b.flags = 0x100;
  EXPECT_REJECT(ctx, &b, "flags");
  b.flags = 0;
  double hv[256];
  b.hessian_values = hv;
  EXPECT_REJECT(ctx, &b, "needs batch.plan");
  b.hessian_values = NULL;
  b.struct_size = 8;
  EXPECT_REJECT(ctx, &b, "struct_size");
  b.struct_size = sizeof b;
  /* Basis check (opt-in). */
  P2[0] = 1.01;
  b.flags = FRICL_TANGENTIAL_FLAG_CHECK_BASIS;
  EXPECT_REJECT(ctx, &b, "not orthonormal");
  b.flags = 0;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK,
        "unchecked basis accepted");
  P2[0] = 1;
  /* No output at all. */
  fricl_tangential_batch nb;
  fricl_tangential_batch_init(&nb);
  nb.n_vertices = 4;
  nb.velocities = vel;
  nb.eps_v = 1e-3;
  nb.n_groups = 1;
  nb.groups = &G;
  EXPECT_REJECT(ctx, &nb, "no output requested");

  /* Rejected calls leave outputs untouched. */
  pot = -7;
  for (int i = 0; i < 12; ++i)
    grad[i] = -7;
  N[0] = -1;
  EXPECT_REJECT(ctx, &b, "normal_force");
  N[0] = 1;
  int untouched = pot == -7;
  for (int i = 0; i < 12; ++i)
    untouched &= grad[i] == -7;
  CHECK(untouched, "%s: a rejected call wrote outputs", be->label);
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK && pot == pot_ok,
        "%s: context reusable after errors", be->label);

  /* Plans: mismatched topology and foreign context are rejected. */
  fricl_tangential_plan *plan = NULL;
  CHECK(fricl_tangential_plan_create(ctx, 3, 4, 1, &G, &plan) ==
            FRICL_STATUS_OK,
        "plan: %s", fricl_context_last_error(ctx));
  size_t nnz = 0;
  const int64_t *rp = NULL;
  const int32_t *bc = NULL;
  fricl_tangential_plan_bsr(plan, NULL, &nnz, &rp, &bc);
  /* Contacts {0,1,2} and {1,2,3}: blocks 3x3 + 3x3 - shared {1,2}^2. */
  CHECK(nnz == 14, "nnz %zu", nnz);
  b.plan = plan;
  b.hessian_values = hv;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "with plan: %s",
        fricl_context_last_error(ctx));
  vx[5] = 0;
  EXPECT_REJECT(ctx, &b, "another contact topology");
  vx[5] = 3;
  fricl_context *other = test_context(be->spec, 0, 0);
  if (other) {
    EXPECT_REJECT(other, &b, "another context");
    fricl_context_destroy(other);
  }
  int32_t badvx[6] = {0, 1, 7, 0, 0, 0};
  fricl_contact_group B2 = G;
  B2.vertices = badvx;
  fricl_tangential_plan *bad = NULL;
  CHECK(fricl_tangential_plan_create(ctx, 3, 4, 1, &B2, &bad) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            bad == NULL &&
            strstr(fricl_context_last_error(ctx), "contact 0: vertex index 7"),
        "plan with a bad index: %s", fricl_context_last_error(ctx));
  b.plan = NULL;
  b.hessian_values = NULL;
  fricl_tangential_plan_destroy(plan);

  /* Zero contacts: valid, sums are zero. */
  G.count = 0;
  pot = -7;
  for (int i = 0; i < 12; ++i)
    grad[i] = -7;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "zero contacts: %s",
        fricl_context_last_error(ctx));
  int zeros = pot == 0;
  for (int i = 0; i < 12; ++i)
    zeros &= grad[i] == 0;
  CHECK(zeros, "%s: zero contacts give zero sums", be->label);
  /* The group limits (FRICL_MAX_GROUPS, FRICL_MAX_CONTACTS): at the
   * limit accepted, one past it rejected. */
  fricl_contact_group many[FRICL_MAX_GROUPS + 1];
  for (int g = 0; g <= FRICL_MAX_GROUPS; ++g)
    many[g] = G;
  b.groups = many;
  b.n_groups = FRICL_MAX_GROUPS;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "%s: %d groups: %s",
        be->label, FRICL_MAX_GROUPS, fricl_context_last_error(ctx));
  b.n_groups = FRICL_MAX_GROUPS + 1;
  EXPECT_REJECT(ctx, &b, "n_groups = 65: at most 64 groups per call");
  b.n_groups = 2;
  many[1].count = (size_t)FRICL_MAX_CONTACTS;
  many[0].count = 1;
  EXPECT_REJECT(ctx, &b, "groups[1] (ev): count = 1099511627776 is too large");
  b.n_groups = 0;
  b.groups = NULL;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK && pot == 0,
        "no groups: %s", fricl_context_last_error(ctx));
  fricl_context_destroy(ctx);
}

int main(void) {
  for (int t = 0; t < FRICL_STENCIL_COUNT; ++t) {
    fricl_stencil back;
    CHECK(fricl_stencil_from_name(fricl_stencil_name((fricl_stencil)t),
                                  &back) == FRICL_STATUS_OK &&
              back == (fricl_stencil)t,
          "stencil name %d", t);
  }
  CHECK(fricl_stencil_name((fricl_stencil)9) == NULL, "bad stencil");
  CHECK(fricl_stencil_vertex_count(FRICL_STENCIL_FV) == 4 &&
            fricl_stencil_coord_count(FRICL_STENCIL_EV) == 1,
        "stencil sizes");
  for (int p = 0; p < 3; ++p) {
    fricl_psd back;
    CHECK(fricl_psd_from_name(fricl_psd_name((fricl_psd)p), &back) ==
                  FRICL_STATUS_OK &&
              back == (fricl_psd)p,
          "psd name %d", p);
  }
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i)
    api_checks(&be[i]);
  return test_report("test_tangential_api");
}
