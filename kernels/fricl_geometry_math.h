/*
 * fricl_geometry_math.h - one contact of the lagged friction build: the
 * closest-point coordinates beta (unclamped), the tangent basis P, the
 * squared distance, the clamped-log barrier's normal force N and its
 * gradient, and the blended mu (docs/ipc-friction.md section 5).
 *
 * Shared by the kernels (fricl_build.cl) and the C reference backend
 * (src/host/build_ref.c, once per precision); no include guard for the
 * functions (see fricl_cl_compat.h). The includer defines FRICL_REAL, FRICL_FN,
 * FRICL_SQRT and FRICL_LOG (sqrt/log, sqrtf/logf in C; the overloaded
 * builtins in OpenCL).
 *
 * Conventions:
 *  - The formulas, their operand order and the branch tests are the spec's
 *    (and upstream's where the spec names it), in the working precision.
 *  - Degenerate geometry is detected by exact tests on the quantities that
 *    would be divided by (|e|^2 == 0, |n|^2 == 0, ...) and reported by a
 *    status code; any other non-finite result of finite inputs (overflow)
 *    is caught by a finiteness test. Either way the contact gets N = 0 and
 *    a finite fallback, never NaN.
 *  - The gradient of d^2 uses the envelope theorem: at the minimising
 *    coordinates, d(d^2)/d x_i = 2 c_i r, with r the distance vector (first
 *    feature point minus the second) and c_i the vertex's coefficient in r.
 */

#ifndef FRICL_EMBEDDED
#include "fricl/fricl_tables.h"
#include "fricl_distance_math.h"
#endif
#ifndef FRICL_B_CODES_
#define FRICL_B_CODES_
/* Status, stencil and blend codes: the public enums' values, from the same
 * tables (<fricl/fricl_tables.h>). */
enum {
#define FRICL_B_STATUS_(name, value, text, desc) FRICL_B_##name = value,
  FRICL_BUILD_STATUS_MAP(FRICL_B_STATUS_)
#undef FRICL_B_STATUS_
#define FRICL_B_STENCIL_(name, value, text, k, nb, only3d)                     \
  FRICL_B_##name = value,
      FRICL_STENCIL_MAP(FRICL_B_STENCIL_)
#undef FRICL_B_STENCIL_
#define FRICL_B_BLEND_(name, value, text) FRICL_B_##name = value,
          FRICL_MU_BLEND_MAP(FRICL_B_BLEND_)
#undef FRICL_B_BLEND_
};
#endif

/* ------------------------------------------------------------- vectors */

/* g_dot, g_cross, g_cross2, g_sub and g_point_segment: fricl_distance_math.h.
 */

/* Column `col` of P (dim x m, row-major) = v / |v|. @return |v|. */
FRICL_INLINE FRICL_REAL FRICL_FN(g_set_col)(FRICL_REAL *P, int dim, int col,
                                            const FRICL_REAL *v) {
  const int m = dim - 1;
  const FRICL_REAL n = FRICL_SQRT(FRICL_FN(g_dot)(v, v, dim));
  for (int r = 0; r < dim; ++r)
    P[r * m + col] = v[r] / n;
  return n;
}

/* 0 for a non-finite x (x - x is NaN for inf and NaN). */
FRICL_INLINE int FRICL_FN(g_finite)(FRICL_REAL x) {
  return x - x == FRICL_R(0);
}

/* ------------------------------------------------------ tangent bases */

/* The 3-D vertex-vertex rule on d (spec 5.3): c = (1,0,0) x d or
 * (0,1,0) x d, the first iff its squared norm is strictly larger;
 * P = [normalize(c), normalize(d x c)]. */
