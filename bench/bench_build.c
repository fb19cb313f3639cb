/* bench_build.c - see bench_build.h. */
#include "bench_build.h"
#include "bench_ocl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_data.h"
#include "opencl/build_launch.h"

#define NG 4 /* FV, EE, EV, VV */

static const fricl_stencil types[NG] = {FRICL_STENCIL_FV, FRICL_STENCIL_EE,
                                        FRICL_STENCIL_EV, FRICL_STENCIL_VV};
static const double shares[NG] = {0.4, 0.3, 0.2, 0.1};

static int fail_fricl(fricl_context *ctx, fricl_status st, const char *what) {
  fprintf(stderr, "fricl bench (build): %s: %s: %s\n", what,
          fricl_status_string(st), ctx ? fricl_context_last_error(ctx) : "");
  return 1;
}

static int fail_cl(cl_int err, const char *what) {
  fprintf(stderr, "fricl bench (build): %s: %s (%d)\n", what,
          fricl__cl_error_name(err), (int)err);
  return 1;
}

/* splitmix64 of a counter: deterministic, independent of the precision. */
static double hash01(uint64_t i) {
  uint64_t z = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E5Full;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1p-53;
}

typedef struct {
  fricl_precision prec;
  size_t esz, nv, count[NG];
  void *X, *R, *vms, *vmk;
  int32_t *vx[NG];
  /* Outputs per group (host tier and C reference share them). */
  void *beta[NG], *P[NG], *N[NG], *gN[NG], *w[NG], *ms[NG], *mk[NG];
  uint8_t *st[NG];
  fricl_build_group G[NG];
  fricl_build_batch b;
  /* Device copies (OpenCL). */
  cl_mem dX, dR, dvms, dvmk, dvx[NG];
  cl_mem dout[NG][8];
} scene;

static void put(fricl_precision p, void *a, size_t i, double v) {
  if (p == FRICL_F64)
    ((double *)a)[i] = v;
  else
    ((float *)a)[i] = (float)v;
}

static void scene_free(scene *s) {
  bench_free(s->X);
  bench_free(s->R);
  bench_free(s->vms);
  bench_free(s->vmk);
  for (int g = 0; g < NG; ++g) {
    bench_free(s->vx[g]);
    bench_free(s->beta[g]);
    bench_free(s->P[g]);
    bench_free(s->N[g]);
    bench_free(s->gN[g]);
    bench_free(s->w[g]);
    bench_free(s->ms[g]);
    bench_free(s->mk[g]);
    bench_free(s->st[g]);
    if (s->dvx[g])
      clReleaseMemObject(s->dvx[g]);
    for (int i = 0; i < 8; ++i)
      if (s->dout[g][i])
        clReleaseMemObject(s->dout[g][i]);
  }
  cl_mem v[4] = {s->dX, s->dR, s->dvms, s->dvmk};
  for (int i = 0; i < 4; ++i)
    if (v[i])
      clReleaseMemObject(v[i]);
  memset(s, 0, sizeof *s);
}

/* Every contact gets its own vertices: a regular stencil at distance
 * U(0.05, 1.2) dhat (dhat = 1e-2), so about 85% are active. */
