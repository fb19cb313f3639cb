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
 * uses. Private arrays are a few dozen reals: the geometry's values are
 * computed once (with what its derivatives reuse), then the Jacobian is
 * produced one column at a time, each from a directional derivative of the
 * geometry (forward mode, exact: no finite differences), and written
 * straight to the output.
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

/* ----------------------------------------------------------- geometry */

/* u . v. */
FRICL_INLINE FRICL_REAL FRICL_FN(fv_dot)(const FRICL_REAL *u,
                                         const FRICL_REAL *v, int n) {
  FRICL_REAL s = FRICL_R(0);
  for (int i = 0; i < n; ++i)
    s += u[i] * v[i];
  return s;
}

/* The derivative of u . v along (du, dv). */
FRICL_INLINE FRICL_REAL FRICL_FN(fd_ddot)(const FRICL_REAL *u,
                                          const FRICL_REAL *du,
                                          const FRICL_REAL *v,
                                          const FRICL_REAL *dv, int n) {
  FRICL_REAL ds = FRICL_R(0);
  for (int i = 0; i < n; ++i)
    ds += du[i] * v[i] + u[i] * dv[i];
  return ds;
}

FRICL_INLINE void FRICL_FN(fv_cross)(const FRICL_REAL *u, const FRICL_REAL *v,
                                     FRICL_REAL *w) {
  w[0] = u[1] * v[2] - u[2] * v[1];
  w[1] = u[2] * v[0] - u[0] * v[2];
  w[2] = u[0] * v[1] - u[1] * v[0];
}

FRICL_INLINE void FRICL_FN(fd_dcross)(const FRICL_REAL *u, const FRICL_REAL *du,
                                      const FRICL_REAL *v, const FRICL_REAL *dv,
                                      FRICL_REAL *dw) {
  dw[0] = du[1] * v[2] + u[1] * dv[2] - du[2] * v[1] - u[2] * dv[1];
  dw[1] = du[2] * v[0] + u[2] * dv[0] - du[0] * v[2] - u[0] * dv[2];
  dw[2] = du[0] * v[1] + u[0] * dv[1] - du[1] * v[0] - u[1] * dv[0];
}

/* Column col of dP, the derivative of u / |u| (n = |u|, P's column h):
 * (du - h (h . du)) / |u|, h . du = d|u|^2 / 2n. */
FRICL_INLINE void FRICL_FN(fd_dset_col)(const FRICL_REAL *P, FRICL_REAL *dP,
                                        int dim, int col, const FRICL_REAL *u,
                                        const FRICL_REAL *du, FRICL_REAL n) {
  const int m = dim - 1;
  const FRICL_REAL dn2 = FRICL_FN(fd_ddot)(u, du, u, du, dim);
  const FRICL_REAL hdu = dn2 / (FRICL_R(2) * n);
  for (int r = 0; r < dim; ++r)
    dP[r * m + col] = (du[r] - P[r * m + col] * hdu) / n;
}

/* u / v and its derivative. */
FRICL_INLINE FRICL_REAL FRICL_FN(fd_quot)(FRICL_REAL u, FRICL_REAL du,
                                          FRICL_REAL v, FRICL_REAL dv,
                                          FRICL_REAL *d) {
  const FRICL_REAL q = u / v;
  *d = (du - q * dv) / v;
  return q;
}

/* What the derivatives of one contact's geometry reuse of its values. */
typedef struct FRICL_FN(fgeo) {
  FRICL_REAL a[3], b[3], c[3], t[3], w[3];
  FRICL_REAL ee, qe, cc, cr;          /* EV */
  FRICL_REAL nn, A, B, C, wa, wb, wn; /* EE, FV (nn also PV) */
  FRICL_REAL n0, n1;                  /* EE, FV: beta's numerators */
  FRICL_REAL s;                       /* PV: the signed plane offset */
  FRICL_REAL n[2];                    /* the norms behind P's columns */
  int use_x;                          /* VV 3-D: c = e_x x a */
} FRICL_FN(fgeo);

/*
 * The geometry of one contact at x (k dim reals, stencil order): the
 * squared distance as classified d2, the closest point beta (nb,
 * unclamped) and the tangent basis P (dim x m, row-major); S keeps what
 * force_geometry_dir reuses. pn, pc: the PV plane (fixed).
 */
