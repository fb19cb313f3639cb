/* bench_resident.c - see bench_resident.h. */
#include "bench_resident.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lattice.h"
#include "fricl/fricl_cl.h"

#define NG BENCH_LATTICE_GROUPS
#define NOUT 8 /* beta, P, N, dN, w, mu_s, mu_k, status */

/* Target: the device-resident iteration moves at most this fraction of
 * the host tier's bytes. */
#define TARGET_BYTES 0.05

typedef struct {
  fricl_context *ctx;
  const bench_lattice *s;
  /* host tier */
  bench_lattice_out ho;
  fricl_build_batch hb;
  fricl_build_group hg[NG];
  fricl_contact_group hc[NG];
  fricl_tangential_batch he;
  fricl_tangential_plan *plan;
  double pot, *grad, *hess;
  size_t nnz;
  /* device-resident */
  cl_context cc;
  cl_command_queue q;
  cl_mem X, R, vms, vmk, vel, pn, pc, vx[NG], out[NG][NOUT], res;
  fricl_build_batch_cl db;
  fricl_build_group_cl dg[NG];
  fricl_contact_group_cl dc[NG];
  fricl_tangential_batch_cl de;
  /* Bytes the caller itself moved to and from the device. */
  unsigned long long caller_in, caller_out;
  int err;
} rig;

static int fail(const char *what, const char *msg) {
  fprintf(stderr, "fricl bench (resident): %s: %s\n", what, msg);
  return 1;
}

