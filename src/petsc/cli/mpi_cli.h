/* mpi_cli.h - the `fricl-mpi` command: shared declarations. */
#ifndef FRICL_MPI_CLI_H
#define FRICL_MPI_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <petscmat.h>

#include "fricl/fricl_petsc.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* A rank's outcome: exit status (0, EXIT_RUNTIME, EXIT_USAGE) and the
 * one-line message of a failure. */
typedef struct mpi_outcome {
  int rc;
  char msg[2048];
} mpi_outcome;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
/* Record a failure (the first one wins); returns rc. */
int mpi_fail(mpi_outcome *o, int rc, const char *fmt, ...);

/* Collective: when a rank failed, every rank takes the outcome of the first
 * failing rank (lowest rank number). Returns the agreed rc. */
int mpi_agree(MPI_Comm comm, mpi_outcome *o);

/* PETSc errors: a handler that records the first message of an error
 * (installed by main) and the outcome of a failed PETSc call: bad input
 * (EXIT_USAGE) for argument errors that fricl_petsc reports for the data,
 * EXIT_RUNTIME otherwise. The message is the same on every rank when the
 * failing call was one of fricl_petsc's collective functions. */
void mpi_petsc_errors_install(void);
int mpi_petsc_fail(mpi_outcome *o, PetscErrorCode code, const char *what);

/* Run a PETSc call; on failure record it and jump to `done`. */
#define MPI_TRY(o, call)                                                       \
  do {                                                                         \
    const PetscErrorCode mpi_ierr_ = (call);                                   \
    if (mpi_ierr_) {                                                           \
      mpi_petsc_fail((o), mpi_ierr_, #call);                                   \
      goto done;                                                               \
    }                                                                          \
  } while (0)

int mpi_tangential_main(int argc, char **argv);
int mpi_bench_main(int argc, char **argv);

#endif