FRICL_INLINE void FRICL_FN(g_vv_basis3)(const FRICL_REAL *d, FRICL_REAL *P) {
  const FRICL_REAL zero = FRICL_R(0);
  const FRICL_REAL cx[3] = {zero, -d[2], d[1]};
  const FRICL_REAL cy[3] = {d[2], zero, -d[0]};
  const int use_x = FRICL_FN(g_dot)(cx, cx, 3) > FRICL_FN(g_dot)(cy, cy, 3);
  FRICL_REAL c[3], t[3];
  for (int r = 0; r < 3; ++r)
    c[r] = use_x ? cx[r] : cy[r];
  FRICL_FN(g_cross)(d, c, t);
  FRICL_FN(g_set_col)(P, 3, 0, c);
  FRICL_FN(g_set_col)(P, 3, 1, t);
}

/* The 2-D rule on a direction d: P = (-dh_y, dh_x), dh = normalize(d). */
FRICL_INLINE void FRICL_FN(g_perp_basis2)(const FRICL_REAL *d, FRICL_REAL *P) {
  const FRICL_REAL n = FRICL_SQRT(FRICL_FN(g_dot)(d, d, 2));
  const FRICL_REAL h0 = d[0] / n, h1 = d[1] / n;
  P[0] = -h1;
  P[1] = h0;
}

/* ------------------------------------------------------------ geometry */

/*
 * The geometry of one contact. x holds the stencil's k positions (dim
 * each, stencil order); pn, pc the plane of a PV contact; eps_x the EE
 * skip threshold. Writes beta (nb), P (dim x m), the squared distance, the
 * distance vector r (dim) and the coefficient c_i of every stencil vertex
 * in r. Returns FRICL_B_OK, FRICL_B_EE_PARALLEL or a FRICL_B_DEGENERATE_* code
 * (the outputs are then unspecified).
 */
