/*
 * bench_contacts.c - see bench_contacts.h.
 *
 * "Bytes" are the compulsory traffic of the row: every input read once and
 * every output written once (lagged data, vertex ids, velocities;
 * per-contact outputs; global vectors and the BSR values). Intermediate
 * traffic (the per-contact records the assembly gathers) is a cost of the
 * method and so not counted, which makes "% of copy" an honest efficiency
 * figure. The copy moves 2^24 elements (--quick: 2^20) of the precision,
 * on the backend that ran the row.
 */
#include "bench_contacts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_json.h"
#include "bench_roof.h"
#include "bench_timer.h"

#define COPY_ELEMENTS ((size_t)1 << 24)
#define COPY_ELEMENTS_QUICK ((size_t)1 << 20)

static const char *prec_name(fricl_precision p) {
  return p == FRICL_F64 ? "f64" : "f32";
}

static void backend_cell(char *buf, size_t size, fricl_backend b,
                         unsigned threads) {
  if (b == FRICL_BACKEND_HOST)
    snprintf(buf, size, "host/%u", threads);
  else
    snprintf(buf, size, "%s", bench_backend_label(b));
}

static double copy_gbs(const bench_contact_row *r) {
  const double esz = r->prec == FRICL_F64 ? 8 : 4;
  return 2.0 * (double)r->copy_n * esz / r->copy.median * 1e-9;
}

static void print_rows(const bench_contact_row *r, size_t n, int markdown) {
  const char *hdr[] = {"stencil",    "prec",    "outputs",   "ran on",
                       "contacts/s", "GB/s",    "copy GB/s", "% copy",
                       "x C ref",    "spread %"};
  enum { NH = sizeof hdr / sizeof hdr[0] };
  if (markdown) {
    printf("|");
    for (int i = 0; i < NH; ++i)
      printf(" %s |", hdr[i]);
    printf("\n|:--|:--|:--|:--|--:|--:|--:|--:|--:|--:|\n");
  } else {
    printf("%-7s %-4s %-18s %-9s %12s %8s %9s %7s %8s %8s\n", hdr[0], hdr[1],
           hdr[2], hdr[3], hdr[4], hdr[5], hdr[6], hdr[7], hdr[8], hdr[9]);
  }
  for (size_t i = 0; i < n; ++i) {
    const double cps = (double)r[i].count / r[i].time.median;
    const double gbs = r[i].bytes / r[i].time.median * 1e-9;
    const double cg = copy_gbs(&r[i]);
    const double sp = r[i].ref.median / r[i].time.median;
    const double spread =
        100 * (r[i].time.max - r[i].time.min) / r[i].time.median;
    char be[32];
    backend_cell(be, sizeof be, r[i].backend, r[i].threads);
    const char *sn = fricl_stencil_name(r[i].type);
    if (markdown)
      printf(
          "| %s | %s | %s | %s | %.3g | %.2f | %.2f | %.1f | %.2f | %.0f |\n",
          sn, prec_name(r[i].prec), bench_eval_mode_name(r[i].mode), be, cps,
          gbs, cg, 100 * gbs / cg, sp, spread);
    else
      printf("%-7s %-4s %-18s %-9s %12.3g %8.2f %9.2f %7.1f %8.2f %8.0f\n", sn,
             prec_name(r[i].prec), bench_eval_mode_name(r[i].mode), be, cps,
             gbs, cg, 100 * gbs / cg, sp, spread);
  }
  /* The factored-vs-dense target: same stencil and precision, the Hessian
   * outputs alone. */
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (r[i].mode == BENCH_EVAL_LOCAL_ONLY &&
          r[j].mode == BENCH_EVAL_FACTORED_ONLY && r[i].prec == r[j].prec &&
          r[i].type == r[j].type)
        printf("%s %s: factored output %.2fx faster than dense local\n",
               fricl_stencil_name(r[i].type), prec_name(r[i].prec),
               r[i].time.median / r[j].time.median);
}

/* One row: the warm-up call names the backend, whose copy is timed with
 * the row and the C reference. */
static int one_row(const bench_options *o, fricl_context *ctx,
                   fricl_context *ref, const bench_scene *s, fricl_precision p,
                   bench_eval_mode md, const fricl_tangential_plan *plan,
                   const fricl_tangential_plan *plan_ref, size_t nnz, double e,
                   bench_roofs *rs, bench_contact_row *row) {
  bench_eval a, r;
  if (bench_eval_setup(&a, ctx, s, p, md, plan, e))
    return 1;
  if (bench_eval_setup(&r, ref, s, p, md, plan_ref, e)) {
    bench_eval_free(&a);
    return 1;
  }
  int rc = 1;
  memset(row, 0, sizeof *row);
  row->type = s->type;
  row->prec = p;
  row->mode = md;
  row->count = s->count;
  row->bytes = bench_eval_bytes(s, p, md, nnz);
  row->copy_n = o->quick ? COPY_ELEMENTS_QUICK : COPY_ELEMENTS;
  if (bench_eval_run(&a, 1))
    goto done;
  row->backend = fricl_context_last_backend(ctx);
  row->threads =
      row->backend == FRICL_BACKEND_OPENCL ? 0 : fricl_context_threads(ctx);
  bench_roof *roof = bench_roofs_get(rs, ctx, row->backend, p, row->copy_n);
  if (!roof)
    goto done;
  bench_job jobs[3] = {{.fn = bench_eval_run, .arg = &a},
                       {.fn = bench_eval_run, .arg = &r},
                       bench_roof_job(roof)};
  if (bench_time_jobs(jobs, 3, o->repeats, o->min_sample_s))
    goto done;
  row->time = jobs[0].st;
  row->ref = jobs[1].st;
  row->copy = jobs[2].st;
  rc = 0;
done:
  bench_eval_free(&a);
  bench_eval_free(&r);
  return rc;
}

