/* broad_phase.c - candidate pairs of a collision mesh: boxes of vertices
 * (inflated, over a motion), edges and faces as ipctk builds them, paired
 * through a uniform spatial hash. The small boxes of one set are stored
 * once each, in the cell of their low corner (found through a hash table);
 * every box of the other set probes the cells a box it overlaps can start
 * in, so each pair is met exactly once and no list needs deduplication.
 * The few big boxes (a floor, an obstacle's faces) are paired apart:
 * against a grid of the other set's small boxes, and with each other.
 * Probes are split into contiguous index ranges per thread, whose outputs
 * are kept apart and concatenated in order: the same output for any
 * thread count. Cost O(n) expected, plus the pairs. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/collisions.h"
#include "core/pool.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A box and the vertices of its element (-1 past the last), 64 bytes:
 * the filters read the ids from the box a probe has just loaded. */
typedef struct box {
  double lo[3], hi[3];
  int32_t v[4];
} box;

/* The probe loop's helpers: inlined (a call per box tested was a quarter
 * of the broad phase). */
#if defined(__GNUC__)
#define BP_INLINE __attribute__((always_inline)) inline
#else
#define BP_INLINE inline
#endif

/* -------------------------------------------------------------- scratch */

/* The broad phase's buffers, kept on the context between calls (calls on
 * a context are serialised), so that a build like the previous one
 * touches memory it already owns: fresh pages cost a fault each, which
 * was a third of a 120k-collision build. One buffer per use, grown and
 * never shrunk; contents undefined on entry. */
enum {
  W_BOXES,
  W_GRID_IDS,
  W_GRID_KEYS,
  W_GRID_SORTED,
  W_GRID_TABLE,
  W_GRID_COLS,
  W_GRID_CELLS,
  W_GRID_FLOAT,
  W_GRID_INTS,
  W_ORDER_KEYS,
  W_ORDER_IDS,
  W_SEQ,
  W_SMALL_A,
  W_BIG_A,
  W_SMALL_B,
  W_BIG_B,
  W_SORT_START,
  W_SORT_TMP,
  W_SORT_KEYS,
  W_SORT_VALS,
  W_N
};

typedef struct scratch {
  void *buf[W_N];
  size_t cap[W_N];
  fricl__ivec *out; /* the queries' per-slot pair lists */
  size_t n_out;
} scratch;

static void scratch_free(void *p) {
  scratch *w = (scratch *)p;
  for (int i = 0; i < W_N; ++i)
    free(w->buf[i]);
  for (size_t i = 0; i < w->n_out; ++i)
    free(w->out[i].v);
  free(w->out);
  free(w);
}

/* The context's scratch (NULL when out of memory). */
static scratch *scratch_of(fricl_context *ctx) {
  struct fricl__scratch *c = &ctx->scratch[FRICL__SCRATCH_BROAD];
  if (!c->p) {
    c->p = calloc(1, sizeof(scratch));
    c->free = scratch_free;
  }
  return (scratch *)c->p;
}

/* Buffer `slot` of at least `bytes` (NULL when out of memory). Without a
 * scratch (w NULL) nothing is kept: the caller frees what it gets. */
static void *wget(scratch *w, int slot, size_t bytes) {
  if (!bytes)
    bytes = 1;
  if (!w)
    return malloc(bytes);
  if (w->cap[slot] < bytes) {
    size_t c = w->cap[slot] ? w->cap[slot] : 4096;
    while (c < bytes)
      c *= 2;
    free(w->buf[slot]); /* nothing to keep: no copy */
    w->buf[slot] = malloc(c);
    w->cap[slot] = w->buf[slot] ? c : 0;
  }
  return w->buf[slot];
}

/* Buffer `slot` as n counters set to zero (NULL when out of memory). */
static size_t *wzero(scratch *w, int slot, size_t n) {
  size_t *s = (size_t *)wget(w, slot, n * sizeof *s);
  if (s)
    memset(s, 0, n * sizeof *s);
  return s;
}

/* Counts of n bins, s[1..n], into their starts, s[0..n]. */
static void starts_of_counts(size_t *s, size_t n) {
  for (size_t c = 0; c < n; ++c)
    s[c + 1] += s[c];
}

/* Release what wget gave without a scratch. */
static void wput(scratch *w, void *p) {
  if (!w)
    free(p);
}

/* ------------------------------------------------------------ radix sort */

/* Stable insertion sort: short lists, and the fallback when out of
 * memory. */
static void insertion_sort(uint64_t *key, uint32_t *val, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    const uint64_t k = key[i];
    const uint32_t v = val[i];
    size_t j = i;
    for (; j > 0 && key[j - 1] > k; --j) {
      key[j] = key[j - 1];
      val[j] = val[j - 1];
    }
    key[j] = k;
    val[j] = v;
  }
}

/* LSD radix sort over the keys' significant bits only (those set in some
 * key), in digits of at most 11 bits: the counters of every digit fit in
 * L1 and are counted in one pass over the keys; a digit that every key
 * shares moves nothing and is skipped. (16-bit digits over all 64 bits
 * read the keys 4 times and counted in 512 KB of L2: 14 % of a 3.6M-pair
 * candidate build.) Stable: the same order as any stable sort. */
enum { RADIX_BITS = 11, RADIX_MAX = 6, SMALL_BITS = 8, SMALL_MAX = 8 };

/* digit: at most that many bits; count: (64 / digit rounded up) << digit
 * counters. */
static void radix_sort_bits(uint64_t *key, uint32_t *val, size_t n,
                            uint64_t *tk, uint32_t *tv, int digit,
                            size_t *count) {
  const size_t R = (size_t)1 << digit;
  uint64_t any = 0;
  for (size_t i = 0; i < n; ++i)
    any |= key[i];
  int bits = 0;
  while (bits < 64 && (any >> bits) != 0)
    ++bits;
  const int passes = (bits + digit - 1) / digit;
  /* the same width for every digit: the fewest bits that cover them */
  const int w = passes ? (bits + passes - 1) / passes : 0;
  const uint64_t mask = ((uint64_t)1 << w) - 1;
  memset(count, 0, (size_t)passes * R * sizeof *count);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t k = key[i];
    for (int p = 0; p < passes; ++p)
      count[(size_t)p * R + ((k >> (p * w)) & mask)]++;
  }
  uint64_t *ks = key, *kd = tk;
  uint32_t *vs = val, *vd = tv;
  for (int p = 0; p < passes; ++p) {
    size_t *c = count + (size_t)p * R;
    size_t sum = 0, nz = 0;
    for (size_t d = 0; d <= mask; ++d) {
      const size_t x = c[d];
      nz += x != 0;
      c[d] = sum;
      sum += x;
    }
    if (nz <= 1)
      continue; /* every key has this digit: nothing moves */
    const int shift = p * w;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k = ks[i];
      const size_t at = c[(k >> shift) & mask]++;
      kd[at] = k;
      vd[at] = vs[i];
    }
    uint64_t *t = ks;
    ks = kd;
    kd = t;
    uint32_t *u = vs;
    vs = vd;
    vd = u;
  }
  if (ks != key) {
    memcpy(key, ks, n * sizeof *key);
    memcpy(val, vs, n * sizeof *val);
  }
}

