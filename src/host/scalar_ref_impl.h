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
  /* One loop per row of the term table: a term added there without its
   * math function fails to compile here. */
#define FRICL_REF_LOOP_0(t, fn) FRICL_REF_LOOP2(t, fn)
#define FRICL_REF_LOOP_1(t, fn) FRICL_REF_LOOP4(t, fn)
#define FRICL_REF_TERM(name, value, fn, mu) FRICL_REF_LOOP_##mu(value, fn)
  FRICL_TERM_MAP(FRICL_REF_TERM)
#undef FRICL_REF_TERM
#undef FRICL_REF_LOOP_0
#undef FRICL_REF_LOOP_1
#undef FRICL_REF_LOOP2
#undef FRICL_REF_LOOP4
}
