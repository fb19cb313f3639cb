/* petsc_exchange.c - the rows a rank touches but does not own.
 *
 * A block row owned by this rank receives blocks from this rank's contacts
 * (fricl's plan) and from other ranks' contacts that touch the vertex. Each
 * rank sends what it computed for rows it does not own ("ghost rows") to
 * their owners with PetscSF, over a communication pattern built once per
 * plan:
 *   1. an SF from the ghost rows to the owned rows (PetscSFSetGraphLayout);
 *      PetscSFFetchAndOp sums, per owned row, the lengths of the ghost rows
 *      sent to it and gives each ghost row its offset, so that every sent
 *      block and every sent gradient block gets a slot of its own at the
 *      owner; the owner broadcasts each row's first slot back;
 *   2. the block SF (one leaf per block of a ghost row) and the gradient SF
 *      (one leaf per ghost row) send into those slots (MPI_REPLACE: one
 *      writer per slot); once, with the block columns and the sending
 *      ranks, and then at every evaluation with the values;
 *   3. the owner merges its own block columns with the received ones (sort,
 *      remove duplicates): the exact union, from which it counts the
 *      preallocation, and the position in the union of every own and
 *      received block.
 * At an evaluation the owner sums, per block, its own value and then the
 * received ones in ascending rank order, and adds each owned row once with
 * MatSetValuesBlocked (and the gradient with VecSetValuesBlocked). The
 * order of additions is fixed by the plan, never by message arrival, so
 * results are bitwise reproducible for a given number of ranks. (PETSc's
 * stash, which MatSetValuesBlocked uses for rows of other ranks, adds
 * received values in arrival order: with three or more contributors to an
 * entry the last bits changed from run to run in our tests. It also sorts
 * and discovers its pattern at every assembly.)
 *
 * (MATPREALLOCATOR would give the same counts, but it hashes every scalar
 * entry of every contributed block, at every plan; see docs/mpi.md.
 * fricl_petsc_plan_insert_pattern feeds a MATPREALLOCATOR when the friction
 * pattern has to be merged with yours.) */
#include <string.h>

#include <petscsf.h>

#include "petsc_internal.h"

/* Scratch of the set-up, per ghost row. */
typedef struct ghost_rows {
  PetscInt n;
  PetscInt *row;            /* compact row */
  PetscInt *gid;            /* global vertex */
  PetscInt *len;            /* blocks in the row */
  PetscInt *one;            /* 1 (one gradient block) */
  PetscInt *off, *goff;     /* offsets among the blocks sent to the owner */
  PetscInt *start, *gstart; /* the owner row's first block / gradient slot */
} ghost_rows;