/* Every stable sort gives the same order, so the method is chosen by size
 * alone: short lists take insertion, or 8-bit digits counted on the stack
 * (a 100-collision build spent 60 % of its time counting 16-bit digits). */
void fricl__radix_sort(uint64_t *key, uint32_t *val, size_t n, uint64_t *tk,
                       uint32_t *tv) {
  if (n <= 32) {
    insertion_sort(key, val, n);
    return;
  }
  if (n < 4096) {
    size_t count[SMALL_MAX << SMALL_BITS];
    radix_sort_bits(key, val, n, tk, tv, SMALL_BITS, count);
    return;
  }
  size_t *count =
      (size_t *)malloc(((size_t)RADIX_MAX << RADIX_BITS) * sizeof *count);
  if (!count) {
    insertion_sort(key, val, n);
    return;
  }
  radix_sort_bits(key, val, n, tk, tv, RADIX_BITS, count);
  free(count);
}

/* Pairs of non-negative ids whose first ids span a range at most a few
 * times their count (a mesh's candidates): bucketed by the first id (one
 * count, one scatter), each bucket then sorted by the second id by
 * insertion (a few pairs). Half the passes of the radix sort over both
 * ids (a big bucket is sorted by qsort: equal ids are equal, so any sort
 * gives the same pairs). Returns 0 when it does not apply or is out of memory.
 */
