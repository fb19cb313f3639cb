/*
 * fricl_build.h - the lagged friction build: from lagged vertex positions
 * and a list of active contacts to the per-contact data of the tangential
 * potential (closest points beta, tangent bases P, normal force N, weight,
 * mu_s, mu_k), with a status code per contact
 * (docs/ipc-friction.md section 5). Included by <fricl/fricl.h>.
 *
 * Contents
 *   Status codes ... fricl_build_status, fricl_build_status_name
 *   Blending ....... fricl_mu_blend, fricl_mu_blend_name,
 *                    fricl_mu_blend_from_name
 *   Groups ......... fricl_build_group
 *   Report ......... fricl_build_report
 *   Build .......... fricl_build_batch_init, fricl_build_batch
 *
 * The outputs of a build group have exactly the layout of the inputs of a
 * fricl_contact_group (fricl_tangential.h), so a contact group can point at
 * them directly: closest_point count x nb, tangent_basis count x dim x
 * (dim - 1) row-major, normal_force, weight, mu_s, mu_k count each.
 *
 * Per-contact rules (spec 5):
 *   beta   unclamped projection onto the supporting line / plane (5.2)
 *   P      orthonormal tangent basis, exactly the spec's choice rules (5.3)
 *   d^2    squared distance: VV point-point, EV point to the closed
 *          segment, EE line-line, FV point to the closed triangle, PV
 *          point-plane (5.5)
 *   N      -kappa b'(d^2 - dmin^2; x^) 2 sqrt(d^2) with the clamped-log
 *          barrier, x^ = (2 dmin + dhat) dhat; optionally times
 *          dhat / x^^2 (physical barrier) (5.6)
 *   mu     per contact, or per vertex interpolated with the unclamped beta
 *          and blended (5.7), or a batch scalar
 *
 * Contacts that get no friction are never dropped and never NaN: they keep
 * their place with N = 0, a zero gradient of N, finite beta (0) and a
 * finite orthonormal P (the first dim - 1 columns of the identity), and
 * their status says why (fricl_build_status). Evaluating the tangential
 * potential on them therefore gives exactly zero. One contact's geometry
 * never affects another contact's outputs.
 */
#ifndef FRICL_BUILD_H
#define FRICL_BUILD_H

#include "fricl/fricl_base.h"
#include "fricl/fricl_tangential.h" /* fricl_stencil */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- status codes */

/*
 * X(name, value, description): the per-contact status (one uint8 per
 * contact). Values are pinned. When several apply, the first in this order
 * wins: EE_PARALLEL, DEGENERATE_*, NONFINITE, MU_*, INSIDE_DMIN, INACTIVE
 * (N and its gradient are computed, and can overflow into NONFINITE, only
 * for contacts that passed the geometry and mu checks).
 * Every code except OK has N = 0 and a zero gradient of N.
 * EE_PARALLEL, DEGENERATE_* and NONFINITE also replace beta and P by the
 * fallback (beta = 0, P = identity columns); mu then comes from beta = 0.
 * MU_* keep beta and P and set mu_s = mu_k = 0 (any non-finite or negative
 * mu is replaced by 0, whatever the status, so that the outputs are always
 * valid tangential inputs). INACTIVE and INSIDE_DMIN keep beta, P and mu:
 * there N = 0 by the barrier's definition (b' = 0 outside (0, x^)).
 */
/* The list (names, values, descriptions) is FRICL_BUILD_STATUS_MAP in
 * <fricl/fricl_tables.h>. */
typedef enum fricl_build_status {
#define FRICL_BUILD_STATUS_ENUM_(name, value, text, desc)                      \
  FRICL_BUILD_##name = value,
  FRICL_BUILD_STATUS_MAP(FRICL_BUILD_STATUS_ENUM_)
#undef FRICL_BUILD_STATUS_ENUM_
      FRICL_BUILD_STATUS_COUNT = FRICL_TABLE_COUNT(FRICL_BUILD_STATUS_MAP)
} fricl_build_status;

/** @return "ok", "inactive", "inside_dmin", "ee_parallel",
 *  "degenerate_coincident", ...; NULL if unknown. @since 0.3 */