FRICL_INLINE void FRICL_FN(force_geometry)(int type, int dim,
                                           const FRICL_REAL *x,
                                           const FRICL_REAL *pn, FRICL_REAL pc,
                                           FRICL_REAL *d2, FRICL_REAL *beta,
                                           FRICL_REAL *P, FRICL_FN(fgeo) * S) {
  const FRICL_REAL zero = FRICL_R(0);
  for (int r = 0; r < 3; ++r)
    S->a[r] = S->b[r] = S->c[r] = S->t[r] = S->w[r] = zero;
  if (type == FRICL_B_VV) {
    /* a = v1 - v0 (the basis), d2 = |a|^2. */
    for (int r = 0; r < dim; ++r)
      S->a[r] = x[dim + r] - x[r];
    *d2 = FRICL_FN(fv_dot)(S->a, S->a, dim);
    if (dim == 2) {
      const FRICL_REAL n = FRICL_SQRT(FRICL_FN(fv_dot)(S->a, S->a, 2));
      S->n[0] = n;
      P[0] = -(S->a[1] / n);
      P[1] = S->a[0] / n;
    } else {
      /* c = e_x x a or e_y x a (the larger, by value), t = a x c. */
      const FRICL_REAL *a = S->a;
      const FRICL_REAL cx[3] = {zero, -a[2], a[1]};
      const FRICL_REAL cy[3] = {a[2], zero, -a[0]};
      S->use_x = FRICL_FN(g_dot)(cx, cx, 3) > FRICL_FN(g_dot)(cy, cy, 3);
      if (S->use_x) {
        S->c[1] = -a[2];
        S->c[2] = a[1];
      } else {
        S->c[0] = a[2];
        S->c[2] = -a[0];
      }
      FRICL_FN(fv_cross)(S->a, S->c, S->t);
      S->n[0] = FRICL_FN(g_set_col)(P, 3, 0, S->c);
      S->n[1] = FRICL_FN(g_set_col)(P, 3, 1, S->t);
    }
    return;
  }
  if (type == FRICL_B_EV) {
    /* a = e1 - e0, b = p - e0. */
    for (int r = 0; r < dim; ++r) {
      S->a[r] = x[2 * dim + r] - x[dim + r];
      S->b[r] = x[r] - x[dim + r];
    }
    S->ee = FRICL_FN(fv_dot)(S->a, S->a, dim);
    S->qe = FRICL_FN(fv_dot)(S->b, S->a, dim);
    beta[0] = S->qe / S->ee;
    if (dim == 3) {
      FRICL_FN(fv_cross)(S->a, S->b, S->c);
      S->cc = FRICL_FN(fv_dot)(S->c, S->c, 3);
      *d2 = S->cc / S->ee;
      S->n[0] = FRICL_FN(g_set_col)(P, 3, 0, S->a);
      S->n[1] = FRICL_FN(g_set_col)(P, 3, 1, S->c);
    } else {
      S->cr = S->a[0] * S->b[1] - S->a[1] * S->b[0];
      *d2 = (S->cr * S->cr) / S->ee;
      const FRICL_REAL n = FRICL_SQRT(S->ee);
      S->n[0] = n;
      for (int r = 0; r < 2; ++r)
        P[r] = S->a[r] / n;
    }
    return;
  }
  if (type == FRICL_B_EE || type == FRICL_B_FV) {
    /* EE: a = ea, b = eb, w = ea0 - eb0, beta from the 2x2 normal
     * equations. FV: a = E0, b = E1, w = p - t0. c = a x b in both. */
    for (int r = 0; r < 3; ++r) {
      if (type == FRICL_B_EE) {
        S->a[r] = x[3 + r] - x[r];
        S->b[r] = x[9 + r] - x[6 + r];
        S->w[r] = x[r] - x[6 + r];
      } else {
        S->a[r] = x[6 + r] - x[3 + r];
        S->b[r] = x[9 + r] - x[3 + r];
        S->w[r] = x[r] - x[3 + r];
      }
    }
    FRICL_FN(fv_cross)(S->a, S->b, S->c);
    S->nn = FRICL_FN(fv_dot)(S->c, S->c, 3);
    S->A = FRICL_FN(fv_dot)(S->a, S->a, 3);
    S->B = FRICL_FN(fv_dot)(S->a, S->b, 3);
    S->C = FRICL_FN(fv_dot)(S->b, S->b, 3);
    S->wa = FRICL_FN(fv_dot)(S->w, S->a, 3);
    S->wb = FRICL_FN(fv_dot)(S->w, S->b, 3);
    S->wn = FRICL_FN(fv_dot)(S->w, S->c, 3);
    if (type == FRICL_B_EE)
      S->n0 = S->B * S->wb - S->C * S->wa;
    else
      S->n0 = S->C * S->wa - S->B * S->wb;
    S->n1 = S->A * S->wb - S->B * S->wa;
    beta[0] = S->n0 / S->nn;
    beta[1] = S->n1 / S->nn;
    *d2 = (S->wn * S->wn) / S->nn;
    FRICL_FN(fv_cross)(S->c, S->a, S->t);
    S->n[0] = FRICL_FN(g_set_col)(P, 3, 0, S->a);
    S->n[1] = FRICL_FN(g_set_col)(P, 3, 1, S->t);
    return;
  }
  /* PV: the plane is fixed; P depends on it only. */
  S->s = FRICL_FN(fv_dot)(pn, x, dim) + pc;
  S->nn = FRICL_FN(g_dot)(pn, pn, dim);
  *d2 = S->s * S->s / S->nn;
  if (dim == 3)
    FRICL_FN(g_vv_basis3)(pn, P);
  else
    FRICL_FN(g_perp_basis2)(pn, P);
}