static cl_mem dev_alloc(rig *r, size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem m =
      clCreateBuffer(r->cc, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
  if (err != CL_SUCCESS)
    r->err = 1;
  return m;
}

static void dev_write(rig *r, cl_mem m, const void *src, size_t bytes) {
  if (bytes && clEnqueueWriteBuffer(r->q, m, CL_FALSE, 0, bytes, src, 0, NULL,
                                    NULL) != CL_SUCCESS)
    r->err = 1;
  r->caller_in += bytes;
}

/* ------------------------------------------------------------- set up */

static int rig_make(rig *r, fricl_context *ctx, const bench_lattice *s) {
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  r->s = s;
  if (bench_lattice_out_alloc(s, &r->ho))
    return fail("host outputs", "out of memory");
  bench_lattice_build_batch(s, &r->ho, &r->hb, r->hg);
  bench_lattice_contacts(s, &r->ho, r->hc);
  fricl_status st =
      fricl_tangential_plan_create(ctx, 3, s->nv, NG, r->hc, &r->plan);
  if (st != FRICL_STATUS_OK)
    return fail("plan", fricl_context_last_error(ctx));
  fricl_tangential_plan_bsr(r->plan, NULL, &r->nnz, NULL, NULL);
  r->grad = malloc(s->nv * 3 * sizeof(double));
  r->hess = malloc((r->nnz ? r->nnz : 1) * 9 * sizeof(double));
  if (!r->grad || !r->hess)
    return fail("outputs", "out of memory");
  fricl_tangential_batch_init(&r->he);
  r->he.psd = FRICL_PSD_CLAMP;
  r->he.n_vertices = s->nv;
  r->he.velocities = s->vel;
  r->he.eps_v = 1e-3;
  r->he.n_groups = NG;
  r->he.groups = r->hc;
  r->he.plan = r->plan;
  r->he.potential = &r->pot;
  r->he.gradient = r->grad;
  r->he.hessian_values = r->hess;
  /* The device-resident side: inputs uploaded once per active set
   * (vertices, planes, rest positions, vertex mu), outputs in place. */
  if (fricl_context_get_cl(ctx, &r->cc, NULL, &r->q) != FRICL_STATUS_OK)
    return fail("device", "no OpenCL queue");
  const size_t nv = s->nv, v3 = nv * 3 * sizeof(double);
  r->X = dev_alloc(r, v3);
  r->R = dev_alloc(r, v3);
  r->vms = dev_alloc(r, nv * sizeof(double));
  r->vmk = dev_alloc(r, nv * sizeof(double));
  r->vel = dev_alloc(r, v3);
  const size_t npv = s->count[NG - 1];
  r->pn = dev_alloc(r, npv * 3 * sizeof(double));
  r->pc = dev_alloc(r, npv * sizeof(double));
  dev_write(r, r->R, s->R, v3);
  dev_write(r, r->vms, s->vms, nv * sizeof(double));
  dev_write(r, r->vmk, s->vmk, nv * sizeof(double));
  dev_write(r, r->pn, s->pn, npv * 3 * sizeof(double));
  dev_write(r, r->pc, s->pc, npv * sizeof(double));
  fricl_build_batch_cl_init(&r->db);
  r->db.n_vertices = nv;
  r->db.lagged_positions = (fricl_buffer_cl){r->X, 0};
  r->db.rest_positions = (fricl_buffer_cl){r->R, 0};
  r->db.kappa = s->kappa;
  r->db.dhat = s->dhat;
  r->db.vertex_mu_s = (fricl_buffer_cl){r->vms, 0};
  r->db.vertex_mu_k = (fricl_buffer_cl){r->vmk, 0};
  r->db.n_groups = NG;
  r->db.groups = r->dg;
  memset(r->dg, 0, sizeof r->dg);
  memset(r->dc, 0, sizeof r->dc);
  for (int g = 0; g < NG; ++g) {
    const size_t n = s->count[g];
    const size_t k = (size_t)fricl_stencil_vertex_count(s->type[g]);
    const size_t nb = (size_t)fricl_stencil_coord_count(s->type[g]);
    const size_t per[NOUT] = {nb ? nb : 1, 6, 1, 3 * k, 1, 1, 1, 0};
    r->vx[g] = dev_alloc(r, n * k * sizeof(int32_t));
    dev_write(r, r->vx[g], s->vx[g], n * k * sizeof(int32_t));
    for (int i = 0; i < NOUT; ++i)
      r->out[g][i] = dev_alloc(r, per[i] ? n * per[i] * sizeof(double) : n);
    fricl_build_group_cl *G = &r->dg[g];
    G->type = s->type[g];
    G->count = n;
    G->vertices = (fricl_buffer_cl){r->vx[g], 0};
    if (s->type[g] == FRICL_STENCIL_PV) {
      G->plane_normal = (fricl_buffer_cl){r->pn, 0};
      G->plane_offset = (fricl_buffer_cl){r->pc, 0};
    }
    fricl_buffer_cl *o = &G->closest_point;
    for (int i = 0; i < NOUT; ++i)
      o[i] = (fricl_buffer_cl){i == 0 && !nb ? NULL : r->out[g][i], 0};
    /* The evaluation reads the build's outputs where they are. */
    fricl_contact_group_cl *C = &r->dc[g];
    C->type = s->type[g];
    C->count = n;
    C->vertices = G->vertices;
    C->closest_point = G->closest_point;
    C->tangent_basis = G->tangent_basis;
    C->normal_force = G->normal_force;
    C->weight = G->weight_out;
    C->mu_s = G->mu_s_out;
    C->mu_k = G->mu_k_out;
  }
  r->res = dev_alloc(r, (1 + nv * 3 + r->nnz * 9) * sizeof(double));
  fricl_tangential_batch_cl_init(&r->de);
  r->de.psd = FRICL_PSD_CLAMP;
  r->de.n_vertices = nv;
  r->de.velocities = (fricl_buffer_cl){r->vel, 0};
  r->de.eps_v = 1e-3;
  r->de.n_groups = NG;
  r->de.groups = r->dc;
  r->de.plan = r->plan;
  r->de.potential = (fricl_buffer_cl){r->res, 0};
  r->de.gradient = (fricl_buffer_cl){r->res, 1};
  r->de.hessian_values = (fricl_buffer_cl){r->res, 1 + nv * 3};
  clFinish(r->q);
  return r->err ? fail("device buffers", "clCreateBuffer failed") : 0;
}

static void rig_free(rig *r) {
  cl_mem all[7 + NG + NG * NOUT + 1] = {r->X,   r->R,  r->vms, r->vmk,
                                        r->vel, r->pn, r->pc};
  int n = 7;
  for (int g = 0; g < NG; ++g) {
    all[n++] = r->vx[g];
    for (int i = 0; i < NOUT; ++i)
      all[n++] = r->out[g][i];
  }
  all[n++] = r->res;
  for (int i = 0; i < n; ++i)
    if (all[i])
      clReleaseMemObject(all[i]);
  fricl_tangential_plan_destroy(r->plan);
  free(r->grad);
  free(r->hess);
  bench_lattice_out_free(&r->ho);
}

/* --------------------------------------------------------------- paths */

static int host_eval(rig *r) {
  const fricl_status st = fricl_tangential_eval(r->ctx, &r->he);
  return st == FRICL_STATUS_OK
             ? 0
             : fail("host tier evaluation", fricl_context_last_error(r->ctx));
}

static int run_host_iter(void *arg, int count) {
  rig *r = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = fricl_build(r->ctx, &r->hb);
    if (st != FRICL_STATUS_OK)
      return fail("host tier build", fricl_context_last_error(r->ctx));
    if (host_eval(r))
      return 1;
  }
  return 0;
}