static int scene_make(scene *s, fricl_precision p, size_t contacts) {
  memset(s, 0, sizeof *s);
  s->prec = p;
  s->esz = fricl__elem_bytes(p);
  size_t left = contacts, nv = 0;
  for (int g = 0; g < NG; ++g) {
    s->count[g] = g == NG - 1 ? left : (size_t)((double)contacts * shares[g]);
    left -= s->count[g];
    nv += s->count[g] * (size_t)fricl_stencil_vertex_count(types[g]);
  }
  s->nv = nv;
  const size_t es = s->esz;
  s->X = bench_alloc(nv * 3 * es);
  s->R = bench_alloc(nv * 3 * es);
  s->vms = bench_alloc(nv * es);
  s->vmk = bench_alloc(nv * es);
  if (!s->X || !s->R || !s->vms || !s->vmk)
    return 1;
  size_t v = 0;
  uint64_t h = 0;
  for (int g = 0; g < NG; ++g) {
    const size_t n = s->count[g];
    const int k = fricl_stencil_vertex_count(types[g]);
    const int nb = fricl_stencil_coord_count(types[g]);
    s->vx[g] = bench_alloc(n * (size_t)k * sizeof(int32_t) + 1);
    s->beta[g] = bench_alloc(n * (size_t)(nb ? nb : 1) * es + 1);
    s->P[g] = bench_alloc(n * 6 * es + 1);
    s->N[g] = bench_alloc(n * es + 1);
    s->gN[g] = bench_alloc(n * (size_t)k * 3 * es + 1);
    s->w[g] = bench_alloc(n * es + 1);
    s->ms[g] = bench_alloc(n * es + 1);
    s->mk[g] = bench_alloc(n * es + 1);
    s->st[g] = bench_alloc(n + 1);
    if (!s->vx[g] || !s->beta[g] || !s->P[g] || !s->N[g] || !s->gN[g] ||
        !s->w[g] || !s->ms[g] || !s->mk[g] || !s->st[g])
      return 1;
    for (size_t c = 0; c < n; ++c) {
      double o[3], d = 1e-2 * (0.05 + 1.15 * hash01(h++));
      for (int r = 0; r < 3; ++r)
        o[r] = 10 * hash01(h++);
      double q[4][3];
      /* Unit-ish stencils in the x-y plane, the point above along z. */
      const double a = 0.3 + 0.4 * hash01(h++), bq = 0.2 + 0.3 * hash01(h++);
      switch (types[g]) {
      case FRICL_STENCIL_FV:
        for (int r = 0; r < 3; ++r) {
          q[1][r] = o[r];
          q[2][r] = o[r] + (r == 0 ? 1 : 0);
          q[3][r] = o[r] + (r == 1 ? 1 : 0);
          q[0][r] = o[r] + (r == 0 ? a * 0.5 : r == 1 ? bq * 0.5 : d);
        }
        break;
      case FRICL_STENCIL_EE:
        for (int r = 0; r < 3; ++r) {
          q[0][r] = o[r] + (r == 0 ? -a : 0);
          q[1][r] = o[r] + (r == 0 ? 1 - a : 0);
          q[2][r] = o[r] + (r == 1 ? -bq : r == 2 ? d : 0);
          q[3][r] = o[r] + (r == 1 ? 1 - bq : r == 2 ? d : 0);
        }
        break;
      case FRICL_STENCIL_EV:
        for (int r = 0; r < 3; ++r) {
          q[1][r] = o[r];
          q[2][r] = o[r] + (r == 0 ? 1 : 0);
          q[0][r] = o[r] + (r == 0 ? a : r == 2 ? d : 0);
        }
        break;
      default:
        for (int r = 0; r < 3; ++r) {
          q[0][r] = o[r];
          q[1][r] = o[r] + (r == 2 ? d : 0);
        }
        break;
      }
      for (int i = 0; i < k; ++i, ++v) {
        s->vx[g][c * (size_t)k + (size_t)i] = (int32_t)v;
        for (int r = 0; r < 3; ++r) {
          put(p, s->X, v * 3 + (size_t)r, q[i][r]);
          put(p, s->R, v * 3 + (size_t)r, q[i][r] + 1e-3 * hash01(h++));
        }
        put(p, s->vms, v, 0.2 + 0.6 * hash01(h++));
        put(p, s->vmk, v, 0.1 + 0.3 * hash01(h++));
      }
    }
    fricl_build_group *G = &s->G[g];
    G->type = types[g];
    G->count = n;
    G->vertices = s->vx[g];
    G->closest_point = nb ? s->beta[g] : NULL;
    G->tangent_basis = s->P[g];
    G->normal_force = s->N[g];
    G->normal_force_gradient = s->gN[g];
    G->weight_out = s->w[g];
    G->mu_s_out = s->ms[g];
    G->mu_k_out = s->mk[g];
    G->status = s->st[g];
  }
  fricl_build_batch_init(&s->b);
  s->b.precision = p;
  s->b.n_vertices = nv;
  s->b.lagged_positions = s->X;
  s->b.rest_positions = s->R;
  s->b.kappa = 1e4;
  s->b.dhat = 1e-2;
  s->b.vertex_mu_s = s->vms;
  s->b.vertex_mu_k = s->vmk;
  s->b.n_groups = NG;
  s->b.groups = s->G;
  return 0;
}

