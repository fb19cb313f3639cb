/*
 * test_laws_api.c - the contract of the friction-law API: names and info,
 * every invalid-argument path (status, message naming the parameter and
 * the first bad index, outputs untouched), n = 0, OpenCL against the C
 * reference (bitwise where no exp/pow is involved, a few ulp of the force
 * scale otherwise), f32 within its documented tolerance, determinism,
 * chunking of trajectories, and the cl_mem tier.
 */
#include "fricl/fricl_cl.h"
#include "test_util.h"

#define N 777
#define STEPS 6
#define M 4

static void test_names(void) {
  for (int l = 0; l < FRICL_LAW_COUNT; ++l) {
    fricl_law back;
    CHECK(fricl_law_from_name(fricl_law_name((fricl_law)l), &back) ==
                  FRICL_STATUS_OK &&
              back == (fricl_law)l,
          "law %d round trip", l);
    fricl_law_info info;
    CHECK(fricl_law_get_info((fricl_law)l, &info) == FRICL_STATUS_OK &&
              info.param_count >= 1 && info.param_count <= 7,
          "info %d", l);
  }
  fricl_law law;
  CHECK(fricl_law_from_name("dahl", &law) == FRICL_STATUS_INVALID_ARGUMENT,
        "unknown law");
  CHECK(fricl_law_name(FRICL_LAW_COUNT) == NULL, "law out of range");
  uint32_t o;
  CHECK(fricl_law_option_from_name("stribeck_odd", &o) == FRICL_STATUS_OK &&
            o == FRICL_LAW_OPT_STRIBECK_ODD,
        "option");
  fricl_integrator in;
  CHECK(fricl_integrator_from_name("rk4", &in) == FRICL_STATUS_OK &&
            in == FRICL_INTEGRATOR_RK4,
        "integrator");
  /* Defaults: Exudyn's, Modelica's v0, NaN for required. */
  fricl_law_batch b;
  fricl_law_batch_init(&b, FRICL_LAW_EXUDYN_STRIBECK);
  CHECK(b.param[2] == 0 && b.param[3] == 1e-3 && b.param[4] == 1e-3 &&
            isnan(b.param[0]),
        "exudyn defaults");
  fricl_law_batch_init(&b, FRICL_LAW_ISDF);
  CHECK(b.param[2] == 0.1 && b.param[3] == 1, "isdf defaults");
}

/* A valid batch of every law over N elements (f64 data, per-element where
 * `pe`), trajectories of STEPS samples for fricl_law_step. */
typedef struct {
  double v[N * STEPS], x[N * STEPS], nrm[N * STEPS];
  double pa[7][N];
  double ge[N * 3 * M];
  double st[N * M], st_out[N * M], force[N * STEPS], dstate[N * M];
} data;

static const double PARAMS[FRICL_LAW_COUNT][7] = {
    {0.1, 0.05, 0.3, 1e-3, 1e-3},
    {-0.01, -1, 0.02, 2},
    {0.1, 0.05, 0.005, 0.01, 0.2},
    {-100, 1, 0.01, 0},
    {0.15},
    {0.25, 0.15, 0.01, 2},
    {1000, 0.15},
    {0.25, 0.15, 0.01, 2, 1e4},
    {0.5, 0.3, 0.01, 1e4, 100, 0.4, 2},
    {0.5, 0.3, 20, 1e4, 0.1, 0.01, 2}};

static void fill(data *d) {
  for (int i = 0; i < N * STEPS; ++i) {
    const double t = (double)(i % N) + 0.37 * (i / N);
    d->v[i] = 0.03 * sin(0.7 * t) * (1 + 0.1 * (i % 5));
    d->x[i] = 0.02 * cos(0.3 * t);
    d->nrm[i] = 10 + 5 * sin(0.11 * t);
  }
  d->v[3] = 0.0;
  d->v[4] = -0.0;
  d->v[5] = NAN;
  d->v[6] = 0.01; /* branch points */
  d->v[7] = 0.005;
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < 7; ++k)
      d->pa[k][i] = 0; /* set per law */
  for (int i = 0; i < N * 3 * M; ++i)
    d->ge[i] = i % 3 == 2 ? 0.25 + 0.05 * (i % 7) : 1e3 * (1 + i % 5);
  for (int i = 0; i < N * M; ++i)
    d->st[i] = 2e-4 * sin(0.9 * i);
}

