/*
 * tangential.h - what the tangential layers share: the plan (topology,
 * gather lists, BSR pattern), its construction, and the context's cache of
 * topology lists for calls made without a plan.
 */
#ifndef FRICL_CORE_TANGENTIAL_H
#define FRICL_CORE_TANGENTIAL_H

#include "core/internal.h"

/* Contacts per block of the potential's fixed-order sum: the total is the
 * sum, in block order, of sequential sums over blocks of this many
 * contacts (global contact order). Chunks are multiples of it, so chunked
 * and unchunked sums are bitwise equal. */
#define FRICL__POT_BLOCK 1024

/* Gather-list entries: contact index << 4 | i << 2 | j (block lists) and
 * contact index << 2 | i (vertex lists), contact indices global. */
#define FRICL__ENTRY_CONTACT(e, shift) ((size_t)((e) >> (shift)))

/* What one backend attached to a plan (its device copies of the lists):
 * released by `release`, which needs nothing but `data`, so a plan
 * destroyed after its context (a documented misuse) still frees cleanly. */
typedef struct fricl__plan_attachment {
  const void *owner; /* the backend, as a lookup key only */
  void *data;
  void (*release)(void *data);
} fricl__plan_attachment;

#define FRICL__PLAN_ATTACHMENTS 4

struct fricl_tangential_plan {
  fricl_context *ctx;
  int dim;
  size_t n_vertices;
  size_t n_groups;
  fricl_stencil *types;
  size_t *counts;
  size_t total; /* contacts over all groups */
  uint64_t checksum;
  /* Per vertex, its (contact, slot) pairs in contact order. */
  int64_t *vptr; /* n_vertices + 1 */
  uint64_t *ventries;
  /* The global Hessian: BSR pattern and, per block, its (contact, i, j)
   * contributions in contact order (bptr/bentries: built on first use by
   * the first call that assembles the Hessian, fricl__plan_blocks: every
   * backend gathers the blocks). has_bsr is 0 for the plans made for
   * calls without one (gradient and H p need only the vertex lists). */
  int has_bsr;
  int64_t *row_ptr; /* n_vertices + 1 */
  int32_t *cols;
  size_t nnz;
  int64_t *bptr; /* nnz + 1 */
  uint64_t *bentries;
  /* Per-backend data (device copies), released with the plan. */
  fricl__plan_attachment attached[FRICL__PLAN_ATTACHMENTS];
};

/* Stable identity of a topology: a fast hash over dim, n_vertices and
 * every group's type, count and vertex indices (on the context's host
 * threads; the value does not depend on them). */
uint64_t fricl__topology_checksum(fricl_context *ctx, int dim,
                                  size_t n_vertices, size_t n_groups,
                                  const fricl_contact_group *groups);

/* Build a plan (on the context's host threads); with_bsr = 0 makes only
 * the vertex gather lists. The topology must have been validated. */
fricl_status fricl__plan_build(fricl_context *ctx, int dim, size_t n_vertices,
                               size_t n_groups,
                               const fricl_contact_group *groups, int with_bsr,
                               fricl_tangential_plan **out);

/* The block lists of a plan with a pattern, built on first use (on the
 * plan's context's threads) and kept. */
fricl_status fricl__plan_blocks(fricl_tangential_plan *p);

/* Whether `plan` was made for dim, n_vertices and groups[0, n_groups)'s
 * types and counts: structs of `stride` bytes whose fricl_stencil type and
 * size_t count sit at type_at and count_at (FRICL__PLAN_FITS). */
int fricl__plan_fits(const fricl_tangential_plan *plan, int dim,
                     size_t n_vertices, size_t n_groups, const void *groups,
                     size_t stride, size_t type_at, size_t count_at);
#define FRICL__PLAN_FITS(plan, b, Group)                                       \
  fricl__plan_fits(plan, (b)->dim, (b)->n_vertices, (b)->n_groups,             \
                   (b)->groups, sizeof(Group), offsetof(Group, type),          \
                   offsetof(Group, count))

/* The vertex lists of a validated topology for a call made without a plan:
 * the context keeps the lists of the last such topology (keyed by its
 * checksum), so a Newton loop that never makes a plan builds them once.
 * The returned plan belongs to the context (valid until the next call). */
fricl_status fricl__plan_lookup(fricl_context *ctx, int dim, size_t n_vertices,
                                size_t n_groups,
                                const fricl_contact_group *groups,
                                fricl_tangential_plan **out);
void fricl__plan_cache_destroy(fricl_context *ctx);
/* Release a plan and what backends attached to it (NULL: nothing). */
void fricl__plan_destroy(fricl_tangential_plan *plan);

/* A backend's attachment slot on a plan (find, or claim when `claim`);
 * NULL when none is found (or all slots are taken). */
fricl__plan_attachment *fricl__plan_attachment_for(fricl_tangential_plan *p,
                                                   const void *owner,
                                                   int claim);

#endif
