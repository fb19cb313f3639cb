/* bench_build.c - see bench_build.h. */
#include "bench_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_data.h"
#include "bench_json.h"
#include "bench_ocl.h"
#include "bench_roof.h"
#include "core/internal.h"

static const fricl_stencil types[BENCH_BUILD_GROUPS] = {
    FRICL_STENCIL_FV, FRICL_STENCIL_EE, FRICL_STENCIL_EV, FRICL_STENCIL_VV};
static const double shares[BENCH_BUILD_GROUPS] = {0.4, 0.3, 0.2, 0.1};

static int fail_fricl(fricl_context *ctx, fricl_status st, const char *what) {
  fprintf(stderr, "fricl bench (build): %s: %s: %s\n", what,
          fricl_status_string(st), ctx ? fricl_context_last_error(ctx) : "");
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

static void put(fricl_precision p, void *a, size_t i, double v) {
  if (p == FRICL_F64)
    ((double *)a)[i] = v;
  else
    ((float *)a)[i] = (float)v;
}

void bench_build_scene_free(bench_build_scene *s) {
  bench_free(s->X);
  bench_free(s->R);
  bench_free(s->vms);
  bench_free(s->vmk);
  for (int g = 0; g < BENCH_BUILD_GROUPS; ++g) {
    bench_free(s->vx[g]);
    bench_free(s->beta[g]);
    bench_free(s->P[g]);
    bench_free(s->N[g]);
    bench_free(s->gN[g]);
    bench_free(s->w[g]);
    bench_free(s->ms[g]);
    bench_free(s->mk[g]);
    bench_free(s->st[g]);
  }
  memset(s, 0, sizeof *s);
}

/* Every contact gets its own vertices: a regular stencil at distance
 * U(0.05, 1.2) dhat (dhat = 1e-2), so about 85% are active. */
static int scene_fill(bench_build_scene *s, fricl_precision p,
                      size_t contacts) {
  memset(s, 0, sizeof *s);
  s->prec = p;
  s->esz = fricl__elem_bytes(p);
  size_t left = contacts, nv = 0;
  for (int g = 0; g < BENCH_BUILD_GROUPS; ++g) {
    s->count[g] = g == BENCH_BUILD_GROUPS - 1
                      ? left
                      : (size_t)((double)contacts * shares[g]);
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
  for (int g = 0; g < BENCH_BUILD_GROUPS; ++g) {
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
  s->b.n_groups = BENCH_BUILD_GROUPS;
  s->b.groups = s->G;
  return 0;
}

static double bytes_per_contact(const bench_build_scene *s) {
  double total = 0, n = 0;
  for (int g = 0; g < BENCH_BUILD_GROUPS; ++g) {
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

int bench_build_scene_make(bench_build_scene *s, fricl_precision p,
                           size_t contacts) {
  if (scene_fill(s, p, contacts)) {
    fprintf(stderr, "fricl bench (build): out of memory for %zu contacts\n",
            contacts);
    bench_build_scene_free(s);
    return 1;
  }
  return 0;
}

/* ---------------------------------------------------------------- tiers */

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

/* The rows of one precision: host tier (and device tier) with their copy
 * rooflines and the C reference, interleaved; the host tier last, so that
 * its outputs are the ones compared with the device tier's. */
static int one_precision(const bench_options *o, fricl_context *ctx,
                         fricl_context *ref, int has_dev, fricl_precision p,
                         size_t contacts, bench_build_result *res) {
  bench_build_scene s;
  bench_build_dev *dev = NULL;
  bench_roofs rs;
  memset(&rs, 0, sizeof rs);
  int rc = 1;
  if (bench_build_scene_make(&s, p, contacts))
    return 1;
  bench_build_row *hr = &res->rows[res->nrows], *dr = hr + 1;
  memset(hr, 0, 2 * sizeof *hr);
  hr->precision = dr->precision = p;
  hr->contacts = dr->contacts = contacts;
  hr->bytes_per_contact = dr->bytes_per_contact = bytes_per_contact(&s);
  hr->tier = BENCH_TIER_HOST;
  dr->tier = BENCH_TIER_DEVICE;
  hr->mismatches = -1;
  /* The copy moves as many bytes as the build (read + write). */
  const size_t copy_n = (size_t)(hr->bytes_per_contact * (double)contacts /
                                 (2.0 * (double)s.esz));
  hr->copy_n = dr->copy_n = copy_n;
  host_run host = {ctx, &s.b}, cref = {ref, &s.b};
  if (run_host(&host, 1))
    goto done;
  hr->backend = fricl_context_last_backend(ctx);
  hr->threads =
      hr->backend == FRICL_BACKEND_OPENCL ? 0 : fricl_context_threads(ctx);
  bench_roof *roof_h = bench_roofs_get(&rs, ctx, hr->backend, p, copy_n);
  if (!roof_h)
    goto done;
  bench_job jobs[5];
  int nj = 0, i_dev = -1, i_copy_d = -1;
  const int i_copy_h = nj;
  jobs[nj++] = bench_roof_job(roof_h);
  if (has_dev) {
    dr->backend = FRICL_BACKEND_OPENCL;
    bench_roof *roof_d =
        bench_roofs_get(&rs, ctx, FRICL_BACKEND_OPENCL, p, copy_n);
    if (!roof_d || bench_build_dev_open(ctx, &s.b, &dev))
      goto done;
    i_copy_d = i_copy_h;
    if (roof_d != roof_h) {
      i_copy_d = nj;
      jobs[nj++] = bench_roof_job(roof_d);
    }
    i_dev = nj;
    jobs[nj++] = (bench_job){.fn = bench_build_dev_run, .arg = dev};
  }
  const int i_ref = nj;
  jobs[nj++] = (bench_job){.fn = run_host, .arg = &cref};
  const int i_host = nj;
  jobs[nj++] = (bench_job){.fn = run_host, .arg = &host};
  if (bench_time_jobs(jobs, nj, o->repeats, o->min_sample_s))
    goto done;
  hr->time = jobs[i_host].st;
  hr->copy = jobs[i_copy_h].st;
  hr->ref = jobs[i_ref].st;
  ++res->nrows;
  if (dev && i_dev >= 0 && i_copy_d >= 0) {
    dr->time = jobs[i_dev].st;
    dr->copy = jobs[i_copy_d].st;
    dr->ref = jobs[i_ref].st;
    if (bench_build_dev_mismatches(dev, &s.b, &dr->mismatches))
      goto done;
    ++res->nrows;
  }
  fprintf(stderr,
          "[build] %s %zu contacts on %s: %.3f ms, C reference %.3f ms%s\n",
          p ? "f32" : "f64", contacts, bench_backend_label(hr->backend),
          hr->time.median * 1e3, hr->ref.median * 1e3,
          dev ? "" : " (no device tier)");
  rc = 0;
done:
  bench_build_dev_close(dev);
  bench_roofs_close(&rs);
  bench_build_scene_free(&s);
  return rc;
}

/* ---------------------------------------------- build, then evaluate */

/* One solver step's worth of friction: the lagged build, the contact plan
 * (the active set changed), then D, its gradient and the global Hessian
 * (PSD clamp) at velocities v. The build's outputs feed the evaluation
 * directly (same layouts). */
typedef struct {
  fricl_context *ctx;
  bench_build_scene *s;
  const void *vel;
  void *pot, *grad, *hess;
  size_t hess_cap; /* elements */
  fricl_backend build_backend, eval_backend;
} step_run;

static int run_step(void *arg, int count) {
  step_run *e = arg;
  bench_build_scene *s = e->s;
  for (int i = 0; i < count; ++i) {
    fricl_status st = fricl_build(e->ctx, &s->b);
    if (st != FRICL_STATUS_OK)
      return fail_fricl(e->ctx, st, "fricl_build");
    e->build_backend = fricl_context_last_backend(e->ctx);
    fricl_contact_group G[BENCH_BUILD_GROUPS];
    memset(G, 0, sizeof G);
    for (int g = 0; g < BENCH_BUILD_GROUPS; ++g) {
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
    st = fricl_tangential_plan_create(e->ctx, 3, s->nv, BENCH_BUILD_GROUPS, G,
                                      &plan);
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
    b.n_groups = BENCH_BUILD_GROUPS;
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
    e->eval_backend = fricl_context_last_backend(e->ctx);
  }
  return 0;
}

static int one_step(const bench_options *o, fricl_context *ctx,
                    fricl_context *ref, fricl_precision p, size_t contacts,
                    bench_step_row *row) {
  bench_build_scene s;
  if (bench_build_scene_make(&s, p, contacts))
    return 1;
  const size_t nvd = s.nv * 3, cap = contacts * 16 * 9;
  void *vel = bench_alloc(nvd * s.esz);
  void *buf[6] = {bench_alloc(s.esz),       bench_alloc(nvd * s.esz),
                  bench_alloc(cap * s.esz), bench_alloc(s.esz),
                  bench_alloc(nvd * s.esz), bench_alloc(cap * s.esz)};
  int rc = !vel;
  for (int i = 0; i < 6; ++i)
    rc |= !buf[i];
  if (rc)
    fprintf(stderr, "fricl bench (build+eval): out of memory\n");
  if (!rc) {
    for (size_t i = 0; i < nvd; ++i)
      put(s.prec, vel, i, 2e-3 * (hash01(i * 7 + 3) - 0.5));
    step_run a = {ctx, &s, vel, buf[0], buf[1], buf[2], cap, 0, 0};
    step_run r = {ref, &s, vel, buf[3], buf[4], buf[5], cap, 0, 0};
    bench_job jobs[2] = {{.fn = run_step, .arg = &a},
                         {.fn = run_step, .arg = &r}};
    rc = bench_time_jobs(jobs, 2, o->repeats, o->min_sample_s);
    memset(row, 0, sizeof *row);
    row->precision = p;
    row->contacts = contacts;
    row->build_backend = a.build_backend;
    row->eval_backend = a.eval_backend;
    row->time = jobs[0].st;
    row->ref = jobs[1].st;
  }
  bench_free(vel);
  for (int i = 0; i < 6; ++i)
    bench_free(buf[i]);
  bench_build_scene_free(&s);
  return rc;
}

/* ------------------------------------------------------------- report */

static void backend_cell(char *buf, size_t size, fricl_backend b,
                         unsigned threads) {
  if (b == FRICL_BACKEND_HOST)
    snprintf(buf, size, "host/%u", threads);
  else
    snprintf(buf, size, "%s", bench_backend_label(b));
}

static double copy_gbs(const bench_build_row *r) {
  const double esz = r->precision == FRICL_F64 ? 8 : 4;
  return 2.0 * (double)r->copy_n * esz / r->copy.median * 1e-9;
}

static void report_build(FILE *out, const bench_build_result *res,
                         int markdown) {
  fprintf(out,
          "\n%sLagged build (fricl_build), mixed 3-D scene: FV 40%%, EE "
          "30%%, EV 20%%, VV 10%%, per-vertex mu, all outputs\n",
          markdown ? "### " : "");
  if (!res->nrows) {
    fprintf(out, "(no rows: no precision the context supports was "
                 "selected)\n");
    return;
  }
  if (markdown)
    fprintf(out, "\n| prec | tier | ran on | contacts | B/contact | "
                 "Mcontacts/s | eff. GB/s | copy GB/s | %% of copy | C ref "
                 "Mcontacts/s | speed-up vs C ref | host = device |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  else
    fprintf(out, "%-4s %-6s %-9s %9s %9s %9s %9s %9s %8s %12s %9s %6s\n",
            "prec", "tier", "ran on", "contacts", "B/contact", "Mc/s",
            "eff GB/s", "copy GB/s", "% copy", "C ref Mc/s", "speed-up",
            "same");
  for (int i = 0; i < res->nrows; ++i) {
    const bench_build_row *r = &res->rows[i];
    const double n = (double)r->contacts;
    const double cps = n / r->time.median;
    const double eff = cps * r->bytes_per_contact * 1e-9;
    const double cg = copy_gbs(r);
    const double cref = n / r->ref.median;
    const double sp = r->ref.median / r->time.median;
    const char *same = r->mismatches < 0 ? "-" : r->mismatches ? "NO" : "yes";
    const char *tier = r->tier == BENCH_TIER_DEVICE ? "device" : "host";
    char be[32];
    backend_cell(be, sizeof be, r->backend, r->threads);
    fprintf(out,
            markdown ? "| %s | %s | %s | %zu | %.0f | %.2f | %.1f | %.1f | "
                       "%.1f%% | %.2f | %.2fx | %s |\n"
                     : "%-4s %-6s %-9s %9zu %9.0f %9.2f %9.1f %9.1f %7.1f%% "
                       "%12.2f %8.2fx %6s\n",
            r->precision ? "f32" : "f64", tier, be, r->contacts,
            r->bytes_per_contact, cps * 1e-6, eff, cg, 100 * eff / cg,
            cref * 1e-6, sp, same);
  }
}

static void report_steps(FILE *out, const bench_build_result *res,
                         int markdown) {
  if (!res->nsteps)
    return;
  fprintf(out,
          "\n%sBuild + evaluate (fricl_build, plan, D + gradient + global "
          "BSR Hessian, PSD clamp), same scene\n%s",
          markdown ? "### " : "",
          markdown ? "\n| prec | ran on (build/eval) | contacts | "
                     "Mcontacts/s | C ref Mcontacts/s | speed-up vs C ref "
                     "|\n|---|---|---|---|---|---|\n"
                   : "");
  for (int i = 0; i < res->nsteps; ++i) {
    const bench_step_row *r = &res->steps[i];
    const double n = (double)r->contacts;
    fprintf(out,
            markdown ? "| %s | %s/%s | %zu | %.2f | %.2f | %.2fx |\n"
                     : "%s on %s/%s, %zu contacts: %.2f Mcontacts/s, C ref "
                       "%.2f Mcontacts/s, %.2fx\n",
            r->precision ? "f32" : "f64", bench_backend_label(r->build_backend),
            bench_backend_label(r->eval_backend), r->contacts,
            n / r->time.median * 1e-6, n / r->ref.median * 1e-6,
            r->ref.median / r->time.median);
  }
}

int bench_build_run(const bench_options *o, fricl_context *ctx,
                    fricl_context *ref, int has_dev, size_t contacts,
                    bench_build_result *res) {
  memset(res, 0, sizeof *res);
  for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
    if (!((o->precisions >> p) & 1u))
      continue;
    if (p == FRICL_F64 && !fricl_context_has_fp64(ctx)) {
      fprintf(stderr,
              "fricl bench (build): no fp64 on %s: f64 rows "
              "skipped\n",
              fricl_context_device_name(ctx));
      continue;
    }
    if (one_precision(o, ctx, ref, has_dev, (fricl_precision)p, contacts, res))
      return 1;
  }
  report_build(stdout, res, o->markdown);
  for (int p = FRICL_F64; p <= FRICL_F32; ++p) {
    if (!((o->precisions >> p) & 1u) ||
        (p == FRICL_F64 && !fricl_context_has_fp64(ctx)))
      continue;
    if (one_step(o, ctx, ref, (fricl_precision)p, contacts,
                 &res->steps[res->nsteps]))
      return 1;
    ++res->nsteps;
  }
  report_steps(stdout, res, o->markdown);
  return 0;
}

void bench_build_json(FILE *f, const bench_build_result *res) {
  fputs("  \"build\": [", f);
  for (int i = 0; i < res->nrows; ++i) {
    const bench_build_row *r = &res->rows[i];
    fprintf(f,
            "%s\n    {\"precision\": \"%s\", \"tier\": \"%s\", "
            "\"backend\": \"%s\", \"threads\": %u, \"contacts\": %zu, "
            "\"bytes_per_contact\": ",
            i ? "," : "", r->precision ? "f32" : "f64",
            r->tier == BENCH_TIER_DEVICE ? "device" : "host",
            bench_backend_label(r->backend), r->threads, r->contacts);
    bench_json_num(f, r->bytes_per_contact);
    fprintf(f, ", \"copy_elements\": %zu,\n      ", r->copy_n);
    bench_json_stats(f, "time_s", &r->time, 1);
    fputs(",\n      ", f);
    bench_json_stats(f, "copy_s", &r->copy, 1);
    fputs(",\n      ", f);
    bench_json_stats(f, "ref_s", &r->ref, 1);
    const double eff =
        (double)r->contacts * r->bytes_per_contact / r->time.median * 1e-9;
    fputs(",\n      \"eff_gbs\": ", f);
    bench_json_num(f, eff);
    fputs(", \"copy_gbs\": ", f);
    bench_json_num(f, copy_gbs(r));
    fputs(", \"pct_copy\": ", f);
    bench_json_num(f, 100 * eff / copy_gbs(r));
    fputs(", \"speedup\": ", f);
    bench_json_num(f, r->ref.median / r->time.median);
    fputs(", \"mismatches\": ", f);
    if (r->mismatches < 0)
      fputs("null", f);
    else
      fprintf(f, "%ld", r->mismatches);
    fputs("}", f);
  }
  fputs(res->nrows ? "\n  ],\n" : "],\n", f);
  fputs("  \"build_step\": [", f);
  for (int i = 0; i < res->nsteps; ++i) {
    const bench_step_row *r = &res->steps[i];
    fprintf(f,
            "%s\n    {\"precision\": \"%s\", \"contacts\": %zu, "
            "\"build_backend\": \"%s\", \"eval_backend\": \"%s\",\n      ",
            i ? "," : "", r->precision ? "f32" : "f64", r->contacts,
            bench_backend_label(r->build_backend),
            bench_backend_label(r->eval_backend));
    bench_json_stats(f, "time_s", &r->time, 1);
    fputs(",\n      ", f);
    bench_json_stats(f, "ref_s", &r->ref, 1);
    fputs(",\n      \"speedup\": ", f);
    bench_json_num(f, r->ref.median / r->time.median);
    fputs("}", f);
  }
  fputs(res->nsteps ? "\n  ]" : "]", f);
}
