/* bench_laws.c - see bench_laws.h.
 *
 * Rows: two stateless laws (coulomb, stribeck), maxwell (state in place),
 * lugre one RK4 step and one exact-exponential step, gms with m = 4 one RK4
 * step; each in f64 and f32 over n elements (default 10^7). Per row three
 * jobs are timed interleaved (bench_time_jobs): the copy kernel over the
 * same element type (the roofline: 2 values per element), the device tier
 * (fricl_law_eval_cl / fricl_law_step_cl on cl_mem buffers) and the C
 * reference backend (fricl_law_eval / fricl_law_step on host arrays).
 * Bytes per element count every value read or written once (v, x, state
 * in and out, force); % of copy is that bandwidth over the copy kernel's.
 */
#include "bench_laws.h"
#include "bench_ocl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_data.h"
#include "bench_timer.h"
#include "opencl/opencl.h"

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

typedef struct {
  const char *name;
  fricl_precision prec;
  size_t n;
  int values;
  bench_stats kernel, copy, ref;
} law_row;

typedef struct {
  const char *device, *json;
  size_t n;
  int repeats, markdown;
  unsigned precisions;
} law_opts;

int bench_laws_selected(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--group=laws") == 0)
      return 1;
    if (strcmp(argv[i], "--group") == 0 && i + 1 < argc &&
        strcmp(argv[i + 1], "laws") == 0)
      return 1;
  }
  return 0;
}

static int parse(int argc, char **argv, law_opts *o) {
  memset(o, 0, sizeof *o);
  o->precisions = 3u;
  int quick = 0, repeats = 0;
  size_t n = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *val = NULL;
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
      continue;
    }
    if (strcmp(a, "--markdown") == 0) {
      o->markdown = 1;
      continue;
    }
    static const char *const valued[] = {"--device",    "--n",    "--repeats",
                                         "--precision", "--json", "--group"};
    size_t k = 0;
    for (; k < sizeof valued / sizeof valued[0]; ++k) {
      const size_t len = strlen(valued[k]);
      if (strncmp(a, valued[k], len) == 0 && a[len] == '=') {
        val = a + len + 1;
        break;
      }
      if (strcmp(a, valued[k]) == 0 && i + 1 < argc) {
        val = argv[++i];
        break;
      }
    }
    if (!val) {
      fprintf(stderr, "fricl bench --group laws: unknown option '%s'\n", a);
      return 2;
    }
    char *end = NULL;
    errno = 0;
    switch (k) {
    case 0:
      o->device = val;
      break;
    case 1: {
      const unsigned long long v = strtoull(val, &end, 10);
      if (errno || *end || v == 0) {
        fprintf(stderr, "fricl bench: bad --n '%s'\n", val);
        return 2;
      }
      n = (size_t)v;
      break;
    }
    case 2: {
      const long r = strtol(val, &end, 10);
      if (*end || r < 1 || r > 1000) {
        fprintf(stderr, "fricl bench: bad --repeats '%s'\n", val);
        return 2;
      }
      repeats = (int)r;
      break;
    }
    case 3:
      o->precisions = strcmp(val, "f64") == 0    ? 1u
                      : strcmp(val, "f32") == 0  ? 2u
                      : strcmp(val, "both") == 0 ? 3u
                                                 : 0u;
      if (!o->precisions) {
        fprintf(stderr, "fricl bench: bad --precision '%s'\n", val);
        return 2;
      }
      break;
    case 4:
      o->json = val;
      break;
    default:
      if (strcmp(val, "laws") != 0) {
        fprintf(stderr, "fricl bench: --group laws runs alone\n");
        return 2;
      }
      break;
    }
  }
  o->n = n ? n : quick ? LAWS_QUICK_N : LAWS_DEFAULT_N;
  o->repeats = repeats ? repeats : quick ? 3 : 7;
  return 0;
}

/* ------------------------------------------------------------- jobs */

typedef struct {
  fricl_context *ctx;
  cl_command_queue q;
  fricl_law_batch_cl b;
  int stepping;
} dev_job;

static int run_dev(void *arg, int count) {
  dev_job *d = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st =
        d->stepping ? fricl_law_step_cl(d->ctx, &d->b, 0, NULL, NULL)
                    : fricl_law_eval_cl(d->ctx, &d->b, 0, NULL, NULL);
    if (st != FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench: %s\n", fricl_context_last_error(d->ctx));
      clFinish(d->q);
      return 1;
    }
  }
  return clFinish(d->q) == CL_SUCCESS ? 0 : 1;
}

