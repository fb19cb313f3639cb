/* mpi_gather.c - distributed results to rank 0, for the output file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_gather.h"

PetscErrorCode mpi_gather_vec(Vec x, double **out) {
  VecScatter sc;
  Vec x0;
  PetscMPIInt rank;
  PetscInt n = 0;
  PetscFunctionBegin;
  *out = NULL;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)x), &rank));
  PetscCall(VecScatterCreateToZero(x, &sc, &x0));
  PetscCall(VecScatterBegin(sc, x, x0, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, x, x0, INSERT_VALUES, SCATTER_FORWARD));
  if (rank == 0) {
    const PetscScalar *a;
    PetscCall(VecGetLocalSize(x0, &n));
    PetscCall(PetscMalloc1(n + 1, out));
    PetscCall(VecGetArrayRead(x0, &a));
    for (PetscInt i = 0; i < n; ++i)
      (*out)[i] = (double)a[i];
    PetscCall(VecRestoreArrayRead(x0, &a));
  }
  PetscCall(VecScatterDestroy(&sc));
  PetscCall(VecDestroy(&x0));
  PetscFunctionReturn(0);
}

/* Counts and displacements of a Gatherv, checked against int. */
static PetscErrorCode gather_layout(MPI_Comm comm, int64_t mine, int **counts,
                                    int **displs, int64_t *total) {
  PetscMPIInt rank, size;
  int64_t *all = NULL;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  *counts = *displs = NULL;
  *total = 0;
  if (rank == 0)
    PetscCall(PetscMalloc1(size, &all));
  PetscCallMPI(MPI_Gather(&mine, 1, MPI_INT64_T, all, 1, MPI_INT64_T, 0, comm));
  int ok = 1;
  if (rank == 0) {
    PetscCall(PetscMalloc2(size, counts, size, displs));
    for (PetscMPIInt r = 0; r < size; ++r) {
      ok &= *total + all[r] <= INT32_MAX;
      (*counts)[r] = ok ? (int)all[r] : 0;
      (*displs)[r] = ok ? (int)*total : 0;
      *total += all[r];
    }
    PetscCall(PetscFree(all));
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_SUP,
             "the output is too large to gather on rank 0 (more than 2^31 "
             "entries)");
  PetscFunctionReturn(0);
}

PetscErrorCode mpi_gather_coo(Mat H, int64_t **rows, int64_t **cols,
                              double **vals, size_t *nnz) {
  MPI_Comm comm = PetscObjectComm((PetscObject)H);
  PetscInt lo, hi;
  int64_t mine = 0, total = 0;
  int *counts, *displs;
  PetscFunctionBegin;
  *rows = *cols = NULL;
  *vals = NULL;
  *nnz = 0;
  PetscCall(MatGetOwnershipRange(H, &lo, &hi));
  for (PetscInt r = lo; r < hi; ++r) {
    PetscInt nc;
    PetscCall(MatGetRow(H, r, &nc, NULL, NULL));
    mine += nc;
    PetscCall(MatRestoreRow(H, r, &nc, NULL, NULL));
  }
  int64_t *lr, *lc;
  double *lv;
  PetscCall(PetscMalloc3(mine + 1, &lr, mine + 1, &lc, mine + 1, &lv));
  int64_t at = 0;
  for (PetscInt r = lo; r < hi; ++r) {
    PetscInt nc;
    const PetscInt *c;
    const PetscScalar *v;
    PetscCall(MatGetRow(H, r, &nc, &c, &v));
    for (PetscInt k = 0; k < nc; ++k, ++at) {
      lr[at] = r;
      lc[at] = c[k];
      lv[at] = (double)v[k];
    }
    PetscCall(MatRestoreRow(H, r, &nc, &c, &v));
  }
  PetscCall(gather_layout(comm, mine, &counts, &displs, &total));
  PetscMPIInt rank;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    PetscCall(PetscMalloc1(total + 1, rows));
    PetscCall(PetscMalloc1(total + 1, cols));
    PetscCall(PetscMalloc1(total + 1, vals));
    *nnz = (size_t)total;
  }
  PetscCallMPI(MPI_Gatherv(lr, (int)mine, MPI_INT64_T, *rows, counts, displs,
                           MPI_INT64_T, 0, comm));
  PetscCallMPI(MPI_Gatherv(lc, (int)mine, MPI_INT64_T, *cols, counts, displs,
                           MPI_INT64_T, 0, comm));
  PetscCallMPI(MPI_Gatherv(lv, (int)mine, MPI_DOUBLE, *vals, counts, displs,
                           MPI_DOUBLE, 0, comm));
  PetscCall(PetscFree3(lr, lc, lv));
  PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(0);
}

PetscErrorCode mpi_gather_indexed(MPI_Comm comm, size_t m, const int64_t *idx,
                                  const double *vals, size_t m_total,
                                  double *out) {
  int64_t total = 0;
  int *counts, *displs;
  int64_t *all_idx = NULL;
  double *all_vals = NULL;
  PetscMPIInt rank;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(gather_layout(comm, (int64_t)m, &counts, &displs, &total));
  if (rank == 0) {
    PetscCheck((size_t)total == m_total, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "gathered %lld of %zu values", (long long)total, m_total);
    PetscCall(PetscMalloc2(total + 1, &all_idx, total + 1, &all_vals));
  }
  PetscCallMPI(MPI_Gatherv(idx, (int)m, MPI_INT64_T, all_idx, counts, displs,
                           MPI_INT64_T, 0, comm));
  PetscCallMPI(MPI_Gatherv(vals, (int)m, MPI_DOUBLE, all_vals, counts, displs,
                           MPI_DOUBLE, 0, comm));
  if (rank == 0)
    for (int64_t i = 0; i < total; ++i)
      out[all_idx[i]] = all_vals[i];
  PetscCall(PetscFree2(all_idx, all_vals));
  PetscCall(PetscFree2(counts, displs));
  PetscFunctionReturn(0);
}
