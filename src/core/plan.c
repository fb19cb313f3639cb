/* plan.c - the topology of a contact set: per-vertex and per-Hessian-block
 * gather lists (so that assembly sums in a fixed order, without atomics),
 * the BSR/CSR pattern of the global Hessian, and the context's cache of the
 * lists for calls made without a plan. Construction runs on the context's
 * host threads; its result does not depend on their number. In core
 * because every backend gathers through it; the public accessors are in
 * src/api/tangential_plan.c. */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/pool.h"
#include "core/tangential.h"
#include "core/validate.h"

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

/* The vertex arrays are hashed in blocks of HASH_BLOCK bytes, each on its
 * own (in parallel), and the block hashes chained in order: the value
 * depends only on the data, not on the thread count. */
#define HASH_BLOCK ((size_t)1 << 16)

typedef struct {
  const unsigned char *p;
  size_t n;
  uint64_t *out;
} hash_job;

/* The hash of block b of the n bytes at p. */
static uint64_t hash_block(const unsigned char *p, size_t n, size_t b) {
  const size_t a = b * HASH_BLOCK;
  return hash_bytes(b, p + a, n - a < HASH_BLOCK ? n - a : HASH_BLOCK);
}

static void hash_blocks(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  const hash_job *j = arg;
  for (size_t b = lo; b < hi; ++b)
    j->out[b] = hash_block(j->p, j->n, b);
}

static uint64_t hash_array(fricl_context *ctx, uint64_t h, const void *p,
                           size_t n) {
  const size_t blocks = (n + HASH_BLOCK - 1) / HASH_BLOCK;
  uint64_t small[64];
  uint64_t *out = blocks <= 64 ? small : malloc(blocks * sizeof *out);
  hash_job j = {p, n, out};
  if (out)
    fricl__pool_for(ctx->pool, blocks, fricl__grain(ctx, 8), 1, hash_blocks,
                    &j);
  /* Without memory for the block hashes: the same values, in order. */
  for (size_t b = 0; b < blocks; ++b)
    h = mix(h, out ? out[b] : hash_block(p, n, b));
  if (out != small)
    free(out);
  return mix(h, (uint64_t)n);
}

uint64_t fricl__topology_checksum(fricl_context *ctx, int dim,
                                  size_t n_vertices, size_t n_groups,
                                  const fricl_contact_group *groups) {
  uint64_t h = 0xcbf29ce484222325ull;
  const uint64_t head[3] = {(uint64_t)dim, (uint64_t)n_vertices,
                            (uint64_t)n_groups};
  h = hash_bytes(h, head, sizeof head);
  for (size_t g = 0; g < n_groups; ++g) {
    const uint64_t gh[2] = {(uint64_t)groups[g].type,
                            (uint64_t)groups[g].count};
    h = hash_bytes(h, gh, sizeof gh);
    const size_t k = (size_t)fricl__stencil_vertex_count(groups[g].type);
    if (groups[g].count && groups[g].vertices)
      h = hash_array(ctx, h, groups[g].vertices,
                     groups[g].count * k * sizeof(int32_t));
  }
  return h;
}

fricl__plan_attachment *fricl__plan_attachment_for(fricl_tangential_plan *p,
                                                   const void *owner,
                                                   int claim) {
  for (int i = 0; i < FRICL__PLAN_ATTACHMENTS; ++i)
    if (p->attached[i].owner == owner)
      return &p->attached[i];
  if (!claim)
    return NULL;
  for (int i = 0; i < FRICL__PLAN_ATTACHMENTS; ++i)
    if (!p->attached[i].owner) {
      p->attached[i].owner = owner;
      return &p->attached[i];
    }
  return NULL;
}

int fricl__plan_fits(const fricl_tangential_plan *plan, int dim,
                     size_t n_vertices, size_t n_groups, const void *groups,
                     size_t stride, size_t type_at, size_t count_at) {
  if (plan->dim != dim || plan->n_vertices != n_vertices ||
      plan->n_groups != n_groups)
    return 0;
  for (size_t g = 0; g < n_groups; ++g) {
    const char *G = (const char *)groups + g * stride;
    fricl_stencil type;
    size_t count;
    memcpy(&type, G + type_at, sizeof type);
    memcpy(&count, G + count_at, sizeof count);
    if (plan->types[g] != type || plan->counts[g] != count)
      return 0;
  }
  return 1;
}

