/* build_checks.h - the checks the lagged build's host and cl_mem tiers
 * share (src/api/lagged_build.c). */
#ifndef FRICL_API_BUILD_CHECKS_H
#define FRICL_API_BUILD_CHECKS_H

#include "core/lagged_build.h"
#include "core/validate.h"

/* dim 2 or 3, no unknown flag, blend a fricl_mu_blend. */
fricl_status fricl__build_check_options(fricl_context *ctx, int dim,
                                        uint32_t flags, fricl_mu_blend blend);

/* The batch scalars: kappa, dmin, mu_s and mu_k finite and >= 0, dhat
 * finite and > 0, checked in that order (fricl__check_reals). */
fricl_status fricl__build_check_scalars(fricl_context *ctx, fricl_precision p,
                                        double kappa, double dhat, double dmin,
                                        double mu_s, double mu_k);

#endif
