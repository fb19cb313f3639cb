/* tangential_plan.c - the public side of a tangential plan: its release
 * and its BSR/CSR accessors. The plan itself (construction, cache, block
 * lists) is in src/core/plan.c, below the backends that gather through it. */
#include "core/tangential.h"
#include "core/validate.h"

void fricl_tangential_plan_destroy(fricl_tangential_plan *plan) {
  fricl__plan_destroy(plan);
}

fricl_status fricl_tangential_plan_bsr(const fricl_tangential_plan *plan,
                                       size_t *n_block_rows, size_t *nnz_blocks,
                                       const int64_t **row_ptr,
                                       const int32_t **block_cols) {
  if (!plan || !plan->has_bsr)
    return FRICL_STATUS_INVALID_ARGUMENT;
  if (n_block_rows)
    *n_block_rows = plan->n_vertices;
  if (nnz_blocks)
    *nnz_blocks = plan->nnz;
  if (row_ptr)
    *row_ptr = plan->row_ptr;
  if (block_cols)
    *block_cols = plan->cols;
  return FRICL_STATUS_OK;
}

fricl_status fricl_tangential_plan_csr(const fricl_tangential_plan *plan,
                                       fricl_precision precision,
                                       const void *bsr_values, int64_t *row_ptr,
                                       int32_t *cols, void *values) {
  if (!plan || !plan->has_bsr ||
      (precision != FRICL_F64 && precision != FRICL_F32) ||
      (values && !bsr_values))
    return FRICL_STATUS_INVALID_ARGUMENT;
  const size_t d = (size_t)plan->dim, esz = fricl__elem_bytes(precision);
  /* Scalar column indices are int32 (as the BSR block columns are). */
  if (cols && plan->n_vertices * d > (size_t)INT32_MAX)
    return FRICL_STATUS_UNSUPPORTED;
  if (values && fricl__overlaps(values, plan->nnz * d * d * esz, bsr_values,
                                plan->nnz * d * d * esz))
    return FRICL_STATUS_INVALID_ARGUMENT;
  size_t o = 0;
  if (row_ptr)
    row_ptr[0] = 0;
  for (size_t v = 0; v < plan->n_vertices; ++v) {
    const size_t b0 = (size_t)plan->row_ptr[v],
                 b1 = (size_t)plan->row_ptr[v + 1];
    for (size_t r = 0; r < d; ++r) {
      for (size_t b = b0; b < b1; ++b)
        for (size_t s = 0; s < d; ++s, ++o) {
          if (cols)
            cols[o] = (int32_t)((size_t)plan->cols[b] * d + s);
          if (values) {
            const size_t src = (b * d + r) * d + s;
            if (precision == FRICL_F64)
              ((double *)values)[o] = ((const double *)bsr_values)[src];
            else
              ((float *)values)[o] = ((const float *)bsr_values)[src];
          }
        }
      if (row_ptr)
        row_ptr[v * d + r + 1] = (int64_t)o;
    }
  }
  return FRICL_STATUS_OK;
}
