/*
 * test_build_fault.c - every fallible operation of a chunked lagged build
 * fails once, in turn (fricl_static_fi, see src/fault.h): the call must
 * return an error status with a message, write no status report, and the
 * same context must then build bitwise like the clean run. Leaks are left
 * to the ASan pass of the suite.
 */
#include "core/fault.h"
#include "opencl/opencl.h"
#include "test_util.h"

#define NC 50

static double X[NC * 4 * 3];
static int32_t vx[NC * 4];

static fricl_status run(fricl_context *ctx, double *N, double *P,
                        fricl_build_report *rep) {
  fricl_build_group G;
  memset(&G, 0, sizeof G);
  G.type = FRICL_STENCIL_FV;
  G.count = NC;
  G.vertices = vx;
  G.normal_force = N;
  G.tangent_basis = P;
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.n_vertices = NC * 4;
  b.lagged_positions = X;
  b.kappa = 1;
  b.dhat = 0.01;
  b.n_groups = 1;
  b.groups = &G;
  b.report = rep;
  return fricl_build(ctx, &b);
}

int main(void) {
  for (int c = 0; c < NC; ++c) {
    const double o = c * 0.5, h = 0.001 + 0.0002 * c;
    const double p[12] = {o + 0.02, 0.02, h, o, 0, 0, o + 0.1, 0, 0, o, 0.1, 0};
    memcpy(&X[c * 12], p, sizeof p);
    for (int i = 0; i < 4; ++i)
      vx[c * 4 + i] = c * 4 + i;
  }
  test_backend be[TEST_MAX_BACKENDS];
  const int nbe = test_backends(be);
  for (int i = 0; i < nbe; ++i) {
    fricl__fault_disarm();
    fricl_context *ctx = test_context(be[i].spec, 16, 0); /* 4 chunks */
    if (!ctx || !fricl_context_has_fp64(ctx)) {
      fricl_context_destroy(ctx);
      continue;
    }
    double N0[NC], P0[NC * 6], N[NC], P[NC * 6];
    fricl_build_report rep;
    fricl_build_report_init(&rep);
    fricl__fault_disarm();
    CHECK(run(ctx, N0, P0, &rep) == FRICL_STATUS_OK, "%s: clean run: %s",
          be[i].label, fricl_context_last_error(ctx));
    /* Cached kernels are not rebuilt: clear the cache so that the program
     * build is among the operations too. */
    if (fricl__ocl_cast(ctx->dev))
      fricl__ocl_program_cache_clear(fricl__ocl_cast(ctx->dev));
    fricl__fault_disarm();
    CHECK(run(ctx, N0, P0, &rep) == FRICL_STATUS_OK, "%s: clean run",
          be[i].label);
    const long ops = fricl__fault_count();
    for (long n = 1; n <= ops; ++n) {
      if (fricl__ocl_cast(ctx->dev))
        fricl__ocl_program_cache_clear(fricl__ocl_cast(ctx->dev));
      fricl_build_report_init(&rep);
      rep.total = 12345;
      fricl__fault_arm(n);
      const fricl_status st = run(ctx, N, P, &rep);
      const fricl__fault_kind_t kind = fricl__fault_kind();
      fricl__fault_disarm();
      CHECK(kind != FRICL__FAULT_NONE, "%s: op %ld of %ld not reached",
            be[i].label, n, ops);
      CHECK(st != FRICL_STATUS_OK && fricl_context_last_error(ctx)[0],
            "%s: op %ld (kind %d) failed silently: %s", be[i].label, n,
            (int)kind, fricl_status_string(st));
      CHECK(rep.total == 12345, "%s: op %ld: report written on failure",
            be[i].label, n);
      CHECK(run(ctx, N, P, &rep) == FRICL_STATUS_OK &&
                memcmp(N, N0, sizeof N) == 0 && memcmp(P, P0, sizeof P) == 0,
            "%s: op %ld: no recovery: %s", be[i].label, n,
            fricl_context_last_error(ctx));
    }
    printf("%s: %ld fallible operations, each failed once\n", be[i].label, ops);
    fricl_context_destroy(ctx);
  }
  return test_report("test_build_fault");
}
