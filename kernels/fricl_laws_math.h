/*
 * fricl_laws_math.h - the other friction laws of docs/friction-laws.md:
 * Exudyn StribeckFunction, RegularizedFrictionStep and RegularizedFriction
 * (spec 1-3), Modelica InverseSpeedDependentForce (4),
 * and the Fortran `friction` library's Coulomb, LuGre, Maxwell, GMS,
 * Stribeck and Modified Stribeck (5-11), with the state handling of each.
 *
 * One source of truth, as fricl_scalar_math.h: compiled into every laws
 * OpenCL program and, once per precision, into the C reference backend
 * (src/host/laws_ref.c, which includes <tgmath.h> first so that exp, pow, fabs
 * and copysign pick the float or double function). No include guard.
 *
 * The includer defines, besides FRICL_REAL and FRICL_FN:
 *   FRICL_GLOBAL     __global in OpenCL, empty in C
 *   FRICL_GMS_CAP    capacity of the private GMS state arrays (>= m)
 *
 * Conventions:
 *  - Branch tests are the spec's, operator for operator; the operation
 *    order is the upstream one where the spec's tables depend on it
 *    (e.g. (h1 - h0) * (d * d) * (3 - 2 d) in the Exudyn step).
 *  - Conditionals select values computed unconditionally (no division
 *    inside one arm of ?:), so that PoCL vectorises the loops.
 *  - NaN inputs give NaN outputs: the upstream fall-throughs of NaN into a
 *    constant branch are not reproduced (spec 0.3).
 */

#ifndef FRICL_EMBEDDED
#include "fricl/fricl_tables.h"
#endif
#ifndef FRICL_LAW_CODES_
#define FRICL_LAW_CODES_
/* Law and integrator codes: the public enums' values, from the same tables
 * (<fricl/fricl_tables.h>). */
enum {
#define FRICL_LAW_ID_(name, value, text) FRICL_LAW_##name##_ID = value,
  FRICL_LAW_MAP(FRICL_LAW_ID_)
#undef FRICL_LAW_ID_
#define FRICL_INTEG_(name, value, text) FRICL_INTEG_##name = value,
      FRICL_INTEGRATOR_MAP(FRICL_INTEG_)
#undef FRICL_INTEG_
};
/* The laws law_element implements, one a branch of its force chain. The
 * check below names every row of FRICL_LAW_MAP: a law added to the table
 * without its branch (and its entry here) fails to compile instead of
 * computing a zero force. */
enum {
  FRICL_LAW_IMPL_EXUDYN_STRIBECK = 1,
  FRICL_LAW_IMPL_EXUDYN_STEP = 1,
  FRICL_LAW_IMPL_EXUDYN_REGULARIZED = 1,
  FRICL_LAW_IMPL_ISDF = 1,
  FRICL_LAW_IMPL_COULOMB = 1,
  FRICL_LAW_IMPL_STRIBECK = 1,
  FRICL_LAW_IMPL_MAXWELL = 1,
  FRICL_LAW_IMPL_MODIFIED_STRIBECK = 1,
  FRICL_LAW_IMPL_LUGRE = 1,
  FRICL_LAW_IMPL_GMS = 1
};
#define FRICL_LAW_IMPL_(name, value, text) +FRICL_LAW_IMPL_##name
enum { FRICL_LAW_IMPL_ALL_ = 0 FRICL_LAW_MAP(FRICL_LAW_IMPL_) };
#undef FRICL_LAW_IMPL_
/* Option bits (fricl_laws.h FRICL_LAW_OPT_*). */
#define FRICL_LAW_OPT_ISDF_CONTINUOUS_BIT 0x1u
#define FRICL_LAW_OPT_STRIBECK_ODD_BIT 0x2u
#define FRICL_LAW_OPT_LUGRE_EXP_SHAPE_BIT 0x4u
#endif

/* ---------------------------------------------------------------- signs */

