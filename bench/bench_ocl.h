/*
 * bench_ocl.h - everything of `fricl bench` that needs OpenCL, behind one
 * boundary: the copy kernel (the roofline of rows an OpenCL device ran)
 * and the device tiers (cl_mem entry points on device buffers) of the
 * scalar, build and law suites. The implementations live in bench_*_cl.c
 * and bench_ocl.c, compiled only when the library has its OpenCL backend
 * (FRICL_WITH_OPENCL, defined by the fricl_internal target). Without it the
 * stubs below report that the context has no OpenCL device, so that the
 * suites run their host-tier rows alone and never reach the rest.
 */
#ifndef FRICL_BENCH_OCL_H
#define FRICL_BENCH_OCL_H

#include <stddef.h>
#include <stdio.h>

#include "bench_timer.h"
#include "fricl/fricl.h"

/* Opaque device-side states (defined in the OpenCL-only files). */
typedef struct bench_ocl_copy bench_ocl_copy;
typedef struct bench_scalar_dev bench_scalar_dev;
typedef struct bench_build_dev bench_build_dev;
typedef struct bench_law_dev bench_law_dev;

/* A law row's batch as both tiers see it (bench_laws.c fills it). */
typedef struct bench_law_case {
  fricl_law law;
  int stepping;
  fricl_precision prec;
  size_t n, S, m; /* elements, state values per element, GMS elements */
  fricl_integrator integ;
  double param[7], normal_force, h;
  const void *v, *state, *gms; /* host inputs: n, n * S, 3 * max(m, 1) */
} bench_law_case;

#if FRICL_WITH_OPENCL

/* 1 when ctx can run the cl_mem entry points: an OpenCL context, or
 * "auto" with a device (looked up, and opened, by this call). */
int bench_ocl_has_device(fricl_context *ctx);

/* The device's driver version and the program build options, for the
 * report header ("" when ctx has no device). */
void bench_ocl_describe(fricl_context *ctx, char *driver, size_t driver_size,
                        char *options, size_t options_size);

/* The copy kernel over n elements of precision p between two device
 * buffers of its own: 2 n sizeof(elem) bytes per run. */
int bench_ocl_copy_open(fricl_context *ctx, fricl_precision p, size_t n,
                        bench_ocl_copy **out);
int bench_ocl_copy_run(void *copy, int count); /* a bench_run_fn */
void bench_ocl_copy_close(bench_ocl_copy *c);

/* ---- scalar family: device copies of one precision's inputs and output
 * slots; one group's fricl_scalar_eval_cl job on them. */
/* n elements of precision p: y (batch parameters) and, when pe[0] is not
 * NULL, the per-element y, eps_v, mu_s, mu_k arrays pe[0..3]. */
int bench_scalar_dev_open(fricl_context *ctx, fricl_precision p, size_t n,
                          const void *y, const void *const pe[4],
                          bench_scalar_dev **out);
void bench_scalar_dev_close(bench_scalar_dev *d);
/* The device tier of host batch `hb` (same terms, profile and parameters;
 * the device copy of y, or of the per-element arrays when hb has them),
 * writing output slots 0.. in term order. */
int bench_scalar_dev_job(bench_scalar_dev *d, const fricl_scalar_batch *hb,
                         bench_job *job);
/* Read the device outputs of the last job: out[t] for its terms, valid
 * until bench_scalar_dev_unmap. */
int bench_scalar_dev_map(bench_scalar_dev *d, const void *out[]);
void bench_scalar_dev_unmap(bench_scalar_dev *d, const void *out[]);
/* The build time of the kernel `hb` needs, in a brand-new context on
 * `device` (cold the first time, driver caches only the second). */
int bench_scalar_dev_build_ms(const char *device, const fricl_scalar_batch *hb,
                              double *ms);

/* ---- lagged build: the batch's arrays on the device and a job that runs
 * the build kernels on them (no host transfers); outputs compared with
 * the host batch's own outputs bitwise (status, beta, P). */
int bench_build_dev_open(fricl_context *ctx, const fricl_build_batch *b,
                         bench_build_dev **out);
