/*
 * fricl_tangential_math.h - one contact of the IPC tangential potential:
 * Gamma from beta, the tangential velocity, D, the gradient vector q and the
 * projected dim x dim Hessian factor S (spec section 4).
 *
 * Shared by the kernels (fricl_tangential.cl) and the C reference backend
 * (src/host/tangential_ref.c); included after fricl_scalar_math.h, whose
 * smooth_mu_* functions it uses. No include guard, for the same reason as
 * that header (one inclusion per precision in C). The includer also defines
 * FRICL_SQRT (sqrt / sqrtf: a float sqrt must round to float before use).
 *
 * The structure used everywhere (spec 4.6): the contact Hessian is
 * (gamma gamma^T) (x) S with S = B M B^T, B = P diag(a) (dim x m) and M the
 * m x m inner matrix; the gradient block of stencil vertex i is gamma_i q.
 * M is built in eigen-form, M = pi(l_perp) I + (pi(l_par) - pi(l_perp)) u u^T
 * with u = u_a / y, l_perp = scale g(y), l_par = scale h'(y), so the PSD
 * projection pi is exact and needs no eigen-solver. This one formula covers
 * ipctk's three branches: for y >= e, h' = 0 (its dynamic matrix), and at
 * y = 0 the direction u is 0 (M = pi(scale g(0)) I).
 */

#ifndef FRICL_EMBEDDED
#include "fricl_tangential_adhesion_math.h"
#include "fricl_tangential_codes.h"
#endif

/* Gamma coefficients of a stencil from its closest-point coordinates. */
FRICL_INLINE void FRICL_FN(stencil_gamma)(int type, const FRICL_REAL *beta,
                                          FRICL_REAL *gamma) {
  const FRICL_REAL one = FRICL_R(1);
  if (type == FRICL_T_VV) {
    gamma[0] = one;
    gamma[1] = -one;
  } else if (type == FRICL_T_EV) {
    gamma[0] = one;
    gamma[1] = beta[0] - one;
    gamma[2] = -beta[0];
  } else if (type == FRICL_T_EE) {
    gamma[0] = one - beta[0];
    gamma[1] = beta[0];
    gamma[2] = beta[1] - one;
    gamma[3] = -beta[1];
  } else if (type == FRICL_T_FV) {
    gamma[0] = one;
    gamma[1] = beta[0] + beta[1] - one;
    gamma[2] = -beta[0];
    gamma[3] = -beta[1];
  } else {
    gamma[0] = one;
  }
}

/* The PSD map on one eigenvalue. NaN stays NaN (no fmax). */
FRICL_INLINE FRICL_REAL FRICL_FN(psd_map)(FRICL_REAL lam, int psd) {
  const FRICL_REAL clamp = lam < FRICL_R(0) ? FRICL_R(0) : lam;
  const FRICL_REAL mag = FRICL_FABS(lam);
  return psd == FRICL_T_PSD_CLAMP ? clamp
                                  : (psd == FRICL_T_PSD_ABS ? mag : lam);
}

/*
 * One contact. urel = sum_i gamma_i v_i (dim), P (dim x m, row-major),
 * a (m); family: FRICL_T_MOLLIFIER_FRICTION or _ADHESION (the scalars h0, g,
 * h' of fricl_tangential_adhesion_math.h's mollifier_scalars). Writes D, q
 * (dim) and, when want_hess, S packed by rows of the upper triangle (6 reals in
 * 3-D, 3 in 2-D). ipctk_abs: reproduce ipctk's ABS with scale <= 0 (0 in its
 * dynamic and y = 0 branches, spec 4.5).
 */
