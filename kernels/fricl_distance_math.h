/*
 * fricl_distance_math.h - squared distances between the features of a
 * contact stencil, with their gradients and Hessians, shared by the lagged
 * build (fricl_geometry_math.h), the barrier (fricl_barrier_math.h), the
 * kernels and the C backends (included once per precision, like every
 * math header: FRICL_REAL, FRICL_FN, FRICL_SQRT set by the includer; no
 * include guard for the functions, see fricl_cl_compat.h).
 *
 * The closest features follow ipctk's distance-type classification
 * (point-point, point-line, line-line, point-plane; the point-triangle
 * regions and the edge-edge cases including nearly parallel edges), so the
 * derivatives are those of the feature that is actually closest.
 *
 * Every case is written as d^2 = |r|^2 with r = sum_i c_i(beta) x_i, c
 * affine in the free closest-point parameters beta (0, 1 or 2 of them).
 * At the minimising beta (envelope theorem, implicit function theorem):
 *   grad_i  = 2 c_i r
 *   Hessian = 2 [ (c c^T) (x) I - F G^-1 F^T ],  F_(i,s),a = dc_ai r_s + c_i
 * J_a,s with J_a = sum_i dc_ai x_i and G = J^T J (det in the cancellation-free
 * form |J_0 x J_1|^2). d^2 and r themselves are taken in the accurate
 * cross-product forms.
 */

#ifndef FRICL_EMBEDDED
#include "fricl/fricl_tables.h"
#endif
#ifndef FRICL_D_CODES_
#define FRICL_D_CODES_
/* Stencil codes, from the same table as the public enum. */
enum {
#define FRICL_D_STENCIL_(name, value, text, k, nb, only3d)                     \
  FRICL_D_##name = value,
  FRICL_STENCIL_MAP(FRICL_D_STENCIL_)
#undef FRICL_D_STENCIL_
};
#endif

/* ------------------------------------------------------------- vectors */

FRICL_INLINE FRICL_REAL FRICL_FN(g_dot)(const FRICL_REAL *a,
                                        const FRICL_REAL *b, int dim) {
  FRICL_REAL s = a[0] * b[0] + a[1] * b[1];
  if (dim == 3)
    s += a[2] * b[2];
  return s;
}

