/*
 * fricl_scalar.h - the scalar family: the twelve functions of the IPC
 * Toolkit friction mollifier, evaluated over batches of arguments.
 * Included by <fricl/fricl.h>; its cl_mem tier is fricl_scalar_eval_cl in
 * <fricl/fricl_cl.h>.
 *
 * Contents
 *   fricl_term, fricl_term_name, fricl_term_from_name,
 *   fricl_scalar_batch, fricl_scalar_batch_init, fricl_scalar_prepare,
 *   fricl_scalar_eval
 *
 * @since 0.4 as a header of its own (the API is 0.1's, from fricl.h)
 */
#ifndef FRICL_SCALAR_H
#define FRICL_SCALAR_H

#include "fricl/fricl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------ smooth friction (scalar) */

/* The twelve functions of the IPC Toolkit friction mollifier family, in the
 * order and with the names of ipctk's Python API: FRICL_SMOOTH_FRICTION_F0
 * (0) .. FRICL_SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3 (11). The list is
 * FRICL_TERM_MAP in <fricl/fricl_tables.h>. */
typedef enum fricl_term {
#define FRICL_TERM_ENUM_(name, value, fn, mu) FRICL_##name = value,
  FRICL_TERM_MAP(FRICL_TERM_ENUM_)
#undef FRICL_TERM_ENUM_
      FRICL_TERM_COUNT = FRICL_TABLE_COUNT(FRICL_TERM_MAP)
} fricl_term;

/** @return "smooth_friction_f0" etc., NULL for an unknown term. @since 0.1 */
FRICL_API const char *fricl_term_name(fricl_term term);
/** Look a term up by its name. @return OK or INVALID_ARGUMENT. @since 0.1 */
FRICL_API fricl_status fricl_term_from_name(const char *name, fricl_term *term);

#define FRICL_TERM_BIT(t) (1u << (t))
#define FRICL_TERMS_ALL ((1u << FRICL_TERM_COUNT) - 1u)
/*
 * A batch of n arguments y and the terms to evaluate on them.
 * Arrays hold `double` for FRICL_F64 and `float` for FRICL_F32.
 * Input arrays are borrowed for the call and never written. Output arrays
 * must not overlap any input or each other (rejected if they do).
 */
typedef struct fricl_scalar_batch {
  /* Set by the _init. Any size from the end of `eps_v` on is accepted
   * (older or trimmed layouts; fricl.h, "ABI"). */
  uint32_t struct_size;
  fricl_precision precision;
  fricl_mu_profile mu_profile;
  size_t n;
  const void *y; /* n values; may be NULL only when n == 0 */
  /* Batch parameters, used when the matching *_array is NULL. Converted to
   * the working precision before validation and use. mu_s and mu_k are only
   * read (and validated) when a smooth_mu term is requested. */
  double eps_v, mu_s, mu_k;
  const void *eps_v_array, *mu_s_array, *mu_k_array; /* optional, n each */
  /* The requested terms, a mask of FRICL_TERM_BIT(t). 0 means "the terms t
   * whose out[t] is non-NULL". At least one term must be requested; all are
   * computed in one pass. */
  uint32_t terms;
  /* n values of term t are written to out[t] (which must then be non-NULL
   * unless n == 0). out[t] of a term not requested is ignored. */
  void *out[FRICL_TERM_COUNT];
} fricl_scalar_batch;

/** Zero @p batch and set struct_size (precision f64, profile cubic).
 *  @since 0.1 */
FRICL_API void fricl_scalar_batch_init(fricl_scalar_batch *batch);

/**
 * Evaluate the requested terms over the batch.
 * Validation happens before any work: eps_v finite and > 0, mu_s and mu_k
 * finite and >= 0 (per element when given as arrays; the message names the
 * first bad index), NULL arrays with n > 0, unknown precision/profile,
 * overlapping outputs. NaN/Inf in y propagate as the formulas give.
 * The same inputs give bitwise identical outputs on the same device.
 * @return OK, INVALID_ARGUMENT, NO_FP64, OUT_OF_MEMORY, OPENCL_ERROR,
 *         BUILD_FAILED. Details in fricl_context_last_error.
 * @since 0.1
 */
FRICL_API fricl_status fricl_scalar_eval(fricl_context *ctx,
                                         const fricl_scalar_batch *batch);

/**
 * Build (and cache in @p ctx) the kernel that @p batch would use, so that
 * the first fricl_scalar_eval is not slow without warning. n, y and the
 * output pointers' values are ignored; only which outputs and parameter
 * arrays are non-NULL matters. A no-op on the reference backend.
 * @since 0.1
 */
FRICL_API fricl_status fricl_scalar_prepare(fricl_context *ctx,
                                            const fricl_scalar_batch *batch);

#ifdef __cplusplus
}
#endif

#endif /* FRICL_SCALAR_H */
