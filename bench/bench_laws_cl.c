/* bench_laws_cl.c - the friction laws' device tier in `fricl bench` (see
 * bench_ocl.h): the case's inputs copied to device buffers once, then
 * fricl_law_eval_cl / fricl_law_step_cl on them. Compiled only with
 * FRICL_WITH_OPENCL. */
#include "bench_ocl.h"

#include <stdlib.h>
#include <string.h>

#include "fricl/fricl_laws_cl.h"
#include "opencl/opencl.h"

struct bench_law_dev {
  fricl_context *ctx;
  cl_command_queue queue;
  cl_mem v, f, s, ge;
  int stepping;
  fricl_law_batch_cl b;
};

void bench_law_dev_close(bench_law_dev *d) {
  if (!d)
    return;
  if (d->queue)
    clFinish(d->queue);
  cl_mem m[4] = {d->v, d->f, d->s, d->ge};
  for (int i = 0; i < 4; ++i)
    if (m[i])
      clReleaseMemObject(m[i]);
  free(d);
}

int bench_law_dev_open(fricl_context *ctx, const bench_law_case *c,
                       bench_law_dev **out) {
  *out = NULL;
  bench_law_dev *d = calloc(1, sizeof *d);
  cl_context clc = NULL;
  if (!d) {
    fprintf(stderr, "fricl bench (laws): out of memory\n");
    return 1;
  }
  d->ctx = ctx;
  d->stepping = c->stepping;
  if (fricl_context_get_cl(ctx, &clc, NULL, &d->queue) != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench (laws): %s\n", fricl_context_last_error(ctx));
    free(d);
    return 1;
  }
  const size_t esz = fricl__elem_bytes(c->prec), n = c->n;
  const size_t gm = 3 * (c->m ? c->m : 1);
  cl_int err = CL_SUCCESS;
  d->v = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * esz,
                        (void *)c->v, &err);
  if (err == CL_SUCCESS)
    d->f = clCreateBuffer(clc, CL_MEM_READ_WRITE, n * esz, NULL, &err);
  if (err == CL_SUCCESS && c->S)
    d->s = clCreateBuffer(clc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                          n * c->S * esz, (void *)c->state, &err);
  if (err == CL_SUCCESS && c->m)
    d->ge = clCreateBuffer(clc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           gm * esz, (void *)c->gms, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "fricl bench (laws): clCreateBuffer: %s\n",
            fricl__cl_error_name(err));
    bench_law_dev_close(d);
    return 1;
  }
  fricl_law_batch_cl *b = &d->b;
  fricl_law_batch_cl_init(b, c->law);
  b->precision = c->prec;
  memcpy(b->param, c->param, sizeof c->param);
  b->normal_force = c->normal_force;
  b->n = n;
  b->h = c->h;
  b->integrator = c->integ;
  if (c->law == FRICL_LAW_MAXWELL)
    b->x.mem = d->v;
  else
    b->v.mem = d->v;
  b->force.mem = d->f;
  if (c->S) {
    b->state.mem = d->s;
    if (c->law == FRICL_LAW_MAXWELL || c->stepping)
      b->state_out.mem = d->s;
  }
  b->gms_elements = c->m;
  if (c->m)
    b->gms_params.mem = d->ge;
  *out = d;
  return 0;
}

int bench_law_dev_run(void *arg, int count) {
  bench_law_dev *d = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st =
        d->stepping ? fricl_law_step_cl(d->ctx, &d->b, 0, NULL, NULL)
                    : fricl_law_eval_cl(d->ctx, &d->b, 0, NULL, NULL);
    if (st != FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench (laws): %s\n",
              fricl_context_last_error(d->ctx));
      clFinish(d->queue);
      return 1;
    }
  }
  return clFinish(d->queue) == CL_SUCCESS ? 0 : 1;
}
