/*
 * bench_main.c - `fricl bench`: options, the list of groups, and the driver
 * that runs every selected (precision, group, profile) and reports.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_build.h"
#include "bench_contacts.h"
#include "bench_laws.h"
#include "bench_multi.h"
#include "bench_ocl.h"
#include "bench_report.h"
#include "bench_resident.h"
#include "bench_scalar.h"

#define BENCH_DEFAULT_N ((size_t)1 << 24)
#define BENCH_QUICK_N ((size_t)1 << 16)
#define BENCH_DEFAULT_CONTACTS ((size_t)1000000)
#define BENCH_QUICK_CONTACTS ((size_t)1 << 14)
#define BENCH_DEFAULT_REPEATS 7
#define BENCH_QUICK_REPEATS 3
#define BENCH_MIN_SAMPLE_S 0.020
#define BENCH_ERR_SAMPLES 65536

/* ------------------------------------------------------------- groups */

/* One group per term, then `all` (twelve terms, one pass, shared loads)
 * and `all_per_element` (the same with eps_v, mu_s, mu_k arrays). */
#define BENCH_NGROUPS (FRICL_TERM_COUNT + 2)

static void make_groups(bench_group g[BENCH_NGROUPS]) {
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    g[t] = (bench_group){fricl_term_name((fricl_term)t), 1u << t, 0,
                         t < FRICL_SMOOTH_MU};
  const unsigned all = (1u << FRICL_TERM_COUNT) - 1u;
  g[FRICL_TERM_COUNT] = (bench_group){"all", all, 0, 0};
  g[FRICL_TERM_COUNT + 1] = (bench_group){"all_per_element", all, 1, 0};
}

static int group_selected(const bench_options *o, const bench_group *g) {
  if (o->ngroups == 0)
    return 1;
  for (int i = 0; i < o->ngroups; ++i)
    if (strcmp(o->groups[i], g->name) == 0)
      return 1;
  return 0;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *out) {
  fprintf(
      out,
      "usage: fricl bench [options]\n"
      "\n"
      "Throughput and accuracy of the scalar friction family on one device:\n"
      "device tier (cl_mem buffers) against a plain copy kernel (the\n"
      "roofline) and the single-thread C reference, plus the host tier\n"
      "end to end, kernel build times and the max error against a\n"
      "long-double reference in ulp of the value's scale (the largest\n"
      "addend of its formula; see tests/ref/scalar_ref_ld.h).\n"
      "\n"
      "options:\n"
      "  --device SPEC       auto, gpu, cpu, opencl:P:D or reference\n"
      "                      (default: $FRICL_DEVICE, else auto); a device\n"
      "                      list (opencl:0:0,opencl:0:1, all-gpu) runs the\n"
      "                      per-device rows instead (--device LIST --help)\n"
      "  --n N               elements per group (default 2^24; 2^k allowed)\n"
      "  --repeats R         timed samples per tier (default 7)\n"
      "  --precision P       f64, f32 or both (default both)\n"
      "  --profile P         cubic, ipctk or both (default both)\n"
      "  --group NAME        run only this group (repeatable): a term name\n"
      "                      such as smooth_mu_f0, all, all_per_element;\n"
      "                      `laws` runs the friction-law rows alone,\n"
      "                      `build` the lagged-build rows (= --suite build)\n"
      "  --suite S           scalar, contacts, build, laws or all\n"
      "                      (default all); `resident` alone runs the\n"
      "                      device-resident Newton iteration rows (also\n"
      "                      part of build; --suite resident --help)\n"
      "  --contacts N        contacts per row of the contacts and build\n"
      "                      suites\n"
      "                      (default 10^6)\n"
      "  --quick             n = 2^16, 2^14 contacts, 3 repeats (for tests)\n"
      "  --json FILE         also write every row as JSON (atomically)\n"
      "  --markdown          print the table as Markdown\n"
      "  --help              this text\n"
      "\n"
      "Targets (f64, printed as PASS/MISS; the exit status ignores them):\n"
      "every group >= 75%% of the copy roofline, `all` >= 1.5x the C\n"
      "reference, max error <= 4 ulp of scale (f32: 4 f32 ulp).\n");
}

/* "N" or "2^k", N >= 1. */
static int parse_size(const char *s, size_t *out) {
  char *end = NULL;
  errno = 0;
  if (strncmp(s, "2^", 2) == 0) {
    const long k = strtol(s + 2, &end, 10);
    if (errno || *end || end == s + 2 || k < 0 || k > 40)
      return 1;
    *out = (size_t)1 << k;
    return 0;
  }
  const unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || end == s || v == 0 || s[0] == '-' || v > SIZE_MAX)
    return 1;
  *out = (size_t)v;
  return 0;
}

