/* bench_sweep.c - see bench_sweep.h. */
#include "bench_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_build.h"
#include "bench_json.h"
#include "bench_scene.h"
#include "bench_timer.h"

#define SWEEP_EPS_V 1e-3
#define SWEEP_SMALL_CONTACTS 8
/* Enough calls per sample for a microsecond-long call to fill one. */
#define SWEEP_MAX_LAUNCHES (1 << 20)

static const char *const op_names[BENCH_SWEEP_OPS] = {"eval", "plan", "build",
                                                      "small"};
static const char *const op_titles[BENCH_SWEEP_OPS] = {
    "potential + gradient + global Hessian (FV, PSD clamp, f64, plan "
    "reused)",
    "plan creation (fricl_tangential_plan_create + destroy, FV topology)",
    "lagged build (fricl_build, mixed FV/EE/EV/VV scene, f64)",
    "8 plane-vertex contacts: value + gradient + local Hessian (f64, plan "
    "reused)"};

void bench_sweep_default_sizes(bench_options *o) {
  if (o->nsizes)
    return;
  const int k = o->quick ? 3 : 6;
  size_t s = 10;
  for (int i = 0; i < k; ++i, s *= 10)
    o->sizes[o->nsizes++] = s;
}

/* ----------------------------------------------------------- contexts */

static int add_backend(bench_sweep_result *res, const char *spec) {
  if (res->nbackends == BENCH_SWEEP_MAX_BACKENDS) {
    fprintf(stderr, "fricl bench sweep: more than %d backends; %s skipped\n",
            BENCH_SWEEP_MAX_BACKENDS, spec);
    return 0;
  }
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  fricl_context *ctx = NULL;
  const fricl_status st = fricl_context_create(&ctx, &p);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench sweep: cannot open '%s': %s: %s\n", spec,
            fricl_status_string(st), msg);
    return 1;
  }
  bench_sweep_backend *b = &res->backends[res->nbackends++];
  memset(b, 0, sizeof *b);
  snprintf(b->name, sizeof b->name, "%s", spec);
  b->ctx = ctx;
  b->threads = fricl_context_threads(ctx);
  return 0;
}

/* reference, host, auto, then every OpenCL device with fp64. */
static int open_backends(bench_sweep_result *res) {
  if (add_backend(res, "reference") || add_backend(res, "host") ||
      add_backend(res, "auto"))
    return 1;
  size_t total = 0;
  if (fricl_devices_list(NULL, 0, &total) != FRICL_STATUS_OK || total == 0) {
    fprintf(stderr, "fricl bench sweep: no OpenCL device%s\n",
#if FRICL_WITH_OPENCL
            ""
#else
            " (built without OpenCL)"
#endif
    );
    return 0;
  }
  fricl_device_info *infos = calloc(total, sizeof *infos);
  if (!infos)
    return 1;
  size_t again = 0;
  fricl_devices_list(infos, total, &again);
  for (size_t i = 0; i < again && i < total; ++i) {
    char spec[32];
    snprintf(spec, sizeof spec, "opencl:%d:%d", infos[i].platform_index,
             infos[i].device_index);
    if (!infos[i].has_fp64) {
      fprintf(stderr, "fricl bench sweep: %s (%s) has no fp64: skipped\n", spec,
              infos[i].device_name);
      continue;
    }
    /* A device that cannot be opened is reported and left out. */
    add_backend(res, spec);
  }
  free(infos);
  return 0;
}

void bench_sweep_free(bench_sweep_result *res) {
  for (int b = 0; b < res->nbackends; ++b) {
    fricl_context_destroy(res->backends[b].ctx);
    res->backends[b].ctx = NULL;
  }
}

/* ---------------------------------------------------------------- jobs */

typedef struct {
  fricl_context *ctx;
  const bench_scene *s;
} plan_run;