void bench_build_dev_close(bench_build_dev *d);
int bench_build_dev_run(void *dev, int count); /* a bench_run_fn */
int bench_build_dev_mismatches(bench_build_dev *d, const fricl_build_batch *b,
                               long *mismatches);

/* ---- friction laws: the case on device buffers, fricl_law_eval_cl or
 * fricl_law_step_cl. */
int bench_law_dev_open(fricl_context *ctx, const bench_law_case *c,
                       bench_law_dev **out);
void bench_law_dev_close(bench_law_dev *d);
int bench_law_dev_run(void *dev, int count); /* a bench_run_fn */

#else /* no OpenCL backend: no device, and nothing below is reached */

static inline int bench_ocl_unavailable(void) {
  fprintf(stderr, "fricl bench: built without OpenCL\n");
  return 1;
}
static inline int bench_ocl_has_device(fricl_context *ctx) {
  (void)ctx;
  return 0;
}
static inline void bench_ocl_describe(fricl_context *ctx, char *driver,
                                      size_t driver_size, char *options,
                                      size_t options_size) {
  (void)ctx;
  if (driver_size)
    driver[0] = '\0';
  if (options_size)
    options[0] = '\0';
}
static inline int bench_ocl_copy_open(fricl_context *ctx, fricl_precision p,
                                      size_t n, bench_ocl_copy **out) {
  (void)ctx, (void)p, (void)n;
  *out = NULL;
  return bench_ocl_unavailable();
}
static inline int bench_ocl_copy_run(void *copy, int count) {
  (void)copy, (void)count;
  return bench_ocl_unavailable();
}
static inline void bench_ocl_copy_close(bench_ocl_copy *c) { (void)c; }
static inline int bench_scalar_dev_open(fricl_context *ctx, fricl_precision p,
                                        size_t n, const void *y,
                                        const void *const pe[4],
                                        bench_scalar_dev **out) {
  (void)ctx, (void)p, (void)n, (void)y, (void)pe;
  *out = NULL;
  return bench_ocl_unavailable();
}
static inline void bench_scalar_dev_close(bench_scalar_dev *d) { (void)d; }
static inline int bench_scalar_dev_job(bench_scalar_dev *d,
                                       const fricl_scalar_batch *hb,
                                       bench_job *job) {
  (void)d, (void)hb, (void)job;
  return bench_ocl_unavailable();
}
static inline int bench_scalar_dev_map(bench_scalar_dev *d, const void *out[]) {
  (void)d, (void)out;
  return bench_ocl_unavailable();
}
static inline void bench_scalar_dev_unmap(bench_scalar_dev *d,
                                          const void *out[]) {
  (void)d, (void)out;
}
static inline int bench_scalar_dev_build_ms(const char *device,
                                            const fricl_scalar_batch *hb,
                                            double *ms) {
  (void)device, (void)hb, (void)ms;
  return bench_ocl_unavailable();
}
static inline int bench_build_dev_open(fricl_context *ctx,
                                       const fricl_build_batch *b,
                                       bench_build_dev **out) {
  (void)ctx, (void)b;
  *out = NULL;
  return bench_ocl_unavailable();
}
static inline void bench_build_dev_close(bench_build_dev *d) { (void)d; }
static inline int bench_build_dev_run(void *dev, int count) {
  (void)dev, (void)count;
  return bench_ocl_unavailable();
}
static inline int bench_build_dev_mismatches(bench_build_dev *d,
                                             const fricl_build_batch *b,
                                             long *mismatches) {
  (void)d, (void)b, (void)mismatches;
  return bench_ocl_unavailable();
}
static inline int bench_law_dev_open(fricl_context *ctx,
                                     const bench_law_case *c,
                                     bench_law_dev **out) {
  (void)ctx, (void)c;
  *out = NULL;
  return bench_ocl_unavailable();
}
static inline void bench_law_dev_close(bench_law_dev *d) { (void)d; }
static inline int bench_law_dev_run(void *dev, int count) {
  (void)dev, (void)count;
  return bench_ocl_unavailable();
}

#endif /* FRICL_WITH_OPENCL */

#endif /* FRICL_BENCH_OCL_H */
