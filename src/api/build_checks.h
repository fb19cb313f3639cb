/* build_checks.h - the checks the lagged build's host and cl_mem tiers
 * share (src/api/lagged_build.c). */
#ifndef FRICL_API_BUILD_CHECKS_H
#define FRICL_API_BUILD_CHECKS_H

#include "core/lagged_build.h"
#include "core/validate.h"

/* dim 2 or 3, no unknown flag, blend a fricl_mu_blend. */
fricl_status fricl__build_check_options(fricl_context *ctx, int dim,
                                        uint32_t flags, fricl_mu_blend blend);

/* Group g's head, the same in both tiers: its type and count
 * (fricl__check_group, adding it to *total) and, when it has contacts, its
 * vertices and (pv) its plane given; @p suffix ("" or ".mem") ends the
 * array names in the messages. */
fricl_status fricl__build_check_group(fricl_context *ctx, int dim, size_t g,
                                      fricl_stencil type, size_t count,
                                      int has_vertices, int has_normal,
                                      int has_offset, const char *suffix,
                                      size_t *total);

/* The per-contact arrays of a build group, one table for both tiers' size
 * and overlap checks: X(field, values per contact, bytes per value, given,
 * output), in the names of the expanding scope: k and nb (the stencil's
 * vertices and closest-point coordinates), dim, m (dim - 1), esz (bytes
 * per real) and pv (a plane-vertex group: only it reads a plane). */
#define FRICL__BUILD_GROUP_ARRAYS(X)                                           \
  X(vertices, k, sizeof(int32_t), 1, 0)                                        \
  X(plane_normal, dim, esz, pv, 0)                                             \
  X(plane_offset, 1, esz, pv, 0)                                               \
  X(dmin, 1, esz, 1, 0)                                                        \
  X(weight, 1, esz, 1, 0)                                                      \
  X(mu_s, 1, esz, 1, 0)                                                        \
  X(mu_k, 1, esz, 1, 0)                                                        \
  X(closest_point, nb, esz, nb, 1)                                             \
  X(tangent_basis, dim *m, esz, 1, 1)                                          \
  X(normal_force, 1, esz, 1, 1)                                                \
  X(normal_force_gradient, k *dim, esz, 1, 1)                                  \
  X(weight_out, 1, esz, 1, 1)                                                  \
  X(mu_s_out, 1, esz, 1, 1)                                                    \
  X(mu_k_out, 1, esz, 1, 1)                                                    \
  X(status, 1, 1, 1, 1)
#define FRICL__BUILD_GROUP_ARRAY_COUNT 15

/* The batch scalars: kappa, dmin, mu_s and mu_k finite and >= 0, dhat
 * finite and > 0, checked in that order (fricl__check_reals). */
fricl_status fricl__build_check_scalars(fricl_context *ctx, fricl_precision p,
                                        double kappa, double dhat, double dmin,
                                        double mu_s, double mu_k);

#endif
