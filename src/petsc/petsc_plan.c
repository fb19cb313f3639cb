/* petsc_plan.c - fricl_petsc_plan_create and its accessors: the compact
 * numbering of the vertices a rank's contacts touch, fricl's plan on it,
 * the velocity scatter, and (petsc_matrix.c, with the counts of
 * petsc_exchange.c) the preallocation. */
#include <string.h>

#include "petsc_internal.h"

uint64_t fpetsc_topology_checksum(size_t n_groups,
                                  const fricl_contact_group *groups) {
  /* FNV-1a over 32-bit words: cheap (one multiply per vertex id) and
   * sensitive to any changed id, count or type. */
  uint64_t h = 0xcbf29ce484222325ull;
  const uint64_t prime = 0x100000001b3ull;
  h = (h ^ (uint64_t)n_groups) * prime;
  for (size_t g = 0; g < n_groups; ++g) {
    const fricl_contact_group *G = &groups[g];
    h = (h ^ (uint64_t)G->type) * prime;
    h = (h ^ (uint64_t)G->count) * prime;
    const size_t nk = G->count * (size_t)fricl_stencil_vertex_count(G->type);
    for (size_t i = 0; G->vertices && i < nk; ++i)
      h = (h ^ (uint32_t)G->vertices[i]) * prime;
  }
  return h;
}

void fpetsc_check_layout(const fricl_petsc_plan *plan, PetscLayout map,
                         const char *what, fpetsc_err *e) {
  /* Sizes and ownership ranges. Block sizes are checked by the callers.
   * The layout must be set up: PetscLayoutSetUp is collective (it sums the
   * local sizes), and this runs in a local phase, where a rank that called
   * it alone would wait for the others (fricl_petsc_plan_preallocate sets
   * its matrix's layouts up on every rank first). */
  PetscInt n = 0, N = 0, lo = 0, hi = 0, pn = 0, pN = 0, plo = 0, phi = 0;
  if (!e->code && !map->setupcalled) {
    fpetsc_err_set(e, PETSC_ERR_ARG_WRONGSTATE,
                   "%s: its layout is not set up (MatSetUp or a "
                   "preallocation)",
                   what);
    return;
  }
  FPETSC_TRY(e, PetscLayoutGetLocalSize(map, &n));
  FPETSC_TRY(e, PetscLayoutGetSize(map, &N));
  FPETSC_TRY(e, PetscLayoutGetRange(map, &lo, &hi));
  FPETSC_TRY(e, PetscLayoutGetLocalSize(plan->map, &pn));
  FPETSC_TRY(e, PetscLayoutGetSize(plan->map, &pN));
  FPETSC_TRY(e, PetscLayoutGetRange(plan->map, &plo, &phi));
  if (!e->code && (n != pn || N != pN || lo != plo))
    fpetsc_err_set(e, PETSC_ERR_ARG_INCOMP,
                   "%s: its layout (entries [%" PetscInt_FMT ", %" PetscInt_FMT
                   ") of %" PetscInt_FMT
                   " on this rank) differs from the plan's Vec ([%" PetscInt_FMT
                   ", %" PetscInt_FMT ") of %" PetscInt_FMT ")",
                   what, lo, hi, N, plo, phi, pN);
}

/* --------------------------------------------------------------- checks */

