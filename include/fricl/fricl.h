/*
 * fricl.h - batched friction terms for contact simulation (public C API).
 *
 * This header needs only <stddef.h> and <stdint.h>; the OpenCL interop entry
 * points (cl_mem buffers, wait lists) live in <fricl/fricl_cl.h>.
 *
 * What fricl computes is specified, normatively, in docs/ipc-friction.md
 * (the IPC family, the tangential potential, the lagged build),
 * docs/barrier.md (the normal-contact barrier) and docs/friction-laws.md
 * (the other laws), shipped with the sources and installed with the
 * documentation; "spec N.M" in the headers refers to their sections. The
 * manual is docs/api.md; devices and fallbacks are in docs/devices.md.
 *
 * Contents
 *   Version ........ fricl_version_number, fricl_version_string
 *   Status ......... fricl_status, fricl_status_string
 *   Devices ........ fricl_device_info, fricl_devices_list
 *   Context ........ fricl_context_params_init, fricl_context_create,
 *                    fricl_context_destroy, fricl_context_last_error,
 *                    fricl_context_backend, fricl_context_device_name,
 *                    fricl_context_fell_back, fricl_context_has_fp64
 *   Scalar family .. fricl_term, fricl_term_name, fricl_term_from_name,
 *                    fricl_mu_profile_name, fricl_mu_profile_from_name,
 *                    fricl_scalar_batch_init, fricl_scalar_prepare,
 *                    fricl_scalar_eval
 *   Tangential ..... see <fricl/fricl_tangential.h>, included below
 *   Lagged build ... see <fricl/fricl_build.h>, included below
 *
 * Ownership: every pointer passed to fricl is borrowed for the duration of
 * the call only; fricl never keeps, frees or writes through an input pointer.
 * Strings returned by fricl are owned by fricl (static storage, or the
 * context for per-context strings, valid until the next call on that context
 * or its destruction).
 *
 * Thread safety: functions without a context argument are thread-safe. A
 * context may be used from several threads only if the caller serialises the
 * calls (one call at a time per context); distinct contexts are independent
 * and may be used concurrently.
 *
 * ABI: releases with the same major version are ABI compatible. Structs that
 * cross the ABI start with `struct_size`; fill them with the matching _init
 * function so that later versions can grow them.
 *
 * Versions: "@since X.Y" on a declaration names the minor release whose
 * API first had it; check FRICL_VERSION_NUMBER (compile time) or
 * fricl_version_number() (the library linked) against it. What each
 * release added is in docs/CHANGELOG.md. A test (version_tags) keeps every
 * tag at or below the package version.
 */
#ifndef FRICL_H
#define FRICL_H

#include <stddef.h>
#include <stdint.h>

#include "fricl/fricl_tables.h"
#include "fricl/fricl_version.h"

#if defined(_WIN32) && defined(FRICL_SHARED_BUILD)
#define FRICL_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define FRICL_API __attribute__((visibility("default")))
#else
#define FRICL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

/** @return FRICL_VERSION_NUMBER of the library actually linked. @since 0.1 */
FRICL_API unsigned fricl_version_number(void);
/** @return FRICL_VERSION_STRING of the library actually linked. @since 0.1 */
FRICL_API const char *fricl_version_string(void);

/* ----------------------------------------------------------------- status */

/* The list is FRICL_STATUS_MAP in <fricl/fricl_tables.h>. Values are pinned:
 * they never change once released, new codes get new values. */
typedef enum fricl_status {
#define FRICL_STATUS_ENUM_(name, value, text) FRICL_STATUS_##name = value,
  FRICL_STATUS_MAP(FRICL_STATUS_ENUM_)
#undef FRICL_STATUS_ENUM_
} fricl_status;

/** @return a static, human-readable description of @p status ("unknown
 *  status" for values outside the enum). Never NULL. @since 0.1 */
FRICL_API const char *fricl_status_string(fricl_status status);

/* ---------------------------------------------------------------- devices */

