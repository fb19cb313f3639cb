/* petsc_direct.c - adding owned rows straight into an assembled BAIJ
 * matrix's storage.
 *
 * MatSetValuesBlocked searches every block's column in the stored row and
 * takes the row's values in its own layout; with the pattern fixed by the
 * plan, both can be done once. For a MATSEQBAIJ or MATMPIBAIJ matrix of
 * block size dim that is assembled, the plan records, per block of its
 * owned rows' union, where the block lives: in the diagonal part (Ad) or
 * the off-diagonal part (Ao) of MatMPIBAIJGetSeqBAIJ, at which block of
 * its value array (MatGetRowIJ, MatSeqBAIJGetArray: public PETSc calls).
 * An evaluation then adds each block there (BAIJ blocks are column-major,
 * fricl's row-major). The map is rebuilt when the matrix is another one or
 * its nonzero structure changed (MatGetNonzeroState), and not used at all
 * for other types, unassembled matrices or a pattern that lacks one of the
 * plan's blocks: those take MatSetValuesBlocked, which gives the same
 * values (the same additions in the same order) or PETSc's error. */
#include <string.h>

#include "petsc_internal.h"

/* The storage of a matrix: diagonal part, off-diagonal part (NULL for a
 * sequential matrix) and the global block column of each of the latter's
 * columns. */
typedef struct parts {
  Mat ad, ao;
  const PetscInt *garray;
  PetscInt n_garray;
} parts;

static PetscErrorCode get_parts(Mat H, parts *s, PetscBool *ok) {
  PetscBool seq = PETSC_FALSE, mpi = PETSC_FALSE;
  PetscFunctionBegin;
  memset(s, 0, sizeof *s);
  *ok = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATSEQBAIJ, &seq));
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATMPIBAIJ, &mpi));
  if (seq) {
    s->ad = H;
  } else if (mpi) {
    PetscInt m = 0, n_ao = 0, bs = 1;
    PetscCall(MatMPIBAIJGetSeqBAIJ(H, &s->ad, &s->ao, &s->garray));
    PetscCall(MatGetLocalSize(s->ao, &m, &n_ao));
    PetscCall(MatGetBlockSize(s->ao, &bs));
    s->n_garray = n_ao / bs;
  } else {
    PetscFunctionReturn(0);
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Position of block column c (sorted row ja[lo..hi)), or -1. */
static PetscInt find(const PetscInt *ja, PetscInt lo, PetscInt hi, PetscInt c) {
  while (hi - lo > 8) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (ja[mid] > c)
      hi = mid;
    else
      lo = mid;
  }
  for (; lo < hi; ++lo)
    if (ja[lo] == c)
      return lo;
  return -1;
}

/* Build the map; *ok false when a block of the plan is not stored. */
static PetscErrorCode build_map(fricl_petsc_plan *p, const parts *s,
                                PetscBool *ok) {
  const PetscInt *ia_d, *ja_d, *ia_o = NULL, *ja_o = NULL;
  PetscInt n_d = 0, n_o = 0;
  PetscBool done_d = PETSC_FALSE, done_o = PETSC_FALSE;
  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (!p->direct_off)
    PetscCall(PetscMalloc1(p->n_owned_blocks + 1, &p->direct_off));
  PetscCall(MatGetRowIJ(s->ad, 0, PETSC_FALSE, PETSC_TRUE, &n_d, &ia_d, &ja_d,
                        &done_d));
  if (s->ao)
    PetscCall(MatGetRowIJ(s->ao, 0, PETSC_FALSE, PETSC_TRUE, &n_o, &ia_o, &ja_o,
                          &done_o));
  const PetscInt nown = p->vend - p->vstart;
  PetscBool found =
      done_d && (!s->ao || done_o) && n_d == nown && (!s->ao || n_o == nown);
  for (PetscInt i = 0; found && i < nown; ++i)
    for (PetscInt u = p->u_ptr[i]; found && u < p->u_ptr[i + 1]; ++u) {
      const PetscInt c = p->u_cols[u];
      PetscInt at = -1;
      if (c >= p->vstart && c < p->vend) {
        at = find(ja_d, ia_d[i], ia_d[i + 1], c - p->vstart);
        p->direct_off[u] = at;
      } else if (s->ao) {
        PetscInt local = -1;
        PetscCall(PetscFindInt(c, s->n_garray, s->garray, &local));
        if (local >= 0)
          at = find(ja_o, ia_o[i], ia_o[i + 1], local);
        p->direct_off[u] = -at - 1;
      }
      found = at >= 0;
    }
  PetscCall(MatRestoreRowIJ(s->ad, 0, PETSC_FALSE, PETSC_TRUE, &n_d, &ia_d,
                            &ja_d, &done_d));
  if (s->ao)
    PetscCall(MatRestoreRowIJ(s->ao, 0, PETSC_FALSE, PETSC_TRUE, &n_o, &ia_o,
                              &ja_o, &done_o));
  *ok = found;
  PetscFunctionReturn(0);
}