FRICL_INLINE void FRICL_FN(g_cross)(const FRICL_REAL *a, const FRICL_REAL *b,
                                    FRICL_REAL *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* 2-D cross product (scalar). */
FRICL_INLINE FRICL_REAL FRICL_FN(g_cross2)(const FRICL_REAL *a,
                                           const FRICL_REAL *b) {
  return a[0] * b[1] - a[1] * b[0];
}

FRICL_INLINE void FRICL_FN(g_sub)(const FRICL_REAL *a, const FRICL_REAL *b,
                                  FRICL_REAL *c, int dim) {
  for (int r = 0; r < dim; ++r)
    c[r] = a[r] - b[r];
}

/* ------------------------------------------------------ point-segment */

/* Squared distance from p to the closed segment [a, b] (|b - a| > 0), the
 * distance vector r = p - closest point, and the coefficients of a and b
 * in r (r = p + ca a + cb b). Line case in the accurate cross-product
 * forms: d^2 = |e x q|^2 / |e|^2, r = (e x q) x e / |e|^2. */
FRICL_INLINE FRICL_REAL FRICL_FN(g_point_segment)(
    const FRICL_REAL *p, const FRICL_REAL *a, const FRICL_REAL *b, int dim,
    FRICL_REAL *r, FRICL_REAL *ca, FRICL_REAL *cb, FRICL_REAL *alpha_out) {
  FRICL_REAL e[3] = {0, 0, 0}, q[3] = {0, 0, 0};
  FRICL_FN(g_sub)(b, a, e, dim);
  FRICL_FN(g_sub)(p, a, q, dim);
  const FRICL_REAL ee = FRICL_FN(g_dot)(e, e, dim);
  const FRICL_REAL alpha = FRICL_FN(g_dot)(q, e, dim) / ee;
  *alpha_out = alpha;
  if (alpha < FRICL_R(0)) {
    for (int i = 0; i < dim; ++i)
      r[i] = q[i];
    *ca = -FRICL_R(1);
    *cb = FRICL_R(0);
    return FRICL_FN(g_dot)(q, q, dim);
  }
  if (alpha > FRICL_R(1)) {
    FRICL_FN(g_sub)(p, b, r, dim);
    *ca = FRICL_R(0);
    *cb = -FRICL_R(1);
    return FRICL_FN(g_dot)(r, r, dim);
  }
  *ca = alpha - FRICL_R(1);
  *cb = -alpha;
  if (dim == 3) {
    FRICL_REAL n[3], t[3];
    FRICL_FN(g_cross)(e, q, n);
    FRICL_FN(g_cross)(n, e, t);
    for (int i = 0; i < 3; ++i)
      r[i] = t[i] / ee;
    return FRICL_FN(g_dot)(n, n, 3) / ee;
  }
  const FRICL_REAL s = FRICL_FN(g_cross2)(e, q);
  r[0] = -s * e[1] / ee;
  r[1] = s * e[0] / ee;
  return s * s / ee;
}

/* --------------------------------------------------- closest features */

/* A closest feature: r = sum_i c[i] x_i, dc[a][i] = d c_i / d beta_a. */
typedef struct FRICL_FN(dist_feature) {
  int nf; /* free parameters: 0, 1 or 2 */
  FRICL_REAL c[4];
  FRICL_REAL dc[2][4];
  FRICL_REAL r[3];
  FRICL_REAL d2;
} FRICL_FN(dist_feature);

FRICL_INLINE void FRICL_FN(dist_clear)(FRICL_FN(dist_feature) * f) {
  f->nf = 0;
  for (int i = 0; i < 4; ++i) {
    f->c[i] = FRICL_R(0);
    f->dc[0][i] = FRICL_R(0);
    f->dc[1][i] = FRICL_R(0);
  }
  f->r[0] = f->r[1] = f->r[2] = FRICL_R(0);
  f->d2 = FRICL_R(0);
}

/* Point slot ip against point slot iq. */
FRICL_INLINE void FRICL_FN(dist_pp)(FRICL_FN(dist_feature) * f,
                                    const FRICL_REAL *x, int dim, int ip,
                                    int iq) {
  FRICL_FN(g_sub)(x + ip * dim, x + iq * dim, f->r, dim);
  f->d2 = FRICL_FN(g_dot)(f->r, f->r, dim);
  f->c[ip] = FRICL_R(1);
  f->c[iq] = -FRICL_R(1);
}

/* Point slot ip against the line through slots ia, ib (|b - a| > 0):
 * r = p - a - alpha (b - a), d^2 = |e x q|^2 / |e|^2. */
FRICL_INLINE void FRICL_FN(dist_pl)(FRICL_FN(dist_feature) * f,
                                    const FRICL_REAL *x, int dim, int ip,
                                    int ia, int ib) {
  const FRICL_REAL *p = x + ip * dim, *a = x + ia * dim, *b = x + ib * dim;
  FRICL_REAL e[3] = {0, 0, 0}, q[3] = {0, 0, 0};
  FRICL_FN(g_sub)(b, a, e, dim);
  FRICL_FN(g_sub)(p, a, q, dim);
  const FRICL_REAL ee = FRICL_FN(g_dot)(e, e, dim);
  const FRICL_REAL alpha = FRICL_FN(g_dot)(q, e, dim) / ee;
  if (dim == 3) {
    FRICL_REAL n[3], t[3];
    FRICL_FN(g_cross)(e, q, n);
    FRICL_FN(g_cross)(n, e, t);
    for (int i = 0; i < 3; ++i)
      f->r[i] = t[i] / ee;
    f->d2 = FRICL_FN(g_dot)(n, n, 3) / ee;
  } else {
    const FRICL_REAL s = FRICL_FN(g_cross2)(e, q);
    f->r[0] = -s * e[1] / ee;
    f->r[1] = s * e[0] / ee;
    f->d2 = s * s / ee;
  }
  f->nf = 1;
  f->c[ip] = FRICL_R(1);
  f->c[ia] = alpha - FRICL_R(1);
  f->c[ib] = -alpha;
  f->dc[0][ia] = FRICL_R(1);
  f->dc[0][ib] = -FRICL_R(1);
}

/* Point slot ip against the segment [ia, ib] (ipctk's point-edge types;
 * dtype 0 P_E0, 1 P_E1, 2 P_E forces one, anything else classifies). */
FRICL_INLINE void FRICL_FN(dist_pe)(FRICL_FN(dist_feature) * f,
                                    const FRICL_REAL *x, int dim, int ip,
                                    int ia, int ib, int dtype) {
  if (dtype == 0 || dtype == 1) {
    FRICL_FN(dist_pp)(f, x, dim, ip, dtype == 0 ? ia : ib);
    return;
  }
  if (dtype == 2) {
    FRICL_FN(dist_pl)(f, x, dim, ip, ia, ib);
    return;
  }
  FRICL_REAL e[3] = {0, 0, 0}, q[3] = {0, 0, 0};
  FRICL_FN(g_sub)(x + ib * dim, x + ia * dim, e, dim);
  FRICL_FN(g_sub)(x + ip * dim, x + ia * dim, q, dim);
  const FRICL_REAL ee = FRICL_FN(g_dot)(e, e, dim);
  if (ee == FRICL_R(0)) {
    FRICL_FN(dist_pp)(f, x, dim, ip, ia);
    return;
  }
  const FRICL_REAL ratio = FRICL_FN(g_dot)(e, q, dim) / ee;
  if (ratio < FRICL_R(0))
    FRICL_FN(dist_pp)(f, x, dim, ip, ia);
  else if (ratio > FRICL_R(1))
    FRICL_FN(dist_pp)(f, x, dim, ip, ib);
  else
    FRICL_FN(dist_pl)(f, x, dim, ip, ia, ib);
}

/* Point p (slot 0) against the plane of the triangle (slots 1, 2, 3). */
FRICL_INLINE void FRICL_FN(dist_ptplane)(FRICL_FN(dist_feature) * f,
                                         const FRICL_REAL *x) {
  const FRICL_REAL *p = x, *t0 = x + 3, *t1 = x + 6, *t2 = x + 9;
  FRICL_REAL E0[3], E1[3], q[3], n[3];
  FRICL_FN(g_sub)(t1, t0, E0, 3);
  FRICL_FN(g_sub)(t2, t0, E1, 3);
  FRICL_FN(g_sub)(p, t0, q, 3);
  FRICL_FN(g_cross)(E0, E1, n);
  const FRICL_REAL nn = FRICL_FN(g_dot)(n, n, 3);
  const FRICL_REAL a00 = FRICL_FN(g_dot)(E0, E0, 3);
  const FRICL_REAL a01 = FRICL_FN(g_dot)(E0, E1, 3);
  const FRICL_REAL a11 = FRICL_FN(g_dot)(E1, E1, 3);
  const FRICL_REAL b0 = FRICL_FN(g_dot)(E0, q, 3);
  const FRICL_REAL b1 = FRICL_FN(g_dot)(E1, q, 3);
  const FRICL_REAL be1 = (a11 * b0 - a01 * b1) / nn;
  const FRICL_REAL be2 = (a00 * b1 - a01 * b0) / nn;
  const FRICL_REAL s = FRICL_FN(g_dot)(q, n, 3);
  f->d2 = s * s / nn;
  const FRICL_REAL sn = s / nn;
  for (int i = 0; i < 3; ++i)
    f->r[i] = sn * n[i];
  f->nf = 2;
  f->c[0] = FRICL_R(1);
  f->c[1] = be1 + be2 - FRICL_R(1);
  f->c[2] = -be1;
  f->c[3] = -be2;
  f->dc[0][1] = FRICL_R(1);
  f->dc[0][2] = -FRICL_R(1);
  f->dc[1][1] = FRICL_R(1);
  f->dc[1][3] = -FRICL_R(1);
}

/* Point (slot 0) against the triangle (slots 1, 2, 3): ipctk's regions;
 * dtype 0..2 P_T0..P_T2, 3..5 P_E0..P_E2, 6 P_T forces one. */
FRICL_INLINE void FRICL_FN(dist_pt)(FRICL_FN(dist_feature) * f,
                                    const FRICL_REAL *x, int dtype) {
  if (dtype >= 0 && dtype <= 2) {
    FRICL_FN(dist_pp)(f, x, 3, 0, 1 + dtype);
    return;
  }
  if (dtype >= 3 && dtype <= 5) {
    FRICL_FN(dist_pl)(f, x, 3, 0, dtype - 2, dtype == 5 ? 1 : dtype - 1);
    return;
  }
  if (dtype == 6) {
    FRICL_FN(dist_ptplane)(f, x);
    return;
  }
  const FRICL_REAL *p = x;
  FRICL_REAL E0[3], E1[3], n[3];
  FRICL_FN(g_sub)(x + 6, x + 3, E0, 3);
  FRICL_FN(g_sub)(x + 9, x + 3, E1, 3);
  FRICL_FN(g_cross)(E0, E1, n);
  FRICL_REAL u[3], v[3], q[3];
  FRICL_REAL p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0};
  const int ta[3] = {1, 2, 3}, tb[3] = {2, 3, 1};
  for (int k = 0; k < 3; ++k) {
    FRICL_FN(g_sub)(x + tb[k] * 3, x + ta[k] * 3, u, 3);
    FRICL_FN(g_cross)(u, n, v);
    FRICL_FN(g_sub)(p, x + ta[k] * 3, q, 3);
    p0[k] = FRICL_FN(g_dot)(u, q, 3) / FRICL_FN(g_dot)(u, u, 3);
    p1[k] = FRICL_FN(g_dot)(v, q, 3) / FRICL_FN(g_dot)(v, v, 3);
    if (p0[k] > FRICL_R(0) && p0[k] < FRICL_R(1) && p1[k] >= FRICL_R(0)) {
      FRICL_FN(dist_pl)(f, x, 3, 0, ta[k], tb[k]);
      return;
    }
  }
  if (p0[0] <= FRICL_R(0) && p0[2] >= FRICL_R(1))
    FRICL_FN(dist_pp)(f, x, 3, 0, 1);
  else if (p0[1] <= FRICL_R(0) && p0[0] >= FRICL_R(1))
    FRICL_FN(dist_pp)(f, x, 3, 0, 2);
  else if (p0[2] <= FRICL_R(0) && p0[1] >= FRICL_R(1))
    FRICL_FN(dist_pp)(f, x, 3, 0, 3);
  else
    FRICL_FN(dist_ptplane)(f, x);
}