/*
 * The derivative along dx of force_geometry's d2, beta and P (dd2,
 * dbeta, dP), from its values S and P (forward mode, exact).
 */
FRICL_INLINE void FRICL_FN(force_geometry_dir)(
    int type, int dim, const FRICL_FN(fgeo) * S, const FRICL_REAL *x,
    const FRICL_REAL *dx, const FRICL_REAL *pn, const FRICL_REAL *P,
    FRICL_REAL *dd2, FRICL_REAL *dbeta, FRICL_REAL *dP) {
  const FRICL_REAL zero = FRICL_R(0);
  FRICL_REAL da[3] = {0, 0, 0}, db[3] = {0, 0, 0};
  FRICL_REAL dc[3] = {0, 0, 0}, dt[3] = {0, 0, 0};
  if (type == FRICL_B_VV) {
    for (int r = 0; r < dim; ++r)
      da[r] = dx[dim + r] - dx[r];
    *dd2 = FRICL_FN(fd_ddot)(S->a, da, S->a, da, dim);
    if (dim == 2) {
      const FRICL_REAL n = S->n[0];
      const FRICL_REAL hdu = *dd2 / (FRICL_R(2) * n);
      const FRICL_REAL h0 = P[1], h1 = -P[0];
      dP[0] = -(da[1] - h1 * hdu) / n;
      dP[1] = (da[0] - h0 * hdu) / n;
    } else {
      if (S->use_x) {
        dc[1] = -da[2];
        dc[2] = da[1];
      } else {
        dc[0] = da[2];
        dc[2] = -da[0];
      }
      FRICL_FN(fd_dcross)(S->a, da, S->c, dc, dt);
      FRICL_FN(fd_dset_col)(P, dP, 3, 0, S->c, dc, S->n[0]);
      FRICL_FN(fd_dset_col)(P, dP, 3, 1, S->t, dt, S->n[1]);
    }
    return;
  }
  if (type == FRICL_B_EV) {
    for (int r = 0; r < dim; ++r) {
      da[r] = dx[2 * dim + r] - dx[dim + r];
      db[r] = dx[r] - dx[dim + r];
    }
    const FRICL_REAL dee = FRICL_FN(fd_ddot)(S->a, da, S->a, da, dim);
    const FRICL_REAL dqe = FRICL_FN(fd_ddot)(S->b, db, S->a, da, dim);
    FRICL_FN(fd_quot)(S->qe, dqe, S->ee, dee, &dbeta[0]);
    if (dim == 3) {
      FRICL_FN(fd_dcross)(S->a, da, S->b, db, dc);
      const FRICL_REAL dcc = FRICL_FN(fd_ddot)(S->c, dc, S->c, dc, 3);
      FRICL_FN(fd_quot)(S->cc, dcc, S->ee, dee, dd2);
      FRICL_FN(fd_dset_col)(P, dP, 3, 0, S->a, da, S->n[0]);
      FRICL_FN(fd_dset_col)(P, dP, 3, 1, S->c, dc, S->n[1]);
    } else {
      const FRICL_REAL *a = S->a, *b = S->b;
      const FRICL_REAL cr = S->cr;
      const FRICL_REAL dcr =
          da[0] * b[1] + a[0] * db[1] - da[1] * b[0] - a[1] * db[0];
      FRICL_FN(fd_quot)(cr * cr, FRICL_R(2) * cr * dcr, S->ee, dee, dd2);
      const FRICL_REAL n = S->n[0];
      const FRICL_REAL hdu = dee / (FRICL_R(2) * n);
      for (int r = 0; r < 2; ++r)
        dP[r] = (da[r] - P[r] * hdu) / n;
    }
    return;
  }
  if (type == FRICL_B_EE || type == FRICL_B_FV) {
    FRICL_REAL dw[3];
    for (int r = 0; r < 3; ++r) {
      if (type == FRICL_B_EE) {
        da[r] = dx[3 + r] - dx[r];
        db[r] = dx[9 + r] - dx[6 + r];
        dw[r] = dx[r] - dx[6 + r];
      } else {
        da[r] = dx[6 + r] - dx[3 + r];
        db[r] = dx[9 + r] - dx[3 + r];
        dw[r] = dx[r] - dx[3 + r];
      }
    }
    const FRICL_REAL *a = S->a, *b = S->b, *w = S->w, *c = S->c;
    FRICL_FN(fd_dcross)(a, da, b, db, dc);
    const FRICL_REAL dnn = FRICL_FN(fd_ddot)(c, dc, c, dc, 3);
    const FRICL_REAL dA = FRICL_FN(fd_ddot)(a, da, a, da, 3);
    const FRICL_REAL dB = FRICL_FN(fd_ddot)(a, da, b, db, 3);
    const FRICL_REAL dC = FRICL_FN(fd_ddot)(b, db, b, db, 3);
    const FRICL_REAL dwa = FRICL_FN(fd_ddot)(w, dw, a, da, 3);
    const FRICL_REAL dwb = FRICL_FN(fd_ddot)(w, dw, b, db, 3);
    const FRICL_REAL dwn = FRICL_FN(fd_ddot)(w, dw, c, dc, 3);
    const FRICL_REAL A = S->A, B = S->B, C = S->C;
    const FRICL_REAL wa = S->wa, wb = S->wb, wn = S->wn;
    FRICL_REAL dn0, dn1;
    if (type == FRICL_B_EE) {
      dn0 = dB * wb + B * dwb - dC * wa - C * dwa;
      dn1 = dA * wb + A * dwb - dB * wa - B * dwa;
    } else {
      dn0 = dC * wa + C * dwa - dB * wb - B * dwb;
      dn1 = dA * wb + A * dwb - dB * wa - B * dwa;
    }
    FRICL_FN(fd_quot)(S->n0, dn0, S->nn, dnn, &dbeta[0]);
    FRICL_FN(fd_quot)(S->n1, dn1, S->nn, dnn, &dbeta[1]);
    FRICL_FN(fd_quot)(wn * wn, FRICL_R(2) * wn * dwn, S->nn, dnn, dd2);
    FRICL_FN(fd_dcross)(c, dc, a, da, dt);
    FRICL_FN(fd_dset_col)(P, dP, 3, 0, a, da, S->n[0]);
    FRICL_FN(fd_dset_col)(P, dP, 3, 1, S->t, dt, S->n[1]);
    return;
  }
  /* PV: d s = pn . dx (beside 0 . x, as the dual product forms it). */
  FRICL_REAL ds = zero;
  for (int i = 0; i < dim; ++i)
    ds += zero * x[i] + pn[i] * dx[i];
  *dd2 = FRICL_R(2) * S->s * ds / S->nn;
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
  FRICL_REAL d2, dd2, beta[2] = {0, 0}, dbeta[2] = {0, 0};
  FRICL_REAL P[6] = {0, 0, 0, 0, 0, 0}, dP[6] = {0, 0, 0, 0, 0, 0};
  FRICL_FN(fgeo) S;
  FRICL_FN(force_geometry)(type, dim, x, pn, pc, &d2, beta, P, &S);
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
  FRICL_REAL dx[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
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
      FRICL_FN(force_geometry_dir)
      (type, dim, &S, x, dx, pn, P, &dd2, dbeta, dP);
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
