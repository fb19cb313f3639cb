/*
 * fricl_barrier.h - the normal-contact barrier beside friction: per contact
 * B = kappa w m(x) b(d^2 - dmin^2, (2 dmin + dhat) dhat), ipctk 1.6.1's
 * BarrierPotential with the clamped-log barrier on squared distances, its
 * gradient and its Hessian (projected onto the PSD cone as a whole local
 * matrix), batched over contact groups and assembled into global vectors
 * and the sparse matrix of a fricl_tangential_plan. docs/barrier.md is
 * the normative specification; docs/api.md, "Normal-contact barrier", the
 * tour.
 *
 * Contents
 *   Contacts ..... fricl_barrier_group
 *   Function ..... fricl_normal_function (the barrier or normal adhesion)
 *   Extras ....... fricl_barrier_extras, FRICL_BARRIER_FLAG_SHAPE
 *   Plan ......... fricl_barrier_plan_create (a fricl_tangential_plan)
 *   Evaluation ... fricl_barrier_batch_init, fricl_barrier_eval
 *   cl_mem tier .. fricl_barrier_eval_cl in fricl_barrier_cl.h (this
 *                  header stays free of OpenCL types)
 *
 * Semantics (ipctk 1.6.1, BarrierPotential(dhat, kappa, physical)):
 *  - b(x, xh) = -(x - xh)^2 ln(x / xh) on 0 < x < xh, 0 for x >= xh, +inf
 *    for x <= 0 (where upstream's b' and b'' are 0, and so are fricl's).
 *  - d^2 is the squared distance between the closest features of the
 *    stencil, classified by the nearest feature with ipctk's rules
 *    (point-point, point-edge, point-triangle regions, the edge-edge cases
 *    including nearly parallel edges); the derivatives are those of that
 *    feature. A per-contact distance_type forces a feature. This is not
 *    how ipctk evaluates its collisions; FRICL_BARRIER_FLAG_AS_CLASSIFIED
 *    is: EV contacts then take the point-line distance and FV contacts the
 *    point-plane distance wherever the point lies (docs/barrier.md, 5).
 *  - EE contacts are mollified: m(x) = (2 - x/eps_x) x/eps_x for x =
 *    |ea x eb|^2 < eps_x = 1e-3 |ea_rest|^2 |eb_rest|^2, else 1.
 *  - With FRICL_BARRIER_FLAG_PHYSICAL, b is scaled by dhat / xh^2
 *    (use_physical_barrier).
 *  - PV contacts are against a static plane {y : n.y + c = 0}, n of any
 *    nonzero length: d^2 = (n.x + c)^2 / |n|^2.
 *  - The local Hessian (up to 12 x 12) is projected as a whole: PSD none,
 *    clamp (negative eigenvalues -> 0) or abs (-> |lambda|), as ipctk's
 *    project_to_psd.
 *
 * Assembly is deterministic: every global sum adds the contacts'
 * contributions in contact order; the reference and host backends agree
 * bitwise whatever the thread count.
 *
 * Backends: fricl_barrier_eval runs on the backend the context's dispatch
 * picks, as fricl_tangential_eval does ("auto": the host backend below
 * the crossover, the OpenCL device above it, FRICL_FEATURE_BARRIER;
 * fricl_context_last_backend reports it). On an OpenCL device the
 * per-contact math runs there (its log and sqrt may round differently:
 * 1e-10 of scale in f64) and the sums on the host, in the same order; a
 * context over several devices splits the contacts over them with the
 * result of one device, bit for bit.
 */
#ifndef FRICL_BARRIER_H
#define FRICL_BARRIER_H

#include "fricl/fricl_base.h"
#include "fricl/fricl_tangential.h" /* fricl_stencil, fricl_psd, plans */

