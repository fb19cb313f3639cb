/*
 * backend.h - the backend interface: a table of operations per backend,
 * behind which each backend keeps its own state, and the backend-neutral
 * descriptions of work that the public entry points hand to it.
 *
 * The API layer (src/api) validates every call completely, then builds one
 * of the work descriptions below and asks the dispatcher (core/dispatch.c)
 * for a backend. A backend never validates user input again and never sees
 * which public entry point called it. Adding a backend is one directory
 * that fills a fricl__backend_ops; adding a feature is one operation here
 * plus its implementation in each backend.
 */
#ifndef FRICL_CORE_BACKEND_H
#define FRICL_CORE_BACKEND_H

#include "core/barrier.h"
#include "core/force.h"
#include "core/internal.h"
#include "core/laws_internal.h"
#include "core/tangential.h"

/* ------------------------------------------------------ work descriptions */

/* The scalar family: a validated batch whose out[t] is non-NULL exactly for
 * the requested terms (the `terms` mask normalised into that form), and
 * that mask. n > 0. */
typedef struct fricl__scalar_work {
  const fricl_scalar_batch *b;
  unsigned mask;
} fricl__scalar_work;

/* The tangential potential: a validated batch, its plan (the caller's, or
 * NULL: then a backend that gathers takes the topology lists from
 * fricl__plan_lookup), whether a Hessian is needed at all, and the contact
 * total. */
typedef struct fricl__tangential_work {
  const fricl_tangential_batch *b;
  fricl_tangential_plan *plan;
  int need_hess;
  size_t total;
} fricl__tangential_work;

/* The lagged build: a validated batch; status[g] receives group g's
 * per-contact codes (the caller's array or scratch; NULL when nobody reads
 * them). The API layer counts them afterwards. */
typedef struct fricl__build_work {
  const fricl_build_batch *b;
  uint8_t *const *status;
  size_t total;
} fricl__build_work;

/* The friction laws: a validated host batch and its plan (n > 0). */
typedef struct fricl__laws_work {
  const fricl__law_plan *pl;
  const fricl_law_batch *b;
} fricl__laws_work;

/* Ahead-of-time preparation (kernel builds): the scalar family's term mask
 * and parameter arrays, or a law plan. */
typedef struct fricl__prepare_work {
  fricl__feature feature;
  /* FRICL__FEATURE_SCALAR */
  fricl_precision precision;
  fricl_mu_profile profile;
  unsigned mask;
  int eps_array, mus_array, muk_array;
  /* FRICL__FEATURE_LAWS */
  const fricl__law_plan *law;
} fricl__prepare_work;

/* ------------------------------------------------------- the ops table */

typedef struct fricl__backend_ops {
  const char *name;
  fricl_backend kind;
  fricl_status (*scalar)(fricl__backend *be, const fricl__scalar_work *w);
  fricl_status (*tangential)(fricl__backend *be,
                             const fricl__tangential_work *w);
  fricl_status (*build)(fricl__backend *be, const fricl__build_work *w);
  fricl_status (*laws)(fricl__backend *be, const fricl__laws_work *w);
  /* The normal-contact barrier (core/barrier.h): every backend adds the
   * per-contact records into the global outputs in contact order. */
  fricl_status (*barrier)(fricl__backend *be, const fricl__barrier_work *w);
  /* Build what a later call will need; NULL: nothing to prepare. */
  fricl_status (*prepare)(fricl__backend *be, const fricl__prepare_work *w);
  void (*destroy)(fricl__backend *be);
  /* The friction force (core/force.h), records added on the host in
   * contact order; NULL: the host pass on the context's threads. */
  fricl_status (*force)(fricl__backend *be, const fricl__force_work *w);
} fricl__backend_ops;

/* The common head of every backend's state. */
struct fricl__backend {
  const fricl__backend_ops *ops;
  fricl_context *ctx; /* for error messages and the thread pool */
  int has_fp64;
  uint64_t max_alloc_bytes; /* largest single allocation, 0: unlimited */
};

/* ------------------------------------------------------------ registry */

/*
 * One backend as core sees it. Core knows no backend by name: the layer
 * that creates a context (src/api) hands it the list of entries, each
 * backend defines its own, and core picks from the list by spec. A new
 * backend is one more entry, with no change here or in the dispatcher.
 */
struct fricl__backend_entry {
  const char *name;
  /* The context mode it gives: REFERENCE or HOST fill ctx->host (the HOST
   * entry is also the host side of "auto"), OPENCL fills ctx->dev. */
  fricl__mode mode;
  /* Default host threads of a context on it (0: FRICL_THREADS, else every
   * core). */
  unsigned threads;
  /* 1 when the entry takes this spec (never called with "auto"). */
  int (*accepts)(const char *spec);
  /* The backend on the device `spec` names; writes the device's name into
   * ctx->device_name. *found = 0 (and OK) when "auto" finds no device. */
  fricl_status (*create)(fricl_context *ctx, const char *spec, int *found,
                         fricl__backend **out);
  /* Whether be (one it created) is a GPU: "auto" then switches to it from
   * crossover[] on; NULL: never. */
  int (*is_gpu)(const fricl__backend *be);
  /* Default crossovers of "auto" per feature on a GPU, in work items;
   * NULL: "auto" never opens this backend. */
  const size_t *crossover;
  /* The device's name, for "auto"'s description. */
  const char *(*device_name)(const fricl__backend *be);
};

/*
 * A child backend for a combinator over several devices: the backend that
 * the context's registry (ctx->backends) gives for the explicit `spec`,
 * created by the first entry that accepts it. It serves ctx, as the
 * combinator does (its options; its messages, unless the caller has entered
 * an error sink, core/error_sink.h), and the combinator destroys it through
 * its ops. No context is created for it.
 */
fricl_status fricl__backend_child(fricl_context *ctx, const char *spec,
                                  fricl__backend **out);

/* ------------------------------------------------------------ dispatch */

/*
 * The backend for one call of `feature` with `work` work items in
 * `precision`: the context's only backend for explicit specs; for "auto"
 * the host backend below the crossover (or when the device lacks fp64 for
 * an f64 call), else the OpenCL device, initialised on first use. Fails
 * with NO_FP64 when the chosen backend cannot run f64 (or the context
 * forbids it), with the message naming the device.
 */
fricl_status fricl__dispatch(fricl_context *ctx, fricl__feature feature,
                             size_t work, fricl_precision precision,
                             fricl__backend **out);

/* "auto": look the OpenCL device up now if no call has (queries such as
 * fricl_context_backend need it). A no-op for other modes. */
void fricl__resolve_device(fricl_context *ctx);

/* The precision check alone (every API entry runs it during validation,
 * before anything else that could fail later). */
fricl_status fricl__check_precision_supported(fricl_context *ctx,
                                              fricl_precision precision);

/* The status of a call that ran on `be`: a success is recorded as the
 * context's last backend. @return st. */
static inline fricl_status
fricl__ran_on(fricl_context *ctx, const fricl__backend *be, fricl_status st) {
  if (st == FRICL_STATUS_OK)
    ctx->last_backend = be->ops->kind;
  return st;
}

#endif