FRICL_INLINE int FRICL_FN(build_geometry)(int type, int dim,
                                          const FRICL_REAL *x,
                                          const FRICL_REAL *pn, FRICL_REAL pc,
                                          FRICL_REAL eps_x, FRICL_REAL *beta,
                                          FRICL_REAL *P, FRICL_REAL *d2,
                                          FRICL_REAL *r, FRICL_REAL *coef) {
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1);
  if (type == FRICL_B_VV) {
    const FRICL_REAL *v0 = x, *v1 = x + dim;
    FRICL_REAL d[3] = {0, 0, 0};
    FRICL_FN(g_sub)(v1, v0, d, dim);
    const FRICL_REAL dd = FRICL_FN(g_dot)(d, d, dim);
    if (dd == zero)
      return FRICL_B_DEGENERATE_COINCIDENT;
    if (dim == 3)
      FRICL_FN(g_vv_basis3)(d, P);
    else
      FRICL_FN(g_perp_basis2)(d, P);
    FRICL_FN(g_sub)(v0, v1, r, dim);
    *d2 = FRICL_FN(g_dot)(r, r, dim);
    coef[0] = one;
    coef[1] = -one;
    return FRICL_B_OK;
  }
  if (type == FRICL_B_EV) {
    const FRICL_REAL *p = x, *e0 = x + dim, *e1 = x + 2 * dim;
    FRICL_REAL e[3] = {0, 0, 0}, q[3] = {0, 0, 0};
    FRICL_FN(g_sub)(e1, e0, e, dim);
    FRICL_FN(g_sub)(p, e0, q, dim);
    const FRICL_REAL ee = FRICL_FN(g_dot)(e, e, dim);
    if (ee == zero)
      return FRICL_B_DEGENERATE_EDGE;
    if (dim == 3) {
      FRICL_REAL n[3];
      FRICL_FN(g_cross)(e, q, n);
      if (FRICL_FN(g_dot)(n, n, 3) == zero)
        return FRICL_B_DEGENERATE_POINT_ON_LINE;
      FRICL_FN(g_set_col)(P, 3, 0, e);
      FRICL_FN(g_set_col)(P, 3, 1, n);
    } else {
      const FRICL_REAL n = FRICL_SQRT(ee);
      P[0] = e[0] / n;
      P[1] = e[1] / n;
    }
    FRICL_REAL ca, cb, alpha;
    *d2 = FRICL_FN(g_point_segment)(p, e0, e1, dim, r, &ca, &cb, &alpha);
    beta[0] = alpha;
    coef[0] = one;
    coef[1] = ca;
    coef[2] = cb;
    return FRICL_B_OK;
  }
  if (type == FRICL_B_EE) {
    const FRICL_REAL *ea0 = x, *ea1 = x + 3, *eb0 = x + 6, *eb1 = x + 9;
    FRICL_REAL ea[3], eb[3], n[3], w0[3], t[3];
    FRICL_FN(g_sub)(ea1, ea0, ea, 3);
    FRICL_FN(g_sub)(eb1, eb0, eb, 3);
    FRICL_FN(g_cross)(ea, eb, n);
    const FRICL_REAL nn = FRICL_FN(g_dot)(n, n, 3);
    /* Spec 5.4: strict, cross product at the lagged positions. */
    if (nn < eps_x)
      return FRICL_B_EE_PARALLEL;
    const FRICL_REAL A = FRICL_FN(g_dot)(ea, ea, 3);
    const FRICL_REAL Cc = FRICL_FN(g_dot)(eb, eb, 3);
    if (A == zero || Cc == zero)
      return FRICL_B_DEGENERATE_EDGE;
    if (nn == zero)
      return FRICL_B_DEGENERATE_PARALLEL;
    const FRICL_REAL B = FRICL_FN(g_dot)(ea, eb, 3);
    FRICL_FN(g_sub)(ea0, eb0, w0, 3);
    const FRICL_REAL wa = FRICL_FN(g_dot)(w0, ea, 3);
    const FRICL_REAL wb = FRICL_FN(g_dot)(w0, eb, 3);
    /* det = A Cc - B^2 = |ea x eb|^2, taken in the cancellation-free form. */
    const FRICL_REAL ba = (B * wb - Cc * wa) / nn;
    const FRICL_REAL bb = (A * wb - B * wa) / nn;
    beta[0] = ba;
    beta[1] = bb;
    FRICL_FN(g_set_col)(P, 3, 0, ea);
    FRICL_FN(g_cross)(n, ea, t);
    FRICL_FN(g_set_col)(P, 3, 1, t);
    /* Line-line distance; r = (w0 . n / |n|^2) n is parallel to n. */
    const FRICL_REAL s = FRICL_FN(g_dot)(w0, n, 3);
    *d2 = s * s / nn;
    const FRICL_REAL sn = s / nn;
    for (int i = 0; i < 3; ++i)
      r[i] = sn * n[i];
    coef[0] = one - ba;
    coef[1] = ba;
    coef[2] = bb - one;
    coef[3] = -bb;
    return FRICL_B_OK;
  }
  if (type == FRICL_B_FV) {
    const FRICL_REAL *p = x, *t0 = x + 3, *t1 = x + 6, *t2 = x + 9;
    FRICL_REAL E0[3], E1[3], q[3], n[3], t[3];
    FRICL_FN(g_sub)(t1, t0, E0, 3);
    FRICL_FN(g_sub)(t2, t0, E1, 3);
    FRICL_FN(g_sub)(p, t0, q, 3);
    FRICL_FN(g_cross)(E0, E1, n);
    const FRICL_REAL nn = FRICL_FN(g_dot)(n, n, 3);
    if (nn == zero)
      return FRICL_B_DEGENERATE_FACE;
    const FRICL_REAL a00 = FRICL_FN(g_dot)(E0, E0, 3);
    const FRICL_REAL a01 = FRICL_FN(g_dot)(E0, E1, 3);
    const FRICL_REAL a11 = FRICL_FN(g_dot)(E1, E1, 3);
    const FRICL_REAL b0 = FRICL_FN(g_dot)(E0, q, 3);
    const FRICL_REAL b1 = FRICL_FN(g_dot)(E1, q, 3);
    const FRICL_REAL be1 = (a11 * b0 - a01 * b1) / nn;
    const FRICL_REAL be2 = (a00 * b1 - a01 * b0) / nn;
    beta[0] = be1;
    beta[1] = be2;
    FRICL_FN(g_set_col)(P, 3, 0, E0);
    FRICL_FN(g_cross)(n, E0, t);
    FRICL_FN(g_set_col)(P, 3, 1, t);
    coef[0] = one;
    if (be1 >= zero && be2 >= zero && be1 + be2 <= one) {
      /* The face interior is closest: the plane distance. */
      const FRICL_REAL s = FRICL_FN(g_dot)(q, n, 3);
      *d2 = s * s / nn;
      const FRICL_REAL sn = s / nn;
      for (int i = 0; i < 3; ++i)
        r[i] = sn * n[i];
      coef[1] = be1 + be2 - one;
      coef[2] = -be1;
      coef[3] = -be2;
      return FRICL_B_OK;
    }
    /* Outside the face: the closest of the three closed edges (the first
     * one on ties), t0t1, t1t2, t2t0. */
    const FRICL_REAL *ta[3] = {t0, t1, t2}, *tb[3] = {t1, t2, t0};
    FRICL_REAL best = zero;
    for (int k = 0; k < 3; ++k) {
      FRICL_REAL rk[3], ca, cb, al;
      const FRICL_REAL dk =
          FRICL_FN(g_point_segment)(p, ta[k], tb[k], 3, rk, &ca, &cb, &al);
      if (k == 0 || dk < best) {
        best = dk;
        for (int i = 0; i < 3; ++i)
          r[i] = rk[i];
        coef[1] = k == 0 ? ca : (k == 2 ? cb : zero);
        coef[2] = k == 0 ? cb : (k == 1 ? ca : zero);
        coef[3] = k == 1 ? cb : (k == 2 ? ca : zero);
      }
    }
    *d2 = best;
    return FRICL_B_OK;
  }
  /* PV: the plane {y : n.y + c = 0}, n of any nonzero length. */
  const FRICL_REAL nn = FRICL_FN(g_dot)(pn, pn, dim);
  if (nn == zero)
    return FRICL_B_DEGENERATE_NORMAL;
  if (dim == 3)
    FRICL_FN(g_vv_basis3)(pn, P);
  else
    FRICL_FN(g_perp_basis2)(pn, P);
  const FRICL_REAL s = FRICL_FN(g_dot)(pn, x, dim) + pc;
  *d2 = s * s / nn;
  const FRICL_REAL sn = s / nn;
  for (int i = 0; i < dim; ++i)
    r[i] = sn * pn[i];
  coef[0] = one;
  return FRICL_B_OK;
}

