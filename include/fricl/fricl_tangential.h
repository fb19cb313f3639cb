/*
 * fricl_tangential.h - per-contact IPC friction: the tangential potential D,
 * its gradient and its PSD-projected Hessian for every contact stencil, and
 * their assembly into global vectors and a sparse matrix
 * (docs/ipc-friction.md section 4). Included by <fricl/fricl.h>.
 *
 * Contents
 *   Stencils ..... fricl_stencil, fricl_stencil_name, _from_name,
 *                  fricl_stencil_vertex_count, fricl_stencil_coord_count
 *   Projection ... fricl_psd, fricl_psd_name, fricl_psd_from_name
 *   Mollifier .... fricl_mollifier, fricl_mollifier_name, _from_name
 *   Contacts ..... fricl_contact_group
 *   Plan ......... fricl_tangential_plan_create, _destroy, _bsr, _csr
 *   Evaluation ... fricl_tangential_batch_init, fricl_tangential_eval
 *   cl_mem tier .. fricl_tangential_eval_cl in <fricl/fricl_cl.h>
 *
 * The data model: contacts come in groups of one stencil type. Everything
 * per contact is lagged (computed once from geometry, e.g. by the lagged
 * build, and held fixed); only the velocities change between evaluations.
 * A plan captures what depends on the contact topology alone (which
 * vertices every contact touches): the sparsity pattern of the global
 * Hessian and the gather lists that make assembly deterministic without
 * atomics. Build one plan per set of active contacts and reuse it for every
 * evaluation of a Newton solve.
 */
#ifndef FRICL_TANGENTIAL_H
#define FRICL_TANGENTIAL_H

#include "fricl/fricl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- stencils */

/* Contact stencils; vertices in the spec's order (section 4.2):
 *   VV  v0, v1            (3-D and 2-D)  gamma = (1, -1)
 *   EV  p, e0, e1         (3-D and 2-D)  gamma = (1, a-1, -a), beta = (a)
 *   EE  ea0, ea1, eb0, eb1 (3-D only)    gamma = (1-ba, ba, bb-1, -bb)
 *   FV  p, t0, t1, t2     (3-D only)     gamma = (1, b1+b2-1, -b1, -b2)
 *   PV  v                 (3-D and 2-D)  gamma = (1); the plane is static
 * The order of the enum is the upstream container order; the list is
 * FRICL_STENCIL_MAP in <fricl/fricl_tables.h>. */
typedef enum fricl_stencil {
#define FRICL_STENCIL_ENUM_(name, value, text, k, nb, only3d)                  \
  FRICL_STENCIL_##name = value,
  FRICL_STENCIL_MAP(FRICL_STENCIL_ENUM_)
#undef FRICL_STENCIL_ENUM_
      FRICL_STENCIL_COUNT = FRICL_TABLE_COUNT(FRICL_STENCIL_MAP)
} fricl_stencil;

/** @return "vv", "ev", "ee", "fv" or "pv"; NULL if unknown. @since 0.2 */
FRICL_API const char *fricl_stencil_name(fricl_stencil type);
/** @return OK or INVALID_ARGUMENT. @since 0.2 */
FRICL_API fricl_status fricl_stencil_from_name(const char *name,
                                               fricl_stencil *type);
/** @return k, the number of vertices of the stencil (0 if unknown).
 *  @since 0.2 */
FRICL_API int fricl_stencil_vertex_count(fricl_stencil type);
/** @return the number of closest-point coordinates beta (0, 1 or 2).
 *  @since 0.2 */
FRICL_API int fricl_stencil_coord_count(fricl_stencil type);

/* ----------------------------------------------------------- projection */

/* How the contact Hessian is made positive semi-definite. Done in closed
 * form on the (dim-1)x(dim-1) inner matrix (spec 4.5). */
/* NONE: the exact Hessian; CLAMP: negative eigenvalues -> 0; ABS: negative
 * eigenvalues -> |lambda| (FRICL_PSD_MAP in <fricl/fricl_tables.h>). */
typedef enum fricl_psd {
#define FRICL_PSD_ENUM_(name, value, text) FRICL_PSD_##name = value,
  FRICL_PSD_MAP(FRICL_PSD_ENUM_)
#undef FRICL_PSD_ENUM_
} fricl_psd;

/** @return "none", "clamp" or "abs"; NULL if unknown. @since 0.2 */
FRICL_API const char *fricl_psd_name(fricl_psd psd);
/** @return OK or INVALID_ARGUMENT. @since 0.2 */
FRICL_API fricl_status fricl_psd_from_name(const char *name, fricl_psd *psd);

/* ------------------------------------------------------------ mollifier */