static int run_host_build(void *arg, int count) {
  rig *r = arg;
  for (int i = 0; i < count; ++i) {
    const fricl_status st = fricl_build(r->ctx, &r->hb);
    if (st != FRICL_STATUS_OK)
      return fail("host tier build", fricl_context_last_error(r->ctx));
  }
  return 0;
}

static int run_host_eval(void *arg, int count) {
  rig *r = arg;
  for (int i = 0; i < count; ++i)
    if (host_eval(r))
      return 1;
  return 0;
}

/* A device-resident evaluation: the velocities written by the caller
 * (write_state), the evaluation, the potential and gradient (and with
 * read_hess the Hessian values) read back. */
static int dev_eval(rig *r, int write_state, int read_hess) {
  const bench_lattice *s = r->s;
  const size_t v3 = s->nv * 3 * sizeof(double);
  if (write_state)
    dev_write(r, r->vel, s->vel, v3);
  const fricl_status st =
      fricl_tangential_eval_cl(r->ctx, &r->de, 0, NULL, NULL);
  if (st != FRICL_STATUS_OK)
    return fail("device-resident evaluation", fricl_context_last_error(r->ctx));
  cl_int err = clEnqueueReadBuffer(r->q, r->res, CL_FALSE, 0, sizeof(double),
                                   &r->pot, 0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(r->q, r->res, CL_FALSE, sizeof(double), v3,
                              r->grad, 0, NULL, NULL);
  r->caller_out += sizeof(double) + v3;
  if (err == CL_SUCCESS && read_hess) {
    err = clEnqueueReadBuffer(
        r->q, r->res, CL_FALSE, (1 + s->nv * 3) * sizeof(double),
        r->nnz * 9 * sizeof(double), r->hess, 0, NULL, NULL);
    r->caller_out += r->nnz * 9 * sizeof(double);
  }
  if (err == CL_SUCCESS)
    err = clFinish(r->q);
  return err == CL_SUCCESS ? 0 : fail("reading results", "OpenCL error");
}

/* A lagged update and an evaluation on the device: new positions written
 * by the caller (write_state), fricl_build_cl, then dev_eval. */
static int dev_iter(rig *r, int count, int write_state, int read_hess) {
  for (int i = 0; i < count; ++i) {
    if (write_state)
      dev_write(r, r->X, r->s->X, r->s->nv * 3 * sizeof(double));
    const fricl_status st = fricl_build_cl(r->ctx, &r->db, 0, NULL, NULL);
    if (st != FRICL_STATUS_OK)
      return fail("fricl_build_cl", fricl_context_last_error(r->ctx));
    if (dev_eval(r, write_state, read_hess))
      return 1;
  }
  return 0;
}

static int run_dev_iter(void *arg, int count) {
  return dev_iter(arg, count, 1, 0);
}
static int run_dev_iter_state(void *arg, int count) {
  return dev_iter(arg, count, 0, 0);
}
static int run_dev_iter_hess(void *arg, int count) {
  return dev_iter(arg, count, 1, 1);
}
static int run_dev_build(void *arg, int count) {
  rig *r = arg;
  for (int i = 0; i < count; ++i) {
    dev_write(r, r->X, r->s->X, r->s->nv * 3 * sizeof(double));
    const fricl_status st = fricl_build_cl(r->ctx, &r->db, 0, NULL, NULL);
    if (st != FRICL_STATUS_OK)
      return fail("fricl_build_cl", fricl_context_last_error(r->ctx));
    if (clFinish(r->q) != CL_SUCCESS)
      return fail("fricl_build_cl", "clFinish");
  }
  return 0;
}

static int run_dev_eval(void *arg, int count) {
  for (int i = 0; i < count; ++i)
    if (dev_eval(arg, 1, 0))
      return 1;
  return 0;
}

/* Bytes one run of fn moves: fricl's own plus the caller's. */
static int bytes_of(rig *r, bench_run_fn fn, unsigned long long *to_dev,
                    unsigned long long *from_dev) {
  uint64_t in0, out0, in1, out1;
  fricl_context_transfers(r->ctx, &in0, &out0);
  const unsigned long long c_in = r->caller_in, c_out = r->caller_out;
  const int rc = fn(r, 1);
  fricl_context_transfers(r->ctx, &in1, &out1);
  *to_dev = (in1 - in0) + (r->caller_in - c_in);
  *from_dev = (out1 - out0) + (r->caller_out - c_out);
  return rc;
}

/* --------------------------------------------------------------- report */

typedef struct {
  const char *name;
  bench_run_fn fn;
  int ref; /* the host tier's row it is compared with */
  unsigned long long in, out;
  bench_stats t;
} path;

enum { NPATH = 8 };

static void print_rows(const path *p, int markdown, const char *device) {
  const double host_iter = (double)(p[0].in + p[0].out);
  if (markdown)
    printf("| path (one iteration) | to device | from device | bytes vs host "
           "tier | ms | time vs host tier |\n|---|---:|---:|---:|---:|---:|"
           "\n");
  else
    printf("%-62s %10s %10s %7s %8s %6s\n", "path (one iteration)", "to device",
           "from dev.", "bytes", "ms", "time");
  for (int i = 0; i < NPATH; ++i) {
    const path *h = &p[p[i].ref];
    const double ref = (double)(h->in + h->out), tref = h->t.median;
    const double b = (double)(p[i].in + p[i].out);
    if (markdown)
      printf("| %s | %.1f MB | %.1f MB | %.1f %% | %.1f | %.2fx |\n", p[i].name,
             (double)p[i].in * 1e-6, (double)p[i].out * 1e-6, 100 * b / ref,
             p[i].t.median * 1e3, p[i].t.median / tref);
    else
      printf("%-62s %7.1f MB %7.1f MB %6.1f%% %8.1f %5.2fx\n", p[i].name,
             (double)p[i].in * 1e-6, (double)p[i].out * 1e-6, 100 * b / ref,
             p[i].t.median * 1e3, p[i].t.median / tref);
  }
  for (int i = 1; i <= 2; ++i) {
    const double frac = (double)(p[i].in + p[i].out) / host_iter;
    const double tr = p[i].t.median / p[0].t.median;
    printf("target (%s): <= %.0f%% of the host tier's bytes per iteration: "
           "%.2f%% %s; not slower on %s: %.2fx %s\n",
           i == 1 ? "host-driven" : "solver state on the device",
           TARGET_BYTES * 100, frac * 100,
           frac <= TARGET_BYTES ? "PASS" : "MISS", device, tr,
           tr <= 1.0 ? "PASS" : "MISS");
  }
}

int bench_resident_run(const bench_options *o, fricl_context *ctx,
                       size_t contacts, int markdown) {
  fricl_context_device dev;
  size_t ndev = 0;
  if (fricl_context_devices(ctx, &dev, 1, &ndev) != FRICL_STATUS_OK || !ndev ||
      dev.platform_index < 0) {
    printf("\nresident rows: no OpenCL device in this context; skipped\n");
    return 0;
  }
  /* The first device alone, so that the host tier and the cl_mem tier
   * run on the same device (a device list would split the host tier). */
  char spec[48];
  snprintf(spec, sizeof spec, "opencl:%d:%d", dev.platform_index,
           dev.device_index);
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  fricl_context *dctx = NULL;
  if (fricl_context_create(&dctx, &p) != FRICL_STATUS_OK)
    return fail(spec, msg);
  if (!fricl_context_has_fp64(dctx)) {
    printf("\nresident rows: %s has no fp64; skipped\n", spec);
    fricl_context_destroy(dctx);
    return 0;
  }
  bench_lattice s;
  if (bench_lattice_make(&s, contacts)) {
    fricl_context_destroy(dctx);
    return fail("scene", "out of memory");
  }
  rig r;
  int rc = rig_make(&r, dctx, &s);
  path paths[NPATH];
  memset(paths, 0, sizeof paths);
  paths[0].name = "host tier: fricl_build + fricl_tangential_eval";
  paths[0].fn = run_host_iter;
  paths[1].name = "device-resident, host-driven: X, v in; gradient out";
  paths[1].fn = run_dev_iter;
  paths[2].name = "device-resident, state on the device: gradient out";
  paths[2].fn = run_dev_iter_state;
  paths[3].name = "device-resident, host-driven, Hessian read back too";
  paths[3].fn = run_dev_iter_hess;
  paths[4].name = "build only: host tier";
  paths[4].fn = run_host_build;
  paths[4].ref = 4;
  paths[5].name = "build only: device-resident, X in";
  paths[5].fn = run_dev_build;
  paths[5].ref = 4;
  paths[6].name = "evaluation only: host tier";
  paths[6].fn = run_host_eval;
  paths[6].ref = 6;
  paths[7].name = "evaluation only: device-resident, v in; gradient out";
  paths[7].fn = run_dev_eval;
  paths[7].ref = 6;
  /* Warm every path once (kernel builds, plan upload), then count the
   * bytes of one run, then time them all, interleaved. */
  bench_job jobs[NPATH];
  for (int i = 0; i < NPATH && !rc; ++i) {
    rc = paths[i].fn(&r, 1);
    if (!rc)
      rc = bytes_of(&r, paths[i].fn, &paths[i].in, &paths[i].out);
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].fn = paths[i].fn;
    jobs[i].arg = &r;
  }
  if (!rc)
    rc = bench_time_jobs(jobs, NPATH, o->repeats, o->min_sample_s);
  for (int i = 0; i < NPATH && !rc; ++i)
    paths[i].t = jobs[i].st;
  if (!rc) {
    size_t ok = 0;
    for (int g = 0; g < NG; ++g)
      for (size_t c = 0; c < s.count[g]; ++c)
        ok += r.ho.status[g][c] == FRICL_BUILD_OK;
    printf("\nDevice-resident Newton iteration on %s: %zu contacts (FV 40%%, "
           "EE 30%%, EV 20%%, PV 10%%; %zu active), %zu vertices, %zu "
           "Hessian blocks, f64; median of %d interleaved repeats\n",
           dev.device_name, s.total, ok, s.nv, r.nnz, o->repeats);
    print_rows(paths, markdown, dev.device_name);
  }
  rig_free(&r);
  bench_lattice_free(&s);
  fricl_context_destroy(dctx);
  return rc;
}

