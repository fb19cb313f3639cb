/* tangential_checks.h - the checks the tangential potential's host and
 * cl_mem tiers share (src/api/tangential.c). */
#ifndef FRICL_API_TANGENTIAL_CHECKS_H
#define FRICL_API_TANGENTIAL_CHECKS_H

#include <stddef.h>

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
/* dim, groups pointer, n_vertices within int32, then, with
 * @p n_groups_field, n_groups within FRICL_MAX_GROUPS (the message names
 * the field; NULL: not checked here). */
fricl_status fricl__tangential_check_sizes(fricl_context *ctx, int dim,
                                           size_t n_vertices, size_t n_groups,
                                           int groups_null,
                                           const char *n_groups_field);
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

/* The topology of a host-tier batch's groups, whatever their struct: n_groups
 * structs of `stride` bytes from `groups`, each with its stencil type,
 * contact count and vertex array at these offsets. */
typedef struct fricl__topology {
  int dim;
  size_t n_vertices, n_groups;
  const char *groups;
  size_t stride, type, count, vertices;
} fricl__topology;

/* The topology of n_groups structs Group (fricl_contact_group,
 * fricl_barrier_group, fricl_force_group) at `groups`. */
#define FRICL__TOPOLOGY(dim, n_vertices, n_groups, groups, Group)              \
  ((fricl__topology){(dim), (n_vertices), (n_groups), (const char *)(groups),  \
                     sizeof(Group), offsetof(Group, type),                     \
                     offsetof(Group, count), offsetof(Group, vertices)})

/* fricl__tangential_check_sizes (with @p n_groups_field), then every group
 * (fricl__check_group_vertices); *total (when not NULL) the contacts. */
fricl_status fricl__check_topology(fricl_context *ctx, const fricl__topology *t,
                                   const char *n_groups_field, size_t *total);

/* The groups of @p t as the plan's contact groups: type, count and
 * vertices, the rest zero (t->n_groups <= FRICL_MAX_GROUPS). */
void fricl__topology_groups(const fricl__topology *t, fricl_contact_group *out);

/* The entry of the plan_create functions: ctx and out checked, *out NULL,
 * the groups of t checked (fricl__check_topology, `count_name` as there),
 * then the plan with its BSR pattern built over them. */
fricl_status fricl__plan_create(fricl_context *ctx, const fricl__topology *t,
                                const char *count_name,
                                fricl_tangential_plan **out);

/* A host-tier batch's plan: given when hessian_values is (`create` names
 * the function that makes one), made on ctx, and, with @p t, made for its
 * groups: dim, n_vertices, the group types, counts and vertex indices (the
 * checksum), and with @p need_bsr with the Hessian pattern. */
fricl_status fricl__check_host_plan(fricl_context *ctx,
                                    const fricl_tangential_plan *plan,
                                    const void *hessian_values,
                                    const char *create,
                                    const fricl__topology *t, int need_bsr);

#endif
