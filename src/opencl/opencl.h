/*
 * opencl.h - the OpenCL backend: its state (device, queue, program cache,
 * grow-only staging buffers), its creation, the cl_mem tier's enqueue entry
 * points, and the helpers its per-feature files share. Only src/opencl,
 * the cl_mem API files, the benchmark and the tests include it.
 */
#ifndef FRICL_OPENCL_H
#define FRICL_OPENCL_H

#include "fricl/fricl_barrier_cl.h"
#include "fricl/fricl_build_cl.h"
#include "fricl/fricl_cl.h"

#include "core/backend.h"
#include "opencl/cl_fault.h"
#include "opencl/embedded_kernels.h"

/* One built kernel, keyed by the full program text's identity. */
typedef struct fricl__program_entry {
  struct fricl__program_entry *next;
  char *key; /* defines + source hashes + options */
  cl_program program;
  cl_kernel kernel;
  size_t local_size; /* its work-group size in fricl__ocl_launch */
  double build_ms;   /* wall time of clBuildProgram for this entry */
} fricl__program_entry;

/* A grow-only device buffer owned by the backend. */
typedef struct fricl__staging {
  cl_mem mem;
  size_t bytes;
} fricl__staging;

/* Staging slots: each feature owns a range, so that alternating features
 * (a Newton loop: build, then evaluate) do not regrow each other's. */
enum {
  FRICL__SLOT_SCALAR = 0,      /* 16: y, eps, mu_s, mu_k, 12 outputs; laws */
  FRICL__SLOT_TANGENTIAL = 16, /* 4 scratch + 5 global + 13 group fields */
  FRICL__SLOT_BUILD = 38,      /* 4 vertex arrays + 15 group fields */
  FRICL__SLOT_MULTI = 57,      /* 1: other devices' records (multi.c) */
  FRICL__SLOT_BARRIER = 58,    /* 2: cl_mem tier records, partials */
  FRICL__STAGING_SLOTS = 60
};

typedef struct fricl__ocl {
  fricl__backend base;
  cl_platform_id platform;
  cl_device_id device;
  cl_context cl_ctx;
  cl_command_queue queue;
  cl_ulong max_alloc_bytes;
  int is_gpu;
  /* As in "opencl:P:D"; -1 for a device adopted from the caller. */
  int platform_index, device_index;
  /* Host-tier arrays may be wrapped in place (CL_MEM_USE_HOST_PTR: no
   * device allocation, no copy) because the device reads host memory;
   * elsewhere they go through the staging buffers. */
  int host_unified;
  char *build_options; /* fricl's + the caller's + FRICL_BUILD_OPTIONS */
  char name[256];
  /* Bytes moved between host memory and this device by the host tiers
   * (inputs in, results out; arrays wrapped in place on unified memory
   * count as moved, as a discrete device would copy them) and by plan
   * uploads; the cl_mem tier moves nothing. fricl_context_transfers. */
  uint64_t moved_in, moved_out;
  fricl__program_entry *programs;
  fricl__staging staging[FRICL__STAGING_SLOTS];
} fricl__ocl;

/* The backend on the device a spec names ("gpu", "cpu", "opencl:P:D" or
 * "auto": first GPU, else first CPU). *found = 0 (and OK) when "auto"
 * finds no device. Errors name the spec in ctx's message. */
fricl_status fricl__ocl_create(fricl_context *ctx, const char *spec, int *found,
                               fricl__backend **out);
/* Its registry entry (src/api/backends.c lists it). */
extern const fricl__backend_entry fricl__opencl_backend;
/* The backend on a caller's context/device/queue (retained). */
fricl_status fricl__ocl_adopt(fricl_context *ctx, cl_context cl_ctx,
                              cl_device_id device, cl_command_queue queue,
                              fricl__backend **out);

/* The context's OpenCL backend for a cl_mem entry point (`entry` names it
 * in the message): resolves "auto"'s device; UNSUPPORTED when the context
 * has none. */
