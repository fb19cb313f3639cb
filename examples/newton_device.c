/*
 * newton_device.c - a friction solve that stays on the device.
 *
 * The recipe (README, "Device-resident Newton loop"):
 *   1. once per active set: the contact list (vertex indices) on the
 *      device, and a plan (fricl_tangential_plan_create, from the host
 *      copy of the indices);
 *   2. once per lagged update: the lagged positions on the device and
 *      fricl_build_cl, which writes the per-contact data (closest points,
 *      tangent bases, normal forces, mu) into device buffers;
 *   3. every Newton iteration: fricl_tangential_eval_cl on groups that
 *      point at the build's buffers directly - potential, gradient and
 *      global Hessian (or H p) into device buffers - and the solver reads
 *      back only what it needs.
 *
 * The problem: two layers of an n x n sheet of vertices resting on the
 * plane z = 0 (plane-vertex contacts for the bottom layer, vertex-vertex
 * contacts between the layers); the top layer is pushed sideways. Newton
 * minimises E(v) = sum_i m/2 |v_i - v*_i|^2 + D(v) over the velocities v,
 * D the lagged friction potential: per iteration the solver writes v,
 * fricl evaluates D, its gradient and PSD Hessian on the device, the
 * solver reads the gradient and the Hessian blocks back and solves
 * (m I + H) dv = -g with block-Jacobi conjugate gradients, then a
 * backtracking line search on E (potential-only evaluations).
 *
 * The same solve through the host tier (fricl_build and
 * fricl_tangential_eval on host arrays) must give bitwise the same
 * velocities; the example checks it and prints the bytes each path moved
 * per iteration. Exit status 0 on success.
 *
 * Usage: newton_device [DEVICE] (default: the first OpenCL device)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fricl/fricl_cl.h>

#define SIDE 24 /* vertices per side of a layer */
#define NV (2 * SIDE * SIDE)
#define NC (SIDE * SIDE) /* contacts per group */
#define MASS 1.0
#define MAX_IT 40
#define EPS_V                                                                  \
  1e-2 /* the static-friction velocity: smooth enough for Newton               \
        */
#define KAPPA                                                                  \
  2e7 /* barrier stiffness: N ~ 0.1, friction comparable to inertia */

typedef struct {
  fricl_context *ctx;
  int device_resident;
  /* host data */
  double X[NV * 3], vstar[NV * 3];
  int32_t pv[NC], vv[NC * 2];
  double pn[NC * 3], pc[NC];
  fricl_tangential_plan *plan;
  size_t nnz;
  const int64_t *row_ptr;
  const int32_t *cols;
  /* host tier: the build's outputs */
  double beta[2][NC], P[2][NC * 6], N[2][NC], w[2][NC], ms[2][NC], mk[2][NC];
  /* device-resident */
  cl_context cc;
  cl_command_queue q;
  cl_mem dX, dpv, dvv, dpn, dpc, dout[2][6], dvel, dres;
  fricl_contact_group_cl dgroups[2];
  /* per iteration: bytes moved by fricl and by the solver */
  unsigned long long solver_bytes;
} solver;

static int check(fricl_context *ctx, fricl_status st, const char *what) {
  if (st == FRICL_STATUS_OK)
    return 0;
  fprintf(stderr, "newton_device: %s: %s: %s\n", what, fricl_status_string(st),
          fricl_context_last_error(ctx));
  return 1;
}

static void scene(solver *s) {
  unsigned long long r = 12345;
  for (int l = 0; l < 2; ++l)
    for (int j = 0; j < SIDE; ++j)
      for (int i = 0; i < SIDE; ++i) {
        const int v = l * SIDE * SIDE + j * SIDE + i;
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        const double jitter = (double)(r >> 11) / 9007199254740992.0 - 0.5;
        s->X[v * 3 + 0] = 0.01 * i;
        s->X[v * 3 + 1] = 0.01 * j;
        s->X[v * 3 + 2] = 1e-3 * (1 + l) + 2e-4 * jitter;
        /* The top layer is pushed along x, harder on one side. */
        s->vstar[v * 3 + 0] = l ? 0.02 + 0.08 * i / SIDE : 0;
        s->vstar[v * 3 + 1] = l ? 0.01 : 0;
        s->vstar[v * 3 + 2] = 0;
      }
  for (int c = 0; c < NC; ++c) {
    s->pv[c] = c; /* bottom vertex on the plane z = 0 */
    s->pn[c * 3 + 0] = s->pn[c * 3 + 1] = 0;
    s->pn[c * 3 + 2] = 1;
    s->pc[c] = 0;
    s->vv[c * 2 + 0] = NC + c; /* top vertex over the bottom one */
    s->vv[c * 2 + 1] = c;
  }
}

