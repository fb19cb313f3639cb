/* tangential_host.c - the tangential potential on the host backend: a
 * per-contact pass specialised per (stencil, dim, precision), split over
 * the host threads, with the deterministic assembly of the reference
 * backend. The reference sums every vertex's gradient (and every Hessian
 * block) over its contacts in contact order, starting from zero; here each
 * thread takes a contiguous range of contacts and scatters directly into
 * the vertices only its range touches - the same sums in the same order -
 * and queues its contributions to the few vertices shared with another
 * range, which are added afterwards, range after range, in contact order.
 * When a contact order shares many vertices between ranges, the threads
 * write per-contact records instead and the assembly gathers them through
 * the plan's lists, again in contact order. Either way the results are
 * bitwise the reference backend's, whatever the thread count. */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/pool.h"
#include "core/tangential.h"
#include "host/host_backend.h"

#include "fricl_cl_compat.h"
#include "fricl_tangential_codes.h"

/* Below this many contacts the call runs on the calling thread: waking
 * the workers costs more than it saves. */
#define TH_PARALLEL_MIN 2048

/* Owners of the vertices: a piece index, or one of these. */
#define TH_OWN_SHARED 255 /* touched by several pieces */
#define TH_MAX_PIECES 64

/* Contributions of one piece to shared vertices (or Hessian blocks), in
 * contact order: entries of a uint64 index and the reals. */
typedef struct th_list {
  unsigned char *data;
  size_t bytes, cap;
} th_list;

typedef struct th_worker {
  unsigned index;
  int failed;       /* out of memory queueing */
  double pot_block; /* the open block of the potential's sum */
  th_list grad, prod;
} th_worker;

typedef struct th_job {
  const fricl_tangential_batch *b;
  const fricl_tangential_plan *plan;
  size_t group_base[65];
  size_t total;
  int profile, psd, ipctk_abs, need_hess, want_prod;
  int mollifier;     /* fricl_mollifier */
  void *grad, *prod; /* scatter targets (NULL in gather mode) */
  void *partial;     /* the potential's block sums */
  void *rec;         /* gather mode: per-contact records */
  int rstride;
  const unsigned char *owner; /* NULL: one piece owns everything */
  th_worker *workers;
} th_job;

static void th_queue(th_worker *w, th_list *l, size_t index, const void *vals,
                     size_t bytes) {
  const size_t need = l->bytes + sizeof(uint64_t) + bytes;
  if (need > l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 4096;
    while (cap < need)
      cap *= 2;
    unsigned char *d = fricl__malloc(cap);
    if (!d) {
      w->failed = 1;
      return;
    }
    if (l->bytes)
      memcpy(d, l->data, l->bytes);
    free(l->data);
    l->data = d;
    l->cap = cap;
  }
  const uint64_t ix = index;
  memcpy(l->data + l->bytes, &ix, sizeof ix);
  memcpy(l->data + l->bytes + sizeof ix, vals, bytes);
  l->bytes = need;
}

#define FRICL_FABS fabs
#define FRICL_SQRT sqrt
#define FRICL_REAL double
#define FRICL_FN(name) fricl__th_##name##_d
#define TH_SUFFIX(name) name##_d
#include "fricl_scalar_math.h"
#include "fricl_tangential_math.h"
/* after the math it instantiates */
#include "tangential_host_instances.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_SQRT
#undef TH_SUFFIX

#define FRICL_FABS fabsf
#define FRICL_SQRT sqrtf
#define FRICL_REAL float
#define FRICL_FN(name) fricl__th_##name##_f
#define TH_SUFFIX(name) name##_f
#include "fricl_scalar_math.h"
#include "fricl_tangential_math.h"
/* after the math it instantiates */
#include "tangential_host_instances.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_SQRT
#undef TH_SUFFIX

typedef void (*th_fn)(const th_job *, th_worker *, size_t, size_t, size_t);

/* [precision][dim - 2][stencil]; NULL: the stencil does not exist there. */
static const th_fn th_table[2][2][FRICL_STENCIL_COUNT] = {
    {{th_vv2_d, th_ev2_d, NULL, NULL, th_pv2_d},
     {th_vv3_d, th_ev3_d, th_ee3_d, th_fv3_d, th_pv3_d}},
    {{th_vv2_f, th_ev2_f, NULL, NULL, th_pv2_f},
     {th_vv3_f, th_ev3_f, th_ee3_f, th_fv3_f, th_pv3_f}}};

