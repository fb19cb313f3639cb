/*
 * fricl_build.cl - the lagged friction build, one work item per contact.
 *
 * The host prepends FRICL_EMBEDDED, the defines below, fricl_cl_compat.h
 * and fricl_geometry_math.h.
 *   FRICL_REAL, FRICL_FN, FRICL_SQRT, FRICL_LOG   precision
 *   FRICL_DIM, FRICL_STENCIL, FRICL_K, FRICL_NB    dimension and stencil
 *   FRICL_STENCIL_IS_EE, FRICL_STENCIL_IS_PV       stencil tests for #if
 *                     (the codes are enumerators, invisible to #if)
 *   FRICL_HAS_REST    rest positions given (else eps_x from the lagged ones)
 *   FRICL_MUS_MODE, FRICL_MUK_MODE   0 batch scalar, 1 per contact,
 *                                    2 per vertex (interpolated, blended)
 *   FRICL_BLEND, FRICL_PHYSICAL, FRICL_HAS_DMIN, FRICL_HAS_WEIGHT
 *   FRICL_OUT_MASK    which outputs are written (bits below)
 * Every buffer comes with an element offset; per-contact arrays are
 * indexed from contact 0 at that offset; this launch covers contacts
 * [c0, c0 + n). Every contact is independent, so results do not
 * depend on chunking or on the order of work items.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_cl_compat.h"
#include "fricl_geometry_math.h"
#endif

#define FRICL_BO_BETA 0x01
#define FRICL_BO_P 0x02
#define FRICL_BO_N 0x04
#define FRICL_BO_GRAD 0x08
#define FRICL_BO_W 0x10
#define FRICL_BO_MUS 0x20
#define FRICL_BO_MUK 0x40
#define FRICL_BO_STATUS 0x80
#define FRICL_WANT(bit) ((FRICL_OUT_MASK & (bit)) != 0)
#define FRICL_M (FRICL_DIM - 1)

__kernel void fricl_build_contacts(
    ulong n, ulong c0, ulong nv, __global const int *restrict vert,
    ulong vert_off, __global const FRICL_REAL *restrict X, ulong X_off,
    __global const FRICL_REAL *restrict Xr, ulong Xr_off,
    __global const FRICL_REAL *restrict pn_a, ulong pn_off,
    __global const FRICL_REAL *restrict pc_a, ulong pc_off,
    __global const FRICL_REAL *restrict dmin_a, ulong dmin_off,
    FRICL_REAL dmin_s, __global const FRICL_REAL *restrict w_a, ulong w_off,
    __global const FRICL_REAL *restrict mus_a, ulong mus_off, FRICL_REAL mus_s,
    __global const FRICL_REAL *restrict muk_a, ulong muk_off, FRICL_REAL muk_s,
    FRICL_REAL kappa, FRICL_REAL dhat, __global FRICL_REAL *restrict beta_o,
    ulong beta_off, __global FRICL_REAL *restrict P_o, ulong P_off,
    __global FRICL_REAL *restrict N_o, ulong N_off,
    __global FRICL_REAL *restrict gN_o, ulong gN_off,
    __global FRICL_REAL *restrict w_o, ulong wo_off,
    __global FRICL_REAL *restrict mus_o, ulong muso_off,
    __global FRICL_REAL *restrict muk_o, ulong muko_off,
    __global uchar *restrict st_o, ulong st_off) {
  const size_t j = get_global_id(0);
  if (j >= n)
    return;
  const size_t c = (size_t)c0 + j;
  /* nv > 0 (the cl_mem tier): a vertex index outside [0, nv), which the
   * host cannot check in device memory, reads NaN instead of memory out
   * of bounds (the contact then gets the NONFINITE status). */
  int vx[FRICL_K], ok[FRICL_K];
  for (int i = 0; i < FRICL_K; ++i) {
    const int v = vert[vert_off + c * FRICL_K + i];
    ok[i] = nv == 0 || (v >= 0 && (ulong)v < nv);
    vx[i] = ok[i] ? v : 0;
  }
  FRICL_REAL x[FRICL_K * FRICL_DIM];
  FRICL_REAL mvs[4] = {0, 0, 0, 0}, mvk[4] = {0, 0, 0, 0};
  for (int i = 0; i < FRICL_K; ++i) {
    for (int r = 0; r < FRICL_DIM; ++r)
      x[i * FRICL_DIM + r] =
          ok[i] ? X[X_off + (size_t)vx[i] * FRICL_DIM + r] : (FRICL_REAL)NAN;
#if FRICL_MUS_MODE == 2
    mvs[i] = ok[i] ? mus_a[mus_off + vx[i]] : (FRICL_REAL)NAN;
#endif
#if FRICL_MUK_MODE == 2
    mvk[i] = ok[i] ? muk_a[muk_off + vx[i]] : (FRICL_REAL)NAN;
#endif
  }
  FRICL_REAL eps_x = 0;
