/* npz_output.h - writing the .npz outputs of the NPZ commands: an archive
 * filled member after member, and the arrays that `fricl tangential`,
 * `fricl barrier` and fricl-mpi share (the potential, its gradient, the
 * assembled Hessian as scalar COO, the contacts' potentials and local
 * Hessians per stencil type). */
#ifndef FRICL_CLI_NPZ_OUTPUT_H
#define FRICL_CLI_NPZ_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fricl/fricl.h"
#include "npz.h"

/* Adds the members of an archive. */
typedef npy_status (*npz_fill_fn)(npz_writer *w, const void *ctx,
                                  npy_error *err);

/* An archive on f (deflated with `compress`) of what fill adds. */
npy_status npz_write_archive(FILE *f, int compress, npz_fill_fn fill,
                             const void *ctx, npy_error *err);

/* A real array of the working precision. */
npy_status npz_add_real(npz_writer *w, fricl_precision prec, const char *name,
                        int ndim, const size_t *shape, const void *data,
                        npy_error *err);

/* The assembled Hessian as scalar COO: rows ascending, columns ascending
 * within a row. */
typedef struct npz_coo {
  size_t nnz;
  int64_t *rows, *cols;
  void *values;
} npz_coo;

/* The BSR value array of `plan` (zeroed), NULL when out of memory. */
void *npz_bsr_alloc(const fricl_tangential_plan *plan, int dim, size_t esz);

/* The plan's BSR values as COO in *h (the caller frees it with
 * npz_coo_free). @return 0, or 1 with "cmd: out of memory (...)". */
int npz_coo_from_bsr(const char *cmd, const fricl_tangential_plan *plan,
                     fricl_precision prec, int dim, const void *bsr,
                     npz_coo *h);
void npz_coo_free(npz_coo *h);

/* potential (), gradient (ndofs,) and, with h, hessian_rows, hessian_cols,
 * hessian_values (nnz,) and hessian_shape (2,). */
npy_status npz_add_potential(npz_writer *w, fricl_precision prec, size_t ndofs,
                             const void *potential, const void *gradient,
                             const npz_coo *h, npy_error *err);

/* T_potential (m,) and, with one, T_hessian (m, k dim, k dim). */
npy_status npz_add_contacts(npz_writer *w, fricl_precision prec,
                            fricl_stencil type, size_t m, int dim,
                            const void *potential, const void *local_hessian,
                            npy_error *err);

#endif