static int parse_both(const char *s, const char *a, const char *b,
                      unsigned *mask) {
  if (strcmp(s, a) == 0)
    *mask = 1u;
  else if (strcmp(s, b) == 0)
    *mask = 2u;
  else if (strcmp(s, "both") == 0)
    *mask = 3u;
  else
    return 1;
  return 0;
}

/* Returns 0 to run, 1 after --help, 2 on a usage error. */
static int parse_options(int argc, char **argv, bench_options *o) {
  size_t n = 0, contacts = 0;
  int repeats = 0, quick = 0, suite_set = 0;
  bench_group groups[BENCH_NGROUPS];
  make_groups(groups);
  memset(o, 0, sizeof *o);
  o->precisions = 3u; /* bit 0: f64 (FRICL_F64 = 0), bit 1: f32 */
  o->profiles = 3u;   /* bit 0: cubic, bit 1: ipctk */
  o->suites = BENCH_SUITES_ALL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 1;
    }
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
      continue;
    }
    if (strcmp(a, "--markdown") == 0) {
      o->markdown = 1;
      continue;
    }
    /* Options with a value: "--opt VALUE" or "--opt=VALUE". */
    static const char *const valued[] = {
        "--device", "--n",    "--repeats", "--precision", "--profile",
        "--group",  "--json", "--suite",   "--contacts"};
    const char *val = NULL;
    size_t k = 0;
    for (; k < sizeof valued / sizeof valued[0]; ++k) {
      const size_t len = strlen(valued[k]);
      if (strncmp(a, valued[k], len) == 0 && a[len] == '=') {
        val = a + len + 1;
        break;
      }
      if (strcmp(a, valued[k]) == 0) {
        if (i + 1 >= argc) {
          fprintf(stderr, "fricl bench: %s needs a value\n", a);
          return 2;
        }
        val = argv[++i];
        break;
      }
    }
    if (!val) {
      fprintf(stderr, "fricl bench: unknown option '%s' (see --help)\n", a);
      return 2;
    }
    int bad = 0;
    switch (k) {
    case 0:
      o->device = val;
      break;
    case 1:
      bad = parse_size(val, &n);
      break;
    case 2: {
      char *end = NULL;
      const long r = strtol(val, &end, 10);
      bad = *val == '\0' || *end || r < 1 || r > 1000;
      repeats = bad ? 0 : (int)r;
      break;
    }
    case 3:
      bad = parse_both(val, "f64", "f32", &o->precisions);
      break;
    case 4:
      bad = parse_both(val, "cubic", "ipctk", &o->profiles);
      break;
    case 5: {
      int known = strcmp(val, "build") == 0;
      for (int g = 0; g < BENCH_NGROUPS; ++g)
        known |= strcmp(groups[g].name, val) == 0;
      if (!known) {
        fprintf(stderr, "fricl bench: unknown group '%s'; groups are:", val);
        for (int g = 0; g < BENCH_NGROUPS; ++g)
          fprintf(stderr, " %s", groups[g].name);
        fprintf(stderr, " build");
        fprintf(stderr, "\n");
        return 2;
      }
      if (o->ngroups == BENCH_MAX_GROUP_ARGS) {
        fprintf(stderr, "fricl bench: too many --group options\n");
        return 2;
      }
      o->groups[o->ngroups++] = val;
      break;
    }
    case 6:
      o->json_path = val;
      break;
    case 7:
      suite_set = 1;
      if (strcmp(val, "scalar") == 0)
        o->suites = BENCH_SUITE_SCALAR;
      else if (strcmp(val, "contacts") == 0)
        o->suites = BENCH_SUITE_CONTACTS;
      else if (strcmp(val, "laws") == 0)
        o->suites = BENCH_SUITE_LAWS;
      else if (strcmp(val, "build") == 0)
        o->suites = BENCH_SUITE_BUILD;
      else if (strcmp(val, "all") == 0)
        o->suites = BENCH_SUITES_ALL;
      else
        bad = 1;
      break;
    case 8:
      bad = parse_size(val, &contacts);
      break;
    default:
      bad = 1;
      break;
    }
    if (bad) {
      fprintf(stderr, "fricl bench: bad value '%s' for %.*s\n", val,
              (int)strlen(valued[k]), valued[k]);
      return 2;
    }
  }
  /* --quick sets defaults; explicit --n / --repeats win in any order. */
  o->n = n ? n : quick ? BENCH_QUICK_N : BENCH_DEFAULT_N;
  o->repeats = repeats ? repeats
               : quick ? BENCH_QUICK_REPEATS
                       : BENCH_DEFAULT_REPEATS;
  o->quick = quick;
  o->contacts = contacts ? contacts
                : quick  ? BENCH_QUICK_CONTACTS
                         : BENCH_DEFAULT_CONTACTS;
  /* --group names scalar groups: it implies the scalar suite unless one
   * was chosen explicitly. */
  if (o->ngroups && !suite_set) {
    /* `--group build` is the build suite (the lagged build). */
    unsigned s = 0;
    for (int i = 0; i < o->ngroups; ++i)
      s |= strcmp(o->groups[i], "build") == 0 ? BENCH_SUITE_BUILD
                                              : BENCH_SUITE_SCALAR;
    o->suites = s;
  }
  o->min_sample_s = BENCH_MIN_SAMPLE_S;
  o->err_samples = BENCH_ERR_SAMPLES;
  return 0;
}

