/*
 * ccd.h - the narrow phase of continuous collision detection behind
 * fricl_ccd.h (backend-neutral host code on the context's pool).
 * docs/collisions.md ("Continuous collision detection") states what it
 * computes.
 */
#ifndef FRICL_CORE_CCD_H
#define FRICL_CORE_CCD_H

#include "core/collisions.h"
#include "fricl/fricl_ccd.h"

/* The step (and, with tois, every candidate's time of impact) of a checked
 * motion; o validated. */
fricl_status
fricl__ccd_stepsize(fricl_context *ctx, const fricl_collision_mesh *m,
                    const fricl_candidate_set *set, const double *x0,
                    const double *x1, const fricl_collisions_options *planes,
                    const fricl_ccd_options *o, double *step, double *tois);

#endif
