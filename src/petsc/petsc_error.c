/* petsc_error.c - errors that every rank raises together.
 *
 * A collective function of fricl_petsc runs in phases. In a local phase
 * (argument checks, fricl's evaluation, MatSetValuesBlocked) a rank may
 * fail alone; its PETSc calls then report to a capturing error handler and
 * the first error is kept. Before the next collective step (a VecScatter,
 * an assembly) the ranks agree: if any failed, all raise the first failing
 * rank's error, so that no rank waits in a collective call that the others
 * have left. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "petsc_internal.h"

void fpetsc_err_set(fpetsc_err *e, PetscErrorCode code, const char *fmt, ...) {
  if (e->code)
    return;
  e->code = code ? code : PETSC_ERR_LIB;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
}

static PetscErrorCode code_of(fricl_status st) {
  switch (st) {
  case FRICL_STATUS_INVALID_ARGUMENT:
    return PETSC_ERR_ARG_WRONG;
  case FRICL_STATUS_OUT_OF_MEMORY:
    return PETSC_ERR_MEM;
  case FRICL_STATUS_NO_FP64:
  case FRICL_STATUS_UNSUPPORTED:
    return PETSC_ERR_SUP;
  default:
    return PETSC_ERR_LIB;
  }
}

void fpetsc_err_fricl(fpetsc_err *e, const fricl_context *ctx, fricl_status st,
                      const char *what) {
  fpetsc_err_set(e, code_of(st), "%s: %s: %s", what, fricl_status_string(st),
                 ctx ? fricl_context_last_error(ctx) : "");
}

/* The capturing handler: keeps the first (innermost) message, prints
 * nothing, and lets the error code travel back to the caller. */
static PetscErrorCode capture(MPI_Comm comm, int line, const char *func,
                              const char *file, PetscErrorCode n,
                              PetscErrorType p, const char *mess, void *ctx) {
  fpetsc_err *e = ctx;
  (void)comm;
  (void)line;
  (void)file;
  if (p == PETSC_ERROR_INITIAL && !e->code) {
    const char *text = mess;
    if (!text || !*text)
      PetscErrorMessage(n, &text, NULL);
    fpetsc_err_set(e, n, "%s(): %s", func ? func : "PETSc",
                   text ? text : "error");
  }
  return n;
}

void fpetsc_capture_begin(fpetsc_err *e) {
  /* Pushing only allocates a small record; should it fail, errors are
   * still caught by FPETSC_TRY (without PETSc's message). */
  (void)PetscPushErrorHandler(capture, e);
}

void fpetsc_capture_end(void) { (void)PetscPopErrorHandler(); }

PetscErrorCode fpetsc_agree(MPI_Comm comm, const fpetsc_err *e) {
  int rank = 0, size = 1;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  int mine = e->code ? rank : size, first = size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size)
    PetscFunctionReturn(0);
  struct {
    int code;
    char msg[sizeof e->msg + 32];
  } buf;
  memset(&buf, 0, sizeof buf);
  if (rank == first) {
    buf.code = (int)e->code;
    snprintf(buf.msg, sizeof buf.msg, "rank %d: %s", rank, e->msg);
  }
  PetscCallMPI(MPI_Bcast(&buf, (int)sizeof buf, MPI_BYTE, first, comm));
  buf.msg[sizeof buf.msg - 1] = '\0';
  SETERRQ(comm, (PetscErrorCode)buf.code, "%s", buf.msg);
}

PetscErrorCode fpetsc_agree_without_comm(PetscInt n, const PetscObject *objs,
                                         const fpetsc_err *e) {
  MPI_Comm comm = MPI_COMM_NULL;
  PetscBool owned = PETSC_FALSE;
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n && comm == MPI_COMM_NULL; ++i)
    if (objs[i])
      PetscCall(PetscObjectGetComm(objs[i], &comm));
  if (comm == MPI_COMM_NULL) {
    /* PETSc objects carry PETSc's inner duplicate of their communicator,
     * and the other ranks agree on that one: PETSC_COMM_WORLD itself would
     * be another communicator and never match. */
    PetscCall(PetscCommDuplicate(PETSC_COMM_WORLD, &comm, NULL));
    owned = PETSC_TRUE;
  }
  const PetscErrorCode ierr = fpetsc_agree(comm, e);
  if (owned)
    PetscCall(PetscCommDestroy(&comm));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode fpetsc_agree_mask(MPI_Comm comm, unsigned mask,
                                 const char *what) {
  unsigned v[2] = {mask, ~mask}, r[2];
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(v, r, 2, MPI_UNSIGNED, MPI_BAND, comm));
  /* All equal iff the AND of the masks equals the complement of the AND of
   * their complements (the OR). */
  PetscCheck(r[0] == ~r[1], comm, PETSC_ERR_ARG_INCOMP,
             "%s must be the same on every rank", what);
  PetscFunctionReturn(0);
}

PetscErrorCode fpetsc_any_failed(MPI_Comm comm, const fpetsc_err *e,
                                 PetscBool *any) {
  int bad = e->code != 0, some = 0;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&bad, &some, 1, MPI_INT, MPI_MAX, comm));
  *any = some ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}