/* sgn0: -1, 0, +1; a zero keeps its sign (either conforms), NaN -> NaN. */
FRICL_INLINE FRICL_REAL FRICL_FN(law_sgn0)(FRICL_REAL x) {
  return x > FRICL_R(0) ? FRICL_R(1) : (x < FRICL_R(0) ? FRICL_R(-1) : x);
}

/* fsign: Fortran sign(1d0, x), +1 at +0 and -1 at -0; NaN -> NaN. */
FRICL_INLINE FRICL_REAL FRICL_FN(law_fsign)(FRICL_REAL x) {
  const FRICL_REAL s = copysign(FRICL_R(1), x);
  return x == x ? s : x;
}

/* min(a, b) where a NaN or b NaN gives NaN (fmin would drop it). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_min_nan)(FRICL_REAL a, FRICL_REAL b) {
  const FRICL_REAL m = b < a ? b : a;
  return b == b ? m : b;
}

/* (|v|/vs)^alpha; alpha == 2 is squared exactly (pow may be 16 ULP off in
 * OpenCL, spec 0.3), `alpha2` says so (a literal in kernels). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_shape_pow)(FRICL_REAL av, FRICL_REAL vs,
                                                FRICL_REAL alpha, int alpha2) {
  const FRICL_REAL r = av / vs;
  return alpha2 ? r * r : pow(r, alpha);
}

/* ------------------------------------------------------ Exudyn (spec 1-3) */

/* StribeckFunction(v, muDynamic, muStaticOffset, muViscous, expVel,
 * regVel); the ramp divides by regVel (the code, not the docs). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_exudyn_stribeck)(
    FRICL_REAL v, FRICL_REAL mud, FRICL_REAL muo, FRICL_REAL muv,
    FRICL_REAL vexp, FRICL_REAL vreg) {
  const FRICL_REAL av = fabs(v);
  const FRICL_REAL ramp = (mud + muo) * v / vreg;
  const FRICL_REAL w = av - vreg;
  const FRICL_REAL out =
      FRICL_FN(law_sgn0)(v) * (mud + muo * exp(-w / vexp) + muv * w);
  return (av <= vreg && vreg != FRICL_R(0)) ? ramp : out;
}

/* RegularizedFrictionStep(x, x0, h0, x1, h1): cubic Hermite step. NaN x
 * gives NaN (upstream: h1). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_exudyn_step)(FRICL_REAL x, FRICL_REAL x0,
                                                  FRICL_REAL h0, FRICL_REAL x1,
                                                  FRICL_REAL h1) {
  const FRICL_REAL d = (x - x0) / (x1 - x0);
  const FRICL_REAL mid =
      h0 + (h1 - h0) * (d * d) * (FRICL_R(3) - FRICL_R(2) * d);
  const FRICL_REAL r = x <= x0 ? h0 : (x < x1 ? mid : h1);
  return x == x ? r : x;
}

/* RegularizedFriction(v, muDynamic, muStaticOffset, velStatic, velDynamic,
 * muViscous). NaN v gives NaN (upstream: +mus'). */
FRICL_INLINE FRICL_REAL
FRICL_FN(law_exudyn_regularized)(FRICL_REAL v, FRICL_REAL mud, FRICL_REAL muo,
                                 FRICL_REAL vs, FRICL_REAL vd, FRICL_REAL muv) {
  const FRICL_REAL mus = mud + muo;
  const FRICL_REAL av = fabs(v);
  const FRICL_REAL s = FRICL_FN(law_sgn0)(v);
  const FRICL_REAL outer = s * (mud + (av - vd) * muv);
  const FRICL_REAL middle = s * FRICL_FN(law_exudyn_step)(av, vs, mus, vd, mud);
  const FRICL_REAL inner = FRICL_FN(law_exudyn_step)(v, -vs, -mus, vs, mus);
  const FRICL_REAL r =
      av > vd ? outer : ((vs <= av && av <= vd) ? middle : inner);
  return v == v ? r : v;
}

/* ------------------------------------------------- Modelica ISDF (spec 4) */

