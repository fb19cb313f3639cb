/* npz_input.h - converting .npz members to the arrays the library takes,
 * shared by `fricl tangential` and `fricl build`: element access in either
 * memory order, working-precision copies, overflow-checked sizes. */
#ifndef FRICL_CLI_NPZ_INPUT_H
#define FRICL_CLI_NPZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "fricl/fricl.h"
#include "npy.h"
#include "npz.h"

/* a * b * c without overflow; SIZE_MAX when it would. */
size_t cli_mul3(size_t a, size_t b, size_t c);

/* A zeroed array of n elements (at least one byte), NULL on overflow or
 * when out of memory. */
void *cli_alloc_array(size_t n, size_t size);

/* double -> float rounded to nearest without C's undefined behaviour out
 * of range: beyond the midpoint to 2^128, +-inf. */
float cli_double_to_float(double v);

/* 1 when the dtype is float64 or float32. */
int npy_is_real(npy_dtype d);

/* Element i (C order) of a real / integer (int32 or int64) array. */
double npy_real_at(const npy_array *a, size_t i);
int64_t npy_int_at(const npy_array *a, size_t i);

/* A C-order copy of a real array in the working precision (malloc'd, at
 * least 1 byte), NULL when out of memory. */
void *npy_real_copy(const npy_array *a, fricl_precision prec);

/* The (m, k) vertex ids of stencil type `tname` in `a` (int32 or int64),
 * converted to int32 with every id checked against [0, n); `n_from` names
 * the array n comes from, for the message. *ids is malloc'd.
 * @return 0; 2 (bad input) with msg set; 1 out of memory. */
int npy_read_vertex_ids(const npy_array *a, const char *tname, size_t k,
                        size_t n, const char *n_from, int32_t **ids, size_t *m,
                        char *msg, size_t msg_size);

#endif
