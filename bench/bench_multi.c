/* bench_multi.c - see bench_multi.h. */
#include "bench_multi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_lattice.h"
#include "bench_timer.h"
#include "fricl/fricl.h"

#define MAXD 8 /* devices of a list (FRICL's limit) */
#define NCTX (MAXD + 1)
#define TARGET 0.90 /* the list keeps >= 90 % of its first device's rate */

static int is_list(const char *s) {
  return s && (strchr(s, ',') || strcmp(s, "all-gpu") == 0);
}

/* The --device value, or NULL. */
static const char *device_arg(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--device=", 9) == 0)
      return argv[i] + 9;
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
      return argv[i + 1];
  }
  return NULL;
}

int bench_multi_selected(int argc, char **argv) {
  const char *d = device_arg(argc, argv);
  return is_list(d ? d : getenv("FRICL_DEVICE"));
}

/* ------------------------------------------------------------ features */

typedef struct feature feature;
struct feature {
  const char *name, *unit;
  size_t items;
  /* One run on ctx (index c of the contexts), writing output set `set`
   * (0: the devices alone, 1: the list). 0 on success. */
  int (*run)(feature *f, fricl_context *ctx, int c, int set);
  /* 1 when output sets 0 and 1 are bitwise equal. */
  int (*same)(feature *f);
  void (*release)(feature *f);
  void *state;
};

static int lib_fail(fricl_context *ctx, const char *what) {
  fprintf(stderr, "fricl bench: %s: %s\n", what, fricl_context_last_error(ctx));
  return 1;
}

static int eq(const void *a, const void *b, size_t bytes) {
  return memcmp(a, b, bytes) == 0;
}

/* The scalar family: 12 terms, batch parameters. */
typedef struct {
  size_t n;
  double *y, *out[2][FRICL_TERM_COUNT];
} scalar_st;

static int scalar_run(feature *f, fricl_context *ctx, int c, int set) {
  (void)c;
  scalar_st *s = f->state;
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  b.mu_profile = FRICL_MU_IPCTK;
  b.n = s->n;
  b.y = s->y;
  b.eps_v = 1e-3;
  b.mu_s = 0.5;
  b.mu_k = 0.3;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    b.out[t] = s->out[set][t];
  return fricl_scalar_eval(ctx, &b) == FRICL_STATUS_OK
             ? 0
             : lib_fail(ctx, "scalar");
}

static int scalar_same(feature *f) {
  scalar_st *s = f->state;
  int ok = 1;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    ok &= eq(s->out[0][t], s->out[1][t], s->n * sizeof(double));
  return ok;
}

static void scalar_release(feature *f) {
  scalar_st *s = f->state;
  if (!s)
    return;
  free(s->y);
  for (int k = 0; k < 2; ++k)
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      free(s->out[k][t]);
  free(s);
}

static int scalar_make(feature *f, size_t n) {
  scalar_st *s = calloc(1, sizeof *s);
  f->state = s;
  f->name = "scalar family (12 terms)";
  f->unit = "elements";
  f->items = n;
  f->run = scalar_run;
  f->same = scalar_same;
  f->release = scalar_release;
  if (!s)
    return 1;
  s->n = n;
  s->y = malloc(n * sizeof(double));
  int bad = !s->y;
  for (int k = 0; k < 2; ++k)
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)
      bad |= !(s->out[k][t] = malloc(n * sizeof(double)));
  for (size_t i = 0; !bad && i < n; ++i)
    s->y[i] = 4e-3 * ((double)(i % 1000) / 500.0 - 1.0);
  return bad;
}

/* The lattice scene: built once (inputs of the tangential rows). */
typedef struct {
  bench_lattice s;
  bench_lattice_out in;     /* the evaluation's inputs */
  bench_lattice_out out[2]; /* the build rows' outputs */
  fricl_contact_group g[BENCH_LATTICE_GROUPS];
  fricl_tangential_plan *plan[NCTX];
  size_t nnz;
  double pot[2], *grad[2], *hess[2];
} lattice_st;

