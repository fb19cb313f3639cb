/*
 * fricl_barrier.cl - the normal-contact barrier, one work item per
 * contact: B, its gradient and its projected Hessian into a record per
 * contact (B, 12 gradient, 144 Hessian reals), which the host adds into
 * the global outputs in contact order (src/host/barrier_host_impl.h).
 *
 * The host prepends FRICL_EMBEDDED, the defines (FRICL_REAL, FRICL_FN,
 * FRICL_SQRT, FRICL_LOG; FRICL_STENCIL and FRICL_DIM, constants that fold
 * through the math), fricl_cl_compat.h, fricl_distance_math.h,
 * fricl_eigen_math.h and fricl_barrier_math.h.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_barrier_math.h"
#include "fricl_cl_compat.h"
#include "fricl_distance_math.h"
#include "fricl_eigen_math.h"
#endif

#define FRICL_BAR_REC 157
/* Which optional arrays are given. */
#define FRICL_BAR_WEIGHT 0x1
#define FRICL_BAR_DMIN 0x2
#define FRICL_BAR_DTYPE 0x4
#define FRICL_BAR_REST 0x8

__kernel void fricl_barrier_records(
    ulong n, int psd, int physical, int want, int given, FRICL_REAL dhat,
    FRICL_REAL kappa, FRICL_REAL dmin0, __global const FRICL_REAL *X,
    __global const FRICL_REAL *Xr, __global const int *vert,
    __global const FRICL_REAL *weight, __global const FRICL_REAL *dmin_a,
    __global const FRICL_REAL *pn_a, __global const FRICL_REAL *pc_a,
    __global const char *dtype_a, __global FRICL_REAL *rec) {
  const ulong c = get_global_id(0);
  if (c >= n)
    return;
  const int dim = FRICL_DIM, type = FRICL_STENCIL;
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  FRICL_REAL x[12], xr[12], pn[3] = {0, 0, 0}, pc = FRICL_R(0);
  for (int i = 0; i < k; ++i) {
    const ulong v = (ulong)vert[c * (ulong)k + (ulong)i];
    for (int s = 0; s < dim; ++s) {
      x[i * dim + s] = X[v * (ulong)dim + (ulong)s];
      xr[i * dim + s] = (given & FRICL_BAR_REST) ? Xr[v * (ulong)dim + (ulong)s]
                                                 : x[i * dim + s];
    }
  }
  if (type == FRICL_D_PV) {
    for (int s = 0; s < dim; ++s)
      pn[s] = pn_a[c * (ulong)dim + (ulong)s];
    pc = pc_a[c];
  }
  const FRICL_REAL w = (given & FRICL_BAR_WEIGHT) ? weight[c] : FRICL_R(1);
  const FRICL_REAL dmin = (given & FRICL_BAR_DMIN) ? dmin_a[c] : dmin0;
  const int dtype = (given & FRICL_BAR_DTYPE) ? (int)dtype_a[c] : -1;
  FRICL_REAL g[12], H[144], work[288];
  const FRICL_REAL B =
      FRICL_FN(barrier_contact)(type, dim, x, xr, pn, pc, dtype, dhat, kappa,
                                dmin, w, physical, psd, want, g, H, work);
  __global FRICL_REAL *R = rec + c * (ulong)FRICL_BAR_REC;
  R[0] = B;
  if (want >= 1)
    for (int i = 0; i < ndof; ++i)
      R[1 + i] = g[i];
  if (want >= 2)
    for (int i = 0; i < ndof * ndof; ++i)
      R[13 + i] = H[i];
}

/* ------------------------------------------------------ the cl_mem tier
 *
 * fricl_barrier_contacts: one work item per contact of one group slice,
 * reading the caller's buffers at their element offsets, writing the
 * group's per-contact outputs and, for the gathers, a record per contact
 * at rec[(rec_base + c) * rstride]: B at FRICL_BAR_R_B, the gradient at
 * FRICL_BAR_R_G (12), t = H p_local at FRICL_BAR_R_T (12), H at
 * FRICL_BAR_R_H with rows of 12 reals (whatever the stencil, so that a
 * gather reads any contact's block without knowing its group). rstride
 * holds the parts the call asks for (1, 13, 25 or 169 reals). A vertex
 * index outside [0, nv) - possible only with device-resident indices,
 * which the host cannot validate - reads NaN positions instead of memory
 * out of bounds.
 */
#define FRICL_BAR_R_B 0
#define FRICL_BAR_R_G 1
#define FRICL_BAR_R_T 13
#define FRICL_BAR_R_H 25
/* Which outputs are written. */
#define FRICL_BAR_O_POT 0x1 /* group potential */
#define FRICL_BAR_O_LG 0x2  /* group local gradient */
#define FRICL_BAR_O_LH 0x4  /* group local Hessian */
#define FRICL_BAR_O_REC 0x8 /* the record (B, and g / H as rstride holds) */
#define FRICL_BAR_O_T 0x10  /* t into the record */

