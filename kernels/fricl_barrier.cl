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