/* Everything that can be checked before any work, on this rank. */
static void check_args(fricl_context *ctx, Vec layout, size_t n_groups,
                       const fricl_contact_group *groups,
                       fricl_petsc_plan **plan, int *dim, fpetsc_err *e) {
  PetscInt bs = 0;
  if (!plan)
    fpetsc_err_set(e, PETSC_ERR_ARG_NULL, "plan is NULL");
  else if (!ctx)
    fpetsc_err_set(e, PETSC_ERR_ARG_NULL, "ctx is NULL");
  else if (n_groups > FRICL_MAX_GROUPS)
    fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE,
                   "n_groups = %zu: at most %d groups per call", n_groups,
                   FRICL_MAX_GROUPS);
  else if (n_groups && !groups)
    fpetsc_err_set(e, PETSC_ERR_ARG_NULL, "groups is NULL with n_groups = %zu",
                   n_groups);
  FPETSC_TRY(e, VecGetBlockSize(layout, &bs));
  if (!e->code && bs != 2 && bs != 3)
    fpetsc_err_set(e, PETSC_ERR_ARG_WRONG,
                   "layout Vec: block size %" PetscInt_FMT
                   " is not dim (2 or 3); set it with VecSetBlockSize",
                   bs);
  *dim = (int)bs;
  for (size_t g = 0; !e->code && g < n_groups; ++g) {
    const fricl_contact_group *G = &groups[g];
    const char *name = fricl_stencil_name(G->type);
    if (!name)
      fpetsc_err_set(e, PETSC_ERR_ARG_WRONG,
                     "groups[%zu].type = %d is not a stencil type", g,
                     (int)G->type);
    else if (bs == 2 &&
             (G->type == FRICL_STENCIL_EE || G->type == FRICL_STENCIL_FV))
      fpetsc_err_set(e, PETSC_ERR_ARG_WRONG,
                     "groups[%zu] (%s) exists only in 3-D, dim is 2", g, name);
    else if (G->count && !G->vertices)
      fpetsc_err_set(e, PETSC_ERR_ARG_NULL,
                     "groups[%zu] (%s): vertices is NULL with count = %zu", g,
                     name, G->count);
  }
}

/* ---------------------------------------------------- compact numbering */

/* The global number of every vertex id of the groups (K entries), checked:
 * in [0, n_global) directly, or through the mapping. */
static void global_ids(const fricl_petsc_plan *p, ISLocalToGlobalMapping map,
                       size_t n_groups, const fricl_contact_group *groups,
                       PetscInt *glob, fpetsc_err *e) {
  const PetscInt *midx = NULL;
  PetscInt msize = 0, mbs = 1, n_local = 0;
  if (map) {
    FPETSC_TRY(e, ISLocalToGlobalMappingGetSize(map, &msize));
    FPETSC_TRY(e, ISLocalToGlobalMappingGetBlockSize(map, &mbs));
    FPETSC_TRY(e, ISLocalToGlobalMappingGetBlockIndices(map, &midx));
    if (e->code)
      return;
    if (mbs != 1 && mbs != p->dim) {
      fpetsc_err_set(e, PETSC_ERR_ARG_WRONG,
                     "mapping: block size %" PetscInt_FMT
                     " is neither 1 (a vertex mapping) nor dim = %d",
                     mbs, p->dim);
      ISLocalToGlobalMappingRestoreBlockIndices(map, &midx);
      return;
    }
    n_local = msize / mbs;
  }
  size_t at = 0;
  for (size_t g = 0; !e->code && g < n_groups; ++g) {
    const fricl_contact_group *G = &groups[g];
    const size_t k = (size_t)fricl_stencil_vertex_count(G->type);
    for (size_t i = 0; i < G->count * k; ++i) {
      const int32_t v = G->vertices[i];
      PetscInt gid = v;
      if (map) {
        if (v < 0 || (PetscInt)v >= n_local) {
          fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE,
                         "groups[%zu] (%s) contact %zu: local vertex %d "
                         "(stencil slot %zu) is out of range [0, %" PetscInt_FMT
                         ") of the mapping",
                         g, fricl_stencil_name(G->type), i / k, (int)v, i % k,
                         n_local);
          break;
        }
        gid = midx[v];
      }
      if (gid < 0 || gid >= p->n_global) {
        if (map)
          fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE,
                         "groups[%zu] (%s) contact %zu: local vertex %d "
                         "(stencil slot %zu) maps to global vertex "
                         "%" PetscInt_FMT ", out of range [0, %" PetscInt_FMT
                         ")",
                         g, fricl_stencil_name(G->type), i / k, (int)v, i % k,
                         gid, p->n_global);
        else
          fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE,
                         "groups[%zu] (%s) contact %zu: vertex %d (stencil "
                         "slot %zu) is out of range [0, %" PetscInt_FMT
                         ") (the global vertex count of the layout Vec)",
                         g, fricl_stencil_name(G->type), i / k, (int)v, i % k,
                         p->n_global);
        break;
      }
      glob[at++] = gid;
    }
  }
  if (map)
    ISLocalToGlobalMappingRestoreBlockIndices(map, &midx);
}