static int cmp_i32(const void *x, const void *y) {
  const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

static int pairs_sort_bucketed(scratch *w, fricl__ivec *p, size_t n) {
  int32_t top = 0;
  for (size_t i = 0; i < n; ++i) {
    const int32_t a = p->v[2 * i], b = p->v[2 * i + 1];
    if (a < 0 || b < 0)
      return 0;
    top = a > top ? a : top;
  }
  const size_t range = (size_t)top + 1;
  if (range > 4 * n + 4096)
    return 0;
  size_t *start = (size_t *)wget(w, W_SORT_START, (range + 1) * sizeof *start);
  int32_t *tmp = (int32_t *)wget(w, W_SORT_TMP, 2 * n * sizeof *tmp);
  if (!start || !tmp) {
    wput(w, start);
    wput(w, tmp);
    return 0;
  }
  memset(start, 0, (range + 1) * sizeof *start);
  for (size_t i = 0; i < n; ++i)
    start[p->v[2 * i] + 1]++;
  starts_of_counts(start, range);
  /* scatter the second ids (the first is the bucket's) */
  for (size_t i = 0; i < n; ++i)
    tmp[start[p->v[2 * i]]++] = p->v[2 * i + 1];
  /* start[a] is now the end of bucket a */
  size_t lo = 0;
  for (size_t a = 0; a < range; ++a) {
    const size_t hi = start[a];
    if (hi - lo > 48) /* a big element's bucket (a floor's face) */
      qsort(tmp + lo, hi - lo, sizeof *tmp, cmp_i32);
    for (size_t i = lo + 1; i < hi; ++i) {
      const int32_t b = tmp[i];
      size_t j = i;
      for (; j > lo && tmp[j - 1] > b; --j)
        tmp[j] = tmp[j - 1];
      tmp[j] = b;
    }
    for (size_t i = lo; i < hi; ++i) {
      p->v[2 * i] = (int32_t)a;
      p->v[2 * i + 1] = tmp[i];
    }
    lo = hi;
  }
  wput(w, start);
  wput(w, tmp);
  return 1;
}

static int pairs_sort(scratch *ws, fricl__ivec *p, int unique) {
  const size_t n = p->n / 2;
  if (n < 2)
    return 1;
  if (pairs_sort_bucketed(ws, p, n)) {
    if (unique) {
      size_t w = 1;
      for (size_t i = 1; i < n; ++i)
        if (p->v[2 * i] != p->v[2 * w - 2] ||
            p->v[2 * i + 1] != p->v[2 * w - 1]) {
          p->v[2 * w] = p->v[2 * i];
          p->v[2 * w + 1] = p->v[2 * i + 1];
          ++w;
        }
      p->n = 2 * w;
    }
    return 1;
  }
  uint64_t *k = (uint64_t *)wget(ws, W_SORT_KEYS, 2 * n * sizeof *k);
  uint32_t *v = (uint32_t *)wget(ws, W_SORT_VALS, 2 * n * sizeof *v);
  if (!k || !v) {
    wput(ws, k);
    wput(ws, v);
    return 0;
  }
  for (size_t i = 0; i < n; ++i) {
    k[i] = (uint64_t)(uint32_t)p->v[2 * i] << 32 | (uint32_t)p->v[2 * i + 1];
    v[i] = 0;
  }
  fricl__radix_sort(k, v, n, k + n, v + n);
  size_t w = 0;
  for (size_t i = 0; i < n; ++i)
    if (!unique || i == 0 || k[i] != k[i - 1]) {
      p->v[2 * w] = (int32_t)(k[i] >> 32);
      p->v[2 * w + 1] = (int32_t)(k[i] & 0xffffffffu);
      ++w;
    }
  p->n = 2 * w;
  wput(ws, k);
  wput(ws, v);
  return 1;
}

int fricl__pairs_sort(fricl__ivec *p, int unique) {
  return pairs_sort(NULL, p, unique);
}

/* -------------------------------------------------------------- queries */

enum { Q_EV, Q_EE, Q_FV, Q_VV };

enum { PHASES = FRICL__BP_PHASES };

/* One pairing of box set A with box set B (B NULL: A with itself). ids
 * map a box to the id it reports (NULL: its index). */
typedef struct query {
  int kind, dim, type;
  const fricl_collision_mesh *mesh;
  const box *A, *B;
  const int32_t *aid, *bid;
  size_t na, nb;
  fricl__pair_fn visit;
  void *user;
  unsigned pieces;  /* slots per phase: FRICL__BP_PIECES */
  fricl__ivec *out; /* per phase and piece, without a visitor */
  scratch *ws;      /* the context's (NULL: none) */
  int oom;
} query;

/* A uniform grid over a set of small boxes, each stored once, in the cell
 * of its low corner; a cell is found through an open-addressing table. */
typedef struct grid {
  int dim;
  double h, inv, org[3], reach; /* inv: 1 / h; reach: the largest box
                                 * extent stored */
  const box *boxes;
  uint32_t *ids; /* box indices sorted by cell */
  uint64_t *keys;
  box *sorted; /* the boxes in that order (probes read them in a row) */
  /* The sorted boxes once more in float, rounded outwards, by coordinate:
   * lo x, y, z then hi x, y, z, `stride` each (n, then zeros up to a
   * multiple of 4: probes read 4 at a time). A probe tests them 4 at once
   * and only the boxes that pass are tested in double. */
  float *f;
  /* and their ids and vertices, `stride` each: id, v0, v1, v2 (-2 past
   * the last: never a probe's vertex, whose absent ones are -1) */
  int32_t *iv;
  size_t stride;
  size_t n;
  struct slot {
    uint64_t key1; /* cell key + 1, 0: empty */
    uint32_t lo, hi;
  } * table;
  size_t tmask;
  int tshift; /* 64 - log2(table size) */
  /* Column mode, when the cells of the first two axes are few (at most
   * ~4 per box): a dense index of columns (c0, c1), each column's boxes
   * sorted by c2 (the key's low 21 bits). Neighbouring cells are then
   * neighbours in memory; the table above is the sparse fallback. */
  size_t *colstart;
  /* With few cells in all (at most ~8 per box), also a dense index of the
   * cells: cell (column, c2) holds [cellstart[column * nz + c2],
   * cellstart[column * nz + c2 + 1]) (the same boxes in the same order:
   * no bisection of a column). NULL otherwise. */
  size_t *cellstart;
  int64_t nz;
  int64_t nx, ny;
} grid;

static BP_INLINE int overlap(const box *a, const box *b, int dim) {
  for (int i = 0; i < dim; ++i)
    if (!(a->lo[i] <= b->hi[i] && b->lo[i] <= a->hi[i]))
      return 0;
  return 1;
}

static int64_t cell_of(const grid *g, double x, int axis) {
  return (int64_t)floor((x - g->org[axis]) * g->inv);
}

static uint64_t cell_key(const int64_t c[3]) {
  return (uint64_t)c[0] << 42 | (uint64_t)c[1] << 21 | (uint64_t)c[2];
}

/* Fibonacci hashing on the mixed key: the top bits of the product depend
 * on every bit of the key. */
static size_t hash_slot(uint64_t k, int shift) {
  k ^= k >> 29;
  return (size_t)((k * 0x9E3779B97F4A7C15ull) >> shift);
}

/* The grid's arrays are the scratch's (w NULL: its own). */
static void grid_free(scratch *w, grid *g) {
  wput(w, g->ids);
  wput(w, g->keys);
  wput(w, g->sorted);
  wput(w, g->table);
  wput(w, g->colstart);
  wput(w, g->cellstart);
  wput(w, g->f);
  wput(w, g->iv);
  memset(g, 0, sizeof *g);
}

/* A float at or below / at or above x (outward rounding: a float box
 * holds its double box, so the float test passes every pair the double
 * test does). The float nearest x is within half an ulp of it (or of
 * FLT_MIN / 2, subnormal): two ulps and FLT_MIN more are outside; past
 * float's range, the clamped value moved out overflows to the infinity.
 * Branch-free (vectorised over a grid's boxes). */
static BP_INLINE float float_down(double x) {
  const double c = x < -FLT_MAX ? -FLT_MAX : (x > FLT_MAX ? FLT_MAX : x);
  const float f = (float)c;
  return f - (fabsf(f) * 0x1p-22f + FLT_MIN);
}

static BP_INLINE float float_up(double x) {
  const double c = x < -FLT_MAX ? -FLT_MAX : (x > FLT_MAX ? FLT_MAX : x);
  const float f = (float)c;
  return f + (fabsf(f) * 0x1p-22f + FLT_MIN);
}

/* The grid's boxes in cell order, and their float and id copies, filled
 * on the host threads (each index from the same inputs, whatever the
 * split). */
static void grid_fill_range(void *arg, size_t lo, size_t hi, unsigned piece) {
  grid *g = (grid *)arg;
  const size_t n = g->n, ns = g->stride;
  (void)piece;
  for (size_t i = lo; i < hi; ++i) {
    const box *b = &g->boxes[g->ids[i]];
    g->sorted[i] = *b;
    for (int d = 0; d < 3; ++d) {
      g->f[(size_t)d * ns + i] = float_down(b->lo[d]);
      g->f[(size_t)(3 + d) * ns + i] = float_up(b->hi[d]);
    }
    g->iv[i] = (int32_t)g->ids[i];
    for (int k = 0; k < 3; ++k)
      g->iv[(size_t)(1 + k) * ns + i] = b->v[k] < 0 ? -2 : b->v[k];
  }
  if (hi == n) /* the padding */
    for (size_t i = n; i < ns; ++i) {
      for (int r = 0; r < 6; ++r)
        g->f[(size_t)r * ns + i] = 0;
      for (int r = 0; r < 4; ++r)
        g->iv[(size_t)r * ns + i] = 0;
    }
}

static int grid_fill(fricl_context *ctx, scratch *w, grid *g) {
  const size_t n = g->n, ns = (n + 3) / 4 * 4 + 4;
  g->stride = ns;
  g->sorted = (box *)wget(w, W_GRID_SORTED, (n + 1) * sizeof *g->sorted);
  g->f = (float *)wget(w, W_GRID_FLOAT, 6 * ns * sizeof *g->f);
  g->iv = (int32_t *)wget(w, W_GRID_INTS, 4 * ns * sizeof *g->iv);
  if (!g->sorted || !g->f || !g->iv)
    return 0;
  if (n)
    fricl__pool_for(ctx->pool, n, fricl__grain(ctx, 8192), 1, grid_fill_range,
                    g);
  else
    grid_fill_range(g, 0, 0, 0);
  return 1;
}

/* Grid over boxes[sel[i]] (sel NULL: all n), cell size h, origin org. */
static int grid_build(fricl_context *ctx, scratch *w, grid *g, int dim,
                      const box *boxes, const uint32_t *sel, size_t n, double h,
                      const double *org) {
  memset(g, 0, sizeof *g);
  g->dim = dim;
  g->h = h;
  g->inv = 1 / h; /* cells by a product: monotone in x, as the probes need */
  g->boxes = boxes;
  g->n = n;
  memcpy(g->org, org, sizeof g->org);
  g->ids = (uint32_t *)wget(w, W_GRID_IDS, (2 * n + 1) * sizeof *g->ids);
  g->keys = (uint64_t *)wget(w, W_GRID_KEYS, (2 * n + 1) * sizeof *g->keys);
  if (!g->ids || !g->keys)
    return 0;
  int64_t mx0 = 0, mx1 = 0, mx2 = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t b = sel ? sel[i] : (uint32_t)i;
    int64_t c[3] = {0, 0, 0};
    double ext = 0;
    for (int d = 0; d < dim; ++d) {
      c[d] = cell_of(g, boxes[b].lo[d], d);
      const double e = boxes[b].hi[d] - boxes[b].lo[d];
      ext = e > ext ? e : ext;
    }
    mx0 = c[0] > mx0 ? c[0] : mx0;
    mx1 = c[1] > mx1 ? c[1] : mx1;
    mx2 = c[2] > mx2 ? c[2] : mx2;
    g->reach = ext > g->reach ? ext : g->reach;
    g->keys[i] = cell_key(c);
    g->ids[i] = b;
  }
  if ((double)(mx0 + 1) * (double)(mx1 + 1) <= 4.0 * (double)n + 4096) {
    g->nx = mx0 + 1;
    g->ny = mx1 + 1;
    const size_t ncol = (size_t)(g->nx * g->ny);
    g->colstart = wzero(w, W_GRID_COLS, ncol + 1);
    if (!g->colstart)
      return 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k = g->keys[i];
      const int64_t c0 = (int64_t)(k >> 42), c1 = (int64_t)(k >> 21) & 0x1FFFFF;
      g->keys[i] = (uint64_t)(c0 * g->ny + c1) << 21 | (k & 0x1FFFFF);
    }
    fricl__radix_sort(g->keys, g->ids, n, g->keys + n, g->ids + n);
    for (size_t i = 0; i < n; ++i)
      g->colstart[(g->keys[i] >> 21) + 1]++;
    starts_of_counts(g->colstart, ncol);
    if ((double)ncol * (double)(mx2 + 1) <= 8.0 * (double)n + 4096) {
      g->nz = mx2 + 1;
      const size_t ncell = ncol * (size_t)g->nz;
      g->cellstart = wzero(w, W_GRID_CELLS, ncell + 1);
      if (!g->cellstart)
        return 0;
      for (size_t i = 0; i < n; ++i) {
        const uint64_t k = g->keys[i];
        g->cellstart[(k >> 21) * (size_t)g->nz + (k & 0x1FFFFF) + 1]++;
      }
      starts_of_counts(g->cellstart, ncell);
    }
    return grid_fill(ctx, w, g);
  }
  /* a cell's boxes in a row: one run per cell */
  fricl__radix_sort(g->keys, g->ids, n, g->keys + n, g->ids + n);
  size_t runs = 0;
  for (size_t i = 0; i < n; ++i)
    runs += i == 0 || g->keys[i] != g->keys[i - 1];
  size_t cap = 16;
  g->tshift = 60;
  while (cap < 2 * runs) {
    cap *= 2;
    g->tshift--;
  }
  g->tmask = cap - 1;
  g->table = (struct slot *)wget(w, W_GRID_TABLE, cap * sizeof *g->table);
  if (!g->table)
    return 0;
  memset(g->table, 0, cap * sizeof *g->table);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && g->keys[j] == g->keys[i])
      ++j;
    size_t s = hash_slot(g->keys[i], g->tshift);
    while (g->table[s].key1)
      s = (s + 1) & g->tmask;
    g->table[s].key1 = g->keys[i] + 1;
    g->table[s].lo = (uint32_t)i;
    g->table[s].hi = (uint32_t)j;
    i = j;
  }
  return grid_fill(ctx, w, g);
}