/* Bytes a contact must move: its indices, gathered positions (and rest
 * positions for EE), per-vertex mu, and every output. */
static double bytes_per_contact(const scene *s) {
  double total = 0, n = 0;
  for (int g = 0; g < NG; ++g) {
    const double k = fricl_stencil_vertex_count(types[g]);
    const double nb = fricl_stencil_coord_count(types[g]);
    const double es = (double)s->esz;
    double b = k * 4 + k * 3 * es + 2 * k * es; /* in */
    if (types[g] == FRICL_STENCIL_EE)
      b += k * 3 * es;
    b += (nb + 6 + 1 + k * 3 + 3) * es + 1; /* out */
    total += b * (double)s->count[g];
    n += (double)s->count[g];
  }
  return total / n;
}

static int dev_buf(cl_context c, cl_command_queue q, const void *src,
                   size_t bytes, cl_mem *out) {
  cl_int err = CL_SUCCESS;
  *out = clCreateBuffer(c, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
  if (err != CL_SUCCESS)
    return fail_cl(err, "clCreateBuffer");
  if (src && bytes) {
    err = clEnqueueWriteBuffer(q, *out, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
    if (err != CL_SUCCESS)
      return fail_cl(err, "clEnqueueWriteBuffer");
  }
  return 0;
}

static int scene_upload(scene *s, cl_context c, cl_command_queue q) {
  const size_t es = s->esz, nv = s->nv;
  if (dev_buf(c, q, s->X, nv * 3 * es, &s->dX) ||
      dev_buf(c, q, s->R, nv * 3 * es, &s->dR) ||
      dev_buf(c, q, s->vms, nv * es, &s->dvms) ||
      dev_buf(c, q, s->vmk, nv * es, &s->dvmk))
    return 1;
  for (int g = 0; g < NG; ++g) {
    const size_t n = s->count[g];
    const size_t k = (size_t)fricl_stencil_vertex_count(types[g]);
    const size_t nb = (size_t)fricl_stencil_coord_count(types[g]);
    if (dev_buf(c, q, s->vx[g], n * k * 4, &s->dvx[g]))
      return 1;
    const size_t per[8] = {nb * es, 6 * es, es, k * 3 * es, es, es, es, 1};
    for (int i = 0; i < 8; ++i)
      if ((i > 0 || nb) && dev_buf(c, q, NULL, n * per[i], &s->dout[g][i]))
        return 1;
  }
  return 0;
}

/* ---------------------------------------------------------------- tiers */

typedef struct {
  fricl_context *ctx;
  cl_command_queue queue;
  scene *s;
} dev_run;

static int run_device(void *arg, int count) {
  dev_run *d = arg;
  scene *s = d->s;
  for (int it = 0; it < count; ++it)
    for (int g = 0; g < NG; ++g) {
      fricl__build_launch l;
      memset(&l, 0, sizeof l);
      l.precision = s->prec;
      l.dim = 3;
      l.type = types[g];
      l.blend = FRICL_BLEND_AVERAGE;
      l.mus_mode = l.muk_mode = FRICL__MU_VERTEX;
      l.X = s->dX;
      l.Xrest = s->dR;
      l.vmus = s->dvms;
      l.vmuk = s->dvmk;
      l.vert = s->dvx[g];
      l.beta = s->dout[g][0];
      l.P = s->dout[g][1];
      l.N = s->dout[g][2];
      l.gN = s->dout[g][3];
      l.wout = s->dout[g][4];
      l.musout = s->dout[g][5];
      l.mukout = s->dout[g][6];
      l.status = s->dout[g][7];
      l.kappa = s->b.kappa;
      l.dhat = s->b.dhat;
      l.c0 = 0;
      l.n = s->count[g];
      const fricl_status st = fricl__build_enqueue(bench_ocl(d->ctx), &l);
      if (st != FRICL_STATUS_OK) {
        clFinish(d->queue);
        return fail_fricl(d->ctx, st, "build kernel");
      }
    }
  const cl_int err = clFinish(d->queue);
  return err == CL_SUCCESS ? 0 : fail_cl(err, "clFinish");
}

typedef struct {
  fricl_context *ctx;
  const fricl_build_batch *b;
} host_run;

static int run_host(void *arg, int count) {
  host_run *h = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = fricl_build(h->ctx, h->b);
    if (st != FRICL_STATUS_OK)
      return fail_fricl(h->ctx, st, "fricl_build");
  }
  return 0;
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
      return fail_cl(err, "copy kernel");
    }
  }
  const cl_int err = clFinish(c->queue);
  return err == CL_SUCCESS ? 0 : fail_cl(err, "clFinish");
}

