/* barrier_pass.c - the barrier's pass over chunks of contacts: the
 * per-contact math of kernels/fricl_barrier_math.h (once per precision) on
 * the host threads, or the records a backend supplies
 * (fricl__barrier_source), each chunk's records then added into the global
 * outputs in contact order on the calling thread. In core, not in
 * src/host, because every backend assembles through it and backends never
 * call each other. */
#include <stdlib.h>

#include "core/barrier.h"
#include "core/fault.h"
#include "core/pass_common.h"
#include "core/pool.h"

#include "fricl_cl_compat.h"

/* Contacts per chunk (a multiple of FRICL__POT_BLOCK). */
#define BH_CHUNK 4096
/* Reals of one contact record: B, gradient (12), Hessian (144). */
#define BH_REC 157
/* Reals of one contact's extras (barrier_contact_extras): N, its gradient
 * (12), the Gauss-Newton diagonal (12) and quadratic form. */
#define BH_XREC 26
/* barrier_contact_extras reads barrier_force (fricl_geometry_math.h) */
#define FRICL_BARRIER_FORCE_MAGNITUDE 1

#define FRICL_REAL double
#define FRICL_FN(name) fricl__bar_##name##_d
#define FRICL_SQRT sqrt
#define FRICL_LOG log
#define FRICL_BH_FN barrier_host_d
/* the distance math, and with it the lagged build's barrier force */
#include "fricl_geometry_math.h"
/* then the eigen solver, adhesion and the barrier, which use them */
#include "fricl_adhesion_math.h"
#include "fricl_eigen_math.h"

#include "fricl_barrier_math.h"
/* after the math it instantiates */
#include "barrier_pass_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_LOG
#undef FRICL_BH_FN

#define FRICL_REAL float
#define FRICL_FN(name) fricl__bar_##name##_f
#define FRICL_SQRT sqrtf
#define FRICL_LOG logf
#define FRICL_BH_FN barrier_host_f
/* the distance math, and with it the lagged build's barrier force */
#include "fricl_geometry_math.h"
/* then the eigen solver, adhesion and the barrier, which use them */
#include "fricl_adhesion_math.h"
#include "fricl_eigen_math.h"

#include "fricl_barrier_math.h"
/* after the math it instantiates */
#include "barrier_pass_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#undef FRICL_LOG
#undef FRICL_BH_FN

fricl_status fricl__barrier_host(fricl_context *ctx,
                                 const fricl__barrier_work *w, int threaded,
                                 const fricl__barrier_source *src) {
  return w->b->precision == FRICL_F64 ? barrier_host_d(ctx, w, threaded, src)
                                      : barrier_host_f(ctx, w, threaded, src);
}