/* ------------------------------------------------------------- barrier */

/*
 * Normal force of the clamped-log barrier (spec 5.6) and its derivative
 * with respect to d^2. x = d^2 - dmin^2, x^ = (2 dmin + dhat) dhat;
 * b'(x) = (x^ - x)(2 ln(x/x^) - x^/x + 1) and
 * b''(x) = (x^/x + 2)(x^/x) - 2 ln(x/x^) - 3 on 0 < x < x^, else 0;
 * N = -kappa b' 2 sqrt(d^2); dN/d(d^2) = -kappa (b'' 2 d + b'/d).
 * *region: -1 for x <= 0, 1 for x >= x^, 0 inside. Everything outside the
 * open interval is computed on x = x^ (no log of 0, no division by 0) and
 * then replaced by 0.
 */
FRICL_INLINE FRICL_REAL FRICL_FN(barrier_force)(FRICL_REAL d2, FRICL_REAL dmin,
                                                FRICL_REAL dhat,
                                                FRICL_REAL kappa, int physical,
                                                FRICL_REAL *dN_dd2,
                                                int *region) {
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1), two = FRICL_R(2);
  const FRICL_REAL x = d2 - dmin * dmin;
  const FRICL_REAL xh = (two * dmin + dhat) * dhat;
  const int below = !(x > zero), above = !(x < xh);
  const int active = !below && !above;
  const FRICL_REAL xs = active ? x : xh;
  const FRICL_REAL L = FRICL_LOG(xs / xh);
  const FRICL_REAL inv = xh / xs;
  const FRICL_REAL bp = (xh - xs) * (two * L - inv + one);
  const FRICL_REAL bpp = (inv + two) * inv - two * L - FRICL_R(3);
  const FRICL_REAL d = FRICL_SQRT(active ? d2 : one);
  FRICL_REAL N = -kappa * bp * two * d;
  FRICL_REAL dN = -kappa * (bpp * two * d + bp / d);
  if (physical) {
    const FRICL_REAL ps = dhat / (xh * xh);
    N *= ps;
    dN *= ps;
  }
  *region = below ? -1 : (above ? 1 : 0);
  *dN_dd2 = active ? dN : zero;
  return active ? N : zero;
}

