/*
 * fricl_cl.h - OpenCL interop tier of fricl: adopt an existing OpenCL
 * context/device/queue and evaluate directly on cl_mem buffers.
 *
 * Contents
 *   fricl_context_create_from_cl, fricl_context_get_cl,
 *   fricl_buffer_cl, fricl_scalar_batch_cl, fricl_scalar_batch_cl_init,
 *   fricl_scalar_eval_cl
 *
 * Also on cl_mem: the tangential potential (below), the lagged build
 * (fricl_build_cl.h) and the friction laws (fricl_laws_cl.h), included at
 * the end; the normal-contact barrier in fricl_barrier_cl.h, included on
 * its own, like fricl_barrier.h.
 *
 * The device tier allocates nothing: every buffer is the caller's, offsets
 * are in elements of the working precision, and work is only enqueued (the
 * call returns once the kernel is enqueued, not when it has finished).
 */
#ifndef FRICL_CL_H
#define FRICL_CL_H

/* OpenCL 1.2 is all fricl needs; a caller's own choice (defined before
 * this header) is kept. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#ifdef __APPLE__
#include <OpenCL/opencl.h>
#else
#include <CL/cl.h>
#endif

#include "fricl/fricl.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Create a context on an OpenCL context/device/queue owned by the caller.
 * fricl retains all three (clRetain*) and releases them in
 * fricl_context_destroy; the caller keeps its own references.
 * @param params  may be NULL; its `device` field is ignored.
 * @since 0.1
 */
FRICL_API fricl_status fricl_context_create_from_cl(
    fricl_context **out, cl_context cl_ctx, cl_device_id device,
    cl_command_queue queue, const fricl_context_params *params);

/**
 * Borrow the OpenCL objects of an OpenCL-backed context (not retained: valid
 * while @p ctx lives; retain them to keep them longer). Any output pointer
 * may be NULL. @return UNSUPPORTED on the reference backend.
 * @since 0.1
 */
FRICL_API fricl_status fricl_context_get_cl(const fricl_context *ctx,
                                            cl_context *cl_ctx,
                                            cl_device_id *device,
                                            cl_command_queue *queue);

/* A caller-owned buffer and an element offset into it. mem == NULL means
 * "absent" (a batch scalar is used, or the term is not requested). */
typedef struct fricl_buffer_cl {
  cl_mem mem;
  size_t offset; /* in elements (double for F64, float for F32) */
} fricl_buffer_cl;

/* Device-tier twin of fricl_scalar_batch. */
typedef struct fricl_scalar_batch_cl {
  /* Set by the _init. Any size from the end of `eps_v` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_mu_profile mu_profile;
  size_t n;
  fricl_buffer_cl y;
  double eps_v, mu_s, mu_k;
  fricl_buffer_cl eps_v_array, mu_s_array, mu_k_array;
  uint32_t terms; /* as in fricl_scalar_batch: 0 = terms with out[t].mem */
  fricl_buffer_cl out[FRICL_TERM_COUNT];
} fricl_scalar_batch_cl;

/** Zero @p batch and set struct_size. @since 0.1 */
FRICL_API void fricl_scalar_batch_cl_init(fricl_scalar_batch_cl *batch);

/**
 * Enqueue the evaluation on the context's queue after @p wait_list.
 * Batch scalars are validated on the host before anything is enqueued;
 * per-element parameter buffers are not read back for validation (device
 * data stays on the device): invalid values there give NaN results, never a
 * crash. @p done, if not NULL, receives an event the caller must release.
 * @return UNSUPPORTED on the reference backend.
 * @since 0.1
 */
FRICL_API fricl_status fricl_scalar_eval_cl(fricl_context *ctx,
                                            const fricl_scalar_batch_cl *batch,
                                            cl_uint num_wait,
                                            const cl_event *wait_list,
                                            cl_event *done);

/* ------------------------------------------- tangential potential (cl_mem) */

/* Device-tier twin of fricl_contact_group (same layouts; buffers with
 * element offsets; vertices hold int32, everything else the working
 * precision). mem == NULL means absent. */
typedef struct fricl_contact_group_cl {
  fricl_stencil type;
  size_t count;
  fricl_buffer_cl vertices, closest_point, tangent_basis, normal_force, weight,
      mu_s, mu_k, mu_aniso;
  fricl_buffer_cl potential, local_hessian, factored_gamma, factored_grad,
      factored_hessian;
} fricl_contact_group_cl;

/* Device-tier twin of fricl_tangential_batch. The potential is a buffer of
 * one element, summed on the device in the same fixed order as the host
 * tier. */
typedef struct fricl_tangential_batch_cl {
  /* Set by the _init. Any size from the end of `groups` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_mu_profile mu_profile;
  fricl_psd psd;
  uint32_t flags;
  int dim;
  size_t n_vertices;
  fricl_buffer_cl velocities;
  double eps_v;
  size_t n_groups;
  const fricl_contact_group_cl *groups;
  /* Required for gradient, hessian_values and hessian_product (the device
   * vertex indices cannot be read back to build one). It must have been
   * created from the same vertex indices; only types and counts can be
   * checked here. */
  const fricl_tangential_plan *plan;
  fricl_buffer_cl direction;
  fricl_buffer_cl potential, gradient, hessian_values, hessian_product;
  /* As fricl_tangential_batch.mollifier. @since 0.4 */
  fricl_mollifier mollifier;
} fricl_tangential_batch_cl;

/** Zero @p batch, set struct_size and dim 3. @since 0.2 */
FRICL_API void fricl_tangential_batch_cl_init(fricl_tangential_batch_cl *batch);

/**
 * Enqueue the evaluation on the context's queue after @p wait_list; the
 * caller's buffers must stay alive until @p done (if requested; the caller
 * releases it) or a clFinish. Batch parameters, types, counts and the plan
 * are validated on the host before anything is enqueued; device-resident
 * data is not read back: a vertex index out of range yields NaN for its
 * contact, never an out-of-bounds access, and invalid lagged values give
 * NaN or meaningless results, never a crash. Scratch buffers belong to the
 * context, so evaluations on one context are ordered by its queue.
 * @return UNSUPPORTED on the reference backend.
 * @since 0.2
 */
FRICL_API fricl_status fricl_tangential_eval_cl(
    fricl_context *ctx, const fricl_tangential_batch_cl *batch,
    cl_uint num_wait, const cl_event *wait_list, cl_event *done);

#ifdef __cplusplus
}
#endif

#include "fricl/fricl_build_cl.h" /* lagged build on cl_mem (since 0.4) */
#include "fricl/fricl_laws_cl.h"  /* laws on cl_mem (since 0.2) */

#endif /* FRICL_CL_H */
