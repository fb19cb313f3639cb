/*
 * fricl_scalar_math.h - the IPC Toolkit smooth-friction scalar family: the
 * mollifier f0, f1, f2, f1/x, (f2 x - f1)/x^3 and the smooth static->kinetic
 * mu forms, in the `cubic` and `ipctk` profiles
 * (docs/ipc-friction.md sections 2 and 3).
 *
 * One source of truth: this header is compiled into every OpenCL program
 * and, once per precision, into the C reference backend. It deliberately has
 * no include guard (see fricl_cl_compat.h for the macros the includer sets).
 *
 * Conventions that matter for bitwise behaviour:
 *  - Branch tests are exactly the spec's (|y| >= e outside; mu_s == mu_k
 *    constant; ipctk region A iff |y| < e/2), in the working precision.
 *  - Everything is written in the scaled variable r = y/e (one division),
 *    in Horner form, never as the seed's e^6/(30 e^5) antiderivative, which
 *    underflows for small e (spec 3.7).
 *  - Conditionals are plain ?: on values computed unconditionally, so that
 *    OpenCL compilers turn them into selects and vectorise the loop.
 */

#ifndef FRICL_PROFILE_CUBIC
#define FRICL_PROFILE_CUBIC 0
#define FRICL_PROFILE_IPCTK 1
#endif

/* Per-element divisions by 3 and 5 inside the polynomials become
 * multiplications by these correctly rounded constants: a division costs
 * several multiplications in a vector loop, and the oracle test shows the
 * extra rounding stays well inside the 4-ULP-of-scale budget. */
#undef FRICL_THIRD
#undef FRICL_TWO_FIFTHS
#define FRICL_THIRD (FRICL_R(1) / FRICL_R(3))
#define FRICL_TWO_FIFTHS (FRICL_R(2) / FRICL_R(5))

/* ------------------------------------------------------------ mollifier */

/* f0 = e (1/3 + r^2 - r^3/3) inside, y outside. */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_friction_f0)(FRICL_REAL y,
                                                     FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  const FRICL_REAL in =
      e * (FRICL_R(1) / FRICL_R(3) + r * r * (FRICL_R(1) - r * FRICL_THIRD));
  return FRICL_FABS(y) >= e ? y : in;
}

/* f1 = r (2 - r) inside, 1 outside; f1(-0) = -0. */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_friction_f1)(FRICL_REAL y,
                                                     FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  return FRICL_FABS(y) >= e ? FRICL_R(1) : r * (FRICL_R(2) - r);
}

/* f2 = 2 (1 - r) / e inside, 0 outside. */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_friction_f2)(FRICL_REAL y,
                                                     FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  /* Computed unconditionally: a division inside one arm of ?: becomes a
   * branch, and PoCL then does not vectorise the loop. */
  const FRICL_REAL in = FRICL_R(2) * (FRICL_R(1) - r) / e;
  return FRICL_FABS(y) >= e ? FRICL_R(0) : in;
}

/* f1/y = (2 - r) / e inside (finite at 0), 1/y outside. */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_friction_f1_over_x)(FRICL_REAL y,
                                                            FRICL_REAL e) {
  const FRICL_REAL r = y / e;
  const int out = FRICL_FABS(y) >= e;
  /* Select the operands, then divide once: same roundings as dividing in
   * each branch, half the divisions in a branch-free loop. */
  return (out ? FRICL_R(1) : FRICL_R(2) - r) / (out ? y : e);
}

/* c (f2 y - f1)/y^3 = -c/(y e^2) inside, -c/y^3 outside. Divided step by
 * step so that no intermediate product under- or overflows unless the
 * result does: y e^2 underflows for subnormal y, c * inf is NaN at c = 0. */
