/*
 * test_fallback.c - run with the ICD loader pointed at an empty vendor
 * directory (see tests/CMakeLists.txt), i.e. no OpenCL runtime: "auto"
 * runs everything on the host backend and says it fell back, "host" and
 * "reference" work, explicit OpenCL specs get DEVICE_NOT_FOUND with a
 * message, and evaluation still works.
 */
#include "test_util.h"

int main(void) {
  size_t count = 99;
  CHECK(fricl_devices_list(NULL, 0, &count) == FRICL_STATUS_OK && count == 0,
        "devices without a runtime: %zu", count);
  static const char *const ok_specs[] = {"auto", "host", "reference"};
  static const fricl_backend ok_backends[] = {
      FRICL_BACKEND_HOST, FRICL_BACKEND_HOST, FRICL_BACKEND_REFERENCE};
  for (int s = 0; s < 3; ++s) {
    fricl_context *ctx = test_context(ok_specs[s], 0, 0);
    if (!ctx)
      continue;
    CHECK(fricl_context_backend(ctx) == ok_backends[s], "%s: backend",
          ok_specs[s]);
    CHECK(fricl_context_fell_back(ctx) == (s == 0), "%s: fell back",
          ok_specs[s]);
    const double y[2] = {2.5e-4, 7.5e-4};
    double f1[2];
    fricl_scalar_batch b;
    fricl_scalar_batch_init(&b);
    b.n = 2;
    b.y = y;
    b.eps_v = 1e-3;
    b.out[FRICL_SMOOTH_FRICTION_F1] = f1;
    CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "eval");
    CHECK(f1[0] == 0.4375 && f1[1] == 0.9375, "values %g %g", f1[0], f1[1]);
    CHECK(fricl_context_last_backend(ctx) == ok_backends[s], "%s: last backend",
          ok_specs[s]);
    fricl_context_destroy(ctx);
  }
  static const char *const specs[] = {"cpu", "gpu", "opencl:0:0"};
  for (int i = 0; i < 3; ++i) {
    fricl_context_params p;
    fricl_context_params_init(&p);
    p.device = specs[i];
    char err[256] = "";
    p.error_buffer = err;
    p.error_buffer_size = sizeof err;
    fricl_context *c = NULL;
    CHECK(fricl_context_create(&c, &p) == FRICL_STATUS_DEVICE_NOT_FOUND,
          "%s without a runtime", specs[i]);
    CHECK(c == NULL && strstr(err, specs[i]) != NULL, "message: %s", err);
  }
  return test_report("test_fallback");
}