/* ------------------------------------------------------------------ mu */

FRICL_INLINE FRICL_REAL FRICL_FN(mu_blend2)(FRICL_REAL a, FRICL_REAL b,
                                            int blend) {
  const FRICL_REAL s = a + b;
  const FRICL_REAL avg = s / FRICL_R(2);
  const FRICL_REAL mn = b < a ? b : a;
  const FRICL_REAL mx = b > a ? b : a;
  const FRICL_REAL prod = a * b;
  /* 2ab/(a+b), divided unconditionally on a selected denominator. */
  const int zs = s == FRICL_R(0);
  const FRICL_REAL harm = FRICL_R(2) * a * b / (zs ? FRICL_R(1) : s);
  return blend == FRICL_B_MIN
             ? mn
             : (blend == FRICL_B_MAX ? mx
                                     : (blend == FRICL_B_PRODUCT
                                            ? prod
                                            : (blend == FRICL_B_HARMONIC
                                                   ? (zs ? FRICL_R(0) : harm)
                                                   : avg)));
}

/* mu of a contact from the k per-vertex values mv (stencil order) and the
 * unclamped beta (spec 5.7, operand order as upstream's builder). */
FRICL_INLINE FRICL_REAL FRICL_FN(mu_interp)(int type, const FRICL_REAL *mv,
                                            const FRICL_REAL *beta, int blend) {
  if (type == FRICL_B_VV)
    return FRICL_FN(mu_blend2)(mv[0], mv[1], blend);
  if (type == FRICL_B_EV)
    return FRICL_FN(mu_blend2)((mv[2] - mv[1]) * beta[0] + mv[1], mv[0], blend);
  if (type == FRICL_B_EE)
    return FRICL_FN(mu_blend2)((mv[1] - mv[0]) * beta[0] + mv[0],
                               (mv[3] - mv[2]) * beta[1] + mv[2], blend);
  if (type == FRICL_B_FV)
    return FRICL_FN(mu_blend2)(mv[1] + beta[0] * (mv[2] - mv[1]) +
                                   beta[1] * (mv[3] - mv[1]),
                               mv[0], blend);
  return mv[0];
}

/* ------------------------------------------------------------ contact */

/* The finite stand-in of a contact without friction: beta = 0, P = the
 * first m identity columns, and r = coef = 0 so that the gradient of N is
 * an exact 0. */
FRICL_INLINE void FRICL_FN(build_fallback)(int dim, FRICL_REAL *beta,
                                           FRICL_REAL *P, FRICL_REAL *r,
                                           FRICL_REAL *coef) {
  const int m = dim - 1;
  beta[0] = FRICL_R(0);
  beta[1] = FRICL_R(0);
  for (int rr = 0; rr < dim; ++rr) {
    r[rr] = FRICL_R(0);
    for (int c = 0; c < m; ++c)
      P[rr * m + c] = rr == c ? FRICL_R(1) : FRICL_R(0);
  }
  for (int i = 0; i < 4; ++i)
    coef[i] = FRICL_R(0);
}

/*
 * One contact, end to end. Inputs: x (k dim positions), the PV plane, the
 * EE threshold eps_x, the barrier parameters, and mu: with mu_vertex set,
 * mvs / mvk hold the k per-vertex values, else *mus / *muk hold the
 * contact's values on entry. Outputs: beta (2), P (dim x m), *N, gN (k dim,
 * written when want_grad), *mus, *muk. Returns the status code.
 */
