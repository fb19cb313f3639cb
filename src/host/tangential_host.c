/* tangential_host.c - the tangential potential on the host backend: a
 * per-contact pass specialised per (stencil, dim, precision), then the
 * deterministic assembly. Small calls run on the calling thread and
 * scatter in contact order as the reference does; large ones split the
 * contacts over the host threads (records per contact), then gather per
 * vertex and per Hessian block through the plan's lists, in contact order.
 * Both orders are the reference backend's, so the results are bitwise
 * equal to it whatever the thread count. */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/pool.h"
#include "core/tangential.h"
#include "host/host_backend.h"

#include "fricl_cl_compat.h"
#include "fricl_tangential_codes.h"

/* Below this many contacts the call runs on the calling thread: waking
 * the workers and gathering through records costs more than it saves. */
#define TH_PARALLEL_MIN 2048

typedef struct th_job {
  const fricl_tangential_batch *b;
  const fricl_tangential_plan *plan;
  size_t group_base[65];
  int profile, psd, ipctk_abs, need_hess, want_prod;
  void *rec, *dall;  /* scratch: records, per-contact D (global index) */
  void *grad, *prod; /* sequential mode: scatter targets */
  int rstride;
  size_t total;
} th_job;

#define FRICL_FABS fabs
#define FRICL_SQRT sqrt
#define FRICL_REAL double
#define FRICL_FN(name) fricl__th_##name##_d
#include "fricl_scalar_math.h"
#include "fricl_tangential_math.h"
#define TH_DIM 3
#define TH_STENCIL FRICL_T_VV
#define TH_K 2
#define TH_NB 0
#define TH_NAME th_vv3_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_EV
#define TH_K 3
#define TH_NB 1
#define TH_NAME th_ev3_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_EE
#define TH_K 4
#define TH_NB 2
#define TH_NAME th_ee3_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_FV
#define TH_K 4
#define TH_NB 2
#define TH_NAME th_fv3_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_PV
#define TH_K 1
#define TH_NB 0
#define TH_NAME th_pv3_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#undef TH_DIM
#define TH_DIM 2
#define TH_STENCIL FRICL_T_VV
#define TH_K 2
#define TH_NB 0
#define TH_NAME th_vv2_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_EV
#define TH_K 3
#define TH_NB 1
#define TH_NAME th_ev2_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_PV
#define TH_K 1
#define TH_NB 0
#define TH_NAME th_pv2_d
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#undef TH_DIM
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_SQRT

#define FRICL_FABS fabsf
#define FRICL_SQRT sqrtf
#define FRICL_REAL float
#define FRICL_FN(name) fricl__th_##name##_f
#include "fricl_scalar_math.h"
#include "fricl_tangential_math.h"
#define TH_DIM 3
#define TH_STENCIL FRICL_T_VV
#define TH_K 2
#define TH_NB 0
#define TH_NAME th_vv3_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_EV
#define TH_K 3
#define TH_NB 1
#define TH_NAME th_ev3_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_EE
#define TH_K 4
#define TH_NB 2
#define TH_NAME th_ee3_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_FV
#define TH_K 4
#define TH_NB 2
#define TH_NAME th_fv3_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_PV
#define TH_K 1
#define TH_NB 0
#define TH_NAME th_pv3_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#undef TH_DIM
#define TH_DIM 2
#define TH_STENCIL FRICL_T_VV
#define TH_K 2
#define TH_NB 0
#define TH_NAME th_vv2_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_EV
#define TH_K 3
#define TH_NB 1
#define TH_NAME th_ev2_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#define TH_STENCIL FRICL_T_PV
#define TH_K 1
#define TH_NB 0
#define TH_NAME th_pv2_f
#include "tangential_host_impl.h"
#undef TH_STENCIL
#undef TH_K
#undef TH_NB
#undef TH_NAME
#undef TH_DIM
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_SQRT

typedef void (*th_fn)(const th_job *, size_t, size_t, size_t);

/* [precision][dim - 2][stencil]; NULL: the stencil does not exist there. */
static const th_fn th_table[2][2][FRICL_STENCIL_COUNT] = {
    {{th_vv2_d, th_ev2_d, NULL, NULL, th_pv2_d},
     {th_vv3_d, th_ev3_d, th_ee3_d, th_fv3_d, th_pv3_d}},
    {{th_vv2_f, th_ev2_f, NULL, NULL, th_pv2_f},
     {th_vv3_f, th_ev3_f, th_ee3_f, th_fv3_f, th_pv3_f}}};

static th_fn th_pick(const th_job *j, size_t g) {
  return th_table[j->b->precision == FRICL_F32][j->b->dim - 2]
                 [j->b->groups[g].type];
}

