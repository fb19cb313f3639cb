/*
 * bench_build.h - the `build` group of `fricl bench`: the lagged build
 * (fricl_build) alone on a mixed 3-D scene (FV 40%, EE 30%, EV 20%,
 * VV 10%; per-vertex mu, rest positions, every output including dN/dx and
 * the status), one row per precision:
 *   device tier   the build kernels on device buffers (internal launch)
 *   copy          the copy kernel moving the same number of bytes
 *   host tier     fricl_build on host arrays, end to end
 *   C reference   fricl_build on the reference backend, one thread
 * contacts/s, effective GB/s (bytes a contact must read and write, the
 * positions it gathers counted once per contact), % of the copy roofline,
 * speed-up of the device tier over the C reference.
 */
#ifndef FRICL_BENCH_BUILD_H
#define FRICL_BENCH_BUILD_H

#include <stdio.h>

#include "bench_types.h"
#include "fricl/fricl.h"

/* The build suite is BENCH_SUITE_BUILD of bench_types.h. Contacts per
 * row: --contacts (default 10^6, --quick 2^14). */

typedef struct bench_build_row {
  fricl_precision precision;
  size_t contacts;
  double bytes_per_contact;
  int have_kernel;
  bench_stats kernel, copy, host, ref;
  double copy_gbs;
  long mismatches; /* host tier vs device tier, bitwise (status, beta, P) */
} bench_build_row;

/* Time build + plan + evaluation (D, gradient, global Hessian) against the
 * C reference and print the rows. 0 on success. */
int bench_build_eval_run(const bench_options *o, fricl_context *ctx,
                         fricl_context *ref, size_t contacts, int markdown);

/* Run the build rows of every precision in `precisions` (bit per
 * fricl_precision) on ctx, C reference on ref. 0 on success. */
int bench_build_run(const bench_options *o, fricl_context *ctx,
                    fricl_context *ref, size_t contacts, bench_build_row *rows,
                    int *nrows);

/* The table (Markdown when markdown != 0). */
void bench_build_report(FILE *out, const bench_build_row *rows, int nrows,
                        int markdown);

#endif /* FRICL_BENCH_BUILD_H */
