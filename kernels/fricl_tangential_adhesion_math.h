/*
 * fricl_tangential_adhesion_math.h - the tangential adhesion mollifier
 * family of IPC Toolkit 1.6.1 (Fang, Li et al. 2023): the mollifier a0, a1,
 * a2, a1/x, (a2 x - a1)/x^3 on [0, 2 eps_a] and its smooth-mu forms
 * (docs/ipc-friction.md section 4.11), and the per-contact scalars the
 * tangential potential takes from it.
 *
 * Shared by the kernels and the C backends like fricl_scalar_math.h, after
 * which it is included (it uses smooth_mu, smooth_mu_derivative and the
 * friction forms, which equal the adhesion ones on 0 < y < eps_a). No
 * include guard, for the same reason as that header.
 *
 * The mollifier, with r = y / e (e = eps_a):
 *   a1 = r (2 - r)        on 0 < y < 2e, 0 elsewhere (the friction f1 on
 *                         [0, e), then back down to 0 at 2e);
 *   a0 = integral_0^y a1 = e r^2 (1 - r/3) on [0, 2e], 4e/3 beyond, 0 for
 *        y <= 0;
 *   a2 = a1' = 2 (1 - r) / e, a1/x = (2 - r) / e, both 0 outside (0, 2e);
 *   (a2 y - a1) / y^3 = -1 / (y e^2) below 2e, 0 from 2e on.
 * The smooth-mu forms weight a1 with the smooth static->kinetic mu of the
 * profile on [0, e) (mk from e on): A0 = integral_0^y mu a1, which beyond
 * e is mk a0(y) - c e (mk - ms) with c = 11/48 (ipctk profile) or 7/30
 * (cubic), the constant that makes A0 continuous at e.
 *
 * The values at y <= 0 are ipctk's (0, not the limits from the right):
 * speeds are norms, and only the scalar family ever sees y < 0.
 */

/* The family codes: the values of fricl_mollifier (FRICL_MOLLIFIER_MAP,
 * checked against it in src/api/tangential.c). */
#ifndef FRICL_T_MOLLIFIER_FRICTION
#define FRICL_T_MOLLIFIER_FRICTION 0
#define FRICL_T_MOLLIFIER_ADHESION 1
#endif

/* a0 = e r^2 (1 - r/3) on (0, 2e), 4e/3 from 2e on, 0 at y <= 0. */
FRICL_INLINE FRICL_REAL FRICL_FN(tangential_adhesion_f0)(FRICL_REAL y,
                                                         FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  const FRICL_REAL in = e * (r * r) * (FRICL_R(1) - r * FRICL_THIRD);
  const FRICL_REAL top = FRICL_R(4) * FRICL_THIRD * e;
  return y <= FRICL_R(0) ? FRICL_R(0) : (y >= FRICL_R(2) * e ? top : in);
}

/* 1 where the mollifier's derivatives are not identically 0: 0 < y < 2e. */
FRICL_INLINE int FRICL_FN(adhesion_inside)(FRICL_REAL y, FRICL_REAL e) {
  return (y > FRICL_R(0)) & (y < FRICL_R(2) * e);
}

/* a1 = r (2 - r) on (0, 2e), 0 elsewhere. */
FRICL_INLINE FRICL_REAL FRICL_FN(tangential_adhesion_f1)(FRICL_REAL y,
                                                         FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  const FRICL_REAL in = r * (FRICL_R(2) - r);
  return FRICL_FN(adhesion_inside)(y, e) ? in : FRICL_R(0);
}

/* a2 = 2 (1 - r) / e on (0, 2e), 0 elsewhere. */
FRICL_INLINE FRICL_REAL FRICL_FN(tangential_adhesion_f2)(FRICL_REAL y,
                                                         FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  const FRICL_REAL in = FRICL_R(2) * (FRICL_R(1) - r) / e;
  return FRICL_FN(adhesion_inside)(y, e) ? in : FRICL_R(0);
}