/* The lines of edges a (slots 0, 1) and b (slots 2, 3). */
FRICL_INLINE void FRICL_FN(dist_ll)(FRICL_FN(dist_feature) * f,
                                    const FRICL_REAL *x) {
  const FRICL_REAL *ea0 = x, *ea1 = x + 3, *eb0 = x + 6, *eb1 = x + 9;
  FRICL_REAL ea[3], eb[3], n[3], w0[3];
  FRICL_FN(g_sub)(ea1, ea0, ea, 3);
  FRICL_FN(g_sub)(eb1, eb0, eb, 3);
  FRICL_FN(g_cross)(ea, eb, n);
  const FRICL_REAL nn = FRICL_FN(g_dot)(n, n, 3);
  const FRICL_REAL A = FRICL_FN(g_dot)(ea, ea, 3);
  const FRICL_REAL B = FRICL_FN(g_dot)(ea, eb, 3);
  const FRICL_REAL Cc = FRICL_FN(g_dot)(eb, eb, 3);
  FRICL_FN(g_sub)(ea0, eb0, w0, 3);
  const FRICL_REAL wa = FRICL_FN(g_dot)(w0, ea, 3);
  const FRICL_REAL wb = FRICL_FN(g_dot)(w0, eb, 3);
  const FRICL_REAL ba = (B * wb - Cc * wa) / nn;
  const FRICL_REAL bb = (A * wb - B * wa) / nn;
  const FRICL_REAL s = FRICL_FN(g_dot)(w0, n, 3);
  f->d2 = s * s / nn;
  const FRICL_REAL sn = s / nn;
  for (int i = 0; i < 3; ++i)
    f->r[i] = sn * n[i];
  f->nf = 2;
  f->c[0] = FRICL_R(1) - ba;
  f->c[1] = ba;
  f->c[2] = bb - FRICL_R(1);
  f->c[3] = -bb;
  f->dc[0][0] = -FRICL_R(1);
  f->dc[0][1] = FRICL_R(1);
  f->dc[1][2] = FRICL_R(1);
  f->dc[1][3] = -FRICL_R(1);
}

