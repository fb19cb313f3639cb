/*
 * bench_scene.h - the contact scenes of the `contacts` and `sweep` suites
 * and one configured fricl_tangential_eval on them.
 *
 * FV and EE: two parallel sheets of G x G vertices; contact c pairs cell
 * c/2 of sheet A with the same cell of sheet B, so that neighbouring
 * contacts share vertices as in a real contact set. PV: one free vertex
 * per contact against a static plane (a particle system or a solver's few
 * ground contacts). Lagged data: random closest points, tangent bases of
 * slightly tilted planes, N in [0.1, 10.1), mu_s in [0.2, 0.8), mu_k in
 * [0.1, 0.6); velocities uniform in +-eps_v. Deterministic.
 */
#ifndef FRICL_BENCH_SCENE_H
#define FRICL_BENCH_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "fricl/fricl.h"

typedef struct bench_scene {
  fricl_stencil type;
  size_t count, nv;
  int32_t *vx;
  double *beta, *P, *N, *w, *ms, *mk, *vel, *dir;
  float *fbeta, *fP, *fN, *fw, *fms, *fmk, *fvel, *fdir;
} bench_scene;

/* 0 on success; on failure a message is printed and *s is released. */
int bench_scene_make(bench_scene *s, fricl_stencil type, size_t count,
                     double eps_v);
void bench_scene_free(bench_scene *s);

/* The plan of the scene's topology on ctx (3-D). 0 on success. */
int bench_scene_plan(const bench_scene *s, fricl_context *ctx,
                     fricl_tangential_plan **plan);

/* What an evaluation computes. */
typedef enum bench_eval_mode {
  BENCH_EVAL_VALUE,         /* D */
  BENCH_EVAL_GRAD,          /* D, gradient */
  BENCH_EVAL_LOCAL,         /* D, gradient, dense local Hessians */
  BENCH_EVAL_FACTORED,      /* D, gradient, factored Hessians */
  BENCH_EVAL_GLOBAL,        /* D, gradient, global BSR Hessian */
  BENCH_EVAL_PRODUCT,       /* matrix-free H p */
  BENCH_EVAL_LOCAL_ONLY,    /* dense local Hessians alone */
  BENCH_EVAL_FACTORED_ONLY, /* factored Hessians alone */
  BENCH_EVAL_MODE_COUNT
} bench_eval_mode;

/* "value", "value+grad", "+local hessian", ... */
const char *bench_eval_mode_name(bench_eval_mode m);

/* One configured evaluation (outputs owned here). The plan, when the mode
 * assembles anything, is the caller's and reused by every call, as a
 * solver reuses it across the evaluations of a Newton solve. */
typedef struct bench_eval {
  fricl_context *ctx;
  fricl_contact_group G;
  fricl_tangential_batch b;
  void *pot, *grad, *prod, *hess, *loc, *gam, *q, *S;
} bench_eval;

/* Potential-type scenes use PSD clamp. 0 on success (message printed on
 * failure, *e released). */
int bench_eval_setup(bench_eval *e, fricl_context *ctx, const bench_scene *s,
                     fricl_precision p, bench_eval_mode m,
                     const fricl_tangential_plan *plan, double eps_v);
void bench_eval_free(bench_eval *e);

/* The same evaluation on another context with its own plan, writing into
 * src's outputs (calls are sequential, so contexts can share them; the
 * copy owns nothing, bench_eval_free on it is a no-op). */
void bench_eval_borrow(bench_eval *dst, const bench_eval *src,
                       fricl_context *ctx, const fricl_tangential_plan *plan);

/* `count` calls of fricl_tangential_eval (a bench_run_fn). */
int bench_eval_run(void *eval, int count);

/* Compulsory bytes of one evaluation: every input read once, every output
 * written once (nnz: BSR blocks of the plan, for the global mode). */
double bench_eval_bytes(const bench_scene *s, fricl_precision p,
                        bench_eval_mode m, size_t nnz);

#endif /* FRICL_BENCH_SCENE_H */
