/*
 * scalar_ref_ld.c - long-double reference of the smooth-friction scalar
 * family, transcribed from docs/ipc-friction.md (see scalar_ref_ld.h for
 * why it exists and which conventions it follows).
 *
 * Every formula below is the spec's literal polynomial in y and e (the
 * "expanded" column of 2.1, the seed / documentation antiderivatives of
 * 3.3 and 3.4), deliberately NOT the scaled Horner forms the library uses:
 * an algebra slip in one form is then unlikely to be repeated in the other.
 * Long double keeps the expanded forms' cancellation harmless: the worst
 * cancellation factor of these polynomials is O(100), far below the 2^11
 * extra bits long double has over double.
 */
#include "scalar_ref_ld.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

/* The oracle must be finer than the f64 results it judges. */
_Static_assert(LDBL_MANT_DIG >= 64,
               "the long-double reference needs >= 64 mantissa bits");

/* ------------------------------------------------------ 2.1 mollifier */

/* Outside iff |y| >= e (|y| = e is outside). NaN fails the test and runs
 * through the inside polynomial, which propagates it. */
static int outside(long double y, long double e) { return fabsl(y) >= e; }

long double fricl_ref_ld_f0(long double y, long double e) {
  if (outside(y, e))
    return y;
  return -(y * y * y) / (3.0L * e * e) + y * y / e + e / 3.0L;
}

long double fricl_ref_ld_f1(long double y, long double e) {
  if (outside(y, e))
    return 1.0L;
  /* At y = -0: -0 - (+0) = -0, the spec's f1(-0). */
  return 2.0L * y / e - y * y / (e * e);
}

long double fricl_ref_ld_f2(long double y, long double e) {
  if (outside(y, e))
    return 0.0L;
  return 2.0L / e - 2.0L * y / (e * e);
}

long double fricl_ref_ld_f1_over_x(long double y, long double e) {
  if (outside(y, e))
    return 1.0L / y; /* +-0 at +-inf */
  return 2.0L / e - y / (e * e);
}

long double fricl_ref_ld_f2x(long double y, long double e) {
  if (outside(y, e))
    return -1.0L / (y * y * y);
  return -1.0L / (y * e * e); /* -inf at +0, +inf at -0 */
}

/* ---------------------------------------------------- 3.2-3.4 smooth mu */

/* The constant branch of every smooth-mu function (exact comparisons). */
static int mu_constant(long double y, long double e, long double ms,
                       long double mk) {
  return ms == mk || fabsl(y) >= e;
}

/* ipctk region A: s < e/2 (strict); e/2 is exact for any normal e. */
static int region_a(long double s, long double e) { return s < e / 2.0L; }

/* MU(s) inside, 0 <= s < e, from 3.3 (seed 001: mu_s + (mu_k - mu_s)
 * (3y^2/e^2 - 2y^3/e^3)) and the expanded forms of 3.4. */
static long double mu_in(long double s, long double e, long double ms,
                         long double mk, int profile) {
  const long double d = mk - ms;
  if (profile == FRICL_REF_IPCTK) {
    if (region_a(s, e))
      return ms + 2.0L * d * s * s / (e * e);
    return (2.0L * ms - mk) + 4.0L * d * s / e - 2.0L * d * s * s / (e * e);
  }
  return ms + d * (3.0L * s * s / (e * e) - 2.0L * s * s * s / (e * e * e));
}

/* d MU / ds inside. */
static long double mu_prime_in(long double s, long double e, long double ms,
                               long double mk, int profile) {
  const long double d = mk - ms;
  if (profile == FRICL_REF_IPCTK) {
    if (region_a(s, e))
      return 4.0L * d * s / (e * e);
    return 4.0L * d / e - 4.0L * d * s / (e * e);
  }
  return 6.0L * d * s / (e * e) - 6.0L * d * s * s / (e * e * e);
}