/* ipctk's filters, all one rule: the two elements share no vertex. */
static BP_INLINE int shares_vertex(const box *a, const box *b) {
  for (int i = 0; i < 3 && a->v[i] >= 0; ++i)
    for (int j = 0; j < 3 && b->v[j] >= 0; ++j)
      if (a->v[i] == b->v[j])
        return 1;
  return 0;
}

/* A pair of box indices (ia in A, ib in B, or both in A for self). */
static void report(query *q, unsigned slot, size_t ia, size_t ib, const box *ba,
                   const box *bb) {
  const int self = q->B == NULL;
  int32_t a = q->aid ? q->aid[ia] : (int32_t)ia;
  int32_t b = self ? (q->aid ? q->aid[ib] : (int32_t)ib)
                   : (q->bid ? q->bid[ib] : (int32_t)ib);
  if (self && a > b) {
    const int32_t t = a;
    a = b;
    b = t;
    const box *u = ba;
    ba = bb;
    bb = u;
  }
  if (q->visit)
    q->visit(q->user, slot, q->type, a, b, ba->v, bb->v);
  else if (!fricl__ivec_push2(&q->out[slot], a, b))
    q->oom = 1;
}

/* A probe: every box of the grid that overlaps `p`; `skip_le`: for self
 * pairs among the grid's boxes, only those of larger index. `swap`: the
 * probe is from B and the grid over A. */
typedef struct probe_job {
  query *q;
  const grid *g;
  const box *P;         /* probe boxes */
  const uint32_t *psel; /* indices of the probes in P (NULL: all) */
  size_t np;
  int skip_le, swap;
  unsigned phase;
  /* Probes in a row (NULL: P[psel[i]]): seq[i] is P[psel[i]], read in
   * order rather than gathered in the probe loop (cache misses). */
  const box *seq;
} probe_job;

/* Probe pi against the grid's i-th stored box, which passed the cheap
 * tests (meet_range: no shared vertex, self pairs' order, float boxes):
 * the pair when the double boxes overlap. */
static BP_INLINE void meet(const probe_job *j, unsigned slot, const box *p,
                           uint32_t pi, size_t i) {
  const grid *g = j->g;
  const uint32_t b = g->ids[i];
  if (!overlap(p, &g->sorted[i], g->dim))
    return;
  if (j->swap)
    report(j->q, slot, b, pi, &g->sorted[i], p);
  else
    report(j->q, slot, pi, b, p, &g->sorted[i]);
}

/* The grid's boxes [lo, hi) against probe p (pf: its float box): 4 at
 * once through the cheap tests (float boxes, the self pairs' index order,
 * no shared vertex), then meet (the exact box test) on those that pass,
 * in index order. SSE2 where there is, else the same tests in C. */