/* Global contacts [lo, hi) of piece w: the groups' slices inside. */
static void contacts_range(void *arg, size_t lo, size_t hi, unsigned w) {
  const th_job *j = arg;
  th_worker *wk = &j->workers[w];
  for (size_t g = 0; g < j->b->n_groups; ++g) {
    const size_t g0 = j->group_base[g], g1 = j->group_base[g + 1];
    const size_t a = lo > g0 ? lo : g0, z = hi < g1 ? hi : g1;
    if (a < z)
      th_table[j->b->precision == FRICL_F32][j->b->dim - 2]
              [j->b->groups[g].type](j, wk, g, a - g0, z - g0);
  }
}

/* ------------------------------------------------------ gather mode */

typedef struct {
  const th_job *j;
  int field; /* FRICL_REC_Q or FRICL_REC_T */
  void *out;
} gather_vec_job;

/* The gathers are compiled per (precision, dim): with a constant dim the
 * inner loops have fixed trip counts and the accumulators stay in
 * registers. */
#define GATHER_VEC(T, DIM, name)                                               \
  static void name(void *arg, size_t lo, size_t hi, unsigned w) {              \
    (void)w;                                                                   \
    const gather_vec_job *gj = arg;                                            \
    const th_job *j = gj->j;                                                   \
    const int rs = j->rstride, field = gj->field;                              \
    const T *rec = (const T *)j->rec;                                          \
    T *out = (T *)gj->out;                                                     \
    const int64_t *vptr = j->plan->vptr;                                       \
    const uint64_t *vent = j->plan->ventries;                                  \
    for (size_t v = lo; v < hi; ++v) {                                         \
      T acc[DIM];                                                              \
      for (int r = 0; r < DIM; ++r)                                            \
        acc[r] = 0;                                                            \
      for (int64_t x = vptr[v]; x < vptr[v + 1]; ++x) {                        \
        const uint64_t en = vent[x];                                           \
        const T *R = rec + (size_t)(en >> 2) * (size_t)rs;                     \
        const T gi = R[FRICL_REC_GAMMA + (int)(en & 3)];                       \
        for (int r = 0; r < DIM; ++r)                                          \
          acc[r] += gi * R[field + r];                                         \
      }                                                                        \
      for (int r = 0; r < DIM; ++r)                                            \
        out[v * (size_t)DIM + (size_t)r] = acc[r];                             \
    }                                                                          \
  }
GATHER_VEC(double, 3, gather_vec3_d)
GATHER_VEC(double, 2, gather_vec2_d)
GATHER_VEC(float, 3, gather_vec3_f)
GATHER_VEC(float, 2, gather_vec2_f)
#undef GATHER_VEC

/* The packed S entry (r, s) of a record, as fricl_tangential_math.h's
 * packed_at (a load; no arithmetic, so no rounding to match). */
static inline int packed_index(int dim, int r, int s) {
  const int a = r < s ? r : s, b = r < s ? s : r;
  return dim == 3 ? (a == 0 ? b : (a == 1 ? 2 + b : 5)) : (a == 0 ? b : 2);
}

#define GATHER_BSR(T, DIM, name)                                               \
  static void name(void *arg, size_t lo, size_t hi, unsigned w) {              \
    (void)w;                                                                   \
    const th_job *j = arg;                                                     \
    const T *rec = (const T *)j->rec;                                          \
    T *out = (T *)j->b->hessian_values;                                        \
    const int64_t *bptr = j->plan->bptr;                                       \
    const uint64_t *bent = j->plan->bentries;                                  \
    for (size_t bl = lo; bl < hi; ++bl) {                                      \
      T acc[DIM * DIM];                                                        \
      for (int i = 0; i < DIM * DIM; ++i)                                      \
        acc[i] = 0;                                                            \
      for (int64_t x = bptr[bl]; x < bptr[bl + 1]; ++x) {                      \
        const uint64_t en = bent[x];                                           \
        const T *R = rec + (size_t)(en >> 4) * FRICL_REC_STRIDE;               \
        const T coef = R[(en >> 2) & 3] * R[en & 3];                           \
        for (int r = 0; r < DIM; ++r)                                          \
          for (int s = 0; s < DIM; ++s)                                        \
            acc[r * DIM + s] +=                                                \
                coef * R[FRICL_REC_S + packed_index(DIM, r, s)];               \
      }                                                                        \
      for (int i = 0; i < DIM * DIM; ++i)                                      \
        out[bl * (size_t)(DIM * DIM) + (size_t)i] = acc[i];                    \
    }                                                                          \
  }
