/*
 * bench_contacts.c - the per-contact tangential potential: face-vertex and
 * edge-edge contacts on a mesh-like scene, for value only, value+gradient,
 * +dense local Hessian, +factored Hessian, +global BSR assembly, and the
 * matrix-free product, in f64 and f32.
 *
 * Every row times, interleaved in the same run: fricl_tangential_eval on
 * the device under test (host arrays, end to end), the single-thread C
 * reference on the same batch, and the copy kernel (the roofline). "Bytes"
 * are the compulsory traffic of the row: every input read once and every
 * output written once (lagged data, vertex ids, velocities; per-contact
 * outputs; global vectors and the BSR values). Intermediate traffic (the
 * per-contact records the assembly gathers) is a cost of the method and so
 * not counted, which makes "% of copy" an honest efficiency figure.
 */
#include "bench_contacts.h"
#include "bench_ocl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timer.h"

typedef enum {
  MODE_VALUE,
  MODE_GRAD,
  MODE_LOCAL,
  MODE_FACTORED,
  MODE_GLOBAL,
  MODE_PRODUCT,
  MODE_LOCAL_ONLY,
  MODE_FACTORED_ONLY,
  MODE_COUNT
} mode;

static const char *const mode_names[MODE_COUNT] = {"value",
                                                   "value+grad",
                                                   "+local hessian",
                                                   "+factored hessian",
                                                   "+global assembly",
                                                   "matrix-free H p",
                                                   "local hessian only",
                                                   "factored only"};

/* A mesh-like scene: two parallel sheets of G x G vertices; contact c
 * pairs cell c/2 of sheet A with the same cell of sheet B, so neighbouring
 * contacts share vertices as in a real contact set. */
typedef struct {
  fricl_stencil type;
  size_t count, nv;
  int32_t *vx;
  double *beta, *P, *N, *w, *ms, *mk, *vel, *dir;
  float *fbeta, *fP, *fN, *fw, *fms, *fmk, *fvel, *fdir;
} scene;

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ull) >> 11) * 0x1p-53;
}

static float *to_float(const double *x, size_t n) {
  float *y = malloc(n * sizeof *y);
  if (y)
    for (size_t i = 0; i < n; ++i)
      y[i] = (float)x[i];
  return y;
}

static void scene_free(scene *s) {
  free(s->vx), free(s->beta), free(s->P), free(s->N), free(s->w);
  free(s->ms), free(s->mk), free(s->vel), free(s->dir);
  free(s->fbeta), free(s->fP), free(s->fN), free(s->fw), free(s->fms);
  free(s->fmk), free(s->fvel), free(s->fdir);
  memset(s, 0, sizeof *s);
}

