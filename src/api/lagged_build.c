/* lagged_build.c - the public entry point of the lagged build: argument
 * validation (complete before any work), dispatch to a backend and the
 * status report. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/build_checks.h"
#include "core/backend.h"
#include "core/fault.h"
#include "core/lagged_build.h"
#include "core/pool.h"
#include "core/validate.h"

fricl_status fricl__build_check_options(fricl_context *ctx, int dim,
                                        uint32_t flags, fricl_mu_blend blend) {
  if (dim != 2 && dim != 3)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.dim = %d: it must be 2 or 3", dim);
  if (flags & ~FRICL_BUILD_FLAG_PHYSICAL_BARRIER)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.flags = 0x%x has unknown bits", (unsigned)flags);
  if ((unsigned)blend >= FRICL_BLEND_COUNT)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.blend = %d is not a fricl_mu_blend", (int)blend);
  return FRICL_STATUS_OK;
}

fricl_status fricl__build_check_scalars(fricl_context *ctx, fricl_precision p,
                                        double kappa, double dhat, double dmin,
                                        double mu_s, double mu_k) {
  const fricl__real_arg reals[] = {{"kappa", kappa, FRICL__RULE_GE0},
                                   {"dhat", dhat, FRICL__RULE_GT0},
                                   {"dmin", dmin, FRICL__RULE_GE0},
                                   {"mu_s", mu_s, FRICL__RULE_GE0},
                                   {"mu_k", mu_k, FRICL__RULE_GE0}};
  return fricl__check_reals(ctx, p, "batch.", reals, 5);
}

fricl_status fricl__build_check_group(fricl_context *ctx, int dim, size_t g,
                                      fricl_stencil type, size_t count,
                                      int has_vertices, int has_normal,
                                      int has_offset, const char *suffix,
                                      size_t *total) {
  FRICL__TRY(fricl__check_group(ctx, dim, g, type, count, total));
  if (count && !has_vertices)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "groups[%zu] (%s): vertices%s is NULL with count = %zu",
                       g, fricl_stencil_name(type), suffix, count);
  if (count && type == FRICL_STENCIL_PV && !(has_normal && has_offset))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "groups[%zu] (pv): plane_%s%s is NULL with count = %zu "
                       "(plane-vertex contacts need their plane)",
                       g, has_normal ? "offset" : "normal", suffix, count);
  return FRICL_STATUS_OK;
}

void fricl_build_report_init(fricl_build_report *report) {
  fricl__struct_init(report, sizeof *report);
}

void fricl_build_batch_init(fricl_build_batch *batch) {
  if (fricl__struct_init(batch, sizeof *batch))
    batch->dim = 3;
}

/* ----------------------------------------------------------- validation */

#define check_group_reals fricl__check_group_reals

typedef fricl__region region;

#define REGIONS_PER_GROUP 17

