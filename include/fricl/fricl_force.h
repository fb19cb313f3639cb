/*
 * fricl_force.h - the friction force at the lagged state and its Jacobians
 * with respect to rest positions, lagged displacements and velocities, as
 * ipctk 1.6.1's TangentialPotential::force / force_jacobian compute them
 * (docs/ipc-friction.md section 5.9). Included by <fricl/fricl.h>.
 *
 * Contents
 *   Groups ....... fricl_force_group
 *   Layout ....... fricl_vertex_layout
 *   Evaluation ... fricl_force_batch_init, fricl_force_eval
 *
 * Unlike fricl_tangential_eval, which takes the lagged data as given, the
 * force recomputes it from the geometry at the lagged positions
 * x = rest + lagged displacement: the normal force N(x) of the clamped-log
 * barrier (kappa, dhat, batch dmin, physical flag), the closest point
 * beta(x) and the tangent basis P(x), each contact evaluated as classified
 * (EV point-line, EE line-line, FV point-plane). With
 * T = Gamma(beta)^T P, tau = T^T v and ta = a (.) tau (a = mu_aniso):
 *
 *   F = -w N(x) mu f1(|ta|)/|ta| T ta
 *
 * Only the weight w, mu_s, mu_k and mu_aniso are read per contact. The
 * Jacobians are exact (no finite differences); those with respect to rest
 * positions and lagged displacements are equal: the weights are treated as
 * constants (ipctk adds a weight-gradient term for rest positions from
 * shape derivatives; a caller who has them adds (F / w) grad(w)^T, see
 * docs/api.md).
 */
#ifndef FRICL_FORCE_H
#define FRICL_FORCE_H

#include "fricl/fricl_base.h"
#include "fricl/fricl_tangential.h" /* fricl_stencil, plans */

