/* tangential_plan.c - the topology of a contact set: per-vertex and
 * per-Hessian-block gather lists (so that assembly sums in a fixed order,
 * without atomics) and the BSR/CSR pattern of the global Hessian. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "tangential.h"

static const char *const stencil_names[FRICL_STENCIL_COUNT] = {"vv", "ev", "ee",
                                                               "fv", "pv"};
static const int stencil_k[FRICL_STENCIL_COUNT] = {2, 3, 4, 4, 1};
static const int stencil_nb[FRICL_STENCIL_COUNT] = {0, 1, 2, 2, 0};

const char *fricl_stencil_name(fricl_stencil type) {
  return (unsigned)type < FRICL_STENCIL_COUNT ? stencil_names[type] : NULL;
}

fricl_status fricl_stencil_from_name(const char *name, fricl_stencil *type) {
  if (!name || !type)
    return FRICL_STATUS_INVALID_ARGUMENT;
  for (int t = 0; t < FRICL_STENCIL_COUNT; ++t)
    if (strcmp(name, stencil_names[t]) == 0) {
      *type = (fricl_stencil)t;
      return FRICL_STATUS_OK;
    }
  return FRICL_STATUS_INVALID_ARGUMENT;
}

int fricl_stencil_vertex_count(fricl_stencil type) {
  return (unsigned)type < FRICL_STENCIL_COUNT ? stencil_k[type] : 0;
}

int fricl_stencil_coord_count(fricl_stencil type) {
  return (unsigned)type < FRICL_STENCIL_COUNT ? stencil_nb[type] : 0;
}

/* A fast 64-bit checksum: four independent multiply-xorshift lanes over
 * 8-byte words (memcpy keeps it alignment-safe), so that hashing millions
 * of vertex indices per evaluation costs a small fraction of the
 * evaluation itself. Collisions only matter against accidental misuse. */
static uint64_t mix(uint64_t h, uint64_t w) {
  h ^= w;
  h *= 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  uint64_t l[4] = {h, h ^ 0x1ull, h ^ 0x2ull, h ^ 0x3ull};
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      memcpy(&w, c + i + 8 * (size_t)k, 8);
      l[k] = mix(l[k], w);
    }
  for (; i < n; ++i)
    l[0] = mix(l[0], c[i]);
  return mix(mix(mix(mix(h, l[0]), l[1]), l[2]), l[3] ^ (uint64_t)n);
}

uint64_t fricl__topology_checksum(int dim, size_t n_vertices, size_t n_groups,
                                  const fricl_contact_group *groups) {
  uint64_t h = 0xcbf29ce484222325ull;
  const uint64_t head[3] = {(uint64_t)dim, (uint64_t)n_vertices,
                            (uint64_t)n_groups};
  h = hash_bytes(h, head, sizeof head);
  for (size_t g = 0; g < n_groups; ++g) {
    const uint64_t gh[2] = {(uint64_t)groups[g].type,
                            (uint64_t)groups[g].count};
    h = hash_bytes(h, gh, sizeof gh);
    const size_t k = (size_t)fricl_stencil_vertex_count(groups[g].type);
    if (groups[g].count && groups[g].vertices)
      h = hash_bytes(h, groups[g].vertices,
                     groups[g].count * k * sizeof(int32_t));
  }
  return h;
}

void fricl_tangential_plan_destroy(fricl_tangential_plan *plan) {
  if (!plan)
    return;
  cl_mem mems[4] = {plan->d_vptr, plan->d_ventries, plan->d_bptr,
                    plan->d_bentries};
  for (int i = 0; i < 4; ++i)
    if (mems[i])
      clReleaseMemObject(mems[i]);
  free(plan->types);
  free(plan->counts);
  free(plan->vptr);
  free(plan->ventries);
  free(plan->row_ptr);
  free(plan->cols);
  free(plan->bptr);
  free(plan->bentries);
  free(plan);
}

/* Stable sort of one row's (col, entry) pairs by col: insertion sort for
 * short rows, merge sort (tmp of the same length) for long ones. */
