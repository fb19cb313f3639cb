/*
 * validate.h - the validation kit every public entry point uses: range
 * rules for reals, fast scans of real arrays for the first bad value,
 * overlap checks between input and output regions, and the common batch
 * header checks. Each check records a message naming the argument (and
 * the first bad index) on the context and returns the status; the entry
 * point returns it before doing any work.
 */
#ifndef FRICL_CORE_VALIDATE_H
#define FRICL_CORE_VALIDATE_H

#include "core/abi.h" /* struct_size: fricl__struct_in */
#include "core/internal.h"

/* Range rule of a real argument. */
typedef enum fricl__rule {
  FRICL__RULE_NONE = 0,   /* anything */
  FRICL__RULE_FINITE = 1, /* finite */
  FRICL__RULE_GE0 = 2,    /* finite and >= 0 */
  FRICL__RULE_GT0 = 3,    /* finite and > 0 */
  FRICL__RULE_BOOL = 4    /* 0 or 1 */
} fricl__rule;

int fricl__rule_ok(fricl__rule r, double v);
/* "finite", "finite and >= 0", ... */
const char *fricl__rule_text(fricl__rule r);

/* The value as the kernels see it: rounded to float for f32. */
static inline double fricl__in_precision(fricl_precision p, double v) {
  return p == FRICL_F32 ? (double)(float)v : v;
}

/* Element i of a real array of precision p, as a double. */
static inline double fricl__real_at(fricl_precision p, const void *a,
                                    size_t i) {
  return p == FRICL_F32 ? (double)((const float *)a)[i]
                        : ((const double *)a)[i];
}

/* The index of the first of a[0..n) that breaks rule r (NaN breaks every
 * rule but NONE), or SIZE_MAX when all pass. Scans in blocks without early
 * exit (they vectorise) on the context's host threads, then rescans the
 * first failing block for the exact index. */
size_t fricl__first_bad(fricl_context *ctx, fricl_precision p, const void *a,
                        size_t n, fricl__rule r);

/* A per-contact array of group g (count x per values): every value finite,
 * and >= 0 when nonneg; the message names the group, the first bad contact
 * and the field. */
fricl_status fricl__check_group_reals(fricl_context *ctx, fricl_precision p,
                                      size_t g, const char *gname,
                                      const char *field, const void *a,
                                      size_t count, size_t per, int nonneg);

/* A per-vertex array of the batch (nv x per values; NULL: absent, OK):
 * every value finite, and >= 0 when nonneg; the message names the array
 * and the first bad vertex. */
fricl_status fricl__check_vertex_reals(fricl_context *ctx, fricl_precision p,
                                       const char *name, const void *a,
                                       size_t nv, size_t per, int nonneg);

/* Group g's pv plane normals (count x dim): finite and nonzero, the first
 * bad contact named. */
fricl_status fricl__check_plane_normals(fricl_context *ctx, fricl_precision p,
                                        size_t g, int dim, const void *n,
                                        size_t count);

/* A batch scalar in the working precision: message
 * "<prefix><name> = <v>[ (in float32)] is invalid: it must be <rule>". */
fricl_status fricl__check_real(fricl_context *ctx, fricl_precision p,
                               const char *prefix, const char *name, double v,
                               fricl__rule r);

/* One batch scalar of a list checked in order by fricl__check_reals. */
typedef struct fricl__real_arg {
  const char *name;
  double value;
  fricl__rule rule;
} fricl__real_arg;

/* fricl__check_real on args[0 .. n) in order: the first that fails. */
fricl_status fricl__check_reals(fricl_context *ctx, fricl_precision p,
                                const char *prefix, const fricl__real_arg *args,
                                size_t n);

/* FRICL_F64 or FRICL_F32, and f64 possible on this context. */
fricl_status fricl__check_precision(fricl_context *ctx, fricl_precision p);
fricl_status fricl__check_profile(fricl_context *ctx, fricl_mu_profile p);

/* 1 when [a, a + na) and [b, b + nb) share a byte. */
static inline int fricl__overlaps(const void *a, size_t na, const void *b,
                                  size_t nb) {
  const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  return a && b && na && nb && pa < pb + nb && pb < pa + na;
}

/* A memory region of a call: outputs may overlap nothing else. */
typedef struct fricl__region {
  const void *p;
  size_t bytes;
  const char *what;
  size_t group; /* SIZE_MAX: batch level */
  int is_out;
} fricl__region;

/* The first output region that overlaps another region: "output
 * [groups[g].]what overlaps input|output [groups[h].]what: outputs must
 * not alias inputs or each other". Sorted sweep: n log n. */
fricl_status fricl__check_overlaps(fricl_context *ctx, const fricl__region *r,
                                   size_t n);
/* The end of a validation that gathered its regions on the heap: st, or
 * when st is OK fricl__check_overlaps of r[0 .. n); r freed either way. */
fricl_status fricl__check_overlaps_free(fricl_context *ctx, fricl_status st,
                                        fricl__region *r, size_t n);

/* The group topology of one call, the one check of every family and tier:
 * n_groups within FRICL_MAX_GROUPS ("<field> = N: at most 64 groups per
 * call"), and group g's type and count: a stencil, one of 3-D only when
 * dim is 3, and the running *total of contacts within FRICL_MAX_CONTACTS
 * (added to *total when valid). */
fricl_status fricl__check_n_groups(fricl_context *ctx, const char *field,
                                   size_t n_groups);
fricl_status fricl__check_group(fricl_context *ctx, int dim, size_t g,
                                fricl_stencil type, size_t count,
                                size_t *total);

#define FRICL__TOO_BIG(n, per) ((per) != 0 && (n) > SIZE_MAX / (per))

#endif
