/* mpi_errors.c - failures that every rank reports the same way. */
#include <stdarg.h>
#include <string.h>

#include "mpi_cli.h"

int mpi_fail(mpi_outcome *o, int rc, const char *fmt, ...) {
  if (o->rc)
    return o->rc;
  o->rc = rc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->msg, sizeof o->msg, fmt, ap);
  va_end(ap);
  /* One line: no trailing newline (the reader's messages end with one). */
  size_t n = strlen(o->msg);
  while (n && (o->msg[n - 1] == '\n' || o->msg[n - 1] == '\r'))
    o->msg[--n] = '\0';
  return rc;
}

int mpi_agree(MPI_Comm comm, mpi_outcome *o) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = o->rc ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size)
    return 0;
  MPI_Bcast(o, (int)sizeof *o, MPI_BYTE, first, comm);
  o->msg[sizeof o->msg - 1] = '\0';
  return o->rc;
}

static char petsc_msg[1024];

static PetscErrorCode record(MPI_Comm comm, int line, const char *func,
                             const char *file, PetscErrorCode n,
                             PetscErrorType p, const char *mess, void *ctx) {
  (void)comm;
  (void)line;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL && !petsc_msg[0]) {
    const char *text = mess;
    if (!text || !*text)
      PetscErrorMessage(n, &text, NULL);
    /* fricl_petsc's messages are complete sentences; name PETSc's own
     * functions. */
    if (func && strncmp(func, "fricl_petsc_", 12) != 0 &&
        strncmp(func, "fpetsc_", 7) != 0)
      snprintf(petsc_msg, sizeof petsc_msg, "%s(): %s", func,
               text ? text : "error");
    else
      snprintf(petsc_msg, sizeof petsc_msg, "%s", text ? text : "error");
  }
  return n;
}

void mpi_petsc_errors_install(void) {
  (void)PetscPushErrorHandler(record, NULL);
}

int mpi_petsc_fail(mpi_outcome *o, PetscErrorCode code, const char *what) {
  const int usage =
      code == PETSC_ERR_ARG_WRONG || code == PETSC_ERR_ARG_OUTOFRANGE;
  int rc = mpi_fail(o, usage ? EXIT_USAGE : EXIT_RUNTIME, "%s",
                    petsc_msg[0] ? petsc_msg : what);
  petsc_msg[0] = '\0';
  return rc;
}