FRICL_API const char *fricl_build_status_name(fricl_build_status status);
/** @return a static one-line description; NULL if unknown. @since 0.3 */
FRICL_API const char *fricl_build_status_text(fricl_build_status status);

/* ------------------------------------------------------------- blending */

/* How two mu values meet at a contact (spec 5.7), applied separately to
 * mu_s and mu_k. */
/*   AVERAGE   (a + b) / 2, the default
 *   MIN       min(a, b)
 *   MAX       max(a, b)
 *   PRODUCT   a b
 *   HARMONIC  2 a b / (a + b); 0 when a + b == 0
 * (FRICL_MU_BLEND_MAP in <fricl/fricl_tables.h>) */
typedef enum fricl_mu_blend {
#define FRICL_MU_BLEND_ENUM_(name, value, text) FRICL_BLEND_##name = value,
  FRICL_MU_BLEND_MAP(FRICL_MU_BLEND_ENUM_)
#undef FRICL_MU_BLEND_ENUM_
      FRICL_BLEND_COUNT = FRICL_TABLE_COUNT(FRICL_MU_BLEND_MAP)
} fricl_mu_blend;

/** @return "average", "min", "max", "product", "harmonic"; NULL if
 *  unknown. @since 0.3 */
FRICL_API const char *fricl_mu_blend_name(fricl_mu_blend blend);
/** @return OK or INVALID_ARGUMENT. @since 0.3 */
FRICL_API fricl_status fricl_mu_blend_from_name(const char *name,
                                                fricl_mu_blend *blend);

/* --------------------------------------------------------------- groups */

/*
 * A group of `count` contacts of one stencil type (vertex order as in
 * fricl_tangential.h). Real arrays hold double for FRICL_F64 and float for
 * FRICL_F32, row-major and contiguous. k = fricl_stencil_vertex_count(type),
 * nb = fricl_stencil_coord_count(type), m = dim - 1.
 */
typedef struct fricl_build_group {
  fricl_stencil type;
  size_t count;
  /* Inputs (borrowed for the call, never written). */
  const int32_t *vertices;  /* count x k, in [0, n_vertices) */
  const void *plane_normal; /* PV only (required there): count x dim, the
                               plane normal n (need not be unit length) */
  const void *plane_offset; /* PV only (required there): count, c; the
                               plane is {x : n.x + c = 0} */
  const void *dmin;         /* count, finite >= 0; NULL: batch.dmin */
  const void *weight;       /* count, finite; NULL: all 1 */
  /* Per-contact mu (finite, >= 0), or NULL: from batch.vertex_mu_s/_k if
   * given, else the batch scalar. Copied through unchanged. */
  const void *mu_s;
  const void *mu_k;

  /* Outputs, each optional (NULL: not written). They must not overlap any
   * input or each other. */
  void *closest_point; /* count x nb: beta, unclamped (unused if nb = 0) */
  void *tangent_basis; /* count x dim x m: P, row-major */
  void *normal_force;  /* count: N >= 0 */
  /* count x (k dim): dN/dx for the stencil's lagged positions, vertex i's
   * dim entries at [i dim, i dim + dim). */
  void *normal_force_gradient;
  void *weight_out; /* count: the weight used (input weight, or 1) */
  void *mu_s_out;   /* count */
  void *mu_k_out;   /* count */
  uint8_t *status;  /* count: fricl_build_status */
  /* FRICL_BUILD_STATUS_COUNT entries: the number of this group's contacts
   * with each status. Optional. */
  size_t *status_counts;
} fricl_build_group;

/* ------------------------------------------------------------- report */

/* Over all groups: the count of contacts per status and, per status, the
 * first contact that has it (group index and index within the group;
 * SIZE_MAX for both when none). */
