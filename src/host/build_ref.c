/* build_ref.c - the lagged build on the host: portable C built from the
 * same math header as the kernels (once per precision), per contact range
 * of a group. The reference backend runs every group whole on one thread;
 * the host backend runs ranges on its threads (contacts are independent,
 * so the split never changes a bit). */
#include "core/lagged_build.h"
#include "host/host_isa.h"

#include "fricl_cl_compat.h"

/* The loop body is inlined into each specialised caller, and with it the
 * math (flatten), so that constant stencil and dimension fold away. */
#if defined(__GNUC__) || defined(__clang__)
#define FRICL_HOST_INLINE __attribute__((always_inline))
#define FRICL_FLATTEN __attribute__((flatten))
#else
#define FRICL_HOST_INLINE
#define FRICL_FLATTEN
#endif

#define FRICL_REAL double
#define FRICL_FN(name) fricl__b_##name##_d
#define FRICL_SQRT sqrt
#define FRICL_LOG log
#define FRICL_BREF_FN build_ref_d
#include "fricl_geometry_math.h"
/* after the math it instantiates */
#include "build_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_LOG
#undef FRICL_BREF_FN

#define FRICL_REAL float
#define FRICL_FN(name) fricl__b_##name##_f
#define FRICL_SQRT sqrtf
#define FRICL_LOG logf
#define FRICL_BREF_FN build_ref_f
#include "fricl_geometry_math.h"
/* after the math it instantiates */
#include "build_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_LOG
#undef FRICL_BREF_FN

/* The loops of every (stencil, dim) that exists, per precision. */
#define SPECIALISED(T, name, TYPE, DIM, body)                                  \
  static FRICL_FLATTEN void name(const fricl_build_batch *b,                   \
                                 uint8_t *const *status, size_t g, size_t lo,  \
                                 size_t hi) {                                  \
    body(b, status, g, lo, hi, TYPE, DIM);                                     \
  }
#define ALL_STENCILS(X, P, body)                                               \
  X(P, vv3_##P, FRICL_B_VV, 3, body)                                           \
  X(P, ev3_##P, FRICL_B_EV, 3, body)                                           \
  X(P, ee3_##P, FRICL_B_EE, 3, body)                                           \
  X(P, fv3_##P, FRICL_B_FV, 3, body)                                           \
  X(P, pv3_##P, FRICL_B_PV, 3, body)                                           \
  X(P, vv2_##P, FRICL_B_VV, 2, body)                                           \
  X(P, ev2_##P, FRICL_B_EV, 2, body)                                           \
  X(P, pv2_##P, FRICL_B_PV, 2, body)
ALL_STENCILS(SPECIALISED, d, build_ref_d)
ALL_STENCILS(SPECIALISED, f, build_ref_f)
#undef SPECIALISED
#undef ALL_STENCILS

typedef void (*build_fn)(const fricl_build_batch *, uint8_t *const *, size_t,
                         size_t, size_t);

/* [precision][dim - 2][stencil]; NULL: the stencil does not exist there. */
static const build_fn specialised[2][2][FRICL_STENCIL_COUNT] = {
    {{vv2_d, ev2_d, NULL, NULL, pv2_d}, {vv3_d, ev3_d, ee3_d, fv3_d, pv3_d}},
    {{vv2_f, ev2_f, NULL, NULL, pv2_f}, {vv3_f, ev3_f, ee3_f, fv3_f, pv3_f}}};

void fricl__build_range_host(const fricl_build_batch *b, uint8_t *const *status,
                             size_t g, size_t lo, size_t hi) {
  specialised[b->precision == FRICL_F32][b->dim - 2][b->groups[g].type](
      b, status, g, lo, hi);
}

void fricl__build_range(const fricl_build_batch *b, uint8_t *const *status,
                        size_t g, size_t lo, size_t hi) {
  const int type = (int)b->groups[g].type;
  if (b->precision == FRICL_F64)
    build_ref_d(b, status, g, lo, hi, type, b->dim);
  else
    build_ref_f(b, status, g, lo, hi, type, b->dim);
}
