/*
 * bench_roof.h - the copy roofline of a benchmark row, measured in the same
 * run on the backend that ran the row: the OpenCL copy kernel (two device
 * buffers) when an OpenCL device ran it; a host copy of two arrays split
 * over the context's own host threads (its thread pool, the same pieces
 * and thread count as the host backend uses) when the host or reference
 * backend ran it. Either moves 2 n sizeof(elem) bytes per run, so that
 * "fraction of copy" compares a row with the best a plain copy reaches on
 * the same resources.
 */
#ifndef FRICL_BENCH_ROOF_H
#define FRICL_BENCH_ROOF_H

#include <stddef.h>

#include "bench_ocl.h"
#include "bench_timer.h"
#include "fricl/fricl.h"

typedef struct bench_roof {
  fricl_backend backend; /* whose copy */
  fricl_precision prec;
  size_t n;         /* elements copied per run */
  unsigned threads; /* host copy: threads it runs on; OpenCL: 0 */
  fricl_context *ctx;
  void *src, *dst;    /* host copy */
  bench_ocl_copy *cl; /* OpenCL copy */
} bench_roof;

/* Prepare the copy of `backend` (the one fricl_context_last_backend named
 * for the row) on ctx. 0 on success; on failure a message is printed and
 * *r is inert (bench_roof_close is still safe). */
int bench_roof_open(bench_roof *r, fricl_context *ctx, fricl_backend backend,
                    fricl_precision p, size_t n);
void bench_roof_close(bench_roof *r);

/* Its job for bench_time_jobs. */
bench_job bench_roof_job(bench_roof *r);

/* GB/s of a run that took `seconds`. */
double bench_roof_gbs(const bench_roof *r, double seconds);

/* "copy kernel" or "host copy, N threads" (static or in buf). */
const char *bench_roof_label(const bench_roof *r, char *buf, size_t size);

/* The rooflines of one precision and size by backend, each opened on first
 * use (a suite's rows share them). */
typedef struct bench_roofs {
  bench_roof roof[3]; /* by fricl_backend */
  int open[3];
} bench_roofs;

/* The copy of `backend`; NULL (message printed) on failure. */
bench_roof *bench_roofs_get(bench_roofs *rs, fricl_context *ctx,
                            fricl_backend backend, fricl_precision p, size_t n);
void bench_roofs_close(bench_roofs *rs);

#endif /* FRICL_BENCH_ROOF_H */
