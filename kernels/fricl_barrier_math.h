/*
 * fricl_barrier_math.h - one contact of the normal-contact barrier: ipctk's
 * BarrierPotential with the clamped-log barrier on squared distances,
 *   B = kappa w m(x) b(d^2 - dmin^2, (2 dmin + dhat) dhat) [dhat / xh^2],
 * its gradient and its Hessian (b'' grad d^2 grad d^2^T + b' hess d^2, and
 * the product rule with the edge-edge mollifier m), projected onto the PSD
 * cone as a whole local matrix (fricl_eigen_math.h).
 *
 * The normal potential's scalar function is a choice (fn): 0 the
 * clamped-log barrier above, 1 the normal adhesion potential of
 * fricl_adhesion_math.h (ipctk's NormalAdhesionPotential), both functions
 * of d^2 - dmin^2 over the same stencils, mollifier and projection.
 *
 * Shared by the kernels (fricl_barrier.cl) and the C backends, once per
 * precision; the includer defines FRICL_REAL, FRICL_FN, FRICL_SQRT,
 * FRICL_LOG and includes fricl_distance_math.h (or fricl_geometry_math.h,
 * for bar_force_magnitude), fricl_eigen_math.h and fricl_adhesion_math.h
 * first.
 */

/* The normal-potential functions (fricl_normal_function). */
#define FRICL_NF_BARRIER 0
#define FRICL_NF_ADHESION 1

/* b, b', b'' of the clamped log barrier at x with activation xh:
 * b = -(x - xh)^2 ln(x / xh) on 0 < x < xh, +inf for x <= 0 (b' = b'' = 0
 * there, as upstream), 0 for x >= xh; NaN propagates. */
FRICL_INLINE void FRICL_FN(bar_clamped_log)(FRICL_REAL x, FRICL_REAL xh,
                                            FRICL_REAL *b, FRICL_REAL *bp,
                                            FRICL_REAL *bpp) {
  const FRICL_REAL zero = FRICL_R(0), two = FRICL_R(2);
  if (x <= zero) {
    *b = FRICL_R(1) / zero;
    *bp = zero;
    *bpp = zero;
    return;
  }
  if (x >= xh) {
    *b = zero;
    *bp = zero;
    *bpp = zero;
    return;
  }
  const FRICL_REAL L = FRICL_LOG(x / xh);
  const FRICL_REAL dm = x - xh;
  const FRICL_REAL q = xh / x;
  *b = -dm * dm * L;
  *bp = (xh - x) * (two * L - q + FRICL_R(1));
  *bpp = (q + two) * q - two * L - FRICL_R(3);
}

/* f, f', f'' (into f[0..2]) of the normal potential at d^2 = d2, as
 * functions of d^2: fn 0 kappa b(d2 - dmin^2, (2 dmin + dhat) dhat), scaled
 * by dhat / xh^2 when physical; fn 1 kappa a(d2 - dmin^2) with the
 * adhesion parameters adh = (dhat_p, dhat_a, Y, eps_c). */
FRICL_INLINE void FRICL_FN(bar_normal_fn)(int fn, FRICL_REAL d2,
                                          FRICL_REAL dmin, FRICL_REAL dhat,
                                          FRICL_REAL kappa, int physical,
                                          const FRICL_REAL *adh,
                                          FRICL_REAL *f) {
  const FRICL_REAL x = d2 - dmin * dmin;
  FRICL_REAL b, bp, bpp;
  if (fn == FRICL_NF_ADHESION) {
    FRICL_REAL xp, xa, a2;
    FRICL_FN(normal_adhesion_args)
    (dmin, adh[0], adh[1], adh[2], adh[3], &xp, &xa, &a2);
    b = FRICL_FN(normal_adhesion_potential)(x, xp, xa, a2);
    bp = FRICL_FN(normal_adhesion_potential_first_derivative)(x, xp, xa, a2);
    bpp = FRICL_FN(normal_adhesion_potential_second_derivative)(x, xp, xa, a2);
  } else {
    const FRICL_REAL xh = (FRICL_R(2) * dmin + dhat) * dhat;
    FRICL_FN(bar_clamped_log)(x, xh, &b, &bp, &bpp);
    if (physical) {
      const FRICL_REAL ps = dhat / (xh * xh);
      b *= ps;
      bp *= ps;
      bpp *= ps;
    }
  }
  f[0] = kappa * b;
  f[1] = kappa * bp;
  f[2] = kappa * bpp;
}

/* The distance type a contact is evaluated with (dist_contact: -1 or any
 * value out of the stencil's range classifies by the nearest feature).
 * With as_cls (FRICL_BARRIER_FLAG_AS_CLASSIFIED) an EV or FV contact
 * without a given type takes the feature ipctk 1.6.1 evaluates its
 * EdgeVertex / FaceVertexNormalCollision with, wherever the point lies:
 * the line (P_E = 2) and the plane (P_T = 6). EE keeps classifying: an
 * ipctk edge-edge collision stores its type, which the caller passes. A
 * given type always stands. */
