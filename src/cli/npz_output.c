/* npz_output.c - see npz_output.h. */
#include "npz_output.h"

#include <stdlib.h>

#include "npz_input.h"

npy_status npz_write_archive(FILE *f, int compress, npz_fill_fn fill,
                             const void *ctx, npy_error *err) {
  npz_writer *w = NULL;
  npy_status st =
      npz_writer_open(&w, f, compress ? NPZ_WRITE_DEFLATE : 0u, err);
  if (st == NPY_OK)
    st = fill(w, ctx, err);
  if (st == NPY_OK)
    st = npz_writer_finish(w, err);
  npz_writer_free(w);
  return st;
}

npy_status npz_add_real(npz_writer *w, fricl_precision prec, const char *name,
                        int ndim, const size_t *shape, const void *data,
                        npy_error *err) {
  return npz_writer_add(w, name, prec == FRICL_F32 ? NPY_F4 : NPY_F8, ndim,
                        shape, data, err);
}

void *npz_bsr_alloc(const fricl_tangential_plan *plan, int dim, size_t esz) {
  size_t nnz_blocks = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz_blocks, NULL, NULL);
  const size_t bytes = cli_mul3(nnz_blocks, (size_t)(dim * dim), esz);
  return bytes == SIZE_MAX ? NULL : cli_alloc_array(bytes, 1);
}

int npz_coo_from_bsr(const char *cmd, const fricl_tangential_plan *plan,
                     fricl_precision prec, int dim, const void *bsr,
                     npz_coo *h) {
  const size_t esz = prec == FRICL_F32 ? sizeof(float) : sizeof(double);
  size_t n_block_rows = 0, nnz_blocks = 0;
  const char *what = NULL;
  fricl_tangential_plan_bsr(plan, &n_block_rows, &nnz_blocks, NULL, NULL);
  const size_t nrows = n_block_rows * (size_t)dim;
  h->nnz = cli_mul3(nnz_blocks, (size_t)dim, (size_t)dim);
  int64_t *row_ptr = cli_alloc_array(nrows + 1, sizeof *row_ptr);
  int32_t *cols32 = cli_alloc_array(h->nnz, sizeof *cols32);
  h->rows = cli_alloc_array(h->nnz, sizeof *h->rows);
  h->cols = cli_alloc_array(h->nnz, sizeof *h->cols);
  h->values = cli_alloc_array(h->nnz, esz);
  if (h->nnz == SIZE_MAX || !row_ptr || !cols32 || !h->rows || !h->cols ||
      !h->values)
    what = "global Hessian";
  else if (fricl_tangential_plan_csr(plan, prec, bsr, row_ptr, cols32,
                                     h->values) != FRICL_STATUS_OK)
    what = "CSR conversion";
  for (size_t r = 0; !what && r < nrows; ++r)
    for (int64_t i = row_ptr[r]; i < row_ptr[r + 1]; ++i) {
      h->rows[i] = (int64_t)r;
      h->cols[i] = cols32[i];
    }
  free(row_ptr);
  free(cols32);
  if (!what)
    return 0;
  fprintf(stderr, "%s: out of memory (%s)\n", cmd, what);
  return 1;
}

void npz_coo_free(npz_coo *h) {
  free(h->rows);
  free(h->cols);
  free(h->values);
}

npy_status npz_add_potential(npz_writer *w, fricl_precision prec, size_t ndofs,
                             const void *potential, const void *gradient,
                             const npz_coo *h, npy_error *err) {
  npy_status st = npz_add_real(w, prec, "potential", 0, NULL, potential, err);
  if (st == NPY_OK)
    st = npz_add_real(w, prec, "gradient", 1, &ndofs, gradient, err);
  if (st != NPY_OK || !h)
    return st;
  const size_t two = 2;
  const int64_t shape[2] = {(int64_t)ndofs, (int64_t)ndofs};
  st = npz_writer_add(w, "hessian_rows", NPY_I8, 1, &h->nnz, h->rows, err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "hessian_cols", NPY_I8, 1, &h->nnz, h->cols, err);
  if (st == NPY_OK)
    st = npz_add_real(w, prec, "hessian_values", 1, &h->nnz, h->values, err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "hessian_shape", NPY_I8, 1, &two, shape, err);
  return st;
}

npy_status npz_add_contacts(npz_writer *w, fricl_precision prec,
                            fricl_stencil type, size_t m, int dim,
                            const void *potential, const void *local_hessian,
                            npy_error *err) {
  const char *tn = fricl_stencil_name(type);
  const size_t ndof = (size_t)(fricl_stencil_vertex_count(type) * dim);
  const size_t shape[3] = {m, ndof, ndof};
  char name[64];
  snprintf(name, sizeof name, "%s_potential", tn);
  npy_status st = npz_add_real(w, prec, name, 1, &m, potential, err);
  if (st != NPY_OK || !local_hessian)
    return st;
  snprintf(name, sizeof name, "%s_hessian", tn);
  return npz_add_real(w, prec, name, 3, shape, local_hessian, err);
}
