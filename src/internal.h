/*
 * internal.h - what the library's translation units share: the context
 * structure, the error-message helper and the OpenCL program cache. Not
 * installed; the CLI, the benchmark and the tests may include it because
 * they link the static core.
 */
#ifndef FRICL_INTERNAL_H
#define FRICL_INTERNAL_H

#include "fricl/fricl_cl.h"

#include <math.h>
#include <stdarg.h>

#include "embedded_kernels.h"

/* " (in float32)" when a batch scalar changed on its way to the working
 * precision (f32 rounding, overflow to inf), for error messages; "" when
 * it did not, NaN included (NaN != NaN is not a conversion). */
static inline const char *fricl__f32_note(double given, double used) {
  return given != used && !(isnan(given) && isnan(used)) ? " (in float32)" : "";
}

#if defined(__GNUC__) || defined(__clang__)
#define FRICL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FRICL_PRINTF(f, a)
fricl_status fricl__scalar_enqueue_cl(fricl_context *ctx,
                                      const fricl_scalar_batch_cl *b,
                                      cl_uint num_wait, const cl_event *wait,
                                      cl_event *done);

#endif

/* One built kernel, keyed by the full program text's identity. */
typedef struct fricl__program_entry {
  struct fricl__program_entry *next;
  char *key; /* defines + source hashes + options */
  cl_program program;
  cl_kernel kernel;
  double build_ms; /* wall time of clBuildProgram for this entry */
} fricl__program_entry;

/* Staging buffer of the host tier on devices without unified memory;
 * grow-only, owned by the context. */
typedef struct fricl__staging {
  cl_mem mem;
  size_t bytes;
} fricl__staging;

#define FRICL__STAGING_SLOTS 20

struct fricl_context {
  fricl_backend backend;
  int fell_back;
  int has_fp64;
  uint32_t flags;
  size_t max_chunk_elements; /* user's cap, 0 = none */
  char device_name[256];
  char *build_options; /* fricl's + user's + FRICL_BUILD_OPTIONS */
  char *last_error;    /* heap, "" when none */

  /* OpenCL backend only. */
  cl_platform_id platform;
  cl_device_id device;
  cl_context cl_ctx;
  cl_command_queue queue;
  cl_ulong max_alloc_bytes;
  int host_unified; /* host tier may wrap user memory (zero copy) */
  fricl__program_entry *programs;
  fricl__staging staging[FRICL__STAGING_SLOTS];
};

/* Record a detailed message on ctx (if not NULL) and return status. */
fricl_status fricl__fail(fricl_context *ctx, fricl_status status,
                         const char *fmt, ...) FRICL_PRINTF(3, 4);
/* The same for an OpenCL error code: appends the code's name. */
fricl_status fricl__fail_cl(fricl_context *ctx, cl_int err, const char *what);
void fricl__clear_error(fricl_context *ctx);
const char *fricl__cl_error_name(cl_int err);

/* Largest element count one launch may cover: the device's max allocation
 * for one array of elem_bytes, capped by the user's max_chunk_elements. */
size_t fricl__chunk_elements(const fricl_context *ctx, size_t elem_bytes);

/*
 * Get (building and caching on first use) kernel `kernel_name` of embedded
 * file `file`, compiled with the `defines` text prepended and, before the
 * file, the embedded headers listed in `headers` (NULL-terminated).
 * *build_ms receives the build time of the entry (0 when cached) if not NULL.
 */
fricl_status fricl__kernel_get(fricl_context *ctx, const char *file,
                               const char *const *headers,
                               const char *kernel_name, const char *defines,
                               cl_kernel *kernel, double *build_ms);

/* Set the listed buffer arguments of a cached kernel back to NULL. Called
 * right after every enqueue (which captures the values): a cached kernel
 * must not hold handles of buffers that are released afterwards, because
 * some runtimes (PoCL) read the old value when an argument is set again. */
void fricl__kernel_unbind(cl_kernel k, const cl_uint *idx, int n);

/* How a host tier uses a wrapped host array. */
typedef enum {
  FRICL__HOST_IN,   /* read by the device */
  FRICL__HOST_OUT,  /* written by the device */
  FRICL__HOST_INOUT /* written, and read again (accumulated over chunks) */
} fricl__host_access;

/* A buffer over `bytes` of the caller's host array (NULL mem when ptr is
 * NULL or bytes 0): wrapped in place on unified-memory devices, a device
 * buffer elsewhere (inputs copied in). UNSUPPORTED beyond one allocation.
 * The caller releases it. */
fricl_status fricl__host_buffer(fricl_context *ctx, const void *ptr,
                                size_t bytes, fricl__host_access access,
                                cl_mem *mem);

/* Make the device's writes to `mem` visible at dst (blocking). */
/* Zero mem's first `bytes` (blocking). Scratch memory that one kernel
 * writes and another reads (the context's staging buffers) is zeroed when
 * it is created, so no kernel ever reads bytes nobody wrote. It also keeps
 * oclgrind 21.10 right about them: its shadow state of a released buffer
 * stays with the buffer index, and a new buffer that reuses the index
 * without a full host write inherits the old (smaller) shadow, which made
 * `fricl tangential --build` report uninitialized values
 * (tests/oclgrind/README.md). */
fricl_status fricl__zero_fill(fricl_context *ctx, cl_mem mem, size_t bytes);
fricl_status fricl__host_read_back(fricl_context *ctx, cl_mem mem, void *dst,
                                   size_t bytes);

/* Drop every cached program (the next request rebuilds). */
void fricl__program_cache_clear(fricl_context *ctx);

/* Elements of the chunk that starts at `off` (< n) when chunks hold at most
 * `chunk` elements. Written without n - off + chunk sums, so it cannot
 * overflow for any size_t n. */
static inline size_t fricl__chunk_len(size_t n, size_t off, size_t chunk) {
  return n - off < chunk ? n - off : chunk;
}

/* A grow-only context-owned buffer of at least `bytes`. */
fricl_status fricl__staging_get(fricl_context *ctx, int slot, size_t bytes,
                                cl_mem *mem);

const fricl__embedded_file *fricl__embedded_find(const char *name);

/* Precision helpers. */
static inline size_t fricl__elem_bytes(fricl_precision p) {
  return p == FRICL_F32 ? sizeof(float) : sizeof(double);
}

/* Scalar-family backends. They take a validated batch whose out[t] is
 * non-NULL exactly for the requested terms (fricl_scalar_eval normalises
 * the `terms` mask into that form) and that mask itself. */
fricl_status fricl__scalar_eval_ref(fricl_context *ctx,
                                    const fricl_scalar_batch *b, unsigned mask);
fricl_status fricl__scalar_eval_host_cl(fricl_context *ctx,
                                        const fricl_scalar_batch *b,
                                        unsigned mask);
fricl_status fricl__scalar_kernel(fricl_context *ctx, fricl_precision prec,
                                  fricl_mu_profile profile, unsigned mask,
                                  int eps_array, int mus_array, int muk_array,
                                  cl_kernel *kernel, double *build_ms);

fricl_status fricl__scalar_enqueue_cl(fricl_context *ctx,
                                      const fricl_scalar_batch_cl *b,
                                      cl_uint num_wait, const cl_event *wait,
                                      cl_event *done);

#endif
