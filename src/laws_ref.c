/* laws_ref.c - the reference backend of the friction laws: portable C,
 * single thread, built from the same math header as the kernels. <tgmath.h>
 * makes exp, pow, fabs and copysign generic, so the float instance calls
 * expf etc. as OpenCL's overloads do. */
#include <tgmath.h>

#include "laws_internal.h"

#include "../kernels/fricl_cl_compat.h"

#define FRICL_GLOBAL
#define FRICL_GMS_CAP FRICL_GMS_MAX_ELEMENTS

#define FRICL_REAL double
#define FRICL_FN(name) fricl__##name##_d
#define FRICL_REF_RUN ref_run_d
#include "../kernels/fricl_laws_math.h"
#include "laws_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_REF_RUN

#define FRICL_REAL float
#define FRICL_FN(name) fricl__##name##_f
#define FRICL_REF_RUN ref_run_f
#include "../kernels/fricl_laws_math.h"
#include "laws_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_REF_RUN

fricl_status fricl__law_run_ref(fricl_context *ctx, const fricl__law_plan *pl,
                                const fricl_law_batch *b) {
  (void)ctx;
  if (pl->prec == FRICL_F64)
    ref_run_d(pl, b);
  else
    ref_run_f(pl, b);
  return FRICL_STATUS_OK;
}