static fricl_status validate(fricl_context *ctx, const fricl_build_batch *b) {
  fricl_status st = FRICL_STATUS_OK;
  const fricl_precision p = b->precision;
  if (p != FRICL_F64 && p != FRICL_F32)
    return fricl__check_precision(ctx, p);
  FRICL__TRY(fricl__build_check_options(ctx, b->dim, b->flags, b->blend));
  FRICL__TRY(fricl__check_precision(ctx, p));
  if (b->report &&
      fricl__struct_out_check(b->report->struct_size, FRICL__MIN_BUILD_REPORT))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.report->struct_size is %u, below the smallest "
                       "layout (%zu bytes): initialise it with "
                       "fricl_build_report_init",
                       (unsigned)b->report->struct_size,
                       (size_t)FRICL__MIN_BUILD_REPORT);
  FRICL__TRY(fricl__build_check_scalars(ctx, p, b->kappa, b->dhat, b->dmin,
                                        b->mu_s, b->mu_k));

  const size_t dim = (size_t)b->dim, m = dim - 1;
  const size_t esz = fricl__elem_bytes(p), nv = b->n_vertices;
  if (nv > (size_t)INT32_MAX || FRICL__TOO_BIG(nv, dim * esz))
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_vertices = %zu exceeds the int32 vertex "
                       "indices",
                       nv);
  if (nv && !b->lagged_positions)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.lagged_positions is NULL with n_vertices = %zu",
                       nv);
  if (b->n_groups && !b->groups)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.groups is NULL with n_groups = %zu", b->n_groups);
  if (b->n_groups > SIZE_MAX / (REGIONS_PER_GROUP * sizeof(region)) - 8)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.n_groups = %zu is too large", b->n_groups);
  /* The per-vertex inputs (NULL: absent). */
  const struct {
    const char *name;
    const void *a;
    size_t per;
    int nonneg;
  } va[] = {{"lagged_positions", b->lagged_positions, dim, 0},
            {"rest_positions", b->rest_positions, dim, 0},
            {"vertex_mu_s", b->vertex_mu_s, 1, 1},
            {"vertex_mu_k", b->vertex_mu_k, 1, 1}};
  for (size_t i = 0; i < sizeof va / sizeof va[0]; ++i)
    FRICL__TRY(fricl__check_vertex_reals(ctx, p, va[i].name, va[i].a, nv,
                                         va[i].per, va[i].nonneg));

  region *r = fricl__malloc((8 + REGIONS_PER_GROUP * b->n_groups) * sizeof *r);
  if (!r)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "validating");
  size_t nr = 0;
  const size_t vbytes = nv * dim * esz;
  r[nr++] =
      (region){b->lagged_positions, vbytes, "lagged_positions", SIZE_MAX, 0};
  r[nr++] = (region){b->rest_positions, vbytes, "rest_positions", SIZE_MAX, 0};
  r[nr++] = (region){b->vertex_mu_s, nv * esz, "vertex_mu_s", SIZE_MAX, 0};
  r[nr++] = (region){b->vertex_mu_k, nv * esz, "vertex_mu_k", SIZE_MAX, 0};
  r[nr++] = (region){b->groups, b->n_groups * sizeof *b->groups, "groups",
                     SIZE_MAX, 0};
  r[nr++] = (region){b->report, b->report ? b->report->struct_size : 0,
                     "report", SIZE_MAX, 1};
  size_t total = 0;
  for (size_t g = 0; g < b->n_groups && st == FRICL_STATUS_OK; ++g) {
    const fricl_build_group *G = &b->groups[g];
    st = fricl__build_check_group(ctx, b->dim, g, G->type, G->count,
                                  G->vertices != NULL, G->plane_normal != NULL,
                                  G->plane_offset != NULL, "", &total);
    if (st != FRICL_STATUS_OK)
      break;
    const char *gn = fricl_stencil_name(G->type);
    const size_t n = G->count, k = (size_t)fricl_stencil_vertex_count(G->type);
    const size_t nb = (size_t)fricl_stencil_coord_count(G->type);
    const int pv = G->type == FRICL_STENCIL_PV;
    if (G->status_counts)
      r[nr++] =
          (region){G->status_counts, FRICL_BUILD_STATUS_COUNT * sizeof(size_t),
                   "status_counts", g, 1};
    if (!n)
      continue;
    for (size_t c = 0; c < n && st == FRICL_STATUS_OK; ++c)
      for (size_t i = 0; i < k; ++i) {
        const int32_t v = G->vertices[c * k + i];
        if (v < 0 || (size_t)v >= nv) {
          st = fricl__fail(
              ctx, FRICL_STATUS_INVALID_ARGUMENT,
              "groups[%zu] (%s) contact %zu: vertex index %d (stencil slot "
              "%zu) is out of range [0, %zu) (first bad contact)",
              g, gn, c, (int)v, i, nv);
          break;
        }
      }
    if (st == FRICL_STATUS_OK && pv)
      st = check_group_reals(ctx, p, g, gn, "plane_normal", G->plane_normal, n,
                             dim, 0);
    if (st == FRICL_STATUS_OK && pv)
      st = check_group_reals(ctx, p, g, gn, "plane_offset", G->plane_offset, n,
                             1, 0);
    if (st == FRICL_STATUS_OK && G->dmin)
      st = check_group_reals(ctx, p, g, gn, "dmin", G->dmin, n, 1, 1);
    if (st == FRICL_STATUS_OK && G->weight)
      st = check_group_reals(ctx, p, g, gn, "weight", G->weight, n, 1, 0);
    if (st == FRICL_STATUS_OK && G->mu_s)
      st = check_group_reals(ctx, p, g, gn, "mu_s", G->mu_s, n, 1, 1);
    if (st == FRICL_STATUS_OK && G->mu_k)
      st = check_group_reals(ctx, p, g, gn, "mu_k", G->mu_k, n, 1, 1);
#define REGION(f, per, bytes, given, out)                                      \
  r[nr++] = (region){(given) ? G->f : NULL, n * (per) * (bytes), #f, g, out};
    FRICL__BUILD_GROUP_ARRAYS(REGION)
#undef REGION
  }
  return fricl__check_overlaps_free(ctx, st, r, nr);
}

fricl_status fricl_build_validate(fricl_context *ctx,
                                  const fricl_build_batch *batch) {
  FRICL__TRY(fricl__enter(ctx, batch, "ctx and batch must not be NULL"));
  /* The caller's layout (perhaps an older one) over our defaults, as
   * fricl_build reads it. */
  fricl_build_batch in;
  fricl_build_batch_init(&in);
  const fricl_status st = fricl__struct_in(
      ctx, "batch", &in, sizeof in, batch, FRICL__MIN_BUILD_BATCH,
      _Alignof(fricl_build_batch), "fricl_build_batch_init");
  return st != FRICL_STATUS_OK ? st : validate(ctx, &in);
}

/* --------------------------------------------------------------- build */

/* Per piece of a group's contacts: the count of each status code and its
 * first contact (and the first out-of-range code, which cannot happen). */
#define COUNT_PIECES 256
typedef struct {
  const uint8_t *status;
  size_t count[COUNT_PIECES][FRICL_BUILD_STATUS_COUNT];
  size_t first[COUNT_PIECES][FRICL_BUILD_STATUS_COUNT];
  size_t bad[COUNT_PIECES];
} count_job;