fricl_status fricl__ocl_of(fricl_context *ctx, const char *entry,
                           fricl__ocl **out);

/* NO_FP64 for an f64 call on a device without double precision (and, with
 * `context_flag`, on a context created with FRICL_CONTEXT_FLAG_NO_FP64, as
 * the build and the barrier honour it). */
fricl_status fricl__ocl_check_fp64(fricl_context *ctx, const fricl__ocl *o,
                                   fricl_precision p, int context_flag);

/* fricl__ocl_of, then the event wait list every cl_mem entry point takes
 * (num_wait > 0 needs a wait_list): the common head of those entries. */
fricl_status fricl__ocl_entry(fricl_context *ctx, const char *entry,
                              cl_uint num_wait, const cl_event *wait_list,
                              fricl__ocl **out);

/* The head of a cl_mem entry point that takes a batch: ctx and `batch` not
 * NULL, the context's OpenCL backend in a local `o` (fricl__ocl_entry, the
 * entry named by __func__), then FRICL__STRUCT_IN into a local `in`. */
#define FRICL__ENTER_BATCH_CL(ctx, type, batch, min, num_wait, wait_list)      \
  FRICL__TRY(fricl__enter(ctx, batch, "ctx and batch must not be NULL"));      \
  fricl__ocl *o = NULL;                                                        \
  FRICL__TRY(fricl__ocl_entry(ctx, __func__, num_wait, wait_list, &o));        \
  FRICL__STRUCT_IN(ctx, type, batch, in, min)

/* ---------------------------------------------------------- cl_mem tier */

fricl_status fricl__ocl_scalar_enqueue(fricl__ocl *o,
                                       const fricl_scalar_batch_cl *b,
                                       cl_uint num_wait, const cl_event *wait,
                                       cl_event *done);
fricl_status fricl__ocl_tangential_enqueue(fricl__ocl *o,
                                           const fricl_tangential_batch_cl *b,
                                           fricl_tangential_plan *plan,
                                           int need_hess, cl_uint num_wait,
                                           const cl_event *wait,
                                           cl_event *done);
fricl_status fricl__ocl_laws_enqueue(fricl__ocl *o, const fricl__law_plan *pl,
                                     const fricl_law_batch_cl *b,
                                     cl_uint num_wait, const cl_event *wait,
                                     cl_event *done);
fricl_status fricl__ocl_build_enqueue(fricl__ocl *o,
                                      const fricl_build_batch_cl *b,
                                      cl_uint num_wait, const cl_event *wait,
                                      cl_event *done);
fricl_status fricl__ocl_barrier_enqueue(fricl__ocl *o,
                                        const fricl_barrier_batch_cl *b,
                                        int want, cl_uint num_wait,
                                        const cl_event *wait, cl_event *done);
/* A marker that completes after the wait list (n = 0 calls honour the
 * event contract with it). */
fricl_status fricl__ocl_marker(fricl__ocl *o, cl_uint num_wait,
                               const cl_event *wait, cl_event *done);

/* ------------------------------------------------------------- helpers */

fricl_status fricl__fail_cl(fricl_context *ctx, cl_int err, const char *what);
const char *fricl__cl_error_name(cl_int err);

/*
 * Get (building and caching on first use) kernel `kernel_name` of embedded
 * file `file`, compiled with the `defines` text prepended and, before the
 * file, the embedded headers listed in `headers` (NULL-terminated; the
 * tables header <fricl/fricl_tables.h> always comes first).
 * *build_ms receives the build time of the entry (0 when cached) if not NULL.
 */
fricl_status fricl__ocl_kernel(fricl__ocl *o, const char *file,
                               const char *const *headers,
                               const char *kernel_name, const char *defines,
                               cl_kernel *kernel, double *build_ms);

