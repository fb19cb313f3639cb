/* bench_scalar.c - see bench_scalar.h. */
#include "bench_scalar.h"
#include "bench_ocl.h"

#include <stdio.h>
#include <string.h>

#include "bench_accuracy.h"
#include "bench_data.h"

/* ------------------------------------------------------------ messages */

static int fail_fricl(fricl_context *ctx, fricl_status st, const char *what) {
  fprintf(stderr, "fricl bench: %s: %s: %s\n", what, fricl_status_string(st),
          ctx ? fricl_context_last_error(ctx) : "");
  return 1;
}

static int fail_cl(cl_int err, const char *what) {
  fprintf(stderr, "fricl bench: %s: %s (%d)\n", what, fricl__cl_error_name(err),
          (int)err);
  return 1;
}

/* ------------------------------------------------- arrays and buffers */

static cl_mem release_mem(cl_mem m) {
  if (m)
    clReleaseMemObject(m);
  return NULL;
}

void bench_scalar_end(bench_env *env) {
  /* Device outputs may still be written by an aborted run. */
  if (env->queue)
    clFinish(env->queue);
  /* The cached copy kernel must not keep handles of buffers freed here. */
  static const cl_uint copy_mem_args[] = {1, 2};
  if (env->copy)
    fricl__kernel_unbind(env->copy, copy_mem_args, 2);
  env->d_y = release_mem(env->d_y);
  env->d_ype = release_mem(env->d_ype);
  env->d_eps = release_mem(env->d_eps);
  env->d_mus = release_mem(env->d_mus);
  env->d_muk = release_mem(env->d_muk);
  void **host[] = {&env->h_y, &env->h_ype, &env->h_eps, &env->h_mus,
                   &env->h_muk};
  for (size_t i = 0; i < sizeof host / sizeof host[0]; ++i) {
    bench_free(*host[i]);
    *host[i] = NULL;
  }
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    env->d_out[t] = release_mem(env->d_out[t]);
    bench_free(env->h_out[t]);
    env->h_out[t] = NULL;
  }
  env->copy = NULL;
}

/* A device buffer holding a copy of host array `src` (or uninitialised
 * when src is NULL). */
static int device_array(bench_env *env, const void *src, cl_mem *out) {
  cl_int err = CL_SUCCESS;
  const size_t bytes = env->n * env->esz;
  *out = clCreateBuffer(env->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS)
    return fail_cl(err, "clCreateBuffer");
  if (src) {
    err = clEnqueueWriteBuffer(env->queue, *out, CL_TRUE, 0, bytes, src, 0,
                               NULL, NULL);
    if (err != CL_SUCCESS)
      return fail_cl(err, "clEnqueueWriteBuffer");
  }
  return 0;
}

static int host_array(bench_env *env, void **out) {
  *out = bench_alloc(env->n * env->esz);
  if (!*out) {
    fprintf(stderr, "fricl bench: out of memory (%zu bytes)\n",
            env->n * env->esz);
    return 1;
  }
  return 0;
}

int bench_scalar_begin(bench_env *env, fricl_precision prec, int per_element) {
  bench_scalar_end(env);
  env->prec = prec;
  env->n = env->opt->n;
  env->esz = fricl__elem_bytes(prec);
  if (env->n > SIZE_MAX / env->esz / 16) {
    fprintf(stderr, "fricl bench: n = %zu is too large\n", env->n);
    return 1;
  }
  if (host_array(env, &env->h_y))
    goto fail;
  bench_fill_y(prec, env->n, env->h_y);
  if (per_element) {
    if (host_array(env, &env->h_ype) || host_array(env, &env->h_eps) ||
        host_array(env, &env->h_mus) || host_array(env, &env->h_muk))
      goto fail;
    bench_fill_per_element(prec, env->n, env->h_ype, env->h_eps, env->h_mus,
                           env->h_muk);
  }
  if (!env->is_cl)
    return 0;
  if (device_array(env, env->h_y, &env->d_y))
    goto fail;
  if (per_element && (device_array(env, env->h_ype, &env->d_ype) ||
                      device_array(env, env->h_eps, &env->d_eps) ||
                      device_array(env, env->h_mus, &env->d_mus) ||
                      device_array(env, env->h_muk, &env->d_muk)))
    goto fail;
  return 0;
fail:
  bench_scalar_end(env);
  return 1;
}

