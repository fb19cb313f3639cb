/* consumer.c - uses an installed fricl exactly as a solver would. */
#include <fricl/fricl.h>
#include <stdio.h>

int main(void) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = "reference";
  fricl_context *ctx = NULL;
  if (fricl_context_create(&ctx, &p) != FRICL_STATUS_OK)
    return 1;
  const double y[3] = {0.0, 5e-4, 2e-3};
  double f1[3];
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.n = 3;
  b.y = y;
  b.eps_v = 1e-3;
  b.out[FRICL_SMOOTH_FRICTION_F1] = f1;
  const fricl_status st = fricl_scalar_eval(ctx, &b);
  fricl_context_destroy(ctx);
  printf("fricl %s: f1 = %g %g %g\n", fricl_version_string(), f1[0], f1[1],
         f1[2]);
  return st == FRICL_STATUS_OK && f1[0] == 0.0 && f1[1] == 0.75 && f1[2] == 1.0
             ? 0
             : 1;
}