void fricl__plan_destroy(fricl_tangential_plan *plan) {
  if (!plan)
    return;
  for (int i = 0; i < FRICL__PLAN_ATTACHMENTS; ++i)
    if (plan->attached[i].release)
      plan->attached[i].release(plan->attached[i].data);
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

/* ----------------------------------------------------------- the lists */

/* Everything the parallel passes share. Contact c's vertex ids are
 * ids[4c .. 4c+3], unused slots of smaller stencils -1, so that every pass
 * indexes by the global contact number. */
typedef struct {
  fricl_tangential_plan *p;
  const fricl_contact_group *groups;
  size_t *group_base; /* first global contact of each group, n_groups + 1 */
  int32_t *ids;
  unsigned threads;
  size_t nv;
  /* vertex lists */
  uint32_t *counts; /* threads x nv: entries per (thread, vertex) */
  size_t contact_cuts[257];
  size_t vertex_cuts[257];
  int64_t range_sum[257];
  /* pattern and block lists */
  int64_t *eoff;   /* block-list entries before row r: nv + 1 */
  int32_t *keys;   /* per row, room for its distinct columns */
  int64_t *ucount; /* distinct columns per row */
  int unsorted;    /* pass A leaves each row's columns unsorted */
  int failed;      /* a worker ran out of memory */
} plan_job;

static void fill_ids(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  size_t g = 0;
  while (j->group_base[g + 1] <= lo)
    ++g;
  for (size_t c = lo; c < hi; ++c) {
    while (j->group_base[g + 1] <= c)
      ++g;
    const size_t k = (size_t)fricl__stencil_vertex_count(j->groups[g].type);
    const int32_t *v = j->groups[g].vertices + (c - j->group_base[g]) * k;
    for (size_t i = 0; i < 4; ++i)
      j->ids[c * 4 + i] = i < k ? v[i] : -1;
  }
}

/* Pass 1: per thread (a contiguous range of contacts), entries per vertex. */
static void count_entries(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)lo;
  (void)hi;
  plan_job *j = arg;
  uint32_t *cnt = j->counts + (size_t)w * j->nv; /* zeroed (calloc) */
  for (size_t c = j->contact_cuts[w]; c < j->contact_cuts[w + 1]; ++c)
    for (size_t i = 0; i < 4 && j->ids[c * 4 + i] >= 0; ++i)
      cnt[j->ids[c * 4 + i]]++;
}

/* Pass 2: per vertex range, the range's total (for the prefix sum). */
static void sum_vertex_range(void *arg, size_t lo, size_t hi, unsigned w) {
  plan_job *j = arg;
  int64_t s = 0;
  for (size_t v = lo; v < hi; ++v)
    for (unsigned t = 0; t < j->threads; ++t)
      s += j->counts[(size_t)t * j->nv + v];
  j->range_sum[w] = s;
}

/* Pass 3: vptr and, in place of the counts, each thread's first slot per
 * vertex (threads in contact order, so lists stay in contact order). */
static void prefix_vertex_range(void *arg, size_t lo, size_t hi, unsigned w) {
  plan_job *j = arg;
  int64_t s = 0;
  for (unsigned t = 0; t < w; ++t)
    s += j->range_sum[t];
  for (size_t v = lo; v < hi; ++v) {
    j->p->vptr[v] = s;
    for (unsigned t = 0; t < j->threads; ++t) {
      uint32_t *c = &j->counts[(size_t)t * j->nv + v];
      const uint32_t n = *c;
      *c = (uint32_t)(s - j->p->vptr[v]); /* offset within v's list */
      s += n;
    }
  }
}

/* Pass 4: each thread scatters its contacts' entries. */
static void scatter_entries(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)lo;
  (void)hi;
  plan_job *j = arg;
  uint32_t *pos = j->counts + (size_t)w * j->nv;
  for (size_t c = j->contact_cuts[w]; c < j->contact_cuts[w + 1]; ++c)
    for (size_t i = 0; i < 4 && j->ids[c * 4 + i] >= 0; ++i) {
      const int32_t v = j->ids[c * 4 + i];
      j->p->ventries[j->p->vptr[v] + pos[v]++] = ((uint64_t)c << 2) | i;
    }
}

