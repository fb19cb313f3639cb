/* build_ref.c - the reference backend of the lagged build: portable C,
 * single thread, built from the same math header as the kernels (once per
 * precision). */
#include "build.h"

#include "../kernels/fricl_cl_compat.h"

#define FRICL_REAL double
#define FRICL_FN(name) fricl__b_##name##_d
#define FRICL_SQRT sqrt
#define FRICL_LOG log
#define FRICL_BREF_FN build_ref_d
#include "../kernels/fricl_geometry_math.h"
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
#include "../kernels/fricl_geometry_math.h"
#include "build_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_LOG
#undef FRICL_BREF_FN

fricl_status fricl__build_ref(fricl_context *ctx, const fricl_build_batch *b,
                              uint8_t *const *status) {
  (void)ctx;
  if (b->precision == FRICL_F64)
    build_ref_d(b, status);
  else
    build_ref_f(b, status);
  return FRICL_STATUS_OK;
}

/* The math header's integer codes are the public enums' values. */
#define FRICL_BUILD_ASSERT_(name, value, text)                                 \
  _Static_assert(FRICL_BUILD_##name == value, #name);
FRICL_BUILD_STATUS_MAP(FRICL_BUILD_ASSERT_)
#undef FRICL_BUILD_ASSERT_
_Static_assert(
    FRICL_B_OK == FRICL_BUILD_OK && FRICL_B_INACTIVE == FRICL_BUILD_INACTIVE &&
        FRICL_B_INSIDE_DMIN == FRICL_BUILD_INSIDE_DMIN &&
        FRICL_B_EE_PARALLEL == FRICL_BUILD_EE_PARALLEL &&
        FRICL_B_DEG_COINCIDENT == FRICL_BUILD_DEGENERATE_COINCIDENT &&
        FRICL_B_DEG_EDGE == FRICL_BUILD_DEGENERATE_EDGE &&
        FRICL_B_DEG_FACE == FRICL_BUILD_DEGENERATE_FACE &&
        FRICL_B_DEG_POINT_ON_LINE == FRICL_BUILD_DEGENERATE_POINT_ON_LINE &&
        FRICL_B_DEG_PARALLEL == FRICL_BUILD_DEGENERATE_PARALLEL &&
        FRICL_B_DEG_NORMAL == FRICL_BUILD_DEGENERATE_NORMAL &&
        FRICL_B_NONFINITE == FRICL_BUILD_NONFINITE &&
        FRICL_B_MU_NEGATIVE == FRICL_BUILD_MU_NEGATIVE &&
        FRICL_B_MU_NONFINITE == FRICL_BUILD_MU_NONFINITE &&
        FRICL_BUILD_STATUS_COUNT == 13,
    "build status codes");
_Static_assert(FRICL_B_VV == FRICL_STENCIL_VV &&
                   FRICL_B_EV == FRICL_STENCIL_EV &&
                   FRICL_B_EE == FRICL_STENCIL_EE &&
                   FRICL_B_FV == FRICL_STENCIL_FV &&
                   FRICL_B_PV == FRICL_STENCIL_PV,
               "stencil codes");
_Static_assert(FRICL_B_AVERAGE == FRICL_BLEND_AVERAGE &&
                   FRICL_B_MIN == FRICL_BLEND_MIN &&
                   FRICL_B_MAX == FRICL_BLEND_MAX &&
                   FRICL_B_PRODUCT == FRICL_BLEND_PRODUCT &&
                   FRICL_B_HARMONIC == FRICL_BLEND_HARMONIC,
               "blend codes");