/* The mollifier family of the tangential potential (spec 4.11):
 * FRICL_MOLLIFIER_FRICTION (0, the default: ipctk's FrictionPotential) or
 * FRICL_MOLLIFIER_ADHESION (1: ipctk's TangentialAdhesionPotential, with
 * eps_v holding eps_a). FRICL_MOLLIFIER_MAP in <fricl/fricl_tables.h>.
 * @since 0.4 */
typedef enum fricl_mollifier {
#define FRICL_MOLLIFIER_ENUM_(name, value, text) FRICL_MOLLIFIER_##name = value,
  FRICL_MOLLIFIER_MAP(FRICL_MOLLIFIER_ENUM_)
#undef FRICL_MOLLIFIER_ENUM_
      FRICL_MOLLIFIER_COUNT = FRICL_TABLE_COUNT(FRICL_MOLLIFIER_MAP)
} fricl_mollifier;

/** @return "friction" or "adhesion"; NULL if unknown. @since 0.4 */
FRICL_API const char *fricl_mollifier_name(fricl_mollifier mollifier);
/** @return OK or INVALID_ARGUMENT. @since 0.4 */
FRICL_API fricl_status fricl_mollifier_from_name(const char *name,
                                                 fricl_mollifier *mollifier);

/* ------------------------------------------------------------- contacts */

/*
 * A group of `count` contacts of one stencil type with their lagged data,
 * and the group's optional per-contact outputs. Real arrays hold double for
 * FRICL_F64 and float for FRICL_F32; all are row-major and contiguous.
 * With k = fricl_stencil_vertex_count(type), nb = fricl_stencil_coord_count,
 * m = dim - 1 and ndof = k * dim:
 */
typedef struct fricl_contact_group {
  fricl_stencil type;
  size_t count;
  /* Inputs (borrowed for the call, never written). */
  const int32_t *vertices;   /* count x k vertex indices, stencil order */
  const void *closest_point; /* count x nb (beta, unclamped); NULL if nb=0 */
  const void *tangent_basis; /* count x dim x m: P, orthonormal columns */
  const void *normal_force;  /* count: N, finite */
  const void *weight;        /* count: w, finite; NULL means all 1 */
  const void *mu_s;          /* count: static coefficient, finite, >= 0 */
  const void *mu_k;          /* count: kinetic coefficient, finite, >= 0 */
  const void *mu_aniso;      /* count x m: anisotropy a; NULL means all 1 */
  /* Per-contact outputs, each optional (NULL: not computed). They must not
   * overlap any input or each other. */
  void *potential;        /* count: D of each contact */
  void *local_hessian;    /* count x ndof x ndof: dense projected Hessian */
  void *factored_gamma;   /* count x k: the Gamma coefficients gamma_i */
  void *factored_grad;    /* count x dim: q, gradient block i = gamma_i q */
  void *factored_hessian; /* count x dim(dim+1)/2: S packed by rows of the
                             upper triangle (S00 S01 S02 S11 S12 S22 in 3-D,
                             S00 S01 S11 in 2-D); Hessian block (i, j) =
                             gamma_i gamma_j S */
} fricl_contact_group;

/* ----------------------------------------------------------------- plan */

typedef struct fricl_tangential_plan fricl_tangential_plan;

/**
 * Analyse the topology of a contact set: the global Hessian's block
 * sparsity (BSR with dim x dim blocks, block columns sorted within each
 * block row, duplicates merged) and the gather lists for assembly. Reads
 * only type, count and vertices of each group; the data and outputs of the
 * groups are ignored. The plan keeps no pointer to the groups; it records a
 * checksum of the vertex arrays, and an evaluation with different vertices
 * is rejected.
 * @param[in]  ctx        the context the plan will be used with (its
 *                        device holds the plan's gather lists).
 * @param[in]  dim        2 or 3.
 * @param[in]  n_vertices number of vertices of the velocity array.
 * @param[out] out        the plan, owned by the caller; release it with
 *                        fricl_tangential_plan_destroy before @p ctx.
 * @return OK, INVALID_ARGUMENT (message names the group and first bad
 *         contact), OUT_OF_MEMORY, OPENCL_ERROR.
 * @since 0.2
 */
FRICL_API fricl_status fricl_tangential_plan_create(
    fricl_context *ctx, int dim, size_t n_vertices, size_t n_groups,
    const fricl_contact_group *groups, fricl_tangential_plan **out);

/** Release a plan. NULL is a no-op. @since 0.2 */
FRICL_API void fricl_tangential_plan_destroy(fricl_tangential_plan *plan);