/* Even cuts of [0, n) into `pieces`. */
static void even_cuts(size_t *cuts, size_t n, unsigned pieces) {
  for (unsigned t = 0; t <= pieces; ++t)
    cuts[t] = (n / pieces) * t + (n % pieces) * t / pieces;
}

/* Per-vertex lists of (contact, slot): a parallel counting sort by vertex,
 * stable in contact order. */
static int build_vertex_lists(plan_job *j, fricl__pool *pool) {
  fricl_tangential_plan *p = j->p;
  size_t ne = 0;
  for (size_t g = 0; g < p->n_groups; ++g)
    ne += p->counts[g] * (size_t)fricl__stencil_vertex_count(p->types[g]);
  p->vptr = fricl__calloc(j->nv + 1, sizeof *p->vptr);
  p->ventries = fricl__malloc((ne ? ne : 1) * sizeof(uint64_t));
  if (!p->vptr || !p->ventries)
    return 0;
  /* Per-thread counts cost threads x nv words: fewer threads when that
   * would be large next to the lists themselves. */
  unsigned t = fricl__pool_threads(pool);
  while (t > 1 && (size_t)t * j->nv > 4 * ne + 65536)
    --t;
  /* Below ~32k contacts the passes take less than waking the workers and
   * the per-thread counts cost (measured: 1.5x slower on 2 threads at 10^4
   * contacts). */
  if (p->total < fricl__grain(p->ctx, 32768))
    t = 1;
  j->threads = t;
  j->counts = fricl__calloc((size_t)t * j->nv + 1, sizeof *j->counts);
  if (!j->counts)
    return 0;
  even_cuts(j->contact_cuts, p->total, t);
  even_cuts(j->vertex_cuts, j->nv, t);
  fricl__pool_run_cuts(pool, j->contact_cuts, t, count_entries, j);
  fricl__pool_run_cuts(pool, j->vertex_cuts, t, sum_vertex_range, j);
  fricl__pool_run_cuts(pool, j->vertex_cuts, t, prefix_vertex_range, j);
  p->vptr[j->nv] = (int64_t)ne;
  fricl__pool_run_cuts(pool, j->contact_cuts, t, scatter_entries, j);
  free(j->counts);
  j->counts = NULL;
  return 1;
}

/* Cuts of the vertex range into `t` pieces of about equal list entries. */
static void weighted_cuts(size_t *cuts, const int64_t *prefix, size_t nv,
                          unsigned t) {
  const int64_t total = prefix[nv];
  cuts[0] = 0;
  size_t v = 0;
  for (unsigned k = 1; k < t; ++k) {
    const int64_t target = (int64_t)((double)total * k / t);
    while (v < nv && prefix[v] < target)
      ++v;
    cuts[k] = v;
  }
  cuts[t] = nv;
}

/* The pieces over the rows: even in list entries, one piece when small. */
static unsigned row_cuts(const plan_job *j, fricl__pool *pool, size_t *cuts) {
  unsigned t = fricl__pool_threads(pool);
  if (t > 256)
    t = 256;
  if ((size_t)j->p->vptr[j->nv] < fricl__grain(j->p->ctx, 131072))
    t = 1;
  weighted_cuts(cuts, j->p->vptr, j->nv, t);
  return t;
}

/* Per piece of rows: a map vertex -> its slot in the current row (-1 when
 * absent), so that a row's columns are found in one pass over its
 * entries. */
static int32_t *slot_map(plan_job *j) {
  int32_t *slot = fricl__malloc((j->nv ? j->nv : 1) * sizeof *slot);
  if (slot)
    memset(slot, 0xff, j->nv * sizeof *slot); /* all -1 */
  else
    j->failed = 1;
  return slot;
}

static int col_cmp(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Pattern pass A: each row's distinct columns (the vertices of its
 * contacts), sorted unless j->unsorted, at the row's start in `keys`
 * (which has room for one per list entry x 4), and their count. */
