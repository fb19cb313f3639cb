/*
 * fricl_scalar.cl - batch evaluation of the smooth-friction scalar family.
 *
 * The host prepends, in this order: FRICL_EMBEDDED, the precision and
 * specialisation defines below, fricl_cl_compat.h, fricl_scalar_math.h.
 *   FRICL_REAL          double or float
 *   FRICL_TERM_MASK     bit t set: term t is written (fricl_term order)
 *   FRICL_PROFILE       FRICL_PROFILE_CUBIC (0) or FRICL_PROFILE_IPCTK (1)
 *   FRICL_EPS_ARRAY, FRICL_MUS_ARRAY, FRICL_MUK_ARRAY
 *                       1: the parameter is per element, 0: a batch scalar
 * Specialising on these at build time keeps the loop free of uniform
 * branches and gathers, so PoCL vectorises it and a GPU streams it.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_cl_compat.h"
#include "fricl_scalar_math.h"
#endif

#define FRICL_HAS(t) ((FRICL_TERM_MASK >> (t)) & 1)

/* One output argument pair: a pointer (NULL when the term is not requested)
 * and an element offset. */
#define FRICL_OUT_ARG(t) __global FRICL_REAL *restrict o##t, ulong o##t##_off

__kernel void fricl_scalar_eval(
    ulong n, __global const FRICL_REAL *restrict y, ulong y_off,
    __global const FRICL_REAL *restrict eps_a, ulong eps_off, FRICL_REAL eps_s,
    __global const FRICL_REAL *restrict mus_a, ulong mus_off, FRICL_REAL mus_s,
    __global const FRICL_REAL *restrict muk_a, ulong muk_off, FRICL_REAL muk_s,
    FRICL_OUT_ARG(0), FRICL_OUT_ARG(1), FRICL_OUT_ARG(2), FRICL_OUT_ARG(3),
    FRICL_OUT_ARG(4), FRICL_OUT_ARG(5), FRICL_OUT_ARG(6), FRICL_OUT_ARG(7),
    FRICL_OUT_ARG(8), FRICL_OUT_ARG(9), FRICL_OUT_ARG(10), FRICL_OUT_ARG(11)) {
  const size_t i = get_global_id(0);
  if (i >= n)
    return;
  const FRICL_REAL yi = y[y_off + i];
#if FRICL_EPS_ARRAY
  const FRICL_REAL e = eps_a[eps_off + i];
#else
  const FRICL_REAL e = eps_s;
#endif
#if FRICL_MUS_ARRAY
  const FRICL_REAL ms = mus_a[mus_off + i];
#else
  const FRICL_REAL ms = mus_s;
#endif
#if FRICL_MUK_ARRAY
  const FRICL_REAL mk = muk_a[muk_off + i];
#else
  const FRICL_REAL mk = muk_s;
#endif
  (void)ms;
  (void)mk;
#if FRICL_HAS(0)
  o0[o0_off + i] = FRICL_FN(smooth_friction_f0)(yi, e);
#endif
#if FRICL_HAS(1)
  o1[o1_off + i] = FRICL_FN(smooth_friction_f1)(yi, e);
#endif
#if FRICL_HAS(2)
  o2[o2_off + i] = FRICL_FN(smooth_friction_f2)(yi, e);
#endif
#if FRICL_HAS(3)
  o3[o3_off + i] = FRICL_FN(smooth_friction_f1_over_x)(yi, e);
#endif
#if FRICL_HAS(4)
  o4[o4_off + i] = FRICL_FN(smooth_friction_f2_x_minus_f1_over_x3)(yi, e);
#endif
#if FRICL_HAS(5)
  o5[o5_off + i] = FRICL_FN(smooth_mu)(yi, e, ms, mk, FRICL_PROFILE);
#endif
#if FRICL_HAS(6)
  o6[o6_off + i] = FRICL_FN(smooth_mu_derivative)(yi, e, ms, mk, FRICL_PROFILE);
#endif
#if FRICL_HAS(7)
  o7[o7_off + i] = FRICL_FN(smooth_mu_f0)(yi, e, ms, mk, FRICL_PROFILE);
#endif
#if FRICL_HAS(8)
  o8[o8_off + i] = FRICL_FN(smooth_mu_f1)(yi, e, ms, mk, FRICL_PROFILE);
#endif
#if FRICL_HAS(9)
  o9[o9_off + i] = FRICL_FN(smooth_mu_f2)(yi, e, ms, mk, FRICL_PROFILE);
#endif
#if FRICL_HAS(10)
  o10[o10_off + i] =
      FRICL_FN(smooth_mu_f1_over_x)(yi, e, ms, mk, FRICL_PROFILE);
#endif
#if FRICL_HAS(11)
  o11[o11_off + i] = FRICL_FN(smooth_mu_f2_x_minus_mu_f1_over_x3)(
      yi, e, ms, mk, FRICL_PROFILE);
#endif
}
