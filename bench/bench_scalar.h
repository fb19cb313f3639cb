/*
 * bench_scalar.h - the scalar-family groups of `fricl bench` on one
 * context: the per-precision host arrays (allocated once, shared by every
 * group of that precision), and one group's rows: the host tier
 * (fricl_scalar_eval on host arrays, on whichever backend the context
 * chose for it) and, when the context has an OpenCL device, the device
 * tier (fricl_scalar_eval_cl on device buffers), each with the copy
 * roofline of the backend that ran it and the single-thread C reference,
 * timed interleaved in one run; kernel build times; accuracy.
 */
#ifndef FRICL_BENCH_SCALAR_H
#define FRICL_BENCH_SCALAR_H

#include "bench_ocl.h"
#include "bench_roof.h"
#include "bench_types.h"

typedef struct bench_env {
  const bench_options *opt;
  fricl_context *ctx; /* the context under test */
  fricl_context *ref; /* the reference backend: the C reference column */
  int has_dev;        /* ctx has an OpenCL device: device-tier rows */

  /* Per precision, between bench_scalar_begin and bench_scalar_end. */
  fricl_precision prec;
  size_t n, esz;
  void *h_y;                           /* batch-parameter data */
  void *h_ype, *h_eps, *h_mus, *h_muk; /* per-element data (optional) */
  void *h_out[FRICL_TERM_COUNT];       /* host tier / C reference outputs; a
                                          group's k-th output uses slot k */
  bench_scalar_dev *dev;               /* device copies (has_dev) */
  bench_roofs roofs;                   /* copies, by backend */
} bench_env;

/* Allocate and fill the inputs of `prec` (per-element ones only when
 * `per_element`). Output slots are allocated on first use. 0 on success;
 * on failure everything is released and a message printed. */
int bench_scalar_begin(bench_env *env, fricl_precision prec, int per_element);

/* Release every array and buffer of the current precision. Idempotent. */
void bench_scalar_end(bench_env *env);

/* Run one group with one profile (ignored by profile-free groups, which
 * report profile -1): fills rows[0] (host tier) and, with a device,
 * rows[1] (device tier); *nrows receives 1 or 2. 0 on success. */
int bench_scalar_group(bench_env *env, const bench_group *g,
                       fricl_mu_profile profile, bench_row rows[2], int *nrows);

#endif /* FRICL_BENCH_SCALAR_H */