/* Global contacts [lo, hi): the groups' slices that fall inside. */
static void contacts_range(void *arg, size_t lo, size_t hi, unsigned w) {
  (void)w;
  const th_job *j = arg;
  for (size_t g = 0; g < j->b->n_groups; ++g) {
    const size_t g0 = j->group_base[g], g1 = j->group_base[g + 1];
    const size_t a = lo > g0 ? lo : g0, z = hi < g1 ? hi : g1;
    if (a < z)
      th_pick(j, g)(j, g, a - g0, z - g0);
  }
}

/* ------------------------------------------------------------ gathers */

typedef struct {
  const th_job *j;
  int field; /* FRICL_REC_Q or FRICL_REC_T */
  void *out;
} gather_vec_job;

#define GATHER_VEC(T, name)                                                    \
  static void name(void *arg, size_t lo, size_t hi, unsigned w) {              \
    (void)w;                                                                   \
    const gather_vec_job *gj = arg;                                            \
    const th_job *j = gj->j;                                                   \
    const int dim = j->b->dim, rs = j->rstride;                                \
    const T *rec = (const T *)j->rec;                                          \
    T *out = (T *)gj->out;                                                     \
    const int64_t *vptr = j->plan->vptr;                                       \
    const uint64_t *vent = j->plan->ventries;                                  \
    for (size_t v = lo; v < hi; ++v) {                                         \
      T acc[3] = {0, 0, 0};                                                    \
      for (int64_t x = vptr[v]; x < vptr[v + 1]; ++x) {                        \
        const uint64_t en = vent[x];                                           \
        const T *R = rec + (size_t)(en >> 2) * (size_t)rs;                     \
        const T gi = R[FRICL_REC_GAMMA + (int)(en & 3)];                       \
        for (int r = 0; r < dim; ++r)                                          \
          acc[r] += gi * R[gj->field + r];                                     \
      }                                                                        \
      for (int r = 0; r < dim; ++r)                                            \
        out[v * (size_t)dim + (size_t)r] = acc[r];                             \
    }                                                                          \
  }
GATHER_VEC(double, gather_vec_d)
GATHER_VEC(float, gather_vec_f)
#undef GATHER_VEC

/* The packed S entry (r, s) of a record, as fricl_tangential_math.h's
 * packed_at (a load; no arithmetic, so no rounding to match). */
static int packed_index(int dim, int r, int s) {
  const int a = r < s ? r : s, b = r < s ? s : r;
  return dim == 3 ? (a == 0 ? b : (a == 1 ? 2 + b : 5)) : (a == 0 ? b : 2);
}

#define GATHER_BSR(T, name)                                                    \
  static void name(void *arg, size_t lo, size_t hi, unsigned w) {              \
    (void)w;                                                                   \
    const th_job *j = arg;                                                     \
    const int dim = j->b->dim, dd = dim * dim;                                 \
    const T *rec = (const T *)j->rec;                                          \
    T *out = (T *)j->b->hessian_values;                                        \
    int pidx[9];                                                               \
    for (int r = 0; r < dim; ++r)                                              \
      for (int s = 0; s < dim; ++s)                                            \
        pidx[r * dim + s] = FRICL_REC_S + packed_index(dim, r, s);             \
    for (size_t bl = lo; bl < hi; ++bl) {                                      \
      T acc[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};                                  \
      for (int64_t x = j->plan->bptr[bl]; x < j->plan->bptr[bl + 1]; ++x) {    \
        const uint64_t en = j->plan->bentries[x];                              \
        const T *R = rec + (size_t)(en >> 4) * FRICL_REC_STRIDE;               \
        const T coef = R[(en >> 2) & 3] * R[en & 3];                           \
        for (int i = 0; i < dd; ++i)                                           \
          acc[i] += coef * R[pidx[i]];                                         \
      }                                                                        \
      for (int i = 0; i < dd; ++i)                                             \
        out[bl * (size_t)dd + (size_t)i] = acc[i];                             \
    }                                                                          \
  }
GATHER_BSR(double, gather_bsr_d)
GATHER_BSR(float, gather_bsr_f)
#undef GATHER_BSR

/* The potential: sequential sums over blocks of FRICL__POT_BLOCK contacts,
 * then their sum in block order (the documented fixed order). */
#define BLOCK_SUMS(T, name)                                                    \
  static void name(void *arg, size_t lo, size_t hi, unsigned w) {              \
    (void)w;                                                                   \
    const th_job *j = arg;                                                     \
    const T *d = (const T *)j->dall;                                           \
    T *partial = (T *)j->rec; /* reused: records are not needed here */        \
    for (size_t blk = lo; blk < hi; ++blk) {                                   \
      const size_t a = blk * FRICL__POT_BLOCK;                                 \
      const size_t z =                                                         \
          j->total - a < FRICL__POT_BLOCK ? j->total : a + FRICL__POT_BLOCK;   \
      T s = 0;                                                                 \
      for (size_t i = a; i < z; ++i)                                           \
        s += d[i];                                                             \
      partial[blk] = s;                                                        \
    }                                                                          \
  }