/* ipctk's edge-edge distance types (0..8): EA0_EB0, EA0_EB1, EA1_EB0,
 * EA1_EB1, EA_EB0, EA_EB1, EA0_EB, EA1_EB, EA_EB. */
FRICL_INLINE int FRICL_FN(dist_ee_parallel_type)(const FRICL_REAL *x) {
  FRICL_REAL ea[3], q0[3], q1[3];
  FRICL_FN(g_sub)(x + 3, x, ea, 3);
  FRICL_FN(g_sub)(x + 6, x, q0, 3);
  FRICL_FN(g_sub)(x + 9, x, q1, 3);
  const FRICL_REAL eaa = FRICL_FN(g_dot)(ea, ea, 3);
  const FRICL_REAL alpha = FRICL_FN(g_dot)(q0, ea, 3) / eaa;
  const FRICL_REAL beta = FRICL_FN(g_dot)(q1, ea, 3) / eaa;
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1);
  int eac, ebc;
  if (alpha < zero) {
    eac = (zero <= beta && beta <= one) ? 2 : 0;
    ebc = (beta <= alpha) ? 0 : (beta <= one ? 1 : 2);
  } else if (alpha > one) {
    eac = (zero <= beta && beta <= one) ? 2 : 1;
    ebc = (beta >= alpha) ? 0 : (zero <= beta ? 1 : 2);
  } else {
    eac = 2;
    ebc = 0;
  }
  return ebc < 2 ? (eac << 1 | ebc) : (6 + eac);
}

FRICL_INLINE int FRICL_FN(dist_ee_type)(const FRICL_REAL *x) {
  const FRICL_REAL zero = FRICL_R(0);
  FRICL_REAL u[3], v[3], w[3], n[3];
  FRICL_FN(g_sub)(x + 3, x, u, 3);
  FRICL_FN(g_sub)(x + 9, x + 6, v, 3);
  FRICL_FN(g_sub)(x, x + 6, w, 3);
  const FRICL_REAL a = FRICL_FN(g_dot)(u, u, 3);
  const FRICL_REAL b = FRICL_FN(g_dot)(u, v, 3);
  const FRICL_REAL c = FRICL_FN(g_dot)(v, v, 3);
  const FRICL_REAL d = FRICL_FN(g_dot)(u, w, 3);
  const FRICL_REAL e = FRICL_FN(g_dot)(v, w, 3);
  const FRICL_REAL D = a * c - b * b;
  if (a == zero && c == zero)
    return 0;
  if (a == zero)
    return 6;
  if (c == zero)
    return 4;
  /* sin^2 below 2.5e-16, relative to a c: the parallel rules. */
  const FRICL_REAL tol = FRICL_R(25) / FRICL_R(100000000000000000) * a * c;
  FRICL_FN(g_cross)(u, v, n);
  const FRICL_REAL nn = FRICL_FN(g_dot)(n, n, 3);
  if (nn < tol)
    return FRICL_FN(dist_ee_parallel_type)(x);
  int dflt = 8;
  const FRICL_REAL sN = b * e - c * d;
  FRICL_REAL tN, tD;
  if (sN <= zero) {
    tN = e;
    tD = c;
    dflt = 6;
  } else if (sN >= D) {
    tN = e + b;
    tD = c;
    dflt = 7;
  } else {
    tN = a * e - b * d;
    tD = D;
  }
  if (tN <= zero) {
    if (-d <= zero)
      return 0;
    if (-d >= a)
      return 2;
    return 4;
  }
  if (tN >= tD) {
    if (-d + b <= zero)
      return 1;
    if (-d + b >= a)
      return 3;
    return 5;
  }
  return dflt;
}

/* Edge a (slots 0, 1) against edge b (slots 2, 3); dtype 0..8 forces
 * ipctk's type, anything else classifies. */
FRICL_INLINE void FRICL_FN(dist_ee)(FRICL_FN(dist_feature) * f,
                                    const FRICL_REAL *x, int dtype) {
  const int t = dtype >= 0 && dtype <= 8 ? dtype : FRICL_FN(dist_ee_type)(x);
  if (t < 4)
    FRICL_FN(dist_pp)(f, x, 3, t >> 1, 2 + (t & 1));
  else if (t < 6)
    FRICL_FN(dist_pl)(f, x, 3, t - 2, 0, 1);
  else if (t < 8)
    FRICL_FN(dist_pl)(f, x, 3, t - 6, 2, 3);
  else
    FRICL_FN(dist_ll)(f, x);
}

