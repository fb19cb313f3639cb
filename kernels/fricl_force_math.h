/*
 * fricl_force_math.h - one contact of the friction force F = -w N(x) mu
 * f1(|ta|)/|ta| T(x) ta and its Jacobians with respect to the lagged
 * positions x = rest + lagged displacement and the velocities v
 * (docs/ipc-friction.md section 5.9), with N(x) the clamped-log barrier's
 * normal force, P(x) the tangent basis, beta(x) the closest point and
 * T = Gamma(beta)^T P all recomputed at x, and ta = a (.) (T^T v).
 *
 * Shared by the host pass (src/core/force_pass.c, once per precision) and
 * meant for a kernel; no include guard (see fricl_cl_compat.h). Included
 * after fricl_scalar_math.h, fricl_distance_math.h,
 * fricl_tangential_math.h and fricl_geometry_math.h, whose functions it
 * uses. Private arrays are a few dozen reals: the Jacobian is produced one
 * column at a time, each from a directional derivative of the geometry
 * (forward mode, exact: no finite differences), and written straight to
 * the output.
 *
 * The distance is that of the contact as classified, as ipctk's tangential
 * collisions evaluate it: VV point-point, EV point-line, EE line-line, FV
 * point-plane, PV point-plane.
 */

/* The address space of the Jacobian output: a kernel writes it straight
 * to global memory (it defines FRICL_FORCE_OUT as __global); C has one. */
#ifndef FRICL_FORCE_OUT
#define FRICL_FORCE_OUT
#endif

/* ------------------------------------------------------- dual helpers */

/* (u, du) . (v, dv) -> value and derivative. */
FRICL_INLINE FRICL_REAL FRICL_FN(fd_dot)(const FRICL_REAL *u,
                                         const FRICL_REAL *du,
                                         const FRICL_REAL *v,
                                         const FRICL_REAL *dv, int n,
                                         FRICL_REAL *d) {
  FRICL_REAL s = FRICL_R(0), ds = FRICL_R(0);
  for (int i = 0; i < n; ++i) {
    s += u[i] * v[i];
    ds += du[i] * v[i] + u[i] * dv[i];
  }
  *d = ds;
  return s;
}

FRICL_INLINE void FRICL_FN(fd_cross)(const FRICL_REAL *u, const FRICL_REAL *du,
                                     const FRICL_REAL *v, const FRICL_REAL *dv,
                                     FRICL_REAL *w, FRICL_REAL *dw) {
  w[0] = u[1] * v[2] - u[2] * v[1];
  w[1] = u[2] * v[0] - u[0] * v[2];
  w[2] = u[0] * v[1] - u[1] * v[0];
  dw[0] = du[1] * v[2] + u[1] * dv[2] - du[2] * v[1] - u[2] * dv[1];
  dw[1] = du[2] * v[0] + u[2] * dv[0] - du[0] * v[2] - u[0] * dv[2];
  dw[2] = du[0] * v[1] + u[0] * dv[1] - du[1] * v[0] - u[1] * dv[0];
}

/* Column col of P (dim x m) and of dP = normalize(u) and its derivative. */
FRICL_INLINE void FRICL_FN(fd_set_col)(FRICL_REAL *P, FRICL_REAL *dP, int dim,
                                       int col, const FRICL_REAL *u,
                                       const FRICL_REAL *du) {
  const int m = dim - 1;
  FRICL_REAL dn2;
  const FRICL_REAL n2 = FRICL_FN(fd_dot)(u, du, u, du, dim, &dn2);
  const FRICL_REAL n = FRICL_SQRT(n2);
  /* d(u/|u|) = (du - h (h . du)) / |u|, h = u / |u|; h . du = dn2 / 2n. */
  const FRICL_REAL hdu = dn2 / (FRICL_R(2) * n);
  for (int r = 0; r < dim; ++r) {
    const FRICL_REAL h = u[r] / n;
    P[r * m + col] = h;
    dP[r * m + col] = (du[r] - h * hdu) / n;
  }
}

/* u / v and its derivative. */
FRICL_INLINE FRICL_REAL FRICL_FN(fd_quot)(FRICL_REAL u, FRICL_REAL du,
                                          FRICL_REAL v, FRICL_REAL dv,
                                          FRICL_REAL *d) {
  const FRICL_REAL q = u / v;
  *d = (du - q * dv) / v;
  return q;
}

