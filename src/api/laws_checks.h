/* laws_checks.h - what the friction laws' host and cl_mem tiers share:
 * the tier-independent view of a batch and its validation into a plan
 * (src/api/laws.c). */
#ifndef FRICL_API_LAWS_CHECKS_H
#define FRICL_API_LAWS_CHECKS_H

#include <math.h>
#include <string.h>

#include "core/abi.h"
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

/*
 * fricl_law_batch and its cl_mem twin fricl_law_batch_cl name their fields
 * alike; the macros below do for either what both tiers do. PRESENT(a)
 * says whether array a is given, SAME(a, b) whether two name the same
 * memory: the pointers of the host tier, the buffers of the cl_mem tier.
 */

/* The _init defaults of a batch of law `law_`, after fricl__struct_init:
 * one step, no scalar normal force, the law's parameter defaults. */
#define FRICL__LAW_BATCH_DEFAULTS(batch, law_)                                 \
  do {                                                                         \
    const fricl__law_meta *m_ = fricl__law_meta_get(law_);                     \
    (batch)->law = (law_);                                                     \
    (batch)->n_steps = 1;                                                      \
    (batch)->normal_force = NAN;                                               \
    for (int k_ = 0; m_ && k_ < m_->info.param_count; ++k_)                    \
      (batch)->param[k_] = m_->info.params[k_].default_value;                  \
  } while (0)

/* FRICL__STRUCT_IN (core/abi.h) over the defaults of the caller's law,
 * read only where the caller's struct is long enough to hold it. */
#define FRICL__LAW_STRUCT_IN(ctx, type, b, in, min)                            \
  type in;                                                                     \
  type##_init(&in, fricl__struct_size_of(b) >= (min) ? (b)->law                \
                                                     : FRICL_LAW_COULOMB);     \
  FRICL__TRY(fricl__struct_in(ctx, "batch", &in, sizeof in, b, min,            \
                              _Alignof(type), #type "_init"));                 \
  b = &in

/* The view *w of batch b. */
#define FRICL__LAW_VIEW(w, b, PRESENT, SAME)                                   \
  do {                                                                         \
    memset(w, 0, sizeof *(w));                                                 \
    (w)->prec = (b)->precision;                                                \
    (w)->law = (b)->law;                                                       \
    (w)->options = (b)->options;                                               \
    (w)->n = (b)->n;                                                           \
    (w)->n_steps = (b)->n_steps;                                               \
    (w)->h = (b)->h;                                                           \
    (w)->integ = (b)->integrator;                                              \
    (w)->v = PRESENT((b)->v);                                                  \
    (w)->x = PRESENT((b)->x);                                                  \
    (w)->normal = PRESENT((b)->normal);                                        \
    (w)->normal_per_step = (b)->normal_per_step;                               \
    (w)->normal_force = (b)->normal_force;                                     \
    (w)->param = (b)->param;                                                   \
    for (int k_ = 0; k_ < FRICL_LAW_MAX_PARAMS; ++k_)                          \
      (w)->param_array[k_] = PRESENT((b)->param_array[k_]);                    \
    (w)->gms_elements = (b)->gms_elements;                                     \
    (w)->ge = PRESENT((b)->gms_params);                                        \
    (w)->ge_per_element = (b)->gms_params_per_element;                         \
    (w)->state = PRESENT((b)->state);                                          \
    (w)->state_out = PRESENT((b)->state_out);                                  \
    (w)->same_state = PRESENT((b)->state) && SAME((b)->state_out, (b)->state); \
    (w)->force = PRESENT((b)->force);                                          \
    (w)->dstate = PRESENT((b)->dstate);                                        \
  } while (0)

/* Validate everything a batch provides (not the contents of per-element
 * arrays) into *pl. */
fricl_status fricl__law_check_view(fricl_context *ctx, const fricl__law_view *w,
                                   int stepping, fricl__law_plan *pl);

#endif