static void sort_row(int32_t *col, uint64_t *ent, size_t n, int32_t *tc,
                     uint64_t *te) {
  if (n <= 32) {
    for (size_t i = 1; i < n; ++i) {
      const int32_t c = col[i];
      const uint64_t e = ent[i];
      size_t j = i;
      while (j > 0 && col[j - 1] > c) {
        col[j] = col[j - 1];
        ent[j] = ent[j - 1];
        --j;
      }
      col[j] = c;
      ent[j] = e;
    }
    return;
  }
  const size_t h = n / 2;
  sort_row(col, ent, h, tc, te);
  sort_row(col + h, ent + h, n - h, tc, te);
  size_t a = 0, b = h, o = 0;
  while (a < h && b < n) {
    if (col[b] < col[a]) {
      tc[o] = col[b];
      te[o++] = ent[b++];
    } else {
      tc[o] = col[a];
      te[o++] = ent[a++];
    }
  }
  while (a < h) {
    tc[o] = col[a];
    te[o++] = ent[a++];
  }
  while (b < n) {
    tc[o] = col[b];
    te[o++] = ent[b++];
  }
  memcpy(col, tc, n * sizeof *col);
  memcpy(ent, te, n * sizeof *ent);
}

/* Per-vertex lists of (contact, slot): a counting sort by vertex, stable
 * in enumeration order, so each list is in contact order. */
static int build_vertex_lists(fricl_tangential_plan *p,
                              const fricl_contact_group *groups) {
  size_t n_entries = 0;
  for (size_t g = 0; g < p->n_groups; ++g)
    n_entries += p->counts[g] * (size_t)stencil_k[p->types[g]];
  p->vptr = fricl__calloc(p->n_vertices + 1, sizeof *p->vptr);
  p->ventries = fricl__malloc((n_entries ? n_entries : 1) * sizeof(uint64_t));
  if (!p->vptr || !p->ventries)
    return 0;
  for (size_t g = 0; g < p->n_groups; ++g) {
    const size_t nk = p->counts[g] * (size_t)stencil_k[p->types[g]];
    for (size_t e = 0; e < nk; ++e)
      p->vptr[groups[g].vertices[e] + 1]++;
  }
  for (size_t v = 0; v < p->n_vertices; ++v)
    p->vptr[v + 1] += p->vptr[v];
  int64_t *fill = fricl__malloc((p->n_vertices + 1) * sizeof *fill);
  if (!fill)
    return 0;
  memcpy(fill, p->vptr, (p->n_vertices + 1) * sizeof *fill);
  size_t base = 0;
  for (size_t g = 0; g < p->n_groups; ++g) {
    const size_t k = (size_t)stencil_k[p->types[g]];
    for (size_t c = 0; c < p->counts[g]; ++c)
      for (size_t i = 0; i < k; ++i) {
        const int32_t v = groups[g].vertices[c * k + i];
        p->ventries[fill[v]++] = ((uint64_t)(base + c) << 2) | i;
      }
    base += p->counts[g];
  }
  free(fill);
  return 1;
}

/* The block lists, row by row from the vertex lists: row v collects
 * (v_j, (c, i, j)) for every (c, i) of v's list (contact order) and every
 * j of contact c, sorts it stably by column in a small buffer and appends
 * it; equal columns merge into one BSR block whose contributions stay in
 * (contact, i, j) order. Working row by row keeps the scatter in cache. */
