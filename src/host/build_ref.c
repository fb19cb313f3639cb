/* build_ref.c - the lagged build on the host: portable C built from the
 * same math header as the kernels (once per precision), per contact range
 * of a group. The reference backend runs every group whole on one thread;
 * the host backend runs ranges on its threads (contacts are independent,
 * so the split never changes a bit). */
#include "core/lagged_build.h"
#include "host/host_isa.h"

#include "fricl_cl_compat.h"

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

void fricl__build_range(const fricl_build_batch *b, uint8_t *const *status,
                        size_t g, size_t lo, size_t hi) {
  if (b->precision == FRICL_F64)
    build_ref_d(b, status, g, lo, hi);
  else
    build_ref_f(b, status, g, lo, hi);
}
