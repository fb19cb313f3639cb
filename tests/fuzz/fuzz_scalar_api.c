/*
 * fuzz_scalar_api.c - libFuzzer target for fricl_scalar_eval on the
 * reference backend (one context, device "reference", created once).
 *
 * The input bytes become one fricl_scalar_batch: precision, mu profile, the
 * requested terms (as a `terms` mask, or in the out[t]-non-NULL form with
 * terms = 0), n (0..4095), eps_v / mu_s / mu_k as batch scalars or as
 * per-element arrays, and the y values. Values come from a small tagged
 * encoding (see read_value) that reaches NaN, +-inf, +-0, subnormals, huge
 * and negative numbers, raw bit patterns, and points next to the branch
 * boundaries |y| = e and |y| = e/2. Optional "mischief" bytes then break the
 * batch: NULL y or outputs, overlapping outputs, outputs over inputs, stray
 * non-requested outputs, bad precision/profile/terms/struct_size, n whose
 * byte size overflows, n = 0 with NULL pointers.
 *
 * All arrays live in one arena (so overlaps are real). Invariants, each an
 * abort() so that libFuzzer reports it (see check_* below):
 *  1. The status is OK or INVALID_ARGUMENT, and it is INVALID_ARGUMENT
 *     exactly when the documented rules (fricl.h, README "Validation")
 *     reject the batch; the rules are re-derived here independently.
 *  2. On INVALID_ARGUMENT fricl_context_last_error is non-empty and not one
 *     byte of the arena changed (a rejected call writes nothing).
 *  3. The batch struct is never modified; on OK only the n elements of each
 *     requested output changed (inputs, non-requested outputs and every
 *     other byte are untouched), and every requested element was written.
 *  4. Values, where the spec pins them (ipc-friction.md 2.3, 3.6): NaN y
 *     gives NaN everywhere except smooth_mu / smooth_mu_derivative when
 *     mu_s == mu_k (mu_k and 0); y = +-inf and y = +-0 give the tabulated
 *     values (zero signs checked where the tables state them).
 *  5. Finiteness: for finite y with every parameter valid, each output is
 *     finite unless its exact value may exceed the format; see
 *     finite_expected() for the bounds.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fricl/fricl.h"

/* The smallest struct_size fricl accepts for a scalar batch: the end of
 * eps_v (fricl.h, "ABI"); an older layout may stop anywhere after it. */
#define SCALAR_MIN (offsetof(fricl_scalar_batch, eps_v) + sizeof(double))

/* The batch in its caller's memory: a newer caller's struct_size covers a
 * tail past sizeof, zero here (fields this library does not know, left
 * unset), which fricl reads and accepts. */
static unsigned char *as_caller(const fricl_scalar_batch *b) {
  const size_t n = b->struct_size > sizeof *b ? b->struct_size : sizeof *b;
  unsigned char *m = calloc(1, n);
  if (m)
    memcpy(m, b, sizeof *b);
  return m;
}

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_scalar_api: invariant violated at %s:%d: %s\n",    \
              __FILE__, __LINE__, #cond);                                      \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#define NMAX 4096
#define SLOTS 17 /* y, eps, mu_s, mu_k, 12 outputs, 1 spare */
#define SLOT_Y 0
#define SLOT_EPS 1
#define SLOT_MUS 2
#define SLOT_MUK 3
#define SLOT_OUT 4
#define MU_TERMS 0xFE0u

static fricl_context *g_ctx;

/* ------------------------------------------------------------ input bytes */

typedef struct reader {
  const uint8_t *p;
  size_t left;
} reader;

static unsigned rd_u8(reader *r) {
  if (!r->left)
    return 0;
  r->left--;
  return *r->p++;
}
static unsigned rd_u16(reader *r) { return rd_u8(r) | rd_u8(r) << 8; }
static uint32_t rd_u32(reader *r) {
  return (uint32_t)rd_u16(r) | (uint32_t)rd_u16(r) << 16;
}
static uint64_t rd_u64(reader *r) {
  return (uint64_t)rd_u32(r) | (uint64_t)rd_u32(r) << 32;
}