static int scene_make(scene *s, fricl_stencil type, size_t count, double e) {
  memset(s, 0, sizeof *s);
  s->type = type;
  s->count = count;
  const size_t cells = (count + 1) / 2;
  size_t g1 = (size_t)ceil(sqrt((double)cells));
  if (g1 < 1)
    g1 = 1;
  const size_t G = g1 + 1, sheet = G * G;
  s->nv = 2 * sheet;
  const size_t k = 4;
  s->vx = malloc(count * k * sizeof *s->vx);
  s->beta = malloc(count * 2 * sizeof *s->beta);
  s->P = malloc(count * 6 * sizeof *s->P);
  s->N = malloc(count * sizeof *s->N);
  s->w = malloc(count * sizeof *s->w);
  s->ms = malloc(count * sizeof *s->ms);
  s->mk = malloc(count * sizeof *s->mk);
  s->vel = malloc(s->nv * 3 * sizeof *s->vel);
  s->dir = malloc(s->nv * 3 * sizeof *s->dir);
  if (!s->vx || !s->beta || !s->P || !s->N || !s->w || !s->ms || !s->mk ||
      !s->vel || !s->dir)
    return 1;
  for (size_t c = 0; c < count; ++c) {
    const size_t cell = c / 2, half = c % 2;
    const size_t i = cell / g1, j = cell % g1;
    const size_t a = i * G + j, b = sheet + i * G + j;
    int32_t *v = s->vx + c * k;
    if (type == FRICL_STENCIL_FV) {
      v[0] = (int32_t)(a + half);
      v[1] = (int32_t)b;
      v[2] = (int32_t)(b + 1 + half * G);
      v[3] = (int32_t)(b + G + half);
    } else { /* EE: an edge of A's cell against a crossing edge of B's */
      v[0] = (int32_t)(a + half * G);
      v[1] = (int32_t)(a + 1 + half * G);
      v[2] = (int32_t)(b + half);
      v[3] = (int32_t)(b + G + half);
    }
    s->beta[2 * c] = urand();
    s->beta[2 * c + 1] = urand() * (1 - s->beta[2 * c]);
    /* A tangent basis of a slightly tilted plane. */
    const double t = 0.2 * (urand() - 0.5), ct = cos(t), st = sin(t);
    const double p[6] = {ct, 0, 0, 1, -st, 0};
    memcpy(s->P + 6 * c, p, sizeof p);
    s->N[c] = 0.1 + 10 * urand();
    s->w[c] = 1;
    s->ms[c] = 0.2 + 0.6 * urand();
    s->mk[c] = 0.1 + 0.5 * urand();
  }
  for (size_t i = 0; i < s->nv * 3; ++i) {
    s->vel[i] = (urand() - 0.5) * 2 * e;
    s->dir[i] = urand() - 0.5;
  }
  s->fbeta = to_float(s->beta, count * 2);
  s->fP = to_float(s->P, count * 6);
  s->fN = to_float(s->N, count);
  s->fw = to_float(s->w, count);
  s->fms = to_float(s->ms, count);
  s->fmk = to_float(s->mk, count);
  s->fvel = to_float(s->vel, s->nv * 3);
  s->fdir = to_float(s->dir, s->nv * 3);
  return !s->fbeta || !s->fP || !s->fN || !s->fw || !s->fms || !s->fmk ||
         !s->fvel || !s->fdir;
}

/* One configured evaluation (outputs owned here). */
typedef struct {
  fricl_context *ctx;
  fricl_contact_group G;
  fricl_tangential_batch b;
  void *pot, *grad, *prod, *hess, *loc, *gam, *q, *S;
} eval_run;

static void eval_free(eval_run *r) {
  free(r->pot), free(r->grad), free(r->prod), free(r->hess);
  free(r->loc), free(r->gam), free(r->q), free(r->S);
}

