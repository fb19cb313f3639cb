/*
 * test_laws.c - the friction laws against the spec's reference tables and
 * the mpmath oracle (tests/data/laws_oracle.txt, stateless laws), the
 * stateful laws' tables (Maxwell, Modified Stribeck, LuGre, GMS; spec 7-11),
 * signs at +-0, NaN propagation, the properties of the spec on sweeps and
 * the documented discontinuities. Every body runs on the reference backend
 * and on each OpenCL device, in f64.
 */
#include "fricl/fricl.h"
#include "test_util.h"

#define MAX_ROWS 4096

typedef struct {
  fricl_law law;
  unsigned opts;
  int np;
  double p[FRICL_LAW_MAX_PARAMS];
  double normal, v, value, scale;
  int bits;
} orow;

static orow rows[MAX_ROWS];
static int nrows;

static int read_oracle(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return -1;
  }
  char line[2048];
  while (fgets(line, sizeof line, f) && nrows < MAX_ROWS) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    char name[64], mode[16];
    orow *r = &rows[nrows];
    int off = 0;
    if (sscanf(line, "%63s %u %d%n", name, &r->opts, &r->np, &off) != 3 ||
        fricl_law_from_name(name, &r->law) != FRICL_STATUS_OK) {
      fprintf(stderr, "bad oracle row: %s", line);
      fclose(f);
      return -1;
    }
    char *s = line + off, *end;
    for (int k = 0; k < r->np; ++k, s = end)
      r->p[k] = strtod(s, &end);
    r->normal = strtod(s, &end);
    s = end;
    r->v = strtod(s, &end);
    s = end;
    r->value = strtod(s, &end);
    s = end;
    r->scale = strtod(s, &end);
    s = end;
    if (sscanf(s, "%15s", mode) != 1) {
      fclose(f);
      return -1;
    }
    r->bits = strcmp(mode, "bits") == 0;
    ++nrows;
  }
  fclose(f);
  printf("oracle: %d rows\n", nrows);
  return nrows > 0 ? 0 : -1;
}

static int same_bits(double a, double b) {
  if (isnan(a) || isnan(b))
    return isnan(a) && isnan(b);
  return memcmp(&a, &b, sizeof a) == 0;
}

static int close_to(double got, double want, double scale) {
  if (isnan(want))
    return isnan(got);
  if (isinf(want))
    return got == want;
  return fabs(got - want) <= 1e-14 * scale;
}

/* One stateless row, scalar parameters. */
static double eval_row(fricl_context *ctx, const orow *r, fricl_status *st) {
  fricl_law_batch b;
  fricl_law_batch_init(&b, r->law);
  b.options = r->opts;
  for (int k = 0; k < r->np; ++k)
    b.param[k] = r->p[k];
  b.normal_force = r->normal;
  double out = -12345.0;
  b.n = 1;
  b.v = &r->v;
  b.force = &out;
  *st = fricl_law_eval(ctx, &b);
  return out;
}

static void test_oracle(fricl_context *ctx, const char *be) {
  static double got[MAX_ROWS];
  for (int i = 0; i < nrows; ++i) {
    fricl_status st;
    got[i] = eval_row(ctx, &rows[i], &st);
    const orow *r = &rows[i];
    CHECK(st == FRICL_STATUS_OK, "%s: row %d: %s", be, i,
          fricl_context_last_error(ctx));
    const int ok = r->bits ? same_bits(got[i], r->value)
                           : close_to(got[i], r->value, r->scale);
    CHECK(ok, "%s: oracle row %d %s v=%a: got %.17g want %.17g (scale %g)", be,
          i, fricl_law_name(r->law), r->v, got[i], r->value, r->scale);
  }
  /* The same rows again as one batch per (law, options) with every
   * parameter and the normal force per element: bitwise the same. */
  for (int law = 0; law < FRICL_LAW_COUNT; ++law)
    for (unsigned opts = 0; opts < 4; ++opts) {
      static double v[MAX_ROWS], nrm[MAX_ROWS], out[MAX_ROWS];
      static double pa[FRICL_LAW_MAX_PARAMS][MAX_ROWS];
      int idx[MAX_ROWS], m = 0, np = 0;
      for (int i = 0; i < nrows; ++i) {
        if ((int)rows[i].law != law || rows[i].opts != opts)
          continue;
        np = rows[i].np;
        v[m] = rows[i].v;
        nrm[m] = rows[i].normal;
        for (int k = 0; k < np; ++k)
          pa[k][m] = rows[i].p[k];
        idx[m++] = i;
      }
      if (!m)
        continue;
      fricl_law_batch b;
      fricl_law_batch_init(&b, (fricl_law)law);
      b.options = opts;
      b.n = (size_t)m;
      b.v = v;
      b.normal = nrm;
      for (int k = 0; k < np; ++k)
        b.param_array[k] = pa[k];
      b.force = out;
      fricl_law_info info;
      fricl_law_get_info((fricl_law)law, &info);
      if (!info.uses_normal)
        b.normal = NULL;
      const fricl_status st = fricl_law_eval(ctx, &b);
      CHECK(st == FRICL_STATUS_OK, "%s: per-element %s: %s", be,
            fricl_law_name((fricl_law)law), fricl_context_last_error(ctx));
      for (int j = 0; j < m && st == FRICL_STATUS_OK; ++j)
        CHECK(same_bits(out[j], got[idx[j]]),
              "%s: per-element %s row %d: %.17g vs scalar %.17g", be,
              fricl_law_name((fricl_law)law), idx[j], out[j], got[idx[j]]);
    }
}