FRICL_INLINE int FRICL_FN(bar_dtype)(int type, int dtype, int as_cls) {
  if (as_cls && type == FRICL_D_EV && !(dtype >= 0 && dtype <= 2))
    return 2;
  if (as_cls && type == FRICL_D_FV && !(dtype >= 0 && dtype <= 6))
    return 6;
  return dtype;
}

/* The edge-edge mollifier's threshold eps_x = 1e-3 |ra|^2 |rb|^2 of the
 * rest edges ra = xr1 - xr0, rb = xr3 - xr2 (xr: the four rest points). */
FRICL_INLINE FRICL_REAL FRICL_FN(bar_ee_eps_x)(const FRICL_REAL *xr) {
  FRICL_REAL ra[3], rb[3];
  FRICL_FN(g_sub)(xr + 3, xr, ra, 3);
  FRICL_FN(g_sub)(xr + 9, xr + 6, rb, 3);
  return FRICL_R(1) / FRICL_R(1000) * FRICL_FN(g_dot)(ra, ra, 3) *
         FRICL_FN(g_dot)(rb, rb, 3);
}

/* The mollifier of nearly parallel edges at xm = |ea x eb|^2: where it
 * applies (xm < eps_x, returns 1) m, m' and m''; elsewhere (returns 0) it
 * leaves them as they are (the caller's 1, 0, 0). */
FRICL_INLINE int FRICL_FN(bar_ee_mollify)(FRICL_REAL xm, FRICL_REAL eps_x,
                                          FRICL_REAL *m, FRICL_REAL *mp,
                                          FRICL_REAL *mpp) {
  if (!(xm < eps_x))
    return 0;
  const FRICL_REAL xe = xm / eps_x;
  *m = (-xe + FRICL_R(2)) * xe;
  const FRICL_REAL ie = FRICL_R(1) / eps_x;
  *mp = FRICL_R(2) * ie * (FRICL_R(1) - ie * xm);
  *mpp = -FRICL_R(2) / (eps_x * eps_x);
  return 1;
}

/* A contact's gradient g (ndof) of B = w m f(d^2): w f' grad d^2 (gd)
 * without the mollifier, else w f m' grad xm (gx) + w m f' grad d^2
 * (zero where m is not positive). */
FRICL_INLINE void FRICL_FN(bar_gradient)(int ndof, int moll, FRICL_REAL w,
                                         FRICL_REAL m, FRICL_REAL mp,
                                         FRICL_REAL f, FRICL_REAL fp,
                                         const FRICL_REAL *gx,
                                         const FRICL_REAL *gd, FRICL_REAL *g) {
  if (!moll) {
    const FRICL_REAL s1 = w * fp;
    FRICL_UNROLL
    for (int i = 0; i < ndof; ++i)
      g[i] = s1 * gd[i];
  } else if (!(m > FRICL_R(0))) {
    FRICL_UNROLL
    for (int i = 0; i < ndof; ++i)
      g[i] = FRICL_R(0);
  } else {
    const FRICL_REAL s0 = w * f, s1 = w * m * fp;
    FRICL_UNROLL
    for (int i = 0; i < ndof; ++i)
      g[i] = s0 * (mp * gx[i]) + s1 * gd[i];
  }
}

/* Edge-edge mollifier input x = |ea x eb|^2 with its gradient (12) and the
 * three 3x3 edge-level Hessian blocks (aa, bb, ab) of |ea|^2|eb|^2 -
 * (ea.eb)^2. */
FRICL_INLINE FRICL_REAL FRICL_FN(bar_ee_cross)(const FRICL_REAL *x,
                                               FRICL_REAL *gx,
                                               FRICL_REAL *blk) {
  FRICL_REAL ea[3], eb[3], n[3], ga[3], gb[3];
  FRICL_FN(g_sub)(x + 3, x, ea, 3);
  FRICL_FN(g_sub)(x + 9, x + 6, eb, 3);
  FRICL_FN(g_cross)(ea, eb, n);
  FRICL_FN(g_cross)(eb, n, ga);
  FRICL_FN(g_cross)(n, ea, gb);
  for (int s = 0; s < 3; ++s) {
    gx[s] = -FRICL_R(2) * ga[s];
    gx[3 + s] = FRICL_R(2) * ga[s];
    gx[6 + s] = -FRICL_R(2) * gb[s];
    gx[9 + s] = FRICL_R(2) * gb[s];
  }
  const FRICL_REAL A = FRICL_FN(g_dot)(ea, ea, 3);
  const FRICL_REAL B = FRICL_FN(g_dot)(ea, eb, 3);
  const FRICL_REAL C = FRICL_FN(g_dot)(eb, eb, 3);
  for (int r = 0; r < 3; ++r)
    for (int s = 0; s < 3; ++s) {
      const FRICL_REAL id = r == s ? FRICL_R(1) : FRICL_R(0);
      blk[r * 3 + s] = FRICL_R(2) * (C * id - eb[r] * eb[s]);
      blk[9 + r * 3 + s] = FRICL_R(2) * (A * id - ea[r] * ea[s]);
      blk[18 + r * 3 + s] = FRICL_R(4) * ea[r] * eb[s] - FRICL_R(2) * B * id -
                            FRICL_R(2) * eb[r] * ea[s];
    }
  return FRICL_FN(g_dot)(n, n, 3);
}