/* ------------------------------------------------ host-side solve part */

/* y = (m I + H) x with H in BSR (3 x 3 blocks). */
static void matvec(const solver *s, const double *H, const double *x,
                   double *y) {
  for (int v = 0; v < NV; ++v)
    for (int r = 0; r < 3; ++r) {
      double acc = MASS * x[v * 3 + r];
      for (int64_t b = s->row_ptr[v]; b < s->row_ptr[v + 1]; ++b)
        for (int c = 0; c < 3; ++c)
          acc += H[b * 9 + r * 3 + c] * x[s->cols[b] * 3 + c];
      y[v * 3 + r] = acc;
    }
}

/* Solve (m I + H) dx = -g by CG with the block-diagonal part's diagonal
 * as preconditioner (fixed iteration count: deterministic). */
static void solve(const solver *s, const double *H, const double *g,
                  double *dx) {
  static double r[NV * 3], z[NV * 3], p[NV * 3], Ap[NV * 3], dinv[NV * 3];
  for (int v = 0; v < NV; ++v)
    for (int k = 0; k < 3; ++k) {
      double d = MASS;
      for (int64_t b = s->row_ptr[v]; b < s->row_ptr[v + 1]; ++b)
        if (s->cols[b] == v)
          d += H[b * 9 + k * 4];
      dinv[v * 3 + k] = 1 / d;
    }
  double rz = 0;
  for (int i = 0; i < NV * 3; ++i) {
    dx[i] = 0;
    r[i] = -g[i];
    z[i] = dinv[i] * r[i];
    p[i] = z[i];
    rz += r[i] * z[i];
  }
  const double rz0 = rz;
  for (int it = 0; it < 200 && rz > 1e-24 * rz0; ++it) {
    matvec(s, H, p, Ap);
    double pAp = 0;
    for (int i = 0; i < NV * 3; ++i)
      pAp += p[i] * Ap[i];
    const double a = rz / pAp;
    double rz2 = 0;
    for (int i = 0; i < NV * 3; ++i) {
      dx[i] += a * p[i];
      r[i] -= a * Ap[i];
      z[i] = dinv[i] * r[i];
      rz2 += r[i] * z[i];
    }
    for (int i = 0; i < NV * 3; ++i)
      p[i] = z[i] + rz2 / rz * p[i];
    rz = rz2;
  }
}

/* ---------------------------------------------- the two ways to evaluate */

/* The lagged build: on the device (device-resident) or on host arrays. */
static int build(solver *s) {
  if (s->device_resident) {
    /* Positions to the device once per lagged update. */
    clEnqueueWriteBuffer(s->q, s->dX, CL_FALSE, 0, sizeof s->X, s->X, 0, NULL,
                         NULL);
    fricl_build_group_cl g[2];
    memset(g, 0, sizeof g);
    g[0].type = FRICL_STENCIL_PV;
    g[0].count = NC;
    g[0].vertices = (fricl_buffer_cl){s->dpv, 0};
    g[0].plane_normal = (fricl_buffer_cl){s->dpn, 0};
    g[0].plane_offset = (fricl_buffer_cl){s->dpc, 0};
    g[1].type = FRICL_STENCIL_VV;
    g[1].count = NC;
    g[1].vertices = (fricl_buffer_cl){s->dvv, 0};
    for (int k = 0; k < 2; ++k) {
      g[k].closest_point = (fricl_buffer_cl){s->dout[k][0], 0};
      g[k].tangent_basis = (fricl_buffer_cl){s->dout[k][1], 0};
      g[k].normal_force = (fricl_buffer_cl){s->dout[k][2], 0};
      g[k].weight_out = (fricl_buffer_cl){s->dout[k][3], 0};
      g[k].mu_s_out = (fricl_buffer_cl){s->dout[k][4], 0};
      g[k].mu_k_out = (fricl_buffer_cl){s->dout[k][5], 0};
    }
    fricl_build_batch_cl b;
    fricl_build_batch_cl_init(&b);
    b.n_vertices = NV;
    b.lagged_positions = (fricl_buffer_cl){s->dX, 0};
    b.kappa = KAPPA;
    b.dhat = 1.5e-3;
    b.mu_s = 0.5;
    b.mu_k = 0.3;
    b.n_groups = 2;
    b.groups = g;
    return check(s->ctx, fricl_build_cl(s->ctx, &b, 0, NULL, NULL),
                 "fricl_build_cl");
  }
  fricl_build_group g[2];
  memset(g, 0, sizeof g);
  g[0].type = FRICL_STENCIL_PV;
  g[0].count = NC;
  g[0].vertices = s->pv;
  g[0].plane_normal = s->pn;
  g[0].plane_offset = s->pc;
  g[1].type = FRICL_STENCIL_VV;
  g[1].count = NC;
  g[1].vertices = s->vv;
  for (int k = 0; k < 2; ++k) {
    g[k].closest_point = s->beta[k];
    g[k].tangent_basis = s->P[k];
    g[k].normal_force = s->N[k];
    g[k].weight_out = s->w[k];
    g[k].mu_s_out = s->ms[k];
    g[k].mu_k_out = s->mk[k];
  }
  fricl_build_batch b;
  fricl_build_batch_init(&b);
  b.n_vertices = NV;
  b.lagged_positions = s->X;
  b.kappa = KAPPA;
  b.dhat = 1.5e-3;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  b.n_groups = 2;
  b.groups = g;
  return check(s->ctx, fricl_build(s->ctx, &b), "fricl_build");
}