/* Backends (FRICL_BACKEND_MAP in <fricl/fricl_tables.h>):
 *   REFERENCE  built-in portable C, one thread: the simple oracle side of
 *              fricl's own tests;
 *   OPENCL     an OpenCL device (GPU, or a CPU through PoCL / Intel);
 *   HOST       built-in C over all cores, vectorised (@since 0.4).
 * The three give bitwise identical results wherever fricl documents
 * bitwise agreement (docs/api.md, "Reproducibility"). */
typedef enum fricl_backend {
#define FRICL_BACKEND_ENUM_(name, value, text) FRICL_BACKEND_##name = value,
  FRICL_BACKEND_MAP(FRICL_BACKEND_ENUM_)
#undef FRICL_BACKEND_ENUM_
} fricl_backend;

/** @return "reference", "opencl" or "host"; NULL if unknown. @since 0.4 */
FRICL_API const char *fricl_backend_name(fricl_backend backend);

typedef struct fricl_device_info {
  uint32_t struct_size;   /* set by fricl_devices_list */
  int platform_index;     /* as in "opencl:<platform>:<device>" */
  int device_index;       /* index within the platform */
  int is_gpu;             /* CL_DEVICE_TYPE_GPU */
  int is_cpu;             /* CL_DEVICE_TYPE_CPU */
  int has_fp64;           /* double precision supported */
  int is_default;         /* the device FRICL_DEVICE=auto picks */
  unsigned compute_units; /* CL_DEVICE_MAX_COMPUTE_UNITS */
  uint64_t global_mem_bytes;
  uint64_t max_alloc_bytes;
  char platform_name[128];
  char device_name[128];
  char device_version[64];
  char driver_version[64];
} fricl_device_info;

/**
 * List the OpenCL devices of every platform.
 * @param[out] infos    array of @p capacity entries (may be NULL if capacity
 *                      is 0); the first min(count, capacity) are filled.
 * @param[out] count    total number of devices found (0 when no OpenCL
 *                      runtime is installed; that is not an error).
 * @return FRICL_STATUS_OK, or INVALID_ARGUMENT when @p count is NULL.
 * @since 0.1
 */
FRICL_API fricl_status fricl_devices_list(fricl_device_info *infos,
                                          size_t capacity, size_t *count);

/* ---------------------------------------------------------------- context */

typedef struct fricl_context fricl_context;

/* Treat the device as lacking fp64 (f64 requests then get NO_FP64). For
 * testing f32-only paths and for callers who want to forbid doubles. */
#define FRICL_CONTEXT_FLAG_NO_FP64 0x1u

typedef struct fricl_context_params {
  uint32_t struct_size;
  /* Device choice (NULL: the FRICL_DEVICE environment variable, and "auto"
   * when that is unset or empty):
   *   "auto"       per call by cost: small calls on the host backend, large
   *                ones on the first OpenCL GPU, else the first OpenCL CPU
   *                device; without any OpenCL device everything runs on the
   *                host backend. OpenCL is only initialised by the first
   *                call large enough to use it (see auto_crossover).
   *   "host"       the threaded host backend (@since 0.4);
   *   "reference"  the single-thread portable C backend;
   *   "gpu", "cpu", "opencl:<platform>:<device>"  that OpenCL device.
   *   "opencl:0:0,opencl:0:1" (a comma-separated list of such specs, at
   *                most 8) or "all-gpu" (every OpenCL GPU): one context
   *                over several devices; every call is split over them by
   *                their measured speed, with results bitwise equal to one
   *                device's (docs/devices.md, "Several devices"). The
   *                cl_mem tier runs on the first device. @since 0.4
   * Explicit specs never switch; only "auto" chooses. */
  const char *device;
  /* Largest number of elements per kernel launch; 0 derives it from the
   * device's maximum allocation. Batches larger than this are chunked. */
  size_t max_chunk_elements;
  uint32_t flags; /* FRICL_CONTEXT_FLAG_* */
  /* Extra OpenCL build options appended to fricl's own (borrowed, copied).
   * The FRICL_BUILD_OPTIONS environment variable is appended too. */
  const char *build_options;
  /* Optional: on failure of fricl_context_create a NUL-terminated message
   * is written here (truncated to the size). Borrowed for the call. */
  char *error_buffer;
  size_t error_buffer_size;
  /* Threads fricl runs on the host: the host backend, plan construction
   * and argument validation. 0: the FRICL_THREADS environment variable,
   * else every online core ("reference": 1). 1: the calling thread only -
   * use this when you call fricl from your own thread pool, so that the
   * two do not oversubscribe the cores. Results never depend on it.
   * @since 0.4 */
  unsigned threads;
  /* "auto" only: a call with fewer work items than this runs on the host
   * backend, a larger one on the OpenCL device. Work items are elements
   * (scalar family), contacts (tangential, lagged build) or element-steps
   * (laws). 0: the FRICL_AUTO_CROSSOVER environment variable, else fricl's
   * measured default for the device type (docs/devices.md, "Devices and
   * fallbacks"). SIZE_MAX: never use the device. @since 0.4 */
  size_t auto_crossover;
} fricl_context_params;