/* ------------------------------------------------- stateful tables */

static double ulps(double got, double want) {
  return fabs(got - want) / ulp_of(want, 0);
}

/* Sequential calls with the state updated in place (spec 8, 11). */
static void test_maxwell(fricl_context *ctx, const char *be) {
  static const double x[6] = {0.01, 0.02, 0.015, -0.02, -0.02, 0.0};
  static const double F[6] = {10,  15,  9.999999999999998,
                              -15, -15, 5.000000000000001};
  static const double d[6] = {0.01,   0.015,  0.009999999999999998,
                              -0.015, -0.015, 0.005};
  double state[2] = {0, 0};
  for (int c = 0; c < 6; ++c) {
    fricl_law_batch b;
    fricl_law_batch_init(&b, FRICL_LAW_MAXWELL);
    b.param[0] = 1000;
    b.param[1] = 0.15;
    b.normal_force = 100;
    double f = 0;
    b.n = 1;
    b.x = &x[c];
    b.state = state;
    b.state_out = state;
    b.force = &f;
    CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s: %s", be,
          fricl_context_last_error(ctx));
    /* F bitwise (the spec's doubles); d exact decimals: a few ulp. */
    CHECK(same_bits(f, F[c]) && ulps(state[1], d[c]) <= 2 &&
              same_bits(state[0], x[c]),
          "%s: maxwell call %d: F %.17g d %.17g", be, c + 1, f, state[1]);
  }
  /* Idempotence: the same x again leaves the state unchanged. */
  double again[2] = {state[0], state[1]}, f = 0;
  fricl_law_batch b;
  fricl_law_batch_init(&b, FRICL_LAW_MAXWELL);
  b.param[0] = 1000;
  b.param[1] = 0.15;
  b.normal_force = 100;
  b.n = 1;
  b.x = &x[5];
  b.state = again;
  b.state_out = again;
  b.force = &f;
  fricl_law_eval(ctx, &b);
  CHECK(same_bits(again[1], state[1]), "%s: maxwell idempotence", be);
  /* +-0: q = +-0 gives d = +-0 (q = -0 - 0 + -0 = -0 for the second);
   * NaN x gives NaN force and state. */
  const double xz[3] = {0.0, -0.0, NAN};
  double st3[6] = {0, 0, 0, -0.0, 0, 0}, f3[3];
  b.n = 3;
  b.x = xz;
  b.state = st3;
  b.state_out = st3;
  b.force = f3;
  CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s", be);
  CHECK(f3[0] == 0 && !signbit(f3[0]) && f3[1] == 0 && signbit(f3[1]),
        "%s: maxwell F(+-0) = +-0: %g %g", be, f3[0], f3[1]);
  CHECK(isnan(f3[2]) && isnan(st3[5]), "%s: maxwell NaN", be);
  /* NaN normal force: fmin would drop it; the law must not. */
  double nn = NAN, xs = 0.01, s2[2] = {0, 0}, f1;
  b.n = 1;
  b.x = &xs;
  b.normal = &nn;
  b.state = s2;
  b.state_out = s2;
  b.force = &f1;
  CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s", be);
  CHECK(isnan(f1) && isnan(s2[1]), "%s: maxwell NaN normal: %g", be, f1);
}