static int one_precision(const bench_options *o, fricl_context *ctx,
                         fricl_context *ref, fricl_precision p, size_t contacts,
                         bench_build_row *row) {
  scene s;
  int rc = 1;
  cl_mem csrc = NULL, cdst = NULL;
  cl_kernel cr_kernel = NULL;
  memset(row, 0, sizeof *row);
  row->precision = p;
  row->contacts = contacts;
  if (scene_make(&s, p, contacts)) {
    fprintf(stderr, "fricl bench (build): out of memory\n");
    goto done;
  }
  row->bytes_per_contact = bytes_per_contact(&s);
  const int is_cl = fricl_context_backend(ctx) == FRICL_BACKEND_OPENCL;
  row->have_kernel = is_cl;
  bench_job jobs[4];
  int nj = 0, i_dev = -1, i_copy = -1;
  dev_run dr;
  copy_run cr;
  host_run hr = {ctx, &s.b}, rr = {ref, &s.b};
  if (is_cl) {
    cl_context cc;
    cl_command_queue q;
    if (fricl_context_get_cl(ctx, &cc, NULL, &q) != FRICL_STATUS_OK ||
        scene_upload(&s, cc, q))
      goto done;
    dr = (dev_run){ctx, q, &s};
    /* The copy kernel moves as many bytes as the build (read + write). */
    const size_t n = (size_t)(row->bytes_per_contact * (double)contacts /
                              (2.0 * (double)s.esz));
    if (dev_buf(cc, q, NULL, n * s.esz, &csrc) ||
        dev_buf(cc, q, NULL, n * s.esz, &cdst))
      goto done;
    const char *defines = p == FRICL_F64
                              ? "#pragma OPENCL EXTENSION cl_khr_fp64 : "
                                "enable\n#define FRICL_REAL double\n"
                              : "#define FRICL_REAL float\n";
    cl_kernel k = NULL;
    const fricl_status st = fricl__ocl_kernel(
        bench_ocl(ctx), "fricl_copy.cl", NULL, "fricl_copy", defines, &k, NULL);
    if (st != FRICL_STATUS_OK) {
      fail_fricl(ctx, st, "copy kernel");
      goto done;
    }
    const cl_ulong n64 = n;
    if (clSetKernelArg(k, 0, sizeof n64, &n64) != CL_SUCCESS ||
        clSetKernelArg(k, 1, sizeof csrc, &csrc) != CL_SUCCESS ||
        clSetKernelArg(k, 2, sizeof cdst, &cdst) != CL_SUCCESS) {
      fprintf(stderr, "fricl bench (build): clSetKernelArg (copy)\n");
      goto done;
    }
    cr = (copy_run){q, k, n};
    cr_kernel = k;
    i_copy = nj;
    jobs[nj++] = (bench_job){.fn = run_copy, .arg = &cr};
    i_dev = nj;
    jobs[nj++] = (bench_job){.fn = run_device, .arg = &dr};
  }
  const int i_ref = nj;
  jobs[nj++] = (bench_job){.fn = run_host, .arg = &rr};
  const int i_host = nj;
  jobs[nj++] = (bench_job){.fn = run_host, .arg = &hr};
  if (bench_time_jobs(jobs, nj, o->repeats, o->min_sample_s))
    goto done;
  row->ref = jobs[i_ref].st;
  row->host = jobs[i_host].st;
  if (is_cl) {
    row->kernel = jobs[i_dev].st;
    row->copy = jobs[i_copy].st;
    row->copy_gbs =
        2.0 * (double)cr.n * (double)s.esz / row->copy.median * 1e-9;
    /* The host tier ran last: its outputs against the device tier's. */
    for (int g = 0; g < NG; ++g) {
      const size_t n = s.count[g];
      const size_t nb = (size_t)fricl_stencil_coord_count(types[g]);
      uint8_t *st = malloc(n + 1);
      void *P = malloc(n * 6 * s.esz + 1), *beta = malloc(n * 2 * s.esz + 1);
      if (!st || !P || !beta ||
          clEnqueueReadBuffer(dr.queue, s.dout[g][7], CL_TRUE, 0, n, st, 0,
                              NULL, NULL) != CL_SUCCESS ||
          clEnqueueReadBuffer(dr.queue, s.dout[g][1], CL_TRUE, 0, n * 6 * s.esz,
                              P, 0, NULL, NULL) != CL_SUCCESS ||
          (nb && clEnqueueReadBuffer(dr.queue, s.dout[g][0], CL_TRUE, 0,
                                     n * nb * s.esz, beta, 0, NULL,
                                     NULL) != CL_SUCCESS)) {
        free(st);
        free(P);
        free(beta);
        fprintf(stderr, "fricl bench (build): reading device outputs\n");
        goto done;
      }
      row->mismatches += memcmp(st, s.st[g], n) != 0;
      row->mismatches += memcmp(P, s.P[g], n * 6 * s.esz) != 0;
      row->mismatches += nb && memcmp(beta, s.beta[g], n * nb * s.esz) != 0;
      free(st);
      free(P);
      free(beta);
    }
  }
  rc = 0;
done:
  if (cr_kernel) {
    static const cl_uint copy_args[] = {1, 2};
    fricl__kernel_unbind(cr_kernel, copy_args, 2);
  }
  if (csrc)
    clReleaseMemObject(csrc);
  if (cdst)
    clReleaseMemObject(cdst);
  scene_free(&s);
  return rc;
}