static int run_plan(void *arg, int count) {
  plan_run *r = arg;
  for (int i = 0; i < count; ++i) {
    fricl_tangential_plan *plan = NULL;
    if (bench_scene_plan(r->s, r->ctx, &plan))
      return 1;
    fricl_tangential_plan_destroy(plan);
  }
  return 0;
}

typedef struct {
  fricl_context *ctx;
  const fricl_build_batch *b;
} build_run;

static int run_build(void *arg, int count) {
  build_run *r = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = fricl_build(r->ctx, r->b);
    if (st != FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench sweep: fricl_build: %s: %s\n",
              fricl_status_string(st), fricl_context_last_error(r->ctx));
      return 1;
    }
  }
  return 0;
}

/* Time one job per backend, interleaved, and record the points. The
 * warm-up call before says which backend each context ran it on. */
static int time_points(const bench_options *o, bench_sweep_result *res,
                       bench_sweep_op op, size_t contacts, bench_job *jobs) {
  const int nb = res->nbackends;
  fricl_backend ran[BENCH_SWEEP_MAX_BACKENDS];
  for (int b = 0; b < nb; ++b) {
    if (jobs[b].fn(jobs[b].arg, 1))
      return 1;
    ran[b] = fricl_context_last_backend(res->backends[b].ctx);
    jobs[b].max_launches = SWEEP_MAX_LAUNCHES;
  }
  if (bench_time_jobs(jobs, nb, o->repeats, o->min_sample_s))
    return 1;
  for (int b = 0; b < nb; ++b) {
    bench_sweep_point *p = &res->points[res->npoints++];
    p->op = op;
    p->contacts = contacts;
    p->backend = b;
    p->ran_on = ran[b];
    p->st = jobs[b].st;
  }
  return 0;
}

/* eval (and plan) at one size: the scene, a plan per context, the
 * evaluation set up once and borrowed by the other contexts. */
static int sweep_eval(const bench_options *o, bench_sweep_result *res,
                      fricl_stencil type, size_t contacts, bench_eval_mode md,
                      bench_sweep_op op, int with_plan_op) {
  const int nb = res->nbackends;
  bench_scene s;
  fricl_tangential_plan *plans[BENCH_SWEEP_MAX_BACKENDS] = {0};
  bench_eval ev[BENCH_SWEEP_MAX_BACKENDS];
  memset(ev, 0, sizeof ev);
  int rc = 1;
  if (bench_scene_make(&s, type, contacts, SWEEP_EPS_V))
    return 1;
  for (int b = 0; b < nb; ++b)
    if (bench_scene_plan(&s, res->backends[b].ctx, &plans[b]))
      goto done;
  if (bench_eval_setup(&ev[0], res->backends[0].ctx, &s, FRICL_F64, md,
                       plans[0], SWEEP_EPS_V))
    goto done;
  for (int b = 1; b < nb; ++b)
    bench_eval_borrow(&ev[b], &ev[0], res->backends[b].ctx, plans[b]);
  bench_job jobs[BENCH_SWEEP_MAX_BACKENDS];
  memset(jobs, 0, sizeof jobs);
  for (int b = 0; b < nb; ++b) {
    jobs[b].fn = bench_eval_run;
    jobs[b].arg = &ev[b];
  }
  if (time_points(o, res, op, contacts, jobs))
    goto done;
  if (with_plan_op) {
    plan_run pr[BENCH_SWEEP_MAX_BACKENDS];
    memset(jobs, 0, sizeof jobs);
    for (int b = 0; b < nb; ++b) {
      pr[b] = (plan_run){res->backends[b].ctx, &s};
      jobs[b].fn = run_plan;
      jobs[b].arg = &pr[b];
    }
    if (time_points(o, res, BENCH_SWEEP_PLAN, contacts, jobs))
      goto done;
  }
  rc = 0;
done:
  bench_eval_free(&ev[0]);
  for (int b = 0; b < nb; ++b)
    fricl_tangential_plan_destroy(plans[b]);
  bench_scene_free(&s);
  return rc;
}