FRICL_INLINE void FRICL_FN(tangential_contact_family)(
    int dim, const FRICL_REAL *urel, const FRICL_REAL *P, const FRICL_REAL *a,
    FRICL_REAL N, FRICL_REAL w, FRICL_REAL ms, FRICL_REAL mk, FRICL_REAL e,
    int profile, int family, int psd, int ipctk_abs, int want_hess,
    FRICL_REAL *D, FRICL_REAL *q, FRICL_REAL *S) {
  const FRICL_REAL zero = FRICL_R(0);
  const FRICL_REAL scale = w * N;
  /* B = P diag(a); u_a = a (.) (P^T urel) = B^T urel. */
  FRICL_REAL B[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  FRICL_REAL ua[2] = {0, 0};
  const int m = dim - 1;
  FRICL_UNROLL
  for (int c = 0; c < m; ++c) {
    FRICL_REAL s = zero;
    FRICL_UNROLL
    for (int r = 0; r < dim; ++r) {
      B[r][c] = P[r * m + c] * a[c];
      s += P[r * m + c] * urel[r];
    }
    ua[c] = a[c] * s;
  }
  /* y = |u_a|; in 2-D it is |u_a[0]|. In f32 a scaled norm, so that tiny
   * components do not square into subnormals (spec 3.7); in f64 that
   * happens only below |u| ~ 1e-154, where the direction's error cannot
   * matter (the two eigenvalues of M agree to O(y/e) there), so f64 takes
   * the plain norm and saves a division on its critical path. The unit
   * direction u is 0 at y = 0. */
  FRICL_REAL y, u0, u1 = zero;
  if (m == 1) {
    y = FRICL_FABS(ua[0]);
    u0 = ua[0] < zero ? -FRICL_R(1) : FRICL_R(1);
  } else {
    if (sizeof(FRICL_REAL) == sizeof(float)) {
      const FRICL_REAL a0 = FRICL_FABS(ua[0]), a1 = FRICL_FABS(ua[1]);
      const FRICL_REAL big = a0 > a1 ? a0 : a1;
      const FRICL_REAL inv = FRICL_R(1) / (big > zero ? big : FRICL_R(1));
      const FRICL_REAL s0 = ua[0] * inv, s1 = ua[1] * inv;
      y = big * FRICL_SQRT(s0 * s0 + s1 * s1);
    } else {
      y = FRICL_SQRT(ua[0] * ua[0] + ua[1] * ua[1]);
    }
    const FRICL_REAL iy = FRICL_R(1) / (y > zero ? y : FRICL_R(1));
    u0 = ua[0] * iy;
    u1 = ua[1] * iy;
  }
  /* NaN y: keep NaN in u so that it reaches S. */
  const int at_zero = y == zero;
  u0 = at_zero ? zero : u0;
  u1 = at_zero ? zero : u1;

  /* The mollifier family's scalars (fricl_tangential_adhesion_math.h). */
  FRICL_REAL h0, g, hp = zero;
  FRICL_FN(mollifier_scalars)
  (y, e, ms, mk, profile, family, want_hess, &h0, &g, &hp);
  *D = scale * h0;
  const FRICL_REAL sg = scale * g;
  FRICL_UNROLL
  for (int r = 0; r < dim; ++r) {
    FRICL_REAL s = zero;
    FRICL_UNROLL
    for (int c = 0; c < m; ++c)
      s += B[r][c] * ua[c];
    q[r] = sg * s;
  }
  if (!want_hess)
    return;

  FRICL_REAL lperp = FRICL_FN(psd_map)(sg, psd);
  FRICL_REAL lpar = FRICL_FN(psd_map)(scale * hp, psd);
  if (ipctk_abs && psd != FRICL_T_PSD_NONE && scale <= zero &&
      (y > e || at_zero)) {
    lperp = zero;
    lpar = zero;
  }
  const FRICL_REAL dl = lpar - lperp;
  if (m == 1) {
    /* M = pi(scale h') for y > 0, pi(scale g(0)) at y = 0. */
    const FRICL_REAL M = at_zero ? lperp : lpar;
    const FRICL_REAL b0 = B[0][0], b1 = B[1][0];
    S[0] = M * b0 * b0;
    S[1] = M * b0 * b1;
    S[2] = M * b1 * b1;
    return;
  }
  const FRICL_REAL M00 = lperp + dl * u0 * u0;
  const FRICL_REAL M01 = dl * u0 * u1;
  const FRICL_REAL M11 = lperp + dl * u1 * u1;
  /* S = B M B^T: C = B M (3 x 2), then S_rs = C_r . B_s. */
  FRICL_REAL C[3][2];
  FRICL_UNROLL
  for (int r = 0; r < 3; ++r) {
    C[r][0] = B[r][0] * M00 + B[r][1] * M01;
    C[r][1] = B[r][0] * M01 + B[r][1] * M11;
  }
  int k = 0;
  FRICL_UNROLL
  for (int r = 0; r < 3; ++r)
    FRICL_UNROLL
  for (int s = r; s < 3; ++s)
    S[k++] = C[r][0] * B[s][0] + C[r][1] * B[s][1];
}

/* One contact with the friction mollifier (ipctk's FrictionPotential):
 * tangential_contact_family with family FRICL_T_MOLLIFIER_FRICTION. */
FRICL_INLINE void FRICL_FN(tangential_contact)(
    int dim, const FRICL_REAL *urel, const FRICL_REAL *P, const FRICL_REAL *a,
    FRICL_REAL N, FRICL_REAL w, FRICL_REAL ms, FRICL_REAL mk, FRICL_REAL e,
    int profile, int psd, int ipctk_abs, int want_hess, FRICL_REAL *D,
    FRICL_REAL *q, FRICL_REAL *S) {
  FRICL_FN(tangential_contact_family)
  (dim, urel, P, a, N, w, ms, mk, e, profile, FRICL_T_MOLLIFIER_FRICTION, psd,
   ipctk_abs, want_hess, D, q, S);
}

/* Entry (r, s) of the packed symmetric S. */
FRICL_INLINE FRICL_REAL FRICL_FN(packed_at)(const FRICL_REAL *S, int dim, int r,
                                            int s) {
  const int lo = r < s ? r : s, hi = r < s ? s : r;
  /* Row lo of the upper triangle starts at lo*dim - lo(lo-1)/2. */
  return S[lo * dim - (lo * (lo - 1)) / 2 + (hi - lo)];
}