static const double specials[] = {
    0.0,     -0.0,     1.0,         -1.0,    NAN,
    -NAN,    INFINITY, -INFINITY,   DBL_MIN, 4.9406564584124654e-324,
    DBL_MAX, -DBL_MAX, 1e-3,        0.5,     0.3,
    1e-8,    1e300,    1e-300,      FLT_MAX, FLT_MIN,
    2.0,     0.1,      1.4e-45,     1e38,    1e-38,
    5e-4,    -5e-4,    1e-3 * 0.75, -2e-3,   1e36,
    1e-36,   3.0e38,   0.25,        -0.25,   1e-20,
    -1e-3};
#define NSPECIALS (sizeof specials / sizeof specials[0])

/* A number in the working precision's terms (f32 values are returned as
 * doubles that are floats, except raw scalars, see below). `eref` is a
 * valid eps_v in the working precision, for values relative to it. */
static double read_value(reader *r, int f32, double eref) {
  const unsigned tag = rd_u8(r);
  switch (tag & 7) {
  case 0:
  case 1: /* tag bit 0 selects the upper half of the table */
    return specials[((tag >> 3) + (tag & 1) * 32) % NSPECIALS];
  case 2: /* raw bits */
    if (f32) {
      const uint32_t u = rd_u32(r);
      float f;
      memcpy(&f, &u, sizeof f);
      return f;
    } else {
      const uint64_t u = rd_u64(r);
      double d;
      memcpy(&d, &u, sizeof d);
      return d;
    }
  case 3: /* a multiple of eps_v in [-8, 8) */
    return eref * ((int16_t)rd_u16(r) / 4096.0);
  case 4: /* small mantissa, moderate exponent */
    return ldexp((int16_t)rd_u16(r), (int8_t)rd_u8(r));
  case 5: { /* wide exponent, including overflow to inf and underflow */
    const double m = (int32_t)rd_u32(r) / 2147483648.0;
    return ldexp(m, (int)(rd_u16(r) % 2300) - 1150);
  }
  case 6: { /* next to a branch point: +-e or +-e/2, a few ULPs away */
    const int k = (int8_t)rd_u8(r) % 9;
    const int sign = (tag & 16) ? -1 : 1;
    if (f32) {
      float v = (tag & 8) ? (float)eref : 0.5f * (float)eref;
      for (int i = 0; i < abs(k); ++i)
        v = nextafterf(v, k > 0 ? INFINITY : 0.0f);
      return sign * v;
    }
    double v = (tag & 8) ? eref : 0.5 * eref;
    for (int i = 0; i < abs(k); ++i)
      v = nextafter(v, k > 0 ? INFINITY : 0.0);
    return sign * v;
  }
  default: { /* subnormal */
    const double tiny = f32 ? (double)1.40129846e-45f : 4.9406564584124654e-324;
    return ((tag & 8) ? -1.0 : 1.0) * tiny * (rd_u16(r) % 64 + 1);
  }
  }
}

/* ------------------------------------------------------------- the rules */

static double in_precision(int f32, double v) {
  return f32 ? (double)(float)v : v;
}

static int param_ok(int is_eps, double v) {
  return isfinite(v) && (is_eps ? v > 0.0 : v >= 0.0);
}

static int ranges_overlap(const void *a, const void *b, size_t bytes) {
  const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  return pa < pb + bytes && pb < pa + bytes;
}

/* ------------------------------------------------------- value checking */