/* f (flange force; the body receives -f). direction: ForceDirection (1/0).
 * `continuous` replaces the inner branch of ForceDirection = false by
 * -f_nominal v_nominal v / v0^2 (not upstream). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_isdf)(FRICL_REAL v, FRICL_REAL fnom,
                                           FRICL_REAL vnom, FRICL_REAL v0,
                                           FRICL_REAL direction,
                                           int continuous) {
  const FRICL_REAL av = fabs(v);
  const int in = av < v0;
  const int dir = direction != FRICL_R(0);
  /* One division on selected operands. */
  const FRICL_REAL in_num = continuous ? vnom * v : v;
  const FRICL_REAL in_den = continuous ? v0 * v0 : v0;
  const FRICL_REAL num = dir ? vnom : (in ? in_num : vnom);
  const FRICL_REAL den = dir ? (in ? v0 : av) : (in ? in_den : v);
  return -fnom * (num / den);
}

/* ------------------------------------- Fortran `friction` (spec 5-11) */

/* Coulomb: mu N fsign(v) for v != 0, +0 at v = +-0, NaN for NaN. */
FRICL_INLINE FRICL_REAL FRICL_FN(law_coulomb)(FRICL_REAL v, FRICL_REAL n,
                                              FRICL_REAL mu) {
  const FRICL_REAL f = mu * n * FRICL_FN(law_fsign)(v);
  return v != FRICL_R(0) ? f : FRICL_R(0);
}

/* Stribeck: fsign(v) (Fc + (Fs - Fc) exp(-|v/vs|^2) + bv v), the viscous
 * term inside the sign (upstream); `odd` puts bv v outside (seed 004). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_stribeck)(FRICL_REAL v, FRICL_REAL n,
                                               FRICL_REAL mus, FRICL_REAL muc,
                                               FRICL_REAL vs, FRICL_REAL bv,
                                               int odd) {
  const FRICL_REAL fc = muc * n;
  const FRICL_REAL fs = mus * n;
  const FRICL_REAL t = fabs(v / vs);
  const FRICL_REAL curve = fc + (fs - fc) * exp(-(t * t));
  const FRICL_REAL s = FRICL_FN(law_fsign)(v);
  return odd ? s * curve + bv * v : s * (curve + bv * v);
}

/* The elastic-plastic element of Maxwell and Modified Stribeck: the new
 * deflection for position x, state (xp, dp) and slip limit lim. */
FRICL_INLINE FRICL_REAL FRICL_FN(law_maxwell_d)(FRICL_REAL x, FRICL_REAL xp,
                                                FRICL_REAL dp, FRICL_REAL lim) {
  const FRICL_REAL q = x - xp + dp;
  return FRICL_FN(law_fsign)(q) * FRICL_FN(law_min_nan)(fabs(q), lim);
}

/* Slip limit of Maxwell: N mu / k. */
FRICL_INLINE FRICL_REAL FRICL_FN(law_maxwell_lim)(FRICL_REAL n, FRICL_REAL k,
                                                  FRICL_REAL mu) {
  return n * mu / k;
}

