/* broad_phase.c - candidate pairs of a collision mesh: boxes of vertices
 * (inflated, over a motion), edges and faces as ipctk builds them, paired
 * through a uniform spatial hash. A pair is reported by exactly one cell
 * (the one holding the low corner of the two boxes' intersection), so no
 * pair list needs deduplication; cells are visited in key order, split
 * into contiguous runs per thread and concatenated in run order, and the
 * result is sorted by ids: the same output for any thread count. Cost:
 * the cells the boxes cover plus the pairs that share a cell; the cell
 * size is the mean box size, grown when boxes would cover too many cells. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/collisions.h"
#include "core/pool.h"

typedef struct box {
  double lo[3], hi[3];
} box;

/* ------------------------------------------------------------ radix sort */

void fricl__radix_sort(uint64_t *key, uint32_t *val, size_t n, uint64_t *tk,
                       uint32_t *tv) {
  enum { BITS = 16, R = 1 << BITS };
  size_t *count = (size_t *)malloc(R * sizeof *count);
  if (!count) { /* out of memory: a stable insertion-free fallback */
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
    return;
  }
  uint64_t *ks = key, *kd = tk;
  uint32_t *vs = val, *vd = tv;
  for (int shift = 0; shift < 64; shift += BITS) {
    memset(count, 0, R * sizeof *count);
    for (size_t i = 0; i < n; ++i)
      count[(ks[i] >> shift) & (R - 1)]++;
    size_t sum = 0, nz = 0;
    for (size_t d = 0; d < R; ++d) {
      const size_t c = count[d];
      nz += c != 0;
      count[d] = sum;
      sum += c;
    }
    if (nz <= 1)
      continue; /* every key has this digit: nothing moves */
    for (size_t i = 0; i < n; ++i) {
      const size_t at = count[(ks[i] >> shift) & (R - 1)]++;
      kd[at] = ks[i];
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
  free(count);
}

/* Sort a pair list by (first, second). */
static int sort_pairs(fricl__ivec *p) {
  const size_t n = p->n / 2;
  if (n < 2)
    return 1;
  uint64_t *k = (uint64_t *)malloc(2 * n * sizeof *k);
  uint32_t *v = (uint32_t *)malloc(2 * n * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return 0;
  }
  for (size_t i = 0; i < n; ++i) {
    k[i] = (uint64_t)(uint32_t)p->v[2 * i] << 32 | (uint32_t)p->v[2 * i + 1];
    v[i] = 0;
  }
  fricl__radix_sort(k, v, n, k + n, v + n);
  for (size_t i = 0; i < n; ++i) {
    p->v[2 * i] = (int32_t)(k[i] >> 32);
    p->v[2 * i + 1] = (int32_t)(k[i] & 0xffffffffu);
  }
  free(k);
  free(v);
  return 1;
}

/* -------------------------------------------------------------- queries */

enum { Q_EV, Q_EE, Q_FV, Q_VV };

/* One pairing of box set A with box set B (B NULL: A with itself). ids
 * map a box to the id it reports (NULL: its index). */
typedef struct query {
  int kind, dim;
  const fricl_collision_mesh *mesh;
  const box *A, *B;
  const int32_t *aid, *bid;
  size_t na, nb;
  double h, org[3];
  /* cell entries, sorted by key: value = box index, B boxes tagged by
   * the high bit */
  uint64_t *key;
  uint32_t *val;
  size_t n_entries;
  size_t *runs; /* starts of the cells in key order, plus the end */
  size_t n_runs;
  fricl__ivec *out; /* per piece */
  int oom;
  int type; /* the fricl_stencil of the pairs */
  fricl__pair_fn visit;
  void *user;
} query;

static int overlap(const box *a, const box *b, int dim) {
  for (int i = 0; i < dim; ++i)
    if (!(a->lo[i] <= b->hi[i] && b->lo[i] <= a->hi[i]))
      return 0;
  return 1;
}

static int64_t cell_of(const query *q, double x, int axis) {
  return (int64_t)floor((x - q->org[axis]) / q->h);
}

static uint64_t cell_key(const int64_t c[3]) {
  return (uint64_t)c[0] << 42 | (uint64_t)c[1] << 21 | (uint64_t)c[2];
}

/* The ipctk filters: no shared vertex (and distinct ids for self pairs). */
static int keep(const query *q, int32_t a, int32_t b) {
  const fricl_collision_mesh *m = q->mesh;
  switch (q->kind) {
  case Q_EV: {
    const int32_t *e = m->edges + 2 * (size_t)a;
    return b != e[0] && b != e[1];
  }
  case Q_EE: {
    const int32_t *x = m->edges + 2 * (size_t)a, *y = m->edges + 2 * (size_t)b;
    return x[0] != y[0] && x[0] != y[1] && x[1] != y[0] && x[1] != y[1];
  }
  case Q_FV: {
    const int32_t *f = m->faces + 3 * (size_t)a;
    return b != f[0] && b != f[1] && b != f[2];
  }
  default:
    return a != b;
  }
}

static void report(query *q, fricl__ivec *o, unsigned piece, size_t ia,
                   size_t ib, int self) {
  int32_t a = q->aid ? q->aid[ia] : (int32_t)ia;
  int32_t b = self ? (q->aid ? q->aid[ib] : (int32_t)ib)
                   : (q->bid ? q->bid[ib] : (int32_t)ib);
  if (!keep(q, a, b))
    return;
  if (self && a > b) {
    const int32_t t = a;
    a = b;
    b = t;
  }
  if (q->visit)
    q->visit(q->user, piece, q->type, a, b);
  else if (!fricl__ivec_push2(o, a, b))
    q->oom = 1;
}

/* Pairs of the cells [lo, hi) of the run list. */
static void scan_cells(void *arg, size_t lo, size_t hi, unsigned piece) {
  query *q = (query *)arg;
  fricl__ivec *o = &q->out[piece];
  const int self = q->B == NULL;
  const uint32_t TAG = 0x80000000u;
  for (size_t r = lo; r < hi && !q->oom; ++r) {
    const size_t s = q->runs[r], e = q->runs[r + 1];
    const uint64_t key = q->key[s];
    for (size_t i = s; i < e; ++i) {
      const uint32_t vi = q->val[i];
      if (!self && (vi & TAG))
        continue;
      const box *ba = &q->A[vi];
      for (size_t j = self ? i + 1 : s; j < e; ++j) {
        const uint32_t vj = q->val[j];
        if (!self && !(vj & TAG))
          continue;
        const box *bb = self ? &q->A[vj] : &q->B[vj & ~TAG];
        if (!overlap(ba, bb, q->dim))
          continue;
        /* Only the cell of the intersection's low corner reports. */
        int64_t c[3] = {0, 0, 0};
        for (int d = 0; d < q->dim; ++d)
          c[d] = cell_of(q, ba->lo[d] > bb->lo[d] ? ba->lo[d] : bb->lo[d], d);
        if (cell_key(c) != key)
          continue;
        report(q, o, piece, vi, self ? vj : (vj & ~TAG), self);
      }
    }
  }
}

/* The cell size and origin: the mean box size, grown until the boxes
 * cover at most ~8 cells each on average. */
static void choose_grid(query *q) {
  const int dim = q->dim;
  double lo[3] = {INFINITY, INFINITY, INFINITY};
  double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  double sum = 0;
  const size_t nb = q->B ? q->nb : 0;
  for (size_t s = 0; s < 2; ++s) {
    const box *b = s ? q->B : q->A;
    const size_t n = s ? nb : q->na;
    for (size_t i = 0; i < n; ++i) {
      double ext = 0;
      for (int d = 0; d < dim; ++d) {
        lo[d] = b[i].lo[d] < lo[d] ? b[i].lo[d] : lo[d];
        hi[d] = b[i].hi[d] > hi[d] ? b[i].hi[d] : hi[d];
        const double x = b[i].hi[d] - b[i].lo[d];
        ext = x > ext ? x : ext;
      }
      sum += ext;
    }
  }
  const size_t n = q->na + nb;
  static double scale = 0;
  if (scale == 0) {
    const char *e = getenv("FRICL_GRID_SCALE");
    scale = e ? atof(e) : 1;
  }
  double h = n ? scale * sum / (double)n : 1;
  double span = 0;
  for (int d = 0; d < dim; ++d) {
    q->org[d] = lo[d];
    span = hi[d] - lo[d] > span ? hi[d] - lo[d] : span;
  }
  /* At most 2^20 cells along an axis (the key has 21 bits per axis). */
  if (!(h > span / 1048576.0))
    h = span / 1048576.0;
  if (!(h > 0))
    h = 1;
  for (;;) {
    double cells = 0;
    for (size_t s = 0; s < 2; ++s) {
      const box *b = s ? q->B : q->A;
      const size_t m = s ? nb : q->na;
      for (size_t i = 0; i < m; ++i) {
        double c = 1;
        for (int d = 0; d < dim; ++d)
          c *= floor((b[i].hi[d] - lo[d]) / h) -
               floor((b[i].lo[d] - lo[d]) / h) + 1;
        cells += c;
      }
    }
    if (cells <= 8.0 * (double)n + 1024)
      break;
    h *= 2;
  }
  q->h = h;
}

static int fill_entries(query *q) {
  const int dim = q->dim;
  const size_t nb = q->B ? q->nb : 0;
  size_t total = 0;
  for (size_t s = 0; s < 2; ++s) {
    const box *b = s ? q->B : q->A;
    const size_t m = s ? nb : q->na;
    for (size_t i = 0; i < m; ++i) {
      size_t c = 1;
      for (int d = 0; d < dim; ++d)
        c *= (size_t)(cell_of(q, b[i].hi[d], d) - cell_of(q, b[i].lo[d], d) +
                      1);
      total += c;
    }
  }
  q->key = (uint64_t *)malloc(2 * (total + 1) * sizeof *q->key);
  q->val = (uint32_t *)malloc(2 * (total + 1) * sizeof *q->val);
  q->runs = (size_t *)malloc((total + 2) * sizeof *q->runs);
  if (!q->key || !q->val || !q->runs)
    return 0;
  size_t at = 0;
  for (size_t s = 0; s < 2; ++s) {
    const box *b = s ? q->B : q->A;
    const size_t m = s ? nb : q->na;
    for (size_t i = 0; i < m; ++i) {
      int64_t c0[3] = {0, 0, 0}, c1[3] = {0, 0, 0}, c[3];
      for (int d = 0; d < dim; ++d) {
        c0[d] = cell_of(q, b[i].lo[d], d);
        c1[d] = cell_of(q, b[i].hi[d], d);
      }
      for (c[0] = c0[0]; c[0] <= c1[0]; ++c[0])
        for (c[1] = c0[1]; c[1] <= c1[1]; ++c[1])
          for (c[2] = c0[2]; c[2] <= c1[2]; ++c[2]) {
            q->key[at] = cell_key(c);
            q->val[at++] = (uint32_t)i | (s ? 0x80000000u : 0);
          }
    }
  }
  q->n_entries = at;
  fricl__radix_sort(q->key, q->val, at, q->key + at, q->val + at);
  q->n_runs = 0;
  for (size_t i = 0; i < at; ++i)
    if (i == 0 || q->key[i] != q->key[i - 1])
      q->runs[q->n_runs++] = i;
  q->runs[q->n_runs] = at;
  return 1;
}

/* Run one query, appending its pairs to `dst` (unsorted). */
static int run_query(fricl_context *ctx, query *q, fricl__ivec *dst) {
  if (q->na == 0 || (q->B && q->nb == 0))
    return 1;
  choose_grid(q);
  const unsigned threads = fricl__pool_threads(ctx->pool);
  q->out = (fricl__ivec *)calloc(threads, sizeof *q->out);
  int ok = q->out && fill_entries(q);
  if (ok) {
    fricl__pool_for(ctx->pool, q->n_runs, fricl__grain(ctx, 256), 1,
                    scan_cells, q);
    if (getenv("FRICL_BP_DEBUG"))
      fprintf(stderr, "query kind %d: na %zu nb %zu h %g entries %zu runs %zu\n",
              q->kind, q->na, q->nb, q->h, q->n_entries, q->n_runs);
    ok = !q->oom;
  }
  for (unsigned t = 0; q->out && t < threads; ++t) {
    if (ok && q->out[t].n) {
      ok = fricl__ivec_reserve(dst, dst->n + q->out[t].n);
      if (ok) {
        memcpy(dst->v + dst->n, q->out[t].v, q->out[t].n * sizeof(int32_t));
        dst->n += q->out[t].n;
      }
    }
    free(q->out[t].v);
  }
  free(q->out);
  free(q->key);
  free(q->val);
  free(q->runs);
  return ok;
}

/* ---------------------------------------------------------------- boxes */

static void vertex_boxes(const fricl_collision_mesh *m, const double *v0,
                         const double *v1, double r, box *out) {
  const int dim = m->dim;
  for (size_t i = 0; i < m->nv; ++i) {
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
        lo = nextafter(lo - r, -INFINITY);
        hi = nextafter(hi + r, INFINITY);
      }
      b->lo[d] = lo;
      b->hi[d] = hi;
    }
  }
}