static void row_columns(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  const fricl_tangential_plan *p = j->p;
  int32_t *slot = slot_map(j);
  if (!slot)
    return;
  for (size_t v = lo; v < hi; ++v) {
    int32_t *cols = j->keys + 4 * p->vptr[v];
    size_t u = 0;
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x) {
      const int32_t *ids = j->ids + 4 * (size_t)(p->ventries[x] >> 2);
      for (size_t k = 0; k < 4 && ids[k] >= 0; ++k)
        if (slot[ids[k]] < 0) {
          slot[ids[k]] = 0;
          cols[u++] = ids[k];
        }
    }
    for (size_t a = 0; a < u; ++a)
      slot[cols[a]] = -1;
    if (!j->unsorted && u <= 32) {
      for (size_t a = 1; a < u; ++a) {
        const int32_t c = cols[a];
        size_t b = a;
        for (; b > 0 && cols[b - 1] > c; --b)
          cols[b] = cols[b - 1];
        cols[b] = c;
      }
    } else if (!j->unsorted) {
      qsort(cols, u, sizeof *cols, col_cmp);
    }
    j->ucount[v + 1] = (int64_t)u;
  }
  free(slot);
}

/* Pattern pass B: the columns, compacted. */
static void compact_columns(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  fricl_tangential_plan *p = j->p;
  for (size_t v = lo; v < hi; ++v)
    memcpy(p->cols + p->row_ptr[v], j->keys + 4 * p->vptr[v],
           (size_t)(p->row_ptr[v + 1] - p->row_ptr[v]) * sizeof *p->cols);
}

/* The BSR pattern of the global Hessian: block (v, u) exists when a
 * contact holds both; rows are independent, so they are found in
 * parallel. */
static int build_pattern(plan_job *j, fricl__pool *pool) {
  fricl_tangential_plan *p = j->p;
  const size_t nv = j->nv, ne = (size_t)p->vptr[nv];
  j->ucount = fricl__calloc(nv + 1, sizeof *j->ucount);
  j->keys = fricl__malloc((ne ? 4 * ne : 1) * sizeof *j->keys);
  p->row_ptr = fricl__calloc(nv + 1, sizeof *p->row_ptr);
  int ok = 0;
  if (!j->ucount || !j->keys || !p->row_ptr)
    goto done;
  size_t cuts[257];
  const unsigned pieces = row_cuts(j, pool, cuts);
  /* On one thread, the rows are sorted by a transpose instead of a sort
   * per row: the pattern is symmetric (block (v, u) exists when a contact
   * holds both), so visiting the rows u in order and appending u to the
   * row of each of u's columns v fills every row in ascending order, in
   * O(blocks) (the rows of a vertex in many contacts, such as an
   * obstacle's corner, made the sorts most of a plan's cost). */
  j->unsorted = pieces == 1;
  fricl__pool_run_cuts(pool, cuts, pieces, row_columns, j);
  if (j->failed)
    goto done;
  for (size_t v = 0; v < nv; ++v)
    p->row_ptr[v + 1] = p->row_ptr[v] + j->ucount[v + 1];
  p->nnz = (size_t)p->row_ptr[nv];
  p->cols = fricl__malloc((p->nnz ? p->nnz : 1) * sizeof *p->cols);
  if (!p->cols)
    goto done;
  if (j->unsorted) {
    int64_t *fill = j->ucount; /* reused: each row's next slot */
    for (size_t v = 0; v < nv; ++v)
      fill[v] = p->row_ptr[v];
    for (size_t u = 0; u < nv; ++u) {
      const int32_t *cols = j->keys + 4 * p->vptr[u];
      const size_t n = (size_t)(p->row_ptr[u + 1] - p->row_ptr[u]);
      for (size_t a = 0; a < n; ++a)
        p->cols[fill[cols[a]]++] = (int32_t)u;
    }
  } else {
    fricl__pool_run_cuts(pool, cuts, pieces, compact_columns, j);
  }
  ok = 1;
done:
  free(j->ucount);
  free(j->keys);
  j->ucount = NULL;
  j->keys = NULL;
  return ok;
}

/* Block lists pass: for each block, its (contact, i, j) contributions in
 * row-list order - contact order, then i, then j - which is the order the
 * gathers sum them in. A counting sort of the row's entries by block. */