static BP_INLINE void meet_range(const probe_job *j, unsigned slot,
                                 const box *p, const float *pf, uint32_t pi,
                                 size_t lo, size_t hi) {
  const grid *g = j->g;
  const size_t ns = g->stride;
  const float *L0 = g->f, *L1 = L0 + ns, *L2 = L1 + ns, *H0 = L2 + ns,
              *H1 = H0 + ns, *H2 = H1 + ns;
  const int32_t *ID = g->iv, *V0 = ID + ns, *V1 = V0 + ns, *V2 = V1 + ns;
  const int32_t a0 = p->v[0], a1 = p->v[1], a2 = p->v[2];
  /* self pairs: the stored index above the probe's */
  const int32_t above = j->skip_le ? (int32_t)pi : -1;
#if defined(__SSE2__)
  const __m128 p0 = _mm_set1_ps(pf[0]), p1 = _mm_set1_ps(pf[1]),
               p2 = _mm_set1_ps(pf[2]), q0 = _mm_set1_ps(pf[3]),
               q1 = _mm_set1_ps(pf[4]), q2 = _mm_set1_ps(pf[5]);
  const __m128i b0 = _mm_set1_epi32(a0), b1 = _mm_set1_epi32(a1),
                b2 = _mm_set1_epi32(a2), ab = _mm_set1_epi32(above);
  for (size_t s = lo; s < hi; s += 4) {
    __m128 in = _mm_and_ps(_mm_cmple_ps(p0, _mm_loadu_ps(H0 + s)),
                           _mm_cmple_ps(_mm_loadu_ps(L0 + s), q0));
    in = _mm_and_ps(in, _mm_cmple_ps(p1, _mm_loadu_ps(H1 + s)));
    in = _mm_and_ps(in, _mm_cmple_ps(_mm_loadu_ps(L1 + s), q1));
    in = _mm_and_ps(in, _mm_cmple_ps(p2, _mm_loadu_ps(H2 + s)));
    in = _mm_and_ps(in, _mm_cmple_ps(_mm_loadu_ps(L2 + s), q2));
    int mask = _mm_movemask_ps(in);
    if (!mask)
      continue;
    const __m128i u = _mm_loadu_si128((const __m128i *)(V0 + s)),
                  v = _mm_loadu_si128((const __m128i *)(V1 + s)),
                  w = _mm_loadu_si128((const __m128i *)(V2 + s));
    __m128i sh = _mm_or_si128(_mm_cmpeq_epi32(u, b0), _mm_cmpeq_epi32(u, b1));
    sh = _mm_or_si128(sh, _mm_cmpeq_epi32(u, b2));
    sh = _mm_or_si128(sh, _mm_cmpeq_epi32(v, b0));
    sh = _mm_or_si128(sh, _mm_cmpeq_epi32(v, b1));
    sh = _mm_or_si128(sh, _mm_cmpeq_epi32(v, b2));
    sh = _mm_or_si128(sh, _mm_cmpeq_epi32(w, b0));
    sh = _mm_or_si128(sh, _mm_cmpeq_epi32(w, b1));
    sh = _mm_or_si128(sh, _mm_cmpeq_epi32(w, b2));
    const __m128i ok = _mm_andnot_si128(
        sh, _mm_cmpgt_epi32(_mm_loadu_si128((const __m128i *)(ID + s)), ab));
    mask &= _mm_movemask_ps(_mm_castsi128_ps(ok));
    if (hi - s < 4)
      mask &= (1 << (hi - s)) - 1;
    while (mask) {
#if defined(__GNUC__)
      const int k = __builtin_ctz((unsigned)mask);
#else
      const int k = mask & 1 ? 0 : (mask & 2 ? 1 : (mask & 4 ? 2 : 3));
#endif
      mask &= mask - 1;
      meet(j, slot, p, pi, s + (size_t)k);
    }
  }
#else
  for (size_t i = lo; i < hi; ++i) {
    const int32_t u = V0[i], v = V1[i], w = V2[i];
    const int share = (u == a0) | (u == a1) | (u == a2) | (v == a0) |
                      (v == a1) | (v == a2) | (w == a0) | (w == a1) | (w == a2);
    if ((pf[0] <= H0[i]) & (L0[i] <= pf[3]) & (pf[1] <= H1[i]) &
        (L1[i] <= pf[4]) & (pf[2] <= H2[i]) & (L2[i] <= pf[5]) &
        (ID[i] > above) & !share)
      meet(j, slot, p, pi, i);
  }
#endif
}

/* The first index in [lo, hi) of the ascending keys whose key is not
 * below x (hi when none): a bisection whose steps are selects, not
 * branches (a probe's column bounds mispredicted half the time). */
static BP_INLINE size_t first_not_below(const uint64_t *a, size_t lo, size_t hi,
                                        uint64_t x) {
  size_t n = hi - lo;
  if (!n)
    return lo;
  const uint64_t *b = a + lo;
  while (n > 1) {
    const size_t half = n / 2;
    b = b[half] < x ? b + half : b;
    n -= half;
  }
  return (size_t)(b - a) + (*b < x);
}

static void probe_one(const probe_job *j, unsigned slot, const box *p,
                      uint32_t pi) {
  const grid *g = j->g;
  const int dim = g->dim;
  /* The cells read: the columns in column mode, else the cells. */
  const int counted = g->colstart ? 2 : dim;
  int64_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0}, c[3];
  float pf[6] = {0, 0, 0, 0, 0, 0};
  double cells = 1;
  for (int d = 0; d < dim; ++d) {
    c0[d] = cell_of(g, p->lo[d] - g->reach, d);
    c1[d] = cell_of(g, p->hi[d], d);
    c0[d] = c0[d] < 0 ? 0 : c0[d];
    if (d < counted)
      cells *= (double)(c1[d] - c0[d] + 1);
    pf[d] = float_down(p->lo[d]);
    pf[3 + d] = float_up(p->hi[d]);
  }
  if (cells > (double)g->n) { /* a huge probe: test every box instead */
    meet_range(j, slot, p, pf, pi, 0, g->n);
    return;
  }
  if (g->colstart) {
    const int64_t e0 = c1[0] < g->nx ? c1[0] : g->nx - 1;
    const int64_t e1 = c1[1] < g->ny ? c1[1] : g->ny - 1;
    const int64_t z1 = c1[2] < 0x1FFFFF ? c1[2] : 0x1FFFFF;
    if (c0[1] > e1)
      return;
    for (c[0] = c0[0]; c[0] <= e0; ++c[0]) {
      /* the row's columns c0[1] .. e1 are neighbours in memory: one
       * range, unless it is long */
      const size_t row = (size_t)(c[0] * g->ny);
      const size_t a = g->colstart[row + (size_t)c0[1]],
                   z = g->colstart[row + (size_t)e1 + 1];
      if (z - a <= 24) {
        meet_range(j, slot, p, pf, pi, a, z);
        continue;
      }
      for (c[1] = c0[1]; c[1] <= e1; ++c[1]) {
        const size_t col = row + (size_t)c[1];
        /* the column's boxes are sorted by their third cell: bisect for
         * the probe's (a flat scene whose third axis is long puts whole
         * strips in one column) */
        size_t i = g->colstart[col], e = g->colstart[col + 1];
        if (g->cellstart) {
          const int64_t zt = z1 < g->nz - 1 ? z1 : g->nz - 1;
          if (c0[2] > zt)
            continue;
          i = g->cellstart[col * (size_t)g->nz + (size_t)c0[2]];
          e = g->cellstart[col * (size_t)g->nz + (size_t)zt + 1];
        } else if (e - i > 8) {
          const size_t k = first_not_below(
              g->keys, i, e, (uint64_t)col << 21 | (uint64_t)c0[2]);
          e = first_not_below(g->keys, k, e,
                              ((uint64_t)col << 21 | (uint64_t)z1) + 1);
          i = k;
        }
        meet_range(j, slot, p, pf, pi, i, e);
      }
    }
    return;
  }
  for (c[0] = c0[0]; c[0] <= c1[0]; ++c[0])
    for (c[1] = c0[1]; c[1] <= c1[1]; ++c[1])
      for (c[2] = c0[2]; c[2] <= c1[2]; ++c[2]) {
        const uint64_t k = cell_key(c);
        size_t s = hash_slot(k, g->tshift);
        while (g->table[s].key1 && g->table[s].key1 != k + 1)
          s = (s + 1) & g->tmask;
        if (g->table[s].key1)
          meet_range(j, slot, p, pf, pi, g->table[s].lo, g->table[s].hi);
      }
}