static int sweep_build(const bench_options *o, bench_sweep_result *res,
                       size_t contacts) {
  bench_build_scene s;
  if (bench_build_scene_make(&s, FRICL_F64, contacts))
    return 1;
  build_run br[BENCH_SWEEP_MAX_BACKENDS];
  bench_job jobs[BENCH_SWEEP_MAX_BACKENDS];
  memset(jobs, 0, sizeof jobs);
  for (int b = 0; b < res->nbackends; ++b) {
    br[b] = (build_run){res->backends[b].ctx, &s.b};
    jobs[b].fn = run_build;
    jobs[b].arg = &br[b];
  }
  const int rc = time_points(o, res, BENCH_SWEEP_BUILD, contacts, jobs);
  bench_build_scene_free(&s);
  return rc;
}

/* ------------------------------------------------------------- report */

static const bench_sweep_point *find(const bench_sweep_result *res,
                                     bench_sweep_op op, size_t contacts,
                                     int backend) {
  for (size_t i = 0; i < res->npoints; ++i) {
    const bench_sweep_point *p = &res->points[i];
    if (p->op == op && p->contacts == contacts && p->backend == backend)
      return p;
  }
  return NULL;
}

static int backend_index(const bench_sweep_result *res, const char *name) {
  for (int b = 0; b < res->nbackends; ++b)
    if (strcmp(res->backends[b].name, name) == 0)
      return b;
  return -1;
}

static int is_opencl(const bench_sweep_backend *b) {
  return strncmp(b->name, "opencl:", 7) == 0;
}

/* Per-call time of `op` at `contacts` on backend b over the reference's;
 * -1 when either is missing. */
static double ratio_to_ref(const bench_sweep_result *res,
                           const bench_sweep_point *p) {
  const int r = backend_index(res, "reference");
  const bench_sweep_point *q = r < 0 ? NULL : find(res, p->op, p->contacts, r);
  return q ? p->st.median / q->st.median : -1.0;
}

/* Operations with a device path whose crossover means something (plan
 * creation is host work on every backend; the small case has one size). */
static int has_crossover(bench_sweep_op op) {
  return op == BENCH_SWEEP_EVAL || op == BENCH_SWEEP_BUILD;
}

/* The smallest size from which on OpenCL backend b beats "host" at every
 * measured size of op; 0: none. */
static size_t crossover(const bench_sweep_result *res, bench_sweep_op op,
                        int b) {
  const int h = backend_index(res, "host");
  size_t from = 0;
  for (int i = res->nsizes - 1; i >= 0; --i) {
    const bench_sweep_point *p = find(res, op, res->sizes[i], b);
    const bench_sweep_point *q = h < 0 ? NULL : find(res, op, res->sizes[i], h);
    if (!p || !q)
      continue;
    if (!(p->st.median < q->st.median))
      break;
    from = res->sizes[i];
  }
  return from;
}

static void fmt_time(char *buf, size_t size, double s) {
  if (s < 1e-3)
    snprintf(buf, size, "%.3g us", s * 1e6);
  else if (s < 1.0)
    snprintf(buf, size, "%.3g ms", s * 1e3);
  else
    snprintf(buf, size, "%.3g s", s);
}