static void make_batch(fricl_law_batch *b, data *d, fricl_law law, int pe) {
  fricl_law_batch_init(b, law);
  fricl_law_info info;
  fricl_law_get_info(law, &info);
  for (int k = 0; k < info.param_count; ++k) {
    b->param[k] = PARAMS[law][k];
    if (pe) {
      for (int i = 0; i < N; ++i)
        d->pa[k][i] = PARAMS[law][k] * (k == 3 && law == FRICL_LAW_ISDF
                                            ? (double)(i % 2)
                                            : 1.0 + 0.01 * (i % 9));
      b->param_array[k] = d->pa[k];
    }
  }
  b->n = N;
  b->v = d->v;
  b->x = info.uses_position ? d->x : NULL;
  if (info.uses_normal)
    b->normal = d->nrm;
  b->gms_elements = M;
  b->gms_params = law == FRICL_LAW_GMS ? d->ge : NULL;
  b->gms_params_per_element = pe;
  b->force = d->force;
  if (info.state_size) {
    b->state = d->st;
    b->state_out = info.ode_state ? NULL : d->st_out; /* eval: not advanced */
  }
  b->h = law == FRICL_LAW_GMS ? 1e-6 : 1e-3; /* GMS: C / s = 5e4 /s */
  b->integrator = FRICL_INTEGRATOR_RK4;
}

/* ------------------------------------------------------- validation */

static void expect_invalid(fricl_context *ctx, fricl_law_batch *b, int step,
                           const char *needle, const char *what) {
  const double sentinel = 12345.0;
  double *f = b->force;
  if (f)
    for (int i = 0; i < N; ++i)
      f[i] = sentinel;
  const fricl_status st =
      step ? fricl_law_step(ctx, b) : fricl_law_eval(ctx, b);
  const char *msg = fricl_context_last_error(ctx);
  CHECK(st == FRICL_STATUS_INVALID_ARGUMENT, "%s: expected INVALID, got %s",
        what, fricl_status_string(st));
  CHECK(strstr(msg, needle) != NULL, "%s: message \"%s\" lacks \"%s\"", what,
        msg, needle);
  if (f)
    for (int i = 0; i < N; ++i)
      if (f[i] != sentinel) {
        CHECK(0, "%s: output written before validation failed", what);
        break;
      }
}

