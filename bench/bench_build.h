/*
 * bench_build.h - the `build` suite of `fricl bench`: the lagged build
 * (fricl_build) on a mixed 3-D scene (FV 40%, EE 30%, EV 20%, VV 10%;
 * per-vertex mu, rest positions, every output including dN/dx and the
 * status), per precision:
 *   host tier     fricl_build on host arrays, end to end, on whichever
 *                 backend the context chose (`ran on`)
 *   device tier   the build kernels on device buffers (internal launch;
 *                 only when the context has an OpenCL device)
 *   copy          the copy roofline of the backend that ran the row,
 *                 moving as many bytes as the build must
 *   C reference   fricl_build on the reference backend, one thread
 * contacts/s, effective GB/s (bytes a contact must read and write, the
 * positions it gathers counted once per contact), % of the copy roofline,
 * speed-up over the C reference; then build + plan + evaluation (D,
 * gradient, global Hessian) as one solver step.
 */
#ifndef FRICL_BENCH_BUILD_H
#define FRICL_BENCH_BUILD_H

#include <stdio.h>

#include "bench_types.h"
#include "fricl/fricl.h"

#define BENCH_BUILD_GROUPS 4 /* FV, EE, EV, VV */

/* The mixed scene: every contact has its own vertices, a regular stencil at
 * distance U(0.05, 1.2) dhat (dhat = 1e-2), so about 85% are active. The
 * host outputs are owned by the scene; b is the batch that writes them. */
typedef struct bench_build_scene {
  fricl_precision prec;
  size_t esz, nv, count[BENCH_BUILD_GROUPS];
  void *X, *R, *vms, *vmk;
  int32_t *vx[BENCH_BUILD_GROUPS];
  void *beta[BENCH_BUILD_GROUPS], *P[BENCH_BUILD_GROUPS],
      *N[BENCH_BUILD_GROUPS], *gN[BENCH_BUILD_GROUPS], *w[BENCH_BUILD_GROUPS],
      *ms[BENCH_BUILD_GROUPS], *mk[BENCH_BUILD_GROUPS];
  uint8_t *st[BENCH_BUILD_GROUPS];
  fricl_build_group G[BENCH_BUILD_GROUPS];
  fricl_build_batch b;
} bench_build_scene;

/* 0 on success; on failure a message is printed and *s released. */
int bench_build_scene_make(bench_build_scene *s, fricl_precision p,
                           size_t contacts);
void bench_build_scene_free(bench_build_scene *s);

typedef struct bench_build_row {
  fricl_precision precision;
  bench_tier tier;
  fricl_backend backend; /* what ran it */
  unsigned threads;      /* host threads of that backend; 0 for OpenCL */
  size_t contacts, copy_n;
  double bytes_per_contact;
  bench_stats time, copy, ref;
  long mismatches; /* device tier vs host tier, bitwise (status, beta, P);
                      -1: not compared */
} bench_build_row;

/* One solver step: build, plan, D + gradient + global Hessian. */
typedef struct bench_step_row {
  fricl_precision precision;
  size_t contacts;
  fricl_backend build_backend, eval_backend; /* what ran them */
  bench_stats time, ref;
} bench_step_row;

typedef struct bench_build_result {
  bench_build_row rows[4];
  int nrows;
  bench_step_row steps[2];
  int nsteps;
} bench_build_result;

/* Run the build rows and the solver-step rows of every selected precision
 * on ctx (device tier when has_dev), C reference on ref; print both
 * tables. 0 on success. */
int bench_build_run(const bench_options *o, fricl_context *ctx,
                    fricl_context *ref, int has_dev, size_t contacts,
                    bench_build_result *res);

/* "build": [...], "build_step": [...] (members of the --json object). */
void bench_build_json(FILE *f, const bench_build_result *res);

#endif /* FRICL_BENCH_BUILD_H */
