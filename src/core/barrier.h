/*
 * barrier.h - what the barrier's layers share: the validated work of one
 * call and the host implementation every backend runs it on.
 */
#ifndef FRICL_CORE_BARRIER_H
#define FRICL_CORE_BARRIER_H

#include "core/internal.h"
#include "core/tangential.h"
#include "fricl/fricl_barrier.h"

/* A validated batch: its plan (NULL when hessian_values is not asked for),
 * want = 0 value, 1 gradient, 2 Hessian (the most any output needs), and
 * the contact total. */
typedef struct fricl__barrier_work {
  const fricl_barrier_batch *b;
  const fricl_tangential_plan *plan;
  int want;
  size_t total;
} fricl__barrier_work;

/* Where the per-contact records of a chunk come from when not from the
 * host threads: records(state, w, g, lo, n, rec) fills n records (B,
 * gradient 12, Hessian 144 reals each) of group g's contacts lo.. */
typedef struct fricl__barrier_source {
  fricl_status (*records)(void *state, const fricl__barrier_work *w, size_t g,
                          size_t lo, size_t n, void *rec);
  void *state;
} fricl__barrier_source;

/* Evaluate: per-contact records in chunks, from src (NULL: the context's
 * host threads; threaded = 0: the calling thread only), added into the
 * global outputs in contact order on the calling thread, so the result
 * never depends on the thread count. */
fricl_status fricl__barrier_host(fricl_context *ctx,
                                 const fricl__barrier_work *w, int threaded,
                                 const fricl__barrier_source *src);

/* Whether the batch asks for what only the host pass computes: the shape
 * terms or any extra output (0.4). The adhesion function is the kernels'
 * too. */
static inline int fricl__barrier_host_only(const fricl_barrier_batch *b) {
  if ((b->flags & FRICL_BARRIER_FLAG_SHAPE) || b->gauss_newton_diagonal ||
      b->gauss_newton_quadratic_form)
    return 1;
  for (size_t g = 0; b->extras && g < b->n_groups; ++g)
    if (b->extras[g].force_magnitude || b->extras[g].force_magnitude_gradient ||
        b->extras[g].gauss_newton_diagonal ||
        b->extras[g].gauss_newton_quadratic_form ||
        b->extras[g].shape_derivative)
      return 1;
  return 0;
}

/* The batch parameters both tiers check (src/api/barrier.c): precision,
 * psd, flags, dhat, kappa, dmin; the message names the field. */
fricl_status fricl__barrier_check_params(fricl_context *ctx,
                                         fricl_precision precision,
                                         fricl_psd psd, uint32_t flags,
                                         double dhat, double kappa,
                                         double dmin);

#endif