/* ---------------------------------------------------------- derivatives */

/* J_a = sum_i dc_ai x_i (a < nf): the closest point's derivatives along
 * the feature's free parameters; zero rows past nf. */
FRICL_INLINE void FRICL_FN(dist_jacobian)(const FRICL_FN(dist_feature) * f,
                                          int k, int dim, const FRICL_REAL *x,
                                          FRICL_REAL J[2][3]) {
  FRICL_CL_UNROLL
  for (int a = 0; a < 2; ++a)
    FRICL_CL_UNROLL
  for (int s = 0; s < 3; ++s)
    J[a][s] = FRICL_R(0);
  FRICL_CL_UNROLL
  for (int a = 0; a < FRICL_CL_BOUND(f->nf, 2); ++a) {
    if (a >= f->nf)
      continue;
    FRICL_CL_UNROLL
    for (int s = 0; s < dim; ++s) {
      FRICL_REAL v = FRICL_R(0);
      FRICL_CL_UNROLL
      for (int i = 0; i < k; ++i)
        v += f->dc[a][i] * x[i * dim + s];
      J[a][s] = v;
    }
  }
}

/* Gi = G^-1 for the Gram matrix G = J J^T of nf = 1 or 2 rows (for two,
 * through |J_0 x J_1|^2 = det G). */
FRICL_INLINE void FRICL_FN(dist_gram_inverse)(int nf, int dim,
                                              FRICL_REAL J[2][3],
                                              FRICL_REAL Gi[2][2]) {
  if (nf == 1) {
    Gi[0][0] = FRICL_R(1) / FRICL_FN(g_dot)(J[0], J[0], dim);
  } else {
    FRICL_REAL n[3];
    FRICL_FN(g_cross)(J[0], J[1], n);
    const FRICL_REAL det = FRICL_FN(g_dot)(n, n, 3);
    Gi[0][0] = FRICL_FN(g_dot)(J[1], J[1], 3) / det;
    Gi[1][1] = FRICL_FN(g_dot)(J[0], J[0], 3) / det;
    Gi[0][1] = -FRICL_FN(g_dot)(J[0], J[1], 3) / det;
    Gi[1][0] = Gi[0][1];
  }
}

/* The full Hessian (k dim x k dim, row-major) of the feature's d^2:
 *   2 [ (c c^T) (x) I - F G^-1 F^T ],  F_(i,s),a = dc_ai r_s + c_i J_a,s. */
FRICL_INLINE void FRICL_FN(dist_hessian_full)(const FRICL_FN(dist_feature) * f,
                                              int k, int dim,
                                              const FRICL_REAL *x,
                                              FRICL_REAL *hess) {
  const FRICL_REAL two = FRICL_R(2);
  const int ndof = k * dim;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      const FRICL_REAL cc = two * (f->c[i] * f->c[j]);
      for (int s = 0; s < dim; ++s)
        for (int t = 0; t < dim; ++t)
          hess[(i * dim + s) * ndof + j * dim + t] = s == t ? cc : FRICL_R(0);
    }
  if (f->nf == 0)
    return;
  FRICL_REAL J[2][3];
  FRICL_FN(dist_jacobian)(f, k, dim, x, J);
  FRICL_REAL F[2][12];
  for (int a = 0; a < f->nf; ++a)
    for (int i = 0; i < k; ++i)
      for (int s = 0; s < dim; ++s)
        F[a][i * dim + s] = f->dc[a][i] * f->r[s] + f->c[i] * J[a][s];
  /* G^-1 (2 G^-1 is subtracted with the factor 2 below). */
  FRICL_REAL Gi[2][2];
  FRICL_FN(dist_gram_inverse)(f->nf, dim, J, Gi);
  /* H -= 2 F G^-1 F^T, upper triangle mirrored (exactly symmetric). */
  for (int u = 0; u < ndof; ++u) {
    FRICL_REAL m[2];
    for (int a = 0; a < f->nf; ++a) {
      FRICL_REAL v = FRICL_R(0);
      for (int b = 0; b < f->nf; ++b)
        v += Gi[a][b] * F[b][u];
      m[a] = v;
    }
    for (int w = 0; w <= u; ++w) {
      FRICL_REAL v = FRICL_R(0);
      for (int a = 0; a < f->nf; ++a)
        v += F[a][w] * m[a];
      hess[w * ndof + u] -= two * v;
      hess[u * ndof + w] = hess[w * ndof + u];
    }
  }
}