/* Number the touched vertices compactly in ascending global order: the
 * ghosts below the owned range, the touched owned vertices, the ghosts
 * above. Owned vertices are found with a mark per owned vertex (linear);
 * the ghosts, usually few, are sorted. Fills gv, r0, r1, nl, own_row and
 * the compact vertex arrays. */
static PetscErrorCode compact_numbering(fricl_petsc_plan *p,
                                        const PetscInt *glob, size_t K) {
  const PetscInt nown = p->vend - p->vstart;
  PetscInt n_ghost_ids = 0, nu = 0;
  PetscInt *ghosts = NULL;
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nown > 0 ? nown : 1, &p->own_row));
  for (PetscInt i = 0; i < nown; ++i)
    p->own_row[i] = -1;
  for (size_t i = 0; i < K; ++i) {
    const PetscInt g = glob[i];
    if (g >= p->vstart && g < p->vend)
      p->own_row[g - p->vstart] = 0;
    else
      ++n_ghost_ids;
  }
  PetscCall(PetscMalloc1(n_ghost_ids > 0 ? n_ghost_ids : 1, &ghosts));
  for (size_t i = 0; i < K; ++i) {
    const PetscInt g = glob[i];
    if (g < p->vstart || g >= p->vend)
      ghosts[nu++] = g;
  }
  PetscCall(PetscSortRemoveDupsInt(&nu, ghosts));
  PetscInt below = 0;
  while (below < nu && ghosts[below] < p->vstart)
    ++below;
  PetscInt n_owned_touched = 0;
  for (PetscInt i = 0; i < nown; ++i)
    n_owned_touched += p->own_row[i] == 0;
  p->nl = nu + n_owned_touched;
  p->r0 = below;
  p->r1 = below + n_owned_touched;
  PetscCall(PetscMalloc1(p->nl > 0 ? p->nl : 1, &p->gv));
  for (PetscInt r = 0; r < below; ++r)
    p->gv[r] = ghosts[r];
  PetscInt r = below;
  for (PetscInt i = 0; i < nown; ++i)
    if (p->own_row[i] == 0) {
      p->own_row[i] = r;
      p->gv[r++] = p->vstart + i;
    }
  for (PetscInt j = below; j < nu; ++j)
    p->gv[r++] = ghosts[j];
  for (size_t i = 0; i < K; ++i) {
    const PetscInt g = glob[i];
    PetscInt c;
    if (g >= p->vstart && g < p->vend) {
      c = p->own_row[g - p->vstart];
    } else {
      PetscInt at = -1;
      PetscCall(PetscFindInt(g, nu, ghosts, &at));
      c = at < below ? at : at + n_owned_touched;
    }
    p->compact[i] = (int32_t)c;
  }
  PetscCall(PetscFree(ghosts));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------- create */

