/* petsc_matrix.c - the Hessian's matrix: exact preallocation from the plan
 * (petsc_exchange.c computes the counts), creation, and the pattern for a
 * MATPREALLOCATOR. */
#include <string.h>

#include "petsc_internal.h"

/* What a rank checks alone of a matrix call, before the ranks agree on it
 * (collective): the matrix argument `name` given and no unknown flag. */
static PetscErrorCode agree_arg_flags(const fricl_petsc_plan *plan,
                                      fpetsc_err *e, const void *arg,
                                      const char *name, unsigned flags) {
  PetscFunctionBegin;
  fpetsc_capture_begin(e);
  if (!arg)
    fpetsc_err_set(e, PETSC_ERR_ARG_NULL, "%s is NULL", name);
  else if (flags & ~FRICL_PETSC_MATRIX_DIAGONAL)
    fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE, "flags = 0x%x: unknown bits",
                   flags);
  fpetsc_capture_end();
  PetscCall(fpetsc_agree(plan->comm, e));
  PetscFunctionReturn(0);
}

PetscErrorCode fricl_petsc_plan_preallocate(const fricl_petsc_plan *plan, Mat A,
                                            unsigned flags) {
  fpetsc_err e;
  PetscInt *dnz = NULL, *dnzu = NULL;
  PetscBool sbaij = PETSC_FALSE;
  PetscFunctionBegin;
  memset(&e, 0, sizeof e);
  if (!plan) {
    /* Meet the other ranks in their agreement, on A's communicator. */
    const PetscObject objs[] = {(PetscObject)A};
    fpetsc_err_set(&e, PETSC_ERR_ARG_NULL, "plan is NULL");
    PetscCall(fpetsc_agree_without_comm(1, objs, &e));
  }
  const PetscInt nown = plan->vend - plan->vstart;
  PetscCall(agree_arg_flags(plan, &e, A, "A", flags));
  /* DIAGONAL on some ranks only would give the ranks' rows different
   * patterns than the plan describes to the others. */
  PetscCall(fpetsc_agree_mask(plan->comm, flags, "flags"));
  /* Now that every rank is here with a matrix: its layouts, set up
   * together (collective), then checked against the plan. */
  {
    PetscLayout rmap = NULL, cmap = NULL;
    PetscCall(MatGetLayouts(A, &rmap, &cmap));
    PetscCall(PetscLayoutSetUp(rmap));
    PetscCall(PetscLayoutSetUp(cmap));
  }
  fpetsc_capture_begin(&e);
  fpetsc_check_matrix(plan, A, "A", &e);
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

/* A hash of a matrix type's name, to compare the ranks' types. */
static unsigned type_hash(MatType type) {
  unsigned h = 2166136261u;
  for (const char *c = type; c && *c; ++c)
    h = (h ^ (unsigned char)*c) * 16777619u;
  return h;
}

PetscErrorCode fricl_petsc_plan_create_matrix(const fricl_petsc_plan *plan,
                                              MatType type, unsigned flags,
                                              Mat *H) {
  fpetsc_err e;
  Mat A = NULL;
  PetscInt n = 0, N = 0;
  PetscFunctionBegin;
  memset(&e, 0, sizeof e);
  if (!plan) {
    /* No PETSc argument names the communicator: meet the other ranks in
     * their agreement on the world's. */
    fpetsc_err_set(&e, PETSC_ERR_ARG_NULL, "plan is NULL");
    PetscCall(fpetsc_agree_without_comm(0, NULL, &e));
  }
  /* What a rank may get wrong alone, checked before the ranks agree; the
   * matrix is created only after, on every rank or none: creating a PETSc
   * object takes a message tag of the communicator, and ranks that
   * skipped one would number their later tags differently. */
  PetscCall(agree_arg_flags(plan, &e, H, "H", flags));
  /* The same type name everywhere, so that MatSetType fails on every rank
   * or on none. */
  if (!type)
    type = MATBAIJ;
  PetscCall(fpetsc_agree_mask(plan->comm, (type_hash(type) << 1) | flags,
                              "the matrix type and the flags"));
  PetscCall(PetscLayoutGetLocalSize(plan->map, &n));
  PetscCall(PetscLayoutGetSize(plan->map, &N));
  PetscCall(MatCreate(plan->comm, &A));
  PetscErrorCode ierr = MatSetSizes(A, n, n, N, N);
  if (!ierr)
    ierr = MatSetBlockSize(A, plan->dim);
  if (!ierr)
    ierr = MatSetType(A, type);
  if (!ierr)
    ierr = fricl_petsc_plan_preallocate(plan, A, flags);
  if (ierr) { /* no leak of the matrix when the preallocation fails */
    PetscCall(MatDestroy(&A));
    PetscCall(ierr);
  }
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