/*
 * The squared distance of one contact with its gradient (k dim values) and,
 * when hess is nonzero, its Hessian: in full into hfull (k dim x k dim,
 * row-major) where hfull is nonzero, else in reduced form: H = Q^T Hr Q with Q
 * (nb x k dim, orthonormal rows) spanning the Hessian's (and the
 * gradient's) column space, Hr (nb x nb, row stride FRICL_DIST_NB) and the
 * gradient in that basis gr (nb): grad = Q^T gr. nb = dim + (the closest
 * feature's free parameters), at most dim + 2 (1 for PV); rows past the
 * feature's own are zero (Q, gr, Hr), so a caller may use the stencil's
 * largest nb as a constant. Q is given by bas (FRICL_DIST_BAS reals: c^
 * (4), u_0, u_1 (4 each), r^ (3), the frame E (3 x 3, below); for PV the
 * plane's unit normal in r^'s place) and expanded by dist_expand. x holds the
 * stencil's positions; pn, pc the plane of a PV contact ({y : pn.y + pc = 0},
 * pn of any nonzero length); dtype: ipctk's distance type of an EV, EE or FV
 * contact (its enum values), or -1 (or its AUTO value) to classify here.
 * Returns d^2.
 *
 * The basis: Q_s = c^ (x) e_s (s < dim; c^ = c / |c|, e_s the columns of
 * an orthonormal frame E) and Q_(dim + a) = u_a (x) r^, u_a the
 * orthonormalised parts of dc_a orthogonal to c: F_a = dc_a (x) r + c (x)
 * J_a lies in it, with coordinates ((c.dc_a) r + |c|^2 J_a).e_s / |c| and
 * (u_b.dc_a) |r| (u_b is orthogonal to c), and
 *   Hr = 2 [ |c|^2 diag(1 (s < dim), 0) - f G^-1 f^T ],  gr_s = 2 |c| r.e_s.
 */
