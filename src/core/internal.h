/*
 * internal.h - the core every layer shares: the context structure, the
 * error-message helpers and small precision helpers. No OpenCL types: the
 * OpenCL backend keeps its own state behind the backend table
 * (core/backend.h). Not installed; the CLI, the benchmark and the tests may
 * include it because they link the static core.
 */
#ifndef FRICL_CORE_INTERNAL_H
#define FRICL_CORE_INTERNAL_H

#include "fricl/fricl.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define FRICL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FRICL_PRINTF(f, a)
#endif

typedef struct fricl__backend fricl__backend;
typedef struct fricl__pool fricl__pool;
typedef struct fricl__plan_cache fricl__plan_cache;
typedef struct fricl__backend_entry fricl__backend_entry;

/* What a context's device spec asked for. */
typedef enum fricl__mode {
  FRICL__MODE_REFERENCE = 0, /* "reference" */
  FRICL__MODE_HOST = 1,      /* "host" */
  FRICL__MODE_OPENCL = 2,    /* a device backend: "gpu", "cpu",
                                "opencl:P:D", adopted queues */
  FRICL__MODE_AUTO = 3       /* "auto": host or OpenCL per call, by cost */
} fricl__mode;

/* The features, for per-feature tables (crossovers, statistics). */
/* The public list (FRICL_FEATURE_MAP), so that the two cannot differ. */
typedef enum fricl__feature {
#define FRICL__FEATURE_ENUM_(name, value, text) FRICL__FEATURE_##name = value,
  FRICL_FEATURE_MAP(FRICL__FEATURE_ENUM_)
#undef FRICL__FEATURE_ENUM_
      FRICL__FEATURE_COUNT = FRICL_TABLE_COUNT(FRICL_FEATURE_MAP)
} fricl__feature;

/* The features that keep scratch on the context: the broad phase and the
 * collision build (core/collisions.h), the friction force (core/force.h). */
enum {
  FRICL__SCRATCH_BROAD,
  FRICL__SCRATCH_COLLISIONS,
  FRICL__SCRATCH_FORCE,
  FRICL__SCRATCH_N
};

struct fricl_context {
  fricl__mode mode;
  uint32_t flags;
  size_t max_chunk_elements; /* user's cap, 0 = none */
  unsigned threads;          /* host threads (>= 1) */
  size_t crossover;          /* auto: the user's override, 0 = default */
  char *device_spec;         /* auto: the spec resolved lazily (heap) */
  char *build_options;       /* the caller's extra OpenCL options (heap) */
  char *last_error;          /* heap, "" when none */
  char device_name[320];

  fricl__pool *pool;    /* host threads: host backend, plans, validation */
  fricl__backend *host; /* reference or host backend; NULL in OPENCL mode */
  fricl__backend *dev;  /* OpenCL backend: OPENCL mode, or auto once used */
  int dev_resolved;     /* auto: the device lookup has been done */
  /* The backends this context may open (core/backend.h), supplied by the
   * layer that creates it, and the entry that opened dev (NULL: none or
   * adopted). */
  const fricl__backend_entry *const *backends;
  size_t n_backends;
  const fricl__backend_entry *dev_entry;
  fricl__plan_cache *plan_cache; /* topology lists of plan-less calls */
  fricl_backend last_backend;
  /* Testing knob: FRICL_HOST_GRAIN=n at creation makes every host-side
   * parallel loop split work from n items on (0: fricl's thresholds), so
   * that small test problems exercise the multi-threaded paths. */
  size_t host_grain;
  /* Scratch that a feature keeps between its calls (calls on a context
   * are serialised), released with the context by its `free`. */
  struct fricl__scratch {
    void *p;
    void (*free)(void *p);
  } scratch[FRICL__SCRATCH_N];
};

/* The grain of a host-side parallel loop: the testing override or `dflt`. */
static inline size_t fricl__grain(const struct fricl_context *ctx,
                                  size_t dflt) {
  return ctx->host_grain ? ctx->host_grain : dflt;
}

/* A context with its host threads and options, no backend yet (the
 * creation functions add them). */
fricl_status fricl__context_alloc(fricl_context **out,
                                  const fricl_context_params *p,
                                  unsigned default_threads);
