/*
 * fricl_collision_narrow_math.h - the distance types and squared distances the
 * collision build classifies with, in ipctk 1.6.1's forms (the same
 * formulas, so that a candidate at the activation distance falls on the
 * same side): point-point, point-line, point-plane, line-line, and the
 * three classifications (PointEdge-, EdgeEdge-, PointTriangleDistanceType;
 * the edge-edge one is the barrier's own, from kernels/).
 * f64 only, compiled as C99 (src/core/collision_build.c, src/core/ccd.c)
 * and as OpenCL C (fricl_collisions.cl) with contraction off, so that
 * host and device give the same bits; the barrier's own distances are
 * fricl_distance_math.h.
 */
#ifndef FRICL_COLLISION_NARROW_MATH_H
#define FRICL_COLLISION_NARROW_MATH_H

#ifndef FRICL_EMBEDDED
#include "fricl_cl_compat.h"
#endif

#if !FRICL_OPENCL_C
#include <float.h>
#include <math.h>
#endif

/* The shared distance math, once more in f64 under its own prefix (the
 * barrier pass instantiates it for itself). In a kernel program the host
 * has put it before this header with these defines
 * (src/opencl/collisions.c). */
#ifndef FRICL_EMBEDDED
#define FRICL_REAL double
#define FRICL_FN(name) fricl__cn_##name
#define FRICL_SQRT sqrt
#include "fricl_distance_math.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#endif

FRICL_INLINE double cn_dot(const double *a, const double *b, int dim) {
  double s = a[0] * b[0] + a[1] * b[1];
  return dim == 3 ? s + a[2] * b[2] : s;
}

FRICL_INLINE void cn_sub(const double *a, const double *b, double *c, int dim) {
  for (int i = 0; i < dim; ++i)
    c[i] = a[i] - b[i];
}

FRICL_INLINE void cn_cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

FRICL_INLINE double cn_pp(const double *a, const double *b, int dim) {
  double d[3] = {0, 0, 0};
  cn_sub(a, b, d, dim);
  return cn_dot(d, d, dim);
}

FRICL_INLINE double cn_pline(const double *p, const double *e0,
                             const double *e1, int dim) {
  double e[3] = {0, 0, 0};
  cn_sub(e1, e0, e, dim);
  if (dim == 2) {
    const double num =
        e[1] * p[0] - e[0] * p[1] + e1[0] * e0[1] - e1[1] * e0[0];
    return num * num / cn_dot(e, e, 2);
  }
  double a[3] = {0, 0, 0}, b[3] = {0, 0, 0}, c[3] = {0, 0, 0};
  cn_sub(e0, p, a, 3);
  cn_sub(e1, p, b, 3);
  cn_cross(a, b, c);
  return cn_dot(c, c, 3) / cn_dot(e, e, 3);
}

/* PointEdgeDistanceType: 0 P_E0, 1 P_E1, 2 P_E. */
FRICL_INLINE int cn_pe_type(const double *p, const double *e0, const double *e1,
                            int dim) {
  double e[3] = {0, 0, 0}, q[3] = {0, 0, 0};
  cn_sub(e1, e0, e, dim);
  const double ll = cn_dot(e, e, dim);
  if (ll == 0)
    return 0;
  cn_sub(p, e0, q, dim);
  const double r = cn_dot(e, q, dim) / ll;
  return r < 0 ? 0 : (r > 1 ? 1 : 2);
}

FRICL_INLINE double cn_pe(const double *p, const double *e0, const double *e1,
                          int dim, int type) {
  if (type < 0)
    type = cn_pe_type(p, e0, e1, dim);
  return type == 0 ? cn_pp(p, e0, dim)
                   : (type == 1 ? cn_pp(p, e1, dim) : cn_pline(p, e0, e1, dim));
}

/* Solve (B B^T) x = B q for the 2 x 3 basis B = (b0; b1) with the steps of
 * a pivoted LDL^T (Eigen's, which ipctk uses), so that points on a region
 * boundary land on the same side. */