static void probe_range(void *arg, size_t lo, size_t hi, unsigned piece) {
  const probe_job *j = (const probe_job *)arg;
  const unsigned slot = j->phase * j->q->pieces + piece;
  for (size_t i = lo; i < hi && !j->q->oom; ++i)
    if (j->seq)
      probe_one(j, slot, &j->seq[i], j->psel[i]);
    else {
      const uint32_t pi = j->psel ? j->psel[i] : (uint32_t)i;
      probe_one(j, slot, &j->P[pi], pi);
    }
}

static void run_probes(fricl_context *ctx, probe_job *j) {
  if (j->np && j->g->n)
    fricl__pool_for_dynamic(ctx->pool, j->np, fricl__grain(ctx, 512), 64, 1,
                            probe_range, j);
}

/* The boxes' indices in the order of their low corners' cells in g: a
 * probe then reads the cells its predecessor read (cache). */
static uint32_t *cell_order(scratch *w, const grid *g, const box *b, size_t n) {
  uint64_t *k = (uint64_t *)wget(w, W_ORDER_KEYS, (2 * n + 1) * sizeof *k);
  uint32_t *v = (uint32_t *)wget(w, W_ORDER_IDS, (2 * n + 1) * sizeof *v);
  if (!k || !v) {
    wput(w, k);
    wput(w, v);
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t c[3] = {0, 0, 0};
    for (int d = 0; d < g->dim; ++d) {
      c[d] = cell_of(g, b[i].lo[d], d);
      c[d] = c[d] < 0 ? 0 : (c[d] > 2097151 ? 2097151 : c[d]);
    }
    k[i] = cell_key(c);
    v[i] = (uint32_t)i;
  }
  fricl__radix_sort(k, v, n, k + n, v + n);
  wput(w, k);
  return v;
}

/* seq[i] = A[order[i]], on the host threads. */
typedef struct gather_job {
  const box *A;
  const uint32_t *order;
  box *seq;
} gather_job;

static void gather_range(void *arg, size_t lo, size_t hi, unsigned piece) {
  const gather_job *j = (const gather_job *)arg;
  (void)piece;
  for (size_t i = lo; i < hi; ++i)
    j->seq[i] = j->A[j->order[i]];
}

static void gather_probes(fricl_context *ctx, const box *A,
                          const uint32_t *order, size_t n, box *seq) {
  gather_job j = {A, order, seq};
  fricl__pool_for(ctx->pool, n, fricl__grain(ctx, 16384), 1, gather_range, &j);
}

static double box_extent(const box *b, int dim) {
  double e = 0;
  for (int d = 0; d < dim; ++d)
    e = b->hi[d] - b->lo[d] > e ? b->hi[d] - b->lo[d] : e;
  return e;
}

/* The k-th smallest of a[0 .. n) (k < n), a reordered so that a[0 .. k)
 * <= a[k] <= a[k + 1 .. n): Hoare's selection, median-of-three pivots.
 * Boxes' extents are finite (no NaN). */
static double select_kth(double *a, size_t n, size_t k) {
  ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1;
  const ptrdiff_t kk = (ptrdiff_t)k;
  while (hi > lo) {
    const ptrdiff_t mid = lo + (hi - lo) / 2;
    const double x = a[lo], y = a[mid], z = a[hi];
    const double p =
        x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    ptrdiff_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < p)
        ++i;
      while (a[j] > p)
        --j;
      if (i <= j) {
        const double t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    /* now a[lo .. j] <= p <= a[i .. hi], and a[j + 1 .. i) == p */
    if (kk <= j)
      hi = j;
    else if (kk >= i)
      lo = i;
    else
      return a[kk];
  }
  return a[kk];
}

/* The extent up to which a box of the set is "small": the largest within
 * 4x the 90th percentile (sampled) when few boxes of the sample (at most
 * max(1 %, 32)) are beyond it, else within 4x the 99th percentile; so that
 * only outliers (a floor, an obstacle's faces) are big, and they are few
 * (big boxes are paired with each other by brute force). The 90th: an
 * obstacle's 12 faces beside a 734-face cloth are 1.6 % of the set; at the
 * 99th they were "small", the cell was theirs, and every probe read every
 * box (a 435-collision build took 2.9 ms, ipctk 2.0). Also the median,
 * for the cell size. O(n). */
static void size_stats(const box *b, size_t n, int dim, double *small,
                       double *median) {
  enum { SAMPLE = 4096 };
  double s[SAMPLE];
  const size_t m = n < SAMPLE ? n : SAMPLE;
  if (!m) {
    *small = *median = 0;
    return;
  }
  for (size_t i = 0; i < m; ++i)
    s[i] = box_extent(&b[(i * n) / m], dim);
  /* Order statistics, selected in place (a full sort was ~6 % of a
   * 4k-collision build); the values are those of the sorted sample. */
  const size_t k90 = (m * 90) / 100 < m ? (m * 90) / 100 : m - 1;
  const size_t k99 = (m * 99) / 100 < m ? (m * 99) / 100 : m - 1;
  double cap = 4 * select_kth(s, m, k90); /* s[0 .. k90) <= s[k90] <= */
  *median = m / 2 < k90 ? select_kth(s, k90, m / 2) : s[k90];
  size_t beyond = 0;
  for (size_t i = k90 + 1; i < m; ++i)
    beyond += s[i] > cap;
  const size_t allowed = m / 100 > 32 ? m / 100 : 32;
  if (beyond > allowed && k99 > k90)
    cap = 4 * select_kth(s + k90 + 1, m - k90 - 1, k99 - k90 - 1);
  double mx = 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = box_extent(&b[i], dim);
    mx = e <= cap && e > mx ? e : mx;
  }
  *small = mx;
}

/* Split a set into small and big boxes (indices). */
static int split(scratch *w, int slot, const box *b, size_t n, int dim,
                 double small, uint32_t **s, size_t *ns, uint32_t **g,
                 size_t *ng) {
  *s = (uint32_t *)wget(w, slot, (n + 1) * sizeof **s);
  *g = (uint32_t *)wget(w, slot + 1, (n + 1) * sizeof **g);
  if (!*s || !*g)
    return 0;
  *ns = *ng = 0;
  for (size_t i = 0; i < n; ++i) {
    if (box_extent(&b[i], dim) <= small)
      (*s)[(*ns)++] = (uint32_t)i;
    else
      (*g)[(*ng)++] = (uint32_t)i;
  }
  return 1;
}

/* Run one query: the pairs of overlapping boxes, with the filters,
 * handed to the visitor or appended to `dst` (unsorted). */