/**
 * The BSR structure of the global Hessian: n_vertices block rows,
 * row_ptr[n_vertices + 1] (int64) and nnz_blocks block column indices.
 * The arrays are owned by the plan and valid while it lives. Any output
 * pointer may be NULL. Values (from fricl_tangential_eval) are stored
 * block after block, each block dim x dim row-major.
 * @since 0.2
 */
FRICL_API fricl_status fricl_tangential_plan_bsr(
    const fricl_tangential_plan *plan, size_t *n_block_rows, size_t *nnz_blocks,
    const int64_t **row_ptr, const int32_t **block_cols);

/**
 * Expand BSR values into scalar CSR (rows sorted, columns sorted within a
 * row): n = n_vertices * dim rows, nnz = nnz_blocks * dim * dim entries.
 * @param[in]  bsr_values nnz_blocks * dim * dim reals of @p precision.
 * @param[out] row_ptr    n + 1 entries, or NULL.
 * @param[out] cols       nnz entries, or NULL.
 * @param[out] values     nnz reals, or NULL. Must not overlap bsr_values.
 * @return OK; INVALID_ARGUMENT; UNSUPPORTED when cols are requested and
 *         n exceeds INT32_MAX (the scalar column indices are int32).
 * @since 0.2
 */
FRICL_API fricl_status fricl_tangential_plan_csr(
    const fricl_tangential_plan *plan, fricl_precision precision,
    const void *bsr_values, int64_t *row_ptr, int32_t *cols, void *values);

/* ----------------------------------------------------------- evaluation */

/* Reproduce ipctk's ABS projection exactly: with scale = w N <= 0 its
 * dynamic and y = 0 branches return 0 while the generic branch returns |H|.
 * Without the flag fricl applies |.| uniformly (spec 4.5). */
#define FRICL_TANGENTIAL_FLAG_IPCTK_ABS 0x1u
/* Reject tangent bases whose columns are not orthonormal to within 1e-8
 * (f64) or 1e-4 (f32) in every entry of P^T P - I. Off by default: it reads
 * every basis once more. */
#define FRICL_TANGENTIAL_FLAG_CHECK_BASIS 0x2u

typedef struct fricl_tangential_batch {
  /* Set by the _init. Any size from the end of `groups` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_mu_profile mu_profile;
  fricl_psd psd;
  uint32_t flags; /* FRICL_TANGENTIAL_FLAG_* */
  int dim;        /* 2 or 3 */
  size_t n_vertices;
  /* n_vertices x dim velocities (or displacements, with eps_v scaled by
   * the time step: D scales by h, the gradient is invariant, the Hessian
   * scales by 1/h; spec 4.8). */
  const void *velocities;
  double eps_v; /* > 0 and finite; converted to the working precision */
  size_t n_groups;
  const fricl_contact_group *groups; /* concatenated in this order */
  /* Required for hessian_values; optional otherwise (gradient and
   * hessian_product then build a temporary plan per call). Must come from
   * the same context, dim, n_vertices and group topology. */
  const fricl_tangential_plan *plan;
  /* n_vertices x dim direction p for the matrix-free product, or NULL. */
  const void *direction;
  /* Global outputs, each optional. */
  void *potential;       /* 1 value: sum of D, in a fixed order */
  void *gradient;        /* n_vertices x dim */
  void *hessian_values;  /* nnz_blocks x dim x dim, the plan's BSR order */
  void *hessian_product; /* n_vertices x dim: H p, H never stored */
  /* The mollifier family (0, friction, when the caller's struct_size ends
   * before it). @since 0.4 */
  fricl_mollifier mollifier;
} fricl_tangential_batch;

/** Zero @p batch, set struct_size, dim 3, f64, cubic, PSD none. @since 0.2 */
FRICL_API void fricl_tangential_batch_init(fricl_tangential_batch *batch);

/**
 * Evaluate D, its gradient and its projected Hessian over all contacts,
 * writing every requested output in one pass over the contact data.
 * Validation happens before any work: dim, eps_v > 0, stencil types valid
 * for dim, vertex indices in [0, n_vertices) (the message names the group
 * and contact), N and w finite, mu_s and mu_k finite and >= 0, missing
 * arrays, overlapping outputs, plan mismatch. NaN velocities propagate to
 * the outputs of the contacts that read them and to the sums they enter.
 * Zero contacts is valid: sums are 0. Results are bitwise identical from
 * run to run, and chunked runs equal unchunked ones.
 * @return OK, INVALID_ARGUMENT, NO_FP64, OUT_OF_MEMORY, OPENCL_ERROR,
 *         BUILD_FAILED. Details in fricl_context_last_error.
 * @since 0.2
 */
FRICL_API fricl_status
fricl_tangential_eval(fricl_context *ctx, const fricl_tangential_batch *batch);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_TANGENTIAL_H */
