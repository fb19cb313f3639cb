/*
 * laws_internal.h - what the friction-law translation units share: the law
 * table (names, parameters, valid ranges) and the validated plan of one
 * call that the backends execute.
 */
#ifndef FRICL_LAWS_INTERNAL_H
#define FRICL_LAWS_INTERNAL_H

#include "core/internal.h"
#include "core/validate.h"

/* Parameters any law has at most (the kernel's parameter slots). */
#define FRICL__LAW_KPARAMS 7

/* Range rules of parameters and of the normal force: core/validate.h. */
typedef fricl__rule fricl__law_rule;

typedef struct fricl__law_meta {
  fricl_law_info info;
  fricl__law_rule rule[FRICL_LAW_MAX_PARAMS];
  /* For the normal force: RULE_FINITE means "not +-inf" (NaN in an array
   * propagates), GE0 / GT0 add the sign. NONE: the law has none. */
  fricl__law_rule normal_rule;
} fricl__law_meta;

/* NULL for an unknown law. */
const fricl__law_meta *fricl__law_meta_get(fricl_law law);

/* Everything a backend needs besides the data pointers. */
typedef struct fricl__law_plan {
  fricl_precision prec;
  fricl_law law;
  uint32_t options;
  int integ;    /* fricl_integrator, meaningful when stepping an ODE law */
  int stepping; /* fricl_law_step */
  size_t n, n_steps;
  size_t m;     /* GMS elements (1 otherwise) */
  size_t state; /* state values per element (0 when stateless) */
  int alpha2;   /* alpha is the batch scalar 2: squared exactly */
  int nrm_mode; /* 0 scalar, 1 per element, 2 per step, -1 unused */
  double h, normal_force;
  double param[FRICL__LAW_KPARAMS];
  unsigned param_arrays; /* bit k: param k per element */
  int ge_per_element;
  int has_v, has_x, has_ge, has_state, has_state_out, in_place, has_force,
      has_dstate;
} fricl__law_plan;

#endif