static void row_blocks(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  fricl_tangential_plan *p = j->p;
  int32_t *slot = slot_map(j);
  if (!slot)
    return;
  for (size_t v = lo; v < hi; ++v) {
    const int64_t b0 = p->row_ptr[v], b1 = p->row_ptr[v + 1];
    /* Entries per block, then each block's first position. */
    for (int64_t b = b0; b < b1; ++b) {
      slot[p->cols[b]] = (int32_t)(b - b0);
      p->bptr[b] = 0;
    }
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x) {
      const int32_t *ids = j->ids + 4 * (size_t)(p->ventries[x] >> 2);
      for (size_t k = 0; k < 4 && ids[k] >= 0; ++k)
        p->bptr[b0 + slot[ids[k]]]++;
    }
    int64_t pos = j->eoff[v];
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t n = p->bptr[b];
      p->bptr[b] = pos;
      pos += n;
    }
    /* The entries, stable within their block; bptr[b] ends at the next
     * block's start and is moved back below. */
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x) {
      const uint64_t cv = p->ventries[x];
      const int32_t *ids = j->ids + 4 * (size_t)(cv >> 2);
      for (size_t k = 0; k < 4 && ids[k] >= 0; ++k)
        p->bentries[p->bptr[b0 + slot[ids[k]]]++] =
            ((cv >> 2) << 4) | ((cv & 3) << 2) | k;
    }
    for (int64_t b = b1; b-- > b0;) {
      p->bptr[b] = b > b0 ? p->bptr[b - 1] : j->eoff[v];
      slot[p->cols[b]] = -1;
    }
  }
  free(slot);
}

/* Rebuild the per-contact vertex ids from the vertex lists. */
static void ids_from_lists(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  const fricl_tangential_plan *p = j->p;
  for (size_t v = lo; v < hi; ++v)
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x)
      j->ids[4 * (size_t)(p->ventries[x] >> 2) + (p->ventries[x] & 3)] =
          (int32_t)v;
}

static void row_entry_counts(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  const fricl_tangential_plan *p = j->p;
  for (size_t v = lo; v < hi; ++v) {
    int64_t n = 0;
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x) {
      const int32_t *ids = j->ids + 4 * (size_t)(p->ventries[x] >> 2);
      for (size_t k = 0; k < 4 && ids[k] >= 0; ++k)
        ++n;
    }
    j->eoff[v + 1] = n;
  }
}

fricl_status fricl__plan_blocks(fricl_tangential_plan *p) {
  if (p->bentries || !p->has_bsr)
    return FRICL_STATUS_OK;
  fricl_context *ctx = p->ctx;
  plan_job j;
  memset(&j, 0, sizeof j);
  j.p = p;
  j.nv = p->n_vertices;
  const size_t nv = j.nv;
  j.ids = fricl__malloc((p->total ? p->total : 1) * 4 * sizeof *j.ids);
  j.eoff = fricl__calloc(nv + 1, sizeof *j.eoff);
  p->bptr = fricl__malloc((p->nnz + 1) * sizeof *p->bptr);
  int ok = 0;
  if (!j.ids || !j.eoff || !p->bptr)
    goto done;
  /* Unused slots of smaller stencils stay -1. */
  memset(j.ids, 0xff, p->total * 4 * sizeof *j.ids);
  size_t cuts[257];
  const unsigned pieces = row_cuts(&j, ctx->pool, cuts);
  fricl__pool_run_cuts(ctx->pool, cuts, pieces, ids_from_lists, &j);
  fricl__pool_run_cuts(ctx->pool, cuts, pieces, row_entry_counts, &j);
  for (size_t v = 0; v < nv; ++v)
    j.eoff[v + 1] += j.eoff[v];
  const size_t ne = (size_t)j.eoff[nv];
  p->bentries = fricl__malloc((ne ? ne : 1) * sizeof *p->bentries);
  if (!p->bentries)
    goto done;
  fricl__pool_run_cuts(ctx->pool, cuts, pieces, row_blocks, &j);
  if (j.failed)
    goto done;
  p->bptr[p->nnz] = (int64_t)ne;
  ok = 1;
done:
  free(j.ids);
  free(j.eoff);
  if (ok)
    return FRICL_STATUS_OK;
  free(p->bptr);
  free(p->bentries);
  p->bptr = NULL;
  p->bentries = NULL;
  return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                     "out of memory building the plan's block lists");
}

