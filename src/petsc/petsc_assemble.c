/* petsc_assemble.c - the steps that every potential's evaluation shares:
 * checks against the plan, the gather of the vertex values, the addition of
 * a rank's gradient and BSR Hessian into PETSc objects, the assembly. */
#include <stdio.h>
#include <string.h>

#include "petsc_internal.h"

void fpetsc_check_groups(const fricl_petsc_plan *p, size_t n_groups,
                         const fricl_contact_group *groups, fpetsc_err *e) {
  if (e->code)
    return;
  if (n_groups != p->n_groups) {
    fpetsc_err_set(e, PETSC_ERR_ARG_INCOMP,
                   "batch.n_groups = %zu, but the plan has %zu groups",
                   n_groups, p->n_groups);
    return;
  }
  if (n_groups && !groups) {
    fpetsc_err_set(e, PETSC_ERR_ARG_NULL, "batch.groups is NULL");
    return;
  }
  for (size_t g = 0; g < n_groups; ++g)
    if (groups[g].type != p->types[g] || groups[g].count != p->counts[g]) {
      fpetsc_err_set(e, PETSC_ERR_ARG_INCOMP,
                     "groups[%zu]: type %d with %zu contacts, but the plan "
                     "has type %d with %zu",
                     g, (int)groups[g].type, groups[g].count, (int)p->types[g],
                     p->counts[g]);
      return;
    }
  if (fpetsc_topology_checksum(n_groups, groups) != p->checksum)
    fpetsc_err_set(e, PETSC_ERR_ARG_INCOMP,
                   "the groups' vertices differ from those the plan was "
                   "created with (create a new plan for a new contact set)");
}

void fpetsc_check_targets(const fricl_petsc_plan *p, Vec x, Vec gradient,
                          Mat hessian, fpetsc_err *e) {
  PetscLayout map = NULL;
  PetscInt bs = 0;
  if (!x) {
    fpetsc_err_set(e, PETSC_ERR_ARG_NULL, "the vertex Vec is NULL");
    return;
  }
  FPETSC_TRY(e, VecGetLayout(x, &map));
  if (!e->code)
    fpetsc_check_layout(p, map, "the vertex Vec", e);
  if (gradient) {
    FPETSC_TRY(e, VecGetLayout(gradient, &map));
    if (!e->code)
      fpetsc_check_layout(p, map, "gradient", e);
    FPETSC_TRY(e, VecGetBlockSize(gradient, &bs));
    if (!e->code && bs != p->dim)
      fpetsc_err_set(e, PETSC_ERR_ARG_INCOMP,
                     "gradient: block size %" PetscInt_FMT
                     " is not dim = %d (VecSetBlockSize)",
                     bs, p->dim);
  }
  if (hessian)
    fpetsc_check_matrix(p, hessian, "hessian", e);
}

void fpetsc_check_matrix(const fricl_petsc_plan *p, Mat A, const char *what,
                         fpetsc_err *e) {
  PetscLayout rmap = NULL, cmap = NULL;
  PetscInt bs = 0;
  char name[64];
  FPETSC_TRY(e, MatGetLayouts(A, &rmap, &cmap));
  snprintf(name, sizeof name, "%s (rows)", what);
  if (!e->code)
    fpetsc_check_layout(p, rmap, name, e);
  snprintf(name, sizeof name, "%s (columns)", what);
  if (!e->code)
    fpetsc_check_layout(p, cmap, name, e);
  FPETSC_TRY(e, MatGetBlockSize(A, &bs));
  if (!e->code && bs != p->dim)
    fpetsc_err_set(e, PETSC_ERR_ARG_INCOMP,
                   "%s: block size %" PetscInt_FMT
                   " is not dim = %d (MatSetBlockSize)",
                   what, bs, p->dim);
}

void fpetsc_compact_groups(const fricl_petsc_plan *p,
                           const fricl_contact_group *groups,
                           fricl_contact_group *out) {
  size_t at = 0;
  for (size_t g = 0; g < p->n_groups; ++g) {
    out[g] = groups[g];
    out[g].vertices = p->compact + at;
    at += groups[g].count * (size_t)fricl_stencil_vertex_count(groups[g].type);
  }
}

PetscErrorCode fpetsc_gather(fricl_petsc_plan *p, Vec x) {
  PetscFunctionBegin;
  PetscCall(
      VecScatterBegin(p->scatter, x, p->xloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(
      VecScatterEnd(p->scatter, x, p->xloc, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

PetscErrorCode fpetsc_finish(fricl_petsc_plan *p, PetscReal local,
                             PetscReal *potential, Vec gradient, Mat hessian,
                             unsigned flags) {
  PetscReal sum = 0;
  PetscFunctionBegin;
  if (!(flags & FRICL_PETSC_EVAL_NO_ASSEMBLY)) {
    if (hessian)
      PetscCall(MatAssemblyBegin(hessian, MAT_FINAL_ASSEMBLY));
    if (gradient)
      PetscCall(VecAssemblyBegin(gradient));
    if (hessian)
      PetscCall(MatAssemblyEnd(hessian, MAT_FINAL_ASSEMBLY));
    if (gradient)
      PetscCall(VecAssemblyEnd(gradient));
  }
  PetscCallMPI(MPI_Allreduce(&local, &sum, 1, MPIU_REAL, MPI_SUM, p->comm));
  if (potential)
    *potential = sum;
  PetscFunctionReturn(0);
}