FRICL_INLINE FRICL_REAL FRICL_FN(scaled_f2x)(FRICL_REAL c, FRICL_REAL y,
                                             FRICL_REAL e) {
  /* ((-c/e)/e)/y inside, ((-c/y)/y)/y outside: one chain of divisions on
   * selected operands. */
  const FRICL_REAL q = FRICL_FABS(y) >= e ? y : e;
  /* At y = +-0 the chain could be (+-0)/(+-0) = NaN when c/e^2 underflows
   * (huge e); -c/y gives the spec's -+inf (NaN for c = 0) directly. */
  const FRICL_REAL chain = ((-c / q) / q) / y;
  const FRICL_REAL at_zero = -c / y; /* unconditional: no branch */
  return y == FRICL_R(0) ? at_zero : chain;
}

/* (f2 y - f1)/y^3 = -1/(y e^2) inside, -1/y^3 outside; -inf at +0. */
FRICL_INLINE FRICL_REAL
FRICL_FN(smooth_friction_f2_x_minus_f1_over_x3)(FRICL_REAL y, FRICL_REAL e) {
  return FRICL_FN(scaled_f2x)(FRICL_R(1), y, e);
}

/* ------------------------------------------------------------- smooth mu */

/* ipctk region A: |y| < e/2, tested on y itself, not on the rounded y/e,
 * as the spec's branch rule requires. */
FRICL_INLINE int FRICL_FN(ipctk_region_a)(FRICL_REAL y, FRICL_REAL e) {
  return FRICL_FABS(y) < FRICL_R(1) / FRICL_R(2) * e;
}

/* mu(rho) inside the transition, rho = |y|/e in [0, 1). */
FRICL_INLINE FRICL_REAL FRICL_FN(mu_inside)(FRICL_REAL rho, int region_a,
                                            FRICL_REAL ms, FRICL_REAL mk,
                                            int profile) {
  const FRICL_REAL d = mk - ms;
  if (profile == FRICL_PROFILE_IPCTK) {
    /* Region B is written around rho = 1 (t = 1 - rho is exact there) so
     * that mu -> mk without cancellation. */
    const FRICL_REAL t = FRICL_R(1) - rho;
    const FRICL_REAL a = ms + FRICL_R(2) * d * (rho * rho);
    const FRICL_REAL b = mk - FRICL_R(2) * d * (t * t);
    return region_a ? a : b;
  }
  return ms + d * (rho * rho) * (FRICL_R(3) - FRICL_R(2) * rho);
}

/* d mu / d|y| inside, times e. */
FRICL_INLINE FRICL_REAL FRICL_FN(mu_prime_e_inside)(FRICL_REAL rho,
                                                    int region_a, FRICL_REAL ms,
                                                    FRICL_REAL mk,
                                                    int profile) {
  const FRICL_REAL d = mk - ms;
  if (profile == FRICL_PROFILE_IPCTK) {
    const FRICL_REAL a = FRICL_R(4) * d * rho;
    const FRICL_REAL b = FRICL_R(4) * d * (FRICL_R(1) - rho);
    return region_a ? a : b;
  }
  return FRICL_R(6) * d * rho * (FRICL_R(1) - rho);
}

/* The constant branch of every smooth_mu function. */
FRICL_INLINE int FRICL_FN(mu_is_constant)(FRICL_REAL y, FRICL_REAL e,
                                          FRICL_REAL ms, FRICL_REAL mk) {
  return (ms == mk) | (FRICL_FABS(y) >= e);
}

FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu)(FRICL_REAL y, FRICL_REAL e,
                                            FRICL_REAL ms, FRICL_REAL mk,
                                            int profile) {
  const FRICL_REAL rho = FRICL_FABS(y / e);
  const FRICL_REAL in =
      FRICL_FN(mu_inside)(rho, FRICL_FN(ipctk_region_a)(y, e), ms, mk, profile);
  return FRICL_FN(mu_is_constant)(y, e, ms, mk) ? mk : in;
}

/* Derivative with respect to |y| (even in y, spec 3.2). */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_derivative)(
    FRICL_REAL y, FRICL_REAL e, FRICL_REAL ms, FRICL_REAL mk, int profile) {
  const FRICL_REAL rho = FRICL_FABS(y / e);
  const FRICL_REAL in =
      FRICL_FN(mu_prime_e_inside)(rho, FRICL_FN(ipctk_region_a)(y, e), ms, mk,
                                  profile) /
      e;
  return FRICL_FN(mu_is_constant)(y, e, ms, mk) ? FRICL_R(0) : in;
}