/* A context on the backend the device spec (params->device, else
 * FRICL_DEVICE, else "auto") names, chosen from `backends` (n of them):
 * the first entry that accepts the spec; for "auto", the host entry and,
 * when a call first needs it, the first entry with crossovers. Errors go to
 * params->error_buffer. params is checked by the caller. */
fricl_status fricl__context_open(fricl_context **out,
                                 const fricl_context_params *params,
                                 const fricl__backend_entry *const *backends,
                                 size_t n);
/* Release a context and its backends (NULL: nothing). */
void fricl__context_destroy(fricl_context *ctx);
/* Write msg to params->error_buffer, if the caller gave one. */
void fricl__context_report(const fricl_context_params *p, const char *msg);
/* The start of a context's creation: `out` given (*out = NULL), and the
 * caller's params (perhaps of an older, smaller layout; NULL: the
 * defaults) as a full-size struct in *in, the other fields as
 * fricl_context_params_init sets them. INVALID_ARGUMENT for a NULL out or
 * a struct_size abi.h rejects, reported to the caller's error buffer when
 * its struct holds one. */
fricl_status fricl__context_params_in(fricl_context **out,
                                      const fricl_context_params *params,
                                      fricl_context_params *in);

/* Record a detailed message on ctx (if not NULL) and return status. */
/* Error forwarding, so that a check reads as one line and every failure
 * leaves the same way. FRICL__TRY(expr): return expr's status unless it is
 * OK. FRICL__FAIL_IF(cond, ctx, status, fmt, ...): when cond holds, record
 * the message on ctx and return status (fricl__fail). */
/* The start of an entry point: ctx given (else INVALID_ARGUMENT, nothing
 * recorded), its last error cleared, and `arg` given (else INVALID_ARGUMENT
 * with the message `null_msg`). */
fricl_status fricl__enter(fricl_context *ctx, const void *arg,
                          const char *null_msg);

#define FRICL__TRY(expr)                                                       \
  do {                                                                         \
    const fricl_status fricl__try_st_ = (expr);                                \
    if (fricl__try_st_ != FRICL_STATUS_OK)                                     \
      return fricl__try_st_;                                                   \
  } while (0)
#define FRICL__FAIL_IF(cond, ctx, status, ...)                                 \
  do {                                                                         \
    if (cond)                                                                  \
      return fricl__fail((ctx), (status), __VA_ARGS__);                        \
  } while (0)

fricl_status fricl__fail(fricl_context *ctx, fricl_status status,
                         const char *fmt, ...) FRICL_PRINTF(3, 4);
void fricl__clear_error(fricl_context *ctx);

/* Elements of the chunk that starts at `off` (< n) when chunks hold at most
 * `chunk` elements. Written without n - off + chunk sums, so it cannot
 * overflow for any size_t n. */
static inline size_t fricl__chunk_len(size_t n, size_t off, size_t chunk) {
  return n - off < chunk ? n - off : chunk;
}

/* The contacts [*lo, *hi) of a group of n contacts that lie in the chunk
 * [c0, c1) of all contacts, gbase being the group's first contact among
 * all (the groups in order). @return 0 when there are none. */
static inline int fricl__chunk_slice(size_t c0, size_t c1, size_t gbase,
                                     size_t n, size_t *lo, size_t *hi) {
  *lo = c0 > gbase ? c0 - gbase : 0;
  *hi = c1 - gbase < n ? c1 - gbase : n;
  return c1 > gbase && *lo < n && *lo < *hi;
}

/* Largest element count one chunk may cover on a backend whose largest
 * single allocation is max_alloc_bytes (0: unlimited), capped by the
 * user's max_chunk_elements. */
size_t fricl__chunk_elements_for(const fricl_context *ctx,
                                 uint64_t max_alloc_bytes, size_t elem_bytes);

/* A stencil's vertex count k and closest-point coordinate count (0 for
 * an unknown stencil), and 1 for stencils that exist only in 3-D
 * (FRICL_STENCIL_MAP; core/stencils.c). The public fricl_stencil_*_count
 * are these; core and the backends call these, below the API. */
int fricl__stencil_vertex_count(fricl_stencil type);
int fricl__stencil_coord_count(fricl_stencil type);
int fricl__stencil_only_3d(fricl_stencil type);

static inline size_t fricl__elem_bytes(fricl_precision p) {
  return p == FRICL_F32 ? sizeof(float) : sizeof(double);
}

#endif