/* Enqueue kernel k (1-D, arguments set) over work items 0 .. n-1 on o's
 * queue, after the wait list, signalling done when not NULL: every launch
 * of the library goes through here (src/opencl/launch.c). The work-group
 * size is k's own (chosen when it was built, from its private memory and
 * work-group limits), and the global size n rounded up to a multiple of
 * it, so kernels must return for work items past their count. Returns
 * the enqueue's error. */
cl_int fricl__ocl_launch(fricl__ocl *o, cl_kernel k, size_t n, cl_uint num_wait,
                         const cl_event *wait, cl_event *done);
/* The work-group size fricl__ocl_launch uses for k on o's device (the
 * kernel cache stores it). */
cl_int fricl__ocl_pick_local_size(const fricl__ocl *o, cl_kernel k,
                                  size_t *local);

/* Set the listed buffer arguments of a cached kernel back to NULL. Called
 * right after every enqueue (which captures the values): a cached kernel
 * must not hold handles of buffers that are released afterwards, because
 * some runtimes (PoCL) read the old value when an argument is set again. */
void fricl__kernel_unbind(cl_kernel k, const cl_uint *idx, int n);

/* Drop every cached program (the next request rebuilds). */
void fricl__ocl_program_cache_clear(fricl__ocl *o);

/* "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define FRICL_REAL double\n"
 * (or float) and the precision's function-name defines, into buf. */
int fricl__ocl_precision_defines(char *buf, size_t size, fricl_precision p);

/* Bind a real kernel argument in the working precision. */
cl_int fricl__ocl_set_real(cl_kernel k, cl_uint idx, fricl_precision p,
                           double v);
/* Bind n consecutive arguments from `first`: ints, reals in the working
 * precision, buffers. Each does nothing when `err` already holds an
 * error, and returns the first error. */
cl_int fricl__ocl_args_int(cl_kernel k, cl_uint first, const cl_int *v,
                           cl_uint n, cl_int err);
cl_int fricl__ocl_args_real(cl_kernel k, cl_uint first, fricl_precision p,
                            const double *v, cl_uint n, cl_int err);
cl_int fricl__ocl_args_mem(cl_kernel k, cl_uint first, const cl_mem *v,
                           cl_uint n, cl_int err);

/* Largest element count one launch may cover for arrays of elem_bytes. */
size_t fricl__ocl_chunk_elements(const fricl__ocl *o, size_t elem_bytes);

/* How a host tier uses a wrapped host array. */
typedef enum {
  FRICL__HOST_IN,   /* read by the device */
  FRICL__HOST_OUT,  /* written by the device */
  FRICL__HOST_INOUT /* written, and read again (accumulated over chunks) */
} fricl__host_access;

/* A buffer over `bytes` of the caller's host array for a host-tier call
 * (NULL mem when ptr is NULL or bytes is 0): on unified-memory devices the
 * array wrapped in place (*owned = 1: release it after the call); elsewhere
 * the backend's grow-only staging buffer `slot` (*owned = 0), with the
 * input copied in (enqueued, in order). UNSUPPORTED beyond one
 * allocation. */
fricl_status fricl__ocl_host_buffer(fricl__ocl *o, int slot, const void *ptr,
                                    size_t bytes, fricl__host_access access,
                                    cl_mem *mem, int *owned);

/* Count bytes moved to (in) and from (out) the device. */
static inline void fricl__ocl_moved(fricl__ocl *o, size_t in, size_t out) {
  o->moved_in += in;
  o->moved_out += out;
}

/* The per-contact record kernels (barrier, force): a read-only device
 * copy of `bytes` at `host`, counted as moved; NULL for a NULL host or 0
 * bytes, and when *err already holds an error (*err set on failure). */
cl_mem fricl__ocl_upload(fricl__ocl *o, const void *host, size_t bytes,
                         cl_int *err);
/* fricl__ocl_upload of contacts lo .. lo + n of a per-contact array of
 * `row` bytes per contact (NULL stays NULL). */
