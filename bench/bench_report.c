/* bench_report.c - see bench_report.h. */
#define _POSIX_C_SOURCE 200809L
#include "bench_report.h"

#include "bench_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ figures */

const char *bench_profile_label(int profile) {
  if (profile < 0)
    return "-";
  const char *s = fricl_mu_profile_name((fricl_mu_profile)profile);
  return s ? s : "?";
}

static const char *prec_label(fricl_precision p) {
  return p == FRICL_F32 ? "f32" : "f64";
}

static size_t elem_bytes(fricl_precision p) {
  return p == FRICL_F32 ? sizeof(float) : sizeof(double);
}

void bench_figures_of(const bench_row *r, bench_figures *f) {
  const double n = (double)r->n, esz = (double)elem_bytes(r->precision);
  /* Bytes the group must move at least: y, the parameter arrays, outputs. */
  const double bytes = n * (double)(1 + r->param_arrays + r->terms) * esz;
  const int f64 = r->precision == FRICL_F64;
  f->eps = n / r->time.median;
  f->ref_eps = n / r->ref.median;
  f->eff_gbs = bytes / r->time.median * 1e-9;
  f->copy_gbs = 2.0 * n * esz / r->copy.median * 1e-9;
  f->pct_copy = 100.0 * f->eff_gbs / f->copy_gbs;
  f->speedup = r->ref.median / r->time.median;
  f->spread_pct = 100.0 * (r->time.max - r->time.min) / r->time.median;
  f->pass_roof = f64 ? f->pct_copy >= BENCH_TARGET_ROOF_PCT : -1;
  f->pass_speed = f64 && strcmp(r->group, "all") == 0
                      ? f->speedup >= BENCH_TARGET_SPEEDUP
                      : -1;
  /* f32 results are judged in f32 ulp: the same number applies. */
  f->pass_err = r->max_err_ulp <= BENCH_TARGET_ERR_ULP &&
                r->kind_mismatches == 0 && r->host_mismatches <= 0;
}

const char *bench_tier_label(bench_tier t) {
  return t == BENCH_TIER_DEVICE ? "device" : "host";
}

/* "host (2 threads)", "reference", "opencl". */
static void fmt_backend(char *cell, size_t size, fricl_backend b,
                        unsigned threads) {
  if (b == FRICL_BACKEND_HOST)
    snprintf(cell, size, "host/%u", threads);
  else
    snprintf(cell, size, "%s", bench_backend_label(b));
}

/* -------------------------------------------------------------- table */

enum { NCOLS = 16, CELL = 64 };

static const char *const col_names[NCOLS] = {
    "group",         "profile",
    "prec",          "tier",
    "ran on",        "n",
    "Melem/s",       "eff GB/s",
    "% copy",        "C ref Melem/s",
    "speed-up vs C", "max err ulp(sigma) all/y>=0",
    "host=dev",      "build cold/warm ms",
    "spread %",      "targets"};

/* Columns printed left-aligned (text); the others are numbers. */
static int left_aligned(int c) { return c <= 4 || c == NCOLS - 1; }

static void fmt_opt(char *cell, const char *fmt, double v) {
  if (v < 0.0 || !isfinite(v))
    snprintf(cell, CELL, "n/a");
  else
    snprintf(cell, CELL, fmt, v);
}

static void fmt_n(char *cell, size_t n) {
  int k = 0;
  while (k < 63 && ((size_t)1 << k) < n)
    ++k;
  if (((size_t)1 << k) == n)
    snprintf(cell, CELL, "2^%d", k);
  else
    snprintf(cell, CELL, "%zu", n);
}

static void fmt_targets(char *cell, const bench_figures *f) {
  /* At most "MISS(roof,speed,err)": fits a cell. */
  const int roof = f->pass_roof == 0, speed = f->pass_speed == 0,
            err = f->pass_err == 0;
  if (!roof && !speed && !err) {
    snprintf(cell, CELL, "PASS");
    return;
  }
  snprintf(cell, CELL, "MISS(%s%s%s%s%s)", roof ? "roof" : "",
           roof && (speed || err) ? "," : "", speed ? "speed" : "",
           speed && err ? "," : "", err ? "err" : "");
}