static int eval_setup(eval_run *r, fricl_context *ctx, const scene *s,
                      fricl_precision p, mode md,
                      const fricl_tangential_plan *plan, double e) {
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  const int f = p == FRICL_F32;
  const size_t esz = f ? 4 : 8, n = s->count, nvd = s->nv * 3;
  fricl_contact_group *G = &r->G;
  G->type = s->type;
  G->count = n;
  G->vertices = s->vx;
  G->closest_point = f ? (const void *)s->fbeta : (const void *)s->beta;
  G->tangent_basis = f ? (const void *)s->fP : (const void *)s->P;
  G->normal_force = f ? (const void *)s->fN : (const void *)s->N;
  G->weight = f ? (const void *)s->fw : (const void *)s->w;
  G->mu_s = f ? (const void *)s->fms : (const void *)s->ms;
  G->mu_k = f ? (const void *)s->fmk : (const void *)s->mk;
  fricl_tangential_batch *b = &r->b;
  fricl_tangential_batch_init(b);
  b->precision = p;
  b->psd = FRICL_PSD_CLAMP;
  b->n_vertices = s->nv;
  b->velocities = f ? (const void *)s->fvel : (const void *)s->vel;
  b->eps_v = e;
  b->n_groups = 1;
  b->groups = G;
  int bad = 0;
  const int only = md == MODE_LOCAL_ONLY || md == MODE_FACTORED_ONLY;
  if (md != MODE_PRODUCT && !only) {
    bad |= !(r->pot = malloc(esz));
    b->potential = r->pot;
  }
  if (md >= MODE_GRAD && md != MODE_PRODUCT && !only) {
    bad |= !(r->grad = malloc(nvd * esz));
    b->gradient = r->grad;
    b->plan = plan; /* a solver reuses its plan across evaluations */
  }
  if (md == MODE_LOCAL || md == MODE_LOCAL_ONLY) {
    bad |= !(r->loc = malloc(n * 144 * esz));
    G->local_hessian = r->loc;
  }
  if (md == MODE_FACTORED || md == MODE_FACTORED_ONLY) {
    bad |= !(r->gam = malloc(n * 4 * esz)) || !(r->q = malloc(n * 3 * esz)) ||
           !(r->S = malloc(n * 6 * esz));
    G->factored_gamma = r->gam;
    G->factored_grad = r->q;
    G->factored_hessian = r->S;
  }
  if (md == MODE_GLOBAL) {
    size_t nnz = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    bad |= !(r->hess = malloc(nnz * 9 * esz + 1));
    b->hessian_values = r->hess;
    b->plan = plan;
  }
  if (md == MODE_PRODUCT) {
    bad |= !(r->prod = malloc(nvd * esz));
    b->direction = f ? (const void *)s->fdir : (const void *)s->dir;
    b->hessian_product = r->prod;
    b->plan = plan;
  }
  if (bad)
    fprintf(stderr, "fricl bench: out of memory for the contact outputs\n");
  return bad;
}

static int run_eval(void *arg, int count) {
  eval_run *r = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = fricl_tangential_eval(r->ctx, &r->b);
    if (st != FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench: fricl_tangential_eval: %s: %s\n",
              fricl_status_string(st), fricl_context_last_error(r->ctx));
      return 1;
    }
  }
  return 0;
}

/* The copy kernel over 2^24 elements of the precision. */
typedef struct {
  cl_command_queue queue;
  cl_kernel kernel;
  size_t n;
  cl_mem src, dst;
} copy_run;

static int run_copy(void *arg, int count) {
  copy_run *c = arg;
  for (int i = 0; i < count; ++i)
    if (clEnqueueNDRangeKernel(c->queue, c->kernel, 1, NULL, &c->n, NULL, 0,
                               NULL, NULL) != CL_SUCCESS)
      return 1;
  return clFinish(c->queue) != CL_SUCCESS;
}

static int copy_setup(fricl_context *ctx, fricl_precision p, copy_run *c) {
  memset(c, 0, sizeof *c);
  const char *defines = p == FRICL_F64
                            ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                              "#define FRICL_REAL double\n"
                            : "#define FRICL_REAL float\n";
  if (fricl__ocl_kernel(bench_ocl(ctx), "fricl_copy.cl", NULL, "fricl_copy",
                        defines, &c->kernel, NULL) != FRICL_STATUS_OK)
    return 1;
  cl_context cl = NULL;
  fricl_context_get_cl(ctx, &cl, NULL, &c->queue);
  c->n = (size_t)1 << 24;
  const size_t bytes = c->n * (p == FRICL_F64 ? 8 : 4);
  cl_int err = CL_SUCCESS;
  c->src = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS)
    c->dst = clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (err == CL_SUCCESS) {
    const double zd = 0;
    const float zf = 0;
    err = clEnqueueFillBuffer(c->queue, c->src,
                              p == FRICL_F64 ? (const void *)&zd
                                             : (const void *)&zf,
                              p == FRICL_F64 ? 8 : 4, 0, bytes, 0, NULL, NULL);
  }
  const cl_ulong n64 = c->n;
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->kernel, 0, sizeof n64, &n64);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->kernel, 1, sizeof(cl_mem), &c->src);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(c->kernel, 2, sizeof(cl_mem), &c->dst);
  return err != CL_SUCCESS;
}

