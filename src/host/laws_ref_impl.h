/*
 * laws_ref_impl.h - the reference backend's loop for one precision;
 * included by laws_ref.c once per precision with FRICL_REAL, FRICL_FN and
 * FRICL_REF_RUN set. No include guard on purpose.
 *
 * One loop per law with the law a literal, so that the compiler folds the
 * law dispatch of fricl_law_element out of each loop.
 */
static void FRICL_REF_RUN(const fricl__law_plan *pl, const fricl_law_batch *b,
                          size_t lo, size_t hi) {
  const FRICL_REAL *const v = pl->has_v ? (const FRICL_REAL *)b->v : NULL;
  const FRICL_REAL *const x = pl->has_x ? (const FRICL_REAL *)b->x : NULL;
  const FRICL_REAL *const nrm =
      pl->nrm_mode > 0 ? (const FRICL_REAL *)b->normal : NULL;
  const FRICL_REAL *const ge =
      pl->has_ge ? (const FRICL_REAL *)b->gms_params : NULL;
  const FRICL_REAL *const st = (const FRICL_REAL *)b->state;
  FRICL_REAL *const so = (FRICL_REAL *)b->state_out;
  FRICL_REAL *const f = (FRICL_REAL *)b->force;
  FRICL_REAL *const ds = (FRICL_REAL *)b->dstate;
  const FRICL_REAL *pa[FRICL__LAW_KPARAMS];
  FRICL_REAL ps[FRICL__LAW_KPARAMS];
  for (int k = 0; k < FRICL__LAW_KPARAMS; ++k) {
    pa[k] = (pl->param_arrays >> k) & 1u ? (const FRICL_REAL *)b->param_array[k]
                                         : NULL;
    ps[k] = (FRICL_REAL)pl->param[k];
  }
  const size_t n = pl->n, s = pl->state, m3 = 3 * pl->m;
  const int nrm_mode = pl->nrm_mode < 0 ? 0 : pl->nrm_mode;
  const FRICL_REAL nrm_s = (FRICL_REAL)pl->normal_force;
  const FRICL_REAL h = (FRICL_REAL)pl->h;
#define FRICL_REF_LOOP(LAW)                                                    \
  for (size_t i = lo; i < hi; ++i) {                                           \
    FRICL_REAL p[FRICL__LAW_KPARAMS];                                          \
    for (int k = 0; k < FRICL__LAW_KPARAMS; ++k)                               \
      p[k] = pa[k] ? pa[k][i] : ps[k];                                         \
    FRICL_FN(law_element)                                                      \
    ((LAW), pl->options, pl->integ, (int)pl->m, pl->alpha2, nrm_mode,          \
     pl->stepping, pl->n_steps, n, h, v ? v + i : NULL, x ? x + i : NULL,      \
     nrm ? nrm + i : NULL, nrm_s, p,                                           \
     ge ? ge + (pl->ge_per_element ? i * m3 : 0) : NULL,                       \
     st ? st + i * s : NULL, so ? so + i * s : NULL, f ? f + i : NULL,         \
     ds ? ds + i * s : NULL);                                                  \
  }                                                                            \
  break;
  /* One case per row of the law table (no default law: the entry points
   * reject an unknown law before any work, and a law added to the table
   * has its loop here without an edit). */
#define FRICL_REF_CASE(name, value, text)                                      \
  case FRICL_LAW_##name##_ID:                                                  \
    FRICL_REF_LOOP(FRICL_LAW_##name##_ID)
  switch ((int)pl->law) {
    FRICL_LAW_MAP(FRICL_REF_CASE)
  default:
    break;
  }
#undef FRICL_REF_CASE
#undef FRICL_REF_LOOP
}