GATHER_BSR(double, 3, gather_bsr3_d)
GATHER_BSR(double, 2, gather_bsr2_d)
GATHER_BSR(float, 3, gather_bsr3_f)
GATHER_BSR(float, 2, gather_bsr2_f)
#undef GATHER_BSR

/* ------------------------------------------------------ vertex owners */

typedef struct {
  const th_job *j;
  const size_t *cuts; /* contact cuts of the pieces */
  unsigned pieces;
  unsigned char *marks; /* pieces x nv: piece t touches vertex v */
  unsigned char *owner;
  size_t nv;
  size_t shared[TH_MAX_PIECES], touched[TH_MAX_PIECES];
} owner_job;

static void mark_piece(void *arg, size_t lo, size_t hi, unsigned t) {
  (void)lo;
  (void)hi;
  owner_job *o = arg;
  unsigned char *m = o->marks + (size_t)t * o->nv;
  memset(m, 0, o->nv);
  const fricl_tangential_batch *b = o->j->b;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const size_t g0 = o->j->group_base[g], g1 = o->j->group_base[g + 1];
    const size_t a = o->cuts[t] > g0 ? o->cuts[t] : g0;
    const size_t z = o->cuts[t + 1] < g1 ? o->cuts[t + 1] : g1;
    const size_t k = (size_t)fricl__stencil_vertex_count(b->groups[g].type);
    for (size_t e = (a - g0) * k; a < z && e < (z - g0) * k; ++e)
      m[b->groups[g].vertices[e]] = 1;
  }
}

static void owner_range(void *arg, size_t lo, size_t hi, unsigned w) {
  owner_job *o = arg;
  size_t shared = 0, touched = 0;
  for (size_t v = lo; v < hi; ++v) {
    unsigned own = TH_OWN_SHARED - 1, n = 0;
    for (unsigned t = 0; t < o->pieces; ++t)
      if (o->marks[(size_t)t * o->nv + v]) {
        own = t;
        ++n;
      }
    o->owner[v] = n > 1 ? TH_OWN_SHARED : (unsigned char)own;
    shared += n > 1;
    touched += n > 0;
  }
  o->shared[w] = shared;
  o->touched[w] = touched;
}

/* ------------------------------------------------------------- driver */

typedef struct {
  unsigned char *p;
  size_t bytes;
} zero_job;

static void zero_range(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  const zero_job *z = arg;
  memset(z->p + lo, 0, hi - lo);
  (void)z->bytes;
}

static void zero_parallel(fricl_context *ctx, void *p, size_t bytes) {
  if (!p || !bytes)
    return;
  zero_job z = {p, bytes};
  fricl__pool_for(ctx->pool, bytes, fricl__grain(ctx, (size_t)1 << 20), 64,
                  zero_range, &z);
}

/* Add the queued contributions, piece after piece (contact order). */
#define FIXUP(T, name)                                                         \
  static void name(const th_list *l, T *out, size_t per) {                     \
    const size_t entry = sizeof(uint64_t) + per * sizeof(T);                   \
    for (size_t off = 0; off < l->bytes; off += entry) {                       \
      uint64_t ix;                                                             \
      T vals[9];                                                               \
      memcpy(&ix, l->data + off, sizeof ix);                                   \
      memcpy(vals, l->data + off + sizeof ix, per * sizeof(T));                \
      for (size_t r = 0; r < per; ++r)                                         \
        out[(size_t)ix * per + r] += vals[r];                                  \
    }                                                                          \
  }
FIXUP(double, fixup_d)
FIXUP(float, fixup_f)
#undef FIXUP

static void fixup(const fricl_tangential_batch *b, const th_list *l, void *out,
                  size_t per) {
  if (b->precision == FRICL_F64)
    fixup_d(l, out, per);
  else
    fixup_f(l, out, per);
}

/* Per-vertex list lengths as cut weights, so that the gathers split the
 * work, not the vertices, evenly. */
static unsigned vertex_cuts(size_t *cuts, const fricl_tangential_plan *p,
                            unsigned t) {
  const int64_t total = p->vptr[p->n_vertices];
  cuts[0] = 0;
  size_t v = 0;
  for (unsigned k = 1; k < t; ++k) {
    const int64_t target = (int64_t)((double)total * k / t);
    while (v < p->n_vertices && p->vptr[v] < target)
      ++v;
    cuts[k] = v;
  }
  cuts[t] = p->n_vertices;
  return t;
}

