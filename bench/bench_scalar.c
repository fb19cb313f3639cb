/* bench_scalar.c - see bench_scalar.h. */
#include "bench_scalar.h"

#include <stdio.h>
#include <string.h>

#include "bench_accuracy.h"
#include "bench_data.h"
#include "core/internal.h"

static int fail_fricl(fricl_context *ctx, fricl_status st, const char *what) {
  fprintf(stderr, "fricl bench: %s: %s: %s\n", what, fricl_status_string(st),
          ctx ? fricl_context_last_error(ctx) : "");
  return 1;
}

/* ------------------------------------------------- arrays and buffers */

void bench_scalar_end(bench_env *env) {
  bench_scalar_dev_close(env->dev);
  env->dev = NULL;
  bench_roofs_close(&env->roofs);
  void **host[] = {&env->h_y, &env->h_ype, &env->h_eps, &env->h_mus,
                   &env->h_muk};
  for (size_t i = 0; i < sizeof host / sizeof host[0]; ++i) {
    bench_free(*host[i]);
    *host[i] = NULL;
  }
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    bench_free(env->h_out[t]);
    env->h_out[t] = NULL;
  }
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
  if (env->has_dev) {
    const void *const pe[4] = {env->h_ype, env->h_eps, env->h_mus, env->h_muk};
    if (bench_scalar_dev_open(env->ctx, prec, env->n, env->h_y, pe, &env->dev))
      goto fail;
  }
  return 0;
fail:
  bench_scalar_end(env);
  return 1;
}

/* Output slots 0..k-1 on the host. */
static int ensure_outputs(bench_env *env, int k) {
  for (int s = 0; s < k; ++s)
    if (!env->h_out[s] && host_array(env, &env->h_out[s]))
      return 1;
  return 0;
}

/* ---------------------------------------------------------- the tiers */

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

/* ------------------------------------------------------------ a group */

static int popcount12(unsigned mask) {
  int k = 0;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    k += (int)((mask >> t) & 1u);
  return k;
}

static void row_init(bench_env *env, const bench_group *g,
                     fricl_mu_profile profile, bench_tier tier,
                     bench_row *row) {
  memset(row, 0, sizeof *row);
  snprintf(row->group, sizeof row->group, "%s", g->name);
  row->profile = g->profile_free ? -1 : (int)profile;
  row->precision = env->prec;
  row->n = env->n;
  row->terms = popcount12(g->mask);
  row->param_arrays = g->per_element ? 3 : 0;
  row->mask = g->mask;
  row->tier = tier;
  row->build_cold_ms = row->build_warm_ms = -1.0;
  row->host_mismatches = -1;
}

/* Accuracy of `out` (and, when `other` is given, bitwise equality with
 * it) for the batch hb. */
static void judge(bench_env *env, const fricl_scalar_batch *hb,
                  const void *const out[FRICL_TERM_COUNT],
                  const void *const other[FRICL_TERM_COUNT], bench_row *row) {
  bench_acc_input acc;
  memset(&acc, 0, sizeof acc);
  acc.prec = env->prec;
  acc.profile = (int)hb->mu_profile;
  acc.n = env->n;
  acc.samples = env->opt->err_samples;
  acc.y = hb->y;
  acc.eps_v = hb->eps_v_array;
  acc.mu_s = hb->mu_s_array;
  acc.mu_k = hb->mu_k_array;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    acc.out[t] = out[t];
    acc.other[t] = other ? other[t] : NULL;
  }
  bench_accuracy(&acc, row);
  if (!other)
    row->host_mismatches = -1;
}

/* The device tier's outputs: bitwise equal to the host tier's everywhere
 * means the same errors (the long-double reference, most of a quick run's
 * time, is not evaluated twice); otherwise judged on their own, with the
 * sampled elements that differ counted. */
static void judge_device(bench_env *env, const fricl_scalar_batch *hb,
                         const void *const mapped[FRICL_TERM_COUNT],
                         const bench_row *hr, bench_row *dr) {
  int same = 1;
  for (int t = 0; t < FRICL_TERM_COUNT && same; ++t)
    if (hb->out[t])
      same = mapped[t] && memcmp(mapped[t], hb->out[t], env->n * env->esz) == 0;
  if (!same) {
    judge(env, hb, mapped, (const void *const *)hb->out, dr);
    return;
  }
  bench_row keep = *dr;
  *dr = *hr;
  dr->tier = keep.tier;
  dr->backend = keep.backend;
  dr->threads = keep.threads;
  dr->time = keep.time;
  dr->copy = keep.copy;
  dr->ref = keep.ref;
  dr->build_cold_ms = keep.build_cold_ms;
  dr->build_warm_ms = keep.build_warm_ms;
  dr->host_mismatches = 0;
}