fricl_status fricl__plan_build(fricl_context *ctx, int dim, size_t n_vertices,
                               size_t n_groups,
                               const fricl_contact_group *groups, int with_bsr,
                               fricl_tangential_plan **out) {
  fricl_tangential_plan *p = fricl__calloc(1, sizeof *p);
  plan_job j;
  memset(&j, 0, sizeof j);
  if (!p)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "allocating a plan");
  p->ctx = ctx;
  p->dim = dim;
  p->n_vertices = n_vertices;
  p->n_groups = n_groups;
  p->types = fricl__malloc((n_groups ? n_groups : 1) * sizeof *p->types);
  p->counts = fricl__malloc((n_groups ? n_groups : 1) * sizeof *p->counts);
  j.group_base = fricl__malloc((n_groups + 1) * sizeof *j.group_base);
  if (!p->types || !p->counts || !j.group_base)
    goto oom;
  j.group_base[0] = 0;
  for (size_t g = 0; g < n_groups; ++g) {
    p->types[g] = groups[g].type;
    p->counts[g] = groups[g].count;
    p->total += groups[g].count;
    j.group_base[g + 1] = p->total;
  }
  p->checksum =
      fricl__topology_checksum(ctx, dim, n_vertices, n_groups, groups);
  j.p = p;
  j.groups = groups;
  j.nv = n_vertices;
  j.ids = fricl__malloc((p->total ? p->total : 1) * 4 * sizeof *j.ids);
  if (!j.ids)
    goto oom;
  fricl__pool_for(ctx->pool, p->total, fricl__grain(ctx, 16384), 1, fill_ids,
                  &j);
  if (!build_vertex_lists(&j, ctx->pool))
    goto oom;
  if (with_bsr) {
    if (!build_pattern(&j, ctx->pool))
      goto oom;
    p->has_bsr = 1;
  }
  free(j.ids);
  free(j.group_base);
  *out = p;
  return FRICL_STATUS_OK;
oom:
  free(j.ids);
  free(j.group_base);
  free(j.counts);
  fricl__plan_destroy(p);
  return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                     "out of memory building the contact plan");
}

/* ----------------------------------------------------- the plan cache */

struct fricl__plan_cache {
  fricl_tangential_plan *plan; /* vertex lists only */
};

void fricl__plan_cache_destroy(fricl_context *ctx) {
  if (!ctx->plan_cache)
    return;
  fricl__plan_destroy(ctx->plan_cache->plan);
  free(ctx->plan_cache);
  ctx->plan_cache = NULL;
}

static int same_topology(const fricl_tangential_plan *p, int dim, size_t nv,
                         size_t n_groups, const fricl_contact_group *groups,
                         uint64_t checksum) {
  if (p->dim != dim || p->n_vertices != nv || p->n_groups != n_groups ||
      p->checksum != checksum)
    return 0;
  for (size_t g = 0; g < n_groups; ++g)
    if (p->types[g] != groups[g].type || p->counts[g] != groups[g].count)
      return 0;
  return 1;
}

fricl_status fricl__plan_lookup(fricl_context *ctx, int dim, size_t n_vertices,
                                size_t n_groups,
                                const fricl_contact_group *groups,
                                fricl_tangential_plan **out) {
  if (!ctx->plan_cache) {
    ctx->plan_cache = fricl__calloc(1, sizeof *ctx->plan_cache);
    if (!ctx->plan_cache)
      return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                         "allocating the plan cache");
  }
  fricl__plan_cache *c = ctx->plan_cache;
  const uint64_t sum =
      fricl__topology_checksum(ctx, dim, n_vertices, n_groups, groups);
  if (c->plan &&
      same_topology(c->plan, dim, n_vertices, n_groups, groups, sum)) {
    *out = c->plan;
    return FRICL_STATUS_OK;
  }
  fricl__plan_destroy(c->plan);
  c->plan = NULL;
  fricl_status st =
      fricl__plan_build(ctx, dim, n_vertices, n_groups, groups, 0, &c->plan);
  if (st == FRICL_STATUS_OK)
    *out = c->plan;
  return st;
}