/* ----------------------------------------------------------- geometry */

/*
 * The geometry of one contact at x (k dim reals, stencil order) and its
 * derivative along dx: the squared distance as classified (d2, dd2), the
 * closest point beta (nb, unclamped) and the tangent basis P (dim x m,
 * row-major), with their derivatives. pn, pc: the PV plane (fixed).
 */
FRICL_INLINE void FRICL_FN(force_geometry)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *dx,
    const FRICL_REAL *pn, FRICL_REAL pc, FRICL_REAL *d2, FRICL_REAL *dd2,
    FRICL_REAL *beta, FRICL_REAL *dbeta, FRICL_REAL *P, FRICL_REAL *dP) {
  const FRICL_REAL zero = FRICL_R(0);
  FRICL_REAL a[3] = {0, 0, 0}, da[3] = {0, 0, 0};
  FRICL_REAL b[3] = {0, 0, 0}, db[3] = {0, 0, 0};
  FRICL_REAL c[3] = {0, 0, 0}, dc[3] = {0, 0, 0};
  FRICL_REAL t[3] = {0, 0, 0}, dt[3] = {0, 0, 0};
  if (type == FRICL_B_VV) {
    /* a = v1 - v0 (the basis), d2 = |a|^2. */
    for (int r = 0; r < dim; ++r) {
      a[r] = x[dim + r] - x[r];
      da[r] = dx[dim + r] - dx[r];
    }
    *d2 = FRICL_FN(fd_dot)(a, da, a, da, dim, dd2);
    if (dim == 2) {
      FRICL_REAL dn2;
      const FRICL_REAL n2 = FRICL_FN(fd_dot)(a, da, a, da, 2, &dn2);
      const FRICL_REAL n = FRICL_SQRT(n2);
      const FRICL_REAL hdu = dn2 / (FRICL_R(2) * n);
      const FRICL_REAL h0 = a[0] / n, h1 = a[1] / n;
      P[0] = -h1;
      P[1] = h0;
      dP[0] = -(da[1] - h1 * hdu) / n;
      dP[1] = (da[0] - h0 * hdu) / n;
    } else {
      /* c = e_x x a or e_y x a (the larger, by value), t = a x c. */
      const FRICL_REAL cx[3] = {zero, -a[2], a[1]};
      const FRICL_REAL cy[3] = {a[2], zero, -a[0]};
      const int use_x = FRICL_FN(g_dot)(cx, cx, 3) > FRICL_FN(g_dot)(cy, cy, 3);
      if (use_x) {
        c[1] = -a[2];
        c[2] = a[1];
        dc[1] = -da[2];
        dc[2] = da[1];
      } else {
        c[0] = a[2];
        c[2] = -a[0];
        dc[0] = da[2];
        dc[2] = -da[0];
      }
      FRICL_FN(fd_cross)(a, da, c, dc, t, dt);
      FRICL_FN(fd_set_col)(P, dP, 3, 0, c, dc);
      FRICL_FN(fd_set_col)(P, dP, 3, 1, t, dt);
    }
    return;
  }
  if (type == FRICL_B_EV) {
    /* a = e1 - e0, b = p - e0. */
    for (int r = 0; r < dim; ++r) {
      a[r] = x[2 * dim + r] - x[dim + r];
      da[r] = dx[2 * dim + r] - dx[dim + r];
      b[r] = x[r] - x[dim + r];
      db[r] = dx[r] - dx[dim + r];
    }
    FRICL_REAL dee, dqe;
    const FRICL_REAL ee = FRICL_FN(fd_dot)(a, da, a, da, dim, &dee);
    const FRICL_REAL qe = FRICL_FN(fd_dot)(b, db, a, da, dim, &dqe);
    beta[0] = FRICL_FN(fd_quot)(qe, dqe, ee, dee, &dbeta[0]);
    if (dim == 3) {
      FRICL_FN(fd_cross)(a, da, b, db, c, dc);
      FRICL_REAL dcc;
      const FRICL_REAL cc = FRICL_FN(fd_dot)(c, dc, c, dc, 3, &dcc);
      *d2 = FRICL_FN(fd_quot)(cc, dcc, ee, dee, dd2);
      FRICL_FN(fd_set_col)(P, dP, 3, 0, a, da);
      FRICL_FN(fd_set_col)(P, dP, 3, 1, c, dc);
    } else {
      const FRICL_REAL cr = a[0] * b[1] - a[1] * b[0];
      const FRICL_REAL dcr =
          da[0] * b[1] + a[0] * db[1] - da[1] * b[0] - a[1] * db[0];
      *d2 = FRICL_FN(fd_quot)(cr * cr, FRICL_R(2) * cr * dcr, ee, dee, dd2);
      const FRICL_REAL n = FRICL_SQRT(ee);
      const FRICL_REAL hdu = dee / (FRICL_R(2) * n);
      for (int r = 0; r < 2; ++r) {
        P[r] = a[r] / n;
        dP[r] = (da[r] - P[r] * hdu) / n;
      }
    }
    return;
  }
  if (type == FRICL_B_EE || type == FRICL_B_FV) {
    /* EE: a = ea, b = eb, w = ea0 - eb0, beta from the 2x2 normal
     * equations. FV: a = E0, b = E1, w = p - t0. c = a x b in both. */
    FRICL_REAL w[3], dw[3];
    for (int r = 0; r < 3; ++r) {
      if (type == FRICL_B_EE) {
        a[r] = x[3 + r] - x[r];
        da[r] = dx[3 + r] - dx[r];
        b[r] = x[9 + r] - x[6 + r];
        db[r] = dx[9 + r] - dx[6 + r];
        w[r] = x[r] - x[6 + r];
        dw[r] = dx[r] - dx[6 + r];
      } else {
        a[r] = x[6 + r] - x[3 + r];
        da[r] = dx[6 + r] - dx[3 + r];
        b[r] = x[9 + r] - x[3 + r];
        db[r] = dx[9 + r] - dx[3 + r];
        w[r] = x[r] - x[3 + r];
        dw[r] = dx[r] - dx[3 + r];
      }
    }
    FRICL_FN(fd_cross)(a, da, b, db, c, dc);
    FRICL_REAL dnn, dA, dB, dC, dwa, dwb, dwn;
    const FRICL_REAL nn = FRICL_FN(fd_dot)(c, dc, c, dc, 3, &dnn);
    const FRICL_REAL A = FRICL_FN(fd_dot)(a, da, a, da, 3, &dA);
    const FRICL_REAL B = FRICL_FN(fd_dot)(a, da, b, db, 3, &dB);
    const FRICL_REAL C = FRICL_FN(fd_dot)(b, db, b, db, 3, &dC);
    const FRICL_REAL wa = FRICL_FN(fd_dot)(w, dw, a, da, 3, &dwa);
    const FRICL_REAL wb = FRICL_FN(fd_dot)(w, dw, b, db, 3, &dwb);
    const FRICL_REAL wn = FRICL_FN(fd_dot)(w, dw, c, dc, 3, &dwn);
    FRICL_REAL n0, dn0, n1, dn1;
    if (type == FRICL_B_EE) {
      n0 = B * wb - C * wa;
      dn0 = dB * wb + B * dwb - dC * wa - C * dwa;
      n1 = A * wb - B * wa;
      dn1 = dA * wb + A * dwb - dB * wa - B * dwa;
    } else {
      n0 = C * wa - B * wb;
      dn0 = dC * wa + C * dwa - dB * wb - B * dwb;
      n1 = A * wb - B * wa;
      dn1 = dA * wb + A * dwb - dB * wa - B * dwa;
    }
    beta[0] = FRICL_FN(fd_quot)(n0, dn0, nn, dnn, &dbeta[0]);
    beta[1] = FRICL_FN(fd_quot)(n1, dn1, nn, dnn, &dbeta[1]);
    *d2 = FRICL_FN(fd_quot)(wn * wn, FRICL_R(2) * wn * dwn, nn, dnn, dd2);
    FRICL_FN(fd_cross)(c, dc, a, da, t, dt);
    FRICL_FN(fd_set_col)(P, dP, 3, 0, a, da);
    FRICL_FN(fd_set_col)(P, dP, 3, 1, t, dt);
    return;
  }
  /* PV: the plane is fixed; P depends on it only. */
  FRICL_REAL ds;
  const FRICL_REAL s = FRICL_FN(fd_dot)(pn, a, x, dx, dim, &ds) + pc;
  const FRICL_REAL nn = FRICL_FN(g_dot)(pn, pn, dim);
  *d2 = s * s / nn;
  *dd2 = FRICL_R(2) * s * ds / nn;
  if (dim == 3)
    FRICL_FN(g_vv_basis3)(pn, P);
  else
    FRICL_FN(g_perp_basis2)(pn, P);
  for (int i = 0; i < dim * (dim - 1); ++i)
    dP[i] = zero;
}

