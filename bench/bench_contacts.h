/* bench_contacts.h - the per-contact tangential rows of `fricl bench`. */
#ifndef FRICL_BENCH_CONTACTS_H
#define FRICL_BENCH_CONTACTS_H

#include "bench_types.h"
#include "opencl/opencl.h"

/* Time every (stencil, precision, outputs) row over `count` contacts on
 * ctx against the reference context `ref` and print the table. 0 on
 * success. */
int bench_contacts_run(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref, size_t count);

#endif
