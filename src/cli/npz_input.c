/* npz_input.c - see npz_input.h. */
#include "npz_input.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

size_t cli_mul3(size_t a, size_t b, size_t c) {
  if (b && a > SIZE_MAX / b)
    return SIZE_MAX;
  const size_t ab = a * b;
  if (c && ab > SIZE_MAX / c)
    return SIZE_MAX;
  return ab * c;
}

void *cli_alloc_array(size_t n, size_t size) {
  if (size == 0 || n > (size_t)PTRDIFF_MAX / size)
    return NULL;
  return calloc(n ? n : 1, size);
}

float cli_double_to_float(double v) {
  const double overflow_threshold = (double)FLT_MAX + 0x1p103;
  if (isnan(v))
    return signbit(v) ? -NAN : NAN;
  if (v >= overflow_threshold)
    return INFINITY;
  if (v <= -overflow_threshold)
    return -INFINITY;
  return (float)v;
}

int npy_is_real(npy_dtype d) { return d == NPY_F8 || d == NPY_F4; }

/* Index into the file's data of the element at C-order position i of a
 * Fortran-order array. */
static size_t fortran_index(const npy_info *info, size_t i) {
  size_t idx = 0, stride = 1;
  size_t rest = i;
  size_t digits[NPY_MAX_NDIM];
  for (int d = info->ndim - 1; d >= 0; --d) {
    digits[d] = rest % info->shape[d];
    rest /= info->shape[d];
  }
  for (int d = 0; d < info->ndim; ++d) {
    idx += digits[d] * stride;
    stride *= info->shape[d];
  }
  return idx;
}

double npy_real_at(const npy_array *a, size_t i) {
  const size_t j = a->info.fortran_order ? fortran_index(&a->info, i) : i;
  return a->info.dtype == NPY_F8 ? ((const double *)a->data)[j]
                                 : (double)((const float *)a->data)[j];
}

int64_t npy_int_at(const npy_array *a, size_t i) {
  const size_t j = a->info.fortran_order ? fortran_index(&a->info, i) : i;
  return a->info.dtype == NPY_I8 ? ((const int64_t *)a->data)[j]
                                 : (int64_t)((const int32_t *)a->data)[j];
}

void *npy_real_copy(const npy_array *a, fricl_precision prec) {
  const size_t n = a->info.count;
  if (prec == FRICL_F64) {
    double *d = cli_alloc_array(n, sizeof *d);
    for (size_t i = 0; d && i < n; ++i)
      d[i] = npy_real_at(a, i);
    return d;
  }
  float *f = cli_alloc_array(n, sizeof *f);
  for (size_t i = 0; f && i < n; ++i)
    f[i] = a->info.dtype == NPY_F4 ? (float)npy_real_at(a, i)
                                   : cli_double_to_float(npy_real_at(a, i));
  return f;
}

int npy_read_vertex_ids(const npy_array *a, const char *tname, size_t k,
                        size_t n, const char *n_from, int32_t **ids, size_t *m,
                        char *msg, size_t msg_size) {
  char got[128];
  *ids = NULL;
  if (a->info.dtype != NPY_I4 && a->info.dtype != NPY_I8) {
    snprintf(msg, msg_size, "array '%s': dtype '%s' is not int32 or int64",
             tname, npy_dtype_descr(a->info.dtype));
    return 2;
  }
  if (a->info.ndim != 2 || a->info.shape[1] != k) {
    snprintf(msg, msg_size,
             "array '%s': expected shape (m, %zu) (vertex ids of %s "
             "contacts), got %s",
             tname, k, tname,
             npy_format_shape(got, sizeof got, a->info.ndim, a->info.shape));
    return 2;
  }
  *m = a->info.shape[0];
  if (!(*ids = cli_alloc_array(*m * k, sizeof **ids)))
    return 1;
  for (size_t i = 0; i < *m * k; ++i) {
    const int64_t v = npy_int_at(a, i);
    if (v < 0 || (uint64_t)v >= n) {
      snprintf(msg, msg_size,
               "array '%s': %s[%zu, %zu] = %" PRId64
               " is out of range [0, %zu) (%s has %zu vertices)",
               tname, tname, i / k, i % k, v, n, n_from, n);
      return 2;
    }
    (*ids)[i] = (int32_t)v;
  }
  return 0;
}
