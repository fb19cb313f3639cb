/*
 * fricl_barrier_cl.h - the normal-contact barrier on cl_mem buffers: the
 * device tier of fricl_barrier_eval (fricl_barrier.h), for data that
 * already lives on the context's OpenCL device.
 *
 * Contents
 *   fricl_barrier_group_cl, fricl_barrier_batch_cl,
 *   fricl_barrier_batch_cl_init, fricl_barrier_eval_cl
 *
 * Semantics are fricl_barrier_eval's (the same B, gradient, projected
 * Hessian, the same fixed summation order: every global sum adds the
 * contacts' contributions in contact order, the potential in blocks of
 * 1024 contacts), computed and assembled on the device through the plan's
 * gather lists, without atomics: results are bitwise equal from run to
 * run, and equal to fricl_barrier_eval on the same device to the rounding
 * of the device's log and sqrt.
 *
 * Ownership. Every cl_mem is the caller's: fricl neither retains nor
 * releases it, and it must stay alive (and unwritten by others) until the
 * call's work has finished (`done`, or a clFinish of the context's queue).
 * The batch, the group array and the wait list are read during the call
 * only. The plan is borrowed for the call; its device copy of the gather
 * lists is kept with it (released by fricl_tangential_plan_destroy).
 * Scratch (records, potential partials) belongs to the context, so calls
 * on one context are ordered by its queue.
 */
#ifndef FRICL_BARRIER_CL_H
#define FRICL_BARRIER_CL_H

#include "fricl/fricl_barrier.h"
#include "fricl/fricl_cl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device-tier twin of fricl_barrier_group: the same layouts, in caller
 * buffers with element offsets (vertices in int32 elements, distance_type
 * in int8 elements, every other array in elements of the working
 * precision). mem == NULL means absent, with fricl_barrier_group's
 * meaning for each field (weight 1, batch.dmin, classified distance
 * types, output not computed). */
typedef struct fricl_barrier_group_cl {
  fricl_stencil type;
  size_t count;
  /* Inputs (read only). */
  fricl_buffer_cl vertices;      /* count x k: required when count > 0 */
  fricl_buffer_cl weight;        /* count, or absent */
  fricl_buffer_cl dmin;          /* count, or absent */
  fricl_buffer_cl plane_normal;  /* PV: count x dim, required */
  fricl_buffer_cl plane_offset;  /* PV: count, required */
  fricl_buffer_cl distance_type; /* count int8 (ipctk numbering, -1 auto) */
  /* Per-contact outputs, each optional. */
  fricl_buffer_cl potential;      /* count */
  fricl_buffer_cl local_gradient; /* count x ndof */
  fricl_buffer_cl local_hessian;  /* count x ndof x ndof, projected */
} fricl_barrier_group_cl;

/* Device-tier twin of fricl_barrier_batch. */
typedef struct fricl_barrier_batch_cl {
  /* Set by the _init. Any size from the end of `groups` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_psd psd;
  uint32_t flags; /* FRICL_BARRIER_FLAG_* */
  int dim;        /* 2 or 3 */
  size_t n_vertices;
  fricl_buffer_cl positions;      /* n_vertices x dim */
  fricl_buffer_cl rest_positions; /* n_vertices x dim, or absent */
  double dhat, kappa, dmin;       /* as in fricl_barrier_batch */
  size_t n_groups;                /* at most 64 */
  const fricl_barrier_group_cl *groups;
  /* Required for gradient, hessian_values and hessian_product (their
   * gathers follow its lists): from fricl_barrier_plan_create on the same
   * context, dim, n_vertices, group types, counts and vertex indices. The
   * device's vertex indices cannot be compared with the plan's, only the
   * types and counts: indices that differ give wrong sums, never an
   * out-of-bounds access. */
  const fricl_tangential_plan *plan;
  fricl_buffer_cl direction; /* n_vertices x dim p, for hessian_product */
  /* Global outputs, each optional. */
  fricl_buffer_cl potential;       /* 1 value */
  fricl_buffer_cl gradient;        /* n_vertices x dim */
  fricl_buffer_cl hessian_values;  /* nnz_blocks x dim x dim, BSR order */
  fricl_buffer_cl hessian_product; /* n_vertices x dim */
} fricl_barrier_batch_cl;

/** Zero @p batch, set struct_size, dim 3, f64, PSD none. @since 0.4 */
FRICL_API void fricl_barrier_batch_cl_init(fricl_barrier_batch_cl *batch);

/**
 * Enqueue the barrier's evaluation on the context's queue after
 * @p wait_list (@p num_wait events); @p done, if not NULL, receives an
 * event that completes with it (the caller releases it). On a context
 * over several devices, its first device runs it.
 *
 * Validated on the host before anything is enqueued (messages name the
 * argument): the batch parameters (struct_size, precision and the
 * device's fp64, psd, flags, dim, dhat, kappa, dmin), group types and
 * counts, required buffers (vertices, PV planes, positions, direction
 * with hessian_product, plan with a gathered output), that each buffer
 * belongs to the context's OpenCL context and holds offset + size
 * elements, and the plan (context, dim, n_vertices, types, counts).
 * Output buffers must not overlap each other or the inputs
 * (INVALID_ARGUMENT naming both). Device-resident values are not read
 * back: a vertex index out of range yields NaN for its contact, invalid
 * weights or planes give NaN or meaningless values, never an
 * out-of-bounds access.
 * @return OK, INVALID_ARGUMENT, NO_FP64, UNSUPPORTED (a context without an
 *         OpenCL device), OUT_OF_MEMORY, OPENCL_ERROR, BUILD_FAILED.
 * @since 0.4
 */
FRICL_API fricl_status fricl_barrier_eval_cl(
    fricl_context *ctx, const fricl_barrier_batch_cl *batch, cl_uint num_wait,
    const cl_event *wait_list, cl_event *done);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_BARRIER_CL_H */
