/* reference.c - the reference backend: portable C on the calling thread,
 * every batch whole, in the simplest loops. It is the oracle side of the
 * tests that compare backends bitwise, so it stays simple; the host
 * backend (host.c) is the fast one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/tangential.h"
#include "host/host_backend.h"
#include "host/host_isa.h"

static fricl_status ref_scalar(fricl__backend *be,
                               const fricl__scalar_work *w) {
  (void)be;
  fricl__scalar_range(w->b, w->mask, 0, w->b->n);
  return FRICL_STATUS_OK;
}

static fricl_status ref_tangential(fricl__backend *be,
                                   const fricl__tangential_work *w) {
  /* The BSR values are summed through the plan's block lists. */
  const fricl_status st =
      w->b->hessian_values ? fricl__plan_blocks(w->plan) : FRICL_STATUS_OK;
  if (st != FRICL_STATUS_OK)
    return st;
  return fricl__tangential_ref(be->ctx, w->b, w->plan, w->need_hess);
}

static fricl_status ref_build(fricl__backend *be, const fricl__build_work *w) {
  (void)be;
  for (size_t g = 0; g < w->b->n_groups; ++g)
    fricl__build_range(w->b, w->status, g, 0, w->b->groups[g].count);
  return FRICL_STATUS_OK;
}

static fricl_status ref_laws(fricl__backend *be, const fricl__laws_work *w) {
  (void)be;
  fricl__laws_range(w->pl, w->b, 0, w->pl->n);
  return FRICL_STATUS_OK;
}

static fricl_status ref_barrier(fricl__backend *be,
                                const fricl__barrier_work *w) {
  return fricl__barrier_host(be->ctx, w, 0, NULL);
}

static void ref_destroy(fricl__backend *be) { free(be); }

static const fricl__backend_ops reference_ops = {.name = "reference",
                                                 .kind =
                                                     FRICL_BACKEND_REFERENCE,
                                                 .scalar = ref_scalar,
                                                 .tangential = ref_tangential,
                                                 .build = ref_build,
                                                 .laws = ref_laws,
                                                 .barrier = ref_barrier,
                                                 .destroy = ref_destroy};

static fricl_status reference_create(fricl_context *ctx, const char *spec,
                                     int *found, fricl__backend **out) {
  (void)spec;
  fricl__backend *be = fricl__calloc(1, sizeof *be);
  if (!be)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  be->ops = &reference_ops;
  be->ctx = ctx;
  be->has_fp64 = 1;
  snprintf(ctx->device_name, sizeof ctx->device_name, "reference (portable C)");
  *found = 1;
  *out = be;
  return FRICL_STATUS_OK;
}

static int reference_accepts(const char *spec) {
  return strcmp(spec, "reference") == 0;
}

/* The reference is the simple, single-threaded oracle side of the tests:
 * one thread everywhere (validation and plans too) unless the caller asks
 * for more. */
const fricl__backend_entry fricl__reference_backend = {
    .name = "reference",
    .mode = FRICL__MODE_REFERENCE,
    .threads = 1,
    .accepts = reference_accepts,
    .create = reference_create};