/* The rotation (c, s) that diagonalises [x y; y z] (the Jacobi angle of
 * fricl_eigen_math.h; the identity for y = 0). */
FRICL_INLINE void FRICL_FN(bar_rot2)(FRICL_REAL x, FRICL_REAL y, FRICL_REAL z,
                                     FRICL_REAL *c, FRICL_REAL *s) {
  const FRICL_REAL zero = FRICL_R(0);
  *c = FRICL_R(1);
  *s = zero;
  if (y == zero)
    return;
  const FRICL_REAL d = z - x, e = FRICL_R(2) * y;
  const FRICL_REAL ad = d < zero ? -d : d;
  const FRICL_REAL h = FRICL_SQRT(d * d + e * e);
  const FRICL_REAL u = ad + h;
  const FRICL_REAL iw = FRICL_R(1) / FRICL_SQRT(FRICL_R(2) * h * u);
  const FRICL_REAL se = d < zero ? -e : e;
  *c = u * iw;
  *s = se * iw;
}

/* M (5 x 5, symmetric) = R^T M R, R the rotation (c, s) in the plane
 * (p, q); the lower triangle mirrored from the upper (exactly symmetric). */
FRICL_INLINE void FRICL_FN(bar_rotate)(FRICL_REAL *M, int p, int q,
                                       FRICL_REAL c, FRICL_REAL s) {
  for (int r = 0; r < 5; ++r) {
    const FRICL_REAL a = M[r * 5 + p], b = M[r * 5 + q];
    M[r * 5 + p] = c * a - s * b;
    M[r * 5 + q] = s * a + c * b;
  }
  for (int r = 0; r < 5; ++r) {
    const FRICL_REAL a = M[p * 5 + r], b = M[q * 5 + r];
    M[p * 5 + r] = c * a - s * b;
    M[q * 5 + r] = s * a + c * b;
  }
  for (int r = 0; r < 5; ++r)
    for (int t = 0; t < r; ++t)
      M[r * 5 + t] = M[t * 5 + r];
}

/* Entry (u, v) of the 12x12 Hessian of x from the edge-level blocks. */
FRICL_INLINE FRICL_REAL FRICL_FN(bar_ee_cross_hess)(const FRICL_REAL *blk,
                                                    int u, int v) {
  const int iu = u / 3, iv = v / 3, r = u % 3, s = v % 3;
  const FRICL_REAL sg = ((iu & 1) ? FRICL_R(1) : -FRICL_R(1)) *
                        ((iv & 1) ? FRICL_R(1) : -FRICL_R(1));
  const int eu = iu >> 1, ev = iv >> 1;
  FRICL_REAL h;
  if (eu == 0 && ev == 0)
    h = blk[r * 3 + s];
  else if (eu == 1 && ev == 1)
    h = blk[9 + r * 3 + s];
  else if (eu == 0)
    h = blk[18 + r * 3 + s];
  else
    h = blk[18 + s * 3 + r];
  return sg * h;
}

/*
 * One contact. x: the stencil's positions (k dim); xr: its rest positions
 * (EE only: the mollifier threshold eps_x = 1e-3 |ea|^2 |eb|^2 at rest);
 * pn, pc: the plane of a PV contact; dtype: its distance type (-1:
 * classify; see dist_contact); fn, adh: the function (bar_normal_fn). want: 0
 * value only, 1 also the gradient g (ndof), 2 also the Hessian H (ndof x ndof,
 * projected by psd: 0 none, 1 clamp, 2 abs); work: 2 * 144 reals. Returns B.
 *
 * A projected Hessian is formed in the distance's reduced basis
 * (dist_contact: at most 5 dimensions), M = w (f'' gr gr^T + f' Hr),
 * projected there and expanded as H = Q^T M Q: its eigenvalues are M's and
 * zeros, so this is the projection of the full matrix (PSD none takes the
 * full matrix directly). With the mollifier, the full matrix is reduced to
 * the 9 dimensions orthogonal to the translations (the barrier, the
 * distance and the mollifier are translation invariant).
 */