/* Step 1. */
static PetscErrorCode slot_offsets(fricl_petsc_plan *p, ghost_rows *gr,
                                   PetscSF *rows_out) {
  const PetscInt nown = p->vend - p->vstart;
  PetscLayout vmap;
  PetscSF rows;
  PetscInt *cnt, *gcnt, *gid_copy;
  PetscFunctionBegin;
  PetscCall(PetscLayoutCreate(p->comm, &vmap));
  PetscCall(PetscLayoutSetLocalSize(vmap, nown));
  PetscCall(PetscLayoutSetUp(vmap));
  PetscCall(PetscSFCreate(p->comm, &rows));
  PetscCall(PetscMalloc1(gr->n + 1, &gid_copy));
  PetscCall(PetscArraycpy(gid_copy, gr->gid, gr->n));
  PetscCall(PetscSFSetGraphLayout(rows, vmap, gr->n, NULL, PETSC_OWN_POINTER,
                                  gid_copy));
  PetscCall(PetscFree(gid_copy));
  PetscCall(PetscSFSetUp(rows));
  PetscCall(PetscLayoutDestroy(&vmap));
  PetscCall(PetscCalloc2(nown + 1, &cnt, nown + 1, &gcnt));
  PetscCall(
      PetscSFFetchAndOpBegin(rows, MPIU_INT, cnt, gr->len, gr->off, MPI_SUM));
  PetscCall(
      PetscSFFetchAndOpEnd(rows, MPIU_INT, cnt, gr->len, gr->off, MPI_SUM));
  PetscCall(
      PetscSFFetchAndOpBegin(rows, MPIU_INT, gcnt, gr->one, gr->goff, MPI_SUM));
  PetscCall(
      PetscSFFetchAndOpEnd(rows, MPIU_INT, gcnt, gr->one, gr->goff, MPI_SUM));
  PetscCall(PetscMalloc2(nown + 1, &p->ext_ptr, nown + 1, &p->gext_ptr));
  p->ext_ptr[0] = p->gext_ptr[0] = 0;
  for (PetscInt i = 0; i < nown; ++i) {
    p->ext_ptr[i + 1] = p->ext_ptr[i] + cnt[i];
    p->gext_ptr[i + 1] = p->gext_ptr[i] + gcnt[i];
  }
  PetscCall(PetscFree2(cnt, gcnt));
  PetscCall(
      PetscSFBcastBegin(rows, MPIU_INT, p->ext_ptr, gr->start, MPI_REPLACE));
  PetscCall(
      PetscSFBcastEnd(rows, MPIU_INT, p->ext_ptr, gr->start, MPI_REPLACE));
  PetscCall(
      PetscSFBcastBegin(rows, MPIU_INT, p->gext_ptr, gr->gstart, MPI_REPLACE));
  PetscCall(
      PetscSFBcastEnd(rows, MPIU_INT, p->gext_ptr, gr->gstart, MPI_REPLACE));
  *rows_out = rows;
  PetscFunctionReturn(0);
}