/* F(s) - F(0) = F(s) - e*C for 0 <= s < e: the seed / documentation
 * antiderivatives of 3.3 (cubic) and 3.4 (F_A, F_B) without their constant
 * term, which is returned separately in *ec (= F(0) of the region's
 * formula, e*C). Splitting off the constant lets negative y use the
 * point-symmetric extension e*C + sgn(y)*(F(|y|) - e*C) without
 * re-cancelling it. */
static long double mu_f0_poly(long double s, long double e, long double ms,
                              long double mk, int profile, long double *ec) {
  const long double d = mk - ms;
  const long double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
  const long double e2 = e * e, e3 = e2 * e, e4 = e3 * e;
  if (profile == FRICL_REF_IPCTK) {
    if (region_a(s, e)) {
      /* F_A = [e^5(27mk - 11ms)/48 + e^3 ms y^2 - e^2 ms y^3/3
       *        + e d y^4 - (2/5) d y^5] / e^4 */
      *ec = e * (27.0L * mk - 11.0L * ms) / 48.0L;
      return (e3 * ms * s2 - e2 * ms * s3 / 3.0L + e * d * s4 -
              2.0L * d * s5 / 5.0L) /
             e4;
    }
    /* F_B = [e^5(9mk - 4ms) + 15e^3(2ms - mk)y^2 + 5e^2(9mk - 10ms)y^3
     *        - 30 e d y^4 + 6 d y^5] / (15 e^4) */
    *ec = e * (9.0L * mk - 4.0L * ms) / 15.0L;
    return (15.0L * e3 * (2.0L * ms - mk) * s2 +
            5.0L * e2 * (9.0L * mk - 10.0L * ms) * s3 - 30.0L * e * d * s4 +
            6.0L * d * s5) /
           (15.0L * e4);
  }
  /* Seed 001: F = [e^6(17mk - 7ms) + 30e^4 ms y^2 - 10e^3 ms y^3
   *               + 45e^2 d y^4 - 42 e d y^5 + 10 d y^6] / (30 e^5) */
  const long double s6 = s5 * s, e5 = e4 * e;
  *ec = e * (17.0L * mk - 7.0L * ms) / 30.0L;
  return (30.0L * e4 * ms * s2 - 10.0L * e3 * ms * s3 + 45.0L * e2 * d * s4 -
          42.0L * e * d * s5 + 10.0L * d * s6) /
         (30.0L * e5);
}

/* G2 = (h' y - h) / y^3 inside, at the SIGNED y (region by |y|). */
static long double g2_in(long double y, long double e, long double ms,
                         long double mk, int profile) {
  const long double d = mk - ms;
  const long double e2 = e * e, e3 = e2 * e;
  if (profile == FRICL_REF_IPCTK) {
    if (region_a(fabsl(y), e))
      return -ms / (e2 * y) + d * (8.0L - 6.0L * y / e) / e3;
    return (9.0L * mk - 10.0L * ms) / (e2 * y) +
           d * (6.0L * y / e - 16.0L) / e3;
  }
  return -ms / (e2 * y) + d * (12.0L - 21.0L * y / e + 8.0L * y * y / e2) / e3;
}

long double fricl_ref_ld_mu(long double y, long double e, long double ms,
                            long double mk, int profile) {
  /* With ms == mk y is not looked at: mu(NaN) = mk (spec 3.6). */
  if (mu_constant(y, e, ms, mk))
    return mk;
  return mu_in(fabsl(y), e, ms, mk, profile);
}

long double fricl_ref_ld_mu_derivative(long double y, long double e,
                                       long double ms, long double mk,
                                       int profile) {
  if (mu_constant(y, e, ms, mk))
    return 0.0L;
  /* Derivative with respect to |y|: even in y. */
  return mu_prime_in(fabsl(y), e, ms, mk, profile);
}

long double fricl_ref_ld_mu_f0(long double y, long double e, long double ms,
                               long double mk, int profile) {
  if (mu_constant(y, e, ms, mk))
    return mk * fricl_ref_ld_f0(y, e); /* mk*(+-inf), NaN when mk = 0 */
  long double ec = 0.0L;
  const long double p = mu_f0_poly(fabsl(y), e, ms, mk, profile, &ec);
  /* NaN y gives p = NaN whatever copysign says. */
  return ec + copysignl(1.0L, y) * p;
}

