/*
 * bench_main.c - `fricl bench`: options, the list of groups, and the driver
 * that runs the selected suites on one context (plus the sweep's own
 * contexts) and writes the report and the JSON file.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "bench.h"
#include "bench_barrier.h"
#include "bench_build.h"
#include "bench_contacts.h"
#include "bench_headline.h"
#include "bench_laws.h"
#include "bench_multi.h"
#include "bench_ocl.h"
#include "bench_report.h"
#include "bench_resident.h"
#include "bench_scalar.h"
#include "bench_sweep.h"

#define BENCH_DEFAULT_N ((size_t)1 << 24)
#define BENCH_QUICK_N ((size_t)1 << 16)
#define BENCH_DEFAULT_CONTACTS ((size_t)1000000)
#define BENCH_QUICK_CONTACTS ((size_t)1 << 14)
#define BENCH_DEFAULT_REPEATS 7
#define BENCH_QUICK_REPEATS 3
#define BENCH_MIN_SAMPLE_S 0.020
#define BENCH_QUICK_MIN_SAMPLE_S 0.005
#define BENCH_ERR_SAMPLES 65536
#define BENCH_QUICK_ERR_SAMPLES 16384

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
      "Throughput, efficiency and accuracy of fricl on one context, as a\n"
      "caller gets them. Every row times the host tier (fricl_*_eval on\n"
      "host arrays) on the context, names the backend that ran it (`ran\n"
      "on`: auto picks host or OpenCL per call by size), and compares it,\n"
      "in the same run, with a plain copy on that backend (the roofline:\n"
      "the OpenCL copy kernel, or a host copy over the context's threads)\n"
      "and with the single-thread C reference. With an OpenCL device the\n"
      "device tier (cl_mem buffers) gets rows of its own. The scalar rows\n"
      "add kernel build times and the max error against a long-double\n"
      "reference in ulp of the value's scale (tests/ref/scalar_ref_ld.h).\n"
      "\n"
      "options:\n"
      "  --device SPEC       the context under test: auto (per call by\n"
      "                      size: host backend, or the OpenCL device for\n"
      "                      large calls), host (threaded C), reference\n"
      "                      (single-thread C), cpu, gpu or opencl:P:D\n"
      "                      (default: $FRICL_DEVICE, else auto). The sweep\n"
      "                      ignores it and opens every backend itself.\n"
      "                      A device list (opencl:0:0,opencl:0:1, all-gpu)\n"
      "                      runs the per-device rows instead (--device\n"
      "                      LIST --help)\n"
      "  --suite S[,S...]    scalar, contacts, build, laws, sweep or all\n"
      "                      (barrier: the normal-contact barrier's rows,\n"
      "                      not part of all; headline: the few rows that\n"
      "                      matter most, printed first: tangential and\n"
      "                      barrier at --contacts contacts, latency at 10)\n"
      "                      (default all); `--suite resident` alone runs\n"
      "                      the device-resident Newton iteration rows (also\n"
      "                      after the build rows; --suite resident --help)\n"
      "  --n N               elements per scalar group (default 2^24) and\n"
      "                      per law row (default 10^7); 2^k allowed\n"
      "  --contacts N        contacts per row of the contacts and build\n"
      "                      suites (default 10^6)\n"
      "  --sizes LIST        sweep: contact counts, comma-separated\n"
      "                      (default 10,100,1000,10000,100000,1000000)\n"
      "  --repeats R         timed samples per row (default 7)\n"
      "  --precision P       f64, f32 or both (default both; the sweep is\n"
      "                      f64)\n"
      "  --profile P         cubic, ipctk or both (default both)\n"
      "  --group NAME        run only this scalar group (repeatable): a\n"
      "                      term name such as smooth_mu_f0, all,\n"
      "                      all_per_element; `laws` and `build` select\n"
      "                      those suites\n"
      "  --quick             n = 2^16, 2^14 contacts, sweep up to 1000\n"
      "                      contacts, 3 repeats of >= 5 ms, accuracy on\n"
      "                      2^14 elements, kernel build times of the `all`\n"
      "                      groups only (for tests)\n"
      "  --json FILE         also write every row as JSON (atomically; the\n"
      "                      path is checked before anything runs)\n"
      "  --markdown          print the tables as Markdown\n"
      "  --help              this text\n"
      "\n"
      "The sweep (--suite sweep) times one Newton iteration's evaluation\n"
      "(potential + gradient + global Hessian, plan reused, PSD clamp, f64)\n"
      "per call at every size on reference, host, auto and every OpenCL\n"
      "device, plus plan creation, fricl_build and 8 plane-vertex contacts,\n"
      "and reports the crossover it measured. Plot its JSON with\n"
      "  python3 bench/plot_sweep.py FILE.json sweep.png\n"
      "\n"
      "Targets (f64, printed as PASS/MISS; the exit status ignores them):\n"
      "every scalar group >= 75%% of the copy roofline, `all` >= 1.5x the C\n"
      "reference, max error <= 4 ulp of scale (f32: 4 f32 ulp); 8\n"
      "plane-vertex contacts on auto <= 2x a call on reference.\n");
}

/* "scalar", "sweep", "all", or a comma-separated list. 0 on success. */
static int parse_suites(const char *s, unsigned *suites) {
  static const struct {
    const char *name;
    unsigned bit;
  } names[] = {
      {"scalar", BENCH_SUITE_SCALAR},   {"contacts", BENCH_SUITE_CONTACTS},
      {"laws", BENCH_SUITE_LAWS},       {"build", BENCH_SUITE_BUILD},
      {"sweep", BENCH_SUITE_SWEEP},     {"all", BENCH_SUITES_ALL},
      {"barrier", BENCH_SUITE_BARRIER}, {"headline", BENCH_SUITE_HEADLINE}};
  *suites = 0;
  while (*s) {
    const size_t len = strcspn(s, ",");
    size_t k = 0;
    for (; k < sizeof names / sizeof names[0]; ++k)
      if (strlen(names[k].name) == len && strncmp(s, names[k].name, len) == 0)
        break;
    if (k == sizeof names / sizeof names[0])
      return 1;
    *suites |= names[k].bit;
    s += len;
    if (*s == ',' && !*++s)
      return 1;
  }
  return *suites == 0;
}