/* ---------------------------------------------- build, then evaluate */

/* One solver step's worth of friction: the lagged build, the contact plan
 * (the active set changed), then D, its gradient and the global Hessian
 * (PSD clamp) at velocities v. The build's outputs feed the evaluation
 * directly (same layouts). */
typedef struct {
  fricl_context *ctx;
  scene *s;
  const void *vel;
  void *pot, *grad, *hess;
  size_t hess_cap; /* elements */
} eval_run;

static int run_build_eval(void *arg, int count) {
  eval_run *e = arg;
  scene *s = e->s;
  for (int i = 0; i < count; ++i) {
    fricl_status st = fricl_build(e->ctx, &s->b);
    if (st != FRICL_STATUS_OK)
      return fail_fricl(e->ctx, st, "fricl_build");
    fricl_contact_group G[NG];
    memset(G, 0, sizeof G);
    for (int g = 0; g < NG; ++g) {
      G[g].type = types[g];
      G[g].count = s->count[g];
      G[g].vertices = s->vx[g];
      G[g].closest_point =
          fricl_stencil_coord_count(types[g]) ? s->beta[g] : NULL;
      G[g].tangent_basis = s->P[g];
      G[g].normal_force = s->N[g];
      G[g].weight = s->w[g];
      G[g].mu_s = s->ms[g];
      G[g].mu_k = s->mk[g];
    }
    fricl_tangential_plan *plan = NULL;
    st = fricl_tangential_plan_create(e->ctx, 3, s->nv, NG, G, &plan);
    if (st != FRICL_STATUS_OK)
      return fail_fricl(e->ctx, st, "fricl_tangential_plan_create");
    size_t nnz = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    fricl_tangential_batch b;
    fricl_tangential_batch_init(&b);
    b.precision = s->prec;
    b.psd = FRICL_PSD_CLAMP;
    b.n_vertices = s->nv;
    b.velocities = e->vel;
    b.eps_v = 1e-3;
    b.n_groups = NG;
    b.groups = G;
    b.plan = plan;
    b.potential = e->pot;
    b.gradient = e->grad;
    b.hessian_values = nnz * 9 <= e->hess_cap ? e->hess : NULL;
    st = b.hessian_values ? fricl_tangential_eval(e->ctx, &b)
                          : FRICL_STATUS_OUT_OF_MEMORY;
    fricl_tangential_plan_destroy(plan);
    if (st != FRICL_STATUS_OK)
      return fail_fricl(e->ctx, st, "fricl_tangential_eval");
  }
  return 0;
}