#define FRICL_DIST_NB 5
#define FRICL_DIST_BAS 24
FRICL_INLINE FRICL_REAL FRICL_FN(dist_contact)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *pn, FRICL_REAL pc,
    int dtype, FRICL_REAL *grad, int hess, FRICL_REAL *hfull, FRICL_REAL *bas,
    FRICL_REAL *gr, FRICL_REAL *Hr) {
  const FRICL_REAL two = FRICL_R(2), zero = FRICL_R(0);
  if (type == FRICL_D_PV) {
    const FRICL_REAL nn = FRICL_FN(g_dot)(pn, pn, dim);
    const FRICL_REAL s = FRICL_FN(g_dot)(pn, x, dim) + pc;
    const FRICL_REAL sn = s / nn;
    FRICL_CL_UNROLL
    for (int i = 0; i < dim; ++i)
      grad[i] = two * (sn * pn[i]);
    if (hess && hfull) {
      FRICL_CL_UNROLL
      for (int i = 0; i < dim; ++i)
        FRICL_CL_UNROLL
      for (int j = 0; j < dim; ++j)
        hfull[i * dim + j] = two * (pn[i] * pn[j] / nn);
    } else if (hess) {
      const FRICL_REAL ln = FRICL_SQRT(nn);
      FRICL_CL_UNROLL
      for (int i = 0; i < dim; ++i)
        bas[12 + i] = pn[i] / ln;
      gr[0] = two * (s / ln);
      Hr[0] = two;
    }
    return s * s / nn;
  }
  FRICL_FN(dist_feature) f;
  FRICL_FN(dist_clear)(&f);
  int k = 2;
  if (type == FRICL_D_VV) {
    FRICL_FN(dist_pp)(&f, x, dim, 0, 1);
  } else if (type == FRICL_D_EV) {
    k = 3;
    FRICL_FN(dist_pe)(&f, x, dim, 0, 1, 2, dtype);
  } else if (type == FRICL_D_EE) {
    k = 4;
    FRICL_FN(dist_ee)(&f, x, dtype);
  } else {
    k = 4;
    FRICL_FN(dist_pt)(&f, x, dtype);
  }
  const int nfm = type == FRICL_D_VV ? 0 : type == FRICL_D_EV ? 1 : 2;
  const int nb = dim + nfm;
  FRICL_CL_UNROLL
  for (int i = 0; i < k; ++i)
    FRICL_CL_UNROLL
  for (int s = 0; s < dim; ++s)
    grad[i * dim + s] = two * (f.c[i] * f.r[s]);
  if (!hess)
    return f.d2;
  if (hfull) {
    FRICL_FN(dist_hessian_full)(&f, k, dim, x, hfull);
    return f.d2;
  }
  FRICL_REAL cc = zero;
  FRICL_CL_UNROLL
  for (int i = 0; i < k; ++i)
    cc += f.c[i] * f.c[i];
  const FRICL_REAL cn = FRICL_SQRT(cc);
  FRICL_REAL rr = zero;
  FRICL_CL_UNROLL
  for (int s = 0; s < dim; ++s)
    rr += f.r[s] * f.r[s];
  const FRICL_REAL rn = FRICL_SQRT(rr);
  const FRICL_REAL ir = rn > zero ? FRICL_R(1) / rn : zero;
  FRICL_REAL rh[3] = {0, 0, 0};
  FRICL_CL_UNROLL
  for (int s = 0; s < dim; ++s)
    rh[s] = f.r[s] * ir;
  FRICL_REAL J[2][3];
  FRICL_FN(dist_jacobian)(&f, k, dim, x, J);
  /* The frame E (columns e_0 = r^, e_1, e_2) of the c block: e_1 along
   * J_0's part orthogonal to r (J_a is orthogonal to r at the closest
   * point), so that for one free parameter e_2 is an eigenvector and for
   * none the whole block is diagonal (the eigen-solver skips the zero
   * entries). The identity for r = 0. */
  FRICL_REAL E[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  if (rn > zero) {
    if (dim == 2) {
      E[0][0] = rh[0];
      E[1][0] = rh[1];
      E[0][1] = -rh[1];
      E[1][1] = rh[0];
    } else {
      FRICL_REAL t1[3] = {J[0][0], J[0][1], J[0][2]};
      const FRICL_REAL jr = FRICL_FN(g_dot)(t1, rh, 3);
      FRICL_CL_UNROLL
      for (int s = 0; s < 3; ++s)
        t1[s] -= jr * rh[s];
      FRICL_REAL tt = FRICL_FN(g_dot)(t1, t1, 3);
      const FRICL_REAL jj = FRICL_FN(g_dot)(J[0], J[0], 3);
      if (!(tt > jj / FRICL_R(1000000))) {
        /* no free parameter (or J_0 along r): any unit vector orthogonal
         * to r, from the axis where r^ is smallest */
        const FRICL_REAL a0 = rh[0] < zero ? -rh[0] : rh[0];
        const FRICL_REAL a1 = rh[1] < zero ? -rh[1] : rh[1];
        const FRICL_REAL a2 = rh[2] < zero ? -rh[2] : rh[2];
        const int ax = a0 <= a1 && a0 <= a2 ? 0 : a1 <= a2 ? 1 : 2;
        FRICL_CL_UNROLL
        for (int s = 0; s < 3; ++s)
          t1[s] = (s == ax ? FRICL_R(1) : zero) - rh[ax] * rh[s];
        tt = FRICL_FN(g_dot)(t1, t1, 3);
      }
      const FRICL_REAL it = FRICL_R(1) / FRICL_SQRT(tt);
      FRICL_CL_UNROLL
      for (int s = 0; s < 3; ++s)
        t1[s] *= it;
      FRICL_REAL t2[3];
      FRICL_FN(g_cross)(rh, t1, t2);
      FRICL_CL_UNROLL
      for (int s = 0; s < 3; ++s) {
        E[s][0] = rh[s];
        E[s][1] = t1[s];
        E[s][2] = t2[s];
      }
    }
  }
  FRICL_CL_UNROLL
  for (int a = 0; a < nb; ++a) {
    gr[a] = zero;
    FRICL_CL_UNROLL
    for (int b = 0; b < nb; ++b)
      Hr[a * FRICL_DIST_NB + b] = zero;
  }
  FRICL_CL_UNROLL
  for (int i = 0; i < FRICL_DIST_BAS; ++i)
    bas[i] = zero;
  FRICL_CL_UNROLL
  for (int i = 0; i < k; ++i)
    bas[i] = f.c[i] / cn;
  FRICL_CL_UNROLL
  for (int s = 0; s < dim; ++s) {
    FRICL_REAL v = zero;
    FRICL_CL_UNROLL
    for (int t = 0; t < dim; ++t)
      v += f.r[t] * E[t][s];
    gr[s] = two * (cn * v);
    Hr[s * FRICL_DIST_NB + s] = two * cc;
    bas[12 + s] = rh[s];
    FRICL_CL_UNROLL
    for (int t = 0; t < dim; ++t)
      bas[15 + t * 3 + s] = E[t][s];
  }
  if (f.nf == 0)
    return f.d2;
  /* u_a: dc_a without its part along c, orthonormalised (Gram-Schmidt in
   * R^k; dc_0, dc_1 and c are independent for every feature). */
  FRICL_REAL U[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  FRICL_CL_UNROLL
  for (int a = 0; a < FRICL_CL_BOUND(f.nf, 2); ++a) {
    if (a >= f.nf)
      continue;
    FRICL_CL_UNROLL
    for (int i = 0; i < k; ++i)
      U[a][i] = f.dc[a][i];
    FRICL_CL_UNROLL
    for (int pass = 0; pass < 2; ++pass) {
      FRICL_REAL dcc = zero;
      FRICL_CL_UNROLL
      for (int i = 0; i < k; ++i)
        dcc += f.c[i] * U[a][i];
      const FRICL_REAL t = dcc / cc;
      FRICL_CL_UNROLL
      for (int i = 0; i < k; ++i)
        U[a][i] -= t * f.c[i];
      FRICL_CL_UNROLL
      for (int b = 0; b < a; ++b) {
        FRICL_REAL d = zero;
        FRICL_CL_UNROLL
        for (int i = 0; i < k; ++i)
          d += U[b][i] * U[a][i];
        FRICL_CL_UNROLL
        for (int i = 0; i < k; ++i)
          U[a][i] -= d * U[b][i];
      }
    }
    FRICL_REAL uu = zero;
    FRICL_CL_UNROLL
    for (int i = 0; i < k; ++i)
      uu += U[a][i] * U[a][i];
    const FRICL_REAL iu = FRICL_R(1) / FRICL_SQRT(uu);
    FRICL_CL_UNROLL
    for (int i = 0; i < k; ++i)
      U[a][i] *= iu;
    FRICL_CL_UNROLL
    for (int i = 0; i < k; ++i)
      bas[4 + 4 * a + i] = U[a][i];
  }
  /* The coordinates fr_a of F_a. */
  FRICL_REAL fr[2][FRICL_DIST_NB];
  FRICL_CL_UNROLL
  for (int a = 0; a < FRICL_CL_BOUND(f.nf, 2); ++a) {
    if (a >= f.nf)
      continue;
    FRICL_REAL cd = zero;
    FRICL_CL_UNROLL
    for (int i = 0; i < k; ++i)
      cd += f.c[i] * f.dc[a][i];
    FRICL_CL_UNROLL
    for (int s = 0; s < dim; ++s) {
      FRICL_REAL v = zero;
      FRICL_CL_UNROLL
      for (int t = 0; t < dim; ++t)
        v += (cd * f.r[t] + cc * J[a][t]) * E[t][s];
      fr[a][s] = v / cn;
    }
    FRICL_CL_UNROLL
    for (int b = 0; b < nfm; ++b) {
      FRICL_REAL ud = zero;
      FRICL_CL_UNROLL
      for (int i = 0; i < k; ++i)
        ud += U[b][i] * f.dc[a][i];
      fr[a][dim + b] = ud * rn;
    }
  }
  /* G^-1 (2 G^-1 is subtracted with the factor 2 below). */
  FRICL_REAL Gi[2][2];
  FRICL_FN(dist_gram_inverse)(f.nf, dim, J, Gi);
  /* Hr -= 2 fr G^-1 fr^T, upper triangle mirrored (exactly symmetric). */
  FRICL_CL_UNROLL
  for (int u = 0; u < nb; ++u) {
    FRICL_REAL m[2];
    FRICL_CL_UNROLL
    for (int a = 0; a < FRICL_CL_BOUND(f.nf, 2); ++a) {
      if (a >= f.nf)
        continue;
      FRICL_REAL v = zero;
      FRICL_CL_UNROLL
      for (int b = 0; b < FRICL_CL_BOUND(f.nf, 2); ++b)
        if (b < f.nf)
          v += Gi[a][b] * fr[b][u];
      m[a] = v;
    }
    FRICL_CL_UNROLL
    for (int w = 0; w <= u; ++w) {
      FRICL_REAL v = zero;
      FRICL_CL_UNROLL
      for (int a = 0; a < FRICL_CL_BOUND(f.nf, 2); ++a)
        if (a < f.nf)
          v += fr[a][w] * m[a];
      Hr[w * FRICL_DIST_NB + u] -= two * v;
      Hr[u * FRICL_DIST_NB + w] = Hr[w * FRICL_DIST_NB + u];
    }
  }
  return f.d2;
}

/*
 * H (k dim x k dim) = Q^T M Q for the basis bas of dist_contact (not PV)
 * and M (nb x nb, row stride ld; nb = dim + nf, nf <= 2): by blocks of
 * vertices i, j,
 *   H_ij[s][t] = c_i c_j M_st + c_i w_j[s] r_t + c_j w_i[t] r_s + z_ij r_s r_t
 * with w_i[s] = sum_a M_s,(dim + a) u_ai and z_ij = u_i^T M_uu u_j (c, u, r
 * the unit vectors of bas). The upper triangle mirrored (exactly
 * symmetric).
 */
FRICL_INLINE void FRICL_FN(dist_expand)(int k, int dim, int nf,
                                        const FRICL_REAL *bas,
                                        const FRICL_REAL *M, int ld,
                                        FRICL_REAL *H) {
  const int ndof = k * dim;
  const FRICL_REAL *c = bas, *rh = bas + 12, *E = bas + 15;
  FRICL_REAL w[4][3], z[4][4], y[4][2], Mc[3][3], EM[3][3];
  /* The c block in the original axes: Mc = E M_cc E^T. */
  for (int s = 0; s < dim; ++s)
    for (int t = 0; t < dim; ++t) {
      FRICL_REAL v = FRICL_R(0);
      for (int q = 0; q < dim; ++q)
        v += E[s * 3 + q] * M[q * ld + t];
      EM[s][t] = v;
    }
  for (int s = 0; s < dim; ++s)
    for (int t = s; t < dim; ++t) {
      FRICL_REAL v = FRICL_R(0);
      for (int q = 0; q < dim; ++q)
        v += EM[s][q] * E[t * 3 + q];
      Mc[s][t] = v;
      Mc[t][s] = v;
    }
  for (int i = 0; i < k; ++i) {
    FRICL_REAL wf[3];
    for (int s = 0; s < dim; ++s) {
      FRICL_REAL v = FRICL_R(0);
      for (int a = 0; a < nf; ++a)
        v += M[s * ld + dim + a] * bas[4 + 4 * a + i];
      wf[s] = v;
    }
    for (int s = 0; s < dim; ++s) {
      FRICL_REAL v = FRICL_R(0);
      for (int q = 0; q < dim; ++q)
        v += E[s * 3 + q] * wf[q];
      w[i][s] = v;
    }
    for (int b = 0; b < nf; ++b) {
      FRICL_REAL v = FRICL_R(0);
      for (int a = 0; a < nf; ++a)
        v += bas[4 + 4 * a + i] * M[(dim + a) * ld + dim + b];
      y[i][b] = v;
    }
  }
  for (int i = 0; i < k; ++i)
    for (int j = i; j < k; ++j) {
      FRICL_REAL v = FRICL_R(0);
      for (int b = 0; b < nf; ++b)
        v += y[i][b] * bas[4 + 4 * b + j];
      z[i][j] = v;
    }
  for (int i = 0; i < k; ++i)
    for (int j = i; j < k; ++j) {
      const FRICL_REAL cij = c[i] * c[j];
      for (int s = 0; s < dim; ++s)
        for (int t = i == j ? s : 0; t < dim; ++t) {
          const FRICL_REAL h = cij * Mc[s][t] + c[i] * w[j][s] * rh[t] +
                               c[j] * w[i][t] * rh[s] + z[i][j] * rh[s] * rh[t];
          H[(i * dim + s) * ndof + j * dim + t] = h;
          H[(j * dim + t) * ndof + i * dim + s] = h;
        }
    }
}