static void print_op(const bench_sweep_result *res, bench_sweep_op op,
                     int markdown) {
  const int nb = res->nbackends;
  int any = 0;
  for (size_t i = 0; i < res->npoints && !any; ++i)
    any = res->points[i].op == op;
  if (!any)
    return;
  printf("\n%s%s: per-call time, median (time / reference time)\n%s",
         markdown ? "#### " : "", op_titles[op], markdown ? "\n" : "");
  if (markdown) {
    printf("| contacts |");
    for (int b = 0; b < nb; ++b)
      printf(" %s |", res->backends[b].name);
    printf("\n|--:|");
    for (int b = 0; b < nb; ++b)
      printf("--:|");
    printf("\n");
  } else {
    printf("%9s", "contacts");
    for (int b = 0; b < nb; ++b)
      printf("  %-26s", res->backends[b].name);
    printf("\n");
  }
  for (int i = 0; i < res->nsizes || op == BENCH_SWEEP_SMALL; ++i) {
    const size_t n =
        op == BENCH_SWEEP_SMALL ? SWEEP_SMALL_CONTACTS : res->sizes[i];
    printf(markdown ? "| %zu |" : "%9zu", n);
    for (int b = 0; b < nb; ++b) {
      const bench_sweep_point *p = find(res, op, n, b);
      char cell[64] = "n/a", t[24];
      if (p) {
        fmt_time(t, sizeof t, p->st.median);
        const int on = strcmp(res->backends[b].name, "auto") == 0;
        snprintf(cell, sizeof cell, "%s (%.2fx)%s%s%s", t, ratio_to_ref(res, p),
                 on ? " [" : "", on ? bench_backend_label(p->ran_on) : "",
                 on ? "]" : "");
      }
      printf(markdown ? " %s |" : "  %-26s", cell);
    }
    printf("\n");
    if (op == BENCH_SWEEP_SMALL)
      break;
  }
  if (!has_crossover(op))
    return;
  for (int b = 0; b < nb; ++b) {
    if (!is_opencl(&res->backends[b]))
      continue;
    const size_t c = crossover(res, op, b);
    if (c)
      printf("crossover: %s beats host from %zu contacts on\n",
             res->backends[b].name, c);
    else
      printf("crossover: none (%s never beats host up to %zu contacts)\n",
             res->backends[b].name, res->sizes[res->nsizes - 1]);
  }
}

/* The small-batch target: auto <= 2x reference. -1: not measured. */
static double small_ratio(const bench_sweep_result *res) {
  const int a = backend_index(res, "auto");
  const bench_sweep_point *p =
      a < 0 ? NULL : find(res, BENCH_SWEEP_SMALL, SWEEP_SMALL_CONTACTS, a);
  return p ? ratio_to_ref(res, p) : -1.0;
}

static void report(const bench_options *o, const bench_sweep_result *res) {
  printf("\n%sBatch-size sweep (%d repeats, median per call, each sample >= "
         "%.0f ms; [..] = the backend auto ran the call on)\n",
         o->markdown ? "### " : "", o->repeats, o->min_sample_s * 1e3);
  for (int b = 0; b < res->nbackends; ++b)
    printf("%s%-12s %s\n", o->markdown ? "- " : "  ", res->backends[b].name,
           res->backends[b].device);
  for (int op = 0; op < BENCH_SWEEP_OPS; ++op)
    print_op(res, (bench_sweep_op)op, o->markdown);
  const double r = small_ratio(res);
  if (r >= 0)
    printf("target: %d plane-vertex contacts on auto cost %.2fx a call on "
           "reference (target <= %.0fx): %s\n",
           SWEEP_SMALL_CONTACTS, r, BENCH_TARGET_SMALL_RATIO,
           r <= BENCH_TARGET_SMALL_RATIO ? "PASS" : "MISS");
}

/* ---------------------------------------------------------------- run */