/* "a,b,c": sizes >= 1 into o->sizes. 0 on success. */
static int parse_sizes(const char *s, bench_options *o) {
  o->nsizes = 0;
  while (*s) {
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || v == 0 || *s == '-' || v > (1ull << 31) ||
        (*end && *end != ',') || o->nsizes == BENCH_MAX_SIZES)
      return 1;
    o->sizes[o->nsizes++] = (size_t)v;
    s = *end ? end + 1 : end;
    if (*end && !*s)
      return 1;
  }
  for (int i = 1; i < o->nsizes; ++i)
    if (o->sizes[i] <= o->sizes[i - 1])
      return 1; /* increasing, so that the crossover is well defined */
  return o->nsizes == 0;
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
        "--group",  "--json", "--suite",   "--contacts",  "--sizes"};
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
      int known = strcmp(val, "build") == 0 || strcmp(val, "laws") == 0;
      for (int g = 0; g < BENCH_NGROUPS; ++g)
        known |= strcmp(groups[g].name, val) == 0;
      if (!known) {
        fprintf(stderr, "fricl bench: unknown group '%s'; groups are:", val);
        for (int g = 0; g < BENCH_NGROUPS; ++g)
          fprintf(stderr, " %s", groups[g].name);
        fprintf(stderr, " build laws\n");
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
      bad = parse_suites(val, &o->suites);
      break;
    case 8:
      bad = parse_size(val, &contacts);
      break;
    case 9:
      bad = parse_sizes(val, o);
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
  o->n_set = n != 0;
  o->repeats = repeats ? repeats
               : quick ? BENCH_QUICK_REPEATS
                       : BENCH_DEFAULT_REPEATS;
  o->quick = quick;
  o->contacts = contacts ? contacts
                : quick  ? BENCH_QUICK_CONTACTS
                         : BENCH_DEFAULT_CONTACTS;
  /* --group names scalar groups: it implies the scalar suite unless one
   * was chosen explicitly; `--group build` and `--group laws` are those
   * suites. */
  if (o->ngroups && !suite_set) {
    unsigned s = 0;
    for (int i = 0; i < o->ngroups; ++i)
      s |= strcmp(o->groups[i], "build") == 0  ? BENCH_SUITE_BUILD
           : strcmp(o->groups[i], "laws") == 0 ? BENCH_SUITE_LAWS
                                               : BENCH_SUITE_SCALAR;
    o->suites = s;
  }
  bench_sweep_default_sizes(o);
  o->min_sample_s = quick ? BENCH_QUICK_MIN_SAMPLE_S : BENCH_MIN_SAMPLE_S;
  o->err_samples = quick ? BENCH_QUICK_ERR_SAMPLES : BENCH_ERR_SAMPLES;
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

/* After the suites ran: the context's name then includes the device that
 * auto opened, if any. */
static void fill_header(const bench_env *env, bench_header *h) {
  memset(h, 0, sizeof *h);
  snprintf(h->device, sizeof h->device, "%s",
           fricl_context_device_name(env->ctx));
  snprintf(h->spec, sizeof h->spec, "%s",
           env->opt->device ? env->opt->device : "(default)");
  snprintf(h->fricl_version, sizeof h->fricl_version, "%s",
           fricl_version_string());
  if (env->has_dev)
    bench_ocl_describe(env->ctx, h->driver, sizeof h->driver, h->build_options,
                       sizeof h->build_options);
  h->threads = fricl_context_threads(env->ctx);
  h->n = env->opt->n;
  h->repeats = env->opt->repeats;
  h->min_sample_ms = env->opt->min_sample_s * 1e3;
}

/* Rows: all groups of both profiles and precisions, two tiers at most. */
#define BENCH_MAX_ROWS (2 * 2 * 2 * BENCH_NGROUPS)

static void progress(size_t k, const bench_row *r) {
  bench_figures f;
  bench_figures_of(r, &f);
  fprintf(stderr,
          "[%2zu] %s %-5s %-32s %-6s on %-9s %9.1f Melem/s %6.1f%% copy "
          "%6.2fx C ref",
          k, r->precision == FRICL_F32 ? "f32" : "f64",
          bench_profile_label(r->profile), r->group, bench_tier_label(r->tier),
          fricl_backend_name(r->backend), f.eps * 1e-6, f.pct_copy, f.speedup);
  fprintf(stderr, "  err %.2f ulp (y>=0 %.2f)%s\n", r->max_err_ulp,
          r->max_err_pos_ulp, r->kind_mismatches ? " (kind mismatches)" : "");
}

/* Every selected group of one precision. */
static int run_precision(bench_env *env, fricl_precision prec, bench_row *rows,
                         size_t *nrows) {
  const bench_options *o = env->opt;
  bench_group groups[BENCH_NGROUPS];
  make_groups(groups);
  int per_element = 0;
  for (int g = 0; g < BENCH_NGROUPS; ++g)
    per_element |= groups[g].per_element && group_selected(o, &groups[g]);
  if (bench_scalar_begin(env, prec, per_element))
    return 1;
  int rc = 1;
  for (int g = 0; g < BENCH_NGROUPS; ++g) {
    if (!group_selected(o, &groups[g]))
      continue;
    for (int p = FRICL_MU_CUBIC; p <= FRICL_MU_IPCTK; ++p) {
      if (groups[g].profile_free ? p != FRICL_MU_CUBIC
                                 : !((o->profiles >> p) & 1u))
        continue;
      if (*nrows + 2 > BENCH_MAX_ROWS)
        goto cleanup;
      int k = 0;
      if (bench_scalar_group(env, &groups[g], (fricl_mu_profile)p,
                             &rows[*nrows], &k))
        goto cleanup;
      for (int i = 0; i < k; ++i, ++*nrows)
        progress(*nrows + 1, &rows[*nrows]);
    }
  }
  rc = 0;
cleanup:
  bench_scalar_end(env);
  return rc;
}

static int run_scalar(bench_env *env, bench_row *rows, size_t *nrows) {
  const bench_options *o = env->opt;
  for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
    if (!((o->precisions >> p) & 1u))
      continue;
    if (p == FRICL_F64 && !fricl_context_has_fp64(env->ctx)) {
      fprintf(stderr, "fricl bench: %s has no fp64; f64 groups skipped\n",
              fricl_context_device_name(env->ctx));
      continue;
    }
    if (run_precision(env, (fricl_precision)p, rows, nrows))
      return 1;
  }
  if (!*nrows)
    fprintf(stderr, "fricl bench: no scalar rows: no selected precision "
                    "runs on this context\n");
  return 0;
}