/** Fill @p params with defaults (all zero, struct_size set). @since 0.1 */
FRICL_API void fricl_context_params_init(fricl_context_params *params);

/**
 * Create a context on the chosen device.
 * @param[out] out     receives the new context (NULL on failure). The caller
 *                     owns it and releases it with fricl_context_destroy.
 * @param[in]  params  may be NULL for defaults; borrowed for the call.
 * @return OK; DEVICE_NOT_FOUND when an explicit device spec matches nothing;
 *         INVALID_ARGUMENT for a malformed spec; OPENCL_ERROR; OUT_OF_MEMORY.
 * @since 0.1
 */
FRICL_API fricl_status fricl_context_create(fricl_context **out,
                                            const fricl_context_params *params);

/** Release a context and everything it owns. NULL is a no-op. @since 0.1 */
FRICL_API void fricl_context_destroy(fricl_context *ctx);

/** @return the detailed message of the last failed call on @p ctx (with the
 *  full build log when a kernel build failed), "" if none. @since 0.1 */
FRICL_API const char *fricl_context_last_error(const fricl_context *ctx);

/** @return the backend large calls run on: the explicit spec's, or for
 *  "auto" OPENCL when it has a device and HOST otherwise (resolving the
 *  device if no call has yet). @since 0.1 */
FRICL_API fricl_backend fricl_context_backend(const fricl_context *ctx);

/** @return the backend that ran the last successful evaluation on @p ctx
 *  (the context's own backend before the first one). With "auto" this is
 *  how to see the per-call choice. @since 0.4 */
FRICL_API fricl_backend fricl_context_last_backend(const fricl_context *ctx);

/** @return "reference (portable C)", "host (N threads)", the OpenCL device
 *  name, or for "auto" "auto: host (N threads)", followed by
 *  " + <device name>" once a call (or fricl_context_backend) has looked the
 *  device up; this query never opens a device itself. @since 0.1 */
FRICL_API const char *fricl_context_device_name(const fricl_context *ctx);

/** @return 1 when "auto" found no OpenCL device (every call then runs on
 *  the host backend), else 0. Resolves the device like
 *  fricl_context_backend. @since 0.1 */
FRICL_API int fricl_context_fell_back(const fricl_context *ctx);

/** @return 1 when f64 requests can run on this context. @since 0.1 */
FRICL_API int fricl_context_has_fp64(const fricl_context *ctx);

/** @return the number of host threads fricl uses on @p ctx. @since 0.4 */
FRICL_API unsigned fricl_context_threads(const fricl_context *ctx);

/* The features, for per-feature figures such as device shares.
 * @since 0.4 */
typedef enum fricl_feature {
  FRICL_FEATURE_SCALAR = 0,     /* fricl_scalar_eval */
  FRICL_FEATURE_TANGENTIAL = 1, /* fricl_tangential_eval */
  FRICL_FEATURE_BUILD = 2,      /* fricl_build */
  FRICL_FEATURE_LAWS = 3,       /* fricl_law_eval, fricl_law_step */
  FRICL_FEATURE_BARRIER = 4,    /* fricl_barrier_eval */
  FRICL_FEATURE_COUNT = 5
} fricl_feature;

