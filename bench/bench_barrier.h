/* bench_barrier.h - `fricl bench --suite barrier`: the normal-contact
 * barrier's rows (value, + gradient, + local Hessian per PSD mode, +
 * global assembly) and the friction force's (force, + Jacobian wrt lagged
 * displacements, + Jacobian wrt velocities, global) per stencil and
 * precision, in contacts/s. */
#ifndef FRICL_BENCH_BARRIER_H
#define FRICL_BENCH_BARRIER_H

#include "bench_types.h"

/* @return 0, or 1 after a message on stderr. */
int bench_barrier_run(const bench_options *o, fricl_context *ctx,
                      size_t contacts);

/* One row on its own (the headline suite): potential, gradient and global
 * BSR Hessian (PSD clamp) of n 3-D contacts of `type` in f64 on ctx, the
 * fastest of `repeats` calls in *seconds. 0 on success. */
int bench_barrier_global(fricl_context *ctx, fricl_stencil type, size_t n,
                         int repeats, double *seconds);

#endif
