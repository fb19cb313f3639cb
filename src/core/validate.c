/* validate.c - the validation kit (see validate.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/fault.h"
#include "core/pool.h"
#include "core/validate.h"

int fricl__rule_ok(fricl__rule r, double v) {
  switch (r) {
  case FRICL__RULE_FINITE:
    return isfinite(v);
  case FRICL__RULE_GE0:
    return isfinite(v) && v >= 0.0;
  case FRICL__RULE_GT0:
    return isfinite(v) && v > 0.0;
  case FRICL__RULE_BOOL:
    return v == 0.0 || v == 1.0;
  default:
    return 1;
  }
}

const char *fricl__rule_text(fricl__rule r) {
  switch (r) {
  case FRICL__RULE_GE0:
    return "finite and >= 0";
  case FRICL__RULE_GT0:
    return "finite and > 0";
  case FRICL__RULE_BOOL:
    return "0 or 1";
  default:
    return "finite";
  }
}

/* ------------------------------------------------------ array scanning */

/* Values per block of the scan: the blocks' flags are computed without an
 * early exit (the loops vectorise, comparisons only, no reassociation);
 * the first flagged block is rescanned for the exact index. */
#define SCAN_BLOCK 4096

/* 1 when some value of x[0..n) may break the rule (exact for non-finite
 * values; -0 may trigger it, which the caller's exact rescan then clears). It
 * ORs the bits of x * 0 (+-0 for finite x, NaN otherwise) and of x (for the
 * sign): integer ORs and one multiply, which compilers vectorise without any
 * floating-point reassociation, so that validation costs little next to the
 * evaluation it guards. */
#define SCAN_FN(name, real, uint, zero, exp_mask, sign_shift)                  \
  static int name(const real *x, size_t n, fricl__rule r) {                    \
    uint nan_bits = 0, sign_bits = 0;                                          \
    for (size_t i = 0; i < n; ++i) {                                           \
      const real z = x[i] * zero;                                              \
      uint uz, ux;                                                             \
      memcpy(&uz, &z, sizeof uz);                                              \
      memcpy(&ux, &x[i], sizeof ux);                                           \
      nan_bits |= uz;                                                          \
      sign_bits |= ux;                                                         \
    }                                                                          \
    const uint exp = exp_mask;                                                 \
    int bad = (nan_bits & exp) == exp;                                         \
    if (r == FRICL__RULE_GE0 || r == FRICL__RULE_GT0)                          \
      bad |= (int)(sign_bits >> sign_shift);                                   \
    if (r == FRICL__RULE_GT0 || r == FRICL__RULE_BOOL)                         \
      for (size_t i = 0; i < n; ++i)                                           \
        bad |= r == FRICL__RULE_GT0 ? x[i] == 0 : (x[i] != 0) & (x[i] != 1);   \
    return bad;                                                                \
  }
SCAN_FN(scan_d, double, uint64_t, 0.0, 0x7FF0000000000000ull, 63)
SCAN_FN(scan_f, float, uint32_t, 0.0f, 0x7F800000u, 31)
#undef SCAN_FN

typedef struct {
  fricl_precision p;
  const void *a;
  size_t n;
  fricl__rule r;
  size_t first_block[256]; /* per worker: first bad block, SIZE_MAX none */
} scan_job;

static void scan_range(void *arg, size_t lo, size_t hi, unsigned worker) {
  scan_job *j = arg;
  size_t found = SIZE_MAX;
  for (size_t b = lo; b < hi && found == SIZE_MAX; ++b) {
    const size_t i0 = b * SCAN_BLOCK;
    const size_t m = j->n - i0 < SCAN_BLOCK ? j->n - i0 : SCAN_BLOCK;
    const int bad = j->p == FRICL_F32
                        ? scan_f((const float *)j->a + i0, m, j->r)
                        : scan_d((const double *)j->a + i0, m, j->r);
    if (bad)
      found = b;
  }
  j->first_block[worker] = found;
}

size_t fricl__first_bad(fricl_context *ctx, fricl_precision p, const void *a,
                        size_t n, fricl__rule r) {
  if (!n || r == FRICL__RULE_NONE)
    return SIZE_MAX;
  if (n <= SCAN_BLOCK) {
    /* One block: scanned here, without the per-worker bookkeeping (a
     * small call validates several arrays; this was ~10 % of a
     * 100-contact barrier evaluation). */
    const int bad = p == FRICL_F32 ? scan_f((const float *)a, n, r)
                                   : scan_d((const double *)a, n, r);
    for (size_t i = 0; bad && i < n; ++i)
      if (!fricl__rule_ok(r, fricl__real_at(p, a, i)))
        return i;
    return SIZE_MAX;
  }
  scan_job j;
  j.p = p;
  j.a = a;
  j.n = n;
  j.r = r;
  /* Worker indices are below the pool's thread count. */
  unsigned nw = fricl__pool_threads(ctx->pool);
  nw = nw < 256 ? nw : 256;
  for (unsigned i = 0; i < nw; ++i)
    j.first_block[i] = SIZE_MAX;
  const size_t blocks = (n + SCAN_BLOCK - 1) / SCAN_BLOCK;
  /* Pieces are contiguous and in worker order, so the first flagged block
   * of the lowest worker is the first flagged block. */
  fricl__pool_for(ctx->pool, blocks, fricl__grain(ctx, 16), 1, scan_range, &j);
  for (unsigned w = 0; w < nw; ++w) {
    if (j.first_block[w] == SIZE_MAX)
      continue;
    const size_t i0 = j.first_block[w] * SCAN_BLOCK;
    for (size_t i = i0; i < n; ++i)
      if (!fricl__rule_ok(r, fricl__real_at(p, a, i)))
        return i;
  }
  return SIZE_MAX;
}