/* Slip limit of Modified Stribeck: a1 + a2 exp(-|v/vs|^2). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_mstribeck_lim)(FRICL_REAL v, FRICL_REAL n,
                                                    FRICL_REAL mus,
                                                    FRICL_REAL muc,
                                                    FRICL_REAL vs,
                                                    FRICL_REAL k) {
  const FRICL_REAL a1 = muc * n / k;
  const FRICL_REAL a2 = n * (mus - muc) / k;
  const FRICL_REAL t = fabs(v / vs);
  return a1 + a2 * exp(-(t * t));
}

/* g(v) of LuGre and s(v) of GMS (length units): a1 + a2 / (1 + (|v|/vs)^a).
 * LuGre writes a1 = Fc / sigma0, a2 = (Fs - Fc) / sigma0 with Fc = N muc,
 * Fs = N mus; GMS (`gms`) writes a1 = muc N / sigma0, a2 = N (mus - muc) /
 * sigma0; each is kept. `exp_shape` (LuGre option, not upstream):
 * a1 + a2 exp(-(|v|/vs)^a). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_bristle_g)(FRICL_REAL v, FRICL_REAL n,
                                                FRICL_REAL mus, FRICL_REAL muc,
                                                FRICL_REAL vs, FRICL_REAL s0,
                                                FRICL_REAL alpha, int alpha2,
                                                int exp_shape, int gms) {
  const FRICL_REAL a1 = n * muc / s0;
  const FRICL_REAL a2 = (gms ? n * (mus - muc) : n * mus - n * muc) / s0;
  const FRICL_REAL sh = FRICL_FN(law_shape_pow)(fabs(v), vs, alpha, alpha2);
  const FRICL_REAL rational = a2 / (FRICL_R(1) + sh);
  return a1 + (exp_shape ? a2 * exp(-sh) : rational);
}

/* LuGre dz/dt = v - |v| z / g. */
FRICL_INLINE FRICL_REAL FRICL_FN(law_lugre_dz)(FRICL_REAL v, FRICL_REAL z,
                                               FRICL_REAL g) {
  return v - fabs(v) * z / g;
}

/* LuGre state after a step h with v and g held: Euler, RK4 or the exact
 * exponential update z_ss + (z - z_ss) exp(-|v| h / g), z_ss = sgn(v) g. */
FRICL_INLINE FRICL_REAL FRICL_FN(law_lugre_advance)(FRICL_REAL v, FRICL_REAL z,
                                                    FRICL_REAL g, FRICL_REAL h,
                                                    int integ) {
  if (integ == FRICL_INTEG_EXP) {
    const FRICL_REAL zss = FRICL_FN(law_sgn0)(v) * g;
    return zss + (z - zss) * exp(-(fabs(v) * h / g));
  }
  const FRICL_REAL k1 = FRICL_FN(law_lugre_dz)(v, z, g);
  if (integ == FRICL_INTEG_EULER)
    return z + h * k1;
  const FRICL_REAL hh = h * (FRICL_R(1) / FRICL_R(2));
  const FRICL_REAL k2 = FRICL_FN(law_lugre_dz)(v, z + hh * k1, g);
  const FRICL_REAL k3 = FRICL_FN(law_lugre_dz)(v, z + hh * k2, g);
  const FRICL_REAL k4 = FRICL_FN(law_lugre_dz)(v, z + h * k3, g);
  return z + h / FRICL_R(6) * (k1 + FRICL_R(2) * k2 + FRICL_R(2) * k3 + k4);
}

/* GMS dz_i/dt for one element: v while |z| <= s ("stick", unscaled s),
 * else fsign(v) nu C (1 - z / (nu s)) (library behaviour, spec 9). */
FRICL_INLINE FRICL_REAL FRICL_FN(law_gms_dz)(FRICL_REAL v, FRICL_REAL fs,
                                             FRICL_REAL s, FRICL_REAL c,
                                             FRICL_REAL nu, FRICL_REAL z) {
  const FRICL_REAL slip = fs * nu * c * (FRICL_R(1) - z / (nu * s));
  return fabs(z) <= s ? v : slip;
}

/* ----------------------------------------------------- one element's run */

/*
 * Everything one element (contact) i does in one call, shared by the
 * kernel and the C reference so that both follow the same operations:
 *   law, opts, integ, m, alpha2, nrm_mode: specialisation (literals in
 *     kernels): nrm_mode 0 batch scalar, 1 per element, 2 per step;
 *   stepping: 0 = fricl_law_eval (one sample; LuGre/GMS give F and dz/dt
 *     at the given state), 1 = fricl_law_step (n_steps samples; LuGre/GMS
 *     give F at the state before each step, then advance it by h);
 *   v, x, nrm, force: this element's first entry, next step at +ld;
 *   p: the 7 law parameters of this element; ge: its GMS (k, b, nu) x m;
 *   st_in / st_out: its state (NULL in: zero state; NULL out: not
 *     written); dstate: its dz/dt (eval, LuGre/GMS), may be NULL.
 * st_in and st_out may be the same memory: the state is read before any
 * write.
 */