/* One OpenCL device of a context and its part of each feature's work. */
typedef struct fricl_context_device {
  uint32_t struct_size; /* set by fricl_context_devices */
  /* As in "opencl:<platform>:<device>"; -1 for a device adopted with
   * fricl_context_create_from_cl. */
  int platform_index, device_index;
  char device_name[256];
  /* Per fricl_feature: the fraction of a large f64 call's work items this
   * device takes (f32 when no device has fp64); 1 on a one-device
   * context, summing to 1 over the devices of a list. */
  double share[FRICL_FEATURE_COUNT];
  /* Per fricl_feature: the work items per second this device reached on
   * the context's split calls so far, 0 before any was measured (the
   * shares then follow compute units x clock). See docs/devices.md,
   * "Several devices". */
  double items_per_second[FRICL_FEATURE_COUNT];
} fricl_context_device;

/**
 * The OpenCL devices of @p ctx: none for "host" and "reference" (and for
 * "auto" without a device), one for an OpenCL device, several for a device
 * list ("opencl:0:0,opencl:0:1", "all-gpu"). Fills the first
 * min(count, capacity) entries of @p infos (which may be NULL when
 * capacity is 0). "auto" looks its device up, like fricl_context_backend.
 * @return OK, or INVALID_ARGUMENT when ctx or count is NULL.
 * @since 0.4
 */
FRICL_API fricl_status fricl_context_devices(const fricl_context *ctx,
                                             fricl_context_device *infos,
                                             size_t capacity, size_t *count);

/**
 * Bytes fricl itself moved between host memory and the OpenCL devices of
 * @p ctx since its creation: host-tier inputs in and results out (arrays
 * wrapped in place on unified-memory devices count as moved, as a
 * discrete device copies them), plan lists uploaded, and what a device
 * list passes between its devices through the host. The cl_mem tier moves
 * nothing itself; the caller's own transfers are not counted. Either
 * pointer may be NULL; both 0 without an OpenCL device. Does not open
 * "auto"'s device.
 * @since 0.4
 */
FRICL_API void fricl_context_transfers(const fricl_context *ctx,
                                       uint64_t *to_device,
                                       uint64_t *from_device);

/* ------------------------------------------------ smooth friction (scalar) */

/* The twelve functions of the IPC Toolkit friction mollifier family, in the
 * order and with the names of ipctk's Python API. */
typedef enum fricl_term {
  FRICL_SMOOTH_FRICTION_F0 = 0,
  FRICL_SMOOTH_FRICTION_F1 = 1,
  FRICL_SMOOTH_FRICTION_F2 = 2,
  FRICL_SMOOTH_FRICTION_F1_OVER_X = 3,
  FRICL_SMOOTH_FRICTION_F2_X_MINUS_F1_OVER_X3 = 4,
  FRICL_SMOOTH_MU = 5,
  FRICL_SMOOTH_MU_DERIVATIVE = 6,
  FRICL_SMOOTH_MU_F0 = 7,
  FRICL_SMOOTH_MU_F1 = 8,
  FRICL_SMOOTH_MU_F2 = 9,
  FRICL_SMOOTH_MU_F1_OVER_X = 10,
  FRICL_SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3 = 11,
  FRICL_TERM_COUNT = 12
} fricl_term;

/** @return "smooth_friction_f0" etc., NULL for an unknown term. @since 0.1 */
FRICL_API const char *fricl_term_name(fricl_term term);
/** Look a term up by its name. @return OK or INVALID_ARGUMENT. @since 0.1 */
FRICL_API fricl_status fricl_term_from_name(const char *name, fricl_term *term);

#define FRICL_TERM_BIT(t) (1u << (t))
#define FRICL_TERMS_ALL ((1u << FRICL_TERM_COUNT) - 1u)