/* a1 / y = (2 - r) / e on (0, 2e), 0 elsewhere. */
FRICL_INLINE FRICL_REAL FRICL_FN(tangential_adhesion_f1_over_x)(FRICL_REAL y,
                                                                FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  const FRICL_REAL in = (FRICL_R(2) - r) / e;
  return FRICL_FN(adhesion_inside)(y, e) ? in : FRICL_R(0);
}

/* (a2 y - a1) / y^3 = -1 / (y e^2) below 2e (-inf at +0, the formula's
 * value at y < 0), 0 from 2e on. Divided step by step as scaled_f2x. */
FRICL_INLINE FRICL_REAL FRICL_FN(tangential_adhesion_f2_x_minus_f1_over_x3)(
    FRICL_REAL y, FRICL_REAL e) {
  const FRICL_REAL chain = ((-FRICL_R(1) / e) / e) / y;
  const FRICL_REAL at_zero = -FRICL_R(1) / y;
  const FRICL_REAL in = y == FRICL_R(0) ? at_zero : chain;
  return y >= FRICL_R(2) * e ? FRICL_R(0) : in;
}

/* ------------------------------------------------------------- smooth mu */

/*
 * A0 = integral_0^y mu a1 (smooth_mu_a0). Inside (0 < y < e, ms != mk),
 * with d = mk - ms:
 *   ipctk, y < e/2   e r^2 [ms (1 - r/3) + d r^2 (1 - 2r/5)]
 *   ipctk, y >= e/2  e r^2 [(2 ms - mk) + r (3 mk - 10 ms / 3)
 *                          + d r^2 (2r/5 - 2)] + 3 e d / 80
 *   cubic            e r^2 [ms (1 - r/3) + d r^2 (3/2 - 7r/5 + r^2/3)]
 * (the integrals of (ms + 2 d s^2), (mk - 2 d (1 - s)^2) and
 * (ms + d s^2 (3 - 2s)) times s (2 - s)); mk a0(y) - c e d beyond.
 */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_a0)(FRICL_REAL y, FRICL_REAL e,
                                               FRICL_REAL ms, FRICL_REAL mk,
                                               int profile) {
  const FRICL_REAL d = mk - ms;
  const FRICL_REAL r = y / e;
  const FRICL_REAL r2 = r * r;
  const FRICL_REAL base = ms * (FRICL_R(1) - r * FRICL_THIRD);
  FRICL_REAL in, c;
  if (profile == FRICL_PROFILE_IPCTK) {
    const FRICL_REAL pa = base + d * r2 * (FRICL_R(1) - r * FRICL_TWO_FIFTHS);
    const FRICL_REAL pb =
        (FRICL_R(2) * ms - mk) +
        r * (FRICL_R(3) * mk - FRICL_R(10) * FRICL_THIRD * ms) +
        d * r2 * (r * FRICL_TWO_FIFTHS - FRICL_R(2));
    const FRICL_REAL a = e * r2 * pa;
    const FRICL_REAL b = e * r2 * pb + FRICL_R(3) / FRICL_R(80) * e * d;
    in = FRICL_FN(ipctk_region_a)(y, e) ? a : b;
    c = FRICL_R(11) / FRICL_R(48);
  } else {
    const FRICL_REAL pc =
        base + d * r2 *
                   (FRICL_R(3) / FRICL_R(2) -
                    r * (FRICL_R(7) / FRICL_R(5) - r * FRICL_THIRD));
    in = e * r2 * pc;
    c = FRICL_R(7) / FRICL_R(30);
  }
  const FRICL_REAL out =
      mk * FRICL_FN(tangential_adhesion_f0)(y, e) - c * e * d;
  const FRICL_REAL v = FRICL_FN(mu_is_constant)(y, e, ms, mk) ? out : in;
  /* ms == mk: d = 0, so the constant branch is mk a0 exactly. */
  return y <= FRICL_R(0) ? FRICL_R(0) : v;
}

/* mu a1 (smooth_mu_a1). */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_a1)(FRICL_REAL y, FRICL_REAL e,
                                               FRICL_REAL ms, FRICL_REAL mk,
                                               int profile) {
  return FRICL_FN(smooth_mu)(y, e, ms, mk, profile) *
         FRICL_FN(tangential_adhesion_f1)(y, e);
}

