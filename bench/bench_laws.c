/* bench_laws.c - see bench_laws.h.
 *
 * Rows: two stateless laws (coulomb, stribeck), maxwell (state in place),
 * lugre one RK4 step and one exact-exponential step, gms with m = 4 one RK4
 * step; each in f64 and f32. Bytes per element count every value read or
 * written once (v, x, state in and out, force); % of copy is that
 * bandwidth over the copy's of the backend that ran the row (2 values per
 * element).
 */
#include "bench_laws.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_data.h"
#include "bench_json.h"
#include "bench_ocl.h"
#include "bench_roof.h"
#include "core/internal.h"

#define LAWS_DEFAULT_N ((size_t)10000000)
#define LAWS_QUICK_N ((size_t)1 << 16)

typedef struct {
  const char *name;
  fricl_law law;
  int stepping;
  fricl_integrator integ;
  size_t m;   /* GMS elements */
  int values; /* values moved per element */
} row_def;

static const row_def defs[] = {
    {"coulomb", FRICL_LAW_COULOMB, 0, FRICL_INTEGRATOR_EULER, 0, 2},
    {"stribeck", FRICL_LAW_STRIBECK, 0, FRICL_INTEGRATOR_EULER, 0, 2},
    {"maxwell", FRICL_LAW_MAXWELL, 0, FRICL_INTEGRATOR_EULER, 0, 6},
    {"lugre_rk4", FRICL_LAW_LUGRE, 1, FRICL_INTEGRATOR_RK4, 0, 4},
    {"lugre_exp", FRICL_LAW_LUGRE, 1, FRICL_INTEGRATOR_EXP, 0, 4},
    {"gms4_rk4", FRICL_LAW_GMS, 1, FRICL_INTEGRATOR_RK4, 4, 10}};
#define NDEFS (sizeof defs / sizeof defs[0])

static void set_params(const row_def *d, double *param) {
  static const double P[FRICL_LAW_COUNT][7] = {
      [FRICL_LAW_COULOMB] = {0.3},
      [FRICL_LAW_STRIBECK] = {0.5, 0.3, 0.01, 0.4},
      [FRICL_LAW_MAXWELL] = {1e4, 0.3},
      [FRICL_LAW_LUGRE] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2},
      [FRICL_LAW_GMS] = {0.5, 0.3, 20, 1e4, 0.1, 0.01, 2}};
  memcpy(param, P[d->law], sizeof P[d->law]);
}

static void put(fricl_precision p, void *a, size_t i, double v) {
  if (p == FRICL_F64)
    ((double *)a)[i] = v;
  else
    ((float *)a)[i] = (float)v;
}

/* fricl_law_eval / fricl_law_step on host arrays. */
typedef struct {
  fricl_context *ctx;
  fricl_law_batch b;
  int stepping;
} host_job;

static int run_host(void *arg, int count) {
  host_job *r = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = r->stepping ? fricl_law_step(r->ctx, &r->b)
                                        : fricl_law_eval(r->ctx, &r->b);
    if (st != FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench (laws): %s\n",
              fricl_context_last_error(r->ctx));
      return 1;
    }
  }
  return 0;
}

static void host_batch(const bench_law_case *c, void *force, void *state,
                       host_job *j) {
  fricl_law_batch_init(&j->b, c->law);
  j->stepping = c->stepping;
  j->b.precision = c->prec;
  memcpy(j->b.param, c->param, sizeof j->b.param);
  j->b.normal_force = c->normal_force;
  j->b.n = c->n;
  j->b.h = c->h;
  j->b.integrator = c->integ;
  if (c->law == FRICL_LAW_MAXWELL)
    j->b.x = c->v;
  else
    j->b.v = c->v;
  j->b.force = force;
  if (c->S) {
    j->b.state = state;
    if (c->law == FRICL_LAW_MAXWELL || c->stepping)
      j->b.state_out = state;
  }
  j->b.gms_elements = c->m;
  if (c->m)
    j->b.gms_params = c->gms;
}

/* The rows of one (law, precision): host tier (and device tier), their
 * copies and the C reference, interleaved. */
