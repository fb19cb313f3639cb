/*
 * fricl_tangential.cl - the tangential potential per contact, and the
 * deterministic assembly of its global outputs.
 *
 * The host prepends FRICL_EMBEDDED, the defines below, fricl_cl_compat.h,
 * fricl_scalar_math.h, fricl_tangential_math.h and fricl_assembly.h.
 *   FRICL_REAL, FRICL_FN, FRICL_FABS, FRICL_SQRT   precision
 *   FRICL_DIM                                     2 or 3
 *   FRICL_RSTRIDE   reals per record: FRICL_REC_STRIDE, or
 *                   FRICL_REC_STRIDE_GRAD when only the gradient gathers
 * and for fricl_tangential_contacts only:
 *   FRICL_STENCIL, FRICL_K, FRICL_NB   stencil type, vertices, coordinates
 *   FRICL_PROFILE, FRICL_PSD, FRICL_IPCTK_ABS, FRICL_NEED_HESS
 *   FRICL_MOLLIFIER                    the mollifier family (0 if absent)
 *   FRICL_HAS_WEIGHT, FRICL_HAS_ANISO  optional inputs present
 *   FRICL_OUT_MASK                     which outputs are written (bits below)
 *
 * Assembly never uses atomics: each work item of a gather owns one output
 * (a vertex's dim entries or one Hessian block) and sums its contributions
 * in contact order, starting from the previous chunk's value, so results
 * are bitwise reproducible and chunking does not change them.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_assembly.h"
#include "fricl_cl_compat.h"
#include "fricl_scalar_math.h"
#include "fricl_tangential_math.h"
#endif

#define FRICL_O_POT 0x01   /* per-contact D into the group's array */
#define FRICL_O_HLOC 0x02  /* dense local Hessian */
#define FRICL_O_GAMMA 0x04 /* factored gamma */
#define FRICL_O_GRAD 0x08  /* factored q */
#define FRICL_O_S 0x10     /* factored S */
#define FRICL_O_REC 0x20   /* record for the gathers */
#define FRICL_O_DALL 0x40  /* D into the chunk's array for the total */
#define FRICL_O_T 0x80     /* t = S sum_j gamma_j p_j into the record */

#ifdef FRICL_OUT_MASK
#define FRICL_WANT(bit) ((FRICL_OUT_MASK & (bit)) != 0)
#define FRICL_NPK (FRICL_DIM * (FRICL_DIM + 1) / 2)
#define FRICL_M (FRICL_DIM - 1)
#define FRICL_NDOF (FRICL_K * FRICL_DIM)

/* Every buffer argument comes with an element offset (the cl_mem tier
 * passes the caller's offsets). A vertex index outside [0, nv) - possible
 * only with device-resident indices, which the host cannot validate -
 * reads NaN velocities instead of memory out of bounds. */
#ifndef FRICL_MOLLIFIER
#define FRICL_MOLLIFIER 0
#endif

