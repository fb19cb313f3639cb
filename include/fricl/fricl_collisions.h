/*
 * fricl_collisions.h - collision sets from positions: the normal collision
 * set of a collision mesh (ipctk 1.6.1's NormalCollisions::build, with its
 * distance types, deduplication into vv/ev/ee/fv/pv, area weights and the
 * improved max approximator), and the candidate set of a motion
 * (Candidates::build, for CCD). The set feeds fricl_barrier_eval, the lagged
 * build and the tangential evaluation as it is. docs/collisions.md is the
 * normative specification.
 *
 * Contents
 *   Mesh ........ fricl_collision_mesh_create / _destroy / _areas
 *   Collisions .. fricl_collisions_options_init, fricl_collisions_build,
 *                 fricl_collision_set_groups / _elements / _count,
 *                 fricl_collision_set_destroy
 *   Candidates .. fricl_candidates_build, fricl_candidate_set_pairs,
 *                 fricl_candidate_set_destroy
 *
 * Everything here runs on the context's host threads, in f64, except the
 * collision build's narrow phase of a large scene on an OpenCL context
 * (fricl_collisions_options.device_min_candidates); the result is the
 * same bit for bit whatever the thread count and the tier (a
 * deterministic spatial-hash broad phase, one narrow-phase source for
 * host and device, then collisions sorted by their ids). The
 * context keeps the builds' scratch buffers for its next build; they are
 * freed with the context.
 */
#ifndef FRICL_COLLISIONS_H
#define FRICL_COLLISIONS_H

#include "fricl/fricl_barrier.h" /* fricl_barrier_group */
#include "fricl/fricl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- mesh */

/* A collision mesh: topology and rest positions (ipctk's CollisionMesh
 * without a displacement map). Opaque; created once, reused by every
 * build. Holds its own copies; thread-safe to read concurrently. */
typedef struct fricl_collision_mesh fricl_collision_mesh;

typedef struct fricl_collision_mesh_desc {
  uint32_t struct_size; /* set by _desc_init */
  int dim;              /* 2 or 3 */
  size_t n_vertices;
  const double *rest_positions; /* n_vertices x dim, finite (areas, the EE
                                   mollifier threshold) */
  size_t n_edges;
  const int32_t *edges; /* n_edges x 2; every face edge must be listed */
  size_t n_faces;
  const int32_t *faces; /* n_faces x 3 (3-D only) */
} fricl_collision_mesh_desc;

/** Zero @p desc, set struct_size and dim 3. @since 0.4 */
FRICL_API void fricl_collision_mesh_desc_init(fricl_collision_mesh_desc *desc);

/**
 * Copy the mesh and derive what the builds need (faces to edges, codim.
 * vertices and edges, vertex and edge areas, adjacencies) as ipctk does.
 * The arrays are borrowed for the call. Validation names the argument and
 * the first bad index (out-of-range or repeated vertex, a face edge not in
 * `edges`, a non-finite rest position).
 * @return OK, INVALID_ARGUMENT, OUT_OF_MEMORY. @since 0.4
 */
FRICL_API fricl_status fricl_collision_mesh_create(
    fricl_context *ctx, const fricl_collision_mesh_desc *desc,
    fricl_collision_mesh **out);

/** Free a mesh (NULL is a no-op). Sets built from it stay valid. @since 0.4 */
FRICL_API void fricl_collision_mesh_destroy(fricl_collision_mesh *mesh);

/** The mesh's vertex areas (n_vertices) and edge areas (n_edges), ipctk's
 * CollisionMesh::vertex_areas / edge_areas; owned by the mesh. @since 0.4 */
FRICL_API void fricl_collision_mesh_areas(const fricl_collision_mesh *mesh,
                                          const double **vertex_areas,
                                          const double **edge_areas);

/* ---------------------------------------------------------- collisions */

/* Weight each collision by the areas ipctk uses (use_area_weighting). */
#define FRICL_COLLISIONS_AREA_WEIGHTING 0x1u
/* ipctk's CollisionSetType::IMPROVED_MAX_APPROX (negative weights that
 * cancel the double counting at shared vertices and edges). */
#define FRICL_COLLISIONS_IMPROVED_MAX_APPROX 0x2u

typedef struct fricl_collisions_options {
  uint32_t struct_size; /* set by _init */
  uint32_t flags;       /* FRICL_COLLISIONS_* */
  double dhat;          /* > 0, finite */
  double dmin;          /* >= 0, finite */
  /* Static planes {y : n.y + c = 0} (ipctk's mesh.planes): n unit length,
   * the signed distance n.x + c is what is compared. */
  size_t n_planes;
  const double *plane_normals; /* n_planes x dim */
  const double *plane_offsets; /* n_planes */
  /* fricl_collisions_build's tier (@since 0.4): the narrow phase (each
   * candidate's distance type, squared distance and whether it is in
   * range) runs on the context's OpenCL device when the broad phase finds
   * at least this many candidates (vv, ev, ee and fv together), else on
   * the host threads; the set is the same bit for bit either way. 0: the
   * default, FRICL_COLLISIONS_DEVICE_MIN_CANDIDATES; 1: the device for any
   * scene; SIZE_MAX: never. The device is the context's when it is one
   * OpenCL device with double precision ("gpu", "cpu", "opencl:P:D", an
   * adopted queue; not FRICL_CONTEXT_FLAG_NO_FP64); an "auto" context
   * uses its OpenCL device once it has opened it (never opened for this
   * call) and auto's crossover for the barrier lets it have this many
   * work items; host, reference and several-device contexts use the host
   * threads. The broad phase, deduplication and weights always run on the
   * host. Ignored by fricl_candidates_build and fricl_ccd_stepsize. */
  size_t device_min_candidates;
} fricl_collisions_options;