static int run_def(const bench_options *o, fricl_context *ctx,
                   fricl_context *ref, int has_dev, const row_def *d,
                   fricl_precision prec, size_t n, bench_laws_result *res) {
  const size_t esz = fricl__elem_bytes(prec);
  const size_t S = d->law == FRICL_LAW_GMS       ? d->m
                   : d->law == FRICL_LAW_LUGRE   ? 1
                   : d->law == FRICL_LAW_MAXWELL ? 2
                                                 : 0;
  const size_t gm = 3 * (d->m ? d->m : 1);
  int rc = 1;
  void *hv = bench_alloc(n * esz), *hf = bench_alloc(n * esz);
  void *hs = S ? bench_alloc(n * S * esz) : NULL;
  void *hs0 = S ? bench_alloc(n * S * esz) : NULL;
  void *hge = bench_alloc(gm * esz);
  bench_roofs rs;
  memset(&rs, 0, sizeof rs);
  bench_law_dev *dev = NULL;
  if (!hv || !hf || (S && (!hs || !hs0)) || !hge) {
    fprintf(stderr, "fricl bench (laws): out of memory\n");
    goto cleanup;
  }
  for (size_t i = 0; i < n; ++i) {
    /* Velocities / positions spread over every branch. */
    const double t = (double)((i * 2654435761u) % 100000u) / 100000.0;
    put(prec, hv, i, 0.04 * (t - 0.45));
  }
  for (size_t i = 0; i < n * S; ++i)
    put(prec, hs0, i, 1e-4 * sin((double)i));
  if (S)
    memcpy(hs, hs0, n * S * esz);
  for (size_t j = 0; j < gm; ++j)
    put(prec, hge, j,
        j % 3 == 0   ? 1e3 * (double)(j + 1)
        : j % 3 == 1 ? 5.0
                     : 1.0 / (double)(d->m ? d->m : 1));
  bench_law_case c;
  memset(&c, 0, sizeof c);
  c.law = d->law;
  c.stepping = d->stepping;
  c.prec = prec;
  c.n = n;
  c.S = S;
  c.m = d->m;
  c.integ = d->integ;
  set_params(d, c.param);
  c.normal_force = 10;
  c.h = 1e-5;
  c.v = hv;
  c.state = hs0; /* the device tier starts from the same state */
  c.gms = hge;
  /* The host tier and the C reference share the arrays: the stateful laws
   * advance the same state in place, one step per run. */
  host_job hj = {.ctx = ctx}, rj = {.ctx = ref};
  host_batch(&c, hf, hs, &hj);
  host_batch(&c, hf, hs, &rj);
  rj.ctx = ref;
  if (run_host(&hj, 1))
    goto cleanup;
  bench_law_row *hr = &res->rows[res->nrows], *dr = hr + 1;
  memset(hr, 0, 2 * sizeof *hr);
  hr->name = dr->name = d->name;
  hr->prec = dr->prec = prec;
  hr->n = dr->n = n;
  hr->values = dr->values = d->values;
  hr->tier = BENCH_TIER_HOST;
  dr->tier = BENCH_TIER_DEVICE;
  hr->backend = fricl_context_last_backend(ctx);
  hr->threads =
      hr->backend == FRICL_BACKEND_OPENCL ? 0 : fricl_context_threads(ctx);
  dr->backend = FRICL_BACKEND_OPENCL;
  bench_roof *roof_h = bench_roofs_get(&rs, ctx, hr->backend, prec, n);
  if (!roof_h)
    goto cleanup;
  bench_job jobs[5];
  int nj = 0, i_dev = -1, i_copy_d = -1;
  const int i_copy_h = nj;
  jobs[nj++] = bench_roof_job(roof_h);
  if (has_dev) {
    bench_roof *roof_d =
        bench_roofs_get(&rs, ctx, FRICL_BACKEND_OPENCL, prec, n);
    if (!roof_d)
      goto cleanup;
    i_copy_d = i_copy_h;
    if (roof_d != roof_h) {
      i_copy_d = nj;
      jobs[nj++] = bench_roof_job(roof_d);
    }
    if (bench_law_dev_open(ctx, &c, &dev))
      goto cleanup;
    i_dev = nj;
    jobs[nj++] = (bench_job){.fn = bench_law_dev_run, .arg = dev};
  }
  const int i_ref = nj;
  jobs[nj++] = (bench_job){.fn = run_host, .arg = &rj};
  const int i_host = nj;
  jobs[nj++] = (bench_job){.fn = run_host, .arg = &hj};
  if (bench_time_jobs(jobs, nj, o->repeats, o->min_sample_s))
    goto cleanup;
  hr->time = jobs[i_host].st;
  hr->copy = jobs[i_copy_h].st;
  hr->ref = jobs[i_ref].st;
  ++res->nrows;
  if (dev && i_dev >= 0 && i_copy_d >= 0) {
    dr->time = jobs[i_dev].st;
    dr->copy = jobs[i_copy_d].st;
    dr->ref = jobs[i_ref].st;
    ++res->nrows;
  }
  rc = 0;
cleanup:
  bench_law_dev_close(dev);
  bench_roofs_close(&rs);
  bench_free(hv);
  bench_free(hf);
  bench_free(hs);
  bench_free(hs0);
  bench_free(hge);
  return rc;
}

/* ----------------------------------------------------------- report */

typedef struct {
  double eps, gbs, copy_gbs, pct, speedup;
} figures;

static void figures_of(const bench_law_row *r, figures *f) {
  const double esz = r->prec == FRICL_F32 ? 4.0 : 8.0;
  f->eps = (double)r->n / r->time.median;
  f->gbs = f->eps * r->values * esz * 1e-9;
  f->copy_gbs = 2.0 * esz * (double)r->n / r->copy.median * 1e-9;
  f->pct = 100.0 * f->gbs / f->copy_gbs;
  f->speedup = r->ref.median / r->time.median;
}

static void backend_cell(char *buf, size_t size, const bench_law_row *r) {
  if (r->backend == FRICL_BACKEND_HOST)
    snprintf(buf, size, "host/%u", r->threads);
  else
    snprintf(buf, size, "%s", bench_backend_label(r->backend));
}