/* D(v), and with grad/H its gradient and Hessian (BSR values). */
static int evaluate(solver *s, const double *v, double *D, double *grad,
                    double *H) {
  if (s->device_resident) {
    /* The solver writes the velocities and reads back what it needs. */
    clEnqueueWriteBuffer(s->q, s->dvel, CL_FALSE, 0, NV * 3 * sizeof(double), v,
                         0, NULL, NULL);
    fricl_tangential_batch_cl b;
    fricl_tangential_batch_cl_init(&b);
    b.psd = FRICL_PSD_CLAMP;
    b.n_vertices = NV;
    b.velocities = (fricl_buffer_cl){s->dvel, 0};
    b.eps_v = EPS_V;
    b.n_groups = 2;
    b.groups = s->dgroups;
    b.plan = s->plan;
    b.potential = (fricl_buffer_cl){s->dres, 0};
    if (grad) {
      b.gradient = (fricl_buffer_cl){s->dres, 1};
      b.hessian_values = (fricl_buffer_cl){s->dres, 1 + NV * 3};
    }
    if (check(s->ctx, fricl_tangential_eval_cl(s->ctx, &b, 0, NULL, NULL),
              "fricl_tangential_eval_cl"))
      return 1;
    s->solver_bytes += NV * 3 * sizeof(double) + sizeof(double);
    clEnqueueReadBuffer(s->q, s->dres, CL_FALSE, 0, sizeof(double), D, 0, NULL,
                        NULL);
    if (grad) {
      clEnqueueReadBuffer(s->q, s->dres, CL_FALSE, sizeof(double),
                          NV * 3 * sizeof(double), grad, 0, NULL, NULL);
      clEnqueueReadBuffer(s->q, s->dres, CL_FALSE,
                          (1 + NV * 3) * sizeof(double),
                          s->nnz * 9 * sizeof(double), H, 0, NULL, NULL);
      s->solver_bytes += (NV * 3 + s->nnz * 9) * sizeof(double);
    }
    return clFinish(s->q) == CL_SUCCESS ? 0 : 1;
  }
  fricl_contact_group g[2];
  memset(g, 0, sizeof g);
  g[0].type = FRICL_STENCIL_PV;
  g[0].vertices = s->pv;
  g[1].type = FRICL_STENCIL_VV;
  g[1].vertices = s->vv;
  for (int k = 0; k < 2; ++k) {
    g[k].count = NC;
    g[k].tangent_basis = s->P[k];
    g[k].normal_force = s->N[k];
    g[k].weight = s->w[k];
    g[k].mu_s = s->ms[k];
    g[k].mu_k = s->mk[k];
  }
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.psd = FRICL_PSD_CLAMP;
  b.n_vertices = NV;
  b.velocities = v;
  b.eps_v = EPS_V;
  b.n_groups = 2;
  b.groups = g;
  b.plan = s->plan;
  b.potential = D;
  b.gradient = grad;
  b.hessian_values = grad ? H : NULL;
  return check(s->ctx, fricl_tangential_eval(s->ctx, &b),
               "fricl_tangential_eval");
}