static void copy_free(copy_run *c) {
  static const cl_uint mem_args[] = {1, 2};
  if (c->kernel)
    fricl__kernel_unbind(c->kernel, mem_args, 2);
  if (c->src)
    clReleaseMemObject(c->src);
  if (c->dst)
    clReleaseMemObject(c->dst);
}

/* Compulsory bytes of one evaluation (see the file comment). */
static double row_bytes(const scene *s, fricl_precision p, mode md,
                        size_t nnz) {
  const double esz = p == FRICL_F64 ? 8 : 4, n = (double)s->count;
  const double nvd = (double)s->nv * 3;
  double b = n * (4 * 4 + (2 + 6 + 4) * esz) + nvd * esz;
  if (md == MODE_GRAD || md == MODE_LOCAL || md == MODE_FACTORED ||
      md == MODE_GLOBAL)
    b += nvd * esz;
  if (md == MODE_LOCAL || md == MODE_LOCAL_ONLY)
    b += n * 144 * esz;
  if (md == MODE_FACTORED || md == MODE_FACTORED_ONLY)
    b += n * (4 + 3 + 6) * esz;
  if (md == MODE_GLOBAL)
    b += (double)nnz * 9 * esz;
  if (md == MODE_PRODUCT)
    b += 2 * nvd * esz;
  return b;
}

typedef struct {
  const char *type;
  fricl_precision prec;
  mode md;
  double t_fricl, t_ref, t_copy_gbs, bytes, spread;
  size_t count;
} crow;

static int print_rows(const crow *r, size_t n, int markdown, int is_cl) {
  const char *hdr[] = {"stencil", "prec",   "outputs", "contacts/s",
                       "GB/s",    "% copy", "x C ref", "spread %"};
  if (markdown) {
    printf("|");
    for (int i = 0; i < 8; ++i)
      printf(" %s |", hdr[i]);
    printf("\n|:--|:--|:--|--:|--:|--:|--:|--:|\n");
  } else {
    printf("%-7s %-4s %-18s %12s %8s %7s %8s %8s\n", hdr[0], hdr[1], hdr[2],
           hdr[3], hdr[4], hdr[5], hdr[6], hdr[7]);
  }
  for (size_t i = 0; i < n; ++i) {
    const double cps = (double)r[i].count / r[i].t_fricl;
    const double gbs = r[i].bytes / r[i].t_fricl * 1e-9;
    char pct[32] = "n/a";
    if (is_cl)
      snprintf(pct, sizeof pct, "%.1f", 100 * gbs / r[i].t_copy_gbs);
    const char *pn = r[i].prec == FRICL_F64 ? "f64" : "f32";
    if (markdown)
      printf("| %s | %s | %s | %.3g | %.2f | %s | %.2f | %.0f |\n", r[i].type,
             pn, mode_names[r[i].md], cps, gbs, pct, r[i].t_ref / r[i].t_fricl,
             r[i].spread);
    else
      printf("%-7s %-4s %-18s %12.3g %8.2f %7s %8.2f %8.0f\n", r[i].type, pn,
             mode_names[r[i].md], cps, gbs, pct, r[i].t_ref / r[i].t_fricl,
             r[i].spread);
  }
  /* The factored-vs-dense target: same stencil and precision, the Hessian
   * outputs alone. */
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (r[i].md == MODE_LOCAL_ONLY && r[j].md == MODE_FACTORED_ONLY &&
          r[i].prec == r[j].prec && strcmp(r[i].type, r[j].type) == 0)
        printf("%s %s: factored output %.2fx faster than dense local\n",
               r[i].type, r[i].prec == FRICL_F64 ? "f64" : "f32",
               r[i].t_fricl / r[j].t_fricl);
  return 0;
}

