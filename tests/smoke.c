#include <stdio.h>
#include "fricl/fricl.h"
int main(void) {
  const char *devs[] = {"reference", "cpu"};
  for (int d = 0; d < 2; ++d) {
    fricl_context_params p; fricl_context_params_init(&p); p.device = devs[d];
    char eb[256] = ""; p.error_buffer = eb; p.error_buffer_size = sizeof eb;
    fricl_context *ctx; fricl_status st = fricl_context_create(&ctx, &p);
    if (st) { printf("create %s: %s %s\n", devs[d], fricl_status_string(st), eb); return 1; }
    double y[7] = {0, 1e-4, 2.5e-4, 5e-4, 7.5e-4, 1e-3, 2e-3}, out[12][7];
    fricl_scalar_batch b; fricl_scalar_batch_init(&b);
    b.n = 7; b.y = y; b.eps_v = 1e-3; b.mu_s = 0.5; b.mu_k = 0.3; b.mu_profile = FRICL_MU_IPCTK;
    for (int t = 0; t < 12; ++t) b.out[t] = out[t];
    st = fricl_scalar_eval(ctx, &b);
    printf("%s: %s %s\n", fricl_context_device_name(ctx), fricl_status_string(st), fricl_context_last_error(ctx));
    for (int t = 0; t < 12; ++t) { printf("%-40s", fricl_term_name(t)); for (int i = 0; i < 7; ++i) printf(" %.17g", out[t][i]); printf("\n"); }
    fricl_context_destroy(ctx);
  }
  return 0;
}