/* Same value, NaN matching NaN, zero signs compared. */
static int same(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

/* The base domain of the finiteness and special-value checks: E in
 * [1e-300, 1e300] (f64) or [1e-36, 1e36] (f32) and K * max(mu_s, mu_k) at
 * most the largest finite value, K = 1e4 (see finite_expected). */
static int params_in_domain(int f32, double e, double ms, double mk) {
  const double big = f32 ? 1e36 : 1e300, small = f32 ? 1e-36 : 1e-300;
  const double fmax = f32 ? FLT_MAX : DBL_MAX;
  return e >= small && e <= big && ms * 1e4 <= fmax && mk * 1e4 <= fmax;
}

/*
 * May term t at finite, nonzero y be required to be finite?
 *
 * Only where every parameter and y is far from the format's limits, and
 * the exact value and every factor the spec's formulas multiply or divide
 * by (mu, 1/e, 1/y, 1/e^2 |y|, ...) are at least K = 1e4 below the largest
 * finite value. With s = |y|, E = eps_v, M = max(mu_s, mu_k, 1) (1 so that
 * each factor alone must fit, as mu_k * f2x is evaluated as a product), the
 * magnitude bounds used (each covers both branches, from spec 2.1, 3.3,
 * 3.4; inside |y| < E):
 *   f0 <= 2 max(s, E)         f1 <= 3          f2 <= 4/E      f1/x <= 3/E
 *   f2x = 1/(E^2 s) inside and 1/s^3 <= 1/(E^2 s) outside
 *   mu <= 5M   mu' <= 6M/E   mu_f0 <= 10 M max(s, E)   mu_f1 <= 20M
 *   mu_f2, mu_f1/x <= 100 M/E   mu_f2x <= 100 M/(E^2 s)
 * (mu_f2x: numerator < 50M over r e^3 = y e^2.) The bounds are taken with
 * max(1, .) so that the intermediate results (all monotone toward the final
 * value, or bounded by M or 1) also fit.
 * In addition, for the two x3 functions |y| >= E * 1e-3: below that the
 * mu form divides the numerator by r e with r = y/e, and r underflows to 0
 * for |y|/E below the smallest subnormal; a relative floor of 1e-3 keeps r
 * a normal number. The base domain, as a sanity cap: |y| <= 1e300 and E in
 * [1e-300, 1e300] for f64, |y| <= 1e36 and E in [1e-36, 1e36] for f32.
 */
static int finite_expected(int t, int f32, double y, double e, double ms,
                           double mk) {
  const long double big = f32 ? 1e36L : 1e300L;
  const long double small = f32 ? 1e-36L : 1e-300L;
  const long double fmax = f32 ? (long double)FLT_MAX : (long double)DBL_MAX;
  const long double K = 1e4L;
  const long double s = fabsl((long double)y), E = e;
  if (s > big || E < small || E > big)
    return 0;
  long double M = ms > mk ? ms : mk;
  if (M < 1)
    M = 1;
  const long double sE = s > E ? s : E;
  const long double invE = 1 / E > 1 ? 1 / E : 1;
  long double x3 = 1 / (E * E * s);
  if (x3 < 1)
    x3 = 1;
  long double bound;
  switch (t) {
  case FRICL_SMOOTH_FRICTION_F0:
    bound = 2 * (sE > 1 ? sE : 1);
    break;
  case FRICL_SMOOTH_FRICTION_F1:
    bound = 3;
    break;
  case FRICL_SMOOTH_FRICTION_F2:
  case FRICL_SMOOTH_FRICTION_F1_OVER_X:
    bound = 4 * invE;
    break;
  case FRICL_SMOOTH_FRICTION_F2_X_MINUS_F1_OVER_X3:
    if (s < E * 1e-3L)
      return 0;
    bound = x3;
    break;
  case FRICL_SMOOTH_MU:
    bound = 5 * M;
    break;
  case FRICL_SMOOTH_MU_DERIVATIVE:
    bound = 6 * M * invE;
    break;
  case FRICL_SMOOTH_MU_F0:
    bound = 10 * M * (sE > 1 ? sE : 1);
    break;
  case FRICL_SMOOTH_MU_F1:
    bound = 20 * M;
    break;
  case FRICL_SMOOTH_MU_F2:
  case FRICL_SMOOTH_MU_F1_OVER_X:
    bound = 100 * M * invE;
    break;
  default: /* FRICL_SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3 */
    if (s < E * 1e-3L)
      return 0;
    bound = 100 * M * x3;
    break;
  }
  return bound * K <= fmax;
}

/* Check output value v of term t at element i (working-precision inputs). */
static void check_value(int t, int f32, int profile, double v, double y,
                        double e, double ms, double mk) {
#define VCHECK(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr,                                                          \
              "fuzz_scalar_api: %s(y=%a, eps_v=%a, mu_s=%a, mu_k=%a) [%s, "    \
              "%s] = %a\n",                                                    \
              fricl_term_name((fricl_term)t), y, e, ms, mk,                    \
              f32 ? "f32" : "f64", profile ? "ipctk" : "cubic", v);            \
      CHECK(cond);                                                             \
    }                                                                          \
  } while (0)
  const int cst_mu = ms == mk;
  if (isnan(y)) {
    /* spec 2.3, 3.6: NaN propagates; smooth_mu and its derivative with
     * mu_s == mu_k do not look at y. */
    if (cst_mu && t == FRICL_SMOOTH_MU)
      VCHECK(v == mk);
    else if (cst_mu && t == FRICL_SMOOTH_MU_DERIVATIVE)
      VCHECK(v == 0);
    else
      VCHECK(isnan(v));
    return;
  }
  if (isinf(y)) {
    const int pos = y > 0;
    switch (t) {
    case FRICL_SMOOTH_FRICTION_F0:
      VCHECK(v == y);
      break;
    case FRICL_SMOOTH_FRICTION_F1:
      VCHECK(v == 1);
      break;
    case FRICL_SMOOTH_FRICTION_F2:
    case FRICL_SMOOTH_MU_DERIVATIVE:
    case FRICL_SMOOTH_MU_F2:
      VCHECK(v == 0);
      break;
    /* The tables' zero signs assume mu_k > 0: a valid mu_k = -0 flips
     * them (mu_k * +-0 and -mu_k in the formulas), so then only == 0. */
    case FRICL_SMOOTH_FRICTION_F1_OVER_X:
      VCHECK(same(v, pos ? 0.0 : -0.0));
      break;
    case FRICL_SMOOTH_MU_F1_OVER_X:
      VCHECK(mk > 0 ? same(v, pos ? 0.0 : -0.0) : v == 0);
      break;
    case FRICL_SMOOTH_FRICTION_F2_X_MINUS_F1_OVER_X3:
      VCHECK(same(v, pos ? -0.0 : 0.0));
      break;
    case FRICL_SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3:
      VCHECK(mk > 0 ? same(v, pos ? -0.0 : 0.0) : v == 0);
      break;
    case FRICL_SMOOTH_MU:
    case FRICL_SMOOTH_MU_F1:
      VCHECK(v == mk);
      break;
    case FRICL_SMOOTH_MU_F0:
      VCHECK(mk == 0 ? isnan(v) : v == y);
      break;
    }
    return;
  }
  /* At +-0 the tabulated values hold where the parameters are inside the
   * domain of finite_expected (6 (mu_k - mu_s) overflows for mu near the
   * format's maximum and makes mu' = NaN * 0, for instance). */
  if (y == 0 && params_in_domain(f32, e, ms, mk)) {
    const int neg = signbit(y) != 0;
    switch (t) {
    case FRICL_SMOOTH_FRICTION_F1:
      VCHECK(same(v, neg ? -0.0 : 0.0));
      return;
    case FRICL_SMOOTH_MU_F1: /* mu(0) * f1(+-0): signed when mu(0) > 0 */
      VCHECK(ms > 0 ? same(v, neg ? -0.0 : 0.0) : v == 0);
      return;
    case FRICL_SMOOTH_FRICTION_F2_X_MINUS_F1_OVER_X3:
      VCHECK(same(v, neg ? INFINITY : -INFINITY));
      return;
    case FRICL_SMOOTH_MU_F2_X_MINUS_MU_F1_OVER_X3:
      if (ms > 0)
        VCHECK(same(v, neg ? INFINITY : -INFINITY));
      else
        VCHECK(isnan(v));
      return;
    case FRICL_SMOOTH_MU:
      VCHECK(v == ms);
      return;
    case FRICL_SMOOTH_MU_DERIVATIVE:
      VCHECK(v == 0); /* the sign is not normative (spec 3.6) */
      return;
    default:
      break; /* f0, f2, f1/x, mu_f0, mu_f2, mu_f1/x: finite, below */
    }
  }
  if (finite_expected(t, f32, y, e, ms, mk))
    VCHECK(isfinite(v));