/* The local phase: checks, compact numbering, fricl's plan. */
static void build_local(fricl_petsc_plan *p, ISLocalToGlobalMapping mapping,
                        size_t n_groups, const fricl_contact_group *groups,
                        fpetsc_err *e) {
  size_t K = 0;
  PetscInt *glob = NULL;
  fricl_contact_group cg[FRICL_MAX_GROUPS];
  p->n_groups = n_groups;
  for (size_t g = 0; g < n_groups; ++g) {
    p->types[g] = groups[g].type;
    p->counts[g] = groups[g].count;
    p->n_contacts += groups[g].count;
    K += groups[g].count * (size_t)fricl_stencil_vertex_count(groups[g].type);
  }
  p->checksum = fpetsc_topology_checksum(n_groups, groups);
  if (K > (size_t)PETSC_MAX_INT) {
    fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE,
                   "%zu vertex ids on this rank exceed PetscInt", K);
    return;
  }
  FPETSC_TRY(e, PetscMalloc1(K ? K : 1, &glob));
  FPETSC_TRY(e, PetscMalloc1(K ? K : 1, &p->compact));
  if (e->code) {
    PetscFree(glob);
    return;
  }
  global_ids(p, mapping, n_groups, groups, glob, e);
  FPETSC_TRY(e, compact_numbering(p, glob, K));
  PetscFree(glob);
  if (e->code)
    return;
  if (p->nl > (PetscInt)INT32_MAX) {
    fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE,
                   "%" PetscInt_FMT " vertices on this rank exceed int32",
                   p->nl);
    return;
  }
  /* fricl's plan on the compact numbering. */
  size_t at = 0;
  for (size_t g = 0; g < n_groups; ++g) {
    memset(&cg[g], 0, sizeof cg[g]);
    cg[g].type = groups[g].type;
    cg[g].count = groups[g].count;
    cg[g].vertices = p->compact + at;
    at += groups[g].count * (size_t)fricl_stencil_vertex_count(groups[g].type);
  }
  const fricl_status st = fricl_tangential_plan_create(
      p->ctx, p->dim, (size_t)p->nl, n_groups, cg, &p->fplan);
  if (st != FRICL_STATUS_OK) {
    fpetsc_err_fricl(e, p->ctx, st, "fricl_tangential_plan_create");
    return;
  }
  size_t nrows = 0;
  fricl_tangential_plan_bsr(p->fplan, &nrows, &p->nnz_blocks, &p->row_ptr,
                            &p->cols);
  if (p->nnz_blocks > (size_t)PETSC_MAX_INT) {
    fpetsc_err_set(e, PETSC_ERR_ARG_OUTOFRANGE,
                   "%zu Hessian blocks on this rank exceed PetscInt",
                   p->nnz_blocks);
    return;
  }
  const size_t bs2 = (size_t)(p->dim * p->dim);
  FPETSC_TRY(e, PetscMalloc1(p->nnz_blocks ? p->nnz_blocks : 1, &p->gcols));
  if (e->code)
    return;
  for (size_t b = 0; b < p->nnz_blocks; ++b)
    p->gcols[b] = p->gv[p->cols[b]];
  p->max_row = 0;
  for (PetscInt r = 0; r < p->nl; ++r)
    p->max_row =
        PetscMax(p->max_row, (PetscInt)(p->row_ptr[r + 1] - p->row_ptr[r]));
  FPETSC_TRY(
      e, PetscMalloc1((size_t)(p->nl ? p->nl : 1) * (size_t)p->dim, &p->grad));
  FPETSC_TRY(e,
             PetscMalloc1((p->nnz_blocks ? p->nnz_blocks : 1) * bs2, &p->bsr));
}

PetscErrorCode fricl_petsc_plan_create(fricl_context *ctx, Vec layout,
                                       ISLocalToGlobalMapping mapping,
                                       size_t n_groups,
                                       const fricl_contact_group *groups,
                                       fricl_petsc_plan **plan) {
  fpetsc_err e;
  fricl_petsc_plan *p = NULL;
  MPI_Comm comm;
  PetscFunctionBegin;
  memset(&e, 0, sizeof e);
  if (!layout) {
    /* The layout names the communicator; without it, meet the other ranks
     * in their agreement on the mapping's (the same one), else the
     * world's. */
    const PetscObject objs[] = {(PetscObject)mapping};
    fpetsc_err_set(&e, PETSC_ERR_ARG_NULL,
                   "layout is NULL (a Vec of block size dim)");
    PetscCall(fpetsc_agree_without_comm(1, objs, &e));
  }
  PetscCall(PetscObjectGetComm((PetscObject)layout, &comm));
  int dim = 0;
  fpetsc_capture_begin(&e);
  check_args(ctx, layout, n_groups, groups, plan, &dim, &e);
  if (!e.code)
    FPETSC_TRY(&e, PetscNew(&p));
  if (!e.code) {
    PetscLayout map;
    PetscInt lo = 0, hi = 0, N = 0;
    p->comm = comm;
    p->ctx = ctx;
    p->hunit = p->gunit = MPI_DATATYPE_NULL;
    p->dim = dim;
    FPETSC_TRY(&e, VecGetLayout(layout, &map));
    FPETSC_TRY(&e, PetscLayoutReference(map, &p->map));
    FPETSC_TRY(&e, VecGetOwnershipRange(layout, &lo, &hi));
    FPETSC_TRY(&e, VecGetSize(layout, &N));
    p->vstart = lo / dim;
    p->vend = hi / dim;
    p->n_global = N / dim;
    if (!e.code)
      build_local(p, mapping, n_groups, groups, &e);
  }
  fpetsc_capture_end();
  /* Every rank releases its part when any rank failed. One agreement
   * only, the one a rank without a layout joins
   * (fpetsc_agree_without_comm). */
  const PetscErrorCode ierr = fpetsc_agree(comm, &e);
  if (ierr) {
    PetscCall(fricl_petsc_plan_destroy(&p));
    PetscCall(ierr);
  }

  /* Collective steps. */
  IS from;
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, p->nl * dim, &p->xloc));
  PetscCall(VecSetBlockSize(p->xloc, dim));
  PetscCall(ISCreateBlock(PETSC_COMM_SELF, dim, p->nl, p->gv, PETSC_USE_POINTER,
                          &from));
  PetscCall(VecScatterCreate(layout, from, p->xloc, NULL, &p->scatter));
  PetscCall(ISDestroy(&from));
  PetscCall(fpetsc_plan_exchange(p));
  *plan = p;
  PetscFunctionReturn(0);
}