int bench_contacts_one(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref, fricl_stencil type,
                       fricl_precision p, bench_eval_mode md, size_t count,
                       bench_contact_row *row) {
  const double e = 1e-3;
  bench_scene s;
  if (bench_scene_make(&s, type, count, e))
    return 1;
  fricl_tangential_plan *plan = NULL, *plan_ref = NULL;
  int bad =
      bench_scene_plan(&s, ctx, &plan) || bench_scene_plan(&s, ref, &plan_ref);
  if (!bad) {
    size_t nnz = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    bench_roofs rs;
    memset(&rs, 0, sizeof rs);
    bad = one_row(o, ctx, ref, &s, p, md, plan, plan_ref, nnz, e, &rs, row);
    bench_roofs_close(&rs);
  }
  fricl_tangential_plan_destroy(plan);
  fricl_tangential_plan_destroy(plan_ref);
  bench_scene_free(&s);
  return bad;
}

int bench_contacts_run(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref, size_t count,
                       bench_contacts_result *res) {
  const double e = 1e-3;
  const fricl_stencil types[2] = {FRICL_STENCIL_FV, FRICL_STENCIL_EE};
  memset(res, 0, sizeof *res);
  fprintf(stderr, "fricl bench contacts: %zu contacts per row, %d repeats\n",
          count, o->repeats);
  for (int t = 0; t < 2; ++t) {
    bench_scene s;
    if (bench_scene_make(&s, types[t], count, e))
      return 1;
    fricl_tangential_plan *plan = NULL, *plan_ref = NULL;
    if (bench_scene_plan(&s, ctx, &plan) ||
        bench_scene_plan(&s, ref, &plan_ref)) {
      fricl_tangential_plan_destroy(plan);
      bench_scene_free(&s);
      return 1;
    }
    size_t nnz = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    int bad = 0;
    for (int p = FRICL_F64; p <= FRICL_F32 && !bad; ++p) {
      if (!((o->precisions >> p) & 1u))
        continue;
      if (p == FRICL_F64 && !fricl_context_has_fp64(ctx)) {
        fprintf(stderr,
                "fricl bench contacts: no fp64 on %s: f64 rows "
                "skipped\n",
                fricl_context_device_name(ctx));
        continue;
      }
      bench_roofs rs;
      memset(&rs, 0, sizeof rs);
      for (int md = 0; md < BENCH_EVAL_MODE_COUNT && !bad; ++md) {
        bench_contact_row *row = &res->rows[res->nrows];
        bad = one_row(o, ctx, ref, &s, (fricl_precision)p, (bench_eval_mode)md,
                      plan, plan_ref, nnz, e, &rs, row);
        if (bad)
          break;
        ++res->nrows;
        fprintf(stderr, "  %s %s %-18s on %s: %.3g contacts/s, %.2fx C ref\n",
                fricl_stencil_name(row->type), prec_name(row->prec),
                bench_eval_mode_name(row->mode),
                bench_backend_label(row->backend),
                (double)s.count / row->time.median,
                row->ref.median / row->time.median);
      }
      bench_roofs_close(&rs);
    }
    fricl_tangential_plan_destroy(plan);
    fricl_tangential_plan_destroy(plan_ref);
    bench_scene_free(&s);
    if (bad)
      return 1;
  }
  printf("\n%sContacts (%s, %zu contacts per row, PSD clamp, plan reused; "
         "copy roofline on the backend that ran the row; C reference "
         "single-thread):\n%s",
         o->markdown ? "### " : "", fricl_context_device_name(ctx), count,
         o->markdown ? "\n" : "");
  if (!res->nrows)
    printf("(no rows: no precision the context supports was selected)\n");
  else
    print_rows(res->rows, res->nrows, o->markdown);
  return 0;
}

void bench_contacts_json(FILE *f, const bench_contacts_result *res) {
  fputs("  \"contacts\": [", f);
  for (size_t i = 0; i < res->nrows; ++i) {
    const bench_contact_row *r = &res->rows[i];
    fprintf(f,
            "%s\n    {\"stencil\": \"%s\", \"precision\": \"%s\", "
            "\"outputs\": \"%s\", \"contacts\": %zu, \"backend\": \"%s\", "
            "\"threads\": %u,\n      \"bytes\": ",
            i ? "," : "", fricl_stencil_name(r->type), prec_name(r->prec),
            bench_eval_mode_name(r->mode), r->count,
            bench_backend_label(r->backend), r->threads);
    bench_json_num(f, r->bytes);
    fprintf(f, ", \"copy_elements\": %zu,\n      ", r->copy_n);
    bench_json_stats(f, "time_s", &r->time, 1);
    fputs(",\n      ", f);
    bench_json_stats(f, "ref_s", &r->ref, 1);
    fputs(",\n      ", f);
    bench_json_stats(f, "copy_s", &r->copy, 1);
    const double gbs = r->bytes / r->time.median * 1e-9;
    fputs(",\n      \"contacts_per_s\": ", f);
    bench_json_num(f, (double)r->count / r->time.median);
    fputs(", \"eff_gbs\": ", f);
    bench_json_num(f, gbs);
    fputs(", \"copy_gbs\": ", f);
    bench_json_num(f, copy_gbs(r));
    fputs(", \"pct_copy\": ", f);
    bench_json_num(f, 100 * gbs / copy_gbs(r));
    fputs(", \"speedup\": ", f);
    bench_json_num(f, r->ref.median / r->time.median);
    fputs("}", f);
  }
  fputs(res->nrows ? "\n  ]" : "]", f);
}
