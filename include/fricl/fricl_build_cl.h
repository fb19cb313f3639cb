/*
 * fricl_build_cl.h - device tier of the lagged build (fricl_build.h): the
 * same batch on caller-owned cl_mem buffers, so that a solver builds and
 * evaluates without the per-contact data passing through host memory.
 * Included by <fricl/fricl_cl.h>.
 *
 * Contents
 *   fricl_build_group_cl, fricl_build_batch_cl, fricl_build_batch_cl_init,
 *   fricl_build_cl
 *
 * The outputs of a group have exactly the layout of the inputs of a
 * fricl_contact_group_cl (fricl_cl.h): a contact group of
 * fricl_tangential_eval_cl points at them directly - closest_point,
 * tangent_basis, normal_force, weight_out, mu_s_out, mu_k_out - and at the
 * same vertices buffer. docs/devices.md, "Device-resident Newton loop",
 * has the recipe; examples/newton_device.c runs it.
 *
 * As for the other cl_mem entry points: nothing is allocated (no device
 * memory at all; the kernels are built and cached in the context on first
 * use), offsets are in elements (int32 for vertices, uint8 for status, the
 * working precision for everything else), work is only enqueued, and
 * device-resident data is never read back for validation.
 */
#ifndef FRICL_BUILD_CL_H
#define FRICL_BUILD_CL_H

#include "fricl/fricl_build.h"
#include "fricl/fricl_cl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device-tier twin of fricl_build_group (same arrays, same layouts and
 * meanings; mem == NULL: absent input, output not written). There are no
 * status counts: the per-contact status buffer holds the codes. */
typedef struct fricl_build_group_cl {
  fricl_stencil type;
  size_t count;
  /* Inputs: count x k int32 vertex indices; PV: plane_normal (count x dim)
   * and plane_offset (count); optional dmin, weight, mu_s, mu_k (count). */
  fricl_buffer_cl vertices, plane_normal, plane_offset, dmin, weight, mu_s,
      mu_k;
  /* Outputs: closest_point (count x nb), tangent_basis (count x dim x m),
   * normal_force, normal_force_gradient (count x k dim), weight_out,
   * mu_s_out, mu_k_out (count), status (count uint8). */
  fricl_buffer_cl closest_point, tangent_basis, normal_force,
      normal_force_gradient, weight_out, mu_s_out, mu_k_out, status;
} fricl_build_group_cl;

/* Device-tier twin of fricl_build_batch (no report: count the status
 * buffer's codes if you need them). */
typedef struct fricl_build_batch_cl {
  /* Set by the _init. Any size from the end of `groups` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  int dim;        /* 2 or 3 */
  uint32_t flags; /* FRICL_BUILD_FLAG_* */
  size_t n_vertices;
  /* n_vertices x dim lagged positions; rest positions optional. */
  fricl_buffer_cl lagged_positions, rest_positions;
  double kappa, dhat, dmin;
  double mu_s, mu_k;
  fricl_buffer_cl vertex_mu_s, vertex_mu_k; /* optional, n_vertices each */
  fricl_mu_blend blend;
  size_t n_groups;
  const fricl_build_group_cl *groups; /* host array, borrowed for the call */
} fricl_build_batch_cl;

/** Zero @p batch, set struct_size, dim 3, f64, average blend.
 *  @since 0.4 */
FRICL_API void fricl_build_batch_cl_init(fricl_build_batch_cl *batch);

/**
 * Enqueue the lagged build of every group on the context's queue after
 * @p wait_list (the first command waits for it; the queue keeps the rest
 * in order). @p done, if not NULL, receives an event that completes when
 * every output is written (also when there is nothing to build); the
 * caller releases it. The caller's buffers must stay alive until then.
 *
 * Validated on the host before anything is enqueued, naming the argument
 * (and group): struct_size, precision (and the device's fp64), dim, flags,
 * blend, kappa >= 0, dhat > 0, dmin >= 0, mu_s, mu_k >= 0 (finite, in the
 * working precision), n_vertices (int32 indices), stencil types for dim,
 * missing buffers (lagged_positions, vertices, PV planes), at least one
 * output, every buffer large enough for its offset and extent, outputs
 * that overlap another output or an input, the wait list. Device data is
 * not read back: a vertex index outside [0, n_vertices) gives that
 * contact NaN positions and so the NONFINITE status (never an
 * out-of-bounds access); invalid positions or parameters in device memory
 * give statuses or meaningless values, never a crash.
 *
 * Outputs are bitwise those of fricl_build on the same device.
 * On a context over several devices (a device list) it runs on the first.
 * @return OK, INVALID_ARGUMENT, NO_FP64, OPENCL_ERROR, BUILD_FAILED,
 *         OUT_OF_MEMORY, UNSUPPORTED (no OpenCL device in the context).
 * @since 0.4
 */
FRICL_API fricl_status fricl_build_cl(fricl_context *ctx,
                                      const fricl_build_batch_cl *batch,
                                      cl_uint num_wait,
                                      const cl_event *wait_list,
                                      cl_event *done);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_BUILD_CL_H */