#undef VCHECK
}

/* ------------------------------------------------------------ the target */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = "reference";
  char msg[256] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  if (fricl_context_create(&g_ctx, &p) != FRICL_STATUS_OK) {
    fprintf(stderr, "fuzz_scalar_api: no reference context: %s\n", msg);
    abort();
  }
  CHECK(fricl_context_backend(g_ctx) == FRICL_BACKEND_REFERENCE);
  CHECK(fricl_context_has_fp64(g_ctx));
  return 0;
}

static int sentinel_at(const unsigned char *p, size_t esz) {
  static const uint64_t s64 = 0x7FF4DEADBEEF1234ull; /* signalling NaNs: */
  static const uint32_t s32 = 0x7FA0BEEFu; /* arithmetic never returns one */
  return esz == 8 ? memcmp(p, &s64, 8) == 0 : memcmp(p, &s32, 4) == 0;
}

static void set_sentinel(unsigned char *p, size_t esz) {
  static const uint64_t s64 = 0x7FF4DEADBEEF1234ull;
  static const uint32_t s32 = 0x7FA0BEEFu;
  if (esz == 8)
    memcpy(p, &s64, 8);
  else
    memcpy(p, &s32, 4);
}

static void store(unsigned char *p, int f32, double v) {
  if (f32) {
    const float f = (float)v;
    memcpy(p, &f, sizeof f);
  } else {
    memcpy(p, &v, sizeof v);
  }
}