int bench_contacts_run(const bench_options *o, fricl_context *ctx,
                       fricl_context *ref, size_t count) {
  const double e = 1e-3;
  const int is_cl = fricl_context_backend(ctx) == FRICL_BACKEND_OPENCL;
  const fricl_stencil types[2] = {FRICL_STENCIL_FV, FRICL_STENCIL_EE};
  crow rows[2 * 2 * MODE_COUNT];
  size_t nrows = 0;
  int rc = 1;
  fprintf(stderr, "fricl bench contacts: %zu contacts per row, %d repeats\n",
          count, o->repeats);
  for (int t = 0; t < 2; ++t) {
    scene s;
    if (scene_make(&s, types[t], count, e)) {
      fprintf(stderr, "fricl bench: out of memory for the contact scene\n");
      scene_free(&s);
      return 1;
    }
    fricl_contact_group topo = {0};
    topo.type = s.type;
    topo.count = s.count;
    topo.vertices = s.vx;
    fricl_tangential_plan *plan = NULL, *plan_ref = NULL;
    if (fricl_tangential_plan_create(ctx, 3, s.nv, 1, &topo, &plan) !=
            FRICL_STATUS_OK ||
        fricl_tangential_plan_create(ref, 3, s.nv, 1, &topo, &plan_ref) !=
            FRICL_STATUS_OK) {
      fprintf(stderr, "fricl bench: plan: %s\n", fricl_context_last_error(ctx));
      fricl_tangential_plan_destroy(plan);
      scene_free(&s);
      return 1;
    }
    size_t nnz = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
      if (!((o->precisions >> p) & 1u) ||
          (p == FRICL_F64 && !fricl_context_has_fp64(ctx)))
        continue;
      copy_run cp = {0};
      const int have_copy = is_cl && !copy_setup(ctx, (fricl_precision)p, &cp);
      for (int md = 0; md < MODE_COUNT; ++md) {
        eval_run a, r;
        if (eval_setup(&a, ctx, &s, (fricl_precision)p, (mode)md, plan, e) ||
            eval_setup(&r, ref, &s, (fricl_precision)p, (mode)md, plan_ref,
                       e)) {
          eval_free(&a), eval_free(&r);
          goto fail;
        }
        bench_job jobs[3] = {{.fn = run_eval, .arg = &a},
                             {.fn = run_eval, .arg = &r},
                             {.fn = run_copy, .arg = &cp}};
        const int st = bench_time_jobs(jobs, have_copy ? 3 : 2, o->repeats,
                                       o->min_sample_s);
        eval_free(&a), eval_free(&r);
        if (st)
          goto fail;
        crow *row = &rows[nrows++];
        row->type = fricl_stencil_name(s.type);
        row->prec = (fricl_precision)p;
        row->md = (mode)md;
        row->count = s.count;
        row->t_fricl = jobs[0].st.median;
        row->t_ref = jobs[1].st.median;
        row->spread =
            100 * (jobs[0].st.max - jobs[0].st.min) / jobs[0].st.median;
        row->t_copy_gbs = have_copy
                              ? 2.0 * (double)cp.n * (p == FRICL_F64 ? 8 : 4) /
                                    jobs[2].st.median * 1e-9
                              : 0;
        row->bytes = row_bytes(&s, (fricl_precision)p, (mode)md, nnz);
        fprintf(stderr, "  %s %s %-18s %.3g contacts/s, %.2fx C ref\n",
                row->type, p == FRICL_F64 ? "f64" : "f32", mode_names[md],
                (double)s.count / row->t_fricl, row->t_ref / row->t_fricl);
      }
      copy_free(&cp);
    }
    fricl_tangential_plan_destroy(plan);
    fricl_tangential_plan_destroy(plan_ref);
    scene_free(&s);
    continue;
  fail:
    fricl_tangential_plan_destroy(plan);
    fricl_tangential_plan_destroy(plan_ref);
    scene_free(&s);
    return 1;
  }
  printf("\nContacts (%s, %zu contacts per row, PSD clamp, C reference "
         "single-thread):\n",
         fricl_context_device_name(ctx), count);
  print_rows(rows, nrows, o->markdown, is_cl);
  rc = 0;
  return rc;
}
