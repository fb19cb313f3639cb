/*
 * fricl_petsc.h - distributed friction assembly on MPI and PETSc: the
 * optional library fricl_petsc (built when CMake finds MPI and PETSc; link
 * fricl_petsc, fricl and PETSc). Not included by <fricl/fricl.h>.
 *
 * Contents
 *   Context ...... fricl_petsc_context_create (one GPU per rank)
 *   Plan ......... fricl_petsc_plan_create, _destroy, _get_info,
 *                  _get_vertices, _get_preallocation
 *   Matrix ....... fricl_petsc_plan_preallocate, _create_matrix,
 *                  _insert_pattern
 *   Evaluation ... fricl_petsc_tangential_eval
 *
 * The model. Each rank holds some contacts (fricl_contact_group, exactly as
 * for fricl_tangential_eval) whose vertices may belong to any rank. The
 * vertices are numbered globally by a PETSc Vec of block size dim (the
 * velocities, or any Vec laid out like them): rank r owns the vertices of
 * its ownership range. A contact names its vertices either by global vertex
 * number, or by a rank-local number that an ISLocalToGlobalMapping turns
 * into a global one (as DMGetLocalToGlobalMapping gives).
 *
 * fricl_petsc_plan_create analyses the contacts of every rank once per
 * contact set (collective): it numbers the vertices this rank's contacts
 * touch compactly, in ascending global order, and builds fricl's own plan
 * on that numbering, a VecScatter that brings those vertices' velocities
 * to the rank, and, with PetscSF, the exchange of the rows a rank touches
 * but does not own: every block a rank computes for another rank's row
 * gets a slot at the owner. From the block columns so received, the owner
 * knows the union of all ranks' blocks in each of its rows: the exact
 * preallocation (d_nnz, o_nnz per block row).
 *
 * fricl_petsc_tangential_eval (collective) scatters the velocities,
 * evaluates the rank's contacts on the rank's fricl context (any backend),
 * sends the blocks of other ranks' rows to their slots (PetscSF), sums
 * each owned block in a fixed order and adds every owned row once into
 * PETSc's objects: VecSetValuesBlocked and MatSetValuesBlocked with
 * ADD_VALUES, then VecAssembly and MatAssembly. The potential is summed
 * over the ranks (MPI_Allreduce).
 *
 * Numbers. The sums differ from one process's fricl_tangential_eval only
 * in the order of additions. A rank sums its own contacts' contributions to
 * a block (or gradient entry) in fricl's fixed order; the owner of the row
 * adds its own partial sum first, then those of the other ranks in
 * ascending rank order. The order is fixed by the plan, not by the order in
 * which messages arrive, so the results are bitwise reproducible for a
 * given partition. (PETSc's stash, which MatSetValuesBlocked uses for rows
 * of other ranks, adds in arrival order: with three or more contributors
 * to an entry the last bits change from run to run.)
 *
 * Errors. Every function returns a PetscErrorCode and raises errors through
 * PETSc (SETERRQ), so PetscCall() works as with PETSc's own functions. The
 * collective functions first check every rank's part (fricl's validation
 * included) and agree before any collective step: when one rank's input is
 * bad, EVERY rank returns the same error code with the same message, which
 * names the failing rank ("rank 2: fricl_tangential_eval: invalid argument:
 * groups[1] (ev) contact 3: ..."), and no rank is left waiting. This holds
 * for NULL arguments too (a NULL plan, layout or out-pointer on one rank):
 * a rank without the plan (or layout) that names the communicator takes
 * it from its other PETSc arguments (the velocities, gradient or hessian;
 * the mapping; the matrix), else from PETSC_COMM_WORLD. fricl's
 * INVALID_ARGUMENT becomes PETSC_ERR_ARG_WRONG, OUT_OF_MEMORY PETSC_ERR_MEM,
 * NO_FP64 and UNSUPPORTED PETSC_ERR_SUP, any other status PETSC_ERR_LIB.
 * fricl_petsc never prints; PETSc's error handler (yours to choose)
 * reports the error.
 *
 * Precision: the library's precision is PETSc's: PetscReal double gives
 * FRICL_F64, single gives FRICL_F32 (the groups' real arrays must match).
 * Complex PETSc builds are not supported.
 *
 * Ownership: a plan borrows its fricl context (which must outlive it) and
 * keeps no pointer to the groups; it copies what it needs. Vec and Mat
 * arguments are borrowed for the call.
 *
 * Extending to other potentials: the plan is independent of the potential
 * (topology, scatter, preallocation). A potential with fricl's group/plan
 * shape (such as the normal barrier) gets one more evaluation function of
 * the form fricl_petsc_<name>_eval(plan, batch, Vec x, ...), sharing the
 * plan, the matrix and the assembly path.
 */
