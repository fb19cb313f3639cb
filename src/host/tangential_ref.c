/* tangential_ref.c - the reference backend of the tangential potential:
 * portable C, single thread, built from the same math headers as the
 * kernels (once per precision). The simple side of the tests: runtime loop
 * bounds, one pass over the contacts, sums in the documented order. */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/tangential.h"
#include "host/host_isa.h"

#include "fricl_cl_compat.h"

#define FRICL_REAL double
#define FRICL_FN(name) fricl__t_##name##_d
#define FRICL_FABS fabs
#define FRICL_SQRT sqrt
#define FRICL_TREF_FN tangential_ref_d
#include "fricl_scalar_math.h"
#include "fricl_tangential_math.h"
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
#include "fricl_scalar_math.h"
#include "fricl_tangential_math.h"
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
