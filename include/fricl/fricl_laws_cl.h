/*
 * fricl_laws_cl.h - device tier of the friction laws (fricl_laws.h): the
 * same batches on caller-owned cl_mem buffers. Included by
 * <fricl/fricl_cl.h>.
 *
 * Contents
 *   fricl_law_batch_cl, fricl_law_batch_cl_init, fricl_law_eval_cl,
 *   fricl_law_step_cl
 *
 * As for fricl_scalar_eval_cl: nothing is allocated, offsets are in
 * elements of the working precision, work is only enqueued, batch scalars
 * are validated on the host and device arrays are not read back for
 * validation (invalid values there give NaN or meaningless results, never
 * a crash).
 */
#ifndef FRICL_LAWS_CL_H
#define FRICL_LAWS_CL_H

#include "fricl/fricl_cl.h"
#include "fricl/fricl_laws.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device-tier twin of fricl_law_batch (same fields, same layouts). GMS
 * parameters must be a buffer here: 3 m values, or n x 3 m when
 * gms_params_per_element is 1. state_out.mem == state.mem with the same
 * offset updates the state in place. */
typedef struct fricl_law_batch_cl {
  /* Set by the _init. Any size from the end of `param` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_law law;
  uint32_t options;
  size_t n;
  size_t n_steps;
  double h;
  fricl_integrator integrator;
  fricl_buffer_cl v, x, normal;
  int normal_per_step;
  double normal_force;
  double param[FRICL_LAW_MAX_PARAMS];
  fricl_buffer_cl param_array[FRICL_LAW_MAX_PARAMS];
  size_t gms_elements;
  fricl_buffer_cl gms_params;
  int gms_params_per_element;
  fricl_buffer_cl state, state_out, force, dstate;
} fricl_law_batch_cl;

/** As fricl_law_batch_init. @since 0.2 */
FRICL_API void fricl_law_batch_cl_init(fricl_law_batch_cl *batch,
                                       fricl_law law);

/** Enqueue fricl_law_eval's work after @p wait_list; @p done, if not NULL,
 *  receives an event the caller releases. UNSUPPORTED on the reference
 *  backend. @since 0.2 */
FRICL_API fricl_status fricl_law_eval_cl(fricl_context *ctx,
                                         const fricl_law_batch_cl *batch,
                                         cl_uint num_wait,
                                         const cl_event *wait_list,
                                         cl_event *done);

/** Enqueue fricl_law_step's work (see fricl_law_step). @since 0.2 */
FRICL_API fricl_status fricl_law_step_cl(fricl_context *ctx,
                                         const fricl_law_batch_cl *batch,
                                         cl_uint num_wait,
                                         const cl_event *wait_list,
                                         cl_event *done);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_LAWS_CL_H */
