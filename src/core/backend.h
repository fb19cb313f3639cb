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
#include "core/collisions.h"
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

/* ------------------------------------------- several devices' children */

/* One device as a combinator over several devices (src/multi) sees it. */
typedef struct fricl__child_info {
  const char *name;   /* the device's name (owned by the backend) */
  char label[32];     /* its explicit spec, e.g. "opencl:0:1" */
  int platform_index; /* -1 where it has none */
  int device_index;   /* -1 where it has none */
  double estimate;    /* relative speed before anything is measured */
  int is_cpu;         /* it shares the host's cores */
  int is_gpu;
  size_t programs;    /* kernel programs built so far */
  uint64_t moved_in;  /* bytes moved to the device so far */
  uint64_t moved_out; /* bytes moved from it */
} fricl__child_info;

/*
 * What a combinator over several devices asks of each device's backend
 * beyond its ops, to split one call's work items over the devices with
 * results bitwise those of one device. A backend whose ops have no child
 * table cannot be a device of a list.
 */
typedef struct fricl__child_ops {
  void (*info)(const fricl__backend *be, fricl__child_info *out);
  /* The friction laws over elements [lo, hi) of the batch only. */
  fricl_status (*laws_range)(fricl__backend *be, const fricl__laws_work *w,
                             size_t lo, size_t hi);
  /* The barrier's records (a fricl__barrier_source): open for a batch,
   * records of a chunk of a group, close (state may be NULL). */
  fricl_status (*barrier_open)(fricl__backend *be, const fricl_barrier_batch *b,
                               void **state);
  fricl_status (*barrier_records)(void *state, const fricl__barrier_work *w,
                                  size_t g, size_t lo, size_t n, void *rec);
  void (*barrier_close)(void *state);
  /*
   * The tangential potential in two phases per chunk of contacts [c0, c1)
   * (chunks of at most tan_chunk contacts, multiples of FRICL__POT_BLOCK):
   * tan_part runs the per-contact kernel over [lo, hi) on this device and
   * leaves the records (stride reals each, from `rec` at contact c0) and
   * one potential partial per block (from `part` at block 0 of the chunk)
   * in host memory, except the gathering device's own, which stay where
   * its tan_gather finds them; tan_gather, on the gathering device only,
   * adds every record and partial of the chunk into the outputs in contact
   * order ([c0, s1) being its own). tan_open sets a device up for a call
   * (*state is set also on failure, for tan_close); tan_close reads the
   * outputs back on the gathering device when st is OK and releases
   * everything.
   */
  size_t (*tan_chunk)(fricl__backend *be, const fricl_tangential_batch *b,
                      size_t total);
  fricl_status (*tan_open)(fricl__backend *be, const fricl__tangential_work *w,
                           int gather, void **state);
  fricl_status (*tan_part)(void *state, size_t c0, size_t c1, size_t lo,
                           size_t hi, int gather, void *rec, void *part);
  fricl_status (*tan_gather)(void *state, size_t c0, size_t c1, size_t s1,
                             void *rec, void *part);
  fricl_status (*tan_close)(void *state, const fricl_tangential_batch *b,
                            int gather, fricl_status st);
} fricl__child_ops;

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
  /* Splitting a call over several devices (above); NULL: this backend is
   * not a device a list can name. */
  const fricl__child_ops *child;
  /* The collision build's narrow phase (core/collisions.h), the same bits
   * as the host's; NULL: the build classifies on the host threads. */
  fricl_status (*collisions_narrow)(fricl__backend *be,
                                    const fricl__narrow_work *w);
} fricl__backend_ops;

/* The common head of every backend's state. */
struct fricl__backend {
  const fricl__backend_ops *ops;
  fricl_context *ctx; /* for error messages and the thread pool */
  int has_fp64;
  uint64_t max_alloc_bytes; /* largest single allocation, 0: unlimited */
  /* A combinator's first device, which device-level queries and the
   * cl_mem tier address; NULL for a backend on one device. */
  fricl__backend *primary;
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
  /* "all-gpu": the explicit specs of this backend's GPUs (at most cap of
   * them), their count returned; NULL: it has none to offer. */
  size_t (*gpu_specs)(char (*specs)[32], size_t cap);
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

/* The end of a validated host-tier entry point: the backend fricl__dispatch
 * picks for `feature` and `total` elements runs its operation `op` on
 * `work`, and the enclosing function returns its status (fricl__ran_on). */
#define FRICL__DISPATCH_RUN(ctx, feature, total, precision, op, work)          \
  do {                                                                         \
    fricl__backend *be_ = NULL;                                                \
    FRICL__TRY(fricl__dispatch(ctx, feature, total, precision, &be_));         \
    return fricl__ran_on(ctx, be_, be_->ops->op(be_, work));                   \
  } while (0)

#endif