__kernel void fricl_tangential_contacts(
    ulong n, ulong nv, __global const int *restrict vert, ulong vert_off,
    __global const FRICL_REAL *restrict vel, ulong vel_off,
    __global const FRICL_REAL *restrict dir, ulong dir_off,
    __global const FRICL_REAL *restrict beta_a, ulong beta_off,
    __global const FRICL_REAL *restrict P_a, ulong P_off,
    __global const FRICL_REAL *restrict N_a, ulong N_off,
    __global const FRICL_REAL *restrict w_a, ulong w_off,
    __global const FRICL_REAL *restrict ms_a, ulong ms_off,
    __global const FRICL_REAL *restrict mk_a, ulong mk_off,
    __global const FRICL_REAL *restrict an_a, ulong an_off, FRICL_REAL eps,
    __global FRICL_REAL *restrict pot, ulong pot_off,
    __global FRICL_REAL *restrict hloc, ulong hloc_off,
    __global FRICL_REAL *restrict gam, ulong gam_off,
    __global FRICL_REAL *restrict grd, ulong grd_off,
    __global FRICL_REAL *restrict Sout, ulong S_off,
    __global FRICL_REAL *restrict rec, __global FRICL_REAL *restrict dall,
    ulong base) {
  const size_t c = get_global_id(0);
  if (c >= n)
    return;
  int vx[FRICL_K], ok[FRICL_K];
  FRICL_UNROLL
  for (int i = 0; i < FRICL_K; ++i) {
    const int v = vert[vert_off + c * FRICL_K + i];
    ok[i] = (ulong)(uint)v < nv && v >= 0;
    vx[i] = ok[i] ? v : 0;
  }
  FRICL_REAL beta[2] = {0, 0}, gamma[4] = {0, 0, 0, 0};
  FRICL_UNROLL
  for (int i = 0; i < FRICL_NB; ++i)
    beta[i] = beta_a[beta_off + c * FRICL_NB + i];
  FRICL_FN(stencil_gamma)(FRICL_STENCIL, beta, gamma);
  FRICL_REAL urel[3];
  FRICL_UNROLL
  for (int r = 0; r < FRICL_DIM; ++r) {
    FRICL_REAL s = 0;
    FRICL_UNROLL
    for (int i = 0; i < FRICL_K; ++i) {
      const FRICL_REAL vi = vel[vel_off + (size_t)vx[i] * FRICL_DIM + r];
      s += gamma[i] * (ok[i] ? vi : (FRICL_REAL)NAN);
    }
    urel[r] = s;
  }
  FRICL_REAL P[6], a[2] = {1, 1};
  FRICL_UNROLL
  for (int i = 0; i < FRICL_DIM * FRICL_M; ++i)
    P[i] = P_a[P_off + c * (FRICL_DIM * FRICL_M) + i];
#if FRICL_HAS_ANISO
  FRICL_UNROLL
  for (int i = 0; i < FRICL_M; ++i)
    a[i] = an_a[an_off + c * FRICL_M + i];
#endif
#if FRICL_HAS_WEIGHT
  const FRICL_REAL w = w_a[w_off + c];
#else
  const FRICL_REAL w = 1;
#endif
  FRICL_REAL D, q[3], S[6] = {0, 0, 0, 0, 0, 0};
  FRICL_FN(tangential_contact_family)
  (FRICL_DIM, urel, P, a, N_a[N_off + c], w, ms_a[ms_off + c], mk_a[mk_off + c],
   eps, FRICL_PROFILE, FRICL_MOLLIFIER, FRICL_PSD, FRICL_IPCTK_ABS,
   FRICL_NEED_HESS, &D, q, S);
#if FRICL_WANT(FRICL_O_POT)
  pot[pot_off + c] = D;
#endif
#if FRICL_WANT(FRICL_O_DALL)
  dall[base + c] = D;
#endif
#if FRICL_WANT(FRICL_O_GAMMA)
  FRICL_UNROLL
  for (int i = 0; i < FRICL_K; ++i)
    gam[gam_off + c * FRICL_K + i] = gamma[i];
#endif
#if FRICL_WANT(FRICL_O_GRAD)
  FRICL_UNROLL
  for (int r = 0; r < FRICL_DIM; ++r)
    grd[grd_off + c * FRICL_DIM + r] = q[r];
#endif
#if FRICL_WANT(FRICL_O_S)
  FRICL_UNROLL
  for (int i = 0; i < FRICL_NPK; ++i)
    Sout[S_off + c * FRICL_NPK + i] = S[i];
#endif
#if FRICL_WANT(FRICL_O_HLOC)
  {
    __global FRICL_REAL *H = hloc + hloc_off + c * (FRICL_NDOF * FRICL_NDOF);
    FRICL_UNROLL
    for (int i = 0; i < FRICL_K; ++i)
      FRICL_UNROLL
    for (int j = 0; j < FRICL_K; ++j) {
      const FRICL_REAL coef = gamma[i] * gamma[j];
      FRICL_UNROLL
      for (int r = 0; r < FRICL_DIM; ++r)
        FRICL_UNROLL
      for (int s = 0; s < FRICL_DIM; ++s)
        H[(i * FRICL_DIM + r) * FRICL_NDOF + j * FRICL_DIM + s] =
            coef * FRICL_FN(packed_at)(S, FRICL_DIM, r, s);
    }
  }
#endif
#if FRICL_WANT(FRICL_O_REC)
  {
    __global FRICL_REAL *R = rec + (base + c) * FRICL_RSTRIDE;
    FRICL_UNROLL
    for (int i = 0; i < 4; ++i)
      R[FRICL_REC_GAMMA + i] = gamma[i];
    FRICL_UNROLL
    for (int r = 0; r < 3; ++r)
      R[FRICL_REC_Q + r] = q[r];
#if FRICL_RSTRIDE == FRICL_REC_STRIDE
    FRICL_UNROLL
    for (int i = 0; i < 6; ++i)
      R[FRICL_REC_S + i] = S[i];
#endif
#if FRICL_WANT(FRICL_O_T)
    FRICL_REAL pc[3];
    FRICL_UNROLL
    for (int r = 0; r < FRICL_DIM; ++r) {
      FRICL_REAL s = 0;
      FRICL_UNROLL
      for (int j = 0; j < FRICL_K; ++j) {
        const FRICL_REAL pj = dir[dir_off + (size_t)vx[j] * FRICL_DIM + r];
        s += gamma[j] * (ok[j] ? pj : (FRICL_REAL)NAN);
      }
      pc[r] = s;
    }
    FRICL_UNROLL
    for (int r = 0; r < FRICL_DIM; ++r) {
      FRICL_REAL s = 0;
      FRICL_UNROLL
      for (int u = 0; u < FRICL_DIM; ++u)
        s += FRICL_FN(packed_at)(S, FRICL_DIM, r, u) * pc[u];
      R[FRICL_REC_T + r] = s;
    }
#endif
  }
#endif
  (void)dir;
  (void)dir_off;
  (void)w_a;
  (void)w_off;
  (void)an_a;
  (void)an_off;
}
#endif /* FRICL_OUT_MASK */