int bench_sweep_run(const bench_options *o, bench_sweep_result *res) {
  memset(res, 0, sizeof *res);
  for (int i = 0; i < o->nsizes; ++i)
    res->sizes[i] = o->sizes[i];
  res->nsizes = o->nsizes;
  if (open_backends(res))
    return 1;
  fprintf(stderr, "fricl bench sweep: %d backends, %d sizes, %d repeats\n",
          res->nbackends, res->nsizes, o->repeats);
  if (sweep_eval(o, res, FRICL_STENCIL_PV, SWEEP_SMALL_CONTACTS,
                 BENCH_EVAL_LOCAL, BENCH_SWEEP_SMALL, 0))
    return 1;
  for (int i = 0; i < res->nsizes; ++i) {
    const size_t n = res->sizes[i];
    fprintf(stderr, "  %zu contacts\n", n);
    if (sweep_eval(o, res, FRICL_STENCIL_FV, n, BENCH_EVAL_GLOBAL,
                   BENCH_SWEEP_EVAL, 1) ||
        sweep_build(o, res, n))
      return 1;
  }
  for (int b = 0; b < res->nbackends; ++b)
    snprintf(res->backends[b].device, sizeof res->backends[b].device, "%s",
             fricl_context_device_name(res->backends[b].ctx));
  report(o, res);
  return 0;
}

void bench_sweep_json(FILE *f, const bench_sweep_result *res) {
  fputs("  \"sweep\": {\n    \"precision\": \"f64\",\n    \"sizes\": [", f);
  for (int i = 0; i < res->nsizes; ++i)
    fprintf(f, "%s%zu", i ? ", " : "", res->sizes[i]);
  fputs("],\n    \"ops\": {", f);
  for (int op = 0; op < BENCH_SWEEP_OPS; ++op) {
    fprintf(f, "%s\"%s\": ", op ? ", " : "", op_names[op]);
    bench_json_str(f, op_titles[op]);
  }
  fputs("},\n    \"backends\": [", f);
  for (int b = 0; b < res->nbackends; ++b) {
    fprintf(f, "%s\n      {\"name\": ", b ? "," : "");
    bench_json_str(f, res->backends[b].name);
    fputs(", \"device\": ", f);
    bench_json_str(f, res->backends[b].device);
    fprintf(f, ", \"threads\": %u}", res->backends[b].threads);
  }
  fputs(res->nbackends ? "\n    ],\n" : "],\n", f);
  fputs("    \"points\": [", f);
  for (size_t i = 0; i < res->npoints; ++i) {
    const bench_sweep_point *p = &res->points[i];
    fprintf(f, "%s\n      {\"op\": \"%s\", \"contacts\": %zu, \"backend\": ",
            i ? "," : "", op_names[p->op], p->contacts);
    bench_json_str(f, res->backends[p->backend].name);
    fprintf(f, ", \"ran_on\": \"%s\", ", bench_backend_label(p->ran_on));
    bench_json_stats(f, "per_call_s", &p->st, 1);
    fputs(", \"ratio_to_reference\": ", f);
    bench_json_num(f, ratio_to_ref(res, p));
    fputs("}", f);
  }
  fputs(res->npoints ? "\n    ],\n" : "],\n", f);
  fputs("    \"crossover\": [", f);
  int first = 1;
  for (int op = 0; op < BENCH_SWEEP_OPS; ++op) {
    if (!has_crossover((bench_sweep_op)op))
      continue;
    for (int b = 0; b < res->nbackends; ++b) {
      if (!is_opencl(&res->backends[b]))
        continue;
      const size_t c = crossover(res, (bench_sweep_op)op, b);
      fprintf(f, "%s\n      {\"op\": \"%s\", \"device\": ", first ? "" : ",",
              op_names[op]);
      bench_json_str(f, res->backends[b].name);
      fputs(", \"beats_host_from_contacts\": ", f);
      if (c)
        fprintf(f, "%zu}", c);
      else
        fputs("null}", f);
      first = 0;
    }
  }
  fputs(first ? "],\n" : "\n    ],\n", f);
  const double r = small_ratio(res);
  fprintf(f, "    \"small_target\": {\"contacts\": %d, \"auto_to_reference\": ",
          SWEEP_SMALL_CONTACTS);
  bench_json_num(f, r);
  fprintf(f, ", \"target\": %g, \"pass\": %s}\n  }", BENCH_TARGET_SMALL_RATIO,
          r < 0                           ? "null"
          : r <= BENCH_TARGET_SMALL_RATIO ? "true"
                                          : "false");
}