typedef struct {
  fricl_context *ctx;
  fricl_law_batch b;
  int stepping;
} ref_job;

static int run_ref(void *arg, int count) {
  ref_job *r = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = r->stepping ? fricl_law_step(r->ctx, &r->b)
                                        : fricl_law_eval(r->ctx, &r->b);
    if (st != FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench: %s\n", fricl_context_last_error(r->ctx));
      return 1;
    }
  }
  return 0;
}

typedef struct {
  cl_command_queue q;
  cl_kernel k;
  size_t n;
} copy_job;

static int run_copy(void *arg, int count) {
  copy_job *c = arg;
  for (int i = 0; i < count; ++i)
    if (clEnqueueNDRangeKernel(c->q, c->k, 1, NULL, &c->n, NULL, 0, NULL,
                               NULL) != CL_SUCCESS) {
      clFinish(c->q);
      return 1;
    }
  return clFinish(c->q) == CL_SUCCESS ? 0 : 1;
}

/* ------------------------------------------------------------- a row */

static void set_params(const row_def *d, double *param) {
  static const double P[FRICL_LAW_COUNT][7] = {
      [FRICL_LAW_COULOMB] = {0.3},
      [FRICL_LAW_STRIBECK] = {0.5, 0.3, 0.01, 0.4},
      [FRICL_LAW_MAXWELL] = {1e4, 0.3},
      [FRICL_LAW_LUGRE] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2},
      [FRICL_LAW_GMS] = {0.5, 0.3, 20, 1e4, 0.1, 0.01, 2}};
  memcpy(param, P[d->law], sizeof P[d->law]);
}