/* Output slots 0..k-1 on the host and (OpenCL) on the device. */
static int ensure_outputs(bench_env *env, int k) {
  for (int s = 0; s < k; ++s) {
    if (!env->h_out[s] && host_array(env, &env->h_out[s]))
      return 1;
    if (env->is_cl && !env->d_out[s] && device_array(env, NULL, &env->d_out[s]))
      return 1;
  }
  return 0;
}

/* ---------------------------------------------------------- the tiers */

typedef struct {
  fricl_context *ctx;
  cl_command_queue queue;
  fricl_scalar_batch_cl b;
} device_run;

/* Device tier: `count` enqueues, one wait. */
static int run_device(void *arg, int count) {
  device_run *d = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = fricl_scalar_eval_cl(d->ctx, &d->b, 0, NULL, NULL);
    if (st != FRICL_STATUS_OK) {
      clFinish(d->queue);
      return fail_fricl(d->ctx, st, "fricl_scalar_eval_cl");
    }
  }
  const cl_int err = clFinish(d->queue);
  return err == CL_SUCCESS ? 0 : fail_cl(err, "clFinish");
}

typedef struct {
  cl_command_queue queue;
  cl_kernel kernel;
  size_t n;
} copy_run;

static int run_copy(void *arg, int count) {
  copy_run *c = arg;
  for (int i = 0; i < count; ++i) {
    const cl_int err = clEnqueueNDRangeKernel(c->queue, c->kernel, 1, NULL,
                                              &c->n, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
      clFinish(c->queue);
      return fail_cl(err, "clEnqueueNDRangeKernel (copy)");
    }
  }
  const cl_int err = clFinish(c->queue);
  return err == CL_SUCCESS ? 0 : fail_cl(err, "clFinish");
}

typedef struct {
  fricl_context *ctx;
  fricl_scalar_batch b;
} host_run;

/* Host tier and C reference: fricl_scalar_eval is synchronous. */
static int run_host(void *arg, int count) {
  host_run *h = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = fricl_scalar_eval(h->ctx, &h->b);
    if (st != FRICL_STATUS_OK)
      return fail_fricl(h->ctx, st, "fricl_scalar_eval");
  }
  return 0;
}

/* The copy kernel of the current precision, arguments src = y, dst = out
 * slot 0 (the same buffers the groups use). */
static int copy_setup(bench_env *env, copy_run *c) {
  if (!env->copy) {
    /* Only type names in the defines: no float text to mis-round. */
    const char *defines =
        env->prec == FRICL_F64
            ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
              "#define FRICL_REAL double\n"
            : "#define FRICL_REAL float\n";
    const fricl_status st =
        fricl__ocl_kernel(bench_ocl(env->ctx), "fricl_copy.cl", NULL,
                          "fricl_copy", defines, &env->copy, NULL);
    if (st != FRICL_STATUS_OK)
      return fail_fricl(env->ctx, st, "building fricl_copy.cl");
  }
  const cl_ulong n64 = (cl_ulong)env->n;
  cl_int err = clSetKernelArg(env->copy, 0, sizeof n64, &n64);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(env->copy, 1, sizeof(cl_mem), &env->d_y);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(env->copy, 2, sizeof(cl_mem), &env->d_out[0]);
  if (err != CL_SUCCESS)
    return fail_cl(err, "clSetKernelArg (copy)");
  *c = (copy_run){env->queue, env->copy, env->n};
  return 0;
}