/* (mu a1)' = mu' a1 + mu a2 (smooth_mu_a2). */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_a2)(FRICL_REAL y, FRICL_REAL e,
                                               FRICL_REAL ms, FRICL_REAL mk,
                                               int profile) {
  return FRICL_FN(smooth_mu_derivative)(y, e, ms, mk, profile) *
             FRICL_FN(tangential_adhesion_f1)(y, e) +
         FRICL_FN(smooth_mu)(y, e, ms, mk, profile) *
             FRICL_FN(tangential_adhesion_f2)(y, e);
}

/* mu a1 / y (smooth_mu_a1_over_x). */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_a1_over_x)(
    FRICL_REAL y, FRICL_REAL e, FRICL_REAL ms, FRICL_REAL mk, int profile) {
  return FRICL_FN(smooth_mu)(y, e, ms, mk, profile) *
         FRICL_FN(tangential_adhesion_f1_over_x)(y, e);
}

/* [(mu a1)' y - mu a1] / y^3 (smooth_mu_a2_x_minus_mu_a1_over_x3): below
 * e the friction form (a1 = f1 there), mk (a2 y - a1)/y^3 from e on or
 * when ms == mk. */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_a2_x_minus_mu_a1_over_x3)(
    FRICL_REAL y, FRICL_REAL e, FRICL_REAL ms, FRICL_REAL mk, int profile) {
  const FRICL_REAL in =
      FRICL_FN(smooth_mu_f2_x_minus_mu_f1_over_x3)(y, e, ms, mk, profile);
  const FRICL_REAL out =
      mk * FRICL_FN(tangential_adhesion_f2_x_minus_f1_over_x3)(y, e);
  return FRICL_FN(mu_is_constant)(y, e, ms, mk) ? out : in;
}

/* ------------------------------------------------- per-contact scalars */

/*
 * The three scalars of one contact of the tangential potential for a
 * mollifier family, at the speed y = |u_a| >= 0 (NaN passes through):
 * h0 (D / scale), g (q's factor: (mu f1)/y, finite at y = 0) and hp, the
 * parallel eigenvalue's factor (mu f1)'. Friction: smooth_mu_f0,
 * smooth_mu_f1_over_x, smooth_mu_f2, as before. Adhesion: smooth_mu_a0;
 * g at 0 < y < e is the friction form (equal there) so that g(0) is the
 * limit 2 ms / e, not ipctk's 0 (spec 4.11); hp is 0 for y > e, where ipctk
 * takes its dynamic branch (its parallel term is dropped there).
 */
FRICL_INLINE void FRICL_FN(mollifier_scalars)(FRICL_REAL y, FRICL_REAL e,
                                              FRICL_REAL ms, FRICL_REAL mk,
                                              int profile, int family,
                                              int want_hp, FRICL_REAL *h0,
                                              FRICL_REAL *g, FRICL_REAL *hp) {
  if (family == FRICL_T_MOLLIFIER_ADHESION) {
    *h0 = FRICL_FN(smooth_mu_a0)(y, e, ms, mk, profile);
    const FRICL_REAL gin = FRICL_FN(smooth_mu_f1_over_x)(y, e, ms, mk, profile);
    const FRICL_REAL gout = mk * FRICL_FN(tangential_adhesion_f1_over_x)(y, e);
    *g = y < e ? gin : gout;
    if (want_hp) {
      const FRICL_REAL hin = FRICL_FN(smooth_mu_f2)(y, e, ms, mk, profile);
      *hp = y > e ? FRICL_R(0) : hin;
    }
    return;
  }
  *h0 = FRICL_FN(smooth_mu_f0)(y, e, ms, mk, profile);
  *g = FRICL_FN(smooth_mu_f1_over_x)(y, e, ms, mk, profile);
  if (want_hp)
    *hp = FRICL_FN(smooth_mu_f2)(y, e, ms, mk, profile);
}