BLOCK_SUMS(double, block_sums_d)
BLOCK_SUMS(float, block_sums_f)
#undef BLOCK_SUMS

/* ------------------------------------------------------------- driver */

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
  j.total = w->total;
  j.profile = (int)b->mu_profile;
  j.psd = (int)b->psd;
  j.ipctk_abs = (b->flags & FRICL_TANGENTIAL_FLAG_IPCTK_ABS) != 0;
  j.need_hess = w->need_hess;
  j.want_prod = b->hessian_product != NULL;
  for (size_t g = 0; g < b->n_groups; ++g)
    j.group_base[g + 1] = j.group_base[g] + b->groups[g].count;
  const size_t grain = fricl__grain(ctx, TH_PARALLEL_MIN);
  const int parallel = fricl__pool_threads(ctx->pool) > 1 && w->total >= grain;
  const int gathers = b->gradient || b->hessian_product;
  /* Records: for the BSR gather always; for the vector gathers only when
   * they run in parallel (the sequential pass scatters directly). */
  const int need_rec = b->hessian_values || (parallel && gathers);
  j.rstride = b->hessian_values || b->hessian_product ? FRICL_REC_STRIDE
                                                      : FRICL_REC_STRIDE_GRAD;
  const size_t nblk = (w->total + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK;
  size_t rec_reals = need_rec ? w->total * (size_t)j.rstride : 0;
  if (b->potential && rec_reals < nblk)
    rec_reals = nblk; /* block partial sums reuse the record scratch */
  fricl_status st =
      fricl__host_scratch(h, 0, rec_reals * esz, &j.rec); /* records */
  if (st == FRICL_STATUS_OK && b->potential)
    st = fricl__host_scratch(h, 1, w->total * esz, &j.dall);
  if (st != FRICL_STATUS_OK)
    return st;
  if (!need_rec)
    j.rec = NULL;
  fricl_tangential_plan *plan = w->plan;
  if (parallel && gathers && !plan) {
    st = fricl__plan_lookup(ctx, b->dim, b->n_vertices, b->n_groups, b->groups,
                            &plan);
    if (st != FRICL_STATUS_OK)
      return st;
  }
  j.plan = plan;
  if (!parallel) {
    j.grad = b->gradient;
    j.prod = b->hessian_product;
    if (j.grad)
      memset(j.grad, 0, nvd * esz);
    if (j.prod)
      memset(j.prod, 0, nvd * esz);
    contacts_range(&j, 0, w->total, 0);
  } else {
    fricl__pool_for(ctx->pool, w->total, grain > 1 ? grain / 2 : 1,
                    grain > 64 ? 64 : 1, contacts_range, &j);
  }
  const unsigned t = fricl__pool_threads(ctx->pool);
  size_t cuts[257];
  if (parallel && gathers) {
    const unsigned pieces = vertex_cuts(cuts, plan, t);
    gather_vec_job gj = {&j, FRICL_REC_Q, b->gradient};
    const fricl__range_fn fn =
        b->precision == FRICL_F64 ? gather_vec_d : gather_vec_f;
    if (b->gradient)
      fricl__pool_run_cuts(ctx->pool, cuts, pieces, fn, &gj);
    gj.field = FRICL_REC_T;
    gj.out = b->hessian_product;
    if (b->hessian_product)
      fricl__pool_run_cuts(ctx->pool, cuts, pieces, fn, &gj);
  }
  if (b->hessian_values)
    fricl__pool_for(ctx->pool, plan->nnz, fricl__grain(ctx, 4096), 1,
                    b->precision == FRICL_F64 ? gather_bsr_d : gather_bsr_f,
                    &j);
  if (b->potential) {
    /* The records are done with: their scratch holds the block sums. */
    fricl_status s2 =
        fricl__host_scratch(h, 0, (nblk ? nblk : 1) * esz, &j.rec);
    if (s2 != FRICL_STATUS_OK)
      return s2;
    fricl__pool_for(ctx->pool, nblk, fricl__grain(ctx, 64), 1,
                    b->precision == FRICL_F64 ? block_sums_d : block_sums_f,
                    &j);
    if (b->precision == FRICL_F64) {
      double s = 0;
      for (size_t k = 0; k < nblk; ++k)
        s += ((const double *)j.rec)[k];
      *(double *)b->potential = s;
    } else {
      float s = 0;
      for (size_t k = 0; k < nblk; ++k)
        s += ((const float *)j.rec)[k];
      *(float *)b->potential = s;
    }
  }
  return FRICL_STATUS_OK;
}