static void test_invalid(fricl_context *ctx) {
  static data d;
  fill(&d);
  fricl_law_batch b;
  /* Each parameter rule, scalar and per element (first bad index). */
  struct {
    fricl_law law;
    int k;
    double bad;
    const char *name;
  } cases[] = {
      {FRICL_LAW_EXUDYN_STRIBECK, 3, 0.0, "expVel"},
      {FRICL_LAW_EXUDYN_STRIBECK, 4, -1e-3, "regVel"},
      {FRICL_LAW_EXUDYN_STRIBECK, 0, INFINITY, "muDynamic"},
      {FRICL_LAW_EXUDYN_STEP, 2, NAN, "x1"},
      {FRICL_LAW_EXUDYN_REGULARIZED, 2, -0.1, "velStatic"},
      {FRICL_LAW_ISDF, 1, 0.0, "v_nominal"},
      {FRICL_LAW_ISDF, 2, -1.0, "v0"},
      {FRICL_LAW_ISDF, 3, 0.5, "ForceDirection"},
      {FRICL_LAW_COULOMB, 0, -0.1, "friction_coefficient"},
      {FRICL_LAW_STRIBECK, 2, 0.0, "stribeck_velocity"},
      {FRICL_LAW_MAXWELL, 0, 0.0, "stiffness"},
      {FRICL_LAW_MODIFIED_STRIBECK, 4, -1.0, "stiffness"},
      {FRICL_LAW_LUGRE, 3, 0.0, "stiffness"},
      {FRICL_LAW_LUGRE, 0, 0.0, "static_coefficient"},
      {FRICL_LAW_LUGRE, 6, -1.0, "shape_parameter"},
      {FRICL_LAW_GMS, 5, 0.0, "stribeck_velocity"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    make_batch(&b, &d, cases[c].law, 0);
    b.param[cases[c].k] = cases[c].bad;
    expect_invalid(ctx, &b, 0, cases[c].name, cases[c].name);
    make_batch(&b, &d, cases[c].law, 1);
    d.pa[cases[c].k][123] = cases[c].bad;
    d.pa[cases[c].k][400] = cases[c].bad;
    expect_invalid(ctx, &b, 0, "[123]", cases[c].name);
  }
  /* Required parameter without default. */
  fricl_law_batch_init(&b, FRICL_LAW_COULOMB);
  b.normal_force = 1;
  b.n = N;
  b.v = d.v;
  b.force = d.force;
  expect_invalid(ctx, &b, 0, "required", "required param");
  /* velStatic > velDynamic, scalar and per element. */
  make_batch(&b, &d, FRICL_LAW_EXUDYN_REGULARIZED, 0);
  b.param[2] = 0.2;
  expect_invalid(ctx, &b, 0, "velStatic", "vs > vd");
  make_batch(&b, &d, FRICL_LAW_EXUDYN_REGULARIZED, 1);
  d.pa[2][55] = 1.0;
  expect_invalid(ctx, &b, 0, "index 55", "vs > vd per element");
  /* Normal force: missing, negative, zero for LuGre, -inf in an array. */
  make_batch(&b, &d, FRICL_LAW_MAXWELL, 0);
  b.normal = NULL;
  expect_invalid(ctx, &b, 0, "normal_force is required", "normal missing");
  b.normal_force = -1;
  expect_invalid(ctx, &b, 0, "normal_force", "normal < 0");
  make_batch(&b, &d, FRICL_LAW_LUGRE, 0);
  d.nrm[9] = 0.0;
  expect_invalid(ctx, &b, 0, "normal[9]", "lugre normal 0");
  fill(&d);
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  d.nrm[11] = -INFINITY;
  expect_invalid(ctx, &b, 0, "normal[11]", "normal -inf");
  fill(&d);
  /* GMS: element counts and nu. */
  make_batch(&b, &d, FRICL_LAW_GMS, 0);
  b.gms_elements = 0;
  expect_invalid(ctx, &b, 0, "gms_elements", "m = 0");
  b.gms_elements = FRICL_GMS_MAX_ELEMENTS + 1;
  expect_invalid(ctx, &b, 0, "gms_elements", "m too large");
  b.gms_elements = M;
  d.ge[5] = 0.0;
  expect_invalid(ctx, &b, 0, "nu_2", "nu = 0");
  fill(&d);
  b.gms_params = NULL;
  expect_invalid(ctx, &b, 0, "gms_params", "gms params NULL");
  /* Stepping arguments. */
  make_batch(&b, &d, FRICL_LAW_LUGRE, 0);
  b.h = 0;
  expect_invalid(ctx, &b, 1, "batch.h", "h = 0");
  b.h = NAN;
  expect_invalid(ctx, &b, 1, "batch.h", "h NaN");
  make_batch(&b, &d, FRICL_LAW_GMS, 0);
  b.integrator = FRICL_INTEGRATOR_EXP;
  expect_invalid(ctx, &b, 1, "exp", "exp on GMS");
  b.integrator = (fricl_integrator)7;
  expect_invalid(ctx, &b, 1, "integrator", "bad integrator");
  make_batch(&b, &d, FRICL_LAW_LUGRE, 0);
  b.state_out = d.st_out;
  expect_invalid(ctx, &b, 0, "state_out", "lugre eval with state_out");
  b.state_out = NULL;
  b.dstate = d.dstate;
  expect_invalid(ctx, &b, 1, "dstate", "dstate in step");
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.n_steps = 2;
  expect_invalid(ctx, &b, 0, "n_steps", "eval with n_steps 2");
  b.n_steps = 0;
  expect_invalid(ctx, &b, 1, "n_steps", "step with n_steps 0");
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.state = d.st;
  expect_invalid(ctx, &b, 0, "no state", "state on a stateless law");
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.options = FRICL_LAW_OPT_LUGRE_EXP_SHAPE;
  expect_invalid(ctx, &b, 0, "lugre_exp_shape", "foreign option");
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.v = NULL;
  expect_invalid(ctx, &b, 0, "batch.v", "v NULL");
  make_batch(&b, &d, FRICL_LAW_MAXWELL, 0);
  b.x = NULL;
  expect_invalid(ctx, &b, 0, "batch.x", "x NULL");
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.force = NULL;
  expect_invalid(ctx, &b, 0, "no output", "no output");
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.precision = (fricl_precision)5;
  expect_invalid(ctx, &b, 0, "precision", "precision");
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.struct_size = 8;
  expect_invalid(ctx, &b, 0, "struct_size", "struct_size");
  /* Overlaps: force over v; state_out partly over state. */
  make_batch(&b, &d, FRICL_LAW_COULOMB, 0);
  b.force = d.v + 1;
  expect_invalid(ctx, &b, 0, "overlaps input v", "force over v");
  make_batch(&b, &d, FRICL_LAW_MAXWELL, 0);
  b.state_out = d.st + 1;
  expect_invalid(ctx, &b, 0, "state_out overlaps", "state_out shifted");
  /* NULL context / batch. */
  CHECK(fricl_law_eval(NULL, &b) == FRICL_STATUS_INVALID_ARGUMENT, "NULL ctx");
  CHECK(fricl_law_eval(ctx, NULL) == FRICL_STATUS_INVALID_ARGUMENT, "NULL b");
  /* n = 0: no-op, no pointers needed. */
  fricl_law_batch_init(&b, FRICL_LAW_GMS);
  const double *p = PARAMS[FRICL_LAW_GMS];
  memcpy(b.param, p, 7 * sizeof *p);
  b.normal_force = 1;
  b.gms_elements = 2;
  b.n_steps = 3;
  b.h = 1;
  b.force = d.force;
  CHECK(fricl_law_step(ctx, &b) == FRICL_STATUS_OK, "n = 0: %s",
        fricl_context_last_error(ctx));
}

/* ------------------------------------------ backends, f32, determinism */

/* Laws whose kernels use no exp/pow (bitwise with the C reference). */
static int exact_law(fricl_law l) {
  return l == FRICL_LAW_EXUDYN_STEP || l == FRICL_LAW_EXUDYN_REGULARIZED ||
         l == FRICL_LAW_ISDF || l == FRICL_LAW_COULOMB ||
         l == FRICL_LAW_MAXWELL;
}

typedef struct {
  double force[N * STEPS], st[N * M], ds[N * M];
} result;

/* Run one law on ctx: eval (step = 0) or step; f32 converts in and out. */
static fricl_status run(fricl_context *ctx, data *d, fricl_law law, int pe,
                        int step, fricl_precision prec, result *r) {
  fricl_law_batch b;
  memset(r, 0, sizeof *r);
  make_batch(&b, d, law, pe);
  fricl_law_info info;
  fricl_law_get_info(law, &info);
  b.n_steps = step ? STEPS : 1;
  b.normal_per_step = step;
  if (info.ode_state && !step)
    b.dstate = d->dstate;
  if (info.ode_state && step)
    b.state_out = d->st_out;
  if (law == FRICL_LAW_LUGRE && step)
    b.integrator = FRICL_INTEGRATOR_EXP;
  static float fin[12][N * 3 * M], fout[3][N * 3 * M]; /* >= N * STEPS */
  b.precision = prec;
  if (prec == FRICL_F32) {
    const void **ins[12] = {&b.v, &b.x, &b.normal, &b.gms_params, &b.state};
    for (int k = 0; k < 7; ++k)
      ins[5 + k] = &b.param_array[k];
    const size_t cnt[12] = {
        N * STEPS, N * STEPS, N * STEPS, N * 3 * M, N * M, N, N, N, N, N, N, N};
    for (int a = 0; a < 12; ++a)
      if (*ins[a]) {
        const double *src = *ins[a];
        for (size_t i = 0; i < cnt[a]; ++i)
          fin[a][i] = (float)src[i];
        *ins[a] = fin[a];
      }
    if (b.force)
      b.force = fout[0];
    if (b.state_out)
      b.state_out = fout[1];
    if (b.dstate)
      b.dstate = fout[2];
  }
  const fricl_status st =
      step ? fricl_law_step(ctx, &b) : fricl_law_eval(ctx, &b);
  const size_t nf = N * (step ? STEPS : 1),
               ns = N *
                    (info.state_size
                         ? (law == FRICL_LAW_GMS ? M : (size_t)info.state_size)
                         : 0);
  for (size_t i = 0; i < nf; ++i)
    r->force[i] = prec == FRICL_F32 ? fout[0][i] : d->force[i];
  for (size_t i = 0; i < ns; ++i) {
    r->st[i] = !b.state_out ? 0 : prec == FRICL_F32 ? fout[1][i] : d->st_out[i];
    r->ds[i] = !b.dstate ? 0 : prec == FRICL_F32 ? fout[2][i] : d->dstate[i];
  }
  return st;
}

static double max_abs(const double *a, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i)
    if (isfinite(a[i]))
      m = fmax(m, fabs(a[i]));
  return m;
}