/* The rule of a per-contact or per-vertex array: finite, or >= 0. */
static fricl__rule array_rule(int nonneg) {
  return nonneg ? FRICL__RULE_GE0 : FRICL__RULE_FINITE;
}

fricl_status fricl__check_group_reals(fricl_context *ctx, fricl_precision p,
                                      size_t g, const char *gname,
                                      const char *field, const void *a,
                                      size_t count, size_t per, int nonneg) {
  const fricl__rule rule = array_rule(nonneg);
  const size_t i = fricl__first_bad(ctx, p, a, count * per, rule);
  return i == SIZE_MAX
             ? FRICL_STATUS_OK
             : fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                           "groups[%zu] (%s) contact %zu: %s = %g is invalid: "
                           "it must be %s (first bad contact)",
                           g, gname, i / per, field, fricl__real_at(p, a, i),
                           fricl__rule_text(rule));
}

fricl_status fricl__check_vertex_reals(fricl_context *ctx, fricl_precision p,
                                       const char *name, const void *a,
                                       size_t nv, size_t per, int nonneg) {
  const fricl__rule rule = array_rule(nonneg);
  const size_t i = a ? fricl__first_bad(ctx, p, a, nv * per, rule) : SIZE_MAX;
  if (i == SIZE_MAX)
    return FRICL_STATUS_OK;
  const double x = fricl__real_at(p, a, i);
  if (per > 1)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.%s[%zu][%zu] (vertex %zu) = %g is invalid: it "
                       "must be %s (first bad vertex)",
                       name, i / per, i % per, i / per, x,
                       fricl__rule_text(rule));
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.%s[%zu] = %g is invalid: it must be %s (first bad "
                     "vertex)",
                     name, i, x, fricl__rule_text(rule));
}

/* --------------------------------------------------------------- scalars */

fricl_status fricl__check_real(fricl_context *ctx, fricl_precision p,
                               const char *prefix, const char *name, double v,
                               fricl__rule r) {
  const double w = fricl__in_precision(p, v);
  if (fricl__rule_ok(r, w))
    return FRICL_STATUS_OK;
  /* A value that only fails once rounded to float says so; NaN is NaN in
   * every precision. */
  const int rounded = w != v && !isnan(v);
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "%s%s = %g%s is invalid: it must be %s", prefix, name, v,
                     rounded ? " (in float32)" : "", fricl__rule_text(r));
}

fricl_status fricl__check_reals(fricl_context *ctx, fricl_precision p,
                                const char *prefix, const fricl__real_arg *args,
                                size_t n) {
  for (size_t i = 0; i < n; ++i)
    FRICL__TRY(fricl__check_real(ctx, p, prefix, args[i].name, args[i].value,
                                 args[i].rule));
  return FRICL_STATUS_OK;
}

fricl_status fricl__check_precision(fricl_context *ctx, fricl_precision p) {
  if (p != FRICL_F64 && p != FRICL_F32)
    return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                       "batch.precision %d is not FRICL_F64 or FRICL_F32",
                       (int)p);
  return fricl__check_precision_supported(ctx, p);
}

fricl_status fricl__check_profile(fricl_context *ctx, fricl_mu_profile p) {
  if (p == FRICL_MU_CUBIC || p == FRICL_MU_IPCTK)
    return FRICL_STATUS_OK;
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "batch.mu_profile %d is not cubic (0) or ipctk (1)",
                     (int)p);
}

/* -------------------------------------------------------------- overlaps */

typedef struct {
  uintptr_t lo, hi;
  size_t index;
} span;

static int span_cmp(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

static fricl_status overlap_fail(fricl_context *ctx, const fricl__region *o,
                                 const fricl__region *other) {
  char go[48] = "", gt[48] = "";
  if (o->group != SIZE_MAX)
    snprintf(go, sizeof go, "groups[%zu].", o->group);
  if (other->group != SIZE_MAX)
    snprintf(gt, sizeof gt, "groups[%zu].", other->group);
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                     "output %s%s overlaps %s %s%s: outputs must not alias "
                     "inputs or each other",
                     go, o->what, other->is_out ? "output" : "input", gt,
                     other->what);
}

