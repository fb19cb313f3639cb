/* host.c - the host backend: the reference backend's math over the
 * context's host threads, with the loops that vectorise compiled again for
 * AVX2 and AVX-512 and picked at run time (host_isa.h), and the tangential
 * potential specialised per stencil (tangential_host.c). Every feature is
 * element- or contact-wise, or assembled in the reference's fixed order,
 * so the results are bitwise equal to the reference backend's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/pool.h"
#include "host/host_backend.h"
#include "host/host_isa.h"

fricl__isa fricl__host_isa(void) {
#if defined(FRICL_HOST_SIMD) && defined(__x86_64__) &&                         \
    (defined(__GNUC__) || defined(__clang__))
  fricl__isa cap = FRICL__ISA_AVX512;
  const char *pin = getenv("FRICL_HOST_ISA");
  if (pin && strcmp(pin, "baseline") == 0)
    cap = FRICL__ISA_BASELINE;
  else if (pin && strcmp(pin, "avx2") == 0)
    cap = FRICL__ISA_AVX2;
  __builtin_cpu_init();
  if (cap >= FRICL__ISA_AVX512 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return FRICL__ISA_AVX512;
  if (cap >= FRICL__ISA_AVX2 && __builtin_cpu_supports("avx2"))
    return FRICL__ISA_AVX2;
#endif
  return FRICL__ISA_BASELINE;
}

/* The variants of the vectorisable loops, per instruction set. */
typedef void (*scalar_fn)(const fricl_scalar_batch *, unsigned, size_t, size_t);
typedef void (*laws_fn)(const fricl__law_plan *, const fricl_law_batch *,
                        size_t, size_t);
#ifdef FRICL_HOST_SIMD
static const scalar_fn scalar_variants[3] = {
    fricl__scalar_range, fricl__scalar_range_avx2, fricl__scalar_range_avx512};
static const laws_fn laws_variants[3] = {
    fricl__laws_range, fricl__laws_range_avx2, fricl__laws_range_avx512};
#else
static const scalar_fn scalar_variants[3] = {
    fricl__scalar_range, fricl__scalar_range, fricl__scalar_range};
static const laws_fn laws_variants[3] = {fricl__laws_range, fricl__laws_range,
                                         fricl__laws_range};
#endif
static const char *const isa_names[3] = {"", ", AVX2", ", AVX-512"};

fricl_status fricl__host_scratch(fricl__host *h, int slot, size_t bytes,
                                 void **out) {
  if (h->scratch_bytes[slot] >= bytes && h->scratch[slot]) {
    *out = h->scratch[slot];
    return FRICL_STATUS_OK;
  }
  free(h->scratch[slot]);
  h->scratch[slot] = fricl__malloc(bytes ? bytes : 1);
  h->scratch_bytes[slot] = h->scratch[slot] ? bytes : 0;
  if (!h->scratch[slot])
    return fricl__fail(h->base.ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu bytes of host scratch", bytes);
  *out = h->scratch[slot];
  return FRICL_STATUS_OK;
}

/* ----------------------------------------------------------- scalar */

typedef struct {
  const fricl__scalar_work *w;
  scalar_fn fn;
} scalar_job;

static void scalar_piece(void *arg, size_t lo, size_t hi, unsigned worker) {
  (void)worker;
  const scalar_job *j = arg;
  j->fn(j->w->b, j->w->mask, lo, hi);
}

static fricl_status host_scalar(fricl__backend *be,
                                const fricl__scalar_work *w) {
  scalar_job j = {w, scalar_variants[((fricl__host *)be)->isa]};
  /* 256: the loops' block; below 8192 elements one thread is faster. */
  fricl__pool_for(be->ctx->pool, w->b->n, fricl__grain(be->ctx, 8192), 256,
                  scalar_piece, &j);
  return FRICL_STATUS_OK;
}

/* ------------------------------------------------------------- laws */

typedef struct {
  const fricl__laws_work *w;
  laws_fn fn;
} laws_job;

static void laws_piece(void *arg, size_t lo, size_t hi, unsigned worker) {
  (void)worker;
  const laws_job *j = arg;
  j->fn(j->w->pl, j->w->b, lo, hi);
}

static fricl_status host_laws(fricl__backend *be, const fricl__laws_work *w) {
  laws_job j = {w, laws_variants[((fricl__host *)be)->isa]};
  /* Work per element grows with the steps (and GMS elements). */
  const size_t per = w->pl->n_steps * w->pl->m;
  size_t grain = 8192 / (per ? per : 1);
  fricl__pool_for(be->ctx->pool, w->pl->n,
                  fricl__grain(be->ctx, grain ? grain : 1), 1, laws_piece, &j);
  return FRICL_STATUS_OK;
}

/* ------------------------------------------------------------ build */

typedef struct {
  const fricl__build_work *w;
  size_t base[FRICL_MAX_GROUPS + 1];
} build_job;

/* Global contacts [lo, hi), across groups. */
static void build_piece(void *arg, size_t lo, size_t hi, unsigned worker) {
  (void)worker;
  const build_job *j = arg;
  const fricl_build_batch *b = j->w->b;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const size_t g0 = j->base[g], g1 = g0 + b->groups[g].count;
    const size_t a = lo > g0 ? lo : g0, z = hi < g1 ? hi : g1;
    if (a < z)
      fricl__build_range_host(b, j->w->status, g, a - g0, z - g0);
  }
}