#ifdef __cplusplus
extern "C" {
#endif

/* What the Jacobian is taken with respect to (ipctk's DiffWRT). */
typedef enum fricl_force_wrt {
  FRICL_FORCE_WRT_NONE = 0,           /* no Jacobian */
  FRICL_FORCE_WRT_REST_POSITIONS = 1, /* x (weights constant) */
  FRICL_FORCE_WRT_LAGGED_DISPLACEMENTS = 2,
  FRICL_FORCE_WRT_VELOCITIES = 3
} fricl_force_wrt;

/*
 * A group of `count` contacts of one stencil type (vertex order as in
 * fricl_tangential.h). Real arrays hold double for FRICL_F64 and float for
 * FRICL_F32; k = fricl_stencil_vertex_count(type), m = dim - 1,
 * ndof = k dim.
 */
typedef struct fricl_force_group {
  fricl_stencil type;
  size_t count;
  /* Inputs (borrowed for the call, never written). */
  const int32_t *vertices;  /* count x k vertex indices */
  const void *plane_normal; /* PV only: count x dim, nonzero, finite */
  const void *plane_offset; /* PV only: count, finite */
  const void *weight;       /* count: w, finite; NULL: all 1 */
  const void *mu_s;         /* count: finite, >= 0 */
  const void *mu_k;         /* count: finite, >= 0 */
  const void *mu_aniso;     /* count x m: a, finite; NULL: all 1 */
  /* Per-contact outputs, each optional (NULL: not computed). */
  void *local_force;    /* count x ndof */
  void *local_jacobian; /* count x ndof x ndof, row-major dF_r / dq_c */
  void *normal_force;   /* count: N(x) */
} fricl_force_group;

/* How the vertex arrays rest_positions, lagged_displacements and
 * velocities are stored (the force output is always n_vertices x dim,
 * vertex after vertex). */
typedef enum fricl_vertex_layout {
  /* n_vertices x dim, row-major: vertex after vertex (the default). */
  FRICL_VERTEX_ROWS = 0,
  /* dim x n_vertices: coordinate after coordinate, entry (vertex i,
   * coordinate s) at s n_vertices + i; the memory of a column-major
   * (Fortran-ordered) n_vertices x dim array, as Eigen and ipctk's
   * callers hold them, read in place. */
  FRICL_VERTEX_COLUMNS = 1
} fricl_vertex_layout;

/* Evaluate with mu_s = mu_k = 1 (ipctk's no_mu). */
#define FRICL_FORCE_FLAG_NO_MU 0x1u
/* N *= dhat / x^^2 (ipctk's use_physical_barrier). */
#define FRICL_FORCE_FLAG_PHYSICAL_BARRIER 0x2u
/* jacobian_values holds the scalar CSC values of the Jacobian instead of
 * its BSR blocks: column after column, rows ascending within a column,
 * in the plan's (symmetric) pattern; the same nnz_blocks dim dim reals
 * (the CSC arrays of SciPy and Eigen; indices from the plan's CSR of the
 * transpose, e.g. fricl_tangential_plan_csr's row_ptr and cols). */
#define FRICL_FORCE_FLAG_JACOBIAN_CSC 0x4u

typedef struct fricl_force_batch {
  /* Set by the _init. Any size from the end of `groups` on is accepted. */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_mu_profile mu_profile;
  uint32_t flags; /* FRICL_FORCE_FLAG_* */
  int dim;        /* 2 or 3 */
  size_t n_vertices;
  /* n_vertices x dim each, all finite except the velocities (NaN
   * propagates). rest_positions may be NULL (all 0: then
   * lagged_displacements are the lagged positions). */
  const void *rest_positions;
  const void *lagged_displacements;
  const void *velocities;
  double eps_v;             /* > 0, finite */
  double kappa, dhat, dmin; /* barrier: kappa >= 0, dhat > 0, dmin >= 0 */
  fricl_force_wrt wrt;      /* the Jacobian asked for (NONE: none) */
  size_t n_groups;
  const fricl_force_group *groups; /* concatenated in this order */
  /* Required for jacobian_values: from fricl_tangential_plan_create (or
   * fricl_barrier_plan_create) on the same context, dim, n_vertices and
   * topology. Optional for the force alone: its vertex lists then assemble
   * the force (checked against the groups; NULL: the context keeps the
   * lists of the last topology evaluated without one). */
  const fricl_tangential_plan *plan;
  /* Global outputs, each optional. */
  void *force;           /* n_vertices x dim */
  void *jacobian_values; /* nnz_blocks x dim x dim, the plan's BSR order;
                            block (i, j) row-major dF_i / dq_j (or CSC:
                            FRICL_FORCE_FLAG_JACOBIAN_CSC) */
  /* The layout of the three vertex input arrays (@since 0.4; absent in
   * older layouts: FRICL_VERTEX_ROWS). Results are bitwise the same in
   * either. */
  fricl_vertex_layout vertex_layout;
} fricl_force_batch;

/** Zero @p batch, set struct_size, dim 3, f64, cubic profile. @since 0.4 */
FRICL_API void fricl_force_batch_init(fricl_force_batch *batch);

/**
 * The friction force and, when batch.wrt is set, its Jacobian, summed over
 * every contact in contact order (bitwise reproducible, any thread count).
 * Validation happens before any work and names the argument and the first
 * bad index: precision, profile, flags, wrt, dim, eps_v, kappa, dhat,
 * dmin, positions finite, stencil types, vertex indices, PV planes,
 * weight, mu, mu_aniso, missing arrays, overlapping outputs, plan.
 * Dispatched as the barrier: on an OpenCL device the per-contact records
 * come from kernels/fricl_force.cl (within the rounding of the device's
 * log and sqrt), then are added on the host; the host backends run the
 * same pass on the context's threads (one on the reference backend).
 * @return OK, INVALID_ARGUMENT, OUT_OF_MEMORY.
 * @since 0.4
 */
FRICL_API fricl_status fricl_force_eval(fricl_context *ctx,
                                        const fricl_force_batch *batch);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_FORCE_H */
