/* Links fricl_petsc as a downstream project does; one rank, one contact. */
#include <stdio.h>

#include <fricl/fricl_petsc.h>

int main(int argc, char **argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fricl_context *ctx = NULL;
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = "reference";
  PetscCall(fricl_petsc_context_create(PETSC_COMM_WORLD, &p, &ctx));
  Vec v;
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, PETSC_DECIDE, 6, &v));
  PetscCall(VecSetBlockSize(v, 3));
  PetscCall(VecSet(v, 0.01));
  const int32_t ids[2] = {0, 1};
  const double basis[6] = {1, 0, 0, 1, 0, 0}, n = 1, mu = 0.5;
  fricl_contact_group g = {0};
  g.type = FRICL_STENCIL_VV;
  g.count = 1;
  g.vertices = ids;
  g.tangent_basis = basis;
  g.normal_force = &n;
  g.mu_s = &mu;
  g.mu_k = &mu;
  fricl_petsc_plan *plan;
  Mat H;
  PetscCall(fricl_petsc_plan_create(ctx, v, NULL, 1, &g, &plan));
  PetscCall(fricl_petsc_plan_create_matrix(plan, NULL, 0, &H));
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.eps_v = 1e-3;
  b.n_groups = 1;
  b.groups = &g;
  PetscReal pot = -1;
  PetscCall(fricl_petsc_tangential_eval(plan, &b, v, &pot, NULL, H, 0));
  printf("fricl_petsc consumer: potential %g\n", (double)pot);
  PetscCall(MatDestroy(&H));
  PetscCall(fricl_petsc_plan_destroy(&plan));
  fricl_context_destroy(ctx);
  PetscCall(VecDestroy(&v));
  PetscCall(PetscFinalize());
  return pot >= 0 ? 0 : 1;
}
