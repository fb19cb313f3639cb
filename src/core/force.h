/*
 * force.h - what the friction force's layers share: the validated work of
 * one call and the host pass that runs it (src/core/force_pass.c).
 */
#ifndef FRICL_CORE_FORCE_H
#define FRICL_CORE_FORCE_H

#include "core/internal.h"
#include "core/tangential.h"
#include "fricl/fricl_force.h"

/* A validated batch: its plan (NULL when jacobian_values is not asked
 * for), want = 1 when a Jacobian is needed (global or local), the total
 * contact count. */
typedef struct fricl__force_work {
  const fricl_force_batch *b;
  const fricl_tangential_plan *plan;
  int want_jac;
  size_t total;
  /* Set by fricl__force_host: the plan's BSR block of every contact's
   * k x k vertex pairs (16 per contact, contacts of all groups in order),
   * kept on the plan across calls; NULL: found per chunk. */
  const size_t *blocks;
  /* A plan of this topology whose vertex lists the force's assembly may
   * use (the caller's, checked by validation), or NULL: the context's
   * cached lists (fricl__plan_lookup). */
  const fricl_tangential_plan *vplan;
} fricl__force_work;

/* Where the per-contact records of a chunk come from when not from the
 * host threads: records(state, w, g, lo, n, rec) fills n records (N,
 * force 12, Jacobian 144 reals each) of group g's contacts lo.. */
typedef struct fricl__force_source {
  fricl_status (*records)(void *state, const fricl__force_work *w, size_t g,
                          size_t lo, size_t n, void *rec);
  void *state;
} fricl__force_source;

/* A copy of batch b (vertex_layout columns) in rows: *out as b with its
 * vertex arrays copied, transposed, into *scratch (released by the caller
 * with free), on the context's threads. */
fricl_status fricl__force_rows(fricl_context *ctx, const fricl_force_batch *b,
                               fricl_force_batch *out, void **scratch);

/* Evaluate: per-contact records in chunks from src (NULL: the context's
 * host threads; threaded = 0: the calling thread only), added into the
 * global outputs in contact order on the host, so that the result never
 * depends on the thread count or the device. */
fricl_status fricl__force_host(fricl_context *ctx, const fricl__force_work *w,
                               int threaded, const fricl__force_source *src);

#endif