FRICL_INLINE void cn_ldlt2(const double *b0, const double *b1, const double *q,
                           double x[2]) {
  double a00 = cn_dot(b0, b0, 3), a11 = cn_dot(b1, b1, 3);
  const double a10 = cn_dot(b1, b0, 3);
  double r0 = cn_dot(b0, q, 3), r1 = cn_dot(b1, q, 3);
  const int swap = fabs(a11) > fabs(a00);
  if (swap) {
    double t = a00;
    a00 = a11;
    a11 = t;
    t = r0;
    r0 = r1;
    r1 = t;
  }
  const double l10 = a00 != 0 ? a10 / a00 : a10;
  const double d1 = a11 - l10 * (a00 * l10);
  double y0 = r0, y1 = r1 - l10 * y0;
  y0 = fabs(a00) > DBL_MIN ? y0 / a00 : 0;
  y1 = fabs(d1) > DBL_MIN ? y1 / d1 : 0;
  y0 = y0 - l10 * y1;
  x[0] = swap ? y1 : y0;
  x[1] = swap ? y0 : y1;
}

/* PointTriangleDistanceType: 0..2 P_T0..2, 3..5 P_E0..2, 6 P_T. */
FRICL_INLINE int cn_pt_type(const double *p, const double *t0, const double *t1,
                            const double *t2) {
  const double *t[3] = {t0, t1, t2};
  double u0[3] = {0, 0, 0}, u1[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  cn_sub(t1, t0, u0, 3);
  cn_sub(t2, t0, u1, 3);
  cn_cross(u0, u1, n);
  double prm[3][2];
  for (int k = 0; k < 3; ++k) {
    double b0[3], b1[3], q[3];
    cn_sub(t[(k + 1) % 3], t[k], b0, 3);
    cn_cross(b0, n, b1);
    cn_sub(p, t[k], q, 3);
    cn_ldlt2(b0, b1, q, prm[k]);
    if (prm[k][0] > 0 && prm[k][0] < 1 && prm[k][1] >= 0)
      return 3 + k;
  }
  if (prm[0][0] <= 0 && prm[2][0] >= 1)
    return 0;
  if (prm[1][0] <= 0 && prm[0][0] >= 1)
    return 1;
  if (prm[2][0] <= 0 && prm[1][0] >= 1)
    return 2;
  return 6;
}

/* (q . n)^2 / |n|^2, n = u x v: the squared distance of q from the plane
 * through 0 spanned by u and v (point-plane, and line-line in 3-D). */
FRICL_INLINE double cn_plane_d2(const double *q, const double *u,
                                const double *v) {
  double n[3] = {0, 0, 0};
  cn_cross(u, v, n);
  const double s = cn_dot(q, n, 3);
  return s * s / cn_dot(n, n, 3);
}

FRICL_INLINE double cn_pplane(const double *p, const double *t0,
                              const double *t1, const double *t2) {
  double u0[3] = {0, 0, 0}, u1[3] = {0, 0, 0}, q[3] = {0, 0, 0};
  cn_sub(t1, t0, u0, 3);
  cn_sub(t2, t0, u1, 3);
  cn_sub(p, t0, q, 3);
  return cn_plane_d2(q, u0, u1);
}

FRICL_INLINE double cn_pt(const double *p, const double *t0, const double *t1,
                          const double *t2, int type) {
  const double *t[3] = {t0, t1, t2};
  if (type < 3)
    return cn_pp(p, t[type], 3);
  if (type < 6)
    return cn_pline(p, t[type - 3], t[(type - 2) % 3], 3);
  return cn_pplane(p, t0, t1, t2);
}

/* EdgeEdgeDistanceType (0 EA0_EB0, 1 EA0_EB1, 2 EA1_EB0, 3 EA1_EB1,
 * 4 EA_EB0, 5 EA_EB1, 6 EA0_EB, 7 EA1_EB, 8 EA_EB): the barrier's own
 * classification (kernels/fricl_distance_math.h, ipctk's rules and its
 * relative parallel threshold), on the four points. */
FRICL_INLINE int cn_ee_type(const double *a0, const double *a1,
                            const double *b0, const double *b1) {
  double x[12];
  for (int i = 0; i < 3; ++i) {
    x[i] = a0[i];
    x[3 + i] = a1[i];
    x[6 + i] = b0[i];
    x[9 + i] = b1[i];
  }
  return fricl__cn_dist_ee_type(x);
}

FRICL_INLINE double cn_ee(const double *a0, const double *a1, const double *b0,
                          const double *b1, int type) {
  switch (type) {
  case 0:
    return cn_pp(a0, b0, 3);
  case 1:
    return cn_pp(a0, b1, 3);
  case 2:
    return cn_pp(a1, b0, 3);
  case 3:
    return cn_pp(a1, b1, 3);
  case 4:
    return cn_pline(b0, a0, a1, 3);
  case 5:
    return cn_pline(b1, a0, a1, 3);
  case 6:
    return cn_pline(a0, b0, b1, 3);
  case 7:
    return cn_pline(a1, b0, b1, 3);
  default: {
    double u[3], v[3], w[3];
    cn_sub(a1, a0, u, 3);
    cn_sub(b1, b0, v, 3);
    cn_sub(b0, a0, w, 3);
    return cn_plane_d2(w, u, v);
  }
  }
}

/* |ea x eb|^2 and the mollifier threshold 1e-3 |ea|^2 |eb|^2. */
FRICL_INLINE double cn_ee_cross2(const double *a0, const double *a1,
                                 const double *b0, const double *b1) {
  double u[3] = {0, 0, 0}, v[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  cn_sub(a1, a0, u, 3);
  cn_sub(b1, b0, v, 3);
  cn_cross(u, v, n);
  return cn_dot(n, n, 3);
}

FRICL_INLINE double cn_eps_x(const double *a0, const double *a1,
                             const double *b0, const double *b1) {
  return 1e-3 * cn_pp(a0, a1, 3) * cn_pp(b0, b1, 3);
}

/* ------------------------------------------- one candidate's narrow phase */

/* Whether the bounding boxes of the points pt[0 .. np) and pt[np .. np +
 * nq) are farther apart than the activation distance: a lower bound of
 * the pair's distance, which skips the classification of pairs that cannot
 * be active. The margin keeps a pair whose exact squared distance rounds
 * just below the threshold (the bound is exact arithmetic on the same
 * coordinates, the distances are not). */
FRICL_INLINE int cn_apart(const double *const *pt, int np, int nq, int dim,
                          double active) {
  double gap2 = 0;
  FRICL_CL_UNROLL
  for (int d = 0; d < dim; ++d) {
    double plo = pt[0][d], phi = plo, qlo = pt[np][d], qhi = qlo;
    FRICL_CL_UNROLL
    for (int i = 1; i < FRICL_CL_BOUND(np, 3); ++i) {
      if (i >= np)
        break;
      const double x = pt[i][d];
      plo = x < plo ? x : plo;
      phi = x > phi ? x : phi;
    }
    FRICL_CL_UNROLL
    for (int i = np + 1; i < FRICL_CL_BOUND(np + nq, 4); ++i) {
      if (i >= np + nq)
        break;
      const double x = pt[i][d];
      qlo = x < qlo ? x : qlo;
      qhi = x > qhi ? x : qhi;
    }
    const double g = qlo - phi > plo - qhi ? qlo - phi : plo - qhi;
    if (g > 0)
      gap2 += g * g;
  }
  return gap2 > active * (1 + 1e-8);
}

/* Separating-axis lower bounds of the distance, for the pairs that the
 * box gap keeps but that cannot be active (most of a cloth's own pairs:
 * its edges and faces lie side by side in a plane). A projection gap g
 * along an axis w bounds the distance below by g / |w|; a pair is skipped
 * only when that bound is past `apart`, the threshold plus a margin
 * covering the rounding of the bound and of the distance the
 * classification would compute (1e-6 relative, and 1e-12 of the largest
 * squared coordinate of the positions: src/core/collision_build.c). */

/* Edge (from the origin along u) against the segment p q, relative to
 * the edge's first point: the gap along w, the part of the segment's
 * midpoint normal to u, beyond lim (g^2 > lim |w|^2, no division). */
FRICL_INLINE int cn_ee_axis_apart(const double *u, const double *p,
                                  const double *q, double lim) {
  double w[3];
  const double uu = cn_dot(u, u, 3);
  const double ru = 0.5 * (cn_dot(p, u, 3) + cn_dot(q, u, 3));
  for (int d = 0; d < 3; ++d)
    w[d] = 0.5 * (p[d] + q[d]) * uu - ru * u[d];
  const double gp = cn_dot(p, w, 3), gq = cn_dot(q, w, 3), gu = cn_dot(u, w, 3);
  const double g = (gp < gq ? gp : gq) - (gu > 0 ? gu : 0);
  return g > 0 && g * g > lim * cn_dot(w, w, 3);
}

/* Edges a0 a1 and b0 b1 farther apart than the threshold: a separating
 * axis normal to either edge, towards the other's midpoint. */
FRICL_INLINE int cn_ee_sep_apart(const double *a0, const double *a1,
                                 const double *b0, const double *b1,
                                 double lim) {
  double u[3], p[3], q[3];
  cn_sub(a1, a0, u, 3);
  cn_sub(b0, a0, p, 3);
  cn_sub(b1, a0, q, 3);
  if (cn_ee_axis_apart(u, p, q, lim))
    return 1;
  cn_sub(b1, b0, u, 3);
  cn_sub(a0, b0, p, 3);
  cn_sub(a1, b0, q, 3);
  return cn_ee_axis_apart(u, p, q, lim);
}

/* Point x against triangle t0 t1 t2 farther apart than the threshold:
 * the squared distance is at least the plane's part plus the in-plane
 * gap outside any edge (along the edge's outward normal in the plane). */
FRICL_INLINE int cn_fv_sep_apart(const double *x, const double *t0,
                                 const double *t1, const double *t2,
                                 double lim) {
  double e1[3], e2[3], n[3], y[3];
  cn_sub(t1, t0, e1, 3);
  cn_sub(t2, t0, e2, 3);
  cn_sub(x, t0, y, 3);
  cn_cross(e1, e2, n);
  const double nn = cn_dot(n, n, 3);
  if (!(nn > 0))
    return 0;
  const double pd = cn_dot(y, n, 3), pd2 = pd * pd / nn;
  if (pd2 > lim)
    return 1;
  const double *t[3] = {t0, t1, t2};
  FRICL_CL_UNROLL
  for (int k = 0; k < 3; ++k) {
    double e[3], m[3], z[3];
    cn_sub(t[(k + 1) % 3], t[k], e, 3);
    cn_cross(e, n, m);
    cn_sub(x, t[k], z, 3);
    const double s = cn_dot(z, m, 3);
    if (s > 0 && s * s > (lim - pd2) * cn_dot(m, m, 3))
      return 1;
  }
  return 0;
}

/* The narrow phase of one candidate of the collision build: its distance
 * type when its squared distance is below `active` ((dhat + dmin)^2),
 * else -1. The host build and the device kernel (fricl_collisions.cl)
 * both classify with these, so their sets are the same bit for bit.
 * vv: 0 (no type). */
FRICL_INLINE int cn_narrow_vv(const double *a, const double *b, int dim,
                              double active) {
  return cn_pp(a, b, dim) < active ? 0 : -1;
}

/* ev: vertex v, edge (e0, e1); the PointEdgeDistanceType. */
FRICL_INLINE int cn_narrow_ev(const double *v, const double *e0,
                              const double *e1, int dim, double active) {
  const double *pt[3] = {e0, e1, v};
  if (cn_apart(pt, 2, 1, dim, active))
    return -1;
  const int t = cn_pe_type(v, e0, e1, dim);
  return cn_pe(v, e0, e1, dim, t) < active ? t : -1;
}

/* ee: edges (a0, a1) and (b0, b1), 3-D; the EdgeEdgeDistanceType.
 * apart: the separating axes' threshold (above). */
FRICL_INLINE int cn_narrow_ee(const double *a0, const double *a1,
                              const double *b0, const double *b1, double active,
                              double apart) {
  const double *pt[4] = {a0, a1, b0, b1};
  if (cn_ee_sep_apart(a0, a1, b0, b1, apart) || cn_apart(pt, 2, 2, 3, active))
    return -1;
  const int t = cn_ee_type(a0, a1, b0, b1);
  return cn_ee(a0, a1, b0, b1, t) < active ? t : -1;
}

/* fv: vertex v, face (t0, t1, t2), 3-D; the PointTriangleDistanceType.
 * apart: as for ee. */
FRICL_INLINE int cn_narrow_fv(const double *v, const double *t0,
                              const double *t1, const double *t2, double active,
                              double apart) {
  const double *pt[4] = {t0, t1, t2, v};
  if (cn_fv_sep_apart(v, t0, t1, t2, apart) || cn_apart(pt, 3, 1, 3, active))
    return -1;
  const int t = cn_pt_type(v, t0, t1, t2);
  return cn_pt(v, t0, t1, t2, t) < active ? t : -1;
}

#endif