static fricl_status host_build(fricl__backend *be, const fricl__build_work *w) {
  const fricl_build_batch *b = w->b;
  if (b->n_groups > FRICL_MAX_GROUPS) {
    /* More groups than the job's table: group after group. */
    for (size_t g = 0; g < b->n_groups; ++g) {
      build_job j;
      memset(&j, 0, sizeof j);
      fricl_build_batch one = *b;
      one.groups = &b->groups[g];
      one.n_groups = 1;
      fricl__build_work w1 = {&one, &w->status[g], b->groups[g].count};
      j.w = &w1;
      fricl__pool_for(be->ctx->pool, w1.total, fricl__grain(be->ctx, 512), 1,
                      build_piece, &j);
    }
    return FRICL_STATUS_OK;
  }
  build_job j;
  memset(&j, 0, sizeof j);
  j.w = w;
  for (size_t g = 0; g < b->n_groups; ++g)
    j.base[g + 1] = j.base[g] + b->groups[g].count;
  fricl__pool_for(be->ctx->pool, w->total, fricl__grain(be->ctx, 512), 1,
                  build_piece, &j);
  return FRICL_STATUS_OK;
}

/* ------------------------------------------------------------ table */

/* ---------------------------------------------------------- barrier */

/* The per-contact records on the context's threads; the sums in contact
 * order on the calling thread, as the reference's. */
static fricl_status host_barrier(fricl__backend *be,
                                 const fricl__barrier_work *w) {
  return fricl__barrier_host(be->ctx, w, 1, NULL);
}

static void host_destroy(fricl__backend *be) {
  fricl__host *h = (fricl__host *)be;
  for (int i = 0; i < FRICL__HOST_SCRATCH; ++i)
    free(h->scratch[i]);
  for (int t = 0; t < 64; ++t)
    for (int k = 0; k < 3; ++k)
      free(h->queue[t][k]);
  free(h);
}

static const fricl__backend_ops host_ops = {.name = "host",
                                            .kind = FRICL_BACKEND_HOST,
                                            .scalar = host_scalar,
                                            .tangential =
                                                fricl__host_tangential,
                                            .build = host_build,
                                            .laws = host_laws,
                                            .barrier = host_barrier,
                                            .destroy = host_destroy};

static fricl_status host_create(fricl_context *ctx, const char *spec,
                                int *found, fricl__backend **out) {
  (void)spec; /* "host", or the host side of "auto" */
  fricl__host *h = fricl__calloc(1, sizeof *h);
  if (!h)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  h->base.ops = &host_ops;
  h->base.ctx = ctx;
  h->base.has_fp64 = 1;
  h->isa = fricl__host_isa();
  snprintf(ctx->device_name, sizeof ctx->device_name, "host (%u thread%s%s)",
           ctx->threads, ctx->threads == 1 ? "" : "s", isa_names[h->isa]);
  *found = 1;
  *out = &h->base;
  return FRICL_STATUS_OK;
}

static int host_accepts(const char *spec) { return strcmp(spec, "host") == 0; }

const fricl__backend_entry fricl__host_backend = {.name = "host",
                                                  .mode = FRICL__MODE_HOST,
                                                  .accepts = host_accepts,
                                                  .create = host_create};
