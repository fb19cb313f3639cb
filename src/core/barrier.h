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

/* Evaluate on the context's host threads (threaded = 0: the calling thread
 * only). Per-contact values are computed in chunks (in parallel) and added
 * into the global outputs in contact order, so the result never depends on
 * the thread count. */
fricl_status fricl__barrier_host(fricl_context *ctx,
                                 const fricl__barrier_work *w, int threaded);

#endif