static int tan_run(feature *f, fricl_context *ctx, int c, int set) {
  lattice_st *l = f->state;
  if (!l->plan[c] &&
      fricl_tangential_plan_create(ctx, 3, l->s.nv, BENCH_LATTICE_GROUPS, l->g,
                                   &l->plan[c]) != FRICL_STATUS_OK)
    return lib_fail(ctx, "plan");
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.psd = FRICL_PSD_CLAMP;
  b.n_vertices = l->s.nv;
  b.velocities = l->s.vel;
  b.eps_v = 1e-3;
  b.n_groups = BENCH_LATTICE_GROUPS;
  b.groups = l->g;
  b.plan = l->plan[c];
  b.potential = &l->pot[set];
  b.gradient = l->grad[set];
  b.hessian_values = l->hess[set];
  return fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK
             ? 0
             : lib_fail(ctx, "tangential");
}

static int tan_same(feature *f) {
  lattice_st *l = f->state;
  return eq(&l->pot[0], &l->pot[1], sizeof(double)) &&
         eq(l->grad[0], l->grad[1], l->s.nv * 3 * sizeof(double)) &&
         eq(l->hess[0], l->hess[1], l->nnz * 9 * sizeof(double));
}

static int build_run(feature *f, fricl_context *ctx, int c, int set) {
  (void)c;
  lattice_st *l = f->state;
  fricl_build_batch b;
  fricl_build_group g[BENCH_LATTICE_GROUPS];
  bench_lattice_build_batch(&l->s, &l->out[set], &b, g);
  return fricl_build(ctx, &b) == FRICL_STATUS_OK ? 0 : lib_fail(ctx, "build");
}

static int build_same(feature *f) {
  lattice_st *l = f->state;
  int ok = 1;
  for (int g = 0; g < BENCH_LATTICE_GROUPS; ++g) {
    const size_t n = l->s.count[g];
    const size_t k = (size_t)fricl_stencil_vertex_count(l->s.type[g]);
    const size_t nb = (size_t)fricl_stencil_coord_count(l->s.type[g]);
    const bench_lattice_out *a = &l->out[0], *b = &l->out[1];
    const size_t d = sizeof(double);
    ok &= eq(a->beta[g], b->beta[g], n * nb * d) &&
          eq(a->P[g], b->P[g], n * 6 * d) && eq(a->N[g], b->N[g], n * d) &&
          eq(a->gN[g], b->gN[g], n * 3 * k * d) &&
          eq(a->w[g], b->w[g], n * d) && eq(a->ms[g], b->ms[g], n * d) &&
          eq(a->mk[g], b->mk[g], n * d) && eq(a->status[g], b->status[g], n);
  }
  return ok;
}

static void lattice_release(feature *f) {
  lattice_st *l = f->state;
  if (!l)
    return;
  for (int c = 0; c < NCTX; ++c)
    fricl_tangential_plan_destroy(l->plan[c]);
  for (int k = 0; k < 2; ++k) {
    free(l->grad[k]);
    free(l->hess[k]);
    bench_lattice_out_free(&l->out[k]);
  }
  bench_lattice_out_free(&l->in);
  bench_lattice_free(&l->s);
  free(l);
}

/* The scene, its build on the host backend (the evaluation's inputs) and
 * the Hessian's size. */