/*
 * Integral of mu f1 (smooth_mu_f0): mk f0(y) in the constant branch, inside
 * e [C + sgn(y) rho^2 Q(rho)] (spec 3.3, 3.4), i.e. F(|y|) for y >= 0 and
 * 2 e C - F(|y|) for y < 0.
 *
 * Near rho = 1, C + rho^2 Q cancels terms several times larger than the
 * result, so F is evaluated around rho = 1 instead, with t = 1 - rho (exact
 * there): F = e [mk rho + t^3 P(t)], where, from mu f1 = mk - (...) t^2:
 *   cubic      P(t) = mk/3 + D (1 - t/2 - 3t^2/5 + t^3/3)
 *   ipctk (B)  P(t) = (mk + 2D)/3 - 2D t^2/5
 * At t = 1 the cubic P equals C, so that form is accurate on all of [0, 1);
 * ipctk region A (rho < 1/2) keeps e [C_A + sgn rho^2 Q_A].
 */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_f0)(FRICL_REAL y, FRICL_REAL e,
                                               FRICL_REAL ms, FRICL_REAL mk,
                                               int profile) {
  const FRICL_REAL d = mk - ms;
  const FRICL_REAL r = y / e;
  const FRICL_REAL rho = FRICL_FABS(r);
  const FRICL_REAL t = FRICL_R(1) - rho;
  FRICL_REAL c, p;
  int use_c_form = 0;
  FRICL_REAL c_form = FRICL_R(0);
  if (profile == FRICL_PROFILE_IPCTK) {
    const FRICL_REAL ca = (FRICL_R(27) * mk - FRICL_R(11) * ms) / FRICL_R(48);
    const FRICL_REAL qa =
        ms - ms * rho * FRICL_THIRD +
        d * (rho * rho) * (FRICL_R(1) - rho * FRICL_TWO_FIFTHS);
    c_form = e * (ca + r * rho * qa);
    use_c_form = FRICL_FN(ipctk_region_a)(y, e);
    c = (FRICL_R(9) * mk - FRICL_R(4) * ms) / FRICL_R(15);
    p = (mk + FRICL_R(2) * d) / FRICL_R(3) - d * FRICL_TWO_FIFTHS * (t * t);
  } else {
    c = (FRICL_R(17) * mk - FRICL_R(7) * ms) / FRICL_R(30);
    p = mk / FRICL_R(3) + d * (FRICL_R(1) - t * (FRICL_R(1) / FRICL_R(2) +
                                                 t * (FRICL_R(3) / FRICL_R(5) -
                                                      t * FRICL_THIRD)));
  }
  const FRICL_REAL pos = e * (mk * rho + (t * t) * t * p);
  const FRICL_REAL t_form = y >= FRICL_R(0) ? pos : FRICL_R(2) * e * c - pos;
  const FRICL_REAL in = use_c_form ? c_form : t_form;
  return FRICL_FN(mu_is_constant)(y, e, ms, mk)
             ? mk * FRICL_FN(smooth_friction_f0)(y, e)
             : in;
}

FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_f1)(FRICL_REAL y, FRICL_REAL e,
                                               FRICL_REAL ms, FRICL_REAL mk,
                                               int profile) {
  return FRICL_FN(smooth_mu)(y, e, ms, mk, profile) *
         FRICL_FN(smooth_friction_f1)(y, e);
}

FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_f2)(FRICL_REAL y, FRICL_REAL e,
                                               FRICL_REAL ms, FRICL_REAL mk,
                                               int profile) {
  return FRICL_FN(smooth_mu_derivative)(y, e, ms, mk, profile) *
             FRICL_FN(smooth_friction_f1)(y, e) +
         FRICL_FN(smooth_mu)(y, e, ms, mk, profile) *
             FRICL_FN(smooth_friction_f2)(y, e);
}

FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_f1_over_x)(
    FRICL_REAL y, FRICL_REAL e, FRICL_REAL ms, FRICL_REAL mk, int profile) {
  return FRICL_FN(smooth_mu)(y, e, ms, mk, profile) *
         FRICL_FN(smooth_friction_f1_over_x)(y, e);
}

/*
 * [(mu f1)' y - mu f1] / y^3 (smooth_mu_f2_x_minus_mu_f1_over_x3): the
 * profile polynomial G2 at the SIGNED r inside (spec 3.2), mk (f2 y - f1)/y^3
 * in the constant branch.
 *
 * Inside, num = r e^3 G2 is evaluated in a form that does not cancel:
 *   cubic, r < 1/2   -ms + d r (12 - 21 r + 8 r^2)
 *   cubic, r >= 1/2  -mk + d t (1 + 13 r - 8 r^2),   t = 1 - r
 *   ipctk A          -ms + d r (8 - 6 r)
 *   ipctk B, r > 0   -mk + 2 d t (5 - 3 r)
 *   ipctk B, r < 0   (9 mk - 10 ms) + d r (6 r - 16)
 * (the t forms are the same polynomials with the root at r = 1 factored
 * out: near r = 1 they add terms of the result's size, not of 20 times it).
 * Near r = 0 the -ms forms keep -ms exact, so y = +-0 gives -+inf, and NaN
 * when ms = 0, as the spec requires.
 *
 * Then G2 = ((num / (r e)) / e) / e inside and ((-mk / q) / q) / y in the
 * constant branch: one chain of divisions on selected operands, so the
 * loop has no branch and three divisions (dividing by e step by step
 * rounds less than forming e^3 first).
 */
FRICL_INLINE FRICL_REAL FRICL_FN(smooth_mu_f2_x_minus_mu_f1_over_x3)(
    FRICL_REAL y, FRICL_REAL e, FRICL_REAL ms, FRICL_REAL mk, int profile) {
  const FRICL_REAL d = mk - ms;
  const FRICL_REAL r = y / e;
  const FRICL_REAL t = FRICL_R(1) - r;
  const FRICL_REAL one_half = FRICL_R(1) / FRICL_R(2);
  FRICL_REAL num;
  if (profile == FRICL_PROFILE_IPCTK) {
    const FRICL_REAL pa = -ms + d * r * (FRICL_R(8) - FRICL_R(6) * r);
    const FRICL_REAL pb_pos =
        -mk + FRICL_R(2) * d * t * (FRICL_R(5) - FRICL_R(3) * r);
    const FRICL_REAL pb_neg = (FRICL_R(9) * mk - FRICL_R(10) * ms) +
                              d * r * (FRICL_R(6) * r - FRICL_R(16));
    num = FRICL_FN(ipctk_region_a)(y, e) ? pa : (r > 0 ? pb_pos : pb_neg);
  } else {
    const FRICL_REAL p0 =
        -ms + d * r * (FRICL_R(12) + r * (FRICL_R(8) * r - FRICL_R(21)));
    const FRICL_REAL p1 =
        -mk + d * t * (FRICL_R(1) + r * (FRICL_R(13) - FRICL_R(8) * r));
    num = r < one_half ? p0 : p1;
  }
  const int cst = FRICL_FN(mu_is_constant)(y, e, ms, mk);
  const FRICL_REAL q = FRICL_FABS(y) >= e ? y : e;
  const FRICL_REAL d1 = cst ? q : r * e;
  const FRICL_REAL d2 = cst ? q : e;
  const FRICL_REAL d3 = cst ? y : e;
  const FRICL_REAL chain = (((cst ? -mk : num) / d1) / d2) / d3;
  /* Constant branch at y = +-0: -mk/y, as in scaled_f2x. */
  const FRICL_REAL at_zero = -mk / y;
  return (cst & (y == FRICL_R(0))) ? at_zero : chain;
}