/* ------------------------------------------------------- standalone */

int bench_resident_main(int argc, char **argv) {
  bench_options o;
  memset(&o, 0, sizeof o);
  o.repeats = 7;
  o.contacts = 1000000;
  o.min_sample_s = 0.0;
  int quick = 0, markdown = 0, repeats = 0;
  size_t contacts = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *eq = strchr(a, '=');
    const size_t len = eq ? (size_t)(eq - a) : strlen(a);
    const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
#define IS(name) (strlen(name) == len && strncmp(a, name, len) == 0)
    if (IS("--quick")) {
      quick = 1;
      continue;
    }
    if (IS("--markdown")) {
      markdown = 1;
      continue;
    }
    if (IS("--help") || IS("-h")) {
      printf("usage: fricl bench --suite resident [--device SPEC] "
             "[--contacts N] [--repeats R] [--quick] [--markdown]\n\n"
             "One Newton iteration of friction (build + evaluation) through "
             "the host tier and the device-resident path: bytes moved and "
             "time per iteration (bench/bench_resident.h).\n");
      return 0;
    }
    if (!val || !(IS("--device") || IS("--contacts") || IS("--repeats") ||
                  IS("--suite"))) {
      fprintf(stderr,
              "fricl bench: unknown or incomplete option '%s' with "
              "--suite resident\n",
              a);
      return 2;
    }
    if (!eq)
      ++i;
    char *end = NULL;
    errno = 0;
    if (IS("--device")) {
      o.device = val;
    } else if (IS("--contacts")) {
      /* strtoull takes "-1" as its largest value: digits only. */
      const unsigned long long v = strtoull(val, &end, 10);
      if (errno || *end || !v || *val < '0' || *val > '9' || v > SIZE_MAX)
        return fprintf(stderr, "fricl bench: bad --contacts '%s'\n", val), 2;
      contacts = (size_t)v;
    } else if (IS("--repeats")) {
      /* Range-checked before the cast to int, which would wrap
       * 4294967297 to 1. */
      const long v = strtol(val, &end, 10);
      if (errno || *end || v < 1 || v > 1000)
        return fprintf(stderr, "fricl bench: bad --repeats '%s'\n", val), 2;
      repeats = (int)v;
    } else if (strcmp(val, "resident") != 0) {
      return fprintf(stderr, "fricl bench: --suite resident only\n"), 2;
    }
#undef IS
  }
  o.contacts = contacts ? contacts : quick ? (size_t)1 << 14 : 1000000;
  o.repeats = repeats ? repeats : quick ? 3 : 7;
  o.quick = quick;
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = o.device;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  fricl_context *ctx = NULL;
  if (fricl_context_create(&ctx, &p) != FRICL_STATUS_OK)
    return fail(o.device ? o.device : "(default)", msg);
  const int rc = bench_resident_run(&o, ctx, o.contacts, markdown);
  fricl_context_destroy(ctx);
  return rc;
}