FRICL_INLINE FRICL_REAL FRICL_FN(barrier_contact)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *xr,
    const FRICL_REAL *pn, FRICL_REAL pc, int dtype, FRICL_REAL dhat,
    FRICL_REAL kappa, FRICL_REAL dmin, FRICL_REAL w, int physical, int fn,
    const FRICL_REAL *adh, int psd, int want, FRICL_REAL *g, FRICL_REAL *H,
    FRICL_REAL *work) {
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  const int nb = type == FRICL_D_PV   ? 1
                 : type == FRICL_D_VV ? dim
                 : type == FRICL_D_EV ? dim + 1
                                      : dim + 2;
  /* The mollifier of nearly parallel edges. */
  int moll = 0;
  FRICL_REAL m = FRICL_R(1), mp = FRICL_R(0), mpp = FRICL_R(0);
  FRICL_REAL gx[12], blk[27];
  if (type == FRICL_D_EE) {
    const FRICL_REAL eps_x = FRICL_FN(bar_ee_eps_x)(xr);
    FRICL_REAL xm;
    if (want >= 1) {
      xm = FRICL_FN(bar_ee_cross)(x, gx, blk);
    } else { /* the value alone: |ea x eb|^2 as bar_ee_cross forms it */
      FRICL_REAL ea[3], eb[3], n[3];
      FRICL_FN(g_sub)(x + 3, x, ea, 3);
      FRICL_FN(g_sub)(x + 9, x + 6, eb, 3);
      FRICL_FN(g_cross)(ea, eb, n);
      xm = FRICL_FN(g_dot)(n, n, 3);
    }
    moll = FRICL_FN(bar_ee_mollify)(xm, eps_x, &m, &mp, &mpp);
  }
  FRICL_REAL gd[12], bas[FRICL_DIST_BAS], gr[FRICL_DIST_NB] = {0, 0, 0, 0, 0},
                                          Hr[FRICL_DIST_NB * FRICL_DIST_NB];
  /* The full distance Hessian (into H) where it is not projected in the
   * reduced basis: PSD none, and the mollified edges. */
  const int full = want >= 2 && (psd == 0 || moll);
  const FRICL_REAL d2 = FRICL_FN(dist_contact)(
      type, dim, x, pn, pc, dtype, gd, want >= 2, full ? H : 0, bas, gr, Hr);
  FRICL_REAL fv[3];
  FRICL_FN(bar_normal_fn)(fn, d2, dmin, dhat, kappa, physical, adh, fv);
  const FRICL_REAL f = fv[0], fp = fv[1], fpp = fv[2];
  const FRICL_REAL B = w * m * f;
  if (want < 1)
    return B;
  FRICL_FN(bar_gradient)(ndof, moll, w, m, mp, f, fp, gx, gd, g);
  if (want < 2)
    return B;
  if (!moll && full) {
    const FRICL_REAL s2 = w * fpp, s1 = w * fp;
    for (int u = 0; u < ndof; ++u)
      for (int v = u; v < ndof; ++v) {
        const FRICL_REAL h = s2 * gd[u] * gd[v] + s1 * H[u * ndof + v];
        H[u * ndof + v] = h;
        H[v * ndof + u] = h;
      }
    return B;
  }
  if (!moll) {
    const FRICL_REAL s2 = w * fpp, s1 = w * fp;
    FRICL_REAL M[FRICL_DIST_NB * FRICL_DIST_NB];
    for (int a = 0; a < nb; ++a)
      for (int c = a; c < nb; ++c) {
        const FRICL_REAL h =
            s2 * gr[a] * gr[c] + s1 * Hr[a * FRICL_DIST_NB + c];
        M[a * nb + c] = h;
        M[c * nb + a] = h;
      }
    /* Two free parameters: M's (1, 2) block is 0 and its (1, 2) x (3, 4)
     * block C couples the rest. Rotated in those two planes by the
     * eigenvectors of C C^T and C^T C, C becomes diagonal (up to the
     * order) and the Jacobi solve starts from nearly 2 x 2 blocks (on the
     * bench scene ~17 % off the whole evaluation). Undone after the
     * projection, which commutes with an orthogonal similarity. */
    FRICL_REAL gc[2] = {FRICL_R(1), FRICL_R(1)}, gs[2] = {0, 0};
    if (nb == 5) {
      const FRICL_REAL a = M[8], b9 = M[9], c = M[13], d = M[14];
      const FRICL_REAL sx[2] = {a * a + b9 * b9, a * a + c * c};
      const FRICL_REAL sy[2] = {a * c + b9 * d, a * b9 + c * d};
      const FRICL_REAL sz[2] = {c * c + d * d, b9 * b9 + d * d};
      for (int e = 0; e < 2; ++e)
        FRICL_FN(bar_rot2)(sx[e], sy[e], sz[e], gc + e, gs + e);
      FRICL_FN(bar_rotate)(M, 1, 2, gc[0], gs[0]);
      FRICL_FN(bar_rotate)(M, 3, 4, gc[1], gs[1]);
    }
    FRICL_FN(eig_project_psd)(nb, M, psd, work);
    if (nb == 5) {
      FRICL_FN(bar_rotate)(M, 1, 2, gc[0], -gs[0]);
      FRICL_FN(bar_rotate)(M, 3, 4, gc[1], -gs[1]);
    }
    if (type == FRICL_D_PV) {
      for (int u = 0; u < ndof; ++u)
        for (int v = u; v < ndof; ++v) {
          const FRICL_REAL h = M[0] * bas[12 + u] * bas[12 + v];
          H[u * ndof + v] = h;
          H[v * ndof + u] = h;
        }
    } else {
      FRICL_FN(dist_expand)(k, dim, nb - dim, bas, M, nb, H);
    }
    return B;
  }
  /* The mollified Hessian from the distance's full one. */
  {
    const FRICL_REAL s0 = w * f, s1 = w * fp;
    const FRICL_REAL wm = w * m;
    const int live = m > FRICL_R(0);
    for (int u = 0; u < ndof; ++u)
      for (int v = u; v < ndof; ++v) {
        const FRICL_REAL hm =
            mpp * gx[u] * gx[v] + mp * FRICL_FN(bar_ee_cross_hess)(blk, u, v);
        FRICL_REAL h = s0 * hm;
        if (live)
          h += s1 * (gd[u] * (mp * gx[v]) + (mp * gx[u]) * gd[v]) +
               wm * fpp * gd[u] * gd[v] + wm * fp * H[u * ndof + v];
        H[u * ndof + v] = h;
        H[v * ndof + u] = h;
      }
  }
  /* Exactly parallel edges (m = 0): H = w f m' times the Hessian of |ea x
   * eb|^2 at ea x eb = 0, which is PSD (2 (|ea|^2 + |eb|^2) on the two
   * directions (eb, -ea) (x) t, t orthogonal to the edges; 0 elsewhere):
   * no projection changes it. */
  if (psd == 0 || (!(m > FRICL_R(0)) && w * f >= FRICL_R(0)))
    return B;
  /* P (9 x 12): (-1, 1, 0, 0) / sqrt 2, (0, 0, -1, 1) / sqrt 2 and (1, 1,
   * -1, -1) / 2, each (x) e_s; M9 = P H P^T, projected, H = P^T M9 P.
   * Dof i * 3 + s has two entries in P: PA (rows) and PC (values) by i. */
  const FRICL_REAL h2 = FRICL_R(1) / FRICL_SQRT(FRICL_R(2));
  const FRICL_REAL h1 = FRICL_R(1) / FRICL_R(2);
  const int PA[4][2] = {{0, 6}, {0, 6}, {3, 6}, {3, 6}};
  const FRICL_REAL PC[4][2] = {{-h2, h1}, {h2, h1}, {-h2, -h1}, {h2, -h1}};
  FRICL_REAL *T = work, *M9 = work + 2 * 81;
  /* T = P H (9 x 12): the rows of H combined. */
  for (int s = 0; s < 3; ++s)
    for (int v = 0; v < 12; ++v) {
      const FRICL_REAL h0 = H[s * 12 + v], ha = H[(3 + s) * 12 + v];
      const FRICL_REAL hb = H[(6 + s) * 12 + v], hc = H[(9 + s) * 12 + v];
      T[s * 12 + v] = h2 * (ha - h0);
      T[(3 + s) * 12 + v] = h2 * (hc - hb);
      T[(6 + s) * 12 + v] = h1 * ((h0 + ha) - (hb + hc));
    }
  /* M9 = T P^T, upper triangle mirrored. */
  for (int a = 0; a < 9; ++a)
    for (int s = 0; s < 3; ++s) {
      const FRICL_REAL *t = T + a * 12;
      const FRICL_REAL m0 = h2 * (t[3 + s] - t[s]);
      const FRICL_REAL m1 = h2 * (t[9 + s] - t[6 + s]);
      const FRICL_REAL m2 = h1 * ((t[s] + t[3 + s]) - (t[6 + s] + t[9 + s]));
      if (s >= a)
        M9[a * 9 + s] = m0;
      if (3 + s >= a)
        M9[a * 9 + 3 + s] = m1;
      if (6 + s >= a)
        M9[a * 9 + 6 + s] = m2;
    }
  for (int a = 0; a < 9; ++a)
    for (int c = 0; c < a; ++c)
      M9[a * 9 + c] = M9[c * 9 + a];
  FRICL_FN(eig_project_psd)(9, M9, psd, work);
  for (int i = 0; i < 4; ++i)
    for (int s = 0; s < 3; ++s)
      for (int j = i; j < 4; ++j)
        for (int t = i == j ? s : 0; t < 3; ++t) {
          FRICL_REAL h = FRICL_R(0);
          for (int e = 0; e < 2; ++e)
            for (int y = 0; y < 2; ++y)
              h +=
                  (PC[i][e] * PC[j][y]) * M9[(PA[i][e] + s) * 9 + PA[j][y] + t];
          H[(i * 3 + s) * 12 + j * 3 + t] = h;
          H[(j * 3 + t) * 12 + i * 3 + s] = h;
        }
  return B;
}