typedef struct fricl_build_report {
  /* Set by fricl_build_report_init: the bytes fricl_build may write
   * (min of it and the library's size; the rest of a longer report is
   * zeroed), and on return the bytes written. */
  uint32_t struct_size;
  size_t count[FRICL_BUILD_STATUS_COUNT];
  size_t first_group[FRICL_BUILD_STATUS_COUNT];
  size_t first_contact[FRICL_BUILD_STATUS_COUNT];
  size_t total;    /* contacts over all groups */
  size_t no_force; /* contacts with status != OK (N = 0) */
} fricl_build_report;

/** Zero @p report and set struct_size. @since 0.3 */
FRICL_API void fricl_build_report_init(fricl_build_report *report);

/* ---------------------------------------------------------------- build */

/* N *= dhat / x^^2 (ipctk's use_physical_barrier for the clamped-log
 * barrier, whose units are x^^2), gradient included. */
#define FRICL_BUILD_FLAG_PHYSICAL_BARRIER 0x1u

typedef struct fricl_build_batch {
  /* Set by the _init. Any size from the end of `groups` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  int dim;        /* 2 or 3 */
  uint32_t flags; /* FRICL_BUILD_FLAG_* */
  size_t n_vertices;
  /* n_vertices x dim lagged positions X, all finite. */
  const void *lagged_positions;
  /* n_vertices x dim rest positions, or NULL. Only the edge-edge skip rule
   * reads them: eps_x = 1e-3 |ea_rest|^2 |eb_rest|^2 (spec 5.4). When NULL
   * the lagged positions are used for eps_x. */
  const void *rest_positions;
  /* Barrier: kappa finite >= 0, dhat finite > 0 (a distance, not squared),
   * dmin finite >= 0 (for groups without a dmin array). Converted to the
   * working precision before validation and use. */
  double kappa, dhat, dmin;
  /* Friction coefficients. Per contact: the group's mu_s / mu_k arrays.
   * Otherwise per vertex: vertex_mu_s / vertex_mu_k (n_vertices each,
   * finite >= 0), interpolated with the unclamped beta and blended with
   * `blend` (spec 5.7). Otherwise the scalars mu_s / mu_k (finite >= 0),
   * assigned to every contact as they are (no blend, as ipctk's scalar
   * build). mu_s and mu_k choose their source independently. */
  double mu_s, mu_k;
  const void *vertex_mu_s, *vertex_mu_k;
  fricl_mu_blend blend;
  size_t n_groups;
  const fricl_build_group *groups;
  fricl_build_report *report; /* optional output */
} fricl_build_batch;

/** Zero @p batch, set struct_size, dim 3, f64, average blend. @since 0.3 */
FRICL_API void fricl_build_batch_init(fricl_build_batch *batch);

/**
 * Build the lagged per-contact data of every group.
 * Validation happens before any work, and names the argument and the first
 * bad index: precision, dim, flags, blend, kappa >= 0, dhat > 0, dmin >= 0,
 * mu scalars >= 0 (all finite), every lagged / rest position finite, vertex
 * mu arrays, stencil types valid for dim, vertex indices in range (group and
 * first bad contact), PV planes present and finite, per-contact dmin,
 * weight and mu, missing arrays, overlapping outputs. Degenerate geometry
 * is not an error: it gets a status code (see above).
 * The same inputs give bitwise identical outputs on the same device, and
 * chunked runs (fricl_context_params.max_chunk_elements) equal unchunked
 * ones.
 * @return OK, INVALID_ARGUMENT, NO_FP64, OUT_OF_MEMORY, OPENCL_ERROR,
 *         BUILD_FAILED, UNSUPPORTED (a vertex array larger than one device
 *         allocation). Details in fricl_context_last_error.
 * @since 0.3
 */
FRICL_API fricl_status fricl_build(fricl_context *ctx,
                                   const fricl_build_batch *batch);

/**
 * Every check fricl_build makes before any work, with the same messages,
 * and nothing else: for a caller that has the batch on the host but runs
 * the build elsewhere (fricl_build_cl on buffers it uploads, which cannot
 * read device data back to check it).
 * @return OK or INVALID_ARGUMENT (details in fricl_context_last_error).
 * @since 0.4
 */
FRICL_API fricl_status fricl_build_validate(fricl_context *ctx,
                                            const fricl_build_batch *batch);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_BUILD_H */