PetscErrorCode fpetsc_direct_begin(fricl_petsc_plan *p, Mat H,
                                   fpetsc_direct *dst) {
  PetscBool assembled = PETSC_FALSE, ok = PETSC_FALSE;
  PetscObjectId id;
  PetscObjectState state;
  PetscInt bs = 0;
  parts s;
  PetscFunctionBegin;
  memset(dst, 0, sizeof *dst);
  PetscCall(MatAssembled(H, &assembled));
  PetscCall(MatGetBlockSize(H, &bs));
  if (!assembled || bs != p->dim)
    PetscFunctionReturn(0);
  PetscCall(get_parts(H, &s, &ok));
  if (!ok)
    PetscFunctionReturn(0);
  PetscCall(PetscObjectGetId((PetscObject)H, &id));
  PetscCall(MatGetNonzeroState(H, &state));
  if (!p->direct_valid || p->direct_id != id || p->direct_state != state) {
    p->direct_valid = PETSC_FALSE;
    PetscCall(build_map(p, &s, &ok));
    if (!ok)
      PetscFunctionReturn(0);
    p->direct_valid = PETSC_TRUE;
    p->direct_id = id;
    p->direct_state = state;
  }
  dst->parts[0] = s.ad;
  dst->parts[1] = s.ao;
  PetscCall(MatSeqBAIJGetArray(s.ad, &dst->ad));
  if (s.ao)
    PetscCall(MatSeqBAIJGetArray(s.ao, &dst->ao));
  dst->on = PETSC_TRUE;
  PetscFunctionReturn(0);
}

void fpetsc_direct_add_row(const fricl_petsc_plan *p, const fpetsc_direct *dst,
                           PetscInt u0, PetscInt n, const PetscReal *blk) {
  const PetscInt d = p->dim, bs2 = d * d;
  for (PetscInt c = 0; c < n; ++c) {
    const PetscInt off = p->direct_off[u0 + c];
    PetscScalar *a = off >= 0 ? dst->ad + (size_t)off * (size_t)bs2
                              : dst->ao + (size_t)(-off - 1) * (size_t)bs2;
    const PetscReal *v = blk + (size_t)c * (size_t)bs2;
    for (PetscInt r = 0; r < d; ++r)
      for (PetscInt k = 0; k < d; ++k)
        a[k * d + r] += v[r * d + k];
  }
}

PetscErrorCode fpetsc_direct_end(fpetsc_direct *dst) {
  PetscFunctionBegin;
  if (!dst->on)
    PetscFunctionReturn(0);
  /* Restoring marks each part changed. The MPI matrix itself is marked by
   * the assembly that follows every evaluation (ours, or the caller's with
   * FRICL_PETSC_EVAL_NO_ASSEMBLY), so that a KSP rebuilds its
   * preconditioner. */
  PetscCall(MatSeqBAIJRestoreArray(dst->parts[0], &dst->ad));
  if (dst->parts[1])
    PetscCall(MatSeqBAIJRestoreArray(dst->parts[1], &dst->ao));
  dst->on = PETSC_FALSE;
  PetscFunctionReturn(0);
}