static int run_row(fricl_context *ctx, fricl_context *ref, const row_def *d,
                   fricl_precision prec, const law_opts *o, law_row *row) {
  const size_t n = o->n, esz = fricl__elem_bytes(prec);
  const size_t S = d->law == FRICL_LAW_GMS       ? d->m
                   : d->law == FRICL_LAW_LUGRE   ? 1
                   : d->law == FRICL_LAW_MAXWELL ? 2
                                                 : 0;
  int rc = 1;
  void *hv = bench_alloc(n * esz), *hf = bench_alloc(n * esz);
  void *hs = S ? bench_alloc(n * S * esz) : NULL;
  void *hge = bench_alloc(3 * (d->m ? d->m : 1) * esz);
  cl_mem dv = NULL, df = NULL, ds = NULL, dge = NULL;
  cl_context clc;
  cl_command_queue q;
  memset(row, 0, sizeof *row);
  row->name = d->name;
  row->prec = prec;
  row->n = n;
  row->values = d->values;
  if (!hv || !hf || (S && !hs) || !hge) {
    fprintf(stderr, "fricl bench: out of memory\n");
    goto cleanup;
  }
  for (size_t i = 0; i < n; ++i) {
    /* Velocities / positions spread over every branch. */
    const double t = (double)((i * 2654435761u) % 100000u) / 100000.0;
    const double v = 0.04 * (t - 0.45);
    if (prec == FRICL_F64)
      ((double *)hv)[i] = v;
    else
      ((float *)hv)[i] = (float)v;
  }
  for (size_t i = 0; i < n * S; ++i) {
    const double z = 1e-4 * sin((double)i);
    if (prec == FRICL_F64)
      ((double *)hs)[i] = z;
    else
      ((float *)hs)[i] = (float)z;
  }
  for (size_t j = 0; j < 3 * (d->m ? d->m : 1); ++j) {
    const double g = j % 3 == 0   ? 1e3 * (double)(j + 1)
                     : j % 3 == 1 ? 5.0
                                  : 1.0 / (double)(d->m ? d->m : 1);
    if (prec == FRICL_F64)
      ((double *)hge)[j] = g;
    else
      ((float *)hge)[j] = (float)g;
  }
  if (fricl_context_get_cl(ctx, &clc, NULL, &q) != FRICL_STATUS_OK)
    goto cleanup;
  cl_int err = CL_SUCCESS;
  dv = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * esz,
                      hv, &err);
  if (err == CL_SUCCESS)
    df = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * esz, NULL, &err);
  if (err == CL_SUCCESS && S)
    ds = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        n * S * esz, hs, &err);
  if (err == CL_SUCCESS)
    dge = clCreateBuffer(clc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                         3 * (d->m ? d->m : 1) * esz, hge, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "fricl bench: clCreateBuffer: %s\n",
            fricl__cl_error_name(err));
    goto cleanup;
  }
  /* Device tier. */
  dev_job dj = {.ctx = ctx, .q = q, .stepping = d->stepping};
  fricl_law_batch_cl_init(&dj.b, d->law);
  dj.b.precision = prec;
  set_params(d, dj.b.param);
  dj.b.normal_force = 10;
  dj.b.n = n;
  dj.b.h = 1e-5;
  dj.b.integrator = d->integ;
  if (d->law == FRICL_LAW_MAXWELL)
    dj.b.x.mem = dv;
  else
    dj.b.v.mem = dv;
  dj.b.force.mem = df;
  if (S) {
    dj.b.state.mem = ds;
    if (d->law == FRICL_LAW_MAXWELL || d->stepping)
      dj.b.state_out.mem = ds;
  }
  dj.b.gms_elements = d->m;
  if (d->m)
    dj.b.gms_params.mem = dge;
  /* C reference, the same batch on host arrays. */
  ref_job rj = {.ctx = ref, .stepping = d->stepping};
  fricl_law_batch_init(&rj.b, d->law);
  rj.b.precision = prec;
  memcpy(rj.b.param, dj.b.param, sizeof rj.b.param);
  rj.b.normal_force = 10;
  rj.b.n = n;
  rj.b.h = dj.b.h;
  rj.b.integrator = d->integ;
  if (d->law == FRICL_LAW_MAXWELL)
    rj.b.x = hv;
  else
    rj.b.v = hv;
  rj.b.force = hf;
  if (S) {
    rj.b.state = hs;
    if (dj.b.state_out.mem)
      rj.b.state_out = hs;
  }
  rj.b.gms_elements = d->m;
  if (d->m)
    rj.b.gms_params = hge;
  /* Copy kernel over the same element type and buffers. */
  copy_job cj = {.q = q, .n = n};
  const char *defines = prec == FRICL_F64
                            ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                              "#define FRICL_REAL double\n"
                            : "#define FRICL_REAL float\n";
  if (fricl__ocl_kernel(bench_ocl(ctx), "fricl_copy.cl", NULL, "fricl_copy",
                        defines, &cj.k, NULL) != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench: %s\n", fricl_context_last_error(ctx));
    goto cleanup;
  }
  const cl_ulong n64 = n;
  clSetKernelArg(cj.k, 0, sizeof n64, &n64);
  clSetKernelArg(cj.k, 1, sizeof(cl_mem), &dv);
  clSetKernelArg(cj.k, 2, sizeof(cl_mem), &df);
  bench_job jobs[3] = {{.fn = run_copy, .arg = &cj},
                       {.fn = run_dev, .arg = &dj},
                       {.fn = run_ref, .arg = &rj}};
  if (bench_time_jobs(jobs, 3, o->repeats, 0.020))
    goto cleanup;
  row->copy = jobs[0].st;
  row->kernel = jobs[1].st;
  row->ref = jobs[2].st;
  rc = 0;
cleanup:
  if (dv)
    clReleaseMemObject(dv);
  if (df)
    clReleaseMemObject(df);
  if (ds)
    clReleaseMemObject(ds);
  if (dge)
    clReleaseMemObject(dge);
  bench_free(hv);
  bench_free(hf);
  bench_free(hs);
  bench_free(hge);
  return rc;
}

/* ----------------------------------------------------------- report */

typedef struct {
  double eps, gbs, copy_gbs, pct, speedup;
} figures;

static void figures_of(const law_row *r, figures *f) {
  const double esz = r->prec == FRICL_F32 ? 4.0 : 8.0;
  f->eps = (double)r->n / r->kernel.median;
  f->gbs = f->eps * r->values * esz * 1e-9;
  f->copy_gbs = 2.0 * esz * (double)r->n / r->copy.median * 1e-9;
  f->pct = 100.0 * f->gbs / f->copy_gbs;
  f->speedup = r->ref.median / r->kernel.median;
}

