/*
 * bench_resident.h - the `resident` rows of `fricl bench`: one Newton
 * iteration of friction (the lagged build, then the evaluation of the
 * potential, gradient and global Hessian with the plan reused) on 10^6
 * contacts, through the host tier (host arrays in and out of every call)
 * and through the device-resident path (fricl_build_cl writing device
 * buffers that fricl_tangential_eval_cl reads directly; the caller writes
 * positions and velocities and reads back what its solver needs). Per
 * path: the bytes moved between host and device per iteration (fricl's
 * own, counted by fricl_context_transfers, plus the caller's) and the
 * time per iteration, median of interleaved repeats on the same device.
 * Also the evaluation alone (the build amortised over many iterations).
 */
#ifndef FRICL_BENCH_RESIDENT_H
#define FRICL_BENCH_RESIDENT_H

#include "bench_types.h"
#include "fricl/fricl.h"

#include <stdio.h>
#include <string.h>

/* `fricl bench --suite resident ...`: these rows alone. */
static inline int bench_resident_selected(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--suite=resident") == 0)
      return 1;
    if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc &&
        strcmp(argv[i + 1], "resident") == 0)
      return 1;
  }
  return 0;
}

#if FRICL_WITH_OPENCL

/* The rows on ctx's OpenCL device (its first, for a device list);
 * nothing but a note without one. 0 on success. */
int bench_resident_run(const bench_options *o, fricl_context *ctx,
                       size_t contacts, int markdown);
int bench_resident_main(int argc, char **argv);

#else /* no OpenCL: no device-resident path */

static inline int bench_resident_run(const bench_options *o, fricl_context *ctx,
                                     size_t contacts, int markdown) {
  (void)o;
  (void)ctx;
  (void)contacts;
  (void)markdown;
  return 0;
}

static inline int bench_resident_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "fricl bench: --suite resident needs OpenCL; this fricl "
                  "was built without it\n");
  return 1;
}

#endif

#endif
