/* laws_ref.c - the friction laws on the host, per element range: portable
 * C built from the same math header as the kernels (the reference backend
 * runs the whole batch on one thread, the host backend ranges on its
 * threads). <tgmath.h>
 * makes exp, pow, fabs and copysign generic, so the float instance calls
 * expf etc. as OpenCL's overloads do. */
#include <tgmath.h>

#include "core/laws_internal.h"
#include "host/host_isa.h"

#include "fricl_cl_compat.h"

#define FRICL_GLOBAL
#define FRICL_GMS_CAP FRICL_GMS_MAX_ELEMENTS

#define FRICL_REAL double
#define FRICL_FN(name) fricl__##name##_d
#define FRICL_REF_RUN ref_run_d
#include "fricl_laws_math.h"
#include "laws_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_REF_RUN

#define FRICL_REAL float
#define FRICL_FN(name) fricl__##name##_f
#define FRICL_REF_RUN ref_run_f
#include "fricl_laws_math.h"
#include "laws_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_REF_RUN

void FRICL_ISA_NAME(fricl__laws_range)(const fricl__law_plan *pl,
                                       const fricl_law_batch *b, size_t lo,
                                       size_t hi) {
  if (pl->prec == FRICL_F64)
    ref_run_d(pl, b, lo, hi);
  else
    ref_run_f(pl, b, lo, hi);
}