fricl_status fricl__check_overlaps_free(fricl_context *ctx, fricl_status st,
                                        fricl__region *r, size_t n) {
  if (st == FRICL_STATUS_OK)
    st = fricl__check_overlaps(ctx, r, n);
  free(r);
  return st;
}

fricl_status fricl__check_overlaps(fricl_context *ctx, const fricl__region *r,
                                   size_t n) {
  span small[64];
  span *s = n <= 64 ? small : fricl__malloc(n * sizeof *s);
  if (!s)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "validating");
  size_t m = 0;
  int any_out = 0;
  for (size_t i = 0; i < n; ++i)
    if (r[i].p && r[i].bytes) {
      s[m++] = (span){(uintptr_t)r[i].p, (uintptr_t)r[i].p + r[i].bytes, i};
      any_out |= r[i].is_out;
    }
  if (!any_out) {
    if (s != small)
      free(s);
    return FRICL_STATUS_OK;
  }
  /* A call's regions are a few dozen: an insertion sort costs less than
   * qsort's setup (glibc's merge sort allocates); the order is span_cmp's
   * either way (the keys are distinct: index breaks ties). */
  if (m <= 64) {
    for (size_t i = 1; i < m; ++i) {
      const span key = s[i];
      size_t k = i;
      while (k > 0 && span_cmp(&s[k - 1], &key) > 0) {
        s[k] = s[k - 1];
        --k;
      }
      s[k] = key;
    }
  } else {
    qsort(s, m, sizeof *s, span_cmp);
  }
  /* Sweep in order of start: the region seen so far that reaches furthest,
   * among outputs and among all; inputs may overlap inputs. */
  size_t far_out = SIZE_MAX, far_any = SIZE_MAX;
  uintptr_t end_out = 0, end_any = 0;
  fricl_status st = FRICL_STATUS_OK;
  for (size_t k = 0; k < m && st == FRICL_STATUS_OK; ++k) {
    const fricl__region *cur = &r[s[k].index];
    if (cur->is_out && far_any != SIZE_MAX && s[k].lo < end_any)
      st = overlap_fail(ctx, cur, &r[far_any]);
    else if (!cur->is_out && far_out != SIZE_MAX && s[k].lo < end_out)
      st = overlap_fail(ctx, &r[far_out], cur);
    if (cur->is_out && s[k].hi > end_out) {
      end_out = s[k].hi;
      far_out = s[k].index;
    }
    if (s[k].hi > end_any) {
      end_any = s[k].hi;
      far_any = s[k].index;
    }
  }
  if (s != small)
    free(s);
  return st;
}

fricl_status fricl__check_n_groups(fricl_context *ctx, const char *field,
                                   size_t n_groups) {
  FRICL__FAIL_IF(n_groups > FRICL_MAX_GROUPS, ctx,
                 FRICL_STATUS_INVALID_ARGUMENT,
                 "%s = %zu: at most %d groups per call", field, n_groups,
                 FRICL_MAX_GROUPS);
  return FRICL_STATUS_OK;
}

fricl_status fricl__check_group(fricl_context *ctx, int dim, size_t g,
                                fricl_stencil type, size_t count,
                                size_t *total) {
  const char *name = fricl_stencil_name(type);
  FRICL__FAIL_IF(!name, ctx, FRICL_STATUS_INVALID_ARGUMENT,
                 "groups[%zu].type = %d is not a stencil type", g, (int)type);
  FRICL__FAIL_IF(dim == 2 && fricl__stencil_only_3d(type), ctx,
                 FRICL_STATUS_INVALID_ARGUMENT,
                 "groups[%zu] (%s) exists only in 3-D, dim is 2", g, name);
  /* Compared as uint64_t: the limit is above a 32-bit size_t. */
  FRICL__FAIL_IF((uint64_t)count > FRICL_MAX_CONTACTS - (uint64_t)*total, ctx,
                 FRICL_STATUS_INVALID_ARGUMENT,
                 "groups[%zu] (%s): count = %zu is too large: at most "
                 "%llu contacts per call (FRICL_MAX_CONTACTS)",
                 g, name, count, (unsigned long long)FRICL_MAX_CONTACTS);
  *total += count;
  return FRICL_STATUS_OK;
}

fricl_status fricl__check_plane_normals(fricl_context *ctx, fricl_precision p,
                                        size_t g, int dim, const void *n,
                                        size_t count) {
  FRICL__TRY(fricl__check_group_reals(ctx, p, g, "pv", "plane_normal", n, count,
                                      (size_t)dim, 0));
  for (size_t c = 0; c < count; ++c) {
    double s = 0;
    for (int r = 0; r < dim; ++r) {
      const double v = fricl__real_at(p, n, c * (size_t)dim + (size_t)r);
      s += v * v;
    }
    if (s == 0)
      return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT,
                         "groups[%zu] (pv) contact %zu: plane_normal is zero "
                         "(first bad contact)",
                         g, c);
  }
  return FRICL_STATUS_OK;
}