/* |a - b| <= tol * scale elementwise, NaN where NaN. */
static int compare(const double *a, const double *b, size_t n, double tol,
                   const char *what) {
  const double scale = fmax(max_abs(b, n), 1e-300);
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    if (isnan(b[i]) || isnan(a[i])) {
      if (isnan(a[i]) != isnan(b[i])) {
        CHECK(0, "%s: NaN mismatch at %zu", what, i);
        return 0;
      }
      continue;
    }
    worst = fmax(worst, fabs(a[i] - b[i]) / scale);
  }
  CHECK(worst <= tol, "%s: max error %.3g of scale (tol %.3g)", what, worst,
        tol);
  return worst <= tol;
}

static void test_vs_reference(fricl_context *ctx, fricl_context *ref,
                              const char *be) {
  static data d;
  static result a, r, a2;
  fill(&d);
  const int is_cl = fricl_context_backend(ctx) == FRICL_BACKEND_OPENCL;
  for (int law = 0; law < FRICL_LAW_COUNT; ++law)
    for (int pe = 0; pe < 2; ++pe)
      for (int step = 0; step < 2; ++step) {
        char what[128];
        snprintf(what, sizeof what, "%s: %s pe=%d step=%d", be,
                 fricl_law_name((fricl_law)law), pe, step);
        CHECK(run(ref, &d, (fricl_law)law, pe, step, FRICL_F64, &r) ==
                  FRICL_STATUS_OK,
              "%s ref: %s", what, fricl_context_last_error(ref));
        if (is_cl && fricl_context_has_fp64(ctx)) {
          CHECK(run(ctx, &d, (fricl_law)law, pe, step, FRICL_F64, &a) ==
                    FRICL_STATUS_OK,
                "%s: %s", what, fricl_context_last_error(ctx));
          if (exact_law((fricl_law)law))
            CHECK(memcmp(&a, &r, sizeof a) == 0, "%s: f64 not bitwise", what);
          else {
            compare(a.force, r.force, N * STEPS, 8 * DBL_EPSILON, what);
            compare(a.st, r.st, N * M, 8 * DBL_EPSILON, what);
            compare(a.ds, r.ds, N * M, 8 * DBL_EPSILON, what);
          }
          /* Determinism: the same call again, bitwise. */
          run(ctx, &d, (fricl_law)law, pe, step, FRICL_F64, &a2);
          CHECK(memcmp(&a, &a2, sizeof a) == 0, "%s: not deterministic", what);
        }
        /* f32 against the f64 reference: documented tolerance 2^-14 of
         * the force scale (GMS: 2^-10, whose stick/slip switch may flip
         * at a rounding tie and whose RK4 sums m rates). */
        if (run(ctx, &d, (fricl_law)law, pe, step, FRICL_F32, &a) !=
            FRICL_STATUS_OK) {
          CHECK(0, "%s f32: %s", what, fricl_context_last_error(ctx));
          continue;
        }
        const double tol = law == FRICL_LAW_GMS ? 0x1p-10 : 0x1p-14;
        compare(a.force, r.force, N * STEPS, tol, what);
        compare(a.st, r.st, N * M, tol, what);
      }
}

