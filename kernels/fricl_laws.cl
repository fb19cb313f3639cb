/*
 * fricl_laws.cl - batch evaluation and stepping of the friction laws
 * (fricl_laws.h), one work item per element (contact).
 *
 * The host prepends, in this order: FRICL_EMBEDDED, the defines below,
 * fricl_cl_compat.h, fricl_laws_math.h.
 *   FRICL_REAL, FRICL_FN, FRICL_GLOBAL (__global), FRICL_GMS_CAP (= m)
 *   FRICL_LAW           law id (FRICL_LAW_*_ID)
 *   FRICL_OPTS          option bits
 *   FRICL_INTEG         integrator (stepping LuGre / GMS)
 *   FRICL_STEPPING      1: fricl_law_step, 0: fricl_law_eval
 *   FRICL_GMS_M         GMS elements per contact (1 otherwise)
 *   FRICL_ALPHA2        alpha is the batch scalar 2
 *   FRICL_NRM_MODE      normal force: 0 scalar, 1 per element, 2 per step
 *   FRICL_PARR          bit k: parameter k per element
 *   FRICL_GE_PE         GMS (k, b, nu) per element
 *   FRICL_STATE_S       state values per element
 *   FRICL_HAS_V, FRICL_HAS_X, FRICL_HAS_STIN, FRICL_HAS_STOUT,
 *   FRICL_HAS_FORCE, FRICL_HAS_DSTATE   which buffers are present
 * Per-step arrays are step-major with leading dimension `ld` (elements).
 * st_in and st_out may be the same buffer (in-place state): no restrict.
 */
#ifndef FRICL_EMBEDDED
#include "fricl_cl_compat.h"
#include "fricl_laws_math.h"
#endif

#define FRICL_PARAM_ARG(k)                                                     \
  __global const FRICL_REAL *restrict p##k##_a, ulong p##k##_off,              \
      FRICL_REAL p##k##_s
#define FRICL_PARAM_GET(k)                                                     \
  (((FRICL_PARR >> (k)) & 1) ? p##k##_a[p##k##_off + i] : p##k##_s)

__kernel void
fricl_law_run(ulong n, ulong n_steps, ulong ld, FRICL_REAL h,
              __global const FRICL_REAL *restrict v, ulong v_off,
              __global const FRICL_REAL *restrict x, ulong x_off,
              __global const FRICL_REAL *restrict nrm, ulong nrm_off,
              FRICL_REAL nrm_s, FRICL_PARAM_ARG(0), FRICL_PARAM_ARG(1),
              FRICL_PARAM_ARG(2), FRICL_PARAM_ARG(3), FRICL_PARAM_ARG(4),
              FRICL_PARAM_ARG(5), FRICL_PARAM_ARG(6),
              __global const FRICL_REAL *restrict ge, ulong ge_off,
              __global const FRICL_REAL *st_in, ulong st_in_off,
              __global FRICL_REAL *st_out, ulong st_out_off,
              __global FRICL_REAL *restrict force, ulong force_off,
              __global FRICL_REAL *restrict dstate, ulong dstate_off) {
  const size_t i = get_global_id(0);
  if (i >= n)
    return;
  const FRICL_REAL p[7] = {FRICL_PARAM_GET(0), FRICL_PARAM_GET(1),
                           FRICL_PARAM_GET(2), FRICL_PARAM_GET(3),
                           FRICL_PARAM_GET(4), FRICL_PARAM_GET(5),
                           FRICL_PARAM_GET(6)};
  const size_t s = FRICL_STATE_S;
  FRICL_FN(law_element)
  (FRICL_LAW, FRICL_OPTS, FRICL_INTEG, FRICL_GMS_M, FRICL_ALPHA2,
   FRICL_NRM_MODE, FRICL_STEPPING, n_steps, ld, h,
   FRICL_HAS_V ? v + v_off + i : 0, FRICL_HAS_X ? x + x_off + i : 0,
   FRICL_NRM_MODE ? nrm + nrm_off + i : 0, nrm_s, p,
   FRICL_LAW == FRICL_LAW_GMS_ID
       ? ge + ge_off + (FRICL_GE_PE ? i * 3 * FRICL_GMS_M : 0)
       : 0,
   FRICL_HAS_STIN ? st_in + st_in_off + i * s : 0,
   FRICL_HAS_STOUT ? st_out + st_out_off + i * s : 0,
   FRICL_HAS_FORCE ? force + force_off + i : 0,
   FRICL_HAS_DSTATE ? dstate + dstate_off + i * s : 0);
}