#ifdef __cplusplus
extern "C" {
#endif

/* A group of `count` contacts of one stencil type (vertex order of
 * fricl_stencil). Real arrays hold double for FRICL_F64 and float for
 * FRICL_F32; with k = fricl_stencil_vertex_count(type), ndof = k dim. */
typedef struct fricl_barrier_group {
  fricl_stencil type;
  size_t count;
  /* Inputs (borrowed for the call, never written). */
  const int32_t *vertices;  /* count x k vertex indices */
  const void *weight;       /* count: w, finite; NULL: all 1 */
  const void *dmin;         /* count: finite, >= 0; NULL: batch.dmin */
  const void *plane_normal; /* PV only: count x dim, nonzero, finite */
  const void *plane_offset; /* PV only: count, finite */
  /* count: the distance type of each contact in ipctk's numbering (EV:
   * PointEdgeDistanceType 0..2, EE: EdgeEdgeDistanceType 0..8, FV:
   * PointTriangleDistanceType 0..6; -1 or the AUTO value: classified from
   * the positions, or with FRICL_BARRIER_FLAG_AS_CLASSIFIED P_E for EV and
   * P_T for FV), as a collision that carries a known type (ipctk's
   * improved max approximation) is evaluated. NULL: all -1; ignored for VV
   * and PV. */
  const int8_t *distance_type;
  /* Per-contact outputs, each optional (NULL: not computed). */
  void *potential;      /* count: B of each contact */
  void *local_gradient; /* count x ndof */
  void *local_hessian;  /* count x ndof x ndof, projected */
} fricl_barrier_group;

/* Use the physical barrier (b scaled by dhat / xh^2). */
#define FRICL_BARRIER_FLAG_PHYSICAL 0x1u
/* Evaluate each contact as ipctk 1.6.1 evaluates a collision of its class
 * ("as classified"), not by its nearest feature: an EV contact without a
 * given distance_type (NULL array, -1 or AUTO) takes the point-line
 * distance (P_E) and an FV contact the point-plane distance (P_T),
 * wherever the point lies. EE contacts without a type are still
 * classified by their nearest feature (an ipctk edge-edge collision
 * always carries its type: pass it in distance_type); VV and PV have one
 * distance. Without the flag nothing changes. @since 0.4 */
#define FRICL_BARRIER_FLAG_AS_CLASSIFIED 0x2u
/* The Hessian outputs (local_hessian, hessian_values, hessian_product)
 * receive the contacts' shape-derivative terms (fricl_barrier_extras.
 * shape_derivative: d(grad B)/d(rest) without the weights' term, not
 * symmetric for mollified EE contacts) instead of the Hessian, assembled
 * through the same plan; requires psd none. Host tier only. @since 0.4 */
#define FRICL_BARRIER_FLAG_SHAPE 0x4u

/* The normal potential's scalar function of x = d^2 - dmin^2
 * (fricl_barrier_batch.function). @since 0.4 */
typedef enum fricl_normal_function {
  /* kappa b(x, (2 dmin + dhat) dhat), the clamped-log barrier (above). */
  FRICL_NORMAL_BARRIER = 0,
  /* kappa a(x): ipctk 1.6.1's NormalAdhesionPotential(dhat_p, dhat_a, Y,
   * eps_c), C^1 and piecewise quadratic, negative (attracting) below
   * d^2 = dhat_a^2 + 2 dmin dhat_a (docs/barrier.md, section 13). Same
   * stencils, distances, weights, mollifier, projection and assembly. */
  FRICL_NORMAL_ADHESION = 1
} fricl_normal_function;

/* Per-contact extra outputs of one group (batch.extras[g]), each optional
 * (NULL: not computed); real arrays as the group's, ndof = k dim. The
 * layout is frozen: a later version adds a new struct. @since 0.4 */
typedef struct fricl_barrier_extras {
  /* count: the normal force magnitude N of the contact at its d^2 (ipctk's
   * force_magnitude(d^2, dmin): -kappa b'(x) 2 d for the barrier, scaled
   * by dhat / xh^2 with FRICL_BARRIER_FLAG_PHYSICAL; the constant 2 a2 (xp
   * - xa) kappa for adhesion). Neither the weight nor the mollifier. */
  void *force_magnitude;
  /* count x ndof: its gradient dN/d(d^2) grad d^2 (0 for adhesion). */
  void *force_magnitude_gradient;
  /* count x ndof: the diagonal of the contact's Gauss-Newton Hessian
   * w [4 f'' (c_i r_s)^2 + 2 f' c_i^2] (r = sum c_i x_i the distance
   * vector, f of the function in d^2; no mollifier, as ipctk). */
  void *gauss_newton_diagonal;
  /* count: p^T H_GN p of the contact with its part of batch.direction,
   * w [4 f'' (P.r)^2 + 2 f' |P|^2], P = sum c_i p_i. */
  void *gauss_newton_quadratic_form;
  /* count x ndof x ndof: the contact's shape derivative without the
   * weight's term, d(grad B)/d(rest) as ipctk 1.6.1 forms it: the
   * unprojected local Hessian, plus for a mollified EE contact the terms
   * of eps_x's dependence on the rest positions (docs/barrier.md, 14). */
  void *shape_derivative;
} fricl_barrier_extras;

typedef struct fricl_barrier_batch {
  /* Set by the _init. Any size from the end of `groups` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_psd psd;
  uint32_t flags; /* FRICL_BARRIER_FLAG_*; other bits are rejected */
  int dim;        /* 2 or 3 */
  size_t n_vertices;
  const void *positions;      /* n_vertices x dim: where B is evaluated */
  const void *rest_positions; /* n_vertices x dim, or NULL: positions (the
                                 EE mollifier threshold is taken there) */
  double dhat;                /* > 0 and finite */
  double kappa;               /* > 0 and finite */
  double dmin;                /* >= 0 and finite; per group: group.dmin */
  size_t n_groups;
  const fricl_barrier_group *groups; /* concatenated in this order */
  /* Required for hessian_values, optional otherwise; from
   * fricl_barrier_plan_create (or fricl_tangential_plan_create on the same
   * topology) with the same context, dim, n_vertices and groups. */
  const fricl_tangential_plan *plan;
  const void *direction; /* n_vertices x dim p for hessian_product */
  /* Global outputs, each optional. */
  void *potential;       /* 1 value: sum of B (blocks of 1024 contacts) */
  void *gradient;        /* n_vertices x dim */
  void *hessian_values;  /* nnz_blocks x dim x dim, the plan's BSR order */
  void *hessian_product; /* n_vertices x dim: H p */
  /* @since 0.4 (absent in older layouts: the barrier, no extras). */
  fricl_normal_function function; /* FRICL_NORMAL_BARRIER by default */
  /* FRICL_NORMAL_ADHESION's parameters: 0 < dhat_p < dhat_a, Y > 0,
   * eps_c > 0, finite (batch.dhat is then not read, kappa scales a, and
   * FRICL_BARRIER_FLAG_PHYSICAL is rejected). */
  double adhesion_dhat_p, adhesion_dhat_a, adhesion_Y, adhesion_eps_c;
  /* NULL, or n_groups entries: each group's per-contact extras. */
  const fricl_barrier_extras *extras;
  /* Global extras, each optional: the Gauss-Newton Hessian's diagonal
   * (n_vertices x dim, the contacts' diagonals added in contact order) and
   * its quadratic form p^T H_GN p for p = direction (1 value, summed in
   * blocks of 1024 contacts as the potential). */
  void *gauss_newton_diagonal;
  void *gauss_newton_quadratic_form;
} fricl_barrier_batch;

/** Zero @p batch, set struct_size, dim 3, f64, PSD none. @since 0.4 */
FRICL_API void fricl_barrier_batch_init(fricl_barrier_batch *batch);

/**
 * The plan (BSR pattern and gather lists) of a barrier contact set: reads
 * type, count and vertices of each group. Release it with
 * fricl_tangential_plan_destroy; its structure is read with
 * fricl_tangential_plan_bsr / _csr.
 * @return OK, INVALID_ARGUMENT, OUT_OF_MEMORY, OPENCL_ERROR.
 * @since 0.4
 */
FRICL_API fricl_status fricl_barrier_plan_create(
    fricl_context *ctx, int dim, size_t n_vertices, size_t n_groups,
    const fricl_barrier_group *groups, fricl_tangential_plan **out);

/**
 * Evaluate B, its gradient and its projected Hessian over all contacts,
 * on the backend the context's dispatch picks (see the top of this file).
 * Every array is the caller's, borrowed for the call only.
 * Validation happens before any work (dim, dhat, kappa, dmin, stencil
 * types for dim, vertex indices, weights, per-contact dmin, planes,
 * missing arrays, overlapping outputs, plan mismatch; the message names
 * the argument and the first bad contact). NaN positions propagate to the
 * outputs of the contacts that read them and to the sums they enter.
 * @return OK, INVALID_ARGUMENT, NO_FP64, OUT_OF_MEMORY, OPENCL_ERROR,
 *         BUILD_FAILED. Details in fricl_context_last_error.
 * @since 0.4
 */
FRICL_API fricl_status fricl_barrier_eval(fricl_context *ctx,
                                          const fricl_barrier_batch *batch);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_BARRIER_H */