int bench_build_eval_run(const bench_options *o, fricl_context *ctx,
                         fricl_context *ref, size_t contacts, int markdown) {
  int printed = 0;
  for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
    if (!((o->precisions >> p) & 1u) ||
        (p == FRICL_F64 && !fricl_context_has_fp64(ctx)))
      continue;
    scene s;
    if (scene_make(&s, (fricl_precision)p, contacts)) {
      scene_free(&s);
      fprintf(stderr, "fricl bench (build+eval): out of memory\n");
      return 1;
    }
    const size_t nvd = s.nv * 3, cap = contacts * 16 * 9;
    void *vel = bench_alloc(nvd * s.esz);
    void *buf[6] = {bench_alloc(s.esz),       bench_alloc(nvd * s.esz),
                    bench_alloc(cap * s.esz), bench_alloc(s.esz),
                    bench_alloc(nvd * s.esz), bench_alloc(cap * s.esz)};
    int rc = !vel;
    for (int i = 0; i < 6; ++i)
      rc |= !buf[i];
    if (!rc) {
      for (size_t i = 0; i < nvd; ++i)
        put(s.prec, vel, i, 2e-3 * (hash01(i * 7 + 3) - 0.5));
      eval_run a = {ctx, &s, vel, buf[0], buf[1], buf[2], cap};
      eval_run r = {ref, &s, vel, buf[3], buf[4], buf[5], cap};
      bench_job jobs[2] = {{.fn = run_build_eval, .arg = &a},
                           {.fn = run_build_eval, .arg = &r}};
      rc = bench_time_jobs(jobs, 2, o->repeats, o->min_sample_s);
      if (!rc) {
        if (!printed++)
          fprintf(stdout,
                  "\n%sBuild + evaluate (fricl_build, plan, D + gradient + "
                  "global BSR Hessian, PSD clamp), same scene\n%s",
                  markdown ? "### " : "",
                  markdown ? "\n| prec | contacts | Mcontacts/s | C ref "
                             "Mcontacts/s | speed-up vs C ref |\n"
                             "|---|---|---|---|---|\n"
                           : "");
        const double n = (double)contacts;
        fprintf(stdout,
                markdown ? "| %s | %zu | %.2f | %.2f | %.2fx |\n"
                         : "%s %zu contacts: %.2f Mcontacts/s, C ref %.2f "
                           "Mcontacts/s, %.2fx\n",
                p ? "f32" : "f64", contacts, n / jobs[0].st.median * 1e-6,
                n / jobs[1].st.median * 1e-6,
                jobs[1].st.median / jobs[0].st.median);
      }
    }
    bench_free(vel);
    for (int i = 0; i < 6; ++i)
      bench_free(buf[i]);
    scene_free(&s);
    if (rc)
      return 1;
  }
  return 0;
}