/* The distance vector of one contact: r = sum_i c_i x_i (c: k values; PV:
 * c = 1 and r the point's offset from the plane along its normal) with
 * d^2 = |r|^2 returned, for the feature dist_contact evaluates. */
FRICL_INLINE FRICL_REAL FRICL_FN(bar_dist_vector)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *pn, FRICL_REAL pc,
    int dtype, FRICL_REAL *c, FRICL_REAL *r) {
  if (type == FRICL_D_PV) {
    const FRICL_REAL nn = FRICL_FN(g_dot)(pn, pn, dim);
    const FRICL_REAL s = FRICL_FN(g_dot)(pn, x, dim) + pc;
    const FRICL_REAL sn = s / nn;
    c[0] = FRICL_R(1);
    for (int i = 0; i < dim; ++i)
      r[i] = sn * pn[i];
    return s * s / nn;
  }
  FRICL_FN(dist_feature) f;
  FRICL_FN(dist_clear)(&f);
  if (type == FRICL_D_VV)
    FRICL_FN(dist_pp)(&f, x, dim, 0, 1);
  else if (type == FRICL_D_EV)
    FRICL_FN(dist_pe)(&f, x, dim, 0, 1, 2, dtype);
  else if (type == FRICL_D_EE)
    FRICL_FN(dist_ee)(&f, x, dtype);
  else
    FRICL_FN(dist_pt)(&f, x, dtype);
  for (int i = 0; i < 4; ++i)
    c[i] = f.c[i];
  for (int s = 0; s < dim; ++s)
    r[s] = f.r[s];
  return f.d2;
}