static void test_modified_stribeck(fricl_context *ctx, const char *be) {
  static const double x[5] = {0.001, 0.004, 0.006, 0.005, 0.0};
  static const double v[5] = {0, 0.1, 0.2, -0.05, -0.1};
  static const double F[5] = {10, 18.678794411714424, 15.183156388887342,
                              5.183156388887341, -18.678794411714424};
  static const double d[5] = {0.001, 0.0018678794411714425,
                              0.0015183156388887341, 0.0005183156388887341,
                              -0.0018678794411714425};
  double state[2] = {0, 0};
  fricl_law_batch b;
  for (int c = 0; c < 5; ++c) {
    fricl_law_batch_init(&b, FRICL_LAW_MODIFIED_STRIBECK);
    const double p[5] = {0.25, 0.15, 0.1, 0, 1e4};
    memcpy(b.param, p, sizeof p);
    b.normal_force = 100;
    double f = 0;
    b.n = 1;
    b.x = &x[c];
    b.v = &v[c];
    b.state = state;
    b.state_out = state;
    b.force = &f;
    CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s: %s", be,
          fricl_context_last_error(ctx));
    CHECK(ulps(f, F[c]) <= 4 && ulps(state[1], d[c]) <= 4,
          "%s: modified_stribeck call %d: F %.17g d %.17g", be, c + 1, f,
          state[1]);
  }
  /* b_v = 3, fresh state, x = 0.01, v = -0.1; state_out not requested. */
  b.param[3] = 3;
  const double x1 = 0.01, v1 = -0.1;
  double f = 0;
  b.x = &x1;
  b.v = &v1;
  b.state = NULL; /* zero initial state */
  b.state_out = NULL;
  b.force = &f;
  CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s", be);
  CHECK(ulps(f, 18.378794411714424) <= 4, "%s: modified_stribeck b_v: %.17g",
        be, f);
}

static void lugre_batch(fricl_law_batch *b, const double *p7, double normal) {
  fricl_law_batch_init(b, FRICL_LAW_LUGRE);
  memcpy(b->param, p7, 7 * sizeof *p7);
  b->normal_force = normal;
}

static const double LUGRE_P[7] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2};

static void test_lugre(fricl_context *ctx, const char *be) {
  static const double v[6] = {0.01, -0.01, 0, 0.02, 0.01, -0.01};
  static const double z[6] = {1e-4, 1e-4, 2e-4, 0, 4e-4, -4e-4};
  static const double dz[6] = {
      0.0075, -0.0125, 0, 0.02, -1.734723475976807e-18, 1.734723475976807e-18};
  static const double F[6] = {1.754, -0.254, 2.0, 2.008, 4.004, -4.004};
  double f[6], d[6];
  fricl_law_batch b;
  lugre_batch(&b, LUGRE_P, 10);
  b.n = 6;
  b.v = v;
  b.state = z;
  b.force = f;
  b.dstate = d;
  CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s: %s", be,
        fricl_context_last_error(ctx));
  for (int i = 0; i < 6; ++i) {
    CHECK(fabs(d[i] - dz[i]) <= 1e-14 * 0.02, "%s: lugre row %d dz %.17g", be,
          i, d[i]);
    CHECK(fabs(f[i] - F[i]) <= 1e-14 * 5, "%s: lugre row %d F %.17g", be, i,
          f[i]);
  }
  /* The upstream example parameters. */
  const double pe[7] = {0.598, 0.40, 3.5e-3, 45089, 2623.4, 0, 2};
  lugre_batch(&b, pe, 5 * 9.81);
  const double ve = 0.1, ze = 0;
  double fe, de;
  b.n = 1;
  b.v = &ve;
  b.state = &ze;
  b.force = &fe;
  b.dstate = &de;
  CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s", be);
  CHECK(ulps(fe, 262.34000000000003) <= 4 && de == 0.1,
        "%s: lugre example F %.17g dz %.17g", be, fe, de);
}