static int lattice_make(feature *tan, feature *build, size_t contacts) {
  lattice_st *l = calloc(1, sizeof *l);
  tan->state = l;
  build->state = NULL;
  tan->release = lattice_release;
  if (!l || bench_lattice_make(&l->s, contacts) ||
      bench_lattice_out_alloc(&l->s, &l->in) ||
      bench_lattice_out_alloc(&l->s, &l->out[0]) ||
      bench_lattice_out_alloc(&l->s, &l->out[1]))
    return 1;
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = "host";
  fricl_context *host = NULL;
  if (fricl_context_create(&host, &p) != FRICL_STATUS_OK)
    return 1;
  fricl_build_batch b;
  fricl_build_group g[BENCH_LATTICE_GROUPS];
  bench_lattice_build_batch(&l->s, &l->in, &b, g);
  int rc = fricl_build(host, &b) != FRICL_STATUS_OK;
  bench_lattice_contacts(&l->s, &l->in, l->g);
  fricl_tangential_plan *plan = NULL;
  rc =
      rc || fricl_tangential_plan_create(host, 3, l->s.nv, BENCH_LATTICE_GROUPS,
                                         l->g, &plan) != FRICL_STATUS_OK;
  if (!rc)
    fricl_tangential_plan_bsr(plan, NULL, &l->nnz, NULL, NULL);
  fricl_tangential_plan_destroy(plan);
  fricl_context_destroy(host);
  for (int k = 0; k < 2 && !rc; ++k) {
    l->grad[k] = malloc(l->s.nv * 3 * sizeof(double));
    l->hess[k] = malloc((l->nnz ? l->nnz : 1) * 9 * sizeof(double));
    rc = !l->grad[k] || !l->hess[k];
  }
  tan->name = "tangential: potential + gradient + Hessian";
  tan->unit = "contacts";
  tan->items = l->s.total;
  tan->run = tan_run;
  tan->same = tan_same;
  build->name = "lagged build (every output)";
  build->unit = "contacts";
  build->items = l->s.total;
  build->run = build_run;
  build->same = build_same;
  build->state = l;
  build->release = NULL; /* the tangential feature owns the scene */
  return rc;
}

/* The friction laws: LuGre, RK4, n elements x 4 steps. */
typedef struct {
  size_t n, steps;
  double *v, *z0, *z[2], *force[2];
} laws_st;

static const double LUGRE_P[7] = {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2};

static int laws_run(feature *f, fricl_context *ctx, int c, int set) {
  (void)c;
  laws_st *s = f->state;
  fricl_law_batch b;
  fricl_law_batch_init(&b, FRICL_LAW_LUGRE);
  memcpy(b.param, LUGRE_P, sizeof LUGRE_P);
  b.normal_force = 10;
  b.integrator = FRICL_INTEGRATOR_RK4;
  b.h = 1e-3;
  b.n = s->n;
  b.n_steps = s->steps;
  b.v = s->v;
  b.state = s->z0;
  b.state_out = s->z[set];
  b.force = s->force[set];
  return fricl_law_step(ctx, &b) == FRICL_STATUS_OK ? 0 : lib_fail(ctx, "laws");
}

static int laws_same(feature *f) {
  laws_st *s = f->state;
  return eq(s->z[0], s->z[1], s->n * sizeof(double)) &&
         eq(s->force[0], s->force[1], s->n * s->steps * sizeof(double));
}

static void laws_release(feature *f) {
  laws_st *s = f->state;
  if (!s)
    return;
  free(s->v);
  free(s->z0);
  for (int k = 0; k < 2; ++k) {
    free(s->z[k]);
    free(s->force[k]);
  }
  free(s);
}

static int laws_make(feature *f, size_t n) {
  laws_st *s = calloc(1, sizeof *s);
  f->state = s;
  f->name = "friction laws (LuGre, RK4, 4 steps)";
  f->unit = "element-steps";
  f->run = laws_run;
  f->same = laws_same;
  f->release = laws_release;
  if (!s)
    return 1;
  s->n = n;
  s->steps = 4;
  f->items = n * s->steps;
  s->v = malloc(n * s->steps * sizeof(double));
  s->z0 = malloc(n * sizeof(double));
  int bad = !s->v || !s->z0;
  for (int k = 0; k < 2; ++k) {
    bad |= !(s->z[k] = malloc(n * sizeof(double)));
    bad |= !(s->force[k] = malloc(n * s->steps * sizeof(double)));
  }
  for (size_t i = 0; !bad && i < n * s->steps; ++i)
    s->v[i] = 0.02 * ((double)(i % 997) / 498.5 - 1.0);
  for (size_t i = 0; !bad && i < n; ++i)
    s->z0[i] = 1e-4 * ((double)(i % 101) / 50.5 - 1.0);
  return bad;
}

/* ---------------------------------------------------------------- driver */