static int run_query(fricl_context *ctx, query *q, fricl__ivec *dst) {
  if (q->na == 0 || (q->B && q->nb == 0))
    return 1;
  const int dim = q->dim, self = q->B == NULL;
  const box *B = self ? q->A : q->B;
  const size_t nb = self ? q->na : q->nb;
  q->pieces = FRICL__BP_PIECES(fricl__pool_threads(ctx->pool));
  const size_t nout = PHASES * (size_t)q->pieces;
  scratch *w = q->ws;
  if (!q->visit) { /* the scratch's lists, capacity kept, emptied */
    if (w->n_out < nout) {
      fricl__ivec *o = (fricl__ivec *)realloc(w->out, nout * sizeof *w->out);
      if (!o)
        return 0;
      memset(o + w->n_out, 0, (nout - w->n_out) * sizeof *o);
      w->out = o;
      w->n_out = nout;
    }
    q->out = w->out;
    for (size_t s = 0; s < nout; ++s)
      q->out[s].n = 0;
  }
  double smallA, medA, smallB, medB;
  size_stats(q->A, q->na, dim, &smallA, &medA);
  if (self) { /* the same boxes: the same statistics */
    smallB = smallA;
    medB = medA;
  } else {
    size_stats(B, nb, dim, &smallB, &medB);
  }
  /* Origin: below every box, so that cell indices are never negative. */
  double org[3] = {0, 0, 0}, span = 0;
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t s = 0; s < (self ? 1u : 2u); ++s) { /* one pass, all axes */
    const box *b = s ? B : q->A;
    const size_t n = s ? nb : q->na;
    for (size_t i = 0; i < n; ++i)
      for (int d = 0; d < 3; ++d) {
        lo[d] = b[i].lo[d] < lo[d] ? b[i].lo[d] : lo[d];
        hi[d] = b[i].hi[d] > hi[d] ? b[i].hi[d] : hi[d];
      }
  }
  for (int d = 0; d < dim; ++d) {
    org[d] = lo[d];
    span = hi[d] - lo[d] > span ? hi[d] - lo[d] : span;
  }
  /* The cell: at least the small boxes of the grid's set (each then sits
   * in at most two cells a side), and the median probe, so that a probe
   * reads a few cells; at most 2^20 cells along an axis. */
  double h = smallB > medA ? smallB : medA;
  if (!(h > span / 1048576.0))
    h = span / 1048576.0;
  if (!(h > 0))
    h = 1;
  uint32_t *sB = NULL, *gB = NULL, *sA = NULL, *gA = NULL;
  size_t nsB = 0, ngB = 0, nsA = 0, ngA = 0;
  grid gr;
  memset(&gr, 0, sizeof gr);
  int ok = split(w, W_SMALL_B, B, nb, dim, smallB, &sB, &nsB, &gB, &ngB) &&
           grid_build(ctx, w, &gr, dim, B, sB, nsB, h, org);
  if (ok && self) {
    /* Phase 0: the small boxes among themselves (each pair once, from its
     * smaller index); phase 1: the big ones against the small ones; phase
     * 2: big against big. */
    /* the grid's own boxes, in its (cell) order */
    probe_job j0 = {q, &gr, B, gr.ids, nsB, 1, 0, 0, gr.sorted};
    run_probes(ctx, &j0);
    probe_job j1 = {q, &gr, B, gB, ngB, 0, 0, 1, NULL};
    run_probes(ctx, &j1);
    for (size_t x = 0; x < ngB; ++x)
      for (size_t y = x + 1; y < ngB; ++y)
        if (overlap(&B[gB[x]], &B[gB[y]], dim) &&
            !shares_vertex(&B[gB[x]], &B[gB[y]]))
          report(q, 2 * q->pieces, gB[x], gB[y], &B[gB[x]], &B[gB[y]]);
  } else if (ok) {
    /* Phase 0: every A box against the small B boxes; phase 1: the big B
     * boxes against the small A boxes; phase 2: big against big. */
    uint32_t *order = cell_order(w, &gr, q->A, q->na);
    box *seq = order ? (box *)wget(w, W_SEQ, (q->na + 1) * sizeof *seq) : NULL;
    ok = order != NULL;
    if (seq)
      gather_probes(ctx, q->A, order, q->na, seq);
    probe_job j0 = {q, &gr, q->A, order, q->na, 0, 0, 0, seq};
    if (ok)
      run_probes(ctx, &j0);
    wput(w, seq);
    wput(w, order);
    if (ngB) {
      grid_free(w, &gr);
      ok =
          split(w, W_SMALL_A, q->A, q->na, dim, smallA, &sA, &nsA, &gA, &ngA) &&
          grid_build(ctx, w, &gr, dim, q->A, sA, nsA, smallA > h ? smallA : h,
                     org);
      if (ok) {
        probe_job j1 = {q, &gr, B, gB, ngB, 0, 1, 1, NULL};
        run_probes(ctx, &j1);
      }
      for (size_t x = 0; ok && x < ngA; ++x)
        for (size_t y = 0; y < ngB; ++y)
          if (overlap(&q->A[gA[x]], &B[gB[y]], dim) &&
              !shares_vertex(&q->A[gA[x]], &B[gB[y]]))
            report(q, 2 * q->pieces, gA[x], gB[y], &q->A[gA[x]], &B[gB[y]]);
    }
  }
  grid_free(w, &gr);
  ok = ok && !q->oom;
  if (q->out) {
    size_t total = dst->n;
    for (size_t s = 0; s < nout; ++s)
      total += q->out[s].n;
    ok = ok && fricl__ivec_reserve(dst, total);
    for (size_t s = 0; ok && s < nout; ++s)
      if (q->out[s].n) {
        memcpy(dst->v + dst->n, q->out[s].v, q->out[s].n * sizeof(int32_t));
        dst->n += q->out[s].n;
      }
  }
  return ok;
}

/* ---------------------------------------------------------------- boxes */

/* nextafter(x, -INFINITY) and nextafter(x, INFINITY) on the bits (the
 * library calls were 2 % of a build): the same values. */
static double next_down(double x) {
  if (x != x || x == -INFINITY)
    return x;
  if (x == 0)
    return -DBL_TRUE_MIN;
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  u = x > 0 ? u - 1 : u + 1;
  memcpy(&x, &u, sizeof x);
  return x;
}

static double next_up(double x) { return -next_down(-x); }

/* Vertex boxes [lo, hi) of a motion, inflated by r and rounded outwards. */
static void vertex_boxes(const fricl_collision_mesh *m, const double *v0,
                         const double *v1, double r, box *out, size_t i0,
                         size_t i1) {
  const int dim = m->dim;
  for (size_t i = i0; i < i1; ++i) {
    box *b = &out[i];
    for (int d = 0; d < 3; ++d) {
      double lo = 0, hi = 0;
      if (d < dim) {
        lo = hi = v0[i * dim + d];
        if (v1) {
          const double y = v1[i * dim + d];
          lo = y < lo ? y : lo;
          hi = y > hi ? y : hi;
        }
        lo = next_down(lo - r);
        hi = next_up(hi + r);
      }
      b->lo[d] = lo;
      b->hi[d] = hi;
    }
    b->v[0] = (int32_t)i;
    b->v[1] = b->v[2] = b->v[3] = -1;
  }
}