/* Step 2's graphs: p->hsf (blocks) and p->gsf (gradient blocks). */
static PetscErrorCode slot_graphs(fricl_petsc_plan *p, const ghost_rows *gr,
                                  PetscSF rows) {
  const PetscSFNode *owner;
  PetscSFNode *hslot, *gslot;
  PetscInt *hleaf, *gleaf, n_sent = 0;
  PetscFunctionBegin;
  for (PetscInt j = 0; j < gr->n; ++j)
    n_sent += gr->len[j];
  PetscCall(PetscSFGetGraph(rows, NULL, NULL, NULL, &owner));
  PetscCall(PetscMalloc1(n_sent + 1, &hleaf));
  PetscCall(PetscMalloc1(n_sent + 1, &hslot));
  PetscCall(PetscMalloc1(gr->n + 1, &gleaf));
  PetscCall(PetscMalloc1(gr->n + 1, &gslot));
  PetscInt at = 0;
  for (PetscInt j = 0; j < gr->n; ++j) {
    const PetscInt b0 = (PetscInt)p->row_ptr[gr->row[j]];
    for (PetscInt k = 0; k < gr->len[j]; ++k, ++at) {
      hleaf[at] = b0 + k;
      hslot[at].rank = owner[j].rank;
      hslot[at].index = gr->start[j] + gr->off[j] + k;
    }
    gleaf[j] = gr->row[j];
    gslot[j].rank = owner[j].rank;
    gslot[j].index = gr->gstart[j] + gr->goff[j];
  }
  const PetscInt nown = p->vend - p->vstart;
  PetscCall(PetscSFCreate(p->comm, &p->hsf));
  PetscCall(PetscSFSetGraph(p->hsf, p->ext_ptr[nown], n_sent, hleaf,
                            PETSC_OWN_POINTER, hslot, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(p->hsf));
  PetscCall(PetscSFCreate(p->comm, &p->gsf));
  PetscCall(PetscSFSetGraph(p->gsf, p->gext_ptr[nown], gr->n, gleaf,
                            PETSC_OWN_POINTER, gslot, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(p->gsf));
  PetscFunctionReturn(0);
}

/* The slots of one owned row in ascending order of the sending rank (a
 * rank sends each block of a row once, so ties are distinct blocks). */
static PetscErrorCode order_by_rank(PetscInt n, PetscInt first,
                                    const PetscInt *rank_of_slot,
                                    PetscInt *rank_scratch, PetscInt *order) {
  PetscFunctionBegin;
  for (PetscInt s = 0; s < n; ++s) {
    order[s] = first + s;
    rank_scratch[s] = rank_of_slot[first + s];
  }
  PetscCall(PetscSortIntWithArray(n, rank_scratch, order));
  PetscFunctionReturn(0);
}

/* Count one owned row's union (sorted, no duplicates). */
static void count_row(fricl_petsc_plan *p, PetscInt i, const PetscInt *c,
                      PetscInt n) {
  const PetscInt g = p->vstart + i;
  PetscInt d = 0, du = 0, o = 0, ou = 0;
  PetscBool diag = PETSC_FALSE;
  for (PetscInt k = 0; k < n; ++k) {
    if (c[k] >= p->vstart && c[k] < p->vend) {
      ++d;
      du += c[k] >= g;
    } else {
      ++o;
      ou += c[k] >= g;
    }
    diag = diag || c[k] == g;
  }
  p->dnz[i] = d;
  p->dnzu[i] = du;
  p->onz[i] = o;
  p->onzu[i] = ou;
  p->has_diag[i] = diag;
}

/* Step 3, with the received block columns and sending ranks. */
static PetscErrorCode merge_rows(fricl_petsc_plan *p, const PetscInt *ext_cols,
                                 const PetscInt *ext_rank,
                                 const PetscInt *gext_rank) {
  const PetscInt nown = p->vend - p->vstart;
  const PetscInt E = p->ext_ptr[nown], G = p->gext_ptr[nown];
  const PetscInt own_b0 = (PetscInt)p->row_ptr[p->r0];
  const PetscInt n_own_blocks = (PetscInt)p->row_ptr[p->r1] - own_b0;
  PetscInt *merged, *scratch;
  PetscFunctionBegin;
  PetscCall(PetscMalloc4(nown + 1, &p->dnz, nown + 1, &p->onz, nown + 1,
                         &p->dnzu, nown + 1, &p->onzu));
  PetscCall(PetscMalloc1(nown + 1, &p->has_diag));
  PetscCall(PetscMalloc1(nown + 1, &p->u_ptr));
  PetscCall(PetscMalloc1(n_own_blocks + E + 1, &p->u_cols));
  PetscCall(PetscMalloc1(n_own_blocks + 1, &p->own_pos));
  PetscCall(PetscMalloc2(E + 1, &p->ext_pos, E + 1, &p->ext_order));
  PetscCall(PetscMalloc2(G + 1, &p->gext_row, G + 1, &p->gext_order));
  PetscInt max_ext = 0;
  for (PetscInt i = 0; i < nown; ++i)
    max_ext = PetscMax(max_ext, PetscMax(p->ext_ptr[i + 1] - p->ext_ptr[i],
                                         p->gext_ptr[i + 1] - p->gext_ptr[i]));
  PetscCall(
      PetscMalloc2(max_ext + p->max_row + 1, &merged, max_ext + 1, &scratch));
  p->u_ptr[0] = 0;
  p->max_urow = 0;
  for (PetscInt i = 0; i < nown; ++i) {
    const PetscInt r = p->own_row[i];
    const PetscInt b0 = r >= 0 ? (PetscInt)p->row_ptr[r] : 0;
    const PetscInt n_own = r >= 0 ? (PetscInt)p->row_ptr[r + 1] - b0 : 0;
    const PetscInt e0 = p->ext_ptr[i], n_ext = p->ext_ptr[i + 1] - e0;
    PetscInt *u = p->u_cols + p->u_ptr[i];
    PetscInt n = n_own + n_ext;
    if (n_own) /* fricl's row: sorted, merged */
      PetscCall(PetscArraycpy(u, p->gcols + b0, n_own));
    if (n_ext) {
      PetscCall(PetscArraycpy(u + n_own, ext_cols + e0, n_ext));
      PetscCall(PetscSortRemoveDupsInt(&n, u));
    }
    p->u_ptr[i + 1] = p->u_ptr[i] + n;
    p->max_urow = PetscMax(p->max_urow, n);
    count_row(p, i, u, n);
    /* Positions of the own blocks (both lists sorted) and received ones
     * (a row no other rank touches is fricl's row as it is). */
    for (PetscInt k = 0, at = 0; n_ext && k < n_own; ++k) {
      while (u[at] != p->gcols[b0 + k])
        ++at;
      p->own_pos[b0 - own_b0 + k] = at;
    }
    for (PetscInt s = e0; s < e0 + n_ext; ++s) {
      PetscInt at = -1;
      PetscCall(PetscFindInt(ext_cols[s], n, u, &at));
      p->ext_pos[s] = at;
    }
    PetscCall(order_by_rank(n_ext, e0, ext_rank, scratch, p->ext_order + e0));
    const PetscInt s0 = p->gext_ptr[i], n_g = p->gext_ptr[i + 1] - s0;
    for (PetscInt s = s0; s < s0 + n_g; ++s)
      p->gext_row[s] = i;
    PetscCall(order_by_rank(n_g, s0, gext_rank, scratch, p->gext_order + s0));
  }
  p->n_owned_blocks = p->u_ptr[nown];
  PetscCall(PetscFree2(merged, scratch));
  /* The owned vertices that get a gradient block. */
  p->n_grows = 0;
  PetscCall(PetscMalloc1(nown + 1, &p->grows));
  PetscCall(PetscMalloc1(nown + 1, &p->own_grow));
  for (PetscInt i = 0; i < nown; ++i) {
    const int any = p->own_row[i] >= 0 || p->gext_ptr[i + 1] > p->gext_ptr[i];
    p->own_grow[i] = any ? p->n_grows : -1;
    if (any)
      p->grows[p->n_grows++] = p->vstart + i;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode fpetsc_plan_exchange(fricl_petsc_plan *p) {
  ghost_rows gr;
  PetscSF rows;
  PetscMPIInt rank;
  PetscInt *ext_cols, *ext_rank, *gext_rank, *hrank, *grank;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(p->comm, &rank));
  const PetscInt nown = p->vend - p->vstart;
  memset(&gr, 0, sizeof gr);
  gr.n = p->nl - (p->r1 - p->r0);
  PetscCall(PetscMalloc4(gr.n + 1, &gr.row, gr.n + 1, &gr.gid, gr.n + 1,
                         &gr.len, gr.n + 1, &gr.one));
  PetscCall(PetscMalloc4(gr.n + 1, &gr.off, gr.n + 1, &gr.goff, gr.n + 1,
                         &gr.start, gr.n + 1, &gr.gstart));
  PetscInt j = 0;
  for (PetscInt r = 0; r < p->nl; ++r) {
    if (r >= p->r0 && r < p->r1)
      continue;
    gr.row[j] = r;
    gr.gid[j] = p->gv[r];
    gr.len[j] = (PetscInt)(p->row_ptr[r + 1] - p->row_ptr[r]);
    gr.one[j] = 1;
    ++j;
  }
  PetscCall(slot_offsets(p, &gr, &rows));
  PetscCall(slot_graphs(p, &gr, rows));
  PetscCall(PetscSFDestroy(&rows));

  /* The block columns and the sending ranks, into the slots. */
  const PetscInt E = p->ext_ptr[nown], G = p->gext_ptr[nown];
  PetscCall(
      PetscMalloc3(E + 1, &ext_cols, E + 1, &ext_rank, G + 1, &gext_rank));
  PetscCall(PetscMalloc2(p->nnz_blocks + 1, &hrank, p->nl + 1, &grank));
  for (size_t b = 0; b < p->nnz_blocks; ++b)
    hrank[b] = rank;
  for (PetscInt r = 0; r < p->nl; ++r)
    grank[r] = rank;
  PetscCall(
      PetscSFReduceBegin(p->hsf, MPIU_INT, p->gcols, ext_cols, MPI_REPLACE));
  PetscCall(
      PetscSFReduceEnd(p->hsf, MPIU_INT, p->gcols, ext_cols, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(p->hsf, MPIU_INT, hrank, ext_rank, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(p->hsf, MPIU_INT, hrank, ext_rank, MPI_REPLACE));
  PetscCall(
      PetscSFReduceBegin(p->gsf, MPIU_INT, grank, gext_rank, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(p->gsf, MPIU_INT, grank, gext_rank, MPI_REPLACE));
  PetscCall(PetscFree2(hrank, grank));
  PetscCall(PetscFree4(gr.row, gr.gid, gr.len, gr.one));
  PetscCall(PetscFree4(gr.off, gr.goff, gr.start, gr.gstart));

  PetscCall(merge_rows(p, ext_cols, ext_rank, gext_rank));
  PetscCall(PetscFree3(ext_cols, ext_rank, gext_rank));

  /* Buffers of the evaluations. */
  const PetscInt d = p->dim, bs2 = d * d;
  PetscCallMPI(MPI_Type_contiguous(bs2, MPIU_REAL, &p->hunit));
  PetscCallMPI(MPI_Type_commit(&p->hunit));
  PetscCallMPI(MPI_Type_contiguous(d, MPIU_REAL, &p->gunit));
  PetscCallMPI(MPI_Type_commit(&p->gunit));
  PetscCall(PetscMalloc1((size_t)(E + 1) * (size_t)bs2, &p->ext_vals));
  PetscCall(PetscMalloc1((size_t)(G + 1) * (size_t)d, &p->gext_vals));
  /* One row at a time: the sum of a shared row, and a row in
   * MatSetValuesBlocked's layout. */
  PetscCall(PetscMalloc1((size_t)(p->max_urow + 1) * (size_t)bs2, &p->acc));
  PetscCall(PetscMalloc1((size_t)(p->n_grows + 1) * (size_t)d, &p->gacc));
  PetscCall(PetscMalloc1((size_t)(PetscMax(p->max_urow, p->max_row) + 1) *
                             (size_t)bs2,
                         &p->rowbuf));
  PetscFunctionReturn(0);
}

void fpetsc_exchange_free(fricl_petsc_plan *p) {
  PetscSFDestroy(&p->hsf);
  PetscSFDestroy(&p->gsf);
  if (p->hunit != MPI_DATATYPE_NULL)
    MPI_Type_free(&p->hunit);
  if (p->gunit != MPI_DATATYPE_NULL)
    MPI_Type_free(&p->gunit);
  PetscFree2(p->ext_ptr, p->gext_ptr);
  PetscFree4(p->dnz, p->onz, p->dnzu, p->onzu);
  PetscFree(p->has_diag);
  PetscFree(p->u_ptr);
  PetscFree(p->u_cols);
  PetscFree(p->own_pos);
  PetscFree2(p->ext_pos, p->ext_order);
  PetscFree2(p->gext_row, p->gext_order);
  PetscFree(p->grows);
  PetscFree(p->own_grow);
  PetscFree(p->ext_vals);
  PetscFree(p->gext_vals);
  PetscFree(p->acc);
  PetscFree(p->gacc);
  PetscFree(p->rowbuf);
  PetscFree(p->direct_off);
}

/* ------------------------------------------------------------ evaluation */

PetscErrorCode fpetsc_exchange_values(fricl_petsc_plan *p, PetscBool gradient,
                                      PetscBool hessian) {
  PetscFunctionBegin;
  if (hessian)
    PetscCall(
        PetscSFReduceBegin(p->hsf, p->hunit, p->bsr, p->ext_vals, MPI_REPLACE));
  if (gradient)
    PetscCall(PetscSFReduceBegin(p->gsf, p->gunit, p->grad, p->gext_vals,
                                 MPI_REPLACE));
  if (hessian)
    PetscCall(
        PetscSFReduceEnd(p->hsf, p->hunit, p->bsr, p->ext_vals, MPI_REPLACE));
  if (gradient)
    PetscCall(
        PetscSFReduceEnd(p->gsf, p->gunit, p->grad, p->gext_vals, MPI_REPLACE));
  PetscFunctionReturn(0);
}

void fpetsc_add(fricl_petsc_plan *p, Vec gradient, Mat hessian, fpetsc_err *e) {
  const PetscInt d = p->dim, bs2 = d * d;
  const PetscInt nown = p->vend - p->vstart;
  if (gradient) {
    /* Own block first, then the other ranks' in ascending rank order. */
    PetscArrayzero(p->gacc, (size_t)p->n_grows * (size_t)d);
    for (PetscInt r = p->r0; r < p->r1; ++r) {
      PetscReal *a = p->gacc + p->own_grow[p->gv[r] - p->vstart] * d;
      for (PetscInt k = 0; k < d; ++k)
        a[k] += p->grad[r * d + k];
    }
    for (PetscInt t = 0; t < p->gext_ptr[nown]; ++t) {
      const PetscInt s = p->gext_order[t];
      PetscReal *a = p->gacc + p->own_grow[p->gext_row[s]] * d;
      for (PetscInt k = 0; k < d; ++k)
        a[k] += p->gext_vals[s * d + k];
    }
    FPETSC_TRY(e, VecSetValuesBlocked(gradient, p->n_grows, p->grows, p->gacc,
                                      ADD_VALUES));
  }
  if (!hessian)
    return;
  /* Per owned row: a row only this rank touches is fricl's row as it is
   * (the same columns); a shared row is summed in p->acc: the own blocks
   * first, then the received ones in ascending rank order. Then the row
   * goes straight into a BAIJ matrix's storage (petsc_direct.c), or to
   * MatSetValuesBlocked, which takes the d x (n d) values row by row
   * (fricl stores the blocks one after another, each row-major). */
  const PetscInt own_b0 = (PetscInt)p->row_ptr[p->r0];
  fpetsc_direct direct;
  FPETSC_TRY(e, fpetsc_direct_begin(p, hessian, &direct));
  for (PetscInt i = 0; i < nown && !e->code; ++i) {
    const PetscInt u0 = p->u_ptr[i], n = p->u_ptr[i + 1] - u0;
    if (n == 0)
      continue;
    const PetscInt r = p->own_row[i];
    const PetscReal *blk;
    if (p->ext_ptr[i + 1] == p->ext_ptr[i]) {
      blk = p->bsr + (size_t)p->row_ptr[r] * (size_t)bs2;
    } else {
      PetscArrayzero(p->acc, (size_t)n * (size_t)bs2);
      if (r >= 0)
        for (PetscInt b = (PetscInt)p->row_ptr[r]; b < p->row_ptr[r + 1]; ++b) {
          PetscReal *a = p->acc + p->own_pos[b - own_b0] * bs2;
          const PetscReal *v = p->bsr + (size_t)b * (size_t)bs2;
          for (PetscInt k = 0; k < bs2; ++k)
            a[k] += v[k];
        }
      for (PetscInt t = p->ext_ptr[i]; t < p->ext_ptr[i + 1]; ++t) {
        const PetscInt s = p->ext_order[t];
        PetscReal *a = p->acc + p->ext_pos[s] * bs2;
        const PetscReal *v = p->ext_vals + (size_t)s * (size_t)bs2;
        for (PetscInt k = 0; k < bs2; ++k)
          a[k] += v[k];
      }
      blk = p->acc;
    }
    if (direct.on) {
      fpetsc_direct_add_row(p, &direct, u0, n, blk);
      continue;
    }
    for (PetscInt c = 0; c < n; ++c)
      for (PetscInt a = 0; a < d; ++a)
        for (PetscInt k = 0; k < d; ++k)
          p->rowbuf[(a * n + c) * d + k] = blk[c * bs2 + a * d + k];
    const PetscInt row = p->vstart + i;
    FPETSC_TRY(e, MatSetValuesBlocked(hessian, 1, &row, n, p->u_cols + u0,
                                      p->rowbuf, ADD_VALUES));
  }
  if (direct.on) {
    const PetscErrorCode ierr = fpetsc_direct_end(&direct);
    if (ierr)
      fpetsc_err_set(e, ierr, "fpetsc_direct_end failed");
  }
}