int bench_copy_roofline(bench_env *env, double *gbs) {
  copy_run c;
  if (ensure_outputs(env, 1) || copy_setup(env, &c))
    return 1;
  bench_job job = {.fn = run_copy, .arg = &c};
  if (bench_time_jobs(&job, 1, env->opt->repeats, env->opt->min_sample_s))
    return 1;
  *gbs = 2.0 * (double)env->n * (double)env->esz / job.st.median * 1e-9;
  return 0;
}

/* ------------------------------------------------------- build times */

/* Build the group's kernel in a brand-new context: cold the first time,
 * "warm" (driver-side caches only) the second. */
static int build_in_fresh_context(bench_env *env, const bench_group *g,
                                  fricl_mu_profile profile, double *ms) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = env->opt->device;
  char msg[256] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  fricl_context *fresh = NULL;
  fricl_status st = fricl_context_create(&fresh, &p);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench: fresh context: %s: %s\n",
            fricl_status_string(st), msg);
    return 1;
  }
  cl_kernel k = NULL;
  const int pe = g->per_element;
  st = fricl__ocl_scalar_kernel(bench_ocl(fresh), env->prec, profile, g->mask,
                                pe, pe, pe, &k, ms);
  const int rc = st == FRICL_STATUS_OK
                     ? 0
                     : fail_fricl(fresh, st, "building the group's kernel");
  fricl_context_destroy(fresh);
  return rc;
}

/* ------------------------------------------------------------ a group */

static int popcount12(unsigned mask) {
  int k = 0;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    k += (int)((mask >> t) & 1u);
  return k;
}

/* Map the device outputs for reading (zero copy on CPU devices). */
static int map_outputs(bench_env *env, const bench_group *g,
                       const void *mapped[FRICL_TERM_COUNT]) {
  int slot = 0;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    mapped[t] = NULL;
    if (!((g->mask >> t) & 1u))
      continue;
    cl_int err = CL_SUCCESS;
    mapped[t] =
        clEnqueueMapBuffer(env->queue, env->d_out[slot++], CL_TRUE, CL_MAP_READ,
                           0, env->n * env->esz, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
      mapped[t] = NULL;
      return fail_cl(err, "clEnqueueMapBuffer");
    }
  }
  return 0;
}

static void unmap_outputs(bench_env *env, const bench_group *g,
                          const void *mapped[FRICL_TERM_COUNT]) {
  int slot = 0;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    if (!((g->mask >> t) & 1u))
      continue;
    const int s = slot++;
    if (mapped[t])
      clEnqueueUnmapMemObject(env->queue, env->d_out[s], (void *)mapped[t], 0,
                              NULL, NULL);
  }
  clFinish(env->queue);
}