static void row_cells(const bench_row *r, char cells[NCOLS][CELL]) {
  bench_figures f;
  bench_figures_of(r, &f);
  snprintf(cells[0], CELL, "%s", r->group);
  snprintf(cells[1], CELL, "%s", bench_profile_label(r->profile));
  snprintf(cells[2], CELL, "%s", prec_label(r->precision));
  snprintf(cells[3], CELL, "%s", bench_tier_label(r->tier));
  fmt_backend(cells[4], CELL, r->backend, r->threads);
  fmt_n(cells[5], r->n);
  fmt_opt(cells[6], "%.1f", f.eps * 1e-6);
  fmt_opt(cells[7], "%.2f", f.eff_gbs);
  fmt_opt(cells[8], "%.1f", f.pct_copy);
  fmt_opt(cells[9], "%.1f", f.ref_eps * 1e-6);
  fmt_opt(cells[10], "%.2fx", f.speedup);
  snprintf(cells[11], CELL, "%.2f/%.2f%s", r->max_err_ulp, r->max_err_pos_ulp,
           r->kind_mismatches ? " +kind" : "");
  if (r->host_mismatches < 0)
    snprintf(cells[12], CELL, "-");
  else
    snprintf(cells[12], CELL, "%s", r->host_mismatches ? "NO" : "yes");
  if (r->build_cold_ms < 0.0)
    snprintf(cells[13], CELL, "n/a");
  else
    snprintf(cells[13], CELL, "%.0f/%.0f", r->build_cold_ms, r->build_warm_ms);
  fmt_opt(cells[14], "%.1f", f.spread_pct);
  fmt_targets(cells[15], &f);
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over the rows of one precision and backend of their own copy
 * GB/s; -1 n/a. */
static double group_copy_median(const bench_row *rows, size_t nrows,
                                fricl_precision p, fricl_backend b) {
  double *v = malloc(sizeof *v * (nrows ? nrows : 1));
  size_t k = 0;
  if (!v)
    return -1.0;
  for (size_t i = 0; i < nrows; ++i) {
    if (rows[i].precision != p || rows[i].backend != b)
      continue;
    bench_figures f;
    bench_figures_of(&rows[i], &f);
    v[k++] = f.copy_gbs;
  }
  qsort(v, k, sizeof *v, cmp_double);
  const double m = k == 0  ? -1.0
                   : k % 2 ? v[k / 2]
                           : 0.5 * (v[k / 2 - 1] + v[k / 2]);
  free(v);
  return m;
}

static const fricl_backend backends[3] = {
    FRICL_BACKEND_REFERENCE, FRICL_BACKEND_HOST, FRICL_BACKEND_OPENCL};

static void print_header(FILE *out, const bench_header *h,
                         const bench_row *rows, size_t nrows, int markdown) {
  const char *b = markdown ? "- " : "";
  char n[CELL];
  fmt_n(n, h->n);
  fprintf(out, "%scontext: --device %s: %s, %u host thread%s%s%s\n", b, h->spec,
          h->device, h->threads, h->threads == 1 ? "" : "s",
          h->driver[0] ? ", OpenCL driver " : "", h->driver);
  fprintf(out, "%sfricl %s, OpenCL build options: %s\n", b, h->fricl_version,
          h->build_options[0] ? h->build_options : "n/a");
  fprintf(out,
          "%sn = %zu (%s) elements per group, %d repeats (median; each "
          "sample >= %.0f ms)\n",
          b, h->n, n, h->repeats, h->min_sample_ms);
  fprintf(out,
          "%scopy roofline, measured interleaved with each group on "
          "the backend that ran the row (median over rows):",
          b);
  int any = 0;
  for (int k = 0; k < 3; ++k)
    for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
      const double g =
          group_copy_median(rows, nrows, (fricl_precision)p, backends[k]);
      if (g < 0)
        continue;
      fprintf(out, "%s %s %s %.2f GB/s", any ? "," : "",
              bench_backend_label(backends[k]), prec_label((fricl_precision)p),
              g);
      any = 1;
    }
  fprintf(out, "%s\n", any ? "" : " n/a");
  fprintf(out,
          "%stiers: host = fricl_scalar_eval on host arrays (what every "
          "caller gets; `ran on` is the backend the context chose), device "
          "= fricl_scalar_eval_cl on cl_mem buffers\n",
          b);
  fprintf(out,
          "%stargets (f64): >= %.0f%% of copy, `all` >= %.1fx the C "
          "reference; max err <= %.0f ulp(sigma) (f32: f32 ulp)\n\n",
          b, BENCH_TARGET_ROOF_PCT, BENCH_TARGET_SPEEDUP, BENCH_TARGET_ERR_ULP);
}