static void report(FILE *out, const char *device, const law_row *rows,
                   size_t nrows, int md) {
  fprintf(out, "device: %s\n\n", device);
  fprintf(out,
          md ? "| law | prec | n | Melem/s | GB/s | copy GB/s | %% of copy | "
               "x C ref |\n|---|---|---|---|---|---|---|---|\n"
             : "%-10s %-4s %10s %9s %7s %9s %9s %8s\n",
          "law", "prec", "n", "Melem/s", "GB/s", "copy GB/s", "% of copy",
          "x C ref");
  for (size_t i = 0; i < nrows; ++i) {
    figures f;
    figures_of(&rows[i], &f);
    fprintf(out,
            md ? "| %s | %s | %zu | %.1f | %.2f | %.2f | %.0f%% | %.1f |\n"
               : "%-10s %-4s %10zu %9.1f %7.2f %9.2f %8.0f%% %8.1f\n",
            rows[i].name, rows[i].prec == FRICL_F32 ? "f32" : "f64", rows[i].n,
            f.eps * 1e-6, f.gbs, f.copy_gbs, f.pct, f.speedup);
  }
  fprintf(out, "\n(GB/s counts every value read or written once: v or x, "
               "state in and out, force; target: stateless and maxwell >= "
               "75%% of copy)\n");
}

static int write_json(const char *path, const char *device, const law_row *rows,
                      size_t nrows) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "fricl bench: cannot write %s\n", path);
    return 1;
  }
  fprintf(f, "{\n  \"device\": \"%s\",\n  \"rows\": [\n", device);
  for (size_t i = 0; i < nrows; ++i) {
    figures fg;
    figures_of(&rows[i], &fg);
    fprintf(f,
            "    {\"group\": \"laws\", \"law\": \"%s\", \"precision\": "
            "\"%s\", \"n\": %zu, \"elements_per_s\": %.6g, \"gbs\": %.6g, "
            "\"copy_gbs\": %.6g, \"pct_copy\": %.4g, \"speedup_ref\": "
            "%.4g}%s\n",
            rows[i].name, rows[i].prec == FRICL_F32 ? "f32" : "f64", rows[i].n,
            fg.eps, fg.gbs, fg.copy_gbs, fg.pct, fg.speedup,
            i + 1 < nrows ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  return fclose(f) == 0 ? 0 : 1;
}

int bench_laws_main(int argc, char **argv) {
  law_opts o;
  const int prc = parse(argc, argv, &o);
  if (prc)
    return prc;
  fricl_context *ctx = NULL, *ref = NULL;
  law_row rows[2 * NDEFS];
  size_t nrows = 0;
  int rc = 1;
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = o.device;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  if (fricl_context_create(&ctx, &p) != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench: %s\n", msg);
    goto cleanup;
  }
  p.device = "reference";
  if (fricl_context_create(&ref, &p) != FRICL_STATUS_OK)
    goto cleanup;
  if (fricl_context_backend(ctx) != FRICL_BACKEND_OPENCL) {
    fprintf(stderr, "fricl bench --group laws: needs an OpenCL device (the "
                    "rows compare it with the C reference)\n");
    goto cleanup;
  }
  const char *dev = fricl_context_device_name(ctx);
  fprintf(stderr, "fricl bench laws: %s, n = %zu, %d repeats\n", dev, o.n,
          o.repeats);
  for (int pr = FRICL_F64; pr <= FRICL_F32; ++pr) {
    if (!((o.precisions >> pr) & 1u))
      continue;
    if (pr == FRICL_F64 && !fricl_context_has_fp64(ctx))
      continue;
    for (size_t d = 0; d < NDEFS; ++d) {
      if (run_row(ctx, ref, &defs[d], (fricl_precision)pr, &o, &rows[nrows]))
        goto cleanup;
      figures f;
      figures_of(&rows[nrows], &f);
      fprintf(stderr, "  %-10s %s %8.1f Melem/s %6.1f%% of copy %6.1fx C ref\n",
              defs[d].name, pr == FRICL_F32 ? "f32" : "f64", f.eps * 1e-6,
              f.pct, f.speedup);
      ++nrows;
    }
  }
  report(stdout, dev, rows, nrows, o.markdown);
  if (o.json && write_json(o.json, dev, rows, nrows))
    goto cleanup;
  rc = 0;
cleanup:
  fricl_context_destroy(ref);
  fricl_context_destroy(ctx);
  return rc;
}