static int build_block_lists(fricl_tangential_plan *p,
                             const fricl_contact_group *groups) {
  size_t n_entries = 0, total = 0;
  for (size_t g = 0; g < p->n_groups; ++g) {
    const size_t k = (size_t)stencil_k[p->types[g]];
    n_entries += p->counts[g] * k * k;
    total += p->counts[g];
  }
  const size_t ne = n_entries ? n_entries : 1;
  int ok = 0;
  /* Every contact's ids in one table, 4 slots per contact (unused slots
   * of smaller stencils hold -1), so that row building indexes by the
   * global contact number. */
  int32_t *ids = fricl__malloc((total ? total : 1) * 4 * sizeof *ids);
  uint64_t *ent = fricl__malloc(ne * sizeof *ent);
  int32_t *cols = fricl__malloc(ne * sizeof *cols);
  int64_t *bptr = fricl__malloc((ne + 1) * sizeof *bptr);
  size_t cap = 64;
  int32_t *rc = fricl__malloc(cap * sizeof *rc), *tc = NULL;
  uint64_t *re = fricl__malloc(cap * sizeof *re), *te = NULL;
  p->row_ptr = fricl__calloc(p->n_vertices + 1, sizeof *p->row_ptr);
  if (!ids || !ent || !cols || !bptr || !rc || !re || !p->row_ptr)
    goto done;
  {
    size_t c = 0;
    for (size_t g = 0; g < p->n_groups; ++g) {
      const size_t k = (size_t)stencil_k[p->types[g]];
      for (size_t q = 0; q < p->counts[g]; ++q, ++c)
        for (size_t i = 0; i < 4; ++i)
          ids[c * 4 + i] = i < k ? groups[g].vertices[q * k + i] : -1;
    }
  }
  size_t out = 0, nnz = 0, tcap = 0;
  for (size_t v = 0; v < p->n_vertices; ++v) {
    size_t n = 0;
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x) {
      const uint64_t cv = p->ventries[x];
      const size_t c = (size_t)(cv >> 2), i = (size_t)(cv & 3);
      if (n + 4 > cap) {
        cap *= 2;
        int32_t *nc = realloc(rc, cap * sizeof *rc);
        if (nc)
          rc = nc;
        uint64_t *nr = realloc(re, cap * sizeof *re);
        if (nr)
          re = nr;
        if (!nc || !nr)
          goto done;
      }
      for (size_t j = 0; j < 4 && ids[c * 4 + j] >= 0; ++j) {
        rc[n] = ids[c * 4 + j];
        re[n++] = ((uint64_t)c << 4) | (i << 2) | j;
      }
    }
    if (n > 32 && n > tcap) { /* merge-sort scratch, grow only */
      free(tc);
      free(te);
      tc = fricl__malloc(n * sizeof *tc);
      te = fricl__malloc(n * sizeof *te);
      tcap = n;
      if (!tc || !te)
        goto done;
    }
    sort_row(rc, re, n, tc, te);
    for (size_t e = 0; e < n; ++e) {
      if (e == 0 || rc[e] != rc[e - 1]) {
        cols[nnz] = rc[e];
        bptr[nnz++] = (int64_t)(out + e);
      }
      ent[out + e] = re[e];
    }
    out += n;
    p->row_ptr[v + 1] = (int64_t)nnz;
  }
  bptr[nnz] = (int64_t)n_entries;
  p->nnz = nnz;
  /* Shrink to size (realloc to a smaller size cannot fail harmfully: on
   * failure the larger block is kept). */
  p->cols = cols;
  p->bptr = bptr;
  {
    int32_t *c2 = realloc(cols, (nnz ? nnz : 1) * sizeof *cols);
    if (c2)
      p->cols = c2;
    int64_t *b2 = realloc(bptr, (nnz + 1) * sizeof *bptr);
    if (b2)
      p->bptr = b2;
  }
  cols = NULL;
  bptr = NULL;
  p->bentries = ent;
  ent = NULL;
  ok = 1;
done:
  free(ids);
  free(ent);
  free(cols);
  free(bptr);
  free(rc);
  free(re);
  free(tc);
  free(te);
  return ok;
}

fricl_status fricl__plan_build(fricl_context *ctx, int dim, size_t n_vertices,
                               size_t n_groups,
                               const fricl_contact_group *groups, int with_bsr,
                               fricl_tangential_plan **out) {
  fricl_tangential_plan *p = fricl__calloc(1, sizeof *p);
  if (!p)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "allocating a plan");
  p->ctx = ctx;
  p->dim = dim;
  p->n_vertices = n_vertices;
  p->n_groups = n_groups;
  p->types = fricl__malloc((n_groups ? n_groups : 1) * sizeof *p->types);
  p->counts = fricl__malloc((n_groups ? n_groups : 1) * sizeof *p->counts);
  if (!p->types || !p->counts)
    goto oom;
  for (size_t g = 0; g < n_groups; ++g) {
    p->types[g] = groups[g].type;
    p->counts[g] = groups[g].count;
    p->total += groups[g].count;
  }
  p->checksum = fricl__topology_checksum(dim, n_vertices, n_groups, groups);
  if (!build_vertex_lists(p, groups))
    goto oom;
  if (with_bsr) {
    if (!build_block_lists(p, groups))
      goto oom;
    p->has_bsr = 1;
  }
  *out = p;
  return FRICL_STATUS_OK;
oom:
  fricl_tangential_plan_destroy(p);
  return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                     "out of memory building the contact plan");
}