static inline cl_mem fricl__ocl_upload_rows(fricl__ocl *o, const void *host,
                                            size_t lo, size_t n, size_t row,
                                            cl_int *err) {
  return host
             ? fricl__ocl_upload(o, (const char *)host + lo * row, n * row, err)
             : NULL;
}
/* clReleaseMemObject, for a buffer that may be NULL. */
void fricl__ocl_release(cl_mem m);
/* *buf (*have bytes; write-only, contents not kept) grown to `bytes`;
 * `what` is the failure's message. */
fricl_status fricl__ocl_grow(fricl__ocl *o, cl_mem *buf, size_t *have,
                             size_t bytes, const char *what);
/* Run `kern` over n work items, then read the first `bytes` of `rec` into
 * `host` (blocking, counted as moved). */
cl_int fricl__ocl_run_records(fricl__ocl *o, cl_kernel kern, size_t n,
                              cl_mem rec, size_t bytes, void *host);
/* Rows lo .. lo + n of a pv group's plane (normals of dim reals, offsets)
 * uploaded into *pn and *pc; NULL for the other stencil types. */
static inline void
fricl__ocl_upload_plane(fricl__ocl *o, fricl_stencil type, const void *normal,
                        const void *offset, size_t lo, size_t n, size_t dim,
                        size_t esz, cl_mem *pn, cl_mem *pc, cl_int *err) {
  const int pv = type == FRICL_STENCIL_PV;
  *pn = pv ? fricl__ocl_upload_rows(o, normal, lo, n, dim * esz, err) : NULL;
  *pc = pv ? fricl__ocl_upload_rows(o, offset, lo, n, esz, err) : NULL;
}

/* The device side of a pass whose per-contact records the host adds up
 * (the barrier's and the force's host tier): its per-vertex arrays,
 * uploaded once, one kernel per stencil type, made on first use, and the
 * record buffer, grown to the largest chunk. */
#define FRICL__OCL_RECORDS_VERTEX_ARRAYS 3
typedef struct fricl__ocl_records {
  fricl__ocl *o;
  cl_mem vert[FRICL__OCL_RECORDS_VERTEX_ARRAYS]; /* NULL: absent */
  cl_mem rec;
  size_t rec_bytes;
  cl_kernel kernel[FRICL_STENCIL_COUNT];
} fricl__ocl_records;

/* A new fricl__ocl_records in *out (set even on failure, for
 * fricl__ocl_records_close) with the per-vertex arrays vert[0 .. n) of
 * `bytes` each uploaded (NULL stays NULL); `what` names a failed upload. */
fricl_status fricl__ocl_records_open(fricl__ocl *o, const void *const *vert,
                                     int n, size_t bytes, const char *what,
                                     fricl__ocl_records **out);
void fricl__ocl_records_close(fricl__ocl_records *s); /* s may be NULL */

/* Makes the record kernel of stencil `type` for the pass `arg`. */
typedef fricl_status (*fricl__ocl_make_kernel_fn)(fricl__ocl *o,
                                                  const void *arg,
                                                  fricl_stencil type,
                                                  cl_kernel *k);

/* Before a chunk of `bytes` of records: *k the kernel of `type` (made by
 * make the first time) and s->rec grown to `bytes` (`what` its failure's
 * message). */
fricl_status fricl__ocl_records_begin(fricl__ocl_records *s, fricl_stencil type,
                                      fricl__ocl_make_kernel_fn make,
                                      const void *arg, size_t bytes,
                                      const char *what, cl_kernel *k);

/* Make the device's writes to `mem` (bytes from its start) visible at dst
 * (blocking). */
fricl_status fricl__ocl_read_back(fricl__ocl *o, cl_mem mem, void *dst,
                                  size_t bytes);

/* A grow-only backend-owned buffer of at least `bytes`. */
fricl_status fricl__ocl_staging(fricl__ocl *o, int slot, size_t bytes,
                                cl_mem *mem);

const fricl__embedded_file *fricl__embedded_find(const char *name);

