/*
 * bench_scalar.h - running the scalar-family groups of `fricl bench` on one
 * device: the per-precision arrays and buffers (allocated once, shared by
 * every group of that precision), the copy roofline, and one group's four
 * timed tiers (device tier, copy kernel, C reference, host tier), build
 * times and accuracy.
 */
#ifndef FRICL_BENCH_SCALAR_H
#define FRICL_BENCH_SCALAR_H

#include "opencl/opencl.h"

#include "bench_types.h"

typedef struct bench_env {
  const bench_options *opt;
  fricl_context *ctx; /* the device under test */
  fricl_context *ref; /* the reference backend: the C reference column */
  int is_cl;          /* ctx is OpenCL-backed (device tier, copy kernel) */
  cl_context cl_ctx;  /* borrowed from ctx */
  cl_command_queue queue;

  /* Per precision, between bench_scalar_begin and bench_scalar_end. */
  fricl_precision prec;
  size_t n, esz;
  void *h_y;                           /* batch-parameter data */
  void *h_ype, *h_eps, *h_mus, *h_muk; /* per-element data (optional) */
  void *h_out[FRICL_TERM_COUNT];       /* host tier / C reference outputs; a
                                          group's k-th output uses slot k */
  cl_mem d_y, d_ype, d_eps, d_mus, d_muk;
  cl_mem d_out[FRICL_TERM_COUNT]; /* device tier outputs, slot as h_out */
  cl_kernel copy;                 /* cached by ctx; not released here */
} bench_env;

/* Allocate and fill the inputs of `prec` (per-element ones only when
 * `per_element`). Output slots are allocated on first use. 0 on success;
 * on failure everything is released and a message printed. */
int bench_scalar_begin(bench_env *env, fricl_precision prec, int per_element);

/* Release every array and buffer of the current precision. Idempotent. */
void bench_scalar_end(bench_env *env);

/* The copy kernel alone (y -> output slot 0), timed like a group: GB/s =
 * 2 n sizeof(elem) / t. OpenCL only. 0 on success. */
int bench_copy_roofline(bench_env *env, double *gbs);

/* Run one group with one profile (ignored by profile-free groups, which
 * report profile -1) and fill *row. 0 on success. */
int bench_scalar_group(bench_env *env, const bench_group *g,
                       fricl_mu_profile profile, bench_row *row);

#endif /* FRICL_BENCH_SCALAR_H */