static void union_boxes(const box *vb, const int32_t *ids, size_t n, int k,
                        box *out) {
  for (size_t i = 0; i < n; ++i) {
    box b = vb[ids[k * i]];
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

fricl_status fricl__broad_phase(fricl_context *ctx,
                                const fricl_collision_mesh *m,
                                const double *v0, const double *v1,
                                double radius, size_t n_planes,
                                const double *plane_n, const double *plane_c,
                                fricl__pair_fn visit, void *user,
                                fricl_candidate_set *out) {
  fricl__candidates_clear(out);
  const int dim = m->dim;
  const size_t nbox = m->nv + m->ne + m->nf + m->n_codim_v + m->n_codim_e;
  box *all = (box *)malloc((nbox + 1) * sizeof *all);
  if (!all)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "candidates: out of memory");
  box *vb = all, *eb = vb + m->nv, *fb = eb + m->ne, *cvb = fb + m->nf,
      *ceb = cvb + m->n_codim_v;
  vertex_boxes(m, v0, v1, radius, vb);
  union_boxes(vb, m->edges, m->ne, 2, eb);
  union_boxes(vb, m->faces, m->nf, 3, fb);
  gather_boxes(vb, m->codim_v, m->n_codim_v, cvb);
  gather_boxes(eb, m->codim_e, m->n_codim_e, ceb);

  int ok = 1;
  query base;
  memset(&base, 0, sizeof base);
  base.dim = dim;
  base.mesh = m;
  base.visit = visit;
  base.user = user;
  if (dim == 2) {
    query q = base;
    q.kind = Q_EV;
    q.type = FRICL_STENCIL_EV;
    q.A = eb;
    q.na = m->ne;
    q.B = vb;
    q.nb = m->nv;
    ok = run_query(ctx, &q, &out->pairs[FRICL_STENCIL_EV]);
  } else {
    query q = base;
    q.kind = Q_EE;
    q.type = FRICL_STENCIL_EE;
    q.A = eb;
    q.na = m->ne;
    ok = run_query(ctx, &q, &out->pairs[FRICL_STENCIL_EE]);
    q = base;
    q.kind = Q_FV;
    q.type = FRICL_STENCIL_FV;
    q.A = fb;
    q.na = m->nf;
    q.B = vb;
    q.nb = m->nv;
    ok = ok && run_query(ctx, &q, &out->pairs[FRICL_STENCIL_FV]);
  }
  if (ok && m->n_codim_v) {
    query q = base;
    q.kind = Q_VV;
    q.type = FRICL_STENCIL_VV;
    q.A = cvb;
    q.aid = m->codim_v;
    q.na = m->n_codim_v;
    ok = run_query(ctx, &q, &out->pairs[FRICL_STENCIL_VV]);
  }
  if (ok && dim == 3 && m->n_codim_v && m->n_codim_e) {
    query q = base;
    q.kind = Q_EV;
    q.type = FRICL_STENCIL_EV;
    q.A = ceb;
    q.aid = m->codim_e;
    q.na = m->n_codim_e;
    q.B = cvb;
    q.bid = m->codim_v;
    q.nb = m->n_codim_v;
    ok = run_query(ctx, &q, &out->pairs[FRICL_STENCIL_EV]);
  }
  free(all);
  for (int t = 0; ok && t < FRICL__NTYPES; ++t)
    ok = sort_pairs(&out->pairs[t]);
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