int bench_build_run(const bench_options *o, fricl_context *ctx,
                    fricl_context *ref, size_t contacts, bench_build_row *rows,
                    int *nrows) {
  *nrows = 0;
  for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
    if (!((o->precisions >> p) & 1u))
      continue;
    if (p == FRICL_F64 && !fricl_context_has_fp64(ctx))
      continue;
    if (one_precision(o, ctx, ref, (fricl_precision)p, contacts, &rows[*nrows]))
      return 1;
    const bench_build_row *r = &rows[*nrows];
    fprintf(stderr,
            "[build] %s %zu contacts: C reference %.3f ms, host %.3f "
            "ms%s\n",
            p ? "f32" : "f64", contacts, r->ref.median * 1e3,
            r->host.median * 1e3, r->have_kernel ? "" : " (no device tier)");
    ++*nrows;
  }
  return 0;
}

void bench_build_report(FILE *out, const bench_build_row *rows, int nrows,
                        int markdown) {
  if (!nrows)
    return;
  fprintf(out,
          "\n%sLagged build (fricl_build), mixed 3-D scene: FV 40%%, EE "
          "30%%, EV 20%%, VV 10%%, per-vertex mu, all outputs\n",
          markdown ? "### " : "");
  if (markdown)
    fprintf(out, "\n| prec | contacts | B/contact | device Mcontacts/s | "
                 "eff. GB/s | copy GB/s | %% of copy | host tier Mcontacts/s "
                 "| C ref Mcontacts/s | speed-up vs C ref | host = device |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|\n");
  else
    fprintf(out, "%-4s %9s %9s %12s %9s %9s %8s %12s %12s %9s %6s\n", "prec",
            "contacts", "B/contact", "dev Mc/s", "eff GB/s", "copy GB/s",
            "% copy", "host Mc/s", "C ref Mc/s", "speed-up", "same");
  for (int i = 0; i < nrows; ++i) {
    const bench_build_row *r = &rows[i];
    const double n = (double)r->contacts;
    const double dev = r->have_kernel ? n / r->kernel.median : NAN;
    const double eff = dev * r->bytes_per_contact * 1e-9;
    const double pct = r->have_kernel ? 100 * eff / r->copy_gbs : NAN;
    const double host = n / r->host.median, cref = n / r->ref.median;
    const double sp = r->have_kernel ? r->ref.median / r->kernel.median : NAN;
    const char *same = r->have_kernel ? (r->mismatches ? "NO" : "yes") : "-";
    if (markdown)
      fprintf(out,
              "| %s | %zu | %.0f | %.1f | %.1f | %.1f | %.1f%% | %.1f | %.2f "
              "| %.1fx | %s |\n",
              r->precision ? "f32" : "f64", r->contacts, r->bytes_per_contact,
              dev * 1e-6, eff, r->copy_gbs, pct, host * 1e-6, cref * 1e-6, sp,
              same);
    else
      fprintf(out,
              "%-4s %9zu %9.0f %12.1f %9.1f %9.1f %7.1f%% %12.1f %12.2f "
              "%8.1fx %6s\n",
              r->precision ? "f32" : "f64", r->contacts, r->bytes_per_contact,
              dev * 1e-6, eff, r->copy_gbs, pct, host * 1e-6, cref * 1e-6, sp,
              same);
  }
}