/* The assembly from records, through the plan's lists (gather mode). */
static fricl_status gather_all(fricl_context *ctx, th_job *j,
                               fricl_tangential_plan *plan) {
  const fricl_tangential_batch *b = j->b;
  const unsigned t = fricl__pool_threads(ctx->pool);
  if (b->gradient || b->hessian_product) {
    if (!plan) {
      const fricl_status st = fricl__plan_lookup(ctx, b->dim, b->n_vertices,
                                                 b->n_groups, b->groups, &plan);
      if (st != FRICL_STATUS_OK)
        return st;
    }
    /* Small gathers stay on the calling thread: waking a worker costs more
     * than the work (the contacts pass's rule, on list entries). */
    const size_t entries = (size_t)plan->vptr[plan->n_vertices];
    const unsigned want =
        entries < fricl__grain(ctx, TH_PARALLEL_MIN) ? 1 : (t > 256 ? 256 : t);
    size_t cuts[257];
    const unsigned pieces = vertex_cuts(cuts, plan, want);
    j->plan = plan;
    gather_vec_job gj = {j, FRICL_REC_Q, b->gradient};
    const int d3 = b->dim == 3;
    const fricl__range_fn fn = b->precision == FRICL_F64
                                   ? (d3 ? gather_vec3_d : gather_vec2_d)
                                   : (d3 ? gather_vec3_f : gather_vec2_f);
    if (b->gradient)
      fricl__pool_run_cuts(ctx->pool, cuts, pieces, fn, &gj);
    gj.field = FRICL_REC_T;
    gj.out = b->hessian_product;
    if (b->hessian_product)
      fricl__pool_run_cuts(ctx->pool, cuts, pieces, fn, &gj);
  }
  if (b->hessian_values) {
    const fricl_status st =
        fricl__plan_blocks((fricl_tangential_plan *)b->plan);
    if (st != FRICL_STATUS_OK)
      return st;
    j->plan = b->plan;
    const int d3 = b->dim == 3;
    fricl__pool_for(ctx->pool, b->plan->nnz, fricl__grain(ctx, 4096), 1,
                    b->precision == FRICL_F64
                        ? (d3 ? gather_bsr3_d : gather_bsr2_d)
                        : (d3 ? gather_bsr3_f : gather_bsr2_f),
                    j);
  }
  return FRICL_STATUS_OK;
}