__kernel void fricl_barrier_contacts(
    ulong n, ulong nv, int psd, int physical, int want, int given, int outs,
    FRICL_REAL dhat, FRICL_REAL kappa, FRICL_REAL dmin0,
    __global const FRICL_REAL *X, ulong x_off, __global const FRICL_REAL *Xr,
    ulong xr_off, __global const int *vert, ulong v_off,
    __global const FRICL_REAL *weight, ulong w_off,
    __global const FRICL_REAL *dmin_a, ulong dm_off,
    __global const FRICL_REAL *pn_a, ulong pn_off,
    __global const FRICL_REAL *pc_a, ulong pc_off, __global const char *dtype_a,
    ulong dt_off, __global const FRICL_REAL *dir, ulong dir_off,
    __global FRICL_REAL *pot, ulong pot_off, __global FRICL_REAL *lg,
    ulong lg_off, __global FRICL_REAL *lh, ulong lh_off,
    __global FRICL_REAL *rec, ulong rec_base, int rstride) {
  const ulong c = get_global_id(0);
  if (c >= n)
    return;
  const int dim = FRICL_DIM, type = FRICL_STENCIL;
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  FRICL_REAL x[12], xr[12], pn[3] = {0, 0, 0}, pc = FRICL_R(0);
  ulong vx[4];
  for (int i = 0; i < k; ++i) {
    const int vi = vert[v_off + c * (ulong)k + (ulong)i];
    const int ok = vi >= 0 && (ulong)vi < nv;
    vx[i] = ok ? (ulong)vi : 0;
    for (int s = 0; s < dim; ++s) {
      const ulong at = vx[i] * (ulong)dim + (ulong)s;
      x[i * dim + s] = ok ? X[x_off + at] : (FRICL_REAL)NAN;
      xr[i * dim + s] = !ok                        ? (FRICL_REAL)NAN
                        : (given & FRICL_BAR_REST) ? Xr[xr_off + at]
                                                   : x[i * dim + s];
    }
  }
  if (type == FRICL_D_PV) {
    for (int s = 0; s < dim; ++s)
      pn[s] = pn_a[pn_off + c * (ulong)dim + (ulong)s];
    pc = pc_a[pc_off + c];
  }
  const FRICL_REAL w =
      (given & FRICL_BAR_WEIGHT) ? weight[w_off + c] : FRICL_R(1);
  const FRICL_REAL dmin = (given & FRICL_BAR_DMIN) ? dmin_a[dm_off + c] : dmin0;
  const int dtype = (given & FRICL_BAR_DTYPE) ? (int)dtype_a[dt_off + c] : -1;
  FRICL_REAL g[12], H[144], work[288];
  const FRICL_REAL B =
      FRICL_FN(barrier_contact)(type, dim, x, xr, pn, pc, dtype, dhat, kappa,
                                dmin, w, physical, psd, want, g, H, work);
  if (outs & FRICL_BAR_O_POT)
    pot[pot_off + c] = B;
  if (outs & FRICL_BAR_O_LG)
    for (int i = 0; i < ndof; ++i)
      lg[lg_off + c * (ulong)ndof + (ulong)i] = g[i];
  if (outs & FRICL_BAR_O_LH)
    for (int i = 0; i < ndof * ndof; ++i)
      lh[lh_off + c * (ulong)(ndof * ndof) + (ulong)i] = H[i];
  if (!(outs & FRICL_BAR_O_REC))
    return;
  __global FRICL_REAL *R = rec + (rec_base + c) * (ulong)rstride;
  R[FRICL_BAR_R_B] = B;
  if (rstride > FRICL_BAR_R_G)
    for (int i = 0; i < ndof; ++i)
      R[FRICL_BAR_R_G + i] = g[i];
  if (outs & FRICL_BAR_O_T)
    /* The host's order: t_r = sum over (j, u) of H[r][j u] p[v_j][u]. */
    for (int r = 0; r < ndof; ++r) {
      FRICL_REAL s = FRICL_R(0);
      for (int j = 0; j < k; ++j)
        for (int u = 0; u < dim; ++u)
          s += H[r * ndof + j * dim + u] *
               dir[dir_off + vx[j] * (ulong)dim + (ulong)u];
      R[FRICL_BAR_R_T + r] = s;
    }
  if (rstride > FRICL_BAR_R_H)
    for (int r = 0; r < ndof; ++r)
      for (int s = 0; s < ndof; ++s)
        R[FRICL_BAR_R_H + r * 12 + s] = H[r * ndof + s];
}

