/*
 * scalar_ref_impl.h - the reference backend's loops for one precision;
 * included by scalar_ref.c once per precision with FRICL_REAL, FRICL_FN,
 * FRICL_FABS and FRICL_REF_BLOCK_FN set. No include guard on purpose.
 *
 * Work goes in blocks of FRICL_REF_BLOCK elements and, within a block, one
 * branch-free loop per requested term with the profile a literal, so that
 * the compiler vectorises every loop and y stays in cache across terms.
 */
static void FRICL_REF_BLOCK_FN(size_t m, const FRICL_REAL *restrict y,
                               const FRICL_REAL *restrict e,
                               const FRICL_REAL *restrict ms,
                               const FRICL_REAL *restrict mk, unsigned mask,
                               int profile, FRICL_REAL *const *out,
                               size_t off) {
#define FRICL_REF_LOOP2(t, fn)                                                 \
  if (mask & (1u << (t))) {                                                    \
    FRICL_REAL *restrict o = out[t] + off;                                     \
    for (size_t i = 0; i < m; ++i)                                             \
      o[i] = FRICL_FN(fn)(y[i], e[i]);                                         \
  }
#define FRICL_REF_LOOP4(t, fn)                                                 \
  if (mask & (1u << (t))) {                                                    \
    FRICL_REAL *restrict o = out[t] + off;                                     \
    if (profile == FRICL_PROFILE_IPCTK)                                        \
      for (size_t i = 0; i < m; ++i)                                           \
        o[i] = FRICL_FN(fn)(y[i], e[i], ms[i], mk[i], FRICL_PROFILE_IPCTK);    \
    else                                                                       \
      for (size_t i = 0; i < m; ++i)                                           \
        o[i] = FRICL_FN(fn)(y[i], e[i], ms[i], mk[i], FRICL_PROFILE_CUBIC);    \
  }
  FRICL_REF_LOOP2(0, smooth_friction_f0)
  FRICL_REF_LOOP2(1, smooth_friction_f1)
  FRICL_REF_LOOP2(2, smooth_friction_f2)
  FRICL_REF_LOOP2(3, smooth_friction_f1_over_x)
  FRICL_REF_LOOP2(4, smooth_friction_f2_x_minus_f1_over_x3)
  FRICL_REF_LOOP4(5, smooth_mu)
  FRICL_REF_LOOP4(6, smooth_mu_derivative)
  FRICL_REF_LOOP4(7, smooth_mu_f0)
  FRICL_REF_LOOP4(8, smooth_mu_f1)
  FRICL_REF_LOOP4(9, smooth_mu_f2)
  FRICL_REF_LOOP4(10, smooth_mu_f1_over_x)
  FRICL_REF_LOOP4(11, smooth_mu_f2_x_minus_mu_f1_over_x3)
#undef FRICL_REF_LOOP2
#undef FRICL_REF_LOOP4
}