int bench_scalar_group(bench_env *env, const bench_group *g,
                       fricl_mu_profile profile, bench_row rows[2],
                       int *nrows) {
  const int pe = g->per_element;
  *nrows = 0;
  if (pe && !env->h_ype) {
    fprintf(stderr, "fricl bench: per-element data not prepared\n");
    return 1;
  }
  if (ensure_outputs(env, popcount12(g->mask)))
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

  /* What a user gets: the warm-up call says which backend runs it, and so
   * which copy is its roofline. */
  bench_row *hr = &rows[0], *dr = &rows[1];
  row_init(env, g, profile, BENCH_TIER_HOST, hr);
  if (run_host(&host, 1))
    return 1;
  hr->backend = fricl_context_last_backend(env->ctx);
  hr->threads =
      hr->backend == FRICL_BACKEND_OPENCL ? 0 : fricl_context_threads(env->ctx);
  bench_roof *roof_h =
      bench_roofs_get(&env->roofs, env->ctx, hr->backend, env->prec, env->n);
  bench_roof *roof_d =
      env->dev ? bench_roofs_get(&env->roofs, env->ctx, FRICL_BACKEND_OPENCL,
                                 env->prec, env->n)
               : NULL;
  if (!roof_h || (env->dev && !roof_d))
    return 1;

  /* Job order matters twice: interleaving (see bench_time_jobs), and the
   * host tier runs last so that h_out ends with its results, which the
   * device tier's are then compared with bitwise. */
  bench_job jobs[5];
  int njobs = 0, i_dev = -1, i_copy_d = -1;
  const int i_copy_h = njobs;
  jobs[njobs++] = bench_roof_job(roof_h);
  if (env->dev) {
    row_init(env, g, profile, BENCH_TIER_DEVICE, dr);
    dr->backend = FRICL_BACKEND_OPENCL;
    i_copy_d = i_copy_h;
    if (roof_d != roof_h) {
      i_copy_d = njobs;
      jobs[njobs++] = bench_roof_job(roof_d);
    }
    i_dev = njobs;
    if (bench_scalar_dev_job(env->dev, &host.b, &jobs[njobs++]))
      return 1;
  }
  const int i_ref = njobs;
  jobs[njobs++] = (bench_job){.fn = run_host, .arg = &ref};
  const int i_host = njobs;
  jobs[njobs++] = (bench_job){.fn = run_host, .arg = &host};
  if (bench_time_jobs(jobs, njobs, env->opt->repeats, env->opt->min_sample_s))
    return 1;
  hr->time = jobs[i_host].st;
  hr->copy = jobs[i_copy_h].st;
  hr->ref = jobs[i_ref].st;
  if (i_dev >= 0 && i_copy_d >= 0) {
    dr->time = jobs[i_dev].st;
    dr->copy = jobs[i_copy_d].st;
    dr->ref = jobs[i_ref].st;
  }

  /* Kernel build times of the OpenCL rows, in fresh contexts (--quick:
   * of the `all` groups only; two fresh contexts per group are most of a
   * quick run's time). */
  const int want_build = !env->opt->quick || g->mask == FRICL_TERMS_ALL;
  if (want_build && (env->dev || hr->backend == FRICL_BACKEND_OPENCL)) {
    double cold = -1.0, warm = -1.0;
    if (bench_scalar_dev_build_ms(env->opt->device, &host.b, &cold) ||
        bench_scalar_dev_build_ms(env->opt->device, &host.b, &warm))
      return 1;
    bench_row *r[2] = {hr, dr};
    for (int k = 0; k < 2; ++k)
      if (r[k]->backend == FRICL_BACKEND_OPENCL && (k == 0 || env->dev)) {
        r[k]->build_cold_ms = cold;
        r[k]->build_warm_ms = warm;
      }
  }

  judge(env, &host.b, (const void *const *)host.b.out, NULL, hr);
  *nrows = 1;
  if (env->dev) {
    const void *mapped[FRICL_TERM_COUNT] = {0};
    const int bad = bench_scalar_dev_map(env->dev, mapped);
    if (!bad)
      judge_device(env, &host.b, mapped, hr, dr);
    bench_scalar_dev_unmap(env->dev, mapped);
    if (bad)
      return 1;
    *nrows = 2;
  }
  return 0;
}