static double energy(const double *v, const double *vstar, double D) {
  double e = D;
  for (int i = 0; i < NV * 3; ++i)
    e += 0.5 * MASS * (v[i] - vstar[i]) * (v[i] - vstar[i]);
  return e;
}

/* Newton with a backtracking line search; the final velocities in v. */
static int newton(solver *s, double *v, int *iterations, double *gnorm,
                  double *g0) {
  static double g[NV * 3], dv[NV * 3], vt[NV * 3];
  double *H = malloc((s->nnz ? s->nnz : 1) * 9 * sizeof(double));
  if (!H)
    return 1;
  memcpy(v, s->vstar, sizeof s->vstar);
  int rc = build(s);
  int it = 0;
  for (; it < MAX_IT && !rc; ++it) {
    double D = 0;
    if ((rc = evaluate(s, v, &D, g, H)) != 0)
      break;
    double gg = 0;
    for (int i = 0; i < NV * 3; ++i) {
      g[i] += MASS * (v[i] - s->vstar[i]);
      gg += g[i] * g[i];
    }
    *gnorm = sqrt(gg);
    if (it == 0)
      *g0 = *gnorm;
    /* Converged: the gradient down by 10^5 (the PSD-projected Hessian
     * makes the last iterations linear, not quadratic). */
    if (*gnorm <= 1e-5 * *g0)
      break;
    solve(s, H, g, dv);
    const double e0 = energy(v, s->vstar, D);
    double slope = 0;
    for (int i = 0; i < NV * 3; ++i)
      slope += g[i] * dv[i];
    double t = 1;
    for (int ls = 0; ls < 30; ++ls, t *= 0.5) {
      for (int i = 0; i < NV * 3; ++i)
        vt[i] = v[i] + t * dv[i];
      double Dt = 0;
      if ((rc = evaluate(s, vt, &Dt, NULL, NULL)) != 0)
        break;
      if (energy(vt, s->vstar, Dt) <= e0 + 1e-4 * t * slope)
        break;
    }
    memcpy(v, vt, sizeof vt);
  }
  *iterations = it;
  free(H);
  return rc;
}

/* ------------------------------------------------------------------- run */

static cl_mem buffer(solver *s, size_t bytes, const void *src) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(s->cc, CL_MEM_READ_WRITE, bytes, NULL, &err);
  if (m && src)
    clEnqueueWriteBuffer(s->q, m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
  return m;
}