/* ------------------------------------------------------------- driver */

static int make_context(const char *device, fricl_context **out) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = device;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  const fricl_status st = fricl_context_create(out, &p);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench: cannot open device '%s': %s: %s\n",
            device ? device : "(default)", fricl_status_string(st), msg);
    return 1;
  }
  return 0;
}

static void fill_header(const bench_env *env, bench_header *h) {
  memset(h, 0, sizeof *h);
  snprintf(h->device, sizeof h->device, "%s",
           fricl_context_device_name(env->ctx));
  snprintf(h->backend, sizeof h->backend, "%s",
           env->is_cl ? "OpenCL" : "reference backend");
  snprintf(h->fricl_version, sizeof h->fricl_version, "%s",
           fricl_version_string());
  snprintf(h->driver, sizeof h->driver, "n/a");
  if (env->is_cl) {
    cl_device_id dev = NULL;
    char drv[sizeof h->driver] = "";
    if (fricl_context_get_cl(env->ctx, NULL, &dev, NULL) == FRICL_STATUS_OK &&
        clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof drv - 1, drv, NULL) ==
            CL_SUCCESS)
      snprintf(h->driver, sizeof h->driver, "%s", drv);
    snprintf(h->build_options, sizeof h->build_options, "%s",
             bench_ocl(env->ctx) ? bench_ocl(env->ctx)->build_options : "");
  }
  h->n = env->opt->n;
  h->repeats = env->opt->repeats;
  h->min_sample_ms = env->opt->min_sample_s * 1e3;
  h->copy_gbs[FRICL_F64] = h->copy_gbs[FRICL_F32] = -1.0;
}

/* Rows: all groups of both profiles and precisions at most. */
#define BENCH_MAX_ROWS (2 * 2 * BENCH_NGROUPS)

static void progress(size_t k, const bench_row *r) {
  bench_figures f;
  bench_figures_of(r, &f);
  fprintf(stderr, "[%2zu] %s %-5s %-36s", k,
          r->precision == FRICL_F32 ? "f32" : "f64",
          bench_profile_label(r->profile), r->group);
  if (r->have_kernel)
    fprintf(stderr,
            " %9.1f Melem/s %6.1f%% copy %6.2fx C ref, 1st launch %4.0f ms",
            f.kernel_eps * 1e-6, f.pct_copy, f.speedup, r->kernel.first * 1e3);
  else
    fprintf(stderr, " host %9.1f Melem/s", f.host_eps * 1e-6);
  fprintf(stderr, "  err %.2f ulp (y>=0 %.2f)%s\n", r->max_err_ulp,
          r->max_err_pos_ulp, r->kind_mismatches ? " (kind mismatches)" : "");
}

/* Every selected group of one precision. */
static int run_precision(bench_env *env, fricl_precision prec, bench_header *h,
                         bench_row *rows, size_t *nrows) {
  const bench_options *o = env->opt;
  bench_group groups[BENCH_NGROUPS];
  make_groups(groups);
  int per_element = 0;
  for (int g = 0; g < BENCH_NGROUPS; ++g)
    per_element |= groups[g].per_element && group_selected(o, &groups[g]);
  if (bench_scalar_begin(env, prec, per_element))
    return 1;
  int rc = 1;
  if (env->is_cl && bench_copy_roofline(env, &h->copy_gbs[prec]))
    goto cleanup;
  for (int g = 0; g < BENCH_NGROUPS; ++g) {
    if (!group_selected(o, &groups[g]))
      continue;
    for (int p = FRICL_MU_CUBIC; p <= FRICL_MU_IPCTK; ++p) {
      if (groups[g].profile_free ? p != FRICL_MU_CUBIC
                                 : !((o->profiles >> p) & 1u))
        continue;
      if (*nrows >= BENCH_MAX_ROWS)
        goto cleanup;
      if (bench_scalar_group(env, &groups[g], (fricl_mu_profile)p,
                             &rows[*nrows]))
        goto cleanup;
      progress(*nrows + 1, &rows[*nrows]);
      ++*nrows;
    }
  }
  rc = 0;
cleanup:
  bench_scalar_end(env);
  return rc;
}