typedef struct {
  feature *f;
  fricl_context *ctx;
  int c, set;
} job_arg;

static int job_run(void *arg, int count) {
  job_arg *a = arg;
  for (int i = 0; i < count; ++i)
    if (a->f->run(a->f, a->ctx, a->c, a->set))
      return 1;
  return 0;
}

static fricl_context *open_ctx(const char *spec) {
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = spec;
  char msg[512] = "";
  p.error_buffer = msg;
  p.error_buffer_size = sizeof msg;
  fricl_context *ctx = NULL;
  if (fricl_context_create(&ctx, &p) != FRICL_STATUS_OK)
    fprintf(stderr, "fricl bench: cannot open '%s': %s\n", spec, msg);
  return ctx;
}

static void usage(void) {
  printf("usage: fricl bench --device LIST [--contacts N] [--n N] "
         "[--repeats R] [--quick] [--markdown]\n\n"
         "LIST is a device list (opencl:0:0,opencl:0:1) or all-gpu. Per "
         "feature, the throughput of each device alone and of the list "
         "(interleaved repeats), the shares, and the list's outputs against "
         "its first device's, bitwise (bench/bench_multi.h).\n"
         "  --contacts N  contacts of the tangential and build rows "
         "(default 10^6; --quick 2^14)\n"
         "  --n N         elements of the scalar and laws rows (default "
         "2^22 and 2^20; --quick 2^16)\n");
}

int bench_multi_main(int argc, char **argv) {
  const char *list = device_arg(argc, argv);
  if (!list)
    list = getenv("FRICL_DEVICE");
  size_t contacts = 0, n = 0;
  int repeats = 0, quick = 0, markdown = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage();
      return 0;
    }
    if (strcmp(a, "--quick") == 0) {
      quick = 1;
      continue;
    }
    if (strcmp(a, "--markdown") == 0) {
      markdown = 1;
      continue;
    }
    const char *eqs = strchr(a, '=');
    const size_t len = eqs ? (size_t)(eqs - a) : strlen(a);
    const char *val = eqs ? eqs + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
#define IS(name) (strlen(name) == len && strncmp(a, name, len) == 0)
    if (!val ||
        !(IS("--device") || IS("--contacts") || IS("--n") || IS("--repeats"))) {
      fprintf(stderr,
              "fricl bench: '%s' is not an option of the device-list rows "
              "(see fricl bench --device LIST --help)\n",
              a);
      return 2;
    }
    if (!eqs)
      ++i;
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(val, &end, 10);
    const int bad = !IS("--device") && (errno || *end || !v || *val == '-');
    if (IS("--contacts"))
      contacts = (size_t)v;
    else if (IS("--n"))
      n = (size_t)v;
    else if (IS("--repeats"))
      repeats = v > 1000 ? 0 : (int)v;