int main(int argc, char **argv) {
  static solver s;
  static double v_dev[NV * 3], v_host[NV * 3];
  char spec[64] = "";
  if (argc > 1) {
    snprintf(spec, sizeof spec, "%s", argv[1]);
  } else {
    fricl_device_info info;
    size_t count = 0;
    if (fricl_devices_list(&info, 1, &count) != FRICL_STATUS_OK || !count) {
      printf("newton_device: no OpenCL device; nothing to show\n");
      return 0;
    }
    snprintf(spec, sizeof spec, "opencl:%d:%d", info.platform_index,
             info.device_index);
  }
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  if (fricl_context_create(&s.ctx, &p) != FRICL_STATUS_OK) {
    fprintf(stderr, "newton_device: %s: %s\n", spec, msg);
    return 1;
  }
  scene(&s);
  /* 1. Once per active set: the plan (from the host's vertex indices) and
   * the contact list on the device. */
  fricl_contact_group topo[2];
  memset(topo, 0, sizeof topo);
  topo[0].type = FRICL_STENCIL_PV;
  topo[0].count = NC;
  topo[0].vertices = s.pv;
  topo[1].type = FRICL_STENCIL_VV;
  topo[1].count = NC;
  topo[1].vertices = s.vv;
  int rc =
      check(s.ctx, fricl_tangential_plan_create(s.ctx, 3, NV, 2, topo, &s.plan),
            "plan");
  if (!rc)
    fricl_tangential_plan_bsr(s.plan, NULL, &s.nnz, &s.row_ptr, &s.cols);
  if (!rc && fricl_context_get_cl(s.ctx, &s.cc, NULL, &s.q) != FRICL_STATUS_OK)
    rc = 1;
  if (!rc) {
    s.dX = buffer(&s, sizeof s.X, NULL);
    s.dpv = buffer(&s, sizeof s.pv, s.pv);
    s.dvv = buffer(&s, sizeof s.vv, s.vv);
    s.dpn = buffer(&s, sizeof s.pn, s.pn);
    s.dpc = buffer(&s, sizeof s.pc, s.pc);
    s.dvel = buffer(&s, NV * 3 * sizeof(double), NULL);
    s.dres = buffer(&s, (1 + NV * 3 + s.nnz * 9) * sizeof(double), NULL);
    static const size_t per[6] = {1, 6, 1, 1, 1, 1};
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < 6; ++i)
        s.dout[k][i] = buffer(&s, NC * per[i] * sizeof(double), NULL);
      /* The evaluation's inputs are the build's outputs, in place. */
      fricl_contact_group_cl *G = &s.dgroups[k];
      memset(G, 0, sizeof *G);
      G->type = k ? FRICL_STENCIL_VV : FRICL_STENCIL_PV;
      G->count = NC;
      G->vertices = (fricl_buffer_cl){k ? s.dvv : s.dpv, 0};
      G->tangent_basis = (fricl_buffer_cl){s.dout[k][1], 0};
      G->normal_force = (fricl_buffer_cl){s.dout[k][2], 0};
      G->weight = (fricl_buffer_cl){s.dout[k][3], 0};
      G->mu_s = (fricl_buffer_cl){s.dout[k][4], 0};
      G->mu_k = (fricl_buffer_cl){s.dout[k][5], 0};
    }
  }
  /* 2 + 3. The solve, device-resident, then through the host tier. */
  int it_dev = 0, it_host = 0;
  double g_dev = 0, g_host = 0, g0_dev = 1, g0_host = 1;
  uint64_t in0 = 0, out0 = 0, in1 = 0, out1 = 0;
  if (!rc) {
    s.device_resident = 1;
    /* The first evaluation uploads the plan's lists: once per plan. */
    fricl_context_transfers(s.ctx, &in0, &out0);
    rc = newton(&s, v_dev, &it_dev, &g_dev, &g0_dev);
    fricl_context_transfers(s.ctx, &in1, &out1);
  }
  const unsigned long long dev_fricl = (in1 - in0) + (out1 - out0);
  const unsigned long long dev_solver = s.solver_bytes;
  if (!rc) {
    s.device_resident = 0;
    fricl_context_transfers(s.ctx, &in0, &out0);
    rc = newton(&s, v_host, &it_host, &g_host, &g0_host);
    fricl_context_transfers(s.ctx, &in1, &out1);
  }
  const unsigned long long host_fricl = (in1 - in0) + (out1 - out0);
  if (!rc) {
    double slide = 0, push = 0;
    for (int v = NC; v < NV; ++v) {
      slide += v_dev[v * 3] / (NV - NC);
      push += s.vstar[v * 3] / (NV - NC);
    }
    const int same = memcmp(v_dev, v_host, sizeof v_dev) == 0;
    printf("newton_device on %s: %d vertices, %d contacts, %zu Hessian "
           "blocks\n",
           fricl_context_device_name(s.ctx), NV, 2 * NC, s.nnz);
    printf("  device-resident: %d Newton iterations, |g| from %.3g to %.3g; "
           "mean velocity of the pushed layer %.5f (pushed at %.5f on "
           "average)\n",
           it_dev, g0_dev, g_dev, slide, push);
    printf("  bytes moved by fricl: device-resident %llu (the plan's lists, "
           "once), host tier %llu; by the solver (velocities in, results "
           "out) %llu\n",
           dev_fricl, host_fricl, dev_solver);
    printf("  device-resident and host tier agree bitwise: %s (%d and %d "
           "iterations)\n",
           same ? "yes" : "NO", it_dev, it_host);
    rc = !same || g_dev > 1e-5 * g0_dev;
  }
  cl_mem all[] = {s.dX, s.dpv, s.dvv, s.dpn, s.dpc, s.dvel, s.dres};
  for (size_t i = 0; i < sizeof all / sizeof *all; ++i)
    if (all[i])
      clReleaseMemObject(all[i]);
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 6; ++i)
      if (s.dout[k][i])
        clReleaseMemObject(s.dout[k][i]);
  fricl_tangential_plan_destroy(s.plan);
  fricl_context_destroy(s.ctx);
  return rc;
}
