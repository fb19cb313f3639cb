/* laws_checks.h - what the friction laws' host and cl_mem tiers share:
 * the tier-independent view of a batch and its validation into a plan
 * (src/api/laws.c). */
#ifndef FRICL_API_LAWS_CHECKS_H
#define FRICL_API_LAWS_CHECKS_H

#include "core/laws_internal.h"
#include "core/validate.h"

/* What a batch provides, independent of the tier. */
typedef struct {
  fricl_precision prec;
  fricl_law law;
  uint32_t options;
  size_t n, n_steps;
  double h;
  fricl_integrator integ;
  int v, x, normal, normal_per_step;
  double normal_force;
  const double *param;
  int param_array[FRICL_LAW_MAX_PARAMS];
  size_t gms_elements;
  int ge, ge_per_element;
  int state, state_out, same_state, force, dstate;
} fricl__law_view;

/* Validate everything a batch provides (not the contents of per-element
 * arrays) into *pl. */
fricl_status fricl__law_check_view(fricl_context *ctx, const fricl__law_view *w,
                                   int stepping, fricl__law_plan *pl);

#endif