#undef IS
    if (bad || (repeats == 0 && strstr(a, "--repeats"))) {
      fprintf(stderr, "fricl bench: bad value '%s' for %s\n", val, a);
      return 2;
    }
  }
  if (!contacts)
    contacts = quick ? (size_t)1 << 14 : 1000000;
  if (!repeats)
    repeats = quick ? 3 : 7;
  fricl_context *ctx[NCTX] = {0};
  ctx[0] = open_ctx(list);
  if (!ctx[0])
    return 1;
  fricl_context_device dev[MAXD];
  size_t nd = 0;
  fricl_context_devices(ctx[0], dev, MAXD, &nd);
  if (nd > MAXD)
    nd = MAXD;
  int rc = 0;
  char specs[MAXD][32];
  for (size_t d = 0; d < nd && !rc; ++d) {
    snprintf(specs[d], sizeof specs[d], "opencl:%d:%d", dev[d].platform_index,
             dev[d].device_index);
    ctx[1 + d] = open_ctx(specs[d]);
    rc = !ctx[1 + d];
  }
  /* Contexts in job order: the devices alone, then the list. */
  fricl_context *order[NCTX];
  for (size_t d = 0; d < nd; ++d)
    order[d] = ctx[1 + d];
  order[nd] = ctx[0];
  const size_t nctx = nd + 1;
  feature feats[4];
  memset(feats, 0, sizeof feats);
  const size_t ns = n ? n : quick ? (size_t)1 << 16 : (size_t)1 << 22;
  const size_t nl = n ? n : quick ? (size_t)1 << 16 : (size_t)1 << 20;
  if (!rc && (scalar_make(&feats[0], ns) ||
              lattice_make(&feats[1], &feats[2], contacts) ||
              laws_make(&feats[3], nl))) {
    fprintf(stderr, "fricl bench: out of memory\n");
    rc = 1;
  }
  if (!rc) {
    printf("Device list \"%s\": %s; %d interleaved repeats, medians, f64\n",
           list, fricl_context_device_name(ctx[0]), repeats);
    if (markdown) {
      printf("\n| feature | items |");
      for (size_t d = 0; d < nd; ++d)
        printf(" %s alone |", specs[d]);
      printf(" list | list / first | shares | bitwise |\n|---|---:|");
      for (size_t d = 0; d <= nd; ++d)
        printf("---:|");
      printf("---:|---|---|\n");
    }
  }
  for (int fi = 0; fi < 4 && !rc; ++fi) {
    feature *f = &feats[fi];
    bench_job jobs[NCTX];
    job_arg args[NCTX];
    for (size_t c = 0; c < nctx; ++c) {
      args[c] = (job_arg){f, order[c], (int)c, c + 1 == nctx};
      memset(&jobs[c], 0, sizeof jobs[c]);
      jobs[c].fn = job_run;
      jobs[c].arg = &args[c];
    }
    rc = bench_time_jobs(jobs, (int)nctx, repeats, 0.0);
    /* The first device's outputs against the list's, bitwise. */
    if (!rc)
      rc = f->run(f, order[0], 0, 0) || f->run(f, ctx[0], (int)nd, 1);
    if (rc)
      break;
    const int same = f->same(f);
    fricl_context_device sh[MAXD];
    size_t cnt = 0;
    fricl_context_devices(ctx[0], sh, MAXD, &cnt);
    const double first = (double)f->items / jobs[0].st.median;
    const double all = (double)f->items / jobs[nd].st.median;
    double best = 0;
    for (size_t d = 0; d < nd; ++d) {
      const double r = (double)f->items / jobs[d].st.median;
      best = r > best ? r : best;
    }
    if (markdown) {
      printf("| %s | %zu |", f->name, f->items);
      for (size_t d = 0; d < nd; ++d)
        printf(" %.2f M/s |", (double)f->items / jobs[d].st.median * 1e-6);
      printf(" %.2f M/s | %.3fx |", all * 1e-6, all / first);
      for (size_t d = 0; d < nd && d < cnt; ++d)
        printf("%s%.0f%%", d ? " / " : " ", 100 * sh[d].share[fi]);
      printf(" | %s |\n", same ? "yes" : "NO");
    } else {
      printf("\n%s, %zu %s:\n", f->name, f->items, f->unit);
      for (size_t d = 0; d < nd; ++d)
        printf("  %-14s alone %10.2f M%s/s  share in the list %5.1f%%  "
               "(measured %.3g/s)\n",
               specs[d], (double)f->items / jobs[d].st.median * 1e-6,
               f->unit[0] == 'c' ? "contact" : "item", 100 * sh[d].share[fi],
               sh[d].items_per_second[fi]);
      printf("  list           %10.2f M/s: %.3fx the first device, %.3fx the "
             "best device alone; bitwise equal to the first device: %s\n",
             all * 1e-6, all / first, all / best, same ? "yes" : "NO");
      printf("  target: the split keeps >= %.0f%% of one device: %s\n",
             TARGET * 100, all / first >= TARGET ? "PASS" : "MISS");
    }
    if (!same)
      rc = 1;
  }
  for (int fi = 0; fi < 4; ++fi)
    if (feats[fi].release)
      feats[fi].release(&feats[fi]);
  for (size_t c = 0; c < NCTX; ++c)
    fricl_context_destroy(ctx[c]);
  return rc;
}