/* The per-feature parts of the backend table (src/opencl/<feature>.c). */
fricl_status fricl__ocl_scalar(fricl__backend *be, const fricl__scalar_work *w);
fricl_status fricl__ocl_scalar_kernel(fricl__ocl *o, fricl_precision prec,
                                      fricl_mu_profile profile, unsigned mask,
                                      int eps_array, int mus_array,
                                      int muk_array, cl_kernel *kernel,
                                      double *build_ms);
fricl_status fricl__ocl_tangential(fricl__backend *be,
                                   const fricl__tangential_work *w);
fricl_status fricl__ocl_build(fricl__backend *be, const fricl__build_work *w);
fricl_status fricl__ocl_laws(fricl__backend *be, const fricl__laws_work *w);
fricl_status fricl__ocl_barrier(fricl__backend *be,
                                const fricl__barrier_work *w);
/* The barrier's records on device o (barrier.c): open uploads the
 * positions, records runs kernels/fricl_barrier.cl on a chunk of a group
 * and reads its records back (a fricl__barrier_source), close releases
 * everything (state may be NULL). */
fricl_status fricl__ocl_barrier_open(fricl__ocl *o,
                                     const fricl_barrier_batch *b,
                                     void **state);
fricl_status fricl__ocl_barrier_records(void *state,
                                        const fricl__barrier_work *w, size_t g,
                                        size_t lo, size_t n, void *rec);
void fricl__ocl_barrier_close(void *state);
/* The friction force (force.c): kernels/fricl_force.cl makes the records
 * chunk by chunk on the device, the host adds them (core/force.h). */
fricl_status fricl__ocl_force(fricl__backend *be, const fricl__force_work *w);
/* The collision build's narrow phase (collisions.c,
 * kernels/fricl_collisions.cl; core/collisions.h). */
fricl_status fricl__ocl_collisions_narrow(fricl__backend *be,
                                          const fricl__narrow_work *w);
/* The host tier over elements [lo, hi) of the batch only. */
fricl_status fricl__ocl_laws_range(fricl__backend *be,
                                   const fricl__laws_work *w, size_t lo,
                                   size_t hi);
fricl_status fricl__ocl_law_kernel(fricl__ocl *o, const fricl__law_plan *pl,
                                   cl_kernel *kernel, double *build_ms);

/* The machine's OpenCL devices, for the public device list (src/api/
 * devices.c calls it after checking the arguments; info_size is the
 * caller's element size and stride). */
fricl_status fricl__ocl_devices_list(fricl_device_info *infos, size_t info_size,
                                     size_t capacity, size_t *count);
/* "all-gpu": the specs of the machine's OpenCL GPUs (the registry entry's
 * gpu_specs). */
size_t fricl__ocl_gpu_specs(char (*specs)[32], size_t cap);

/* ------------------------------------ one device of a list (child.c) */

extern const fricl__backend_ops fricl__ocl_ops;
extern const fricl__child_ops fricl__ocl_child_ops;

/* The tangential potential's per-device parts (tangential_split.c). */
size_t fricl__ocl_tan_chunk(fricl__backend *be, const fricl_tangential_batch *b,
                            size_t total);
fricl_status fricl__ocl_tan_open(fricl__backend *be,
                                 const fricl__tangential_work *w, int gather,
                                 void **state);
fricl_status fricl__ocl_tan_part(void *state, size_t c0, size_t c1, size_t lo,
                                 size_t hi, int gather, void *rec, void *part);
fricl_status fricl__ocl_tan_gather(void *state, size_t c0, size_t c1, size_t s1,
                                   void *rec, void *part);
fricl_status fricl__ocl_tan_close(void *state, const fricl_tangential_batch *b,
                                  int gather, fricl_status st);

/* The context's device backend as one OpenCL device (for a context over
 * several devices, its first), or NULL. */
static inline fricl__ocl *fricl__ocl_cast(fricl__backend *be) {
  if (be && be->primary)
    be = be->primary;
  return be && be->ops == &fricl__ocl_ops ? (fricl__ocl *)be : NULL;
}

#endif