#ifndef FRICL_PETSC_H
#define FRICL_PETSC_H

#include <petscmat.h>

#include "fricl/fricl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- context */

/**
 * Create a fricl context for this rank (collective on @p comm). When the
 * device asked for (params->device, else FRICL_DEVICE, else "auto") is
 * "auto" or "gpu" and the rank sees OpenCL GPUs, the rank takes GPU number
 * (node-local rank mod number of GPUs), the node-local rank being its rank
 * in MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED): one GPU per rank when
 * a node runs as many ranks as it has GPUs (the rank's context then names
 * that device, so every call runs on it). Any other spec is used as is.
 * Host threads: with params->threads 0 and FRICL_THREADS unset, a rank
 * that its launcher bound to some cores uses those, and an unbound rank
 * an equal share of its node's cores, so that the ranks of a node do not
 * oversubscribe it. Fails on every rank when it fails on one.
 * @param[in]  params may be NULL (defaults); borrowed for the call.
 * @param[out] ctx    the rank's context, owned by the caller
 *                    (fricl_context_destroy).
 * @since 0.4
 */
FRICL_API PetscErrorCode fricl_petsc_context_create(
    MPI_Comm comm, const fricl_context_params *params, fricl_context **ctx);

/* ---------------------------------------------------------------- plan */

typedef struct fricl_petsc_plan fricl_petsc_plan;

/**
 * Analyse the contact set of every rank (collective on @p layout's
 * communicator). Reads only type, count and vertices of each group.
 * @param[in] ctx      this rank's context; the plan borrows it.
 * @param[in] layout   a Vec of block size dim (2 or 3) laid out as the
 *                     velocities, the gradient and the Hessian's rows will
 *                     be; only its layout is used.
 * @param[in] mapping  NULL: the groups' vertices are global vertex numbers
 *                     (block indices of @p layout, so at most INT32_MAX).
 *                     Otherwise they are local vertex numbers in
 *                     [0, number of blocks of the mapping), mapped with
 *                     ISLocalToGlobalMappingApplyBlock (a vertex mapping
 *                     of block size 1, or a dof mapping of block size dim).
 * @param[in] n_groups, groups  this rank's contacts (at most 64 groups;
 *                     n_groups may be 0 on some ranks).
 * @param[out] plan    release with fricl_petsc_plan_destroy.
 * @since 0.4
 */
FRICL_API PetscErrorCode fricl_petsc_plan_create(
    fricl_context *ctx, Vec layout, ISLocalToGlobalMapping mapping,
    size_t n_groups, const fricl_contact_group *groups,
    fricl_petsc_plan **plan);

/** Release a plan and set *plan to NULL (NULL or *plan NULL: no-op). Not
 *  collective. @since 0.4 */
FRICL_API PetscErrorCode fricl_petsc_plan_destroy(fricl_petsc_plan **plan);

typedef struct fricl_petsc_plan_info {
  int dim;
  PetscInt n_vertices;       /* global vertex count */
  PetscInt n_owned_vertices; /* this rank's ownership range, in vertices */
  PetscInt n_local_vertices; /* vertices this rank's contacts touch */
  PetscInt n_ghost_vertices; /* ... of which other ranks own */
  PetscInt n_local_blocks;   /* blocks this rank's contacts touch */
  PetscInt n_ghost_blocks;   /* ... of which lie in others' rows */
  PetscInt n_owned_blocks;   /* blocks in this rank's rows, all ranks */
  size_t n_contacts;         /* this rank's contacts */
} fricl_petsc_plan_info;

/** Sizes of this rank's part of the plan. Not collective. @since 0.4 */
FRICL_API PetscErrorCode fricl_petsc_plan_get_info(const fricl_petsc_plan *plan,
                                                   fricl_petsc_plan_info *info);

/** The global numbers of the vertices this rank's contacts touch,
 *  ascending (owned by the plan). @since 0.4 */
FRICL_API PetscErrorCode fricl_petsc_plan_get_vertices(
    const fricl_petsc_plan *plan, PetscInt *n, const PetscInt **global);

/** The preallocation of the Hessian, per owned block row (n_owned_vertices
 *  entries each, owned by the plan; any pointer may be NULL): block
 *  columns in the diagonal and off-diagonal parts, and those on or right
 *  of the diagonal (for MATSBAIJ), as MatXAIJSetPreallocation takes them.
 *  @since 0.4 */
