/*
 * bench_sweep.h - the `sweep` suite of `fricl bench`: per-call time of one
 * Newton iteration's friction evaluation at every batch size, on every
 * backend a caller can ask for, measured in one run.
 *
 * Backends: separate contexts created here on "reference", "host", "auto"
 * and every OpenCL device with fp64 ("opencl:P:D"); --device is not used.
 * Operations (f64):
 *   eval   FV contacts of the contacts suite's scene (bench_scene.h):
 *          potential + gradient + global BSR Hessian, PSD clamp, the plan
 *          created once and reused (a Newton loop's evaluation)
 *   plan   fricl_tangential_plan_create + _destroy on the same topology
 *   build  fricl_build on the build suite's mixed scene of that many
 *          contacts (bench_build.h)
 *   small  8 plane-vertex contacts: value + gradient + local Hessians (a
 *          solver with a few ground contacts; target: auto <= 2x reference)
 * at 10, 100, 1e3, 1e4, 1e5 and 1e6 contacts (--quick: up to 1e3;
 * --sizes LIST). At each size the backends' calls are timed interleaved
 * (median; as many calls per sample as make it last --min sample time),
 * so that their ratios hold even on a busy machine.
 *
 * Crossover (eval and build): for each OpenCL device, the smallest
 * measured size from which on (at that size and every larger one) it
 * beats the host backend; "none" when it never does.
 */
#ifndef FRICL_BENCH_SWEEP_H
#define FRICL_BENCH_SWEEP_H

#include <stdio.h>

#include "bench_types.h"

#define BENCH_SWEEP_MAX_BACKENDS 8

typedef enum bench_sweep_op {
  BENCH_SWEEP_EVAL = 0,
  BENCH_SWEEP_PLAN = 1,
  BENCH_SWEEP_BUILD = 2,
  BENCH_SWEEP_SMALL = 3,
  BENCH_SWEEP_OPS = 4
} bench_sweep_op;

typedef struct bench_sweep_backend {
  char name[32];    /* the device spec: "auto", "host", "opencl:0:1" ... */
  char device[320]; /* fricl_context_device_name after the run */
  unsigned threads;
  fricl_context *ctx;
} bench_sweep_backend;

typedef struct bench_sweep_point {
  bench_sweep_op op;
  size_t contacts;
  int backend;          /* index into backends */
  fricl_backend ran_on; /* fricl_context_last_backend after the warm-up */
  bench_stats st;       /* seconds per call */
} bench_sweep_point;

#define BENCH_SWEEP_MAX_POINTS                                                 \
  (BENCH_SWEEP_OPS * BENCH_MAX_SIZES * BENCH_SWEEP_MAX_BACKENDS)

typedef struct bench_sweep_result {
  bench_sweep_backend backends[BENCH_SWEEP_MAX_BACKENDS];
  int nbackends;
  size_t sizes[BENCH_MAX_SIZES];
  int nsizes;
  bench_sweep_point points[BENCH_SWEEP_MAX_POINTS];
  size_t npoints;
} bench_sweep_result;

/* The default sizes (10 .. 1e6; --quick: 10 .. 1e3) into o->sizes when
 * none were given. */
void bench_sweep_default_sizes(bench_options *o);

/* Run the sweep and print its tables. 0 on success. */
int bench_sweep_run(const bench_options *o, bench_sweep_result *res);

/* Release the contexts the sweep created. */
void bench_sweep_free(bench_sweep_result *res);

/* "sweep": {...} (a member of the --json object). */
void bench_sweep_json(FILE *f, const bench_sweep_result *res);

#endif