/* out[v] (dim entries) = (first ? 0 : out[v]) + the sum, in contact order,
 * of the record field's entries of v's slots over the contacts [c0, c1)
 * of v's list (the plan's vertex lists: entry = contact << 2 | slot), as
 * the host adds them. */
__kernel void
fricl_barrier_gather_vec(ulong nv, __global const long *restrict vptr,
                         __global const ulong *restrict vent,
                         __global const FRICL_REAL *rec, int rstride, int field,
                         ulong c0, ulong c1, int first,
                         __global FRICL_REAL *out, ulong out_off) {
  const size_t v = get_global_id(0);
  if (v >= nv)
    return;
  FRICL_REAL acc[3];
  for (int r = 0; r < FRICL_DIM; ++r)
    acc[r] = first ? (FRICL_REAL)0 : out[out_off + v * FRICL_DIM + r];
  for (long x = vptr[v]; x < vptr[v + 1]; ++x) {
    const ulong en = vent[x];
    const ulong c = en >> 2;
    if (c < c0)
      continue;
    if (c >= c1)
      break;
    __global const FRICL_REAL *R =
        rec + (c - c0) * (ulong)rstride + field + (int)(en & 3) * FRICL_DIM;
    for (int r = 0; r < FRICL_DIM; ++r)
      acc[r] += R[r];
  }
  for (int r = 0; r < FRICL_DIM; ++r)
    out[out_off + v * FRICL_DIM + r] = acc[r];
}

/* One BSR block: (first ? 0 : block) + the sum, in the plan's order
 * (entry = contact << 4 | row slot << 2 | column slot), of the contacts'
 * dim x dim blocks of H. */
__kernel void fricl_barrier_gather_bsr(ulong nnz,
                                       __global const long *restrict bptr,
                                       __global const ulong *restrict bent,
                                       __global const FRICL_REAL *rec,
                                       int rstride, ulong c0, ulong c1,
                                       int first, __global FRICL_REAL *out,
                                       ulong out_off) {
  const size_t b = get_global_id(0);
  if (b >= nnz)
    return;
  FRICL_REAL acc[9];
  __global FRICL_REAL *o = out + out_off + b * (FRICL_DIM * FRICL_DIM);
  for (int i = 0; i < FRICL_DIM * FRICL_DIM; ++i)
    acc[i] = first ? (FRICL_REAL)0 : o[i];
  for (long x = bptr[b]; x < bptr[b + 1]; ++x) {
    const ulong en = bent[x];
    const ulong c = en >> 4;
    if (c < c0)
      continue;
    if (c >= c1)
      break;
    const int i = (int)((en >> 2) & 3), j = (int)(en & 3);
    __global const FRICL_REAL *R = rec + (c - c0) * (ulong)rstride +
                                   FRICL_BAR_R_H + i * FRICL_DIM * 12 +
                                   j * FRICL_DIM;
    for (int r = 0; r < FRICL_DIM; ++r)
      for (int s = 0; s < FRICL_DIM; ++s)
        acc[r * FRICL_DIM + s] += R[r * 12 + s];
  }
  for (int i = 0; i < FRICL_DIM * FRICL_DIM; ++i)
    o[i] = acc[i];
}

/* partial[blk] = the sequential sum of B over the records of its block of
 * `block` contacts among the first n (FRICL_ORDERED: in this order on
 * every implementation); then, with nblk > 0 and one work item,
 * fricl_barrier_pot_accumulate adds the partials in order. */
__kernel void fricl_barrier_block_sum(ulong n, ulong block,
                                      __global const FRICL_REAL *rec,
                                      int rstride,
                                      __global FRICL_REAL *partial) {
  const size_t blk = get_global_id(0);
  const ulong lo = blk * block;
  if (lo >= n)
    return;
  const ulong hi = n - lo < block ? n : lo + block;
  FRICL_ORDERED FRICL_REAL s = 0;
  for (ulong i = lo; i < hi; ++i)
    s += rec[i * (ulong)rstride + FRICL_BAR_R_B];
  partial[blk] = s;
}

/* total = (first ? 0 : total) + partial[0] + ... + partial[nblk - 1]. */
__kernel void fricl_barrier_pot_accumulate(ulong nblk,
                                           __global const FRICL_REAL *partial,
                                           int first,
                                           __global FRICL_REAL *total,
                                           ulong total_off) {
  if (get_global_id(0) != 0)
    return;
  FRICL_ORDERED FRICL_REAL s = first ? (FRICL_REAL)0 : total[total_off];
  for (ulong i = 0; i < nblk; ++i)
    s += partial[i];
  total[total_off] = s;
}