/* What every suite produced, for the JSON file. */
typedef struct {
  bench_row *rows;
  size_t nrows;
  bench_contacts_result contacts;
  bench_build_result build;
  bench_laws_result laws;
  bench_sweep_result *sweep;
} bench_results;

static void write_json(FILE *f, const bench_options *o, const bench_header *h,
                       const bench_results *r) {
  fputs("{\n", f);
  bench_report_json_header(f, h);
  fputs(",\n", f);
  bench_report_json_rows(f, r->rows, r->nrows);
  if (o->suites & BENCH_SUITE_CONTACTS) {
    fputs(",\n", f);
    bench_contacts_json(f, &r->contacts);
  }
  if (o->suites & BENCH_SUITE_BUILD) {
    fputs(",\n", f);
    bench_build_json(f, &r->build);
  }
  if (o->suites & BENCH_SUITE_LAWS) {
    fputs(",\n", f);
    bench_laws_json(f, &r->laws);
  }
  if (o->suites & BENCH_SUITE_SWEEP) {
    fputs(",\n", f);
    bench_sweep_json(f, r->sweep);
  }
  fputs("\n}\n", f);
}

int fricl_bench_main(int argc, char **argv) {
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
  bench_results res;
  memset(&env, 0, sizeof env);
  memset(&res, 0, sizeof res);
  env.opt = &opt;
  int rc = 1;
  /* The JSON file first: an unwritable path fails now, not after the run. */
  atomic_file json;
  char msg[512];
  memset(&json, 0, sizeof json);
  if (opt.json_path &&
      atomic_file_open(&json, opt.json_path, msg, sizeof msg) != 0) {
    fprintf(stderr, "fricl bench: --json %s: %s\n", opt.json_path, msg);
    return 1;
  }
  if (make_context(opt.device, &env.ctx) || make_context("reference", &env.ref))
    goto cleanup;
  res.rows = calloc(BENCH_MAX_ROWS, sizeof *res.rows);
  res.sweep = calloc(1, sizeof *res.sweep);
  if (!res.rows || !res.sweep) {
    fprintf(stderr, "fricl bench: out of memory\n");
    goto cleanup;
  }
  /* Device-tier rows need an OpenCL device; looking for one opens it
   * (auto), so only when a suite with such rows runs. */
  const unsigned dev_suites =
      BENCH_SUITE_SCALAR | BENCH_SUITE_BUILD | BENCH_SUITE_LAWS;
  fprintf(stderr, "fricl bench: %s, %u host threads, n = %zu, %d repeats\n",
          fricl_context_device_name(env.ctx), fricl_context_threads(env.ctx),
          opt.n, opt.repeats);
  if (opt.suites & dev_suites) {
    env.has_dev = bench_ocl_has_device(env.ctx);
    if (!env.has_dev)
      fprintf(stderr,
              "fricl bench: %s has no OpenCL device: host-tier rows "
              "only (no device tier)\n",
              fricl_context_device_name(env.ctx));
  }
  if (opt.device && opt.suites == BENCH_SUITE_SWEEP)
    fprintf(stderr, "fricl bench: --device is not used by the sweep (it "
                    "opens every backend)\n");

  if ((opt.suites & BENCH_SUITE_HEADLINE) &&
      bench_headline_run(&opt, env.ctx, env.ref))
    goto cleanup;
  if ((opt.suites & BENCH_SUITE_SCALAR) &&
      run_scalar(&env, res.rows, &res.nrows))
    goto cleanup;
  fill_header(&env, &h);
  if (opt.suites & BENCH_SUITE_SCALAR) {
    printf("\n");
    bench_report_table(stdout, &h, res.rows, res.nrows, opt.markdown);
    bench_report_outliers(stdout, res.rows, res.nrows);
  }
  if ((opt.suites & BENCH_SUITE_CONTACTS) &&
      bench_contacts_run(&opt, env.ctx, env.ref, opt.contacts, &res.contacts))
    goto cleanup;
  if ((opt.suites & BENCH_SUITE_BUILD) &&
      bench_build_run(&opt, env.ctx, env.ref, env.has_dev, opt.contacts,
                      &res.build))
    goto cleanup;
  if ((opt.suites & BENCH_SUITE_BUILD) && env.has_dev &&
      bench_resident_run(&opt, env.ctx, opt.contacts, opt.markdown))
    goto cleanup;
  if ((opt.suites & BENCH_SUITE_LAWS) &&
      bench_laws_run(&opt, env.ctx, env.ref, env.has_dev, &res.laws))
    goto cleanup;
  if ((opt.suites & BENCH_SUITE_SWEEP) && bench_sweep_run(&opt, res.sweep))
    goto cleanup;
  if ((opt.suites & BENCH_SUITE_BARRIER) &&
      bench_barrier_run(&opt, env.ctx, opt.contacts))
    goto cleanup;
  fflush(stdout);
  if (opt.json_path) {
    fill_header(&env, &h); /* auto may have opened its device since */
    write_json(json.fp, &opt, &h, &res);
    if (ferror(json.fp)) {
      fprintf(stderr, "fricl bench: --json %s: write failed\n", opt.json_path);
      goto cleanup;
    }
    if (atomic_file_commit(&json, msg, sizeof msg) != 0) {
      fprintf(stderr, "fricl bench: --json %s: %s\n", opt.json_path, msg);
      goto cleanup;
    }
  }
  rc = 0;
cleanup:
  atomic_file_abort(&json); /* no half-written JSON on failure */
  bench_scalar_end(&env);
  if (res.sweep)
    bench_sweep_free(res.sweep);
  free(res.sweep);
  free(res.rows);
  fricl_context_destroy(env.ref);
  fricl_context_destroy(env.ctx);
  return rc;
}
