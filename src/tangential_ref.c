/* tangential_ref.c - the reference backend of the tangential potential:
 * portable C, single thread, built from the same math headers as the
 * kernels (once per precision). */
#include <stdlib.h>

#include "fault.h"
#include "tangential.h"

#include "../kernels/fricl_cl_compat.h"

#define FRICL_REAL double
#define FRICL_FN(name) fricl__t_##name##_d
#define FRICL_FABS fabs
#define FRICL_SQRT sqrt
#define FRICL_TREF_FN tangential_ref_d
#include "../kernels/fricl_scalar_math.h"
#include "../kernels/fricl_tangential_math.h"
#include "tangential_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_SQRT
#undef FRICL_TREF_FN

#define FRICL_REAL float
#define FRICL_FN(name) fricl__t_##name##_f
#define FRICL_FABS fabsf
#define FRICL_SQRT sqrtf
#define FRICL_TREF_FN tangential_ref_f
#include "../kernels/fricl_scalar_math.h"
#include "../kernels/fricl_tangential_math.h"
#include "tangential_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_SQRT
#undef FRICL_TREF_FN

fricl_status fricl__tangential_ref(fricl_context *ctx,
                                   const fricl_tangential_batch *b,
                                   const fricl_tangential_plan *plan,
                                   int need_hess) {
  return b->precision == FRICL_F64 ? tangential_ref_d(ctx, b, plan, need_hess)
                                   : tangential_ref_f(ctx, b, plan, need_hess);
}

/* The math header's integer codes are the public enums' values. */
_Static_assert(FRICL_T_VV == FRICL_STENCIL_VV &&
                   FRICL_T_EV == FRICL_STENCIL_EV &&
                   FRICL_T_EE == FRICL_STENCIL_EE &&
                   FRICL_T_FV == FRICL_STENCIL_FV &&
                   FRICL_T_PV == FRICL_STENCIL_PV,
               "stencil codes");
_Static_assert(FRICL_T_PSD_NONE == FRICL_PSD_NONE &&
                   FRICL_T_PSD_CLAMP == FRICL_PSD_CLAMP &&
                   FRICL_T_PSD_ABS == FRICL_PSD_ABS,
               "psd codes");