/* f of bar_normal_fn alone (f[0]): the same operations, so the same
 * value bitwise, without the derivatives' (a value-only pass). */
FRICL_INLINE FRICL_REAL FRICL_FN(bar_normal_value)(
    int fn, FRICL_REAL d2, FRICL_REAL dmin, FRICL_REAL dhat, FRICL_REAL kappa,
    int physical, const FRICL_REAL *adh) {
  const FRICL_REAL x = d2 - dmin * dmin;
  FRICL_REAL b;
  if (fn == FRICL_NF_ADHESION) {
    FRICL_REAL xp, xa, a2;
    FRICL_FN(normal_adhesion_args)
    (dmin, adh[0], adh[1], adh[2], adh[3], &xp, &xa, &a2);
    b = FRICL_FN(normal_adhesion_potential)(x, xp, xa, a2);
  } else {
    const FRICL_REAL xh = (FRICL_R(2) * dmin + dhat) * dhat;
    const FRICL_REAL zero = FRICL_R(0);
    if (x <= zero) {
      b = FRICL_R(1) / zero;
    } else if (x >= xh) {
      b = zero;
    } else {
      const FRICL_REAL L = FRICL_LOG(x / xh);
      const FRICL_REAL dm = x - xh;
      b = -dm * dm * L;
    }
    if (physical)
      b *= dhat / (xh * xh);
  }
  return kappa * b;
}

/* barrier_contact's B alone (want 0), in the same operations (the same
 * value bitwise): the mollifier's m, d^2 of the feature dist_contact
 * evaluates (bar_dist_vector's, the same d^2) and f, without the
 * distance's derivatives or the Hessian's work space. */
FRICL_INLINE FRICL_REAL FRICL_FN(barrier_contact_value)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *xr,
    const FRICL_REAL *pn, FRICL_REAL pc, int dtype, FRICL_REAL dhat,
    FRICL_REAL kappa, FRICL_REAL dmin, FRICL_REAL w, int physical, int fn,
    const FRICL_REAL *adh) {
  FRICL_REAL m = FRICL_R(1);
  if (type == FRICL_D_EE) {
    FRICL_REAL ea[3], eb[3], n[3], mp, mpp;
    const FRICL_REAL eps_x = FRICL_FN(bar_ee_eps_x)(xr);
    FRICL_FN(g_sub)(x + 3, x, ea, 3);
    FRICL_FN(g_sub)(x + 9, x + 6, eb, 3);
    FRICL_FN(g_cross)(ea, eb, n);
    FRICL_FN(bar_ee_mollify)(FRICL_FN(g_dot)(n, n, 3), eps_x, &m, &mp, &mpp);
  }
  FRICL_REAL c[4], r[3];
  const FRICL_REAL d2 =
      FRICL_FN(bar_dist_vector)(type, dim, x, pn, pc, dtype, c, r);
  const FRICL_REAL f =
      FRICL_FN(bar_normal_value)(fn, d2, dmin, dhat, kappa, physical, adh);
  return w * m * f;
}

/* barrier_contact's B and gradient g (want 1), in the same operations
 * (the same values bitwise; d^2's gradient 2 c_i r_s is dist_contact's),
 * without the Hessian's work space. */