void bench_report_table(FILE *out, const bench_header *h, const bench_row *rows,
                        size_t nrows, int markdown) {
  print_header(out, h, rows, nrows, markdown);
  char(*cells)[NCOLS][CELL] = malloc(sizeof *cells * (nrows + 1));
  if (!cells) {
    fprintf(out, "(out of memory for the table)\n");
    return;
  }
  int width[NCOLS];
  for (int c = 0; c < NCOLS; ++c) {
    snprintf(cells[0][c], CELL, "%s", col_names[c]);
    width[c] = (int)strlen(col_names[c]);
  }
  for (size_t i = 0; i < nrows; ++i) {
    row_cells(&rows[i], cells[i + 1]);
    for (int c = 0; c < NCOLS; ++c)
      if ((int)strlen(cells[i + 1][c]) > width[c])
        width[c] = (int)strlen(cells[i + 1][c]);
  }
  for (size_t i = 0; i <= nrows; ++i) {
    for (int c = 0; c < NCOLS; ++c) {
      const int w = left_aligned(c) ? -width[c] : width[c];
      fprintf(out, markdown ? "| %*s " : (c ? "  %*s" : "%*s"), w, cells[i][c]);
    }
    fprintf(out, markdown ? "|\n" : "\n");
    if (i == 0 && markdown) {
      for (int c = 0; c < NCOLS; ++c) {
        fprintf(out, "|%s", left_aligned(c) ? ":" : "-");
        for (int k = 0; k < width[c]; ++k)
          fputc('-', out);
        fprintf(out, "%s", left_aligned(c) ? "-" : ":");
      }
      fprintf(out, "|\n");
    }
  }
  free(cells);
}

/* ----------------------------------------------------------- outliers */

static void print_case(FILE *out, const bench_worst *w, fricl_precision p) {
  const int digits = p == FRICL_F32 ? 9 : 17;
  fprintf(out,
          "      y = %.*g (%a), eps_v = %.*g, mu_s = %.*g, mu_k = %.*g\n"
          "      got %.*g (%a), reference %.21Lg\n"
          "      = %.2f ulp of sigma = %.6Lg, %.2f ulp of max(sigma, |ref|)\n",
          digits, w->y, w->y, digits, w->eps_v, digits, w->mu_s, digits,
          w->mu_k, digits, w->got, w->got, w->ref, w->err_ulp, w->sigma,
          w->err_val_ulp);
}

static int is_outlier(const bench_row *r, int t) {
  return ((r->mask >> t) & 1u) &&
         (r->term_err[t] > BENCH_TARGET_ERR_ULP || r->term_kind[t] > 0);
}

/* The same output on the same data: term t of two rows of one precision,
 * both with or both without parameter arrays, and the same profile unless
 * t is a (profile-free) mollifier term. The single-term group and `all`
 * compute it alike, so it is reported once. */
static int same_output(const bench_row *a, const bench_row *b, int t) {
  return a->precision == b->precision && a->param_arrays == b->param_arrays &&
         a->tier == b->tier && ((a->mask >> t) & 1u) && ((b->mask >> t) & 1u) &&
         (t < FRICL_SMOOTH_MU || a->profile == b->profile);
}