long double fricl_ref_ld_mu_f1(long double y, long double e, long double ms,
                               long double mk, int profile) {
  return fricl_ref_ld_mu(y, e, ms, mk, profile) * fricl_ref_ld_f1(y, e);
}

long double fricl_ref_ld_mu_f2(long double y, long double e, long double ms,
                               long double mk, int profile) {
  return fricl_ref_ld_mu_derivative(y, e, ms, mk, profile) *
             fricl_ref_ld_f1(y, e) +
         fricl_ref_ld_mu(y, e, ms, mk, profile) * fricl_ref_ld_f2(y, e);
}

long double fricl_ref_ld_mu_f1_over_x(long double y, long double e,
                                      long double ms, long double mk,
                                      int profile) {
  return fricl_ref_ld_mu(y, e, ms, mk, profile) * fricl_ref_ld_f1_over_x(y, e);
}

long double fricl_ref_ld_mu_f2x(long double y, long double e, long double ms,
                                long double mk, int profile) {
  if (mu_constant(y, e, ms, mk))
    return mk * fricl_ref_ld_f2x(y, e);
  return g2_in(y, e, ms, mk, profile);
}

/* ------------------------------------------------------- by term index */

static const char *const term_names[FRICL_REF_TERM_COUNT] = {
    "smooth_friction_f0",
    "smooth_friction_f1",
    "smooth_friction_f2",
    "smooth_friction_f1_over_x",
    "smooth_friction_f2_x_minus_f1_over_x3",
    "smooth_mu",
    "smooth_mu_derivative",
    "smooth_mu_f0",
    "smooth_mu_f1",
    "smooth_mu_f2",
    "smooth_mu_f1_over_x",
    "smooth_mu_f2_x_minus_mu_f1_over_x3"};

const char *fricl_ref_ld_term_name(int term) {
  return term >= 0 && term < FRICL_REF_TERM_COUNT ? term_names[term] : NULL;
}

long double fricl_ref_ld_term(int term, int profile, long double y,
                              long double e, long double ms, long double mk) {
  switch (term) {
  case 0:
    return fricl_ref_ld_f0(y, e);
  case 1:
    return fricl_ref_ld_f1(y, e);
  case 2:
    return fricl_ref_ld_f2(y, e);
  case 3:
    return fricl_ref_ld_f1_over_x(y, e);
  case 4:
    return fricl_ref_ld_f2x(y, e);
  case 5:
    return fricl_ref_ld_mu(y, e, ms, mk, profile);
  case 6:
    return fricl_ref_ld_mu_derivative(y, e, ms, mk, profile);
  case 7:
    return fricl_ref_ld_mu_f0(y, e, ms, mk, profile);
  case 8:
    return fricl_ref_ld_mu_f1(y, e, ms, mk, profile);
  case 9:
    return fricl_ref_ld_mu_f2(y, e, ms, mk, profile);
  case 10:
    return fricl_ref_ld_mu_f1_over_x(y, e, ms, mk, profile);
  case 11:
    return fricl_ref_ld_mu_f2x(y, e, ms, mk, profile);
  default:
    return NAN;
  }
}

/* ------------------------------------------------------ 3.9 the scale */

long double fricl_ref_ld_scale(int term, long double y, long double e,
                               long double ms, long double mk) {
  const long double s = fabsl(y);
  const long double L = fmaxl(s, e); /* fmaxl ignores a NaN y */
  const long double mu_max = fmaxl(ms, mk);
  /* The f2x family is measured relatively: its value is ~1/(e^2 y). */
  const long double rel3 = s < e ? 1.0L / (e * e * s) : 1.0L / (s * s * s);
  switch (term) {
  case 0:
    return L;
  case 1:
    return 1.0L;
  case 2:
  case 3:
    return 1.0L / L;
  case 4:
    return rel3;
  case 5:
    return mu_max;
  case 6:
    return mu_max / e;
  case 7:
    return mu_max * L;
  case 8:
    return mu_max;
  case 9:
  case 10:
    return mu_max / L;
  case 11:
    return mu_max * rel3;
  default:
    return NAN;
  }
}