/* The derivative of the Gamma coefficients along dbeta. */
FRICL_INLINE void FRICL_FN(force_dgamma)(int type, const FRICL_REAL *db,
                                         FRICL_REAL *dg) {
  const FRICL_REAL zero = FRICL_R(0);
  dg[0] = dg[1] = dg[2] = dg[3] = zero;
  if (type == FRICL_B_EV) {
    dg[1] = db[0];
    dg[2] = -db[0];
  } else if (type == FRICL_B_EE) {
    dg[0] = -db[0];
    dg[1] = db[0];
    dg[2] = db[1];
    dg[3] = -db[1];
  } else if (type == FRICL_B_FV) {
    dg[1] = db[0] + db[1];
    dg[2] = -db[0];
    dg[3] = -db[1];
  }
}

/* ------------------------------------------------------------ contact */

/* Which Jacobian force_contact writes. */
#define FRICL_FM_WRT_NONE 0
#define FRICL_FM_WRT_X 1 /* rest positions or lagged displacements */
#define FRICL_FM_WRT_V 2 /* velocities */

/*
 * One contact. x: lagged positions (rest + lagged displacement), v:
 * velocities (k dim each, stencil order); pn, pc: the PV plane; w the
 * weight, ms / mk the friction coefficients (1 and 1 for ipctk's no_mu),
 * an the anisotropy (m); e = eps_v; the barrier's kappa, dhat, dmin,
 * physical. Writes F (ndof) and, for wrt X or V, J (ndof x ndof,
 * row-major, J[r ndof + c] = dF_r / dq_c). Returns N.
 */