FRICL_INLINE void FRICL_FN(law_element)(
    const int law, const unsigned opts, const int integ, const int m,
    const int alpha2, const int nrm_mode, const int stepping,
    const size_t n_steps, const size_t ld, const FRICL_REAL h,
    const FRICL_GLOBAL FRICL_REAL *v, const FRICL_GLOBAL FRICL_REAL *x,
    const FRICL_GLOBAL FRICL_REAL *nrm, const FRICL_REAL nrm_s,
    const FRICL_REAL *p, const FRICL_GLOBAL FRICL_REAL *ge,
    const FRICL_GLOBAL FRICL_REAL *st_in, FRICL_GLOBAL FRICL_REAL *st_out,
    FRICL_GLOBAL FRICL_REAL *force, FRICL_GLOBAL FRICL_REAL *dstate) {
  FRICL_REAL s0 = FRICL_R(0), s1 = FRICL_R(0);
  FRICL_REAL z[FRICL_GMS_CAP];
  if (law == FRICL_LAW_MAXWELL_ID || law == FRICL_LAW_MODIFIED_STRIBECK_ID) {
    if (st_in) {
      s0 = st_in[0];
      s1 = st_in[1];
    }
  } else if (law == FRICL_LAW_LUGRE_ID) {
    if (st_in)
      s0 = st_in[0];
  } else if (law == FRICL_LAW_GMS_ID) {
    for (int j = 0; j < m; ++j)
      z[j] = st_in ? st_in[j] : FRICL_R(0);
  }
  const size_t steps = stepping ? n_steps : 1;
  for (size_t s = 0; s < steps; ++s) {
    const size_t o = s * ld;
    const FRICL_REAL vi = v ? v[o] : FRICL_R(0);
    const FRICL_REAL nn =
        nrm_mode == 0 ? nrm_s : (nrm_mode == 1 ? nrm[0] : nrm[o]);
    FRICL_REAL f = FRICL_R(0);
    if (law == FRICL_LAW_EXUDYN_STRIBECK_ID) {
      f = FRICL_FN(law_exudyn_stribeck)(vi, p[0], p[1], p[2], p[3], p[4]);
    } else if (law == FRICL_LAW_EXUDYN_STEP_ID) {
      f = FRICL_FN(law_exudyn_step)(vi, p[0], p[1], p[2], p[3]);
    } else if (law == FRICL_LAW_EXUDYN_REGULARIZED_ID) {
      f = FRICL_FN(law_exudyn_regularized)(vi, p[0], p[1], p[2], p[3], p[4]);
    } else if (law == FRICL_LAW_ISDF_ID) {
      f = FRICL_FN(law_isdf)(vi, p[0], p[1], p[2], p[3],
                             (opts & FRICL_LAW_OPT_ISDF_CONTINUOUS_BIT) != 0);
    } else if (law == FRICL_LAW_COULOMB_ID) {
      f = FRICL_FN(law_coulomb)(vi, nn, p[0]);
    } else if (law == FRICL_LAW_STRIBECK_ID) {
      f = FRICL_FN(law_stribeck)(vi, nn, p[0], p[1], p[2], p[3],
                                 (opts & FRICL_LAW_OPT_STRIBECK_ODD_BIT) != 0);
    } else if (law == FRICL_LAW_MAXWELL_ID) {
      const FRICL_REAL xi = x[o];
      const FRICL_REAL d = FRICL_FN(law_maxwell_d)(
          xi, s0, s1, FRICL_FN(law_maxwell_lim)(nn, p[0], p[1]));
      f = p[0] * d;
      s0 = xi;
      s1 = d;
    } else if (law == FRICL_LAW_MODIFIED_STRIBECK_ID) {
      const FRICL_REAL xi = x[o];
      const FRICL_REAL d = FRICL_FN(law_maxwell_d)(
          xi, s0, s1,
          FRICL_FN(law_mstribeck_lim)(vi, nn, p[0], p[1], p[2], p[4]));
      f = p[4] * d + p[3] * vi;
      s0 = xi;
      s1 = d;
    } else if (law == FRICL_LAW_LUGRE_ID) {
      /* p: mus, muc, vs, sigma0, sigma1, sigma2, alpha */
      const FRICL_REAL g = FRICL_FN(law_bristle_g)(
          vi, nn, p[0], p[1], p[2], p[3], p[6], alpha2,
          (opts & FRICL_LAW_OPT_LUGRE_EXP_SHAPE_BIT) != 0, 0);
      const FRICL_REAL dz = FRICL_FN(law_lugre_dz)(vi, s0, g);
      f = p[3] * s0 + p[4] * dz + p[5] * vi;
      if (stepping)
        s0 = FRICL_FN(law_lugre_advance)(vi, s0, g, h, integ);
      else if (dstate)
        dstate[0] = dz;
    } else if (law == FRICL_LAW_GMS_ID) {
      /* p: mus, muc, C, sigma0, bv, vs, alpha; ge: (k, b, nu) x m */
      const FRICL_REAL g = FRICL_FN(law_bristle_g)(vi, nn, p[0], p[1], p[5],
                                                   p[3], p[6], alpha2, 0, 1);
      const FRICL_REAL fs = FRICL_FN(law_fsign)(vi);
      FRICL_REAL k1[FRICL_GMS_CAP];
      FRICL_ORDERED FRICL_REAL fsum = FRICL_R(0);
      for (int j = 0; j < m; ++j) {
        k1[j] = FRICL_FN(law_gms_dz)(vi, fs, g, p[2], ge[3 * j + 2], z[j]);
        fsum = fsum + (ge[3 * j] * z[j] + ge[3 * j + 1] * k1[j]);
      }
      f = fsum + p[4] * vi;
      if (!stepping) {
        if (dstate)
          for (int j = 0; j < m; ++j)
            dstate[j] = k1[j];
      } else if (integ == FRICL_INTEG_EULER) {
        for (int j = 0; j < m; ++j)
          z[j] = z[j] + h * k1[j];
      } else {
        /* Classic RK4 with v and N held over the step. */
        const FRICL_REAL hh = h * (FRICL_R(1) / FRICL_R(2));
        FRICL_REAL acc[FRICL_GMS_CAP], k[FRICL_GMS_CAP];
        for (int j = 0; j < m; ++j)
          acc[j] = k1[j];
        for (int stage = 1; stage < 4; ++stage) {
          const FRICL_REAL hs = stage == 3 ? h : hh;
          const FRICL_REAL w = stage == 3 ? FRICL_R(1) : FRICL_R(2);
          for (int j = 0; j < m; ++j) {
            const FRICL_REAL prev = stage == 1 ? k1[j] : k[j];
            k[j] = FRICL_FN(law_gms_dz)(vi, fs, g, p[2], ge[3 * j + 2],
                                        z[j] + hs * prev);
          }
          for (int j = 0; j < m; ++j)
            acc[j] = acc[j] + w * k[j];
        }
        for (int j = 0; j < m; ++j)
          z[j] = z[j] + h / FRICL_R(6) * acc[j];
      }
    }
    if (force)
      force[o] = f;
  }
  if (st_out) {
    if (law == FRICL_LAW_MAXWELL_ID || law == FRICL_LAW_MODIFIED_STRIBECK_ID) {
      st_out[0] = s0;
      st_out[1] = s1;
    } else if (law == FRICL_LAW_LUGRE_ID) {
      st_out[0] = s0;
    } else if (law == FRICL_LAW_GMS_ID) {
      for (int j = 0; j < m; ++j)
        st_out[j] = z[j];
    }
  }
}
