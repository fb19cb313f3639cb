/*
 * fricl_force.cl - the friction force and its Jacobian, one contact per
 * work item (kernels/fricl_force_math.h): a record per contact (N, the
 * local force, the local Jacobian; FRICL_FORCE_REC reals), which the host
 * adds into the global outputs in contact order (src/core/force_pass.c).
 *
 * The host prepends FRICL_EMBEDDED, the defines (FRICL_REAL, FRICL_FN,
 * FRICL_SQRT, FRICL_LOG, FRICL_FABS, FRICL_DIM, FRICL_STENCIL, FRICL_WRT,
 * FRICL_FORCE_OUT __global) and the
 * headers in order: fricl_cl_compat.h, fricl_scalar_math.h,
 * fricl_tangential_codes.h, fricl_tangential_adhesion_math.h,
 * fricl_tangential_math.h, fricl_distance_math.h, fricl_geometry_math.h,
 * fricl_force_math.h.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_cl_compat.h"
#include "fricl_scalar_math.h"
/* then the potential's and the build's math, which use it */
#include "fricl_tangential_math.h"

#include "fricl_geometry_math.h"
/* then the force, which uses all three */
#include "fricl_force_math.h"
#endif

#define FRICL_FORCE_REC 157

/* Contact c of a group slice: ids (k per contact, slice-relative), the
 * optional per-contact arrays (NULL-equivalent: has & bit 0 weight, 1
 * aniso, 2 rest positions), the PV plane, mu (absent with no_mu). */
__kernel void fricl_force_records(
    __global const FRICL_REAL *rest, __global const FRICL_REAL *disp,
    __global const FRICL_REAL *vel, __global const int *ids,
    __global const FRICL_REAL *weight, __global const FRICL_REAL *mus,
    __global const FRICL_REAL *muk, __global const FRICL_REAL *aniso,
    __global const FRICL_REAL *pnorm, __global const FRICL_REAL *poff,
    const int has, const int no_mu, const int physical, const int profile,
    const FRICL_REAL eps, const FRICL_REAL kappa, const FRICL_REAL dhat,
    const FRICL_REAL dmin, const int n, __global FRICL_REAL *rec) {
  const int c = (int)get_global_id(0);
  if (c >= n)
    return;
  const int dim = FRICL_DIM, type = FRICL_STENCIL, m = FRICL_DIM - 1;
  const int k = type == FRICL_B_VV   ? 2
                : type == FRICL_B_EV ? 3
                : type == FRICL_B_PV ? 1
                                     : 4;
  FRICL_REAL x[12], v[12], pn[3] = {0, 0, 0}, pc = 0, an[2] = {1, 1};
  FRICL_UNROLL
  for (int i = 0; i < k; ++i) {
    const int vi = ids[c * k + i];
    FRICL_UNROLL
    for (int s = 0; s < dim; ++s) {
      const FRICL_REAL u = disp[vi * dim + s];
      x[i * dim + s] = (has & 4) ? rest[vi * dim + s] + u : u;
      v[i * dim + s] = vel[vi * dim + s];
    }
  }
  if (type == FRICL_B_PV) {
    FRICL_UNROLL
    for (int s = 0; s < dim; ++s)
      pn[s] = pnorm[c * dim + s];
    pc = poff[c];
  }
  if (has & 2) {
    FRICL_UNROLL
    for (int s = 0; s < m; ++s)
      an[s] = aniso[c * m + s];
  }
  const FRICL_REAL w = (has & 1) ? weight[c] : (FRICL_REAL)1;
  const FRICL_REAL ms = no_mu ? (FRICL_REAL)1 : mus[c];
  const FRICL_REAL mk = no_mu ? (FRICL_REAL)1 : muk[c];
  FRICL_REAL F[12];
  __global FRICL_REAL *R = rec + (size_t)c * FRICL_FORCE_REC;
  R[0] = FRICL_FN(force_contact)(type, dim, x, v, pn, pc, w, ms, mk, an, eps,
                                 profile, kappa, dhat, dmin, physical,
                                 FRICL_WRT, F, R + 13);
  FRICL_UNROLL
  for (int i = 0; i < k * dim; ++i)
    R[1 + i] = F[i];
}