/* The assembly kernels (fricl_assembly.h) on these records: the gradient
 * and product terms gamma_i * rec[c].field, the Hessian blocks
 * gamma_i gamma_j S, and the block sums of the contacts' D. */
#define FRICL_ASM_RECORDS __global const FRICL_REAL *rec
#define FRICL_ASM_STRIDE FRICL_RSTRIDE
#define FRICL_ASM_VEC(acc, R, slot, field)                                     \
  do {                                                                         \
    const FRICL_REAL gi = R[FRICL_REC_GAMMA + (slot)];                         \
    FRICL_UNROLL                                                               \
    for (int r = 0; r < FRICL_DIM; ++r)                                        \
      acc[r] += gi * R[(field) + r];                                           \
  } while (0)
#define FRICL_ASM_BSR(acc, R, si, sj)                                          \
  do {                                                                         \
    const FRICL_REAL coef = R[si] * R[sj];                                     \
    FRICL_REAL S[6];                                                           \
    FRICL_UNROLL                                                               \
    for (int k = 0; k < 6; ++k)                                                \
      S[k] = R[FRICL_REC_S + k];                                               \
    FRICL_UNROLL                                                               \
    for (int r = 0; r < FRICL_DIM; ++r)                                        \
      FRICL_UNROLL                                                             \
    for (int s = 0; s < FRICL_DIM; ++s)                                        \
      acc[r * FRICL_DIM + s] +=                                                \
          coef * FRICL_FN(packed_at)(S, FRICL_DIM, r, s);                      \
  } while (0)
#define FRICL_ASM_POTENTIALS __global const FRICL_REAL *d
#define FRICL_ASM_POT(i) d[i]
FRICL_ASSEMBLY_KERNELS(tangential)
