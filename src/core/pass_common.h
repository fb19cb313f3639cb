/* pass_common.h - what the host passes over contact records share (the
 * barrier's, core/barrier_pass.c, and the force's, core/force_pass.c):
 * the inlining that lets the stencil and dimension fold, and the lookup of
 * a pair's block in a plan. */
#ifndef FRICL_CORE_PASS_COMMON_H
#define FRICL_CORE_PASS_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "core/tangential.h"

/* The loop body is inlined into each specialised caller, and with it the
 * math (flatten), so that constant stencil and dimension fold away. */
#if defined(__GNUC__) || defined(__clang__)
#define FRICL_HOST_INLINE __attribute__((always_inline)) inline
#define FRICL_FLATTEN __attribute__((flatten))
#else
#define FRICL_HOST_INLINE inline
#define FRICL_FLATTEN
#endif

/* The BSR block (row vi, column vj) of the plan: binary search, without
 * branches on the data (the last column at most vj; the row holds vj). */
static FRICL_HOST_INLINE size_t
fricl__plan_block(const fricl_tangential_plan *p, int32_t vi, int32_t vj) {
  int64_t lo = p->row_ptr[vi], len = p->row_ptr[vi + 1] - lo;
  while (len > 1) {
    const int64_t half = len / 2;
    lo = p->cols[lo + half] <= vj ? lo + half : lo;
    len -= half;
  }
  return (size_t)lo;
}

#endif
