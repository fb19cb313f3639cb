/* plan.c - the topology of a contact set: per-vertex and per-Hessian-block
 * gather lists (so that assembly sums in a fixed order, without atomics),
 * the BSR/CSR pattern of the global Hessian, and the context's cache of the
 * lists for calls made without a plan. Construction runs on the context's
 * host threads; its result does not depend on their number. */
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
    const size_t k = (size_t)fricl_stencil_vertex_count(groups[g].type);
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

void fricl_tangential_plan_destroy(fricl_tangential_plan *plan) {
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
  /* block lists */
  int64_t *eoff;   /* entries before row r: nv + 1 */
  int32_t *keys;   /* column of each entry (sorted per row) */
  int64_t *bstart; /* per row: entry index of each unique column */
  int64_t *ucount; /* unique columns per row, then their prefix */
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
    const size_t k = (size_t)fricl_stencil_vertex_count(j->groups[g].type);
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
    ne += p->counts[g] * (size_t)fricl_stencil_vertex_count(p->types[g]);
  p->vptr = fricl__calloc(j->nv + 1, sizeof *p->vptr);
  p->ventries = fricl__malloc((ne ? ne : 1) * sizeof(uint64_t));
  if (!p->vptr || !p->ventries)
    return 0;
  /* Per-thread counts cost threads x nv words: fewer threads when that
   * would be large next to the lists themselves. */
  unsigned t = fricl__pool_threads(pool);
  while (t > 1 && (size_t)t * j->nv > 4 * ne + 65536)
    --t;
  if (p->total < fricl__grain(p->ctx, 4096))
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

/* Stable sort of one row's (col, entry) pairs by col: insertion sort for
 * short rows, merge sort (tmp of the same length) for long ones. */
static void sort_row(int32_t *col, uint64_t *ent, size_t n, int32_t *tc,
                     uint64_t *te) {
  if (n <= 32) {
    for (size_t i = 1; i < n; ++i) {
      const int32_t c = col[i];
      const uint64_t e = ent[i];
      size_t k = i;
      while (k > 0 && col[k - 1] > c) {
        col[k] = col[k - 1];
        ent[k] = ent[k - 1];
        --k;
      }
      col[k] = c;
      ent[k] = e;
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

/* Block pass A: entries per row (sum of k over the row's vertex list). */
static void count_row_entries(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  const fricl_tangential_plan *p = j->p;
  for (size_t v = lo; v < hi; ++v) {
    int64_t n = 0;
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x) {
      const size_t c = (size_t)(p->ventries[x] >> 2);
      for (size_t i = 0; i < 4 && j->ids[c * 4 + i] >= 0; ++i)
        ++n;
    }
    j->eoff[v + 1] = n;
  }
}

/* Block pass B: each row's (column, entry) pairs sorted stably by column
 * in place, then its unique columns compacted at the row's start. */
static void fill_rows(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  fricl_tangential_plan *p = j->p;
  size_t tcap = 0;
  int32_t *tc = NULL;
  uint64_t *te = NULL;
  for (size_t v = lo; v < hi; ++v) {
    const int64_t base = j->eoff[v];
    int32_t *rc = j->keys + base;
    uint64_t *re = p->bentries + base;
    size_t n = 0;
    for (int64_t x = p->vptr[v]; x < p->vptr[v + 1]; ++x) {
      const uint64_t cv = p->ventries[x];
      const size_t c = (size_t)(cv >> 2), i = (size_t)(cv & 3);
      for (size_t k = 0; k < 4 && j->ids[c * 4 + k] >= 0; ++k) {
        rc[n] = j->ids[c * 4 + k];
        re[n++] = ((uint64_t)c << 4) | (i << 2) | k;
      }
    }
    if (n > 32 && n > tcap) { /* merge-sort scratch, grow only */
      free(tc);
      free(te);
      tc = fricl__malloc(n * sizeof *tc);
      te = fricl__malloc(n * sizeof *te);
      tcap = n;
      if (!tc || !te) {
        j->failed = 1;
        break;
      }
    }
    sort_row(rc, re, n, tc, te);
    int64_t *bs = j->bstart + base;
    size_t u = 0;
    for (size_t e = 0; e < n; ++e)
      if (e == 0 || rc[e] != rc[u - 1]) {
        rc[u] = rc[e];
        bs[u++] = base + (int64_t)e;
      }
    j->ucount[v + 1] = (int64_t)u;
  }
  free(tc);
  free(te);
}

/* Block pass C: the unique columns and block starts, compacted. */
static void compact_rows(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  plan_job *j = arg;
  fricl_tangential_plan *p = j->p;
  for (size_t v = lo; v < hi; ++v) {
    const int64_t base = j->eoff[v], out = p->row_ptr[v];
    const int64_t u = p->row_ptr[v + 1] - out;
    memmove(p->cols + out, j->keys + base, (size_t)u * sizeof *p->cols);
    memmove(p->bptr + out, j->bstart + base, (size_t)u * sizeof *p->bptr);
  }
}

/* Cuts of the vertex range into `t` pieces of about equal entries. */
static unsigned weighted_cuts(size_t *cuts, const int64_t *prefix, size_t nv,
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
  return t;
}

/* The block lists, row by row from the vertex lists: row v collects
 * (v_j, (c, i, j)) for every (c, i) of v's list (contact order) and every
 * j of contact c, sorts it stably by column and merges equal columns into
 * one BSR block whose contributions stay in (contact, i, j) order. Rows
 * are independent, so they are built in parallel. */
static int build_block_lists(plan_job *j, fricl__pool *pool) {
  fricl_tangential_plan *p = j->p;
  const size_t nv = j->nv;
  const unsigned t = fricl__pool_threads(pool);
  int ok = 0;
  j->eoff = fricl__calloc(nv + 1, sizeof *j->eoff);
  j->ucount = fricl__calloc(nv + 1, sizeof *j->ucount);
  p->row_ptr = fricl__calloc(nv + 1, sizeof *p->row_ptr);
  if (!j->eoff || !j->ucount || !p->row_ptr)
    goto done;
  fricl__pool_for(pool, nv, fricl__grain(p->ctx, 1024), 1, count_row_entries,
                  j);
  for (size_t v = 0; v < nv; ++v)
    j->eoff[v + 1] += j->eoff[v];
  const size_t ne = (size_t)j->eoff[nv];
  p->bentries = fricl__malloc((ne ? ne : 1) * sizeof *p->bentries);
  j->keys = fricl__malloc((ne ? ne : 1) * sizeof *j->keys);
  j->bstart = fricl__malloc((ne ? ne : 1) * sizeof *j->bstart);
  if (!p->bentries || !j->keys || !j->bstart)
    goto done;
  size_t cuts[257];
  const unsigned pieces = ne < fricl__grain(p->ctx, 8192) || t < 2
                              ? 1
                              : weighted_cuts(cuts, j->eoff, nv, t);
  if (pieces == 1)
    even_cuts(cuts, nv, 1);
  fricl__pool_run_cuts(pool, cuts, pieces, fill_rows, j);
  if (j->failed)
    goto done;
  for (size_t v = 0; v < nv; ++v)
    p->row_ptr[v + 1] = p->row_ptr[v] + j->ucount[v + 1];
  p->nnz = (size_t)p->row_ptr[nv];
  p->cols = fricl__malloc((p->nnz ? p->nnz : 1) * sizeof *p->cols);
  p->bptr = fricl__malloc((p->nnz + 1) * sizeof *p->bptr);
  if (!p->cols || !p->bptr)
    goto done;
  fricl__pool_run_cuts(pool, cuts, pieces, compact_rows, j);
  p->bptr[p->nnz] = (int64_t)ne;
  ok = 1;
done:
  free(j->eoff);
  free(j->ucount);
  free(j->keys);
  free(j->bstart);
  j->eoff = j->ucount = NULL;
  j->keys = NULL;
  j->bstart = NULL;
  return ok;
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
    if (!build_block_lists(&j, ctx->pool))
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
  fricl_tangential_plan_destroy(p);
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
  fricl_tangential_plan_destroy(ctx->plan_cache->plan);
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
  fricl_tangential_plan_destroy(c->plan);
  c->plan = NULL;
  fricl_status st =
      fricl__plan_build(ctx, dim, n_vertices, n_groups, groups, 0, &c->plan);
  if (st == FRICL_STATUS_OK)
    *out = c->plan;
  return st;
}

/* ------------------------------------------------------ public accessors */

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
  if (values && fricl__overlaps(values, plan->nnz * d * d * esz, bsr_values,
                                plan->nnz * d * d * esz))
    return FRICL_STATUS_INVALID_ARGUMENT;
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
