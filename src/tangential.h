/*
 * tangential.h - what the tangential translation units share: the plan
 * (topology, gather lists, BSR pattern) and the validated description of
 * one evaluation that the backends receive.
 */
#ifndef FRICL_TANGENTIAL_INTERNAL_H
#define FRICL_TANGENTIAL_INTERNAL_H

#include "internal.h"

/* Contacts per block of the potential's fixed-order sum: the total is the
 * sum, in block order, of sequential sums over blocks of this many
 * contacts (global contact order). Chunks are multiples of it, so chunked
 * and unchunked sums are bitwise equal. */
#define FRICL__POT_BLOCK 1024

/* Gather-list entries: contact index << 4 | i << 2 | j (block lists) and
 * contact index << 2 | i (vertex lists), contact indices global. */
#define FRICL__ENTRY_CONTACT(e, shift) ((size_t)((e) >> (shift)))

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
   * contributions in contact order. has_bsr is 0 for the temporary plans
   * made for gradient-only calls. */
  int has_bsr;
  int64_t *row_ptr; /* n_vertices + 1 */
  int32_t *cols;
  size_t nnz;
  int64_t *bptr; /* nnz + 1 */
  uint64_t *bentries;
  /* Device copies (OpenCL contexts), made on first use. */
  cl_mem d_vptr, d_ventries, d_bptr, d_bentries;
};

/* Stable identity of a topology: FNV-1a over dim, n_vertices and every
 * group's type, count and vertex indices. */
uint64_t fricl__topology_checksum(int dim, size_t n_vertices, size_t n_groups,
                                  const fricl_contact_group *groups);

/* Build a plan; with_bsr = 0 makes only the vertex gather lists. */
fricl_status fricl__plan_build(fricl_context *ctx, int dim, size_t n_vertices,
                               size_t n_groups,
                               const fricl_contact_group *groups, int with_bsr,
                               fricl_tangential_plan **out);

/* Upload the plan's lists to the context's device (idempotent). */
fricl_status fricl__plan_upload(fricl_tangential_plan *plan);

fricl_status fricl__tangential_ref(fricl_context *ctx,
                                   const fricl_tangential_batch *b,
                                   const fricl_tangential_plan *plan,
                                   int need_hess);
fricl_status fricl__tangential_cl(fricl_context *ctx,
                                  const fricl_tangential_batch *b,
                                  fricl_tangential_plan *plan, int need_hess);

fricl_status fricl__tangential_enqueue_cl(fricl_context *ctx,
                                          const fricl_tangential_batch_cl *b,
                                          fricl_tangential_plan *plan,
                                          int need_hess, cl_uint num_wait,
                                          const cl_event *wait, cl_event *done);

#endif