typedef enum fricl_precision { FRICL_F64 = 0, FRICL_F32 = 1 } fricl_precision;

/* The smooth static->kinetic mu: `cubic` is the smoothstep of the IPC Toolkit
 * tutorial (default); `ipctk` is the piecewise quadratic of ipctk >= 1.4. */
typedef enum fricl_mu_profile {
  FRICL_MU_CUBIC = 0,
  FRICL_MU_IPCTK = 1
} fricl_mu_profile;

/** @return "cubic" / "ipctk", NULL if unknown. @since 0.1 */
FRICL_API const char *fricl_mu_profile_name(fricl_mu_profile profile);
/** @return OK or INVALID_ARGUMENT. @since 0.1 */
FRICL_API fricl_status fricl_mu_profile_from_name(const char *name,
                                                  fricl_mu_profile *profile);

/*
 * A batch of n arguments y and the terms to evaluate on them.
 * Arrays hold `double` for FRICL_F64 and `float` for FRICL_F32.
 * Input arrays are borrowed for the call and never written. Output arrays
 * must not overlap any input or each other (rejected if they do).
 */
typedef struct fricl_scalar_batch {
  uint32_t struct_size;
  fricl_precision precision;
  fricl_mu_profile mu_profile;
  size_t n;
  const void *y; /* n values; may be NULL only when n == 0 */
  /* Batch parameters, used when the matching *_array is NULL. Converted to
   * the working precision before validation and use. mu_s and mu_k are only
   * read (and validated) when a smooth_mu term is requested. */
  double eps_v, mu_s, mu_k;
  const void *eps_v_array, *mu_s_array, *mu_k_array; /* optional, n each */
  /* The requested terms, a mask of FRICL_TERM_BIT(t). 0 means "the terms t
   * whose out[t] is non-NULL". At least one term must be requested; all are
   * computed in one pass. */
  uint32_t terms;
  /* n values of term t are written to out[t] (which must then be non-NULL
   * unless n == 0). out[t] of a term not requested is ignored. */
  void *out[FRICL_TERM_COUNT];
} fricl_scalar_batch;

/** Zero @p batch and set struct_size (precision f64, profile cubic).
 *  @since 0.1 */
FRICL_API void fricl_scalar_batch_init(fricl_scalar_batch *batch);

/**
 * Evaluate the requested terms over the batch.
 * Validation happens before any work: eps_v finite and > 0, mu_s and mu_k
 * finite and >= 0 (per element when given as arrays; the message names the
 * first bad index), NULL arrays with n > 0, unknown precision/profile,
 * overlapping outputs. NaN/Inf in y propagate as the formulas give.
 * The same inputs give bitwise identical outputs on the same device.
 * @return OK, INVALID_ARGUMENT, NO_FP64, OUT_OF_MEMORY, OPENCL_ERROR,
 *         BUILD_FAILED. Details in fricl_context_last_error.
 * @since 0.1
 */
FRICL_API fricl_status fricl_scalar_eval(fricl_context *ctx,
                                         const fricl_scalar_batch *batch);

/**
 * Build (and cache in @p ctx) the kernel that @p batch would use, so that
 * the first fricl_scalar_eval is not slow without warning. n, y and the
 * output pointers' values are ignored; only which outputs and parameter
 * arrays are non-NULL matters. A no-op on the reference backend.
 * @since 0.1
 */
FRICL_API fricl_status fricl_scalar_prepare(fricl_context *ctx,
                                            const fricl_scalar_batch *batch);

#ifdef __cplusplus
}
#endif

/* The other parts of the API, each in its own header:
 *   fricl_tangential.h  per-contact IPC friction (potential, gradient,
 *                       projected Hessian, assembly)
 *   fricl_laws.h        the other friction laws (Exudyn, Modelica, the
 *                       Fortran friction library), stateless and stateful */
#include "fricl/fricl_laws.h"
#include "fricl/fricl_tangential.h"

/* The lagged friction build from geometry. */
#include "fricl/fricl_build.h"

#endif /* FRICL_H */