fricl_status fricl__plan_upload(fricl_tangential_plan *p) {
  fricl_context *ctx = p->ctx;
  if (ctx->backend != FRICL_BACKEND_OPENCL)
    return FRICL_STATUS_OK;
  struct {
    cl_mem *mem;
    const void *src;
    size_t bytes;
  } parts[4] = {{&p->d_vptr, p->vptr, (p->n_vertices + 1) * sizeof(int64_t)},
                {&p->d_ventries, p->ventries,
                 (size_t)(p->vptr[p->n_vertices] ? p->vptr[p->n_vertices] : 1) *
                     sizeof(uint64_t)},
                {&p->d_bptr, p->bptr, (p->nnz + 1) * sizeof(int64_t)},
                {&p->d_bentries, p->bentries,
                 (size_t)(p->has_bsr && p->bptr[p->nnz] ? p->bptr[p->nnz] : 1) *
                     sizeof(uint64_t)}};
  const int n = p->has_bsr ? 4 : 2;
  for (int i = 0; i < n; ++i) {
    if (*parts[i].mem)
      continue;
    if ((cl_ulong)parts[i].bytes > ctx->max_alloc_bytes)
      return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                         "the contact plan's gather list needs %zu bytes in "
                         "one buffer, more than the device's maximum "
                         "allocation",
                         parts[i].bytes);
    cl_int err = CL_SUCCESS;
    /* On unified memory the device reads the plan's own arrays (they live
     * as long as the buffers); elsewhere they are copied once. */
    *parts[i].mem = FRICL__CL(clCreateBuffer)(
        ctx->cl_ctx,
        CL_MEM_READ_ONLY |
            (ctx->host_unified ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR),
        parts[i].bytes, (void *)(uintptr_t)parts[i].src, &err);
    if (err != CL_SUCCESS) {
      *parts[i].mem = NULL;
      return fricl__fail_cl(ctx, err, "clCreateBuffer (contact plan)");
    }
  }
  return FRICL_STATUS_OK;
}

fricl_status fricl_tangential_plan_bsr(const fricl_tangential_plan *plan,
                                       size_t *n_block_rows, size_t *nnz_blocks,
                                       const int64_t **row_ptr,
                                       const int32_t **block_cols) {
  if (!plan || !plan->has_bsr)
    return FRICL_STATUS_INVALID_ARGUMENT;
  if (n_block_rows)
    *n_block_rows = plan->n_vertices;
  if (nnz_blocks)
    *nnz_blocks = plan->nnz;
  if (row_ptr)
    *row_ptr = plan->row_ptr;
  if (block_cols)
    *block_cols = plan->cols;
  return FRICL_STATUS_OK;
}

fricl_status fricl_tangential_plan_csr(const fricl_tangential_plan *plan,
                                       fricl_precision precision,
                                       const void *bsr_values, int64_t *row_ptr,
                                       int32_t *cols, void *values) {
  if (!plan || !plan->has_bsr ||
      (precision != FRICL_F64 && precision != FRICL_F32) ||
      (values && !bsr_values))
    return FRICL_STATUS_INVALID_ARGUMENT;
  const size_t d = (size_t)plan->dim, esz = fricl__elem_bytes(precision);
  /* Scalar column indices are int32 (as the BSR block columns are). */
  if (cols && plan->n_vertices * d > (size_t)INT32_MAX)
    return FRICL_STATUS_UNSUPPORTED;
  if (values && plan->nnz) {
    const uintptr_t a = (uintptr_t)values, b = (uintptr_t)bsr_values;
    const size_t bytes = plan->nnz * d * d * esz;
    if (a < b + bytes && b < a + bytes)
      return FRICL_STATUS_INVALID_ARGUMENT;
  }
  size_t o = 0;
  if (row_ptr)
    row_ptr[0] = 0;
  for (size_t v = 0; v < plan->n_vertices; ++v) {
    const size_t b0 = (size_t)plan->row_ptr[v],
                 b1 = (size_t)plan->row_ptr[v + 1];
    for (size_t r = 0; r < d; ++r) {
      for (size_t b = b0; b < b1; ++b)
        for (size_t s = 0; s < d; ++s, ++o) {
          if (cols)
            cols[o] = (int32_t)((size_t)plan->cols[b] * d + s);
          if (values) {
            const size_t src = (b * d + r) * d + s;
            if (precision == FRICL_F64)
              ((double *)values)[o] = ((const double *)bsr_values)[src];
            else
              ((float *)values)[o] = ((const float *)bsr_values)[src];
          }
        }
      if (row_ptr)
        row_ptr[v * d + r + 1] = (int64_t)o;
    }
  }
  return FRICL_STATUS_OK;
}
