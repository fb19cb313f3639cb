/*
 * scalar_ref_ld.h - an independent long-double reference of the twelve
 * smooth-friction scalar functions (docs/ipc-friction.md sections 2 and 3)
 * and of the "scale" sigma used to measure errors (section 3.9).
 *
 * Why a second implementation: the library evaluates the family from one
 * header (kernels/fricl_scalar_math.h) in Horner form, both in the kernels
 * and in its C reference backend, so comparing the two can never reveal a
 * formula error. This file is written from the spec's expanded / seed forms
 * (the literal polynomials in y and e of sections 2.1, 3.3 and 3.4), never
 * includes that header, and evaluates in long double (at least 64 mantissa
 * bits), so it is an oracle for both f64 and f32 results.
 *
 * Conventions (normative in the spec, reproduced here):
 *  - Inputs are values of the working precision (f64 or f32) widened to
 *    long double exactly; every branch test (|y| >= e, |y| < e/2,
 *    mu_s == mu_k) is exact on them, hence identical to the test made in
 *    the working precision.
 *  - The mollifier polynomials take the SIGNED y; mu and mu' take |y|;
 *    smooth_mu_f0 inside is e*C + sgn(y)*(F(|y|) - e*C); the g2 polynomial
 *    takes the signed y.
 *  - Signed zeros, infinities and NaN come out of the formulas exactly as
 *    the spec's tables 2.3 and 3.6 say (checked by ref_ld_spec_values).
 *
 * Terms are numbered as fricl_term (0 = smooth_friction_f0 ...
 * 11 = smooth_mu_f2_x_minus_mu_f1_over_x3); profiles as fricl_mu_profile
 * (0 = cubic, 1 = ipctk). This header needs no fricl header on purpose.
 */
#ifndef FRICL_SCALAR_REF_LD_H
#define FRICL_SCALAR_REF_LD_H

#define FRICL_REF_TERM_COUNT 12
#define FRICL_REF_CUBIC 0
#define FRICL_REF_IPCTK 1

#ifdef __cplusplus
extern "C" {
#endif

/* Section 2.1: the mollifier, any y, e > 0. */
long double fricl_ref_ld_f0(long double y, long double e);
long double fricl_ref_ld_f1(long double y, long double e);
long double fricl_ref_ld_f2(long double y, long double e);
long double fricl_ref_ld_f1_over_x(long double y, long double e);
long double fricl_ref_ld_f2x(long double y, long double e);

/* Sections 3.2-3.4: the smooth-mu family; profile FRICL_REF_CUBIC/IPCTK. */
long double fricl_ref_ld_mu(long double y, long double e, long double ms,
                            long double mk, int profile);
long double fricl_ref_ld_mu_derivative(long double y, long double e,
                                       long double ms, long double mk,
                                       int profile);
long double fricl_ref_ld_mu_f0(long double y, long double e, long double ms,
                               long double mk, int profile);
long double fricl_ref_ld_mu_f1(long double y, long double e, long double ms,
                               long double mk, int profile);
long double fricl_ref_ld_mu_f2(long double y, long double e, long double ms,
                               long double mk, int profile);
long double fricl_ref_ld_mu_f1_over_x(long double y, long double e,
                                      long double ms, long double mk,
                                      int profile);
long double fricl_ref_ld_mu_f2x(long double y, long double e, long double ms,
                                long double mk, int profile);

/* Term `term` (fricl_term order) by index; NaN for an unknown term. The
 * five mollifier terms ignore ms, mk and profile. */
long double fricl_ref_ld_term(int term, int profile, long double y,
                              long double e, long double ms, long double mk);

/* The ipctk Python name of term `term` ("smooth_friction_f0" ...), NULL if
 * unknown. Kept here so that tests can check fricl's names against it. */
const char *fricl_ref_ld_term_name(int term);

/* Natural scale sigma of section 3.9 (mu_max = max(ms, mk),
 * L = max(|y|, e)); may be 0 (mu_max = 0, or 1/L at |y| = inf) or inf
 * (f2x family at y = 0). */
long double fricl_ref_ld_scale(int term, long double y, long double e,
                               long double ms, long double mk);

/*
 * The scale an error is measured against, as the project defines it: "the
 * largest magnitude among the terms the formula adds, so that cancellation
 * is neither hidden nor blamed". That is sigma above, raised to |value|
 * where the value exceeds it (negative y: f2 reaches 4/e against sigma =
 * 1/e), and, inside the transition (|y| < e, ms != mk), to the largest
 * addend of the two formulas that add terms of opposite sign:
 *   smooth_mu_f2 = mu' f1 + mu f2, each factor at least at its own scale
 *   (mu_max/e for mu', mu_max for mu);
 *   g2 = [A/r + D P(r)] / e^3 (spec 3.3, 3.4), whose two addends replace
 *   sigma (which stands for A/r alone and overstates it when ms = 0).
 * `value` is the reference value (|value| only raises the scale).
 */
long double fricl_ref_ld_term_scale(int term, int profile, long double y,
                                    long double e, long double ms,
                                    long double mk, long double value);

/* ulp(sigma) in a precision of `mant_bits` significand bits (53 for f64,
 * 24 for f32): 2^(floor(log2 sigma) - (mant_bits - 1)), never below that
 * precision's smallest subnormal, so that sigma = 0 still measures the
 * error absolutely at the finest resolution the format has. inf for
 * sigma = inf. */
long double fricl_ref_ld_ulp(long double sigma, int mant_bits);

/*
 * Error of `got` against `ref` in ULPs of the scale sigma, for a precision
 * of `mant_bits` (53 or 24). Non-finite `ref`: 0 when `got` is the same kind
 * (NaN for NaN, the same infinity), else +inf. Finite `ref` and non-finite
 * `got`: +inf. Callers count +inf as a kind mismatch.
 */
double fricl_ref_ld_err_ulps(long double got, long double ref,
                             long double sigma, int mant_bits);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_SCALAR_REF_LD_H */