FRICL_INLINE FRICL_REAL FRICL_FN(barrier_contact_gradient)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *xr,
    const FRICL_REAL *pn, FRICL_REAL pc, int dtype, FRICL_REAL dhat,
    FRICL_REAL kappa, FRICL_REAL dmin, FRICL_REAL w, int physical, int fn,
    const FRICL_REAL *adh, FRICL_REAL *g) {
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  int moll = 0;
  FRICL_REAL m = FRICL_R(1), mp = FRICL_R(0);
  FRICL_REAL gx[12], blk[27];
  if (type == FRICL_D_EE) {
    const FRICL_REAL eps_x = FRICL_FN(bar_ee_eps_x)(xr);
    const FRICL_REAL xm = FRICL_FN(bar_ee_cross)(x, gx, blk);
    FRICL_REAL mpp;
    moll = FRICL_FN(bar_ee_mollify)(xm, eps_x, &m, &mp, &mpp);
  }
  FRICL_REAL c[4] = {0, 0, 0, 0}, r[3] = {0, 0, 0}, gd[12];
  const FRICL_REAL d2 =
      FRICL_FN(bar_dist_vector)(type, dim, x, pn, pc, dtype, c, r);
  for (int i = 0; i < k; ++i)
    for (int s = 0; s < dim; ++s)
      gd[i * dim + s] = FRICL_R(2) * (c[i] * r[s]);
  FRICL_REAL fv[3];
  FRICL_FN(bar_normal_fn)(fn, d2, dmin, dhat, kappa, physical, adh, fv);
  const FRICL_REAL f = fv[0], fp = fv[1];
  const FRICL_REAL B = w * m * f;
  FRICL_FN(bar_gradient)(ndof, moll, w, m, mp, f, fp, gx, gd, g);
  return B;
}

#ifdef FRICL_BARRIER_FORCE_MAGNITUDE
/*
 * The extras of one contact (docs/barrier.md, section 14), for the
 * feature and the function of barrier_contact: into out[0] the force
 * magnitude N (fn 0: -kappa b' 2 d of fricl_geometry_math.h's
 * barrier_force, ipctk's barrier_force_magnitude; fn 1: kappa 2 a2 (xp -
 * xa), constant), out[1 .. ndof] its gradient dN/d(d^2) grad d^2 (0 for
 * fn 1), out[13 .. 13 + ndof) the diagonal of the Gauss-Newton Hessian
 *   w [4 f'' (c_i r_s)^2 + 2 f' c_i^2]
 * and out[25] its quadratic form p^T H_GN p = w [4 f'' (P.r)^2 + 2 f'
 * |P|^2], P = sum_i c_i p_i (p: the stencil's part of the direction, or
 * NULL: 0); force 0 leaves N and its gradient 0 (not computed). The
 * Gauss-Newton terms are ipctk's: without the mollifier,
 * weight w as given; for PV the distance vector's Jacobian is the
 * plane's projector n n^T / |n|^2 (ipctk 1.6.1 takes r = x there, which
 * ignores the plane). Returns d^2.
 */
FRICL_INLINE FRICL_REAL FRICL_FN(barrier_contact_extras)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *pn, FRICL_REAL pc,
    int dtype, FRICL_REAL dhat, FRICL_REAL kappa, FRICL_REAL dmin, FRICL_REAL w,
    int physical, int fn, const FRICL_REAL *adh, const FRICL_REAL *p, int force,
    FRICL_REAL *out) {
  const int k = type == FRICL_D_VV   ? 2
                : type == FRICL_D_EV ? 3
                : type == FRICL_D_PV ? 1
                                     : 4;
  FRICL_REAL c[4] = {0, 0, 0, 0}, r[3] = {0, 0, 0};
  const FRICL_REAL d2 =
      FRICL_FN(bar_dist_vector)(type, dim, x, pn, pc, dtype, c, r);
  FRICL_REAL fv[3];
  FRICL_FN(bar_normal_fn)(fn, d2, dmin, dhat, kappa, physical, adh, fv);
  FRICL_REAL N = FRICL_R(0), dN = FRICL_R(0);
  if (!force) {
    /* N and its gradient not wanted: left 0 */
  } else if (fn == FRICL_NF_ADHESION) {
    FRICL_REAL xp, xa, a2;
    FRICL_FN(normal_adhesion_args)
    (dmin, adh[0], adh[1], adh[2], adh[3], &xp, &xa, &a2);
    N = kappa * FRICL_FN(max_normal_adhesion_force_magnitude)(xp, xa, a2);
  } else {
    int region;
    N = FRICL_FN(barrier_force)(d2, dmin, dhat, kappa, physical, &dN, &region);
  }
  out[0] = N;
  const FRICL_REAL s1 = w * FRICL_R(4) * fv[2], s2 = w * FRICL_R(2) * fv[1];
  FRICL_REAL P[3] = {0, 0, 0};
  if (type == FRICL_D_PV) {
    /* r = (n.x + c) n / |n|^2: dr/dx = n n^T / |n|^2 (the plane is fixed) */
    const FRICL_REAL nn = FRICL_FN(g_dot)(pn, pn, dim);
    const FRICL_REAL pq = p ? FRICL_FN(g_dot)(pn, p, dim) / nn : FRICL_R(0);
    for (int s = 0; s < dim; ++s) {
      out[1 + s] = dN * (FRICL_R(2) * r[s]);
      out[13 + s] = s1 * (r[s] * r[s]) + s2 * (pn[s] * pn[s] / nn);
      P[s] = pq * pn[s];
    }
  } else {
    for (int i = 0; i < k; ++i)
      for (int s = 0; s < dim; ++s) {
        const FRICL_REAL cr = c[i] * r[s];
        out[1 + i * dim + s] = dN * (FRICL_R(2) * cr);
        out[13 + i * dim + s] = s1 * (cr * cr) + s2 * (c[i] * c[i]);
        if (p)
          P[s] += c[i] * p[i * dim + s];
      }
  }
  const FRICL_REAL pr = FRICL_FN(g_dot)(P, r, dim);
  const FRICL_REAL pp = FRICL_FN(g_dot)(P, P, dim);
  out[25] = w * (FRICL_R(4) * fv[2] * (pr * pr) + FRICL_R(2) * fv[1] * pp);
  return d2;
}