static double load(const unsigned char *p, int f32) {
  if (f32) {
    float f;
    memcpy(&f, p, sizeof f);
    return f;
  }
  double d;
  memcpy(&d, p, sizeof d);
  return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size};
  const unsigned flags = rd_u8(&r);
  const int f32 = flags & 1;
  const size_t esz = f32 ? sizeof(float) : sizeof(double);
  const int profile = (flags >> 1) & 1;
  const int null_form = (flags >> 2) & 1; /* terms = 0, out[t] decide */
  const int eps_arr = (flags >> 3) & 1, mus_arr = (flags >> 4) & 1,
            muk_arr = (flags >> 5) & 1;
  const int mischief = (flags >> 6) & 1;
  const unsigned tm = rd_u16(&r);
  unsigned mask = tm & FRICL_TERMS_ALL;
  if (!mask && !mischief)
    mask = FRICL_TERMS_ALL;
  const unsigned nraw = rd_u16(&r);
  /* Mostly short batches (fast runs); one in eight up to NMAX - 1. */
  size_t n = (nraw >> 13) == 7 ? nraw % NMAX : nraw % 64;

  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.precision = f32 ? FRICL_F32 : FRICL_F64;
  b.mu_profile = profile ? FRICL_MU_IPCTK : FRICL_MU_CUBIC;
  b.eps_v = read_value(&r, 0, 1e-3);
  b.mu_s = read_value(&r, 0, 1e-3);
  b.mu_k = read_value(&r, 0, 1e-3);
  const double eps_w = in_precision(f32, b.eps_v);
  const double eref = param_ok(1, eps_w) ? eps_w : 1e-3;

  /* The arena: SLOTS slots of max(n, 1) elements. */
  const size_t slot_elems = n ? n : 1;
  const size_t slot = slot_elems * esz;
  unsigned char *arena = malloc(SLOTS * slot);
  unsigned char *before = malloc(SLOTS * slot);
  unsigned char *written = calloc(SLOTS * slot_elems, 1);
  double *yw = malloc(slot_elems * sizeof *yw); /* working-precision views */
  double *ew = malloc(slot_elems * sizeof *ew);
  double *sw = malloc(slot_elems * sizeof *sw);
  double *kw = malloc(slot_elems * sizeof *kw);
  CHECK(arena && before && written && yw && ew && sw && kw);
  for (size_t i = 0; i < SLOTS * slot_elems; ++i)
    set_sentinel(arena + i * esz, esz);
