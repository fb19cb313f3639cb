/* force_pass.c - the friction force's pass over chunks of contacts: the
 * per-contact math of kernels/fricl_force_math.h (once per precision) on
 * the host threads, each chunk's records then added into the global
 * force and the BSR Jacobian in contact order; without a Jacobian, every
 * contact's record at once, the force then gathered per vertex through
 * the topology's vertex lists (the same additions in the same order). In core,
 * beside the barrier's pass, so that every backend can assemble through it. */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/force.h"
#include "core/pass_common.h"
#include "core/pool.h"

#include "fricl_cl_compat.h"

/* Contacts per chunk. */
#define FH_CHUNK 4096
/* Reals of one contact record: N, force (12), Jacobian (144). */
#define FH_REC 157
/* How many contacts ahead the pass prefetches vertex rows. */
#define FH_AHEAD 8

/* The force pass's scratch on the context: at least `bytes`, kept for the
 * next call (NULL when out of memory). */
typedef struct force_scratch {
  size_t bytes;
  void *p;
} force_scratch;

static void force_scratch_free(void *p) {
  force_scratch *f = p;
  if (f)
    free(f->p);
  free(f);
}

static void *force_scratch_get(fricl_context *ctx, size_t bytes) {
  struct fricl__scratch *c = &ctx->scratch[FRICL__SCRATCH_FORCE];
  force_scratch *f = c->p;
  if (!f) {
    f = calloc(1, sizeof *f);
    if (!f)
      return NULL;
    c->p = f;
    c->free = force_scratch_free;
  }
  if (f->bytes < bytes) {
    free(f->p);
    f->p = fricl__malloc(bytes);
    f->bytes = f->p ? bytes : 0;
  }
  return f->p;
}

#define FRICL_REAL double
#define FRICL_FN(name) fricl__frc_##name##_d
#define FRICL_SQRT sqrt
#define FRICL_FABS fabs
#define FRICL_LOG log
#define FRICL_FH_FN force_host_d
#include "force_pass_impl.h"

#define FRICL_REAL float
#define FRICL_FN(name) fricl__frc_##name##_f
#define FRICL_SQRT sqrtf
#define FRICL_FABS fabsf
#define FRICL_LOG logf
#define FRICL_FH_FN force_host_f
#include "force_pass_impl.h"

/* The key of the force's attachment on a plan. */
static const char force_blocks_key = 0;

typedef struct blocks_job {
  const fricl_tangential_plan *plan;
  const fricl_force_group *G;
  size_t *out; /* the group's first contact's 16 entries */
} blocks_job;

static void blocks_range(void *arg, size_t lo, size_t hi, unsigned worker) {
  (void)worker;
  const blocks_job *j = arg;
  const int k = fricl__stencil_vertex_count(j->G->type);
  for (size_t c = lo; c < hi; ++c) {
    const int32_t *vx = j->G->vertices + c * (size_t)k;
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        j->out[c * 16 + (size_t)(a * k + b)] =
            fricl__plan_block(j->plan, vx[a], vx[b]);
  }
}

/* The plan's block index of every contact pair, made on the first call
 * with this plan and kept on it (the topology is the plan's: validation
 * checked the checksum). NULL when no attachment slot is free or memory
 * is short: the pass then searches per chunk. */
static const size_t *plan_blocks(fricl_context *ctx, const fricl__force_work *w,
                                 int threaded) {
  fricl_tangential_plan *plan = (fricl_tangential_plan *)w->plan;
  fricl__plan_attachment *at =
      fricl__plan_attachment_for(plan, &force_blocks_key, 1);
  if (!at)
    return NULL;
  if (at->data)
    return at->data;
  size_t *all = w->total && w->total <= SIZE_MAX / 16 / sizeof(size_t)
                    ? malloc(w->total * 16 * sizeof *all)
                    : NULL;
  if (!all) {
    at->owner = NULL;
    return NULL;
  }
  size_t c0 = 0;
  for (size_t g = 0; g < w->b->n_groups; ++g) {
    blocks_job j = {plan, &w->b->groups[g], all + c0 * 16};
    if (threaded)
      fricl__pool_for(ctx->pool, j.G->count, fricl__grain(ctx, 1024), 1,
                      blocks_range, &j);
    else
      blocks_range(&j, 0, j.G->count, 0);
    c0 += j.G->count;
  }
  at->data = all;
  at->release = free;
  return all;
}

fricl_status fricl__force_host(fricl_context *ctx, const fricl__force_work *w,
                               int threaded, const fricl__force_source *src) {
  fricl__force_work wk = *w;
  wk.blocks =
      w->plan && w->b->jacobian_values ? plan_blocks(ctx, w, threaded) : NULL;
  return w->b->precision == FRICL_F64 ? force_host_d(ctx, &wk, threaded, src)
                                      : force_host_f(ctx, &wk, threaded, src);
}

typedef struct rows_job {
  const char *in[3];
  char *out[3];
  size_t n, dim, esz;
} rows_job;

static void rows_range(void *arg, size_t lo, size_t hi, unsigned worker) {
  (void)worker;
  const rows_job *j = arg;
  for (int a = 0; a < 3; ++a) {
    if (!j->in[a])
      continue;
    for (size_t i = lo; i < hi; ++i)
      for (size_t s = 0; s < j->dim; ++s)
        memcpy(j->out[a] + (i * j->dim + s) * j->esz,
               j->in[a] + (s * j->n + i) * j->esz, j->esz);
  }
}

fricl_status fricl__force_rows(fricl_context *ctx, const fricl_force_batch *b,
                               fricl_force_batch *out, void **scratch) {
  const size_t esz = b->precision == FRICL_F64 ? 8 : 4;
  const size_t each = b->n_vertices * (size_t)b->dim * esz;
  char *mem = fricl__malloc(each ? 3 * each : 1);
  if (!mem)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu vertex rows", b->n_vertices);
  rows_job j = {{b->rest_positions, b->lagged_displacements, b->velocities},
                {mem, mem + each, mem + 2 * each},
                b->n_vertices,
                (size_t)b->dim,
                esz};
  fricl__pool_for_dynamic(ctx->pool, b->n_vertices, fricl__grain(ctx, 65536),
                          fricl__grain(ctx, 16384), 1, rows_range, &j);
  *out = *b;
  out->rest_positions = b->rest_positions ? j.out[0] : NULL;
  out->lagged_displacements = j.out[1];
  out->velocities = j.out[2];
  out->vertex_layout = FRICL_VERTEX_ROWS;
  *scratch = mem;
  return FRICL_STATUS_OK;
}