int bench_scalar_group(bench_env *env, const bench_group *g,
                       fricl_mu_profile profile, bench_row *row) {
  const int nterms = popcount12(g->mask);
  const int pe = g->per_element;
  int rc = 1;
  const void *mapped[FRICL_TERM_COUNT] = {0};

  memset(row, 0, sizeof *row);
  snprintf(row->group, sizeof row->group, "%s", g->name);
  row->profile = g->profile_free ? -1 : (int)profile;
  row->precision = env->prec;
  row->n = env->n;
  row->terms = nterms;
  row->param_arrays = pe ? 3 : 0;
  row->mask = g->mask;
  row->have_kernel = env->is_cl;
  row->build_cold_ms = row->build_warm_ms = -1.0;
  if (pe && !env->h_ype) {
    fprintf(stderr, "fricl bench: per-element data not prepared\n");
    return 1;
  }
  if (ensure_outputs(env, nterms))
    return 1;

  if (env->is_cl &&
      (build_in_fresh_context(env, g, profile, &row->build_cold_ms) ||
       build_in_fresh_context(env, g, profile, &row->build_warm_ms)))
    return 1;

  /* The same batch for the host tier and the C reference. */
  host_run host = {.ctx = env->ctx}, ref = {.ctx = env->ref};
  fricl_scalar_batch_init(&host.b);
  host.b.precision = env->prec;
  host.b.mu_profile = profile;
  host.b.n = env->n;
  host.b.y = pe ? env->h_ype : env->h_y;
  host.b.eps_v = BENCH_EPS_V;
  host.b.mu_s = BENCH_MU_S;
  host.b.mu_k = BENCH_MU_K;
  if (pe) {
    host.b.eps_v_array = env->h_eps;
    host.b.mu_s_array = env->h_mus;
    host.b.mu_k_array = env->h_muk;
  }
  for (int t = 0, s = 0; t < FRICL_TERM_COUNT; ++t)
    if ((g->mask >> t) & 1u)
      host.b.out[t] = env->h_out[s++];
  ref.b = host.b;

  /* Job order matters twice: interleaving (see bench_time_jobs), and the
   * host tier runs last so that h_out ends with its results, which are
   * then compared bitwise with the device tier's. */
  bench_job jobs[4];
  int njobs = 0, i_copy = -1, i_kernel = -1;
  device_run dev;
  copy_run copy;
  if (env->is_cl) {
    fricl_scalar_batch_cl_init(&dev.b);
    dev.ctx = env->ctx;
    dev.queue = env->queue;
    dev.b.precision = env->prec;
    dev.b.mu_profile = profile;
    dev.b.n = env->n;
    dev.b.y.mem = pe ? env->d_ype : env->d_y;
    dev.b.eps_v = BENCH_EPS_V;
    dev.b.mu_s = BENCH_MU_S;
    dev.b.mu_k = BENCH_MU_K;
    if (pe) {
      dev.b.eps_v_array.mem = env->d_eps;
      dev.b.mu_s_array.mem = env->d_mus;
      dev.b.mu_k_array.mem = env->d_muk;
    }
    for (int t = 0, s = 0; t < FRICL_TERM_COUNT; ++t)
      if ((g->mask >> t) & 1u)
        dev.b.out[t].mem = env->d_out[s++];
    if (copy_setup(env, &copy))
      return 1;
    i_copy = njobs;
    jobs[njobs++] = (bench_job){.fn = run_copy, .arg = &copy};
    i_kernel = njobs;
    jobs[njobs++] = (bench_job){.fn = run_device, .arg = &dev};
  }
  const int i_ref = njobs;
  jobs[njobs++] = (bench_job){.fn = run_host, .arg = &ref};
  const int i_host = njobs;
  jobs[njobs++] = (bench_job){.fn = run_host, .arg = &host};
  if (bench_time_jobs(jobs, njobs, env->opt->repeats, env->opt->min_sample_s))
    return 1;
  if (env->is_cl) {
    row->copy = jobs[i_copy].st;
    row->kernel = jobs[i_kernel].st;
  }
  row->ref = jobs[i_ref].st;
  row->host = jobs[i_host].st;

  /* Accuracy of the primary tier; on OpenCL also host == device bitwise. */
  bench_acc_input acc;
  memset(&acc, 0, sizeof acc);
  acc.prec = env->prec;
  acc.profile = (int)profile;
  acc.n = env->n;
  acc.samples = env->opt->err_samples;
  acc.y = host.b.y;
  acc.eps_v = host.b.eps_v_array;
  acc.mu_s = host.b.mu_s_array;
  acc.mu_k = host.b.mu_k_array;
  if (env->is_cl) {
    if (map_outputs(env, g, mapped))
      goto cleanup;
    for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
      acc.out[t] = mapped[t];
      acc.other[t] = host.b.out[t];
    }
  } else {
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      acc.out[t] = host.b.out[t];
  }
  bench_accuracy(&acc, row);
  rc = 0;
cleanup:
  if (env->is_cl)
    unmap_outputs(env, g, mapped);
  return rc;
}
