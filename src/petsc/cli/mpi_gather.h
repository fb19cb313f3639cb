/* mpi_gather.h - distributed results to rank 0 (collective calls; the
 * arrays are allocated on rank 0 only, with PetscMalloc, and released with
 * PetscFree by the caller). */
#ifndef FRICL_MPI_GATHER_H
#define FRICL_MPI_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include <petscmat.h>

/* A whole Vec, in global order. */
PetscErrorCode mpi_gather_vec(Vec x, double **out);

/* The assembled matrix as scalar COO: rows ascending, columns ascending
 * within a row (MatGetRow of each rank's rows, in rank order). */
PetscErrorCode mpi_gather_coo(Mat H, int64_t **rows, int64_t **cols,
                              double **vals, size_t *nnz);

/* Values that each rank holds for some of m_total indices (idx[i] is the
 * index of vals[i]), into out[m_total] on rank 0 (allocated by the
 * caller there; ignored elsewhere). */
PetscErrorCode mpi_gather_indexed(MPI_Comm comm, size_t m, const int64_t *idx,
                                  const double *vals, size_t m_total,
                                  double *out);

#endif
