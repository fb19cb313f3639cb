/*
 * test_limits.c - sizes at and around chunk boundaries (with small chunks
 * forced, so a 100-element batch crosses many), and the chunk arithmetic
 * for counts and offsets past 2^32 elements, exercised on the planner
 * itself without allocating that much.
 */
#include "core/internal.h"
#include "test_util.h"

/* Chunked results equal unchunked ones for n around multiples of chunk. */
static void boundaries(const char *spec, const char *be) {
  static const size_t chunks[] = {1, 7, 64};
  double y[200], whole[200], part[200];
  for (int i = 0; i < 200; ++i)
    y[i] = 1e-3 * (i % 37) / 15.0;
  fricl_context *ref = test_context(spec, 0, 0);
  for (size_t c = 0; ref && c < 3; ++c) {
    fricl_context *ctx = test_context(spec, chunks[c], 0);
    if (!ctx)
      break;
    const size_t k = chunks[c];
    const size_t ns[] = {k - 1, k, k + 1, 2 * k, 2 * k + 1, 3 * k - 1};
    for (size_t j = 0; j < 6; ++j) {
      const size_t n = ns[j];
      if (n > 200)
        continue;
      fricl_scalar_batch b;
      fricl_scalar_batch_init(&b);
      b.n = n;
      b.y = y;
      b.eps_v = 1e-3;
      b.mu_s = 0.5;
      b.mu_k = 0.3;
      b.out[FRICL_SMOOTH_MU_F2] = whole;
      CHECK(fricl_scalar_eval(ref, &b) == FRICL_STATUS_OK, "whole");
      for (size_t i = 0; i < 200; ++i)
        part[i] = -1.0;
      b.out[FRICL_SMOOTH_MU_F2] = part;
      CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK, "chunked: %s",
            fricl_context_last_error(ctx));
      CHECK(memcmp(whole, part, n * sizeof(double)) == 0,
            "%s: chunk %zu, n = %zu: chunked result differs", be, k, n);
      CHECK(n == 200 || part[n] == -1.0, "%s: wrote past n = %zu", be, n);
    }
    fricl_context_destroy(ctx);
  }
  fricl_context_destroy(ref);
}

/* Walk the chunk plan for a count past 2^32: chunks tile [0, n) exactly. */
static void plan(size_t n, size_t chunk) {
  size_t covered = 0, count = 0, last = 0;
  for (size_t off = 0; off < n; off += chunk) {
    last = fricl__chunk_len(n, off, chunk);
    CHECK(last > 0 && last <= chunk, "chunk length %zu", last);
    CHECK(off == covered, "gap at %zu", off);
    covered += last;
    ++count;
  }
  CHECK(covered == n, "covered %zu of %zu", covered, n);
  CHECK(count == n / chunk + (n % chunk != 0), "%zu chunks", count);
  CHECK(last == (n % chunk ? n % chunk : chunk), "last chunk %zu", last);
}

static void large_counts(void) {
  if (sizeof(size_t) < 8) {
    printf("32-bit size_t: large-count plan skipped\n");
    return;
  }
  plan(((size_t)1 << 33) + 5, (size_t)1 << 31);
  plan(((size_t)1 << 34) + 1, ((size_t)1 << 31) - 1);
  plan(SIZE_MAX / 8, (size_t)1 << 40); /* the largest n the API accepts */
  /* The chunk size a context derives: max allocation / element size,
   * capped by the caller's max_chunk_elements. */
  struct fricl_context fake;
  memset(&fake, 0, sizeof fake);
  const uint64_t max_alloc = (uint64_t)1 << 40;
  CHECK(fricl__chunk_elements_for(&fake, max_alloc, 8) == (size_t)1 << 37,
        "2^40 / 8");
  CHECK(fricl__chunk_elements_for(&fake, max_alloc, 4) == (size_t)1 << 38,
        "2^40 / 4");
  fake.max_chunk_elements = ((size_t)1 << 32) + 3;
  CHECK(fricl__chunk_elements_for(&fake, max_alloc, 8) == ((size_t)1 << 32) + 3,
        "cap");
  fake.max_chunk_elements = 0;
  /* A maximum allocation smaller than one element. */
  CHECK(fricl__chunk_elements_for(&fake, 4, 8) == 1, "at least one element");
  /* n whose byte size overflows size_t is refused, not wrapped. */
  fricl_context *ctx = test_context("reference", 0, 0);
  if (ctx) {
    double y = 0, o = 0;
    fricl_scalar_batch b;
    fricl_scalar_batch_init(&b);
    b.n = SIZE_MAX / 4;
    b.y = &y;
    b.eps_v = 1.0;
    b.out[FRICL_SMOOTH_FRICTION_F1] = &o;
    CHECK(fricl_scalar_eval(ctx, &b) == FRICL_STATUS_INVALID_ARGUMENT &&
              strstr(fricl_context_last_error(ctx), "do not fit"),
          "huge n: %s", fricl_context_last_error(ctx));
    fricl_context_destroy(ctx);
  }
}

int main(void) {
  large_counts();
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i)
    boundaries(be[i].spec, be[i].label);
  return test_report("test_limits");
}
