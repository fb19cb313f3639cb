/* bench_scalar_cl.c - the scalar family's device tier in `fricl bench`
 * (see bench_ocl.h). Compiled only with FRICL_WITH_OPENCL. */
#include "bench_ocl.h"

#include <stdlib.h>
#include <string.h>

#include "opencl/opencl.h"

struct bench_scalar_dev {
  fricl_context *ctx;
  cl_context cl_ctx; /* borrowed from ctx */
  cl_command_queue queue;
  size_t n, esz;
  cl_mem y, pe[4];              /* y; per-element y, eps_v, mu_s, mu_k */
  cl_mem out[FRICL_TERM_COUNT]; /* output slots */
  fricl_scalar_batch_cl b;      /* the current job's batch */
};

static int fail_cl(cl_int err, const char *what) {
  fprintf(stderr, "fricl bench: %s: %s (%d)\n", what, fricl__cl_error_name(err),
          (int)err);
  return 1;
}

static int fail_fricl(fricl_context *ctx, fricl_status st, const char *what) {
  fprintf(stderr, "fricl bench: %s: %s: %s\n", what, fricl_status_string(st),
          ctx ? fricl_context_last_error(ctx) : "");
  return 1;
}

/* A device buffer of n elements holding a copy of `src` (uninitialised
 * when src is NULL). */
static int device_array(bench_scalar_dev *d, const void *src, cl_mem *out) {
  cl_int err = CL_SUCCESS;
  const size_t bytes = d->n * d->esz;
  *out = clCreateBuffer(d->cl_ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err != CL_SUCCESS) {
    *out = NULL;
    return fail_cl(err, "clCreateBuffer");
  }
  if (src) {
    err = clEnqueueWriteBuffer(d->queue, *out, CL_TRUE, 0, bytes, src, 0, NULL,
                               NULL);
    if (err != CL_SUCCESS)
      return fail_cl(err, "clEnqueueWriteBuffer");
  }
  return 0;
}

void bench_scalar_dev_close(bench_scalar_dev *d) {
  if (!d)
    return;
  if (d->queue)
    clFinish(d->queue); /* an aborted run may still write the outputs */
  cl_mem *all[] = {&d->y, &d->pe[0], &d->pe[1], &d->pe[2], &d->pe[3]};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (*all[i])
      clReleaseMemObject(*all[i]);
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (d->out[t])
      clReleaseMemObject(d->out[t]);
  free(d);
}

int bench_scalar_dev_open(fricl_context *ctx, fricl_precision p, size_t n,
                          const void *y, const void *const pe[4],
                          bench_scalar_dev **out) {
  *out = NULL;
  bench_scalar_dev *d = calloc(1, sizeof *d);
  if (!d) {
    fprintf(stderr, "fricl bench: out of memory\n");
    return 1;
  }
  d->ctx = ctx;
  d->n = n;
  d->esz = fricl__elem_bytes(p);
  const fricl_status st =
      fricl_context_get_cl(ctx, &d->cl_ctx, NULL, &d->queue);
  if (st != FRICL_STATUS_OK) {
    free(d);
    return fail_fricl(ctx, st, "fricl_context_get_cl");
  }
  int bad = device_array(d, y, &d->y);
  for (int i = 0; i < 4 && pe[0] && !bad; ++i)
    bad = device_array(d, pe[i], &d->pe[i]);
  if (bad) {
    bench_scalar_dev_close(d);
    return 1;
  }
  *out = d;
  return 0;
}

/* Device tier: `count` enqueues, one wait. */
static int run_device(void *arg, int count) {
  bench_scalar_dev *d = arg;
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

int bench_scalar_dev_job(bench_scalar_dev *d, const fricl_scalar_batch *hb,
                         bench_job *job) {
  const int pe = hb->eps_v_array != NULL;
  if (pe && !d->pe[0]) {
    fprintf(stderr, "fricl bench: per-element device data not prepared\n");
    return 1;
  }
  fricl_scalar_batch_cl *b = &d->b;
  fricl_scalar_batch_cl_init(b);
  b->precision = hb->precision;
  b->mu_profile = hb->mu_profile;
  b->n = d->n;
  b->y.mem = pe ? d->pe[0] : d->y;
  b->eps_v = hb->eps_v;
  b->mu_s = hb->mu_s;
  b->mu_k = hb->mu_k;
  if (pe) {
    b->eps_v_array.mem = d->pe[1];
    b->mu_s_array.mem = d->pe[2];
    b->mu_k_array.mem = d->pe[3];
  }
  for (int t = 0, s = 0; t < FRICL_TERM_COUNT; ++t) {
    if (!hb->out[t])
      continue;
    if (!d->out[s] && device_array(d, NULL, &d->out[s]))
      return 1;
    b->out[t].mem = d->out[s++];
  }
  memset(job, 0, sizeof *job);
  job->fn = run_device;
  job->arg = d;
  return 0;
}

/* Map the outputs of the current job for reading (zero copy on CPU
 * devices). */
int bench_scalar_dev_map(bench_scalar_dev *d, const void *out[]) {
  for (int t = 0; t < FRICL_TERM_COUNT; ++t) {
    out[t] = NULL;
    if (!d->b.out[t].mem)
      continue;
    cl_int err = CL_SUCCESS;
    out[t] = clEnqueueMapBuffer(d->queue, d->b.out[t].mem, CL_TRUE, CL_MAP_READ,
                                0, d->n * d->esz, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
      out[t] = NULL;
      return fail_cl(err, "clEnqueueMapBuffer");
    }
  }
  return 0;
}

void bench_scalar_dev_unmap(bench_scalar_dev *d, const void *out[]) {
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (out[t] && d->b.out[t].mem)
      clEnqueueUnmapMemObject(d->queue, d->b.out[t].mem, (void *)out[t], 0,
                              NULL, NULL);
  clFinish(d->queue);
}

int bench_scalar_dev_build_ms(const char *device, const fricl_scalar_batch *hb,
                              double *ms) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = device;
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
  fricl__ocl *o = NULL;
  st = fricl__ocl_of(fresh, "fricl bench", &o);
  unsigned mask = 0;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (hb->out[t])
      mask |= 1u << t;
  const int pe = hb->eps_v_array != NULL;
  cl_kernel k = NULL;
  if (st == FRICL_STATUS_OK)
    st = fricl__ocl_scalar_kernel(o, hb->precision, hb->mu_profile, mask, pe,
                                  pe, pe, &k, ms);
  const int rc = st == FRICL_STATUS_OK
                     ? 0
                     : fail_fricl(fresh, st, "building the group's kernel");
  fricl_context_destroy(fresh);
  return rc;
}
