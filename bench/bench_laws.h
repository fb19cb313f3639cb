/*
 * bench_laws.h - the `laws` suite of `fricl bench`: the friction laws
 * (fricl_laws.h) over n elements (default 10^7, --quick 2^16, or --n):
 * the host tier (fricl_law_eval / fricl_law_step on host arrays, on
 * whichever backend the context chose) and, with an OpenCL device, the
 * device tier (the _cl entry points on device buffers), each against the
 * copy roofline of its backend and the single-thread C reference, timed
 * interleaved in one run.
 */
#ifndef FRICL_BENCH_LAWS_H
#define FRICL_BENCH_LAWS_H

#include <stdio.h>

#include "bench_types.h"

typedef struct bench_law_row {
  const char *name;
  fricl_precision prec;
  bench_tier tier;
  fricl_backend backend; /* what ran it */
  unsigned threads;      /* host threads of that backend; 0 for OpenCL */
  size_t n;
  int values; /* values moved per element */
  bench_stats time, copy, ref;
} bench_law_row;

#define BENCH_LAW_ROWS 24

typedef struct bench_laws_result {
  bench_law_row rows[BENCH_LAW_ROWS];
  size_t nrows;
} bench_laws_result;

/* Run the law rows on ctx (device tier when has_dev), C reference on ref,
 * and print the table. 0 on success. */
int bench_laws_run(const bench_options *o, fricl_context *ctx,
                   fricl_context *ref, int has_dev, bench_laws_result *res);

/* "laws": [...] (a member of the --json object). */
void bench_laws_json(FILE *f, const bench_laws_result *res);

#endif