static void print_outlier(FILE *out, const bench_row *rows, size_t nrows,
                          size_t first, int t) {
  const bench_row *w = &rows[first]; /* the row with the largest error */
  fprintf(out, "  %s %s (%s tier): %s%s, in groups", prec_label(w->precision),
          fricl_term_name((fricl_term)t), bench_tier_label(w->tier),
          t < FRICL_SMOOTH_MU ? "any profile" : bench_profile_label(w->profile),
          w->param_arrays ? ", per-element parameters" : "");
  for (size_t j = first; j < nrows; ++j) {
    if (!same_output(&rows[first], &rows[j], t) || !is_outlier(&rows[j], t))
      continue;
    if (t < FRICL_SMOOTH_MU && rows[j].profile >= 0) /* e.g. all/ipctk */
      fprintf(out, " %s/%s", rows[j].group,
              bench_profile_label(rows[j].profile));
    else
      fprintf(out, " %s", rows[j].group);
    if (rows[j].term_err[t] > w->term_err[t])
      w = &rows[j];
  }
  fprintf(out, "\n");
  if (w->term_err[t] > BENCH_TARGET_ERR_ULP) {
    fprintf(out,
            "    max error %.2f ulp(sigma) (y >= 0: %.2f; in ulp of "
            "max(sigma, |ref|): %.2f), worst:\n",
            w->term_err[t], w->term_err_pos[t], w->term_err_val[t]);
    print_case(out, &w->worst[t], w->precision);
    if (w->term_err_pos[t] > BENCH_TARGET_ERR_ULP) {
      fprintf(out, "    worst with y >= 0:\n");
      print_case(out, &w->worst_pos[t], w->precision);
    }
  }
  if (w->term_kind[t]) {
    fprintf(out, "    %ld non-finite mismatches of %zu, first:\n",
            w->term_kind[t], w->err_checked);
    print_case(out, &w->first_kind[t], w->precision);
  }
}

void bench_report_outliers(FILE *out, const bench_row *rows, size_t nrows) {
  int any = 0;
  for (size_t i = 0; i < nrows; ++i) {
    for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
      if (!is_outlier(&rows[i], t))
        continue;
      int seen = 0;
      for (size_t j = 0; j < i && !seen; ++j)
        seen = same_output(&rows[j], &rows[i], t) && is_outlier(&rows[j], t);
      if (seen)
        continue;
      if (!any)
        fprintf(out,
                "\naccuracy outliers (> %.0f ulp of scale, or "
                "non-finite of another kind):\n",
                BENCH_TARGET_ERR_ULP);
      any = 1;
      print_outlier(out, rows, nrows, i, t);
    }
  }
  if (!any && nrows)
    fprintf(out,
            "\nno accuracy outliers (every output within %.0f ulp of "
            "scale, non-finite values of the same kind)\n",
            BENCH_TARGET_ERR_ULP);
}

/* --------------------------------------------------------------- JSON */

static void json_pass(FILE *f, int pass) {
  fputs(pass < 0 ? "null" : pass ? "\"PASS\"" : "\"MISS\"", f);
}

/* {"term": value, ...} over the row's terms; the '{' is the caller's. */
static void json_terms(FILE *f, const bench_row *r,
                       const double v[FRICL_TERM_COUNT]) {
  int first = 1;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    if (!((r->mask >> t) & 1u))
      continue;
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", fricl_term_name((fricl_term)t));
    bench_json_num(f, v[t]);
    first = 0;
  }
  fputc('}', f);
}

