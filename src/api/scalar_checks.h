/* scalar_checks.h - the checks the scalar family's host and cl_mem tiers
 * share (src/api/scalar.c). */
#ifndef FRICL_API_SCALAR_CHECKS_H
#define FRICL_API_SCALAR_CHECKS_H

#include "core/validate.h"

/* The terms that read mu_s and mu_k (the mu column of FRICL_TERM_MAP). */
#define FRICL__SCALAR_MU_BIT_(name, value, fn, mu) | ((unsigned)(mu) << (value))
#define FRICL__SCALAR_MU_TERMS (0u FRICL_TERM_MAP(FRICL__SCALAR_MU_BIT_))

/* The label of term t's output in messages: "out[smooth_mu_f0]". */
#define FRICL__TERM_OUT_NAME(name, value, fn, mu) [value] = "out[" #fn "]",

/* Precision (known, and f64 possible), mu profile. The struct_size was
 * handled by fricl__struct_in at the entry point. */
fricl_status fricl__scalar_check_header(fricl_context *ctx,
                                        fricl_precision prec,
                                        fricl_mu_profile profile);

/* The requested-term mask: `terms`, or the non-NULL outputs when it is 0.
 * Every requested term needs an output when n > 0. */
fricl_status fricl__scalar_requested_terms(fricl_context *ctx, uint32_t terms,
                                           const int *has_out, size_t n,
                                           const char *field, unsigned *mask);

#endif