#if FRICL_STENCIL_IS_EE
  {
#if FRICL_HAS_REST
    __global const FRICL_REAL *R = Xr + Xr_off;
#else
    __global const FRICL_REAL *R = X + X_off;
#endif
    FRICL_REAL ea[3], eb[3];
    for (int r = 0; r < 3; ++r) {
      ea[r] = R[(size_t)vx[1] * 3 + r] - R[(size_t)vx[0] * 3 + r];
      eb[r] = R[(size_t)vx[3] * 3 + r] - R[(size_t)vx[2] * 3 + r];
    }
    eps_x = FRICL_R(1) / FRICL_R(1000) * FRICL_FN(g_dot)(ea, ea, 3) *
            FRICL_FN(g_dot)(eb, eb, 3);
  }
#endif
  FRICL_REAL pn[3] = {0, 0, 0}, pc = 0;
#if FRICL_STENCIL_IS_PV
  for (int r = 0; r < FRICL_DIM; ++r)
    pn[r] = pn_a[pn_off + c * FRICL_DIM + r];
  pc = pc_a[pc_off + c];
#endif
#if FRICL_MUS_MODE == 1
  FRICL_REAL mus = mus_a[mus_off + c];
#else
  FRICL_REAL mus = mus_s;
#endif
#if FRICL_MUK_MODE == 1
  FRICL_REAL muk = muk_a[muk_off + c];
#else
  FRICL_REAL muk = muk_s;
#endif
#if FRICL_HAS_DMIN
  const FRICL_REAL dmin = dmin_a[dmin_off + c];
#else
  const FRICL_REAL dmin = dmin_s;
#endif
  FRICL_REAL beta[2], P[6], N, gN[12];
  const int s = FRICL_FN(build_contact)(
      FRICL_STENCIL, FRICL_DIM, x, pn, pc, eps_x, kappa, dhat, dmin,
      FRICL_PHYSICAL, FRICL_MUS_MODE == 2, FRICL_MUK_MODE == 2, mvs, mvk,
      FRICL_BLEND, FRICL_WANT(FRICL_BO_GRAD), beta, P, &N, gN, &mus, &muk);
#if FRICL_WANT(FRICL_BO_BETA) && FRICL_NB > 0
  for (int i = 0; i < FRICL_NB; ++i)
    beta_o[beta_off + c * FRICL_NB + i] = beta[i];
#endif
#if FRICL_WANT(FRICL_BO_P)
  for (int i = 0; i < FRICL_DIM * FRICL_M; ++i)
    P_o[P_off + c * (FRICL_DIM * FRICL_M) + i] = P[i];
#endif
#if FRICL_WANT(FRICL_BO_N)
  N_o[N_off + c] = N;
#endif
#if FRICL_WANT(FRICL_BO_GRAD)
  for (int i = 0; i < FRICL_K * FRICL_DIM; ++i)
    gN_o[gN_off + c * (FRICL_K * FRICL_DIM) + i] = gN[i];
#endif
#if FRICL_WANT(FRICL_BO_W)
#if FRICL_HAS_WEIGHT
  w_o[wo_off + c] = w_a[w_off + c];
#else
  w_o[wo_off + c] = FRICL_R(1);
#endif
#endif
#if FRICL_WANT(FRICL_BO_MUS)
  mus_o[muso_off + c] = mus;
#endif
#if FRICL_WANT(FRICL_BO_MUK)
  muk_o[muko_off + c] = muk;
#endif
#if FRICL_WANT(FRICL_BO_STATUS)
  st_o[st_off + c] = (uchar)s;
#endif
  (void)s;
}