/* The default of fricl_collisions_options.device_min_candidates: below
 * it, a device's launch and transfers cost more than the host threads'
 * narrow phase. @since 0.4 */
#define FRICL_COLLISIONS_DEVICE_MIN_CANDIDATES ((size_t)65536)

/** Zero @p options, set struct_size. @since 0.4 */
FRICL_API void fricl_collisions_options_init(fricl_collisions_options *o);

/* The collisions of one build: arrays owned by the set. */
typedef struct fricl_collision_set fricl_collision_set;

/**
 * Build the normal collision set of @p mesh at @p positions (n_vertices x
 * dim, finite), as ipctk's NormalCollisions.build(mesh, V, dhat, dmin)
 * with the options' use_area_weighting and collision set type: the same
 * collisions, kinds, edge-edge distance types and weights (up to the order
 * of floating-point sums). *inout: NULL to allocate a set, or a set to
 * refill (its arrays are reused). On invalid arguments *inout is left as
 * it was; out of memory or a device failure, a set passed in is left
 * empty. fricl_context_last_backend reports OPENCL after a build whose
 * narrow phase ran on the device.
 * @return OK, INVALID_ARGUMENT, OUT_OF_MEMORY; on the device
 *         OPENCL_ERROR, BUILD_FAILED. @since 0.4
 */
FRICL_API fricl_status fricl_collisions_build(
    fricl_context *ctx, const fricl_collision_mesh *mesh,
    const double *positions, const fricl_collisions_options *options,
    fricl_collision_set **inout);

/** Free a set (NULL is a no-op). @since 0.4 */
FRICL_API void fricl_collision_set_destroy(fricl_collision_set *set);

/**
 * The set as barrier groups, in the order vv, ev, ee, fv, pv (empty
 * groups are omitted): vertices, weight, dmin, plane, and the distance
 * types that make fricl_barrier_eval evaluate it as ipctk does (ev: the
 * line, fv: the plane, ee: the stored type). Outputs are NULL; copy the
 * groups to set them. Owned by the set, valid until it is rebuilt or
 * destroyed. @return the number of groups.
 @since 0.4 */
FRICL_API size_t fricl_collision_set_groups(const fricl_collision_set *set,
                                            const fricl_barrier_group **out);

/** Collisions of one stencil type (0 for a type the set has none of).
 * @since 0.4 */
FRICL_API size_t fricl_collision_set_count(const fricl_collision_set *set,
                                           fricl_stencil type);

/**
 * The ids ipctk's collision objects carry, 2 per collision of @p type:
 * vv (vertex0 < vertex1), ev (edge, vertex), ee (edge0, edge1: the order
 * the collision was made in, which its distance type refers to), fv (face,
 * vertex), pv (plane, vertex); and for ee the mollifier threshold eps_x
 * (NULL for other types). Owned by the set. @return the count.
 @since 0.4 */
FRICL_API size_t fricl_collision_set_elements(const fricl_collision_set *set,
                                              fricl_stencil type,
                                              const int32_t **ids,
                                              const double **eps_x);

/* ---------------------------------------------------------- candidates */

/* Candidate pairs whose inflated bounding boxes overlap over a motion. */
typedef struct fricl_candidate_set fricl_candidate_set;

/**
 * ipctk's Candidates.build(mesh, V0, V1, inflation_radius): every
 * vertex's box spans its positions at t0 and t1 (@p positions1 NULL: a
 * static scene), inflated by @p inflation_radius (>= 0, finite); the
 * candidates are the pairs of boxes that overlap, with ipctk's filters
 * (no shared vertex; 2-D: edge-vertex, 3-D: edge-edge and face-vertex;
 * codim. vertex-vertex and, in 3-D, codim. edge to codim. vertex), and
 * the plane-vertex pairs whose signed distance is below the radius.
 * Sorted by ids. *inout as for fricl_collisions_build.
 * @return OK, INVALID_ARGUMENT, OUT_OF_MEMORY. @since 0.4
 */
FRICL_API fricl_status fricl_candidates_build(
    fricl_context *ctx, const fricl_collision_mesh *mesh,
    const double *positions0, const double *positions1, double inflation_radius,
    const fricl_collisions_options *planes, fricl_candidate_set **inout);

/** The pairs of one type, 2 ids each as in fricl_collision_set_elements
 * (ev: edge, vertex; ee: edge0 < edge1; fv: face, vertex; vv: vertex0 <
 * vertex1; pv: plane, vertex). @return the count. @since 0.4 */
FRICL_API size_t fricl_candidate_set_pairs(const fricl_candidate_set *set,
                                           fricl_stencil type,
                                           const int32_t **ids);

/** Free a candidate set (NULL is a no-op). @since 0.4 */
FRICL_API void fricl_candidate_set_destroy(fricl_candidate_set *set);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_COLLISIONS_H */