static void count_statuses(void *arg, size_t lo, size_t hi, unsigned w) {
  count_job *j = arg;
  for (size_t c = hi; c-- > lo;) {
    const unsigned s = j->status[c];
    if (s >= FRICL_BUILD_STATUS_COUNT) {
      j->bad[w] = c;
      continue;
    }
    j->count[w][s]++;
    j->first[w][s] = c; /* walking down: ends on the first */
  }
}

static int group_wants_status(const fricl_build_batch *b,
                              const fricl_build_group *G) {
  return G->status || G->status_counts || b->report;
}

fricl_status fricl_build(fricl_context *ctx, const fricl_build_batch *batch) {
  FRICL__ENTER_BATCH(ctx, fricl_build_batch, batch, FRICL__MIN_BUILD_BATCH);
  FRICL__TRY(validate(ctx, batch));
  const size_t ng = batch->n_groups;
  /* Statuses land in the user's array, else in one scratch block. */
  size_t scratch_bytes = 0;
  for (size_t g = 0; g < ng; ++g) {
    const fricl_build_group *G = &batch->groups[g];
    if (!G->status && group_wants_status(batch, G))
      scratch_bytes += G->count;
  }
  uint8_t **status = fricl__calloc(ng ? ng : 1, sizeof *status);
  uint8_t *scratch = scratch_bytes ? fricl__malloc(scratch_bytes) : NULL;
  if (!status || (scratch_bytes && !scratch)) {
    free(status);
    free(scratch);
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu bytes of status scratch", scratch_bytes);
  }
  size_t off = 0;
  for (size_t g = 0; g < ng; ++g) {
    const fricl_build_group *G = &batch->groups[g];
    if (G->status)
      status[g] = G->status;
    else if (group_wants_status(batch, G)) {
      status[g] = scratch + off;
      off += G->count;
    }
  }
  size_t total = 0;
  for (size_t g = 0; g < ng; ++g)
    total += batch->groups[g].count;
  fricl__backend *be = NULL;
  fricl_status st =
      fricl__dispatch(ctx, FRICL__FEATURE_BUILD, total, batch->precision, &be);
  if (st == FRICL_STATUS_OK && total) {
    const fricl__build_work w = {batch, status, total};
    st = be->ops->build(be, &w);
  }
  st = fricl__ran_on(ctx, be, st);
  if (st == FRICL_STATUS_OK) {
    fricl_build_report rep;
    fricl_build_report_init(&rep);
    for (int s = 0; s < FRICL_BUILD_STATUS_COUNT; ++s)
      rep.first_group[s] = rep.first_contact[s] = SIZE_MAX;
    for (size_t g = 0; g < ng && st == FRICL_STATUS_OK; ++g) {
      const fricl_build_group *G = &batch->groups[g];
      rep.total += G->count;
      if (!status[g])
        continue;
      /* Pieces are numbered below the pool's thread count: only those
       * rows are used (all 256 cost more than a small build's work). */
      unsigned np = fricl__pool_threads(ctx->pool);
      np = np < COUNT_PIECES ? np : COUNT_PIECES;
      count_job cj;
      cj.status = status[g];
      memset(cj.count, 0, np * sizeof cj.count[0]);
      memset(cj.first, 0, np * sizeof cj.first[0]);
      for (unsigned w = 0; w < np; ++w)
        cj.bad[w] = SIZE_MAX;
      fricl__pool_for(ctx->pool, G->count, fricl__grain(ctx, 65536), 1,
                      count_statuses, &cj);
      size_t cnt[FRICL_BUILD_STATUS_COUNT] = {0};
      /* Pieces in contact order: the first piece that saw a code saw its
       * first contact. */
      for (unsigned w = 0; w < np; ++w)
        for (int k = 0; k < FRICL_BUILD_STATUS_COUNT; ++k) {
          if (cj.count[w][k] && !cnt[k] && rep.first_group[k] == SIZE_MAX) {
            rep.first_group[k] = g;
            rep.first_contact[k] = cj.first[w][k];
          }
          cnt[k] += cj.count[w][k];
        }
      for (unsigned w = 0; w < np; ++w)
        if (cj.bad[w] != SIZE_MAX) /* cannot happen */
          st = fricl__fail(ctx, FRICL_STATUS_INTERNAL,
                           "groups[%zu] contact %zu: status %u out of range", g,
                           cj.bad[w], (unsigned)status[g][cj.bad[w]]);
      for (int k = 0; k < FRICL_BUILD_STATUS_COUNT; ++k) {
        rep.count[k] += cnt[k];
        if (k != FRICL_BUILD_OK)
          rep.no_force += cnt[k];
      }
      if (G->status_counts)
        memcpy(G->status_counts, cnt, sizeof cnt);
    }
    if (st == FRICL_STATUS_OK && batch->report)
      fricl__struct_out(batch->report, batch->report->struct_size, &rep,
                        sizeof rep);
  }
  free(scratch);
  free(status);
  return st;
}