PetscErrorCode fricl_petsc_plan_destroy(fricl_petsc_plan **plan) {
  PetscFunctionBegin;
  if (!plan || !*plan)
    PetscFunctionReturn(0);
  fricl_petsc_plan *p = *plan;
  fricl_tangential_plan_destroy(p->fplan);
  PetscCall(VecScatterDestroy(&p->scatter));
  PetscCall(VecDestroy(&p->xloc));
  PetscCall(PetscLayoutDestroy(&p->map));
  PetscCall(PetscFree(p->compact));
  PetscCall(PetscFree(p->gv));
  PetscCall(PetscFree(p->own_row));
  PetscCall(PetscFree(p->gcols));
  fpetsc_exchange_free(p);
  PetscCall(PetscFree(p->grad));
  PetscCall(PetscFree(p->bsr));
  PetscCall(PetscFree(p));
  *plan = NULL;
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------ accessors */

PetscErrorCode fricl_petsc_plan_get_info(const fricl_petsc_plan *plan,
                                         fricl_petsc_plan_info *info) {
  PetscFunctionBegin;
  PetscCheck(plan && info, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL,
             "plan and info must not be NULL");
  memset(info, 0, sizeof *info);
  info->dim = plan->dim;
  info->n_vertices = plan->n_global;
  info->n_owned_vertices = plan->vend - plan->vstart;
  info->n_local_vertices = plan->nl;
  info->n_ghost_vertices = plan->nl - (plan->r1 - plan->r0);
  info->n_local_blocks = (PetscInt)plan->nnz_blocks;
  info->n_ghost_blocks =
      (PetscInt)(plan->nnz_blocks -
                 (size_t)(plan->row_ptr[plan->r1] - plan->row_ptr[plan->r0]));
  info->n_owned_blocks = plan->n_owned_blocks;
  info->n_contacts = plan->n_contacts;
  PetscFunctionReturn(0);
}

PetscErrorCode fricl_petsc_plan_get_vertices(const fricl_petsc_plan *plan,
                                             PetscInt *n,
                                             const PetscInt **global) {
  PetscFunctionBegin;
  PetscCheck(plan, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "plan is NULL");
  if (n)
    *n = plan->nl;
  if (global)
    *global = plan->gv;
  PetscFunctionReturn(0);
}

PetscErrorCode fricl_petsc_plan_get_preallocation(const fricl_petsc_plan *plan,
                                                  const PetscInt **d_nnz,
                                                  const PetscInt **o_nnz,
                                                  const PetscInt **d_nnzu,
                                                  const PetscInt **o_nnzu) {
  PetscFunctionBegin;
  PetscCheck(plan, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "plan is NULL");
  if (d_nnz)
    *d_nnz = plan->dnz;
  if (o_nnz)
    *o_nnz = plan->onz;
  if (d_nnzu)
    *d_nnzu = plan->dnzu;
  if (o_nnzu)
    *o_nnzu = plan->onzu;
  PetscFunctionReturn(0);
}