#define SLOTP(k) (arena + (size_t)(k)*slot)

  /* Inputs, interleaved per element; deterministic fill once the bytes run
   * out (y sweeps [-4e, 4e), parameters stay valid). */
  for (size_t i = 0; i < n; ++i) {
    double y, e = eref * (double)(1 + i % 3), ms = (double)(i % 4) * 0.25,
              mk = i % 3 == 0 ? (double)(i % 4) * 0.25 : (double)(i % 5) * 0.1;
    if (r.left) {
      y = read_value(&r, f32, eref);
      if (eps_arr)
        e = read_value(&r, f32, eref);
      if (mus_arr)
        ms = read_value(&r, f32, eref);
      if (muk_arr)
        mk = read_value(&r, f32, eref);
    } else {
      y = eref * ((double)((i * 2654435761u) % 8193) - 4096.0) / 1024.0;
    }
    store(SLOTP(SLOT_Y) + i * esz, f32, y);
    store(SLOTP(SLOT_EPS) + i * esz, f32, e);
    store(SLOTP(SLOT_MUS) + i * esz, f32, ms);
    store(SLOTP(SLOT_MUK) + i * esz, f32, mk);
  }
  b.n = n;
  b.y = SLOTP(SLOT_Y);
  b.eps_v_array = eps_arr ? SLOTP(SLOT_EPS) : NULL;
  b.mu_s_array = mus_arr ? SLOTP(SLOT_MUS) : NULL;
  b.mu_k_array = muk_arr ? SLOTP(SLOT_MUK) : NULL;
  b.terms = null_form ? 0 : mask;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (mask & FRICL_TERM_BIT(t))
      b.out[t] = SLOTP(SLOT_OUT + t);

  /* Mischief: up to three edits that make the batch odd or invalid. */
  int huge_n = 0;
  for (int round = 0; mischief && round < 3 && r.left; ++round) {
    const unsigned m = rd_u8(&r), a = rd_u8(&r), c = rd_u16(&r);
    const int t = (int)(a % FRICL_TERM_COUNT);
    /* An element offset that keeps [p, p + n) inside the arena: slot k
     * (k <= 15) plus less than one slot. */
    const size_t off = (c % slot_elems) * esz;
    switch (m % 8) {
    case 0:
      b.y = NULL;
      break;
    case 1:
      b.out[t] = NULL;
      break;
    case 2: /* an output over another output */
      b.out[t] = SLOTP(SLOT_OUT + (a >> 4) % FRICL_TERM_COUNT) + off;
      break;
    case 3: /* an output over an input */
      b.out[t] = SLOTP((a >> 4) % 4) + off;
      break;
    case 4: /* a stray output for a term that may not be requested */
      if (!null_form)
        b.out[t] = SLOTP((a >> 4) % 16) + off;
      break;
    case 5:
      switch (a % 6) {
      case 0:
        b.precision = (fricl_precision)(int)(int8_t)(c | 2);
        break;
      case 1:
        b.mu_profile = (fricl_mu_profile)(int)(int8_t)(c | 2);
        break;
      case 2:
        b.terms |= (uint32_t)(c | 1) << FRICL_TERM_COUNT;
        break;
      case 3:
        /* an older caller: a size C can give, a multiple of the
         * struct's 8-byte alignment (a size inside a pointer would
         * hand the library half of it, as bytes past the size take
         * their defaults) */
        b.struct_size = (uint32_t)((c % sizeof b) & ~(size_t)7);
        break;
      case 4:
        /* a size no compiler gives (not a multiple of the alignment):
         * rejected whole */
        b.struct_size = (uint32_t)((c % (sizeof b + 64)) | 1);
        break;
      default:
        /* a newer caller (its layout, too, a multiple of the alignment) */
        b.struct_size = (uint32_t)(sizeof b + (c % 8) * 8);
        break;
      }
      break;
    case 6: /* n whose byte size overflows size_t */
      huge_n = 1;
      b.n = SIZE_MAX / esz + 1 + c;
      break;
    default: /* n = 0, pointers NULL or not */
      n = 0;
      b.n = 0;
      huge_n = 0;
      if (c & 1)
        b.y = NULL;
      if (c & 2)
        b.out[t] = NULL;
      break;
    }
  }

  /* Working-precision values of what the library will read. */
  for (size_t i = 0; i < n; ++i) {
    yw[i] = load(SLOTP(SLOT_Y) + i * esz, f32);
    ew[i] = eps_arr ? load(SLOTP(SLOT_EPS) + i * esz, f32) : eps_w;
    sw[i] = mus_arr ? load(SLOTP(SLOT_MUS) + i * esz, f32)
                    : in_precision(f32, b.mu_s);
    kw[i] = muk_arr ? load(SLOTP(SLOT_MUK) + i * esz, f32)
                    : in_precision(f32, b.mu_k);
  }

  /* An older caller's layout (struct_size below sizeof b): the library
   * gives the bytes past it their fricl_scalar_batch_init values, and so
   * does this model, byte for byte. */
  const int aligned = b.struct_size % _Alignof(fricl_scalar_batch) == 0;
  if (b.struct_size >= SCALAR_MIN && b.struct_size < sizeof b && aligned) {
    fricl_scalar_batch d;
    fricl_scalar_batch_init(&d);
    memcpy((unsigned char *)&b + b.struct_size,
           (unsigned char *)&d + b.struct_size, sizeof b - b.struct_size);
  }

  /* The documented rules, re-derived. */
  int valid = 1;
  unsigned req = 0;
  if (b.struct_size < SCALAR_MIN || !aligned)
    valid = 0;
  if (b.precision != FRICL_F64 && b.precision != FRICL_F32)
    valid = 0;
  if (b.mu_profile != FRICL_MU_CUBIC && b.mu_profile != FRICL_MU_IPCTK)
    valid = 0;
  if (b.terms == 0) {
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      if (b.out[t])
        req |= FRICL_TERM_BIT(t);
  } else if (b.terms & ~(uint32_t)FRICL_TERMS_ALL) {
    valid = 0;
  } else {
    req = b.terms;
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      if ((req & FRICL_TERM_BIT(t)) && !b.out[t] && b.n > 0)
        valid = 0;
  }
  if (!req)
    valid = 0;
  if (b.n > 0 && !b.y)
    valid = 0;
  if (huge_n)
    valid = 0; /* b.n * sizeof(element) overflows size_t */
  const int need_mu = (req & MU_TERMS) != 0;
  /* Each parameter: its array (n elements) when given, else the scalar
   * converted to the working precision; mu only when a mu term is asked. */
  for (int k = 0; k < (need_mu ? 3 : 1) && valid; ++k) {
    const int is_arr = k == 0 ? eps_arr : k == 1 ? mus_arr : muk_arr;
    const double *w = k == 0 ? ew : k == 1 ? sw : kw;
    const double scalar = k == 0 ? b.eps_v : k == 1 ? b.mu_s : b.mu_k;
    if (!is_arr)
      valid = param_ok(k == 0, in_precision(f32, scalar));
    else
      for (size_t i = 0; i < n && valid; ++i)
        valid = param_ok(k == 0, w[i]);
  }
  if (valid && n > 0) {
    const size_t bytes = n * esz;
    const void *ins[4] = {b.y, b.eps_v_array, need_mu ? b.mu_s_array : NULL,
                          need_mu ? b.mu_k_array : NULL};
    for (int t = 0; t < FRICL_TERM_COUNT && valid; ++t) {
      if (!(req & FRICL_TERM_BIT(t)))
        continue;
      for (int k = 0; k < 4; ++k)
        if (ins[k] && ranges_overlap(b.out[t], ins[k], bytes))
          valid = 0;
      for (int u = t + 1; u < FRICL_TERM_COUNT; ++u)
        if ((req & FRICL_TERM_BIT(u)) &&
            ranges_overlap(b.out[t], b.out[u], bytes))
          valid = 0;
    }
  }

  /* Call. */
  memcpy(before, arena, SLOTS * slot);
  fricl_scalar_batch b_copy;
  memcpy(&b_copy, &b, sizeof b);
  unsigned char *caller = as_caller(&b);
  CHECK(caller != NULL);
  const fricl_status st =
      fricl_scalar_eval(g_ctx, (const fricl_scalar_batch *)(void *)caller);
  CHECK(memcmp(&b_copy, caller, sizeof b) == 0);
  CHECK(st == FRICL_STATUS_OK || st == FRICL_STATUS_INVALID_ARGUMENT);
  const char *msg = fricl_context_last_error(g_ctx);
  CHECK(msg != NULL);
  if ((st == FRICL_STATUS_OK) != valid)
    fprintf(stderr,
            "fuzz_scalar_api: status %s, the documented rules say %s "
            "(last error: \"%s\")\n",
            fricl_status_string(st), valid ? "valid" : "invalid", msg);
  CHECK((st == FRICL_STATUS_OK) == valid);

  if (st != FRICL_STATUS_OK) {
    CHECK(msg[0] != '\0');
    CHECK(memcmp(before, arena, SLOTS * slot) == 0); /* nothing written */
  } else {
    /* Only the requested outputs' n elements may change, and all do. */
    for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
      if (!(req & FRICL_TERM_BIT(t)) || n == 0)
        continue;
      const size_t first = (size_t)((unsigned char *)b.out[t] - arena) / esz;
      for (size_t i = 0; i < n; ++i)
        written[first + i] = 1;
    }
    for (size_t i = 0; i < SLOTS * slot_elems; ++i)
      if (!written[i])
        CHECK(memcmp(before + i * esz, arena + i * esz, esz) == 0);
    for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
      if (!(req & FRICL_TERM_BIT(t)))
        continue;
      const unsigned char *o = b.out[t];
      for (size_t i = 0; i < n; ++i) {
        CHECK(!sentinel_at(o + i * esz, esz));
        check_value(t, f32, profile, load(o + i * esz, f32), yw[i], ew[i],
                    sw[i], kw[i]);
      }
    }
  }

  /* fricl_scalar_prepare checks only the header on this backend. */
  const fricl_status pst =
      fricl_scalar_prepare(g_ctx, (const fricl_scalar_batch *)(void *)caller);
  free(caller);
  CHECK(pst == FRICL_STATUS_OK || pst == FRICL_STATUS_INVALID_ARGUMENT);
  if (b.struct_size >= SCALAR_MIN && aligned &&
      (b.precision == FRICL_F64 || b.precision == FRICL_F32) &&
      (b.mu_profile == FRICL_MU_CUBIC || b.mu_profile == FRICL_MU_IPCTK))
    CHECK(pst == FRICL_STATUS_OK);
  else
    CHECK(fricl_context_last_error(g_ctx)[0] != '\0');
#undef SLOTP
  free(arena);
  free(before);
  free(written);
  free(yw);
  free(ew);
  free(sw);
  free(kw);
  return 0;
}
