/*
 * fricl_base.h - what every part of fricl's API shares: the export macro,
 * version, status codes, devices, contexts and the working precision.
 * Every feature header includes it; <fricl/fricl.h> includes them all.
 * Needs only <stddef.h> and <stdint.h>.
 *
 * Contents
 *   Version ........ fricl_version_number, fricl_version_string
 *   Status ......... fricl_status, fricl_status_string
 *   Devices ........ fricl_device_info, fricl_devices_list,
 *                    fricl_devices_list_sized
 *   Context ........ fricl_context_params_init, fricl_context_create,
 *                    fricl_context_destroy, fricl_context_last_error,
 *                    fricl_context_backend, fricl_context_device_name,
 *                    fricl_context_fell_back, fricl_context_has_fp64,
 *                    fricl_context_devices, fricl_context_devices_sized,
 *                    fricl_context_transfers
 *   Precision ...... fricl_precision, fricl_mu_profile,
 *                    fricl_mu_profile_name, fricl_mu_profile_from_name
 *
 * Ownership, thread safety and the ABI rules: see <fricl/fricl.h>.
 * @since 0.4 (before, these were part of fricl.h, which still has them)
 */
#ifndef FRICL_BASE_H
#define FRICL_BASE_H

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
  uint32_t struct_size;   /* bytes written by fricl_devices_list */
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
 * @param[out] infos      array of @p capacity entries of @p info_size bytes
 *                        each (may be NULL if capacity is 0); the first
 *                        min(count, capacity) are filled. Entry i is at
 *                        (char *)infos + i * info_size.
 * @param[in]  info_size  sizeof(fricl_device_info) as the caller compiled
 *                        it: the stride. min(info_size, the library's)
 *                        bytes are written per entry, the rest of a longer
 *                        entry zeroed; struct_size receives the bytes
 *                        written. A size below the whole struct
 *                        asks for a prefix of it (an older layout);
 *                        below 4 (struct_size alone): INVALID_ARGUMENT.
 * @param[out] count      total number of devices found (0 when no OpenCL
 *                        runtime is installed; that is not an error).
 * @return FRICL_STATUS_OK, or INVALID_ARGUMENT when @p count is NULL.
 * @since 0.4
 */
FRICL_API fricl_status fricl_devices_list_sized(fricl_device_info *infos,
                                                size_t info_size,
                                                size_t capacity, size_t *count);

/** fricl_devices_list_sized with the 0.1 layout's size. A macro below
 *  passes sizeof(fricl_device_info) instead, so that callers compiled
 *  against a grown struct get its fields; the function stays for binaries
 *  built before (and for `&fricl_devices_list`). @since 0.1 */
FRICL_API fricl_status fricl_devices_list(fricl_device_info *infos,
                                          size_t capacity, size_t *count);
#define fricl_devices_list(infos, capacity, count)                             \
  fricl_devices_list_sized((infos), sizeof(fricl_device_info), (capacity),     \
                           (count))

/* ---------------------------------------------------------------- context */

typedef struct fricl_context fricl_context;

/* Treat the device as lacking fp64 (f64 requests then get NO_FP64). For
 * testing f32-only paths and for callers who want to forbid doubles. */
#define FRICL_CONTEXT_FLAG_NO_FP64 0x1u

typedef struct fricl_context_params {
  /* Set by fricl_context_params_init. Accepted down to the 0.1 layout (the
   * end of error_buffer_size): later fields then take their defaults. */
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
 * FRICL_FEATURE_COUNT is the number this header knows; it grows when a
 * feature is added, so nothing public is sized by it.
 * @since 0.4 */
/* SCALAR: fricl_scalar_eval, TANGENTIAL: fricl_tangential_eval, BUILD:
 * fricl_build, LAWS: fricl_law_eval and fricl_law_step, BARRIER:
 * fricl_barrier_eval (FRICL_FEATURE_MAP in <fricl/fricl_tables.h>). */
typedef enum fricl_feature {
#define FRICL_FEATURE_ENUM_(name, value, text) FRICL_FEATURE_##name = value,
  FRICL_FEATURE_MAP(FRICL_FEATURE_ENUM_)
#undef FRICL_FEATURE_ENUM_
      FRICL_FEATURE_COUNT = FRICL_TABLE_COUNT(FRICL_FEATURE_MAP)
} fricl_feature;

/* Entries of the per-feature arrays of fricl_context_device. It never
 * changes (a layout constant); features are numbered below it. */
#define FRICL_FEATURE_CAPACITY 16

/* One OpenCL device of a context and its part of each feature's work.
 * The layout changed in 0.4 (before its release): the per-feature arrays
 * had FRICL_FEATURE_COUNT entries and moved whenever a feature came. */
typedef struct fricl_context_device {
  uint32_t struct_size; /* bytes written by fricl_context_devices */
  /* As in "opencl:<platform>:<device>"; -1 for a device adopted with
   * fricl_context_create_from_cl. */
  int platform_index, device_index;
  char device_name[256];
  /* The features the library linked reports (its FRICL_FEATURE_COUNT,
   * which may differ from this header's): entries from feature_count to
   * FRICL_FEATURE_CAPACITY are 0. */
  uint32_t feature_count;
  /* Per fricl_feature: the fraction of a large f64 call's work items this
   * device takes (f32 when no device has fp64); 1 on a one-device
   * context, summing to 1 over the devices of a list. */
  double share[FRICL_FEATURE_CAPACITY];
  /* Per fricl_feature: the work items per second this device reached on
   * the context's split calls so far, 0 before any was measured (the
   * shares then follow compute units x clock). See docs/devices.md,
   * "Several devices". */
  double items_per_second[FRICL_FEATURE_CAPACITY];
} fricl_context_device;

/**
 * The OpenCL devices of @p ctx: none for "host" and "reference" (and for
 * "auto" without a device), one for an OpenCL device, several for a device
 * list ("opencl:0:0,opencl:0:1", "all-gpu"). Fills the first
 * min(count, capacity) entries of @p infos (which may be NULL when
 * capacity is 0), @p info_size bytes apart, as fricl_devices_list_sized
 * does (@p info_size: sizeof(fricl_context_device) as the caller compiled
 * it). "auto" looks its device up, like fricl_context_backend.
 * @return OK, or INVALID_ARGUMENT when ctx or count is NULL or info_size
 *         is below 4.
 * @since 0.4
 */
FRICL_API fricl_status fricl_context_devices_sized(const fricl_context *ctx,
                                                   fricl_context_device *infos,
                                                   size_t info_size,
                                                   size_t capacity,
                                                   size_t *count);

/** fricl_context_devices_sized with this release's layout; a macro passes
 *  the caller's sizeof(fricl_context_device), as for fricl_devices_list.
 *  @since 0.4 */
FRICL_API fricl_status fricl_context_devices(const fricl_context *ctx,
                                             fricl_context_device *infos,
                                             size_t capacity, size_t *count);
#define fricl_context_devices(ctx, infos, capacity, count)                     \
  fricl_context_devices_sized((ctx), (infos), sizeof(fricl_context_device),    \
                              (capacity), (count))

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

/* ------------------------------------------------------------ group limits */

/* The contact groups of one call: at most FRICL_MAX_GROUPS groups (the
 * tangential and barrier families, both tiers, and the PETSc plans; the
 * lagged build takes any number), and at most FRICL_MAX_CONTACTS contacts
 * over all groups of a call (every family). Both are rejected with
 * INVALID_ARGUMENT before any work. @since 0.4 */
#define FRICL_MAX_GROUPS 64
#define FRICL_MAX_CONTACTS ((uint64_t)1 << 40)

/* -------------------------------------------------------------- precision */

/* FRICL_PRECISION_MAP in <fricl/fricl_tables.h>. */
typedef enum fricl_precision {
#define FRICL_PRECISION_ENUM_(name, value, text) FRICL_##name = value,
  FRICL_PRECISION_MAP(FRICL_PRECISION_ENUM_)
#undef FRICL_PRECISION_ENUM_
} fricl_precision;

/* The smooth static->kinetic mu: `cubic` is the smoothstep of the IPC Toolkit
 * tutorial (default); `ipctk` is the piecewise quadratic of ipctk >= 1.4. */
typedef enum fricl_mu_profile {
#define FRICL_MU_PROFILE_ENUM_(name, value, text) FRICL_MU_##name = value,
  FRICL_MU_PROFILE_MAP(FRICL_MU_PROFILE_ENUM_)
#undef FRICL_MU_PROFILE_ENUM_
} fricl_mu_profile;

/** @return "cubic" / "ipctk", NULL if unknown. @since 0.1 */
FRICL_API const char *fricl_mu_profile_name(fricl_mu_profile profile);
/** @return OK or INVALID_ARGUMENT. @since 0.1 */
FRICL_API fricl_status fricl_mu_profile_from_name(const char *name,
                                                  fricl_mu_profile *profile);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_BASE_H */
