/* tangential_checks.h - the checks the tangential potential's host and
 * cl_mem tiers share (src/api/tangential.c). */
#ifndef FRICL_API_TANGENTIAL_CHECKS_H
#define FRICL_API_TANGENTIAL_CHECKS_H

#include "core/tangential.h"
#include "core/validate.h"

/* Precision, profile, PSD mode, flags and eps_v of a batch. */
fricl_status fricl__tangential_check_common(fricl_context *ctx,
                                            fricl_precision prec,
                                            fricl_mu_profile profile,
                                            fricl_psd psd, uint32_t flags,
                                            double eps_v);
/* batch.mollifier is a fricl_mollifier (both tiers). */
fricl_status fricl__tangential_check_mollifier(fricl_context *ctx,
                                               fricl_mollifier mollifier);
/* dim, groups pointer, n_vertices within int32. */
fricl_status fricl__tangential_check_sizes(fricl_context *ctx, int dim,
                                           size_t n_vertices, size_t n_groups,
                                           int groups_null);
/* The vertex arrays of a host-tier batch: n_vertices x dim reals of esz
 * bytes within size_t (their bytes in *vbytes), the per-vertex input
 * `name` given, and a direction with a Hessian-vector product. */
fricl_status fricl__check_vertex_arrays(fricl_context *ctx, size_t n_vertices,
                                        size_t dim, size_t esz,
                                        const void *input, const char *name,
                                        const void *product,
                                        const void *direction, size_t *vbytes);

/* INVALID_ARGUMENT: "no output requested" (a host-tier batch). */
fricl_status fricl__no_output(fricl_context *ctx);

/* A host-tier batch's plan: given when hessian_values is (`create` names
 * the function that makes one), and made on ctx. */
fricl_status fricl__check_host_plan(fricl_context *ctx,
                                    const fricl_tangential_plan *plan,
                                    const void *hessian_values,
                                    const char *create);

/* Group g of the host tier (the tangential potential's and the
 * barrier's): its type and count (fricl__check_group, *total the running
 * contact count), its vertex array present and every index in
 * [0, n_vertices), checked in parallel blocks on the context's threads;
 * the message names the first bad contact. n_vertices <= INT32_MAX. */
fricl_status fricl__check_group_vertices(fricl_context *ctx, int dim,
                                         size_t n_vertices, size_t g,
                                         fricl_stencil type, size_t count,
                                         const int32_t *vertices,
                                         size_t *total);

#endif