FRICL_INLINE int FRICL_FN(build_contact)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *pn, FRICL_REAL pc,
    FRICL_REAL eps_x, FRICL_REAL kappa, FRICL_REAL dhat, FRICL_REAL dmin,
    int physical, int mus_vertex, int muk_vertex, const FRICL_REAL *mvs,
    const FRICL_REAL *mvk, int blend, int want_grad, FRICL_REAL *beta,
    FRICL_REAL *P, FRICL_REAL *N, FRICL_REAL *gN, FRICL_REAL *mus,
    FRICL_REAL *muk) {
  const FRICL_REAL zero = FRICL_R(0);
  const int m = dim - 1;
  const int k = type == FRICL_B_VV   ? 2
                : type == FRICL_B_EV ? 3
                : type == FRICL_B_PV ? 1
                                     : 4;
  const int nb = type == FRICL_B_EV
                     ? 1
                     : (type == FRICL_B_VV || type == FRICL_B_PV ? 0 : 2);
  FRICL_REAL d2 = zero, r[3] = {0, 0, 0}, coef[4] = {0, 0, 0, 0};
  beta[0] = zero;
  beta[1] = zero;
  int st = FRICL_FN(build_geometry)(type, dim, x, pn, pc, eps_x, beta, P, &d2,
                                    r, coef);
  if (st == FRICL_B_OK) {
    int fin = FRICL_FN(g_finite)(d2);
    for (int i = 0; i < nb; ++i)
      fin &= FRICL_FN(g_finite)(beta[i]);
    for (int i = 0; i < dim * m; ++i)
      fin &= FRICL_FN(g_finite)(P[i]);
    for (int i = 0; i < dim; ++i)
      fin &= FRICL_FN(g_finite)(r[i]);
    for (int i = 0; i < k; ++i)
      fin &= FRICL_FN(g_finite)(coef[i]);
    st = fin ? FRICL_B_OK : FRICL_B_NONFINITE;
  }
  if (st != FRICL_B_OK)
    FRICL_FN(build_fallback)(dim, beta, P, r, coef);
  /* mu (from the fallback beta = 0 when the geometry failed). */
  if (mus_vertex)
    *mus = FRICL_FN(mu_interp)(type, mvs, beta, blend);
  if (muk_vertex)
    *muk = FRICL_FN(mu_interp)(type, mvk, beta, blend);
  const int mu_fin = FRICL_FN(g_finite)(*mus) && FRICL_FN(g_finite)(*muk);
  const int mu_neg = *mus < zero || *muk < zero;
  if (!mu_fin || mu_neg) {
    if (st == FRICL_B_OK)
      st = mu_fin ? FRICL_B_MU_NEGATIVE : FRICL_B_MU_NONFINITE;
    *mus = zero;
    *muk = zero;
  }
  FRICL_REAL n = zero, dn = zero;
  if (st == FRICL_B_OK) {
    int region;
    n = FRICL_FN(barrier_force)(d2, dmin, dhat, kappa, physical, &dn, &region);
    int fin = FRICL_FN(g_finite)(n) && FRICL_FN(g_finite)(dn);
    if (want_grad)
      for (int i = 0; i < k; ++i)
        for (int c = 0; c < dim; ++c)
          fin &= FRICL_FN(g_finite)(dn * (FRICL_R(2) * coef[i] * r[c]));
    if (!fin) {
      st = FRICL_B_NONFINITE;
      n = zero;
      dn = zero;
      FRICL_FN(build_fallback)(dim, beta, P, r, coef);
    } else if (region < 0) {
      st = FRICL_B_INSIDE_DMIN;
    } else if (region > 0) {
      st = FRICL_B_INACTIVE;
    }
  }
  *N = n;
  if (want_grad)
    for (int i = 0; i < k; ++i)
      for (int c = 0; c < dim; ++c)
        gN[i * dim + c] = dn * (FRICL_R(2) * coef[i] * r[c]);
  return st;
}