static void report(FILE *out, const char *device, const bench_law_row *rows,
                   size_t nrows, int md) {
  fprintf(out,
          "\n%sFriction laws (%s; copy roofline on the backend that "
          "ran the row)\n%s",
          md ? "### " : "", device, md ? "\n" : "");
  fprintf(out,
          md ? "| law | prec | tier | ran on | n | Melem/s | GB/s | copy GB/s "
               "| %% of copy | x C ref |\n|---|---|---|---|---|---|---|---|---"
               "|---|\n"
             : "%-10s %-4s %-6s %-9s %10s %9s %7s %9s %9s %8s\n",
          "law", "prec", "tier", "ran on", "n", "Melem/s", "GB/s", "copy GB/s",
          "% of copy", "x C ref");
  for (size_t i = 0; i < nrows; ++i) {
    figures f;
    char be[32];
    figures_of(&rows[i], &f);
    backend_cell(be, sizeof be, &rows[i]);
    fprintf(out,
            md ? "| %s | %s | %s | %s | %zu | %.1f | %.2f | %.2f | %.0f%% | "
                 "%.2f |\n"
               : "%-10s %-4s %-6s %-9s %10zu %9.1f %7.2f %9.2f %8.0f%% "
                 "%8.2f\n",
            rows[i].name, rows[i].prec == FRICL_F32 ? "f32" : "f64",
            rows[i].tier == BENCH_TIER_DEVICE ? "device" : "host", be,
            rows[i].n, f.eps * 1e-6, f.gbs, f.copy_gbs, f.pct, f.speedup);
  }
  fprintf(out, "\n(GB/s counts every value read or written once: v or x, "
               "state in and out, force; target: stateless and maxwell >= "
               "75%% of copy)\n");
}

int bench_laws_run(const bench_options *o, fricl_context *ctx,
                   fricl_context *ref, int has_dev, bench_laws_result *res) {
  memset(res, 0, sizeof *res);
  const size_t n = o->n_set ? o->n : o->quick ? LAWS_QUICK_N : LAWS_DEFAULT_N;
  const char *dev = fricl_context_device_name(ctx);
  fprintf(stderr, "fricl bench laws: %s, n = %zu, %d repeats\n", dev, n,
          o->repeats);
  for (int pr = FRICL_F64; pr <= FRICL_F32; ++pr) {
    if (!((o->precisions >> pr) & 1u))
      continue;
    if (pr == FRICL_F64 && !fricl_context_has_fp64(ctx)) {
      fprintf(stderr,
              "fricl bench (laws): no fp64 on %s: f64 rows "
              "skipped\n",
              dev);
      continue;
    }
    for (size_t d = 0; d < NDEFS; ++d) {
      const size_t first = res->nrows;
      if (run_def(o, ctx, ref, has_dev, &defs[d], (fricl_precision)pr, n, res))
        return 1;
      for (size_t i = first; i < res->nrows; ++i) {
        figures f;
        figures_of(&res->rows[i], &f);
        fprintf(stderr,
                "  %-10s %s %-6s on %-9s %8.1f Melem/s %6.1f%% of copy %6.2fx "
                "C ref\n",
                defs[d].name, pr == FRICL_F32 ? "f32" : "f64",
                res->rows[i].tier == BENCH_TIER_DEVICE ? "device" : "host",
                bench_backend_label(res->rows[i].backend), f.eps * 1e-6, f.pct,
                f.speedup);
      }
    }
  }
  report(stdout, dev, res->rows, res->nrows, o->markdown);
  return 0;
}

void bench_laws_json(FILE *f, const bench_laws_result *res) {
  fputs("  \"laws\": [", f);
  for (size_t i = 0; i < res->nrows; ++i) {
    const bench_law_row *r = &res->rows[i];
    figures fg;
    figures_of(r, &fg);
    fprintf(f,
            "%s\n    {\"law\": \"%s\", \"precision\": \"%s\", \"tier\": "
            "\"%s\", \"backend\": \"%s\", \"threads\": %u, \"n\": %zu,\n      ",
            i ? "," : "", r->name, r->prec == FRICL_F32 ? "f32" : "f64",
            r->tier == BENCH_TIER_DEVICE ? "device" : "host",
            bench_backend_label(r->backend), r->threads, r->n);
    bench_json_stats(f, "time_s", &r->time, 1);
    fputs(",\n      ", f);
    bench_json_stats(f, "copy_s", &r->copy, 1);
    fputs(",\n      ", f);
    bench_json_stats(f, "ref_s", &r->ref, 1);
    fputs(",\n      \"elements_per_s\": ", f);
    bench_json_num(f, fg.eps);
    fputs(", \"gbs\": ", f);
    bench_json_num(f, fg.gbs);
    fputs(", \"copy_gbs\": ", f);
    bench_json_num(f, fg.copy_gbs);
    fputs(", \"pct_copy\": ", f);
    bench_json_num(f, fg.pct);
    fputs(", \"speedup\": ", f);
    bench_json_num(f, fg.speedup);
    fputs("}", f);
  }
  fputs(res->nrows ? "\n  ]" : "]", f);
}