/* Element boxes [i0, i1): the union of their k vertices' boxes. */
static void union_boxes(const box *vb, const int32_t *ids, int k, box *out,
                        size_t i0, size_t i1) {
  for (size_t i = i0; i < i1; ++i) {
    box b = vb[ids[k * i]];
    for (int j = 0; j < 4; ++j)
      b.v[j] = j < k ? ids[k * i + j] : -1;
    for (int j = 1; j < k; ++j) {
      const box *c = &vb[ids[k * i + j]];
      for (int d = 0; d < 3; ++d) {
        b.lo[d] = c->lo[d] < b.lo[d] ? c->lo[d] : b.lo[d];
        b.hi[d] = c->hi[d] > b.hi[d] ? c->hi[d] : b.hi[d];
      }
    }
    out[i] = b;
  }
}

/* The boxes on the host threads: each box is written by one piece, from
 * the same inputs, whatever the split. */
typedef struct box_job {
  const fricl_collision_mesh *m;
  const double *v0, *v1;
  double r;
  box *vb, *eb, *fb;
  int stage; /* 0: vertices, 1: edges and faces (they read vb) */
} box_job;

static void boxes_range(void *arg, size_t lo, size_t hi, unsigned piece) {
  const box_job *j = (const box_job *)arg;
  (void)piece;
  if (j->stage == 0) {
    vertex_boxes(j->m, j->v0, j->v1, j->r, j->vb, lo, hi);
    return;
  }
  /* [0, ne) edges, then [ne, ne + nf) faces */
  const size_t ne = j->m->ne;
  if (lo < ne)
    union_boxes(j->vb, j->m->edges, 2, j->eb, lo, hi < ne ? hi : ne);
  if (hi > ne)
    union_boxes(j->vb, j->m->faces, 3, j->fb, lo > ne ? lo - ne : 0, hi - ne);
}

static void gather_boxes(const box *src, const int32_t *ids, size_t n,
                         box *out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = src[ids[i]];
}

void fricl__candidates_clear(fricl_candidate_set *set) {
  for (int t = 0; t < FRICL__NTYPES; ++t)
    set->pairs[t].n = 0;
}

void fricl__candidates_free(fricl_candidate_set *set) {
  for (int t = 0; t < FRICL__NTYPES; ++t)
    free(set->pairs[t].v);
  memset(set, 0, sizeof *set);
}

/* One query of the base's scene: boxes A (ids aid, NULL: their index)
 * against boxes B (NULL: A against itself), pairs into dst. */
static int query_run(fricl_context *ctx, const query *base, int kind, int type,
                     const box *A, const int32_t *aid, size_t na, const box *B,
                     const int32_t *bid, size_t nb, fricl__ivec *dst) {
  query q = *base;
  q.kind = kind;
  q.type = type;
  q.A = A;
  q.aid = aid;
  q.na = na;
  q.B = B;
  q.bid = bid;
  q.nb = nb;
  return run_query(ctx, &q, dst);
}

fricl_status fricl__broad_phase(fricl_context *ctx,
                                const fricl_collision_mesh *m, const double *v0,
                                const double *v1, double radius,
                                size_t n_planes, const double *plane_n,
                                const double *plane_c, fricl__pair_fn visit,
                                void *user, fricl_candidate_set *out) {
  fricl__candidates_clear(out);
  const int dim = m->dim;
  const size_t nbox = m->nv + m->ne + m->nf + m->n_codim_v + m->n_codim_e;
  scratch *ws = scratch_of(ctx);
  box *all = ws ? (box *)wget(ws, W_BOXES, (nbox + 1) * sizeof *all) : NULL;
  if (!all)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "candidates: out of memory");
  box *vb = all, *eb = vb + m->nv, *fb = eb + m->ne, *cvb = fb + m->nf,
      *ceb = cvb + m->n_codim_v;
  box_job bj = {m, v0, v1, radius, vb, eb, fb, 0};
  fricl__pool_for(ctx->pool, m->nv, fricl__grain(ctx, 8192), 1, boxes_range,
                  &bj);
  bj.stage = 1;
  fricl__pool_for(ctx->pool, m->ne + m->nf, fricl__grain(ctx, 8192), 1,
                  boxes_range, &bj);
  gather_boxes(vb, m->codim_v, m->n_codim_v, cvb);
  gather_boxes(eb, m->codim_e, m->n_codim_e, ceb);

  query base;
  memset(&base, 0, sizeof base);
  base.dim = dim;
  base.mesh = m;
  base.visit = visit;
  base.user = user;
  base.ws = ws;
  fricl__ivec *const pairs = out->pairs;
  int ok;
  if (dim == 2) {
    ok = query_run(ctx, &base, Q_EV, FRICL_STENCIL_EV, eb, NULL, m->ne, vb,
                   NULL, m->nv, &pairs[FRICL_STENCIL_EV]);
  } else {
    ok = query_run(ctx, &base, Q_EE, FRICL_STENCIL_EE, eb, NULL, m->ne, NULL,
                   NULL, 0, &pairs[FRICL_STENCIL_EE]) &&
         query_run(ctx, &base, Q_FV, FRICL_STENCIL_FV, fb, NULL, m->nf, vb,
                   NULL, m->nv, &pairs[FRICL_STENCIL_FV]);
  }
  if (ok && m->n_codim_v)
    ok = query_run(ctx, &base, Q_VV, FRICL_STENCIL_VV, cvb, m->codim_v,
                   m->n_codim_v, NULL, NULL, 0, &pairs[FRICL_STENCIL_VV]);
  if (ok && dim == 3 && m->n_codim_v && m->n_codim_e)
    ok = query_run(ctx, &base, Q_EV, FRICL_STENCIL_EV, ceb, m->codim_e,
                   m->n_codim_e, cvb, m->codim_v, m->n_codim_v,
                   &pairs[FRICL_STENCIL_EV]);
  for (int t = 0; ok && t < FRICL__NTYPES; ++t)
    ok = pairs_sort(ws, &out->pairs[t], 0);
  /* Planes: every vertex whose signed distance, at t0 or t1, is below the
   * radius. */
  for (size_t p = 0; ok && p < n_planes; ++p)
    for (size_t i = 0; ok && i < m->nv; ++i) {
      int hit = 0;
      for (int s = 0; s < (v1 ? 2 : 1) && !hit; ++s) {
        const double *x = (s ? v1 : v0) + i * dim;
        double sd = plane_c[p];
        const double *n = plane_n + p * dim;
        double dot = n[0] * x[0] + n[1] * x[1];
        if (dim == 3)
          dot += n[2] * x[2];
        sd += dot;
        hit = sd < radius;
      }
      if (hit)
        ok = fricl__ivec_push2(&out->pairs[FRICL_STENCIL_PV], (int32_t)p,
                               (int32_t)i);
    }
  if (!ok)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "candidates: out of memory");
  return FRICL_STATUS_OK;
}