fricl_status fricl__host_tangential(fricl__backend *be,
                                    const fricl__tangential_work *w) {
  fricl_context *ctx = be->ctx;
  fricl__host *h = (fricl__host *)be;
  const fricl_tangential_batch *b = w->b;
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t nvd = b->n_vertices * (size_t)b->dim;
  th_job j;
  memset(&j, 0, sizeof j);
  j.b = b;
  j.plan = w->plan;
  j.total = w->total;
  j.profile = (int)b->mu_profile;
  j.mollifier = (int)b->mollifier;
  j.psd = (int)b->psd;
  j.ipctk_abs = (b->flags & FRICL_TANGENTIAL_FLAG_IPCTK_ABS) != 0;
  j.need_hess = w->need_hess;
  j.want_prod = b->hessian_product != NULL;
  for (size_t g = 0; g < b->n_groups; ++g)
    j.group_base[g + 1] = j.group_base[g] + b->groups[g].count;
  const size_t nblk = (w->total + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK;

  /* Pieces: contiguous contact ranges on block boundaries. */
  const size_t grain = fricl__grain(ctx, TH_PARALLEL_MIN);
  unsigned pieces = fricl__pool_threads(ctx->pool);
  if (pieces > TH_MAX_PIECES)
    pieces = TH_MAX_PIECES;
  if (w->total < grain)
    pieces = 1;
  if (pieces > nblk)
    pieces = nblk ? (unsigned)nblk : 1;
  size_t cuts[TH_MAX_PIECES + 1];
  for (unsigned t = 0; t <= pieces; ++t) {
    const size_t blk = (nblk / pieces) * t + (nblk % pieces) * t / pieces;
    cuts[t] =
        blk * FRICL__POT_BLOCK < w->total ? blk * FRICL__POT_BLOCK : w->total;
  }
  cuts[pieces] = w->total;

  th_worker workers[TH_MAX_PIECES];
  memset(workers, 0, sizeof workers);
  for (unsigned t = 0; t < pieces; ++t) {
    workers[t].index = t;
    th_list *l[2] = {&workers[t].grad, &workers[t].prod};
    for (int k = 0; k < 2; ++k) {
      l[k]->data = h->queue[t][k];
      l[k]->cap = h->queue_cap[t][k];
    }
  }
  j.workers = workers;

  void *partial = NULL;
  fricl_status st =
      b->potential
          ? fricl__host_scratch(h, 0, (nblk ? nblk : 1) * esz, &partial)
          : FRICL_STATUS_OK;
  j.partial = b->potential ? partial : NULL;

  /* The global Hessian is always assembled from records: one gather per
   * BSR block, which writes the values once, in order, beats scattering
   * every contact's K x K blocks into them (read-modify-writes all over a
   * matrix much larger than the cache, after zeroing it) at every size
   * measured - 10 to 10^6 FV contacts, 1.3x to 8x on one thread. */
  int gather_mode = b->hessian_values != NULL;
  /* Otherwise, who owns which vertex (pieces > 1): touched by one piece
   * only. */
  const int gathers = b->gradient || b->hessian_product;
  if (st == FRICL_STATUS_OK && !gather_mode && pieces > 1 && gathers) {
    void *marks = NULL, *owner = NULL;
    st = fricl__host_scratch(h, 1, (size_t)pieces * b->n_vertices, &marks);
    if (st == FRICL_STATUS_OK)
      st = fricl__host_scratch(h, 2, b->n_vertices ? b->n_vertices : 1, &owner);
    if (st == FRICL_STATUS_OK) {
      owner_job o;
      memset(&o, 0, sizeof o);
      o.j = &j;
      o.cuts = cuts;
      o.pieces = pieces;
      o.marks = marks;
      o.owner = owner;
      o.nv = b->n_vertices;
      fricl__pool_run_cuts(ctx->pool, cuts, pieces, mark_piece, &o);
      fricl__pool_for(ctx->pool, b->n_vertices, fricl__grain(ctx, 65536), 1,
                      owner_range, &o);
      size_t shared = 0, touched = 0;
      for (unsigned t = 0; t < TH_MAX_PIECES; ++t) {
        shared += o.shared[t];
        touched += o.touched[t];
      }
      j.owner = owner;
      /* A contact order that shares many vertices between pieces would
       * queue most contributions: records and gathers are cheaper then. */
      gather_mode = shared * 4 > touched;
    }
  }
  if (st == FRICL_STATUS_OK && gather_mode) {
    j.owner = NULL;
    j.rstride = b->hessian_values || b->hessian_product ? FRICL_REC_STRIDE
                                                        : FRICL_REC_STRIDE_GRAD;
    st = fricl__host_scratch(h, 3, w->total * (size_t)j.rstride * esz, &j.rec);
  } else if (st == FRICL_STATUS_OK) {
    j.grad = b->gradient;
    j.prod = b->hessian_product;
    zero_parallel(ctx, j.grad, nvd * esz);
    zero_parallel(ctx, j.prod, nvd * esz);
  }
  if (st != FRICL_STATUS_OK)
    return st;

  fricl__pool_run_cuts(ctx->pool, cuts, pieces, contacts_range, &j);

  for (unsigned t = 0; t < pieces; ++t) {
    const th_worker *wk = &workers[t];
    if (wk->failed && st == FRICL_STATUS_OK)
      st = fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "queueing shared contributions");
    if (st == FRICL_STATUS_OK) {
      fixup(b, &wk->grad, j.grad, (size_t)b->dim);
      fixup(b, &wk->prod, j.prod, (size_t)b->dim);
    }
    /* The queues' memory stays with the backend for the next call. */
    const th_list *l[2] = {&wk->grad, &wk->prod};
    for (int k = 0; k < 2; ++k) {
      h->queue[t][k] = l[k]->data;
      h->queue_cap[t][k] = l[k]->cap;
    }
  }
  if (st == FRICL_STATUS_OK && gather_mode)
    st = gather_all(ctx, &j, w->plan);
  if (st != FRICL_STATUS_OK || !b->potential)
    return st;
  /* The block sums in block order. */
  if (b->precision == FRICL_F64) {
    double s = 0;
    for (size_t k = 0; k < nblk; ++k)
      s += ((const double *)partial)[k];
    *(double *)b->potential = s;
  } else {
    float s = 0;
    for (size_t k = 0; k < nblk; ++k)
      s += ((const float *)partial)[k];
    *(float *)b->potential = s;
  }
  return FRICL_STATUS_OK;
}