/*
 * The contact's part of the shape derivative (docs/barrier.md, section
 * 14) without the weight's: S (ndof x ndof, row-major) = the unprojected
 * local Hessian, and for a mollified EE contact (x_m < eps_x) ipctk
 * 1.6.1's form, in which eps_x depends on the rest positions xr:
 *   S = H - w f m'' gx gx^T + w f (dm'/deps) ge gx^T
 *       + (dm/deps) ge (w f' gd)^T
 * (gx = grad x_m, ge = grad eps_x at rest, gd = grad d^2; m = (2 - t) t,
 * t = x_m / eps_x); g the local gradient. work: 2 * 144 reals. Returns
 * B.
 */
FRICL_INLINE FRICL_REAL FRICL_FN(barrier_contact_shape)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *xr,
    const FRICL_REAL *pn, FRICL_REAL pc, int dtype, FRICL_REAL dhat,
    FRICL_REAL kappa, FRICL_REAL dmin, FRICL_REAL w, int physical, int fn,
    const FRICL_REAL *adh, FRICL_REAL *g, FRICL_REAL *S, FRICL_REAL *work) {
  const FRICL_REAL B =
      FRICL_FN(barrier_contact)(type, dim, x, xr, pn, pc, dtype, dhat, kappa,
                                dmin, w, physical, fn, adh, 0, 2, g, S, work);
  if (type != FRICL_D_EE)
    return B;
  FRICL_REAL ra[3], rb[3], gx[12], blk[27];
  FRICL_FN(g_sub)(xr + 3, xr, ra, 3);
  FRICL_FN(g_sub)(xr + 9, xr + 6, rb, 3);
  const FRICL_REAL la = FRICL_FN(g_dot)(ra, ra, 3);
  const FRICL_REAL lb = FRICL_FN(g_dot)(rb, rb, 3);
  const FRICL_REAL eps = FRICL_R(1) / FRICL_R(1000) * la * lb;
  const FRICL_REAL xm = FRICL_FN(bar_ee_cross)(x, gx, blk);
  if (!(xm < eps))
    return B;
  /* grad eps_x at rest: 1e-3 (2 ea |eb|^2 on a, 2 eb |ea|^2 on b) */
  FRICL_REAL ge[12];
  const FRICL_REAL ca = FRICL_R(2) / FRICL_R(1000) * lb;
  const FRICL_REAL cb = FRICL_R(2) / FRICL_R(1000) * la;
  for (int s = 0; s < 3; ++s) {
    ge[s] = -ca * ra[s];
    ge[3 + s] = ca * ra[s];
    ge[6 + s] = -cb * rb[s];
    ge[9 + s] = cb * rb[s];
  }
  FRICL_REAL gd[12], bas[FRICL_DIST_BAS], gr[FRICL_DIST_NB] = {0, 0, 0, 0, 0},
                                          Hr[FRICL_DIST_NB * FRICL_DIST_NB];
  const FRICL_REAL d2 = FRICL_FN(dist_contact)(type, dim, x, pn, pc, dtype, gd,
                                               0, 0, bas, gr, Hr);
  FRICL_REAL fv[3];
  FRICL_FN(bar_normal_fn)(fn, d2, dmin, dhat, kappa, physical, adh, fv);
  const FRICL_REAL wf = w * fv[0], wfp = w * fv[1];
  const FRICL_REAL ie = FRICL_R(1) / eps;
  const FRICL_REAL mpp = -FRICL_R(2) * ie * ie;
  const FRICL_REAL dm_de = FRICL_R(2) * xm * ie * ie * (xm * ie - FRICL_R(1));
  const FRICL_REAL dmp_de =
      -FRICL_R(2) * ie * ie + FRICL_R(4) * xm * ie * ie * ie;
  for (int u = 0; u < 12; ++u)
    for (int v = 0; v < 12; ++v)
      S[u * 12 + v] += -wf * mpp * gx[u] * gx[v] + wf * dmp_de * ge[u] * gx[v] +
                       dm_de * ge[u] * (wfp * gd[v]);
  return B;
}
#endif
