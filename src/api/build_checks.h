/* build_checks.h - the checks the lagged build's host and cl_mem tiers
 * share (src/api/lagged_build.c). */
#ifndef FRICL_API_BUILD_CHECKS_H
#define FRICL_API_BUILD_CHECKS_H

#include "core/lagged_build.h"
#include "core/validate.h"

/* dim 2 or 3, no unknown flag, blend a fricl_mu_blend. */
fricl_status fricl__build_check_options(fricl_context *ctx, int dim,
                                        uint32_t flags, fricl_mu_blend blend);

#endif