FRICL_INLINE FRICL_REAL FRICL_FN(force_contact)(
    int type, int dim, const FRICL_REAL *x, const FRICL_REAL *v,
    const FRICL_REAL *pn, FRICL_REAL pc, FRICL_REAL w, FRICL_REAL ms,
    FRICL_REAL mk, const FRICL_REAL *an, FRICL_REAL e, int profile,
    FRICL_REAL kappa, FRICL_REAL dhat, FRICL_REAL dmin, int physical, int wrt,
    FRICL_REAL *F, FRICL_FORCE_OUT FRICL_REAL *J) {
  const FRICL_REAL zero = FRICL_R(0);
  const int m = dim - 1;
  const int k = type == FRICL_B_VV   ? 2
                : type == FRICL_B_EV ? 3
                : type == FRICL_B_PV ? 1
                                     : 4;
  const int ndof = k * dim;
  FRICL_REAL dx[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  FRICL_REAL d2, dd2, beta[2] = {0, 0}, dbeta[2] = {0, 0};
  FRICL_REAL P[6] = {0, 0, 0, 0, 0, 0}, dP[6] = {0, 0, 0, 0, 0, 0};
  FRICL_FN(force_geometry)
  (type, dim, x, dx, pn, pc, &d2, &dd2, beta, dbeta, P, dP);
  FRICL_REAL dN_dd2;
  int region;
  const FRICL_REAL N = FRICL_FN(barrier_force)(d2, dmin, dhat, kappa, physical,
                                               &dN_dd2, &region);
  FRICL_REAL gam[4] = {0, 0, 0, 0};
  FRICL_FN(stencil_gamma)(type, beta, gam);
  /* urel = sum gamma_i v_i; tau = P^T urel; ta = a (.) tau. */
  FRICL_REAL urel[3] = {0, 0, 0}, ta[2] = {0, 0}, Pta[3] = {0, 0, 0};
  for (int i = 0; i < k; ++i)
    for (int r = 0; r < dim; ++r)
      urel[r] += gam[i] * v[i * dim + r];
  for (int cc = 0; cc < m; ++cc) {
    FRICL_REAL s = zero;
    for (int r = 0; r < dim; ++r)
      s += P[r * m + cc] * urel[r];
    ta[cc] = an[cc] * s;
  }
  const FRICL_REAL y =
      m == 1 ? FRICL_FABS(ta[0]) : FRICL_SQRT(ta[0] * ta[0] + ta[1] * ta[1]);
  const FRICL_REAL g = FRICL_FN(smooth_mu_f1_over_x)(y, e, ms, mk, profile);
  const FRICL_REAL f2 =
      ((y == zero) | (wrt == FRICL_FM_WRT_NONE))
          ? zero
          : FRICL_FN(smooth_mu_f2_x_minus_mu_f1_over_x3)(y, e, ms, mk, profile);
  /* P ta (dim): the force on vertex i is -w N g gamma_i P ta. */
  for (int r = 0; r < dim; ++r) {
    FRICL_REAL s = zero;
    for (int cc = 0; cc < m; ++cc)
      s += P[r * m + cc] * ta[cc];
    Pta[r] = s;
  }
  const FRICL_REAL sF = -w * N * g;
  for (int i = 0; i < k; ++i)
    for (int r = 0; r < dim; ++r)
      F[i * dim + r] = sF * gam[i] * Pta[r];
  if (wrt == FRICL_FM_WRT_NONE)
    return N;
  for (int j = 0; j < ndof; ++j) {
    FRICL_REAL dta[2] = {0, 0}, dPta[3] = {0, 0, 0}, dgam[4] = {0, 0, 0, 0};
    FRICL_REAL dN = zero;
    if (wrt == FRICL_FM_WRT_V) {
      /* d tau = P^T gamma_i (unit v_j). */
      const int i = j / dim, r0 = j - i * dim;
      for (int cc = 0; cc < m; ++cc)
        dta[cc] = an[cc] * gam[i] * P[r0 * m + cc];
    } else {
      dx[j] = FRICL_R(1);
      FRICL_REAL d2j, bj[2] = {0, 0}, Pj[6];
      FRICL_FN(force_geometry)
      (type, dim, x, dx, pn, pc, &d2j, &dd2, bj, dbeta, Pj, dP);
      dx[j] = zero;
      dN = dN_dd2 * dd2;
      FRICL_FN(force_dgamma)(type, dbeta, dgam);
      /* d tau = dP^T urel + P^T sum dgamma_i v_i. */
      FRICL_REAL durel[3] = {0, 0, 0};
      for (int i = 0; i < k; ++i)
        for (int r = 0; r < dim; ++r)
          durel[r] += dgam[i] * v[i * dim + r];
      for (int cc = 0; cc < m; ++cc) {
        FRICL_REAL s = zero;
        for (int r = 0; r < dim; ++r)
          s += dP[r * m + cc] * urel[r] + P[r * m + cc] * durel[r];
        dta[cc] = an[cc] * s;
      }
      for (int r = 0; r < dim; ++r) {
        FRICL_REAL s = zero;
        for (int cc = 0; cc < m; ++cc)
          s += dP[r * m + cc] * ta[cc];
        dPta[r] = s;
      }
    }
    /* dg = f2 ta . dta; dF_i = -w [(dN g + N dg) gamma_i P ta
     *   + N g (dgamma_i P ta + gamma_i dP ta + gamma_i P dta)]. */
    FRICL_REAL tdt = zero;
    for (int cc = 0; cc < m; ++cc)
      tdt += ta[cc] * dta[cc];
    const FRICL_REAL dg = f2 * tdt;
    const FRICL_REAL s1 = -w * (dN * g + N * dg);
    const FRICL_REAL s2 = -w * N * g;
    FRICL_REAL Pdta[3];
    for (int r = 0; r < dim; ++r) {
      FRICL_REAL s = zero;
      for (int cc = 0; cc < m; ++cc)
        s += P[r * m + cc] * dta[cc];
      Pdta[r] = s;
    }
    for (int i = 0; i < k; ++i)
      for (int r = 0; r < dim; ++r)
        J[(i * dim + r) * ndof + j] =
            s1 * gam[i] * Pta[r] +
            s2 * (dgam[i] * Pta[r] + gam[i] * (dPta[r] + Pdta[r]));
  }
  return N;
}
