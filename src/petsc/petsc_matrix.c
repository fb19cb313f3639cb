/* petsc_matrix.c - the Hessian's matrix: exact preallocation from the plan
 * (petsc_exchange.c computes the counts), creation, and the pattern for a
 * MATPREALLOCATOR. */
#include <string.h>

#include "petsc_internal.h"

PetscErrorCode fricl_petsc_plan_preallocate(const fricl_petsc_plan *plan, Mat A,
                                            unsigned flags) {
  fpetsc_err e;
  PetscInt *dnz = NULL, *dnzu = NULL;
  PetscBool sbaij = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCheck(plan, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "plan is NULL");
  memset(&e, 0, sizeof e);
  const PetscInt nown = plan->vend - plan->vstart;
  fpetsc_capture_begin(&e);
  if (!A)
    fpetsc_err_set(&e, PETSC_ERR_ARG_NULL, "A is NULL");
  else
    fpetsc_check_matrix(plan, A, "A", &e);
  if (!e.code && (flags & ~FRICL_PETSC_MATRIX_DIAGONAL))
    fpetsc_err_set(&e, PETSC_ERR_ARG_OUTOFRANGE, "flags = 0x%x: unknown bits",
                   flags);
  if (!e.code)
    FPETSC_TRY(&e, PetscObjectTypeCompareAny((PetscObject)A, &sbaij, MATSBAIJ,
                                             MATSEQSBAIJ, MATMPISBAIJ, ""));
  fpetsc_capture_end();
  PetscCall(fpetsc_agree(plan->comm, &e));
  if (flags & FRICL_PETSC_MATRIX_DIAGONAL) {
    PetscCall(PetscMalloc2(nown + 1, &dnz, nown + 1, &dnzu));
    for (PetscInt i = 0; i < nown; ++i) {
      dnz[i] = plan->dnz[i] + !plan->has_diag[i];
      dnzu[i] = plan->dnzu[i] + !plan->has_diag[i];
    }
  }
  PetscCall(MatXAIJSetPreallocation(A, plan->dim, dnz ? dnz : plan->dnz,
                                    plan->onz, dnzu ? dnzu : plan->dnzu,
                                    plan->onzu));
  PetscCall(PetscFree2(dnz, dnzu));
  PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  if (sbaij) /* the Hessian is symmetric: its upper triangle suffices */
    PetscCall(MatSetOption(A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode fricl_petsc_plan_create_matrix(const fricl_petsc_plan *plan,
                                              MatType type, unsigned flags,
                                              Mat *H) {
  Mat A;
  PetscInt n = 0, N = 0;
  PetscFunctionBegin;
  PetscCheck(plan && H, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "plan and H must not be NULL");
  PetscCall(PetscLayoutGetLocalSize(plan->map, &n));
  PetscCall(PetscLayoutGetSize(plan->map, &N));
  PetscCall(MatCreate(plan->comm, &A));
  PetscCall(MatSetSizes(A, n, n, N, N));
  PetscCall(MatSetBlockSize(A, plan->dim));
  PetscCall(MatSetType(A, type ? type : MATBAIJ));
  PetscCall(fricl_petsc_plan_preallocate(plan, A, flags));
  if (flags & FRICL_PETSC_MATRIX_DIAGONAL) {
    /* Zeros in the whole pattern of the owned rows and in the diagonal
     * blocks, assembled: an assembly squeezes out preallocated space that
     * holds no entry, so the friction blocks must be there too. */
    const PetscInt d = plan->dim;
    PetscReal *zeros;
    PetscCall(
        PetscCalloc1((size_t)(plan->max_urow + 1) * (size_t)(d * d), &zeros));
    for (PetscInt i = 0; i < plan->vend - plan->vstart; ++i) {
      const PetscInt row = plan->vstart + i, u0 = plan->u_ptr[i];
      PetscCall(MatSetValuesBlocked(A, 1, &row, plan->u_ptr[i + 1] - u0,
                                    plan->u_cols + u0, zeros, ADD_VALUES));
      PetscCall(MatSetValuesBlocked(A, 1, &row, 1, &row, zeros, ADD_VALUES));
    }
    PetscCall(PetscFree(zeros));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  *H = A;
  PetscFunctionReturn(0);
}

PetscErrorCode fricl_petsc_plan_insert_pattern(const fricl_petsc_plan *plan,
                                               Mat A) {
  PetscReal *zeros;
  PetscFunctionBegin;
  PetscCheck(plan && A, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "plan and A must not be NULL");
  const size_t bs2 = (size_t)(plan->dim * plan->dim);
  PetscCall(PetscCalloc1((size_t)(plan->max_row + 1) * bs2, &zeros));
  for (PetscInt r = 0; r < plan->nl; ++r) {
    const PetscInt n = (PetscInt)(plan->row_ptr[r + 1] - plan->row_ptr[r]);
    PetscCall(MatSetValuesBlocked(A, 1, &plan->gv[r], n,
                                  plan->gcols + plan->row_ptr[r], zeros,
                                  ADD_VALUES));
  }
  PetscCall(PetscFree(zeros));
  PetscFunctionReturn(0);
}