/* Trajectories cut into chunks of 7 elements (row-by-row staging on
 * OpenCL) equal one unchunked call, bitwise. */
static void test_chunking(const char *spec, fricl_context *ctx,
                          const char *be) {
  fricl_context *small = test_context(spec, 7, 0);
  if (!small)
    return;
  static data d;
  static result a, r;
  fill(&d);
  if (fricl_context_has_fp64(ctx))
    for (int law = 0; law < FRICL_LAW_COUNT; ++law) {
      run(ctx, &d, (fricl_law)law, 1, 1, FRICL_F64, &r);
      run(small, &d, (fricl_law)law, 1, 1, FRICL_F64, &a);
      CHECK(memcmp(&a, &r, sizeof a) == 0, "%s: %s chunked differs", be,
            fricl_law_name((fricl_law)law));
    }
  fricl_context_destroy(small);
}

/* cl_mem tier: a Maxwell trajectory with the state updated in place, and
 * GMS eval with dz/dt, against the host tier. */
static void test_cl_tier(fricl_context *ctx, const char *be) {
  cl_context cl;
  cl_command_queue q;
  if (fricl_context_get_cl(ctx, &cl, NULL, &q) != FRICL_STATUS_OK ||
      !fricl_context_has_fp64(ctx))
    return;
  static data d;
  static result r;
  fill(&d);
  run(ctx, &d, FRICL_LAW_MAXWELL, 0, 1, FRICL_F64, &r);
  cl_int err;
  const size_t bytes = N * STEPS * sizeof(double);
  cl_mem x = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                            d.x, &err);
  cl_mem nrm = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              bytes, d.nrm, &err);
  cl_mem st = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             N * 2 * sizeof(double), d.st, &err);
  cl_mem f = clCreateBuffer(cl, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
  fricl_law_batch_cl b;
  fricl_law_batch_cl_init(&b, FRICL_LAW_MAXWELL);
  b.param[0] = PARAMS[FRICL_LAW_MAXWELL][0];
  b.param[1] = PARAMS[FRICL_LAW_MAXWELL][1];
  b.n = N;
  b.n_steps = STEPS;
  b.x.mem = x;
  b.normal.mem = nrm;
  b.normal_per_step = 1;
  b.state.mem = st;
  b.state_out.mem = st;
  b.force.mem = f;
  cl_event done = NULL;
  CHECK(fricl_law_step_cl(ctx, &b, 0, NULL, &done) == FRICL_STATUS_OK,
        "%s: step_cl: %s", be, fricl_context_last_error(ctx));
  static double fo[N * STEPS], so[N * 2];
  clEnqueueReadBuffer(q, f, CL_TRUE, 0, bytes, fo, 1, &done, NULL);
  clEnqueueReadBuffer(q, st, CL_TRUE, 0, sizeof so, so, 0, NULL, NULL);
  if (done)
    clReleaseEvent(done);
  CHECK(memcmp(fo, r.force, sizeof fo) == 0 && memcmp(so, r.st, sizeof so) == 0,
        "%s: cl tier != host tier", be);
  /* Invalid on the cl tier: validated before enqueueing. */
  b.param[0] = -1;
  CHECK(fricl_law_step_cl(ctx, &b, 0, NULL, NULL) ==
            FRICL_STATUS_INVALID_ARGUMENT,
        "%s: cl tier validation", be);
  b.param[0] = 1;
  b.n = 0;
  b.n_steps = 1;
  b.normal_per_step = 0;
  done = NULL;
  CHECK(fricl_law_eval_cl(ctx, &b, 0, NULL, &done) == FRICL_STATUS_OK,
        "%s: n = 0 marker: %s", be, fricl_context_last_error(ctx));
  if (done)
    clReleaseEvent(done);
  clReleaseMemObject(x);
  clReleaseMemObject(nrm);
  clReleaseMemObject(st);
  clReleaseMemObject(f);
}

int main(void) {
  test_names();
  test_backend be[TEST_MAX_BACKENDS];
  const int nb = test_backends(be);
  fricl_context *ref = test_context("reference", 0, 0);
  if (!ref)
    return 1;
  {
    fricl_law_batch b;
    fricl_law_batch_init(&b, FRICL_LAW_COULOMB);
    CHECK(fricl_law_eval_cl(ref, NULL, 0, NULL, NULL) ==
              FRICL_STATUS_INVALID_ARGUMENT,
          "cl NULL batch");
  }
  for (int i = 0; i < nb; ++i) {
    fricl_context *ctx = test_context(be[i].spec, 0, 0);
    if (!ctx)
      continue;
    test_invalid(ctx);
    test_vs_reference(ctx, ref, be[i].label);
    test_chunking(be[i].spec, ctx, be[i].label);
    test_cl_tier(ctx, be[i].label);
    fricl_context_destroy(ctx);
  }
  fricl_context_destroy(ref);
  return test_report("test_laws_api");
}
