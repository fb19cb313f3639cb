/* petsc_tangential.c - fricl_petsc_tangential_eval: the friction potential
 * of every rank's contacts, added into PETSc's Vec and Mat. */
#include <string.h>

#include "petsc_internal.h"

/* The batch fields fricl_petsc fills itself must be left zero. */
static void check_batch(const fricl_tangential_batch *b, fpetsc_err *e) {
  if (!b) {
    fpetsc_err_set(e, PETSC_ERR_ARG_NULL, "batch is NULL");
    return;
  }
  if (b->struct_size != sizeof *b) {
    fpetsc_err_set(e, PETSC_ERR_ARG_WRONG,
                   "batch.struct_size = %u, expected %zu: initialise the "
                   "batch with fricl_tangential_batch_init",
                   (unsigned)b->struct_size, sizeof *b);
    return;
  }
  if (b->precision != FPETSC_PRECISION) {
    fpetsc_err_set(e, PETSC_ERR_ARG_WRONG,
                   "batch.precision = %d: this PETSc's PetscReal needs %s",
                   (int)b->precision,
                   FPETSC_PRECISION == FRICL_F64 ? "FRICL_F64" : "FRICL_F32");
    return;
  }
  const struct {
    int set;
    const char *name;
  } owned[] = {{b->n_vertices != 0, "n_vertices"},
               {b->velocities != NULL, "velocities"},
               {b->plan != NULL, "plan"},
               {b->direction != NULL, "direction"},
               {b->potential != NULL, "potential"},
               {b->gradient != NULL, "gradient"},
               {b->hessian_values != NULL, "hessian_values"},
               {b->hessian_product != NULL, "hessian_product"}};
  for (size_t i = 0; i < sizeof owned / sizeof owned[0]; ++i)
    if (owned[i].set) {
      fpetsc_err_set(e, PETSC_ERR_ARG_WRONG,
                     "batch.%s is set: fricl_petsc fills it (pass the "
                     "velocities, gradient and hessian as PETSc objects)",
                     owned[i].name);
      return;
    }
}

PetscErrorCode fricl_petsc_tangential_eval(fricl_petsc_plan *plan,
                                           const fricl_tangential_batch *batch,
                                           Vec velocities, PetscReal *potential,
                                           Vec gradient, Mat hessian,
                                           unsigned flags) {
  fpetsc_err e;
  fricl_contact_group cg[FRICL_MAX_GROUPS];
  PetscReal local = 0;
  PetscFunctionBegin;
  memset(&e, 0, sizeof e);
  if (!plan) {
    /* The other ranks are in the agreement below: join them there, on
     * the communicator of the velocities (laid out like the plan's Vec). */
    const PetscObject objs[] = {(PetscObject)velocities, (PetscObject)gradient,
                                (PetscObject)hessian};
    fpetsc_err_set(&e, PETSC_ERR_ARG_NULL, "plan is NULL");
    PetscCall(fpetsc_agree_without_comm(3, objs, &e));
  }

  /* 1. Arguments, on every rank, then agreement. */
  fpetsc_capture_begin(&e);
  check_batch(batch, &e);
  if (!e.code)
    fpetsc_check_groups(plan, batch->n_groups, batch->groups, &e);
  fpetsc_check_targets(plan, velocities, gradient, hessian, &e);
  if (!e.code && (flags & ~FRICL_PETSC_EVAL_NO_ASSEMBLY))
    fpetsc_err_set(&e, PETSC_ERR_ARG_OUTOFRANGE, "flags = 0x%x: unknown bits",
                   flags);
  fpetsc_capture_end();
  PetscCall(fpetsc_agree(plan->comm, &e));
  PetscCall(fpetsc_agree_mask(
      plan->comm, (gradient ? 1u : 0u) | (hessian ? 2u : 0u) | (flags << 2),
      "which of gradient and hessian are given, and "
      "the flags,"));

  /* 2. The velocities of the vertices this rank's contacts touch. */
  PetscCall(fpetsc_gather(plan, velocities));

  /* 3. fricl on this rank's contacts, then the additions. */
  fpetsc_capture_begin(&e);
  const PetscScalar *x = NULL;
  FPETSC_TRY(&e, VecGetArrayRead(plan->xloc, &x));
  if (!e.code) {
    fricl_tangential_batch b = *batch;
    fpetsc_compact_groups(plan, batch->groups, cg);
    b.dim = plan->dim;
    b.n_vertices = (size_t)plan->nl;
    b.velocities = x;
    b.groups = cg;
    b.plan = plan->fplan;
    b.potential = &local;
    b.gradient = gradient ? plan->grad : NULL;
    b.hessian_values = hessian ? plan->bsr : NULL;
    const fricl_status st = fricl_tangential_eval(plan->ctx, &b);
    if (st != FRICL_STATUS_OK)
      fpetsc_err_fricl(&e, plan->ctx, st, "fricl_tangential_eval");
    FPETSC_TRY(&e, VecRestoreArrayRead(plan->xloc, &x));
  }
  fpetsc_capture_end();
  PetscCall(fpetsc_agree(plan->comm, &e));

  /* 4. Rows of other ranks to their owners (PetscSF); each rank sums its
   * rows in a fixed order and adds them (MatSetValuesBlocked). */
  PetscCall(fpetsc_exchange_values(plan, gradient != NULL, hessian != NULL));
  fpetsc_capture_begin(&e);
  fpetsc_add(plan, gradient, hessian, &e);
  fpetsc_capture_end();
  PetscCall(fpetsc_agree(plan->comm, &e));

  /* 5. Assembly and the sum of the potential. */
  PetscCall(fpetsc_finish(plan, local, potential, gradient, hessian, flags));
  PetscFunctionReturn(0);
}
