/*
 * fricl_ccd.h - continuous collision detection over a candidate set: the
 * largest collision-free step of a linear motion t0 -> t1 (ipctk 1.6.1's
 * Candidates::compute_collision_free_stepsize with its AdditiveCCD narrow
 * phase, and its point-static-plane test for plane-vertex candidates).
 * docs/collisions.md ("Continuous collision detection") is the normative
 * specification.
 *
 * Contents
 *   fricl_ccd_options_init, fricl_ccd_stepsize
 *
 * Runs on the context's host threads, in f64; the step and the per-candidate
 * times of impact are the same bit for bit whatever the thread count.
 */
#ifndef FRICL_CCD_H
#define FRICL_CCD_H

#include "fricl/fricl_base.h"
#include "fricl/fricl_collisions.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The narrow phase's parameters (ipctk's AdditiveCCD and min_distance). */
typedef struct fricl_ccd_options {
  uint32_t struct_size; /* set by _init */
  uint32_t reserved;    /* 0 */
  /* The smallest distance the motion may reach (>= 0, finite; default 0).
   * The plane-vertex test ignores it, as ipctk's does. */
  double min_distance;
  /* The fraction of the distance each conservative advance covers, in
   * (0, 1] (default 0.9, ipctk's AdditiveCCD). */
  double conservative_rescaling;
  /* Advances per candidate before its time so far is taken as its time of
   * impact; < 0: no limit (ipctk's Python default). Default 10^7, where
   * ipctk starts to warn of slow convergence: a safety against a vanishing
   * gap, reached by no ordinary scene. */
  int64_t max_iterations;
} fricl_ccd_options;

/** Set the defaults above and struct_size. @since 0.4 */
FRICL_API void fricl_ccd_options_init(fricl_ccd_options *o);

/**
 * The largest collision-free step of the motion positions0 -> positions1
 * (mesh->n_vertices x dim each, finite) over the candidates of @p set (as
 * fricl_candidates_build makes them; its plane-vertex pairs index the planes
 * of @p planes, which may be NULL when it has none):
 * *step = min(1, the earliest time of impact of any candidate), in [0, 1];
 * 0 when a candidate starts within min_distance.
 *
 * Per candidate, ipctk's AdditiveCCD: displacements made relative to their
 * mean, then conservative advances along the motion, each of
 * rescaling x (d^2 - dmin^2) / ((d + dmin) x |largest relative motion|),
 * until the distance falls below the gap (1 - rescaling) x the initial
 * one (an impact at the time reached) or the time passes 1 (none).
 *
 * @p tois (NULL, or one double per candidate, the set's pairs in
 * fricl_stencil order vv, ev, ee, fv, pv): each candidate's time of impact,
 * +infinity where it has none before 1. Without it, candidates stop as soon
 * as they pass the earliest impact found so far (the step is the same).
 * @p options NULL: the defaults. The inputs are never written.
 * @return OK, INVALID_ARGUMENT (naming the argument, and the first bad row
 * or pair), OUT_OF_MEMORY. @since 0.4
 */
FRICL_API fricl_status fricl_ccd_stepsize(
    fricl_context *ctx, const fricl_collision_mesh *mesh,
    const fricl_candidate_set *set, const double *positions0,
    const double *positions1, const fricl_collisions_options *planes,
    const fricl_ccd_options *options, double *step, double *tois);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_CCD_H */
