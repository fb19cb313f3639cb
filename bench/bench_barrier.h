/* bench_barrier.h - `fricl bench --suite barrier`: the normal-contact
 * barrier's rows (value, + gradient, + local Hessian per PSD mode, +
 * global assembly) per stencil and precision, in contacts/s. */
#ifndef FRICL_BENCH_BARRIER_H
#define FRICL_BENCH_BARRIER_H

#include "bench_types.h"

/* @return 0, or 1 after a message on stderr. */
int bench_barrier_run(const bench_options *o, fricl_context *ctx,
                      size_t contacts);

#endif