long double fricl_ref_ld_term_scale(int term, int profile, long double y,
                                    long double e, long double ms,
                                    long double mk, long double value) {
  long double s = fricl_ref_ld_scale(term, y, e, ms, mk);
  if (isfinite(value) && fabsl(value) > s)
    s = fabsl(value);
  const long double r = y / e, rho = fabsl(r), d = mk - ms;
  if (!(rho < 1.0L) || ms == mk)
    return s;
  const long double mmax = fmaxl(ms, mk);
  if (term == 9) { /* smooth_mu_f2 */
    const long double f1 = fabsl(r * (2.0L - r));
    const long double f2 = fabsl(2.0L * (1.0L - r) / e);
    const long double mu = fricl_ref_ld_mu(y, e, ms, mk, profile);
    const long double mup = fricl_ref_ld_mu_derivative(y, e, ms, mk, profile);
    s = fmaxl(s, fmaxl(fabsl(mup), mmax / e) * f1);
    s = fmaxl(s, fmaxl(fabsl(mu), mmax) * f2);
  } else if (term == 11) { /* smooth_mu_f2_x_minus_mu_f1_over_x3 */
    /* g2 = [A / r + D P(r)] / e^3 adds two terms (spec 3.3, 3.4); region
     * B's A = 9 mk - 10 ms is itself a difference, so its larger product
     * counts. sigma itself (mu_max / (e^2 |y|)) stands for the A/r term
     * only and overstates it when ms = 0: the addends replace it here. */
    long double a = ms, c[3] = {12.0L, -21.0L, 8.0L};
    if (profile == FRICL_REF_IPCTK) {
      const int region_a = fabsl(y) < 0.5L * e;
      a = region_a ? ms : fmaxl(9.0L * mk, 10.0L * ms);
      c[0] = region_a ? 8.0L : -16.0L;
      c[1] = region_a ? -6.0L : 6.0L;
      c[2] = 0.0L;
    }
    /* Addends at both levels: A/r and D P(r), and P's own monomials. */
    const long double p = c[0] + r * (c[1] + r * c[2]);
    long double m = fmaxl(fabsl(a / r), fabsl(d * p));
    for (int i = 0; i < 3; ++i)
      m = fmaxl(m, fabsl(d * c[i]) * powl(rho, (long double)i));
    s = fmaxl(isfinite(value) ? fabsl(value) : 0.0L, m / (e * e * e));
  }
  return s;
}

long double fricl_ref_ld_ulp(long double sigma, int mant_bits) {
  /* Smallest subnormal: 2^(FLT_MIN_EXP - FLT_MANT_DIG) etc. */
  const int min_bin =
      mant_bits == 24 ? FLT_MIN_EXP - FLT_MANT_DIG : DBL_MIN_EXP - DBL_MANT_DIG;
  sigma = fabsl(sigma);
  if (isinf(sigma))
    return sigma;
  int ex = 0;
  if (sigma > 0.0L)
    (void)frexpl(sigma, &ex); /* sigma = m 2^ex, m in [0.5, 1) */
  else
    ex = min_bin + mant_bits; /* sigma = 0: clamp below */
  int bin = ex - mant_bits;   /* floor(log2 sigma) - (mant_bits - 1) */
  if (bin < min_bin)
    bin = min_bin;
  return ldexpl(1.0L, bin);
}

double fricl_ref_ld_err_ulps(long double got, long double ref,
                             long double sigma, int mant_bits) {
  if (isnan(ref))
    return isnan(got) ? 0.0 : INFINITY;
  if (isinf(ref))
    return (isinf(got) && signbit(got) == signbit(ref)) ? 0.0 : INFINITY;
  if (!isfinite(got))
    return INFINITY;
  const long double ulp = fricl_ref_ld_ulp(sigma, mant_bits);
  if (isinf(ulp))
    return 0.0;
  return (double)(fabsl(got - ref) / ulp);
}