FRICL_API PetscErrorCode fricl_petsc_plan_get_preallocation(
    const fricl_petsc_plan *plan, const PetscInt **d_nnz,
    const PetscInt **o_nnz, const PetscInt **d_nnzu, const PetscInt **o_nnzu);

/* ---------------------------------------------------------------- matrix */

/* Also preallocate the diagonal block of every owned vertex (touched by a
 * contact or not), for a mass matrix or an elastic diagonal. With
 * fricl_petsc_plan_create_matrix the whole pattern, diagonal blocks
 * included, is also filled with zeros and assembled, so that the diagonal
 * blocks survive the assembly of an evaluation (MatShift and
 * MatDiagonalSet then need no allocation). */
#define FRICL_PETSC_MATRIX_DIAGONAL 0x1u

/**
 * Preallocate @p A (created by you, sizes and type set, block size dim) with
 * the plan's exact counts through MatXAIJSetPreallocation (AIJ, BAIJ and
 * SBAIJ, sequential or MPI), and set MAT_NEW_NONZERO_ALLOCATION_ERR so that
 * an entry outside the pattern is an error, not a silent reallocation.
 * Collective. @since 0.4
 */
FRICL_API PetscErrorCode fricl_petsc_plan_preallocate(
    const fricl_petsc_plan *plan, Mat A, unsigned flags);

/**
 * Create the Hessian matrix: layout of the plan's Vec, block size dim,
 * type @p type (NULL: MATBAIJ, which is MPIBAIJ or SeqBAIJ by the size of
 * the communicator; MATAIJ and MATSBAIJ work too: for SBAIJ the blocks
 * below the diagonal are ignored, the Hessian being symmetric), exactly
 * preallocated. Collective.
 * @param[out] H owned by the caller (MatDestroy).
 * @since 0.4
 */
FRICL_API PetscErrorCode fricl_petsc_plan_create_matrix(
    const fricl_petsc_plan *plan, MatType type, unsigned flags, Mat *H);

/**
 * Insert this rank's pattern into @p A with zero values
 * (MatSetValuesBlocked, ADD_VALUES, no assembly): for merging the friction
 * pattern with your own in a MATPREALLOCATOR (then MatAssembly and
 * MatPreallocatorPreallocate). Not collective. @since 0.4
 */
FRICL_API PetscErrorCode
fricl_petsc_plan_insert_pattern(const fricl_petsc_plan *plan, Mat A);

/* ------------------------------------------------------------ evaluation */

/* Add the values but do not assemble @p gradient and @p hessian: the caller
 * adds its own terms (barrier, elasticity) and assembles once. */
#define FRICL_PETSC_EVAL_NO_ASSEMBLY 0x1u

/**
 * Evaluate the friction potential of every rank's contacts and ADD its
 * gradient into @p gradient and its PSD-projected Hessian into @p hessian
 * (collective).
 * @param[in] batch  the evaluation as for fricl_tangential_eval: precision
 *                   (must be PETSc's), mu_profile, psd, flags, eps_v,
 *                   n_groups and groups (the same types, counts and
 *                   vertices as at plan creation, with the lagged data and
 *                   any per-contact outputs: potential, local_hessian,
 *                   factored_*). dim is ignored (the plan's is used);
 *                   n_vertices, velocities, plan, direction and the global
 *                   outputs (potential, gradient, hessian_values,
 *                   hessian_product) belong to fricl_petsc and must be
 *                   zero.
 * @param[in] velocities  the global velocities (or displacements with eps_v
 *                   scaled by h), laid out like the plan's Vec.
 * @param[out] potential  if not NULL: the sum of D over all ranks, the same
 *                   on every rank.
 * @param[in,out] gradient if not NULL: a Vec laid out like the plan's; the
 *                   gradient is added to it.
 * @param[in,out] hessian  if not NULL: a Mat of block size dim whose rows
 *                   and columns are laid out like the plan's Vec, holding
 *                   the plan's pattern (fricl_petsc_plan_create_matrix,
 *                   _preallocate or your own); the Hessian is added to it.
 *                   An assembled MATSEQBAIJ or MATMPIBAIJ gets the owned
 *                   rows added straight into its storage (where each block
 *                   lives is found once per matrix and nonzero structure);
 *                   any other matrix through MatSetValuesBlocked, with
 *                   PETSc's default MAT_ROW_ORIENTED. The values are the
 *                   same either way.
 * @param[in] flags  FRICL_PETSC_EVAL_*.
 * @since 0.4
 */
FRICL_API PetscErrorCode fricl_petsc_tangential_eval(
    fricl_petsc_plan *plan, const fricl_tangential_batch *batch, Vec velocities,
    PetscReal *potential, Vec gradient, Mat hessian, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_PETSC_H */