/* The friction-law rows (bench_laws.c has its own driver): the shared
 * options passed on. */
static int run_laws_suite(const bench_options *o) {
  char rep[16], *argv[16];
  int argc = 0;
  argv[argc++] = "bench";
  argv[argc++] = "--group";
  argv[argc++] = "laws";
  if (o->device) {
    argv[argc++] = "--device";
    argv[argc++] = (char *)(uintptr_t)o->device;
  }
  if (o->precisions != 3u) {
    argv[argc++] = "--precision";
    argv[argc++] = o->precisions == 1u ? "f64" : "f32";
  }
  if (o->quick)
    argv[argc++] = "--quick";
  snprintf(rep, sizeof rep, "%d", o->repeats);
  argv[argc++] = "--repeats";
  argv[argc++] = rep;
  if (o->markdown)
    argv[argc++] = "--markdown";
  printf("\n");
  fflush(stdout);
  return bench_laws_main(argc, argv);
}

int fricl_bench_main(int argc, char **argv) {
  if (bench_laws_selected(argc, argv)) /* friction laws: bench_laws.c */
    return bench_laws_main(argc, argv);
  if (bench_resident_selected(argc, argv)) /* bench_resident.c */
    return bench_resident_main(argc, argv);
  if (bench_multi_selected(argc, argv)) /* device lists: bench_multi.c */
    return bench_multi_main(argc, argv);
  bench_options opt;
  const int prc = parse_options(argc, argv, &opt);
  if (prc)
    return prc == 1 ? 0 : 2;

  bench_env env;
  bench_header h;
  memset(&env, 0, sizeof env);
  env.opt = &opt;
  bench_row *rows = NULL;
  size_t nrows = 0;
  int rc = 1;
  if (make_context(opt.device, &env.ctx) || make_context("reference", &env.ref))
    goto cleanup;
  env.is_cl = fricl_context_backend(env.ctx) == FRICL_BACKEND_OPENCL;
  if (env.is_cl && fricl_context_get_cl(env.ctx, &env.cl_ctx, NULL,
                                        &env.queue) != FRICL_STATUS_OK)
    goto cleanup;
  rows = calloc(BENCH_MAX_ROWS, sizeof *rows);
  if (!rows) {
    fprintf(stderr, "fricl bench: out of memory\n");
    goto cleanup;
  }
  fill_header(&env, &h);
  fprintf(stderr, "fricl bench: %s, n = %zu, %d repeats\n", h.device, opt.n,
          opt.repeats);
  if (fricl_context_fell_back(env.ctx))
    fprintf(stderr, "fricl bench: no OpenCL device found; measuring the "
                    "reference backend (no roofline)\n");

  for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
    if (!((opt.precisions >> p) & 1u) || !(opt.suites & BENCH_SUITE_SCALAR))
      continue;
    if (p == FRICL_F64 && !fricl_context_has_fp64(env.ctx)) {
      fprintf(stderr, "fricl bench: %s has no fp64; f64 groups skipped\n",
              h.device);
      continue;
    }
    if (run_precision(&env, (fricl_precision)p, &h, rows, &nrows))
      goto cleanup;
  }

  if (opt.suites & BENCH_SUITE_SCALAR) {
    printf("\n");
    bench_report_table(stdout, &h, rows, nrows, opt.markdown);
    bench_report_outliers(stdout, rows, nrows);
    if (opt.json_path && bench_report_json(opt.json_path, &h, rows, nrows))
      goto cleanup;
  }
  if ((opt.suites & BENCH_SUITE_CONTACTS) &&
      bench_contacts_run(&opt, env.ctx, env.ref, opt.contacts))
    goto cleanup;
  if (opt.suites & BENCH_SUITE_BUILD) {
    bench_build_row brows[2];
    int nbrows = 0;
    if (bench_build_run(&opt, env.ctx, env.ref, opt.contacts, brows, &nbrows))
      goto cleanup;
    bench_build_report(stdout, brows, nbrows, opt.markdown);
    if (bench_build_eval_run(&opt, env.ctx, env.ref, opt.contacts,
                             opt.markdown) ||
        bench_resident_run(&opt, env.ctx, opt.contacts, opt.markdown))
      goto cleanup;
  }
  if ((opt.suites & BENCH_SUITE_LAWS) && env.is_cl && run_laws_suite(&opt))
    goto cleanup;
  rc = 0;
cleanup:
  bench_scalar_end(&env);
  free(rows);
  fricl_context_destroy(env.ref);
  fricl_context_destroy(env.ctx);
  return rc;
}
