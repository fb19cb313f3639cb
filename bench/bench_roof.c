/* bench_roof.c - see bench_roof.h. */
#include "bench_roof.h"

#include <stdio.h>
#include <string.h>

#include "bench_data.h"
#include "core/internal.h"
#include "core/pool.h"

/* Host pieces below this many bytes are not split (as the host backend
 * keeps small loops on the calling thread); boundaries on cache lines. */
#define ROOF_GRAIN_BYTES ((size_t)1 << 16)
#define ROOF_ALIGN_BYTES ((size_t)64)

static size_t esz_of(fricl_precision p) { return p == FRICL_F32 ? 4 : 8; }

typedef struct {
  const char *src;
  char *dst;
  size_t esz;
} piece_arg;

static void copy_piece(void *arg, size_t lo, size_t hi, unsigned worker) {
  const piece_arg *a = arg;
  (void)worker;
  memcpy(a->dst + lo * a->esz, a->src + lo * a->esz, (hi - lo) * a->esz);
}

static int run_host_copy(void *arg, int count) {
  bench_roof *r = arg;
  const size_t esz = esz_of(r->prec);
  piece_arg a = {r->src, r->dst, esz};
  for (int i = 0; i < count; ++i)
    fricl__pool_for(r->ctx->pool, r->n, ROOF_GRAIN_BYTES / esz,
                    ROOF_ALIGN_BYTES / esz, copy_piece, &a);
  return 0;
}

int bench_roof_open(bench_roof *r, fricl_context *ctx, fricl_backend backend,
                    fricl_precision p, size_t n) {
  memset(r, 0, sizeof *r);
  r->backend = backend;
  r->prec = p;
  r->n = n ? n : 1;
  r->ctx = ctx;
  if (backend == FRICL_BACKEND_OPENCL)
    return bench_ocl_copy_open(ctx, p, r->n, &r->cl);
  r->threads = fricl__pool_threads(ctx->pool);
  const size_t bytes = r->n * esz_of(p);
  r->src = bench_alloc(bytes);
  r->dst = bench_alloc(bytes);
  if (!r->src || !r->dst) {
    fprintf(stderr, "fricl bench: out of memory for the copy roofline\n");
    bench_roof_close(r);
    return 1;
  }
  /* Touch the source here; the warm-up run touches the destination. */
  memset(r->src, 0, bytes);
  return 0;
}

void bench_roof_close(bench_roof *r) {
  bench_ocl_copy_close(r->cl);
  bench_free(r->src);
  bench_free(r->dst);
  r->cl = NULL;
  r->src = r->dst = NULL;
}

bench_job bench_roof_job(bench_roof *r) {
  bench_job j;
  memset(&j, 0, sizeof j);
  if (r->cl) {
    j.fn = bench_ocl_copy_run;
    j.arg = r->cl;
  } else {
    j.fn = run_host_copy;
    j.arg = r;
  }
  return j;
}

double bench_roof_gbs(const bench_roof *r, double seconds) {
  return 2.0 * (double)r->n * (double)esz_of(r->prec) / seconds * 1e-9;
}

const char *bench_roof_label(const bench_roof *r, char *buf, size_t size) {
  if (r->backend == FRICL_BACKEND_OPENCL)
    return "copy kernel";
  snprintf(buf, size, "host copy, %u thread%s", r->threads,
           r->threads == 1 ? "" : "s");
  return buf;
}

bench_roof *bench_roofs_get(bench_roofs *rs, fricl_context *ctx,
                            fricl_backend backend, fricl_precision p,
                            size_t n) {
  const int b = (int)backend;
  if (b < 0 || b > 2)
    return NULL;
  if (!rs->open[b]) {
    if (bench_roof_open(&rs->roof[b], ctx, backend, p, n))
      return NULL;
    rs->open[b] = 1;
  }
  return &rs->roof[b];
}

void bench_roofs_close(bench_roofs *rs) {
  for (int b = 0; b < 3; ++b)
    if (rs->open[b])
      bench_roof_close(&rs->roof[b]);
  memset(rs, 0, sizeof *rs);
}
