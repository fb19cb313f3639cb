/* force_pass.c - the friction force's pass over chunks of contacts: the
 * per-contact math of kernels/fricl_force_math.h (once per precision) on
 * the host threads, each chunk's records then added into the global
 * force and the BSR Jacobian in contact order. In core, beside the
 * barrier's pass, so that every backend can assemble through it. */
#include <stdlib.h>

#include "core/fault.h"
#include "core/force.h"
#include "core/pool.h"

#include "fricl_cl_compat.h"

#if defined(__GNUC__) || defined(__clang__)
#define FRICL_HOST_INLINE __attribute__((always_inline)) inline
#define FRICL_FLATTEN __attribute__((flatten))
#else
#define FRICL_HOST_INLINE inline
#define FRICL_FLATTEN
#endif

/* Contacts per chunk. */
#define FH_CHUNK 4096
/* Reals of one contact record: N, force (12), Jacobian (144). */
#define FH_REC 157

#define FRICL_REAL double
#define FRICL_FN(name) fricl__frc_##name##_d
#define FRICL_SQRT sqrt
#define FRICL_FABS fabs
#define FRICL_LOG log
#define FRICL_FH_FN force_host_d
#include "fricl_scalar_math.h"
/* then the potential's and the build's math, which use it */
#include "fricl_tangential_math.h"

#include "fricl_geometry_math.h"
/* then the force, which uses all three */
#include "fricl_force_math.h"
/* after the math it instantiates */
#include "force_pass_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_FABS
#undef FRICL_LOG
#undef FRICL_FH_FN

#define FRICL_REAL float
#define FRICL_FN(name) fricl__frc_##name##_f
#define FRICL_SQRT sqrtf
#define FRICL_FABS fabsf
#define FRICL_LOG logf
#define FRICL_FH_FN force_host_f
#include "fricl_scalar_math.h"
/* then the potential's and the build's math, which use it */
#include "fricl_tangential_math.h"

#include "fricl_geometry_math.h"
/* then the force, which uses all three */
#include "fricl_force_math.h"
/* after the math it instantiates */
#include "force_pass_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_FABS
#undef FRICL_LOG
#undef FRICL_FH_FN

fricl_status fricl__force_host(fricl_context *ctx, const fricl__force_work *w,
                               int threaded) {
  return w->b->precision == FRICL_F64 ? force_host_d(ctx, w, threaded)
                                      : force_host_f(ctx, w, threaded);
}