static void test_gms(fricl_context *ctx, const char *be) {
  static const double v[6] = {0.01, 0.01, -0.01, 0.0, -0.0, 0};
  static const double z[12] = {1e-4, 2e-4, 5e-4, -5e-4, 5e-4, -5e-4,
                               6e-4, 1e-4, 6e-4, 1e-4,  5e-4, 1e-4};
  static const double dz[12] = {0.01, 0.01, -19, 39,   19, -39,
                                -18,  0.0,  18,  -0.0, 0,  0};
  static const double F[6] = {
      1.9009999999999998, 589.001, -591.001, -177, 183, 2.6};
  const double ge[6] = {4e3, 10, 0.3, 6e3, 20, 0.7};
  const double p[7] = {0.5, 0.3, 20, 1e4, 0.1, 0.01, 2};
  double f[6], d[12];
  fricl_law_batch b;
  fricl_law_batch_init(&b, FRICL_LAW_GMS);
  memcpy(b.param, p, sizeof p);
  b.normal_force = 10;
  b.gms_elements = 2;
  b.gms_params = ge;
  b.n = 6;
  b.v = v;
  b.state = z;
  b.force = f;
  b.dstate = d;
  CHECK(fricl_law_eval(ctx, &b) == FRICL_STATUS_OK, "%s: %s", be,
        fricl_context_last_error(ctx));
  for (int i = 0; i < 6; ++i) {
    CHECK(fabs(f[i] - F[i]) <= 1e-14 * 600, "%s: gms row %d F %.17g", be, i,
          f[i]);
    for (int j = 0; j < 2; ++j)
      CHECK(fabs(d[2 * i + j] - dz[2 * i + j]) <= 1e-14 * 40,
            "%s: gms row %d dz%d %.17g", be, i, j, d[2 * i + j]);
  }
  CHECK(same_bits(f[0], 1.9009999999999998), "%s: gms row 1 bitwise", be);
  /* fsign(+-0) in the slip rate (rows 4, 5): signs of the zero dz too. */
  CHECK(!signbit(d[7]) && signbit(d[9]), "%s: gms dz2 signs at v = +-0", be);
}

/* ------------------------------------------------------- properties */

static double eval1(fricl_context *ctx, fricl_law law, const double *p,
                    unsigned opts, double normal, double v) {
  fricl_law_batch b;
  fricl_law_batch_init(&b, law);
  fricl_law_info info;
  fricl_law_get_info(law, &info);
  for (int k = 0; k < info.param_count; ++k)
    b.param[k] = p[k];
  b.options = opts;
  b.normal_force = normal;
  double out = NAN;
  b.n = 1;
  b.v = &v;
  b.force = &out;
  if (fricl_law_eval(ctx, &b) != FRICL_STATUS_OK) {
    ++test_failures;
    fprintf(stderr, "eval1 %s: %s\n", info.name, fricl_context_last_error(ctx));
  }
  return out;
}

