/*
 * fricl_adhesion_math.h - the normal adhesion potential of Fang, Li et al.
 * (2023) as ipctk 1.6.1 ships it (NormalAdhesionPotential and the free
 * functions normal_adhesion_potential, _first_derivative,
 * _second_derivative, max_normal_adhesion_force_magnitude): a C^1,
 * piecewise quadratic function of x = d^2 - dmin^2 with its first and
 * second derivatives (docs/barrier.md, section 13).
 *
 *   a(x) = a1 x^2 + c1              0 <= x < xp  (and below 0, extended)
 *        = a2 (x - xa)^2            xp <= x < xa
 *        = 0                        xa <= x
 *   a1 = a2 (1 - xa / xp),  c1 = a2 (xa - xp)^2 - xp^2 a1,
 *
 * with, for the parameters (dhat_p, dhat_a, Y, eps_c) and a contact's
 * dmin: xp = 2 dmin dhat_p + dhat_p^2, xa = 2 dmin dhat_a + dhat_a^2,
 * a2 = Y eps_c / (4 (dhat_p + dmin) (xp - xa)) (< 0 for 0 < dhat_p <
 * dhat_a, Y eps_c > 0). Its largest attraction is at x = xp: the force
 * magnitude of a contact, 2 a2 (xp - xa) > 0, independent of the
 * positions.
 *
 * One source for the C backends (once per precision) and OpenCL C: the
 * includer defines FRICL_REAL and FRICL_FN (fricl_cl_compat.h); no include
 * guard for the functions. Used by the normal-contact barrier's adhesion
 * function (fricl_barrier_math.h) and by anything that needs the normal
 * adhesion force magnitude (tangential adhesion's lagged build).
 */

/* xp, xa and a2 of a contact with offset dmin. */
FRICL_INLINE void FRICL_FN(normal_adhesion_args)(
    FRICL_REAL dmin, FRICL_REAL dhat_p, FRICL_REAL dhat_a, FRICL_REAL Y,
    FRICL_REAL eps_c, FRICL_REAL *xp, FRICL_REAL *xa, FRICL_REAL *a2) {
  const FRICL_REAL two = FRICL_R(2);
  *xp = two * dmin * dhat_p + dhat_p * dhat_p;
  *xa = two * dmin * dhat_a + dhat_a * dhat_a;
  *a2 = Y * eps_c / (FRICL_R(4) * (dhat_p + dmin) * (*xp - *xa));
}

/* a(x) (ipctk's normal_adhesion_potential(x, xp, xa, a2)). */
FRICL_INLINE FRICL_REAL FRICL_FN(normal_adhesion_potential)(FRICL_REAL x,
                                                            FRICL_REAL xp,
                                                            FRICL_REAL xa,
                                                            FRICL_REAL a2) {
  if (x < xp) {
    const FRICL_REAL a1 = a2 * (FRICL_R(1) - xa / xp);
    const FRICL_REAL c1 = a2 * (xa - xp) * (xa - xp) - xp * xp * a1;
    return a1 * x * x + c1;
  }
  if (x < xa)
    return (a2 * x + (-FRICL_R(2) * a2 * xa)) * x + a2 * xa * xa;
  return FRICL_R(0);
}

/* a'(x). */
FRICL_INLINE FRICL_REAL FRICL_FN(normal_adhesion_potential_first_derivative)(
    FRICL_REAL x, FRICL_REAL xp, FRICL_REAL xa, FRICL_REAL a2) {
  if (x < xp)
    return FRICL_R(2) * (a2 * (FRICL_R(1) - xa / xp)) * x;
  if (x < xa)
    return FRICL_R(2) * a2 * (x - xa);
  return FRICL_R(0);
}

/* a''(x). */
FRICL_INLINE FRICL_REAL FRICL_FN(normal_adhesion_potential_second_derivative)(
    FRICL_REAL x, FRICL_REAL xp, FRICL_REAL xa, FRICL_REAL a2) {
  if (x < xp)
    return FRICL_R(2) * (a2 * (FRICL_R(1) - xa / xp));
  if (x < xa)
    return FRICL_R(2) * a2;
  return FRICL_R(0);
}

/* The largest attraction, a'(xp) in magnitude: 2 a2 (xp - xa). */
FRICL_INLINE FRICL_REAL FRICL_FN(max_normal_adhesion_force_magnitude)(
    FRICL_REAL xp, FRICL_REAL xa, FRICL_REAL a2) {
  return FRICL_R(2) * a2 * (xp - xa);
}