static void json_row(FILE *f, const bench_row *r) {
  bench_figures g;
  bench_figures_of(r, &g);
  fputs("    {\"group\": ", f);
  bench_json_str(f, r->group);
  fprintf(f,
          ", \"profile\": \"%s\", \"precision\": \"%s\", \"n\": %zu, "
          "\"terms\": %d, \"param_arrays\": %d,\n      \"tier\": \"%s\", "
          "\"backend\": \"%s\", \"threads\": %u,\n      ",
          bench_profile_label(r->profile), prec_label(r->precision), r->n,
          r->terms, r->param_arrays, bench_tier_label(r->tier),
          bench_backend_label(r->backend), r->threads);
  bench_json_stats(f, "time_s", &r->time, 1);
  fputs(",\n      ", f);
  bench_json_stats(f, "copy_s", &r->copy, 1);
  fputs(",\n      ", f);
  bench_json_stats(f, "ref_s", &r->ref, 1);
  const struct {
    const char *key;
    double v;
  } nums[] = {{"elems_per_s", g.eps},
              {"eff_gbs", g.eff_gbs},
              {"copy_gbs", g.copy_gbs},
              {"pct_copy", g.pct_copy},
              {"ref_elems_per_s", g.ref_eps},
              {"speedup", g.speedup},
              {"spread_pct", g.spread_pct},
              {"max_err_ulp", r->max_err_ulp},
              {"max_err_pos_ulp", r->max_err_pos_ulp},
              {"max_err_val_ulp", r->max_err_val_ulp},
              {"build_cold_ms", r->build_cold_ms},
              {"build_warm_ms", r->build_warm_ms}};
  fputs(",\n      ", f);
  for (size_t i = 0; i < sizeof nums / sizeof nums[0]; ++i) {
    fprintf(f, "%s\"%s\": ", i ? ", " : "", nums[i].key);
    bench_json_num(f, nums[i].v);
  }
  fprintf(f,
          ",\n      \"err_checked\": %zu, \"kind_mismatches\": %ld, "
          "\"host_mismatches\": ",
          r->err_checked, r->kind_mismatches);
  if (r->host_mismatches < 0)
    fputs("null", f);
  else
    fprintf(f, "%ld", r->host_mismatches);
  fputs(",\n      \"term_max_err_ulp\": {", f);
  json_terms(f, r, r->term_err);
  fputs(",\n      \"term_max_err_pos_ulp\": {", f);
  json_terms(f, r, r->term_err_pos);
  fputs(",\n      \"term_max_err_val_ulp\": {", f);
  json_terms(f, r, r->term_err_val);
  fputs(",\n      \"targets\": {\"roofline\": ", f);
  json_pass(f, g.pass_roof);
  fputs(", \"speedup\": ", f);
  json_pass(f, g.pass_speed);
  fputs(", \"error\": ", f);
  json_pass(f, g.pass_err);
  fputs("}}", f);
}

void bench_report_json_header(FILE *f, const bench_header *h) {
  fputs("  \"tool\": \"fricl bench\",\n  \"device_spec\": ", f);
  bench_json_str(f, h->spec);
  fputs(",\n  \"device\": ", f);
  bench_json_str(f, h->device);
  fprintf(f, ",\n  \"threads\": %u,\n  \"driver_version\": ", h->threads);
  bench_json_str(f, h->driver);
  fputs(",\n  \"fricl_version\": ", f);
  bench_json_str(f, h->fricl_version);
  fputs(",\n  \"build_options\": ", f);
  bench_json_str(f, h->build_options);
  fprintf(f,
          ",\n  \"n\": %zu,\n  \"repeats\": %d,\n  \"min_sample_ms\": ", h->n,
          h->repeats);
  bench_json_num(f, h->min_sample_ms);
  fprintf(f,
          ",\n  \"targets\": {\"roofline_pct\": %g, \"speedup_all\": %g, "
          "\"max_err_ulp\": %g, \"small_auto_vs_reference\": %g}",
          BENCH_TARGET_ROOF_PCT, BENCH_TARGET_SPEEDUP, BENCH_TARGET_ERR_ULP,
          BENCH_TARGET_SMALL_RATIO);
}

void bench_report_json_rows(FILE *f, const bench_row *rows, size_t nrows) {
  fputs("  \"copy_gbs\": {", f);
  int first = 1;
  for (int k = 0; k < 3; ++k)
    for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
      const double g =
          group_copy_median(rows, nrows, (fricl_precision)p, backends[k]);
      if (g < 0)
        continue;
      fprintf(f, "%s\"%s %s\": ", first ? "" : ", ",
              bench_backend_label(backends[k]), prec_label((fricl_precision)p));
      bench_json_num(f, g);
      first = 0;
    }
  fputs("},\n  \"rows\": [\n", f);
  for (size_t i = 0; i < nrows; ++i) {
    json_row(f, &rows[i]);
    fputs(i + 1 < nrows ? ",\n" : "\n", f);
  }
  fputs("  ]", f);
}