static void test_properties(fricl_context *ctx, const char *be) {
  const double es[5] = {0.1, 0.05, 0.3, 1e-3, 1e-3};
  const double rf[5] = {0.1, 0.05, 0.05, 0.1, 0.2};
  const double isdf_t[4] = {2, 1, 0.1, 1}, isdf_f[4] = {2, 1, 0.1, 0};
  const double st[4] = {0.25, 0.15, 0.1, 2.0};
  for (int i = 0; i <= 400; ++i) {
    const double v = -0.2 + i * 1e-3 + 1e-7;
    /* Exudyn Stribeck: exactly odd. */
    CHECK(same_bits(eval1(ctx, FRICL_LAW_EXUDYN_STRIBECK, es, 0, 1, -v),
                    -eval1(ctx, FRICL_LAW_EXUDYN_STRIBECK, es, 0, 1, v)),
          "%s: exudyn_stribeck odd at %g", be, v);
    /* RegularizedFriction: odd to rounding, |f| <= mus' below v_d. */
    const double a = eval1(ctx, FRICL_LAW_EXUDYN_REGULARIZED, rf, 0, 1, v);
    const double b = eval1(ctx, FRICL_LAW_EXUDYN_REGULARIZED, rf, 0, 1, -v);
    CHECK(fabs(a + b) <= 1e-15, "%s: regularized odd at %g", be, v);
    if (fabs(v) <= 0.1)
      CHECK(fabs(a) <= 0.15 + 1e-15, "%s: regularized peak at %g", be, v);
    /* ISDF: ForceDirection 1 even, 0 odd. */
    CHECK(same_bits(eval1(ctx, FRICL_LAW_ISDF, isdf_t, 0, 1, v),
                    eval1(ctx, FRICL_LAW_ISDF, isdf_t, 0, 1, -v)),
          "%s: isdf even", be);
    CHECK(same_bits(eval1(ctx, FRICL_LAW_ISDF, isdf_f, 0, 1, v),
                    -eval1(ctx, FRICL_LAW_ISDF, isdf_f, 0, 1, -v)),
          "%s: isdf odd", be);
    /* Stribeck: F(v) + F(-v) = 2 b_v |v| (viscous inside the sign), and
     * exactly odd with the option. */
    const double sp = eval1(ctx, FRICL_LAW_STRIBECK, st, 0, 100, v);
    const double sm = eval1(ctx, FRICL_LAW_STRIBECK, st, 0, 100, -v);
    CHECK(fabs(sp + sm - 4 * fabs(v)) <= 1e-13, "%s: stribeck quirk at %g", be,
          v);
    CHECK(same_bits(eval1(ctx, FRICL_LAW_STRIBECK, st, 2u, 100, -v),
                    -eval1(ctx, FRICL_LAW_STRIBECK, st, 2u, 100, v)),
          "%s: stribeck odd option", be);
  }
  /* Continuity where the spec says so, jumps where it says so. */
  const double eps = 1e-12;
  double l = eval1(ctx, FRICL_LAW_EXUDYN_STRIBECK, es, 0, 1, 1e-3 - eps);
  double r = eval1(ctx, FRICL_LAW_EXUDYN_STRIBECK, es, 0, 1, 1e-3 + eps);
  CHECK(fabs(l - r) < 1e-8, "%s: exudyn_stribeck continuous at regVel", be);
  l = eval1(ctx, FRICL_LAW_EXUDYN_REGULARIZED, rf, 0, 1, 0.05 - eps);
  r = eval1(ctx, FRICL_LAW_EXUDYN_REGULARIZED, rf, 0, 1, 0.05 + eps);
  CHECK(fabs(l - r) < 1e-8, "%s: regularized continuous at v_s", be);
  l = eval1(ctx, FRICL_LAW_EXUDYN_REGULARIZED, rf, 0, 1, 0.1 - eps);
  r = eval1(ctx, FRICL_LAW_EXUDYN_REGULARIZED, rf, 0, 1, 0.1 + eps);
  CHECK(fabs(l - r) < 1e-8, "%s: regularized continuous at v_d", be);
  l = eval1(ctx, FRICL_LAW_ISDF, isdf_t, 0, 1, 0.1 - eps);
  r = eval1(ctx, FRICL_LAW_ISDF, isdf_t, 0, 1, 0.1 + eps);
  CHECK(fabs(l - r) < 1e-8, "%s: isdf(1) continuous at v0", be);
  /* ISDF ForceDirection = 0 jumps from -f sgn(v) to -f v_nom/v0 sgn(v). */
  const double isdf_j[4] = {1, 1, 0.1, 0};
  l = eval1(ctx, FRICL_LAW_ISDF, isdf_j, 0, 1, 0.1 - eps);
  r = eval1(ctx, FRICL_LAW_ISDF, isdf_j, 0, 1, 0.1);
  CHECK(fabs(l + 1) < 1e-9 && fabs(r + 10) < 1e-12,
        "%s: isdf(0) jump at v0: %g -> %g", be, l, r);
  l = eval1(ctx, FRICL_LAW_ISDF, isdf_j, FRICL_LAW_OPT_ISDF_CONTINUOUS, 1,
            0.1 - eps);
  CHECK(fabs(l - r) < 1e-8, "%s: isdf continuous option at v0: %g %g", be, l,
        r);
  /* Coulomb jumps at 0: no regularisation. Stribeck: F(+-0) = +-Fs. */
  const double mu = 0.15;
  CHECK(eval1(ctx, FRICL_LAW_COULOMB, &mu, 0, 100, 1e-300) == 15,
        "%s: coulomb jump", be);
  /* Exudyn regVel = 0: jump at 0. */
  const double es0[5] = {0.1, 0.05, 0, 1e-3, 0};
  CHECK(eval1(ctx, FRICL_LAW_EXUDYN_STRIBECK, es0, 0, 1, 1e-300) > 0.14,
        "%s: exudyn regVel = 0 jump", be);
  /* NaN propagates through every law. */
  const double lg[7] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2};
  fricl_law_batch b;
  lugre_batch(&b, lg, 10);
  const double vn = NAN, zz = 1e-4;
  double f, d;
  b.n = 1;
  b.v = &vn;
  b.state = &zz;
  b.force = &f;
  b.dstate = &d;
  fricl_law_eval(ctx, &b);
  CHECK(isnan(f) && isnan(d), "%s: lugre NaN", be);
}

int main(int argc, char **argv) {
  if (argc < 2 || read_oracle(argv[1]) != 0)
    return 1;
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  for (int i = 0; i < nb; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx)
      continue;
    if (!fricl_context_has_fp64(ctx)) {
      printf("%s: no fp64, skipped\n", be[i].label);
      fricl_context_destroy(ctx);
      continue;
    }
    test_oracle(ctx, be[i].label);
    test_maxwell(ctx, be[i].label);
    test_modified_stribeck(ctx, be[i].label);
    test_lugre(ctx, be[i].label);
    test_gms(ctx, be[i].label);
    test_properties(ctx, be[i].label);
    fricl_context_destroy(ctx);
  }
  return test_report("test_laws");
}
