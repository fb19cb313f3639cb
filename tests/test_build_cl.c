/*
 * test_build_cl.c - fricl_build_cl, the cl_mem tier of the lagged build,
 * and the device-resident Newton step it enables:
 *   - every output bitwise equal to fricl_build (host tier) on the same
 *     device, f64 and f32, with every buffer at its own offset inside
 *     shared buffers;
 *   - the event contract: nothing runs before the wait list completes, the
 *     done event completes after every output is written, also with no
 *     contacts; done may be NULL;
 *   - validation before anything is enqueued, each message naming the
 *     argument (and group): header, scalars, types, missing buffers, no
 *     output, too-small buffers, overlapping outputs, a buffer of another
 *     OpenCL context, the wait list, contexts without OpenCL;
 *   - a device-resident vertex index out of range: that contact's status is
 *     NONFINITE with N = 0, its neighbours untouched, no crash;
 *   - the device-resident path (build on the device, evaluation on the
 *     build's buffers, only the velocities written and the results read per
 *     iteration) bitwise equal to the host tier (fricl_build then
 *     fricl_tangential_eval on host arrays): total potential, gradient,
 *     BSR Hessian values and H p; fricl moves nothing per iteration there
 *     (fricl_context_transfers), while the host tier moves every
 *     per-contact array; on a context over two devices the host tier
 *     (split) equals the device-resident path (first device).
 * Runs on every OpenCL device (and a two-device list when there is one).
 */
#include "fricl/fricl_cl.h"
#include "test_util.h"

static uint64_t rng_state = 0x0DDB1A5E5BAD5EEDull;
static double urand(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double urange(double a, double b) { return a + (b - a) * urand(); }

#define NG 4
static const fricl_stencil types[NG] = {FRICL_STENCIL_FV, FRICL_STENCIL_EE,
                                        FRICL_STENCIL_EV, FRICL_STENCIL_PV};

/* A 3-D scene on a jittered lattice: neighbouring vertices, so that most
 * contacts are within dhat; per-vertex mu, rest positions. */
typedef struct {
  fricl_precision p;
  size_t esz, nv, count[NG], total;
  void *X, *R, *vms, *vmk, *vel, *dir;
  int32_t *vx[NG];
  void *pn, *pc; /* PV planes */
} scene;

static void put(const scene *s, void *a, size_t i, double v) {
  if (s->p == FRICL_F32)
    ((float *)a)[i] = (float)v;
  else
    ((double *)a)[i] = v;
}

static void *reals(const scene *s, size_t n) {
  return calloc(n ? n : 1, s->esz);
}

static void scene_make(scene *s, fricl_precision p, size_t per_group) {
  memset(s, 0, sizeof *s);
  s->p = p;
  s->esz = p == FRICL_F32 ? 4 : 8;
  const size_t side = 24;
  s->nv = side * side * 2;
  s->X = reals(s, s->nv * 3);
  s->R = reals(s, s->nv * 3);
  s->vms = reals(s, s->nv);
  s->vmk = reals(s, s->nv);
  s->vel = reals(s, s->nv * 3);
  s->dir = reals(s, s->nv * 3);
  for (size_t v = 0; v < s->nv; ++v) {
    const size_t layer = v / (side * side), i = v % side, j = v / side % side;
    const double x[3] = {0.01 * (double)i + urange(-2e-3, 2e-3),
                         0.01 * (double)j + urange(-2e-3, 2e-3),
                         0.004 * (double)layer + urange(-1e-3, 1e-3)};
    for (int r = 0; r < 3; ++r) {
      put(s, s->X, v * 3 + (size_t)r, x[r]);
      put(s, s->R, v * 3 + (size_t)r, x[r] + urange(-1e-3, 1e-3));
      put(s, s->vel, v * 3 + (size_t)r, urange(-1e-3, 1e-3));
      put(s, s->dir, v * 3 + (size_t)r, urange(-1, 1));
    }
    put(s, s->vms, v, urange(0.2, 0.8));
    put(s, s->vmk, v, urange(0.1, 0.6));
  }
  for (int g = 0; g < NG; ++g) {
    const size_t n = per_group + (size_t)g * 37;
    const size_t k = (size_t)fricl_stencil_vertex_count(types[g]);
    s->count[g] = n;
    s->total += n;
    s->vx[g] = malloc(n * k * sizeof(int32_t));
    for (size_t c = 0; c < n; ++c) {
      /* A vertex of the bottom layer and neighbours above it. */
      const size_t i = (size_t)(urand() * (double)(side - 1));
      const size_t j = (size_t)(urand() * (double)(side - 1));
      const int32_t b = (int32_t)(j * side + i), up = (int32_t)(side * side);
      const int32_t cand[4] = {b + up, b, b + 1, b + (int32_t)side};
      const int32_t ee[4] = {b, b + 1, b + up, b + up + (int32_t)side};
      for (size_t q = 0; q < k; ++q)
        s->vx[g][c * k + q] = types[g] == FRICL_STENCIL_EE ? ee[q] : cand[q];
    }
  }
  const size_t npv = s->count[NG - 1];
  s->pn = reals(s, npv * 3);
  s->pc = reals(s, npv);
  for (size_t c = 0; c < npv; ++c) {
    put(s, s->pn, c * 3 + 0, urange(-0.2, 0.2));
    put(s, s->pn, c * 3 + 1, urange(-0.2, 0.2));
    put(s, s->pn, c * 3 + 2, 1);
    put(s, s->pc, c, -urange(-0.005, 0.01));
  }
}

static void scene_free(scene *s) {
  free(s->X);
  free(s->R);
  free(s->vms);
  free(s->vmk);
  free(s->vel);
  free(s->dir);
  free(s->pn);
  free(s->pc);
  for (int g = 0; g < NG; ++g)
    free(s->vx[g]);
}

/* Per group: beta, P, N, dN, w, mu_s, mu_k, status; elements per contact
 * and element size. */
enum { NOUT = 8 };
static void out_shape(const scene *s, int g, size_t *per, size_t *esz) {
  const size_t k = (size_t)fricl_stencil_vertex_count(types[g]);
  const size_t nb = (size_t)fricl_stencil_coord_count(types[g]);
  const size_t p[NOUT] = {nb, 6, 1, k * 3, 1, 1, 1, 1};
  for (int i = 0; i < NOUT; ++i) {
    per[i] = p[i];
    esz[i] = i == NOUT - 1 ? 1 : s->esz;
  }
}

typedef struct {
  void *out[NG][NOUT];
} host_outs;

static void build_batch(const scene *s, fricl_build_batch *b,
                        fricl_build_group *G, host_outs *o) {
  fricl_build_batch_init(b);
  b->precision = s->p;
  b->n_vertices = s->nv;
  b->lagged_positions = s->X;
  b->rest_positions = s->R;
  b->kappa = 100;
  b->dhat = 0.006;
  b->dmin = 0;
  b->vertex_mu_s = s->vms;
  b->vertex_mu_k = s->vmk;
  b->blend = FRICL_BLEND_MIN;
  b->n_groups = NG;
  b->groups = G;
  memset(G, 0, NG * sizeof *G);
  for (int g = 0; g < NG; ++g) {
    size_t per[NOUT], esz[NOUT];
    out_shape(s, g, per, esz);
    for (int i = 0; i < NOUT; ++i)
      o->out[g][i] = per[i] ? calloc(s->count[g] * per[i] + 1, esz[i]) : NULL;
    G[g].type = types[g];
    G[g].count = s->count[g];
    G[g].vertices = s->vx[g];
    if (types[g] == FRICL_STENCIL_PV) {
      G[g].plane_normal = s->pn;
      G[g].plane_offset = s->pc;
    }
    G[g].closest_point = o->out[g][0];
    G[g].tangent_basis = o->out[g][1];
    G[g].normal_force = o->out[g][2];
    G[g].normal_force_gradient = o->out[g][3];
    G[g].weight_out = o->out[g][4];
    G[g].mu_s_out = o->out[g][5];
    G[g].mu_k_out = o->out[g][6];
    G[g].status = o->out[g][7];
  }
}

static void host_outs_free(host_outs *o) {
  for (int g = 0; g < NG; ++g)
    for (int i = 0; i < NOUT; ++i)
      free(o->out[g][i]);
}

/* ---------------------------------------------------- device mirror */

/* Every device array lives at its own offset in one of two big buffers
 * (inputs, outputs), so that offsets are exercised everywhere. */
typedef struct {
  cl_context cc;
  cl_command_queue q;
  cl_mem in, out;
  size_t in_used, out_used; /* bytes */
  fricl_buffer_cl X, R, vms, vmk, vel, dir, vx[NG], pn, pc;
  fricl_buffer_cl o[NG][NOUT];
} mirror;

/* Reserve `n` elements of esz in buffer `which` (0 in, 1 out), aligned to
 * the element plus a gap of 3 elements; returns the element offset. */
static fricl_buffer_cl reserve(mirror *m, int which, size_t n, size_t esz) {
  size_t *used = which ? &m->out_used : &m->in_used;
  const size_t off = (*used + 3 * esz + esz - 1) / esz;
  *used = (off + n) * esz;
  return (fricl_buffer_cl){which ? m->out : m->in, off};
}

static void write_at(mirror *m, fricl_buffer_cl b, const void *src,
                     size_t bytes, size_t esz) {
  if (bytes)
    clEnqueueWriteBuffer(m->q, b.mem, CL_TRUE, b.offset * esz, bytes, src, 0,
                         NULL, NULL);
}

static int mirror_make(mirror *m, fricl_context *ctx, const scene *s) {
  memset(m, 0, sizeof *m);
  if (fricl_context_get_cl(ctx, &m->cc, NULL, &m->q) != FRICL_STATUS_OK)
    return 0;
  const size_t e = s->esz;
  /* Sizes first (a dry run of the layout), then the buffers. */
  size_t in_bytes = 0, out_bytes = 0;
  in_bytes += (s->nv * 3 * 4 + s->nv * 2 + s->count[NG - 1] * 4) * e + 4096;
  for (int g = 0; g < NG; ++g) {
    size_t per[NOUT], esz[NOUT];
    out_shape(s, g, per, esz);
    in_bytes += s->count[g] * 4 * sizeof(int32_t) + 64;
    for (int i = 0; i < NOUT; ++i)
      out_bytes += s->count[g] * per[i] * esz[i] + 64;
  }
  cl_int err;
  m->in = clCreateBuffer(m->cc, CL_MEM_READ_WRITE, in_bytes, NULL, &err);
  m->out = clCreateBuffer(m->cc, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
  if (!m->in || !m->out)
    return 0;
  const size_t nv = s->nv;
  m->X = reserve(m, 0, nv * 3, e);
  write_at(m, m->X, s->X, nv * 3 * e, e);
  m->R = reserve(m, 0, nv * 3, e);
  write_at(m, m->R, s->R, nv * 3 * e, e);
  m->vms = reserve(m, 0, nv, e);
  write_at(m, m->vms, s->vms, nv * e, e);
  m->vmk = reserve(m, 0, nv, e);
  write_at(m, m->vmk, s->vmk, nv * e, e);
  m->vel = reserve(m, 0, nv * 3, e);
  write_at(m, m->vel, s->vel, nv * 3 * e, e);
  m->dir = reserve(m, 0, nv * 3, e);
  write_at(m, m->dir, s->dir, nv * 3 * e, e);
  m->pn = reserve(m, 0, s->count[NG - 1] * 3, e);
  write_at(m, m->pn, s->pn, s->count[NG - 1] * 3 * e, e);
  m->pc = reserve(m, 0, s->count[NG - 1], e);
  write_at(m, m->pc, s->pc, s->count[NG - 1] * e, e);
  for (int g = 0; g < NG; ++g) {
    const size_t k = (size_t)fricl_stencil_vertex_count(types[g]);
    m->vx[g] = reserve(m, 0, s->count[g] * k, sizeof(int32_t));
    write_at(m, m->vx[g], s->vx[g], s->count[g] * k * sizeof(int32_t),
             sizeof(int32_t));
    size_t per[NOUT], esz[NOUT];
    out_shape(s, g, per, esz);
    for (int i = 0; i < NOUT; ++i)
      m->o[g][i] = per[i] ? reserve(m, 1, s->count[g] * per[i], esz[i])
                          : (fricl_buffer_cl){NULL, 0};
  }
  return m->in_used <= in_bytes && m->out_used <= out_bytes;
}

static void mirror_free(mirror *m) {
  if (m->in)
    clReleaseMemObject(m->in);
  if (m->out)
    clReleaseMemObject(m->out);
}

static void build_batch_cl(const scene *s, const mirror *m,
                           fricl_build_batch_cl *b, fricl_build_group_cl *G) {
  fricl_build_batch_cl_init(b);
  b->precision = s->p;
  b->n_vertices = s->nv;
  b->lagged_positions = m->X;
  b->rest_positions = m->R;
  b->kappa = 100;
  b->dhat = 0.006;
  b->dmin = 0;
  b->vertex_mu_s = m->vms;
  b->vertex_mu_k = m->vmk;
  b->blend = FRICL_BLEND_MIN;
  b->n_groups = NG;
  b->groups = G;
  memset(G, 0, NG * sizeof *G);
  for (int g = 0; g < NG; ++g) {
    G[g].type = types[g];
    G[g].count = s->count[g];
    G[g].vertices = m->vx[g];
    if (types[g] == FRICL_STENCIL_PV) {
      G[g].plane_normal = m->pn;
      G[g].plane_offset = m->pc;
    }
    G[g].closest_point = m->o[g][0];
    G[g].tangent_basis = m->o[g][1];
    G[g].normal_force = m->o[g][2];
    G[g].normal_force_gradient = m->o[g][3];
    G[g].weight_out = m->o[g][4];
    G[g].mu_s_out = m->o[g][5];
    G[g].mu_k_out = m->o[g][6];
    G[g].status = m->o[g][7];
  }
}

/* Device output (g, i) equal to the host array? */
static int same_out(const scene *s, mirror *m, int g, int i, const void *h) {
  size_t per[NOUT], esz[NOUT];
  out_shape(s, g, per, esz);
  const size_t bytes = s->count[g] * per[i] * esz[i];
  if (!bytes)
    return 1;
  void *d = malloc(bytes);
  clEnqueueReadBuffer(m->q, m->o[g][i].mem, CL_TRUE, m->o[g][i].offset * esz[i],
                      bytes, d, 0, NULL, NULL);
  const int eq = memcmp(d, h, bytes) == 0;
  free(d);
  return eq;
}

/* ------------------------------------------------------- equality */

static void test_equal(fricl_context *ctx, const char *label,
                       fricl_precision p) {
  scene s;
  scene_make(&s, p, 700);
  fricl_build_batch hb;
  fricl_build_group hg[NG];
  host_outs ho;
  build_batch(&s, &hb, hg, &ho);
  fricl_build_report rep;
  fricl_build_report_init(&rep);
  hb.report = &rep;
  CHECK(fricl_build(ctx, &hb) == FRICL_STATUS_OK, "%s host: %s", label,
        fricl_context_last_error(ctx));
  CHECK(rep.count[FRICL_BUILD_OK] > rep.total / 4 && rep.no_force > 0,
        "%s: scene has %zu ok of %zu", label, rep.count[FRICL_BUILD_OK],
        rep.total);
  mirror m;
  CHECK(mirror_make(&m, ctx, &s), "%s: device buffers", label);
  fricl_build_batch_cl db;
  fricl_build_group_cl dg[NG];
  build_batch_cl(&s, &m, &db, dg);
  cl_event done = NULL;
  CHECK(fricl_build_cl(ctx, &db, 0, NULL, &done) == FRICL_STATUS_OK,
        "%s cl: %s", label, fricl_context_last_error(ctx));
  CHECK(done && clWaitForEvents(1, &done) == CL_SUCCESS, "%s: done", label);
  if (done)
    clReleaseEvent(done);
  static const char *const what[NOUT] = {
      "closest_point", "tangent_basis", "normal_force", "normal_force_gradient",
      "weight_out",    "mu_s_out",      "mu_k_out",     "status"};
  for (int g = 0; g < NG; ++g)
    for (int i = 0; i < NOUT; ++i)
      CHECK(same_out(&s, &m, g, i, ho.out[g][i]),
            "%s %s: group %d (%s) %s differs from the host tier", label,
            p == FRICL_F32 ? "f32" : "f64", g, fricl_stencil_name(types[g]),
            what[i]);
  mirror_free(&m);
  host_outs_free(&ho);
  scene_free(&s);
}

/* ------------------------------------------------------ event contract */

static void test_events(fricl_context *ctx, const char *label) {
  scene s;
  scene_make(&s, FRICL_F64, 300);
  mirror m;
  CHECK(mirror_make(&m, ctx, &s), "%s: device buffers", label);
  fricl_build_batch_cl db;
  fricl_build_group_cl dg[NG];
  build_batch_cl(&s, &m, &db, dg);
  cl_int err;
  cl_event gate = clCreateUserEvent(m.cc, &err);
  cl_event done = NULL;
  CHECK(fricl_build_cl(ctx, &db, 1, &gate, &done) == FRICL_STATUS_OK,
        "%s gated: %s", label, fricl_context_last_error(ctx));
  /* Give the device time: it must still wait for the gate. */
  for (volatile int spin = 0; spin < 20000000; ++spin)
    ;
  cl_int state = CL_COMPLETE;
  clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                 NULL);
  CHECK(state != CL_COMPLETE, "%s: done before its wait list", label);
  clSetUserEventStatus(gate, CL_COMPLETE);
  CHECK(clWaitForEvents(1, &done) == CL_SUCCESS, "%s: done after the gate",
        label);
  clReleaseEvent(done);
  clReleaseEvent(gate);
  /* No contacts: the event still follows the wait list. */
  gate = clCreateUserEvent(m.cc, &err);
  fricl_build_group_cl empty[NG];
  memcpy(empty, dg, sizeof empty);
  for (int g = 0; g < NG; ++g)
    empty[g].count = 0;
  db.groups = empty;
  done = NULL;
  CHECK(fricl_build_cl(ctx, &db, 1, &gate, &done) == FRICL_STATUS_OK,
        "%s empty: %s", label, fricl_context_last_error(ctx));
  state = CL_COMPLETE;
  clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                 NULL);
  CHECK(state != CL_COMPLETE, "%s: empty done before its wait list", label);
  clSetUserEventStatus(gate, CL_COMPLETE);
  CHECK(clWaitForEvents(1, &done) == CL_SUCCESS, "%s: empty done", label);
  clReleaseEvent(done);
  clReleaseEvent(gate);
  /* done may be NULL; zero groups. */
  db.groups = dg;
  CHECK(fricl_build_cl(ctx, &db, 0, NULL, NULL) == FRICL_STATUS_OK,
        "%s no event: %s", label, fricl_context_last_error(ctx));
  db.n_groups = 0;
  db.groups = NULL;
  CHECK(fricl_build_cl(ctx, &db, 0, NULL, NULL) == FRICL_STATUS_OK,
        "%s no groups: %s", label, fricl_context_last_error(ctx));
  clFinish(m.q);
  mirror_free(&m);
  scene_free(&s);
}

/* A vertex index out of range in device memory: NONFINITE, no crash. */
static void test_bad_index(fricl_context *ctx, const char *label) {
  scene s;
  scene_make(&s, FRICL_F64, 200);
  s.vx[0][5 * 4 + 2] = (int32_t)s.nv + 7; /* FV contact 5 */
  s.vx[0][9 * 4 + 0] = -3;                /* FV contact 9 */
  mirror m;
  CHECK(mirror_make(&m, ctx, &s), "%s: device buffers", label);
  fricl_build_batch_cl db;
  fricl_build_group_cl dg[NG];
  build_batch_cl(&s, &m, &db, dg);
  CHECK(fricl_build_cl(ctx, &db, 0, NULL, NULL) == FRICL_STATUS_OK,
        "%s bad index: %s", label, fricl_context_last_error(ctx));
  uint8_t st[200];
  double N[200];
  clEnqueueReadBuffer(m.q, m.o[0][7].mem, CL_TRUE, m.o[0][7].offset, 200, st, 0,
                      NULL, NULL);
  clEnqueueReadBuffer(m.q, m.o[0][2].mem, CL_TRUE, m.o[0][2].offset * 8,
                      200 * 8, N, 0, NULL, NULL);
  CHECK(st[5] == FRICL_BUILD_NONFINITE && st[9] == FRICL_BUILD_NONFINITE,
        "%s: statuses %d %d for bad indices", label, st[5], st[9]);
  CHECK(N[5] == 0 && N[9] == 0, "%s: N %g %g for bad indices", label, N[5],
        N[9]);
  int others = 0;
  for (int c = 0; c < 200; ++c)
    others += c != 5 && c != 9 && st[c] == FRICL_BUILD_NONFINITE;
  CHECK(others == 0, "%s: %d other contacts NONFINITE", label, others);
  mirror_free(&m);
  scene_free(&s);
}

/* ---------------------------------------------------------- validation */

static void expect(fricl_context *ctx, const fricl_build_batch_cl *b,
                   cl_uint nw, const cl_event *wl, fricl_status want,
                   const char *needle, const char *label) {
  cl_event done = NULL;
  const fricl_status st = fricl_build_cl(ctx, b, nw, wl, &done);
  CHECK(st == want, "%s: %s: status %s, expected %s (%s)", label, needle,
        fricl_status_string(st), fricl_status_string(want),
        fricl_context_last_error(ctx));
  CHECK(strstr(fricl_context_last_error(ctx), needle) != NULL,
        "%s: message \"%s\" lacks \"%s\"", label, fricl_context_last_error(ctx),
        needle);
  CHECK(done == NULL, "%s: %s: an event was returned", label, needle);
  if (done)
    clReleaseEvent(done);
}

static void test_validation(fricl_context *ctx, const char *label) {
  scene s;
  scene_make(&s, FRICL_F64, 50);
  mirror m;
  CHECK(mirror_make(&m, ctx, &s), "%s: device buffers", label);
  fricl_build_batch_cl b0, b;
  fricl_build_group_cl g0[NG], g[NG];
  build_batch_cl(&s, &m, &b0, g0);
#define RESET()                                                                \
  do {                                                                         \
    b = b0;                                                                    \
    memcpy(g, g0, sizeof g);                                                   \
    b.groups = g;                                                              \
  } while (0)
  const fricl_status INV = FRICL_STATUS_INVALID_ARGUMENT;
  CHECK(fricl_build_cl(ctx, NULL, 0, NULL, NULL) == INV, "NULL batch");
  CHECK(fricl_build_cl(NULL, &b0, 0, NULL, NULL) == INV, "NULL ctx");
  RESET();
  b.struct_size = 8;
  expect(ctx, &b, 0, NULL, INV, "fricl_build_batch_cl_init", label);
  RESET();
  b.dim = 4;
  expect(ctx, &b, 0, NULL, INV, "batch.dim = 4", label);
  RESET();
  b.flags = 0x10;
  expect(ctx, &b, 0, NULL, INV, "batch.flags", label);
  RESET();
  b.blend = (fricl_mu_blend)9;
  expect(ctx, &b, 0, NULL, INV, "batch.blend", label);
  RESET();
  b.dhat = 0;
  expect(ctx, &b, 0, NULL, INV, "batch.dhat", label);
  RESET();
  b.kappa = NAN;
  expect(ctx, &b, 0, NULL, INV, "batch.kappa", label);
  RESET();
  b.mu_k = -1;
  expect(ctx, &b, 0, NULL, INV, "batch.mu_k", label);
  RESET();
  b.precision = (fricl_precision)7;
  expect(ctx, &b, 0, NULL, INV, "precision", label);
  RESET();
  b.n_vertices = (size_t)INT32_MAX + 1;
  expect(ctx, &b, 0, NULL, INV, "batch.n_vertices", label);
  RESET();
  b.groups = NULL;
  expect(ctx, &b, 0, NULL, INV, "batch.groups is NULL", label);
  RESET();
  g[1].type = (fricl_stencil)42;
  expect(ctx, &b, 0, NULL, INV, "groups[1].type = 42", label);
  RESET();
  b.dim = 2;
  expect(ctx, &b, 0, NULL, INV, "groups[0] (fv) exists only in 3-D", label);
  RESET();
  g[2].vertices.mem = NULL;
  expect(ctx, &b, 0, NULL, INV, "groups[2] (ev): vertices.mem is NULL", label);
  RESET();
  g[3].plane_offset.mem = NULL;
  expect(ctx, &b, 0, NULL, INV, "groups[3] (pv): plane_offset.mem", label);
  RESET();
  b.lagged_positions.mem = NULL;
  expect(ctx, &b, 0, NULL, INV, "batch.lagged_positions.mem is NULL", label);
  RESET();
  for (int k = 0; k < NG; ++k) {
    fricl_buffer_cl *o = &g[k].closest_point;
    for (int i = 0; i < NOUT; ++i)
      o[i].mem = NULL;
  }
  expect(ctx, &b, 0, NULL, INV, "no output requested", label);
  RESET();
  g[1].normal_force.offset = (size_t)1 << 40;
  expect(ctx, &b, 0, NULL, INV, "groups[1].normal_force: offset", label);
  RESET();
  b.lagged_positions.offset = m.in_used; /* runs past the end */
  expect(ctx, &b, 0, NULL, INV, "batch.lagged_positions: offset", label);
  RESET();
  g[0].normal_force = g[0].tangent_basis; /* output over output */
  expect(ctx, &b, 0, NULL, INV, "overlaps output", label);
  RESET();
  g[2].mu_s_out = m.X; /* output over input */
  expect(ctx, &b, 0, NULL, INV, "output groups[2].mu_s_out overlaps input",
         label);
  expect(ctx, &b0, 1, NULL, INV, "wait_list is NULL", label);
  /* A buffer of another OpenCL context. */
  cl_device_id dev = NULL;
  fricl_context_get_cl(ctx, NULL, &dev, NULL);
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  cl_mem foreign =
      clCreateBuffer(other, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);
  RESET();
  g[1].status = (fricl_buffer_cl){foreign, 0};
  expect(ctx, &b, 0, NULL, INV, "groups[1].status.mem belongs to another",
         label);
  clReleaseMemObject(foreign);
  clReleaseContext(other);
  /* f64 on a context that forbids it. */
  fricl_context_params p;
  fricl_context_params_init(&p);
  fricl_context_device dv;
  size_t nd = 0;
  fricl_context_devices(ctx, &dv, 1, &nd);
  char spec[32];
  snprintf(spec, sizeof spec, "opencl:%d:%d", dv.platform_index,
           dv.device_index);
  p.device = spec;
  p.flags = FRICL_CONTEXT_FLAG_NO_FP64;
  fricl_context *nofp = NULL;
  if (fricl_context_create(&nofp, &p) == FRICL_STATUS_OK) {
    fricl_build_batch_cl e;
    fricl_build_batch_cl_init(&e);
    CHECK(fricl_build_cl(nofp, &e, 0, NULL, NULL) == FRICL_STATUS_NO_FP64,
          "%s: NO_FP64 flag", label);
    fricl_context_destroy(nofp);
  }
  mirror_free(&m);
  scene_free(&s);
#undef RESET
}

/* ------------------------------------------------ device-resident step */

typedef struct {
  double pot;
  float pot32;
  void *grad, *prod, *hess;
  size_t hbytes;
} step_outs;

/* The host tier: fricl_build on host arrays, then the evaluation on the
 * build's host outputs. */
static void host_step(fricl_context *ctx, const scene *s,
                      fricl_tangential_plan **plan, step_outs *o) {
  fricl_build_batch hb;
  fricl_build_group hg[NG];
  host_outs ho;
  build_batch(s, &hb, hg, &ho);
  CHECK(fricl_build(ctx, &hb) == FRICL_STATUS_OK, "host build: %s",
        fricl_context_last_error(ctx));
  fricl_contact_group G[NG];
  memset(G, 0, sizeof G);
  for (int g = 0; g < NG; ++g) {
    G[g].type = types[g];
    G[g].count = s->count[g];
    G[g].vertices = s->vx[g];
    G[g].closest_point = ho.out[g][0];
    G[g].tangent_basis = ho.out[g][1];
    G[g].normal_force = ho.out[g][2];
    G[g].weight = ho.out[g][4];
    G[g].mu_s = ho.out[g][5];
    G[g].mu_k = ho.out[g][6];
  }
  if (!*plan)
    CHECK(fricl_tangential_plan_create(ctx, 3, s->nv, NG, G, plan) ==
              FRICL_STATUS_OK,
          "plan: %s", fricl_context_last_error(ctx));
  size_t nnz = 0;
  fricl_tangential_plan_bsr(*plan, NULL, &nnz, NULL, NULL);
  o->hbytes = nnz * 9 * s->esz;
  o->grad = calloc(s->nv * 3, s->esz);
  o->prod = calloc(s->nv * 3, s->esz);
  o->hess = calloc(nnz * 9 + 1, s->esz);
  fricl_tangential_batch b;
  fricl_tangential_batch_init(&b);
  b.precision = s->p;
  b.psd = FRICL_PSD_CLAMP;
  b.n_vertices = s->nv;
  b.velocities = s->vel;
  b.eps_v = 1e-3;
  b.n_groups = NG;
  b.groups = G;
  b.plan = *plan;
  b.potential = s->p == FRICL_F32 ? (void *)&o->pot32 : (void *)&o->pot;
  b.gradient = o->grad;
  b.direction = s->dir;
  b.hessian_product = o->prod;
  b.hessian_values = o->hess;
  CHECK(fricl_tangential_eval(ctx, &b) == FRICL_STATUS_OK, "host eval: %s",
        fricl_context_last_error(ctx));
  host_outs_free(&ho);
}

/* The device-resident path: build on the device, evaluation on the build's
 * buffers; per iteration the velocities are written and the results read.
 * *moved: bytes fricl itself moved during the iterations. */
static void device_step(fricl_context *ctx, const scene *s,
                        fricl_tangential_plan *plan, int iterations,
                        step_outs *o, uint64_t *moved) {
  mirror m;
  CHECK(mirror_make(&m, ctx, s), "device buffers");
  fricl_build_batch_cl db;
  fricl_build_group_cl dg[NG];
  build_batch_cl(s, &m, &db, dg);
  cl_event built = NULL;
  CHECK(fricl_build_cl(ctx, &db, 0, NULL, &built) == FRICL_STATUS_OK,
        "device build: %s", fricl_context_last_error(ctx));
  size_t nnz = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  const size_t e = s->esz, vb = s->nv * 3 * e;
  o->hbytes = nnz * 9 * e;
  o->grad = calloc(s->nv * 3, e);
  o->prod = calloc(s->nv * 3, e);
  o->hess = calloc(nnz * 9 + 1, e);
  cl_int err;
  cl_mem res = clCreateBuffer(m.cc, CL_MEM_READ_WRITE,
                              2 * vb + o->hbytes + 64 * e, NULL, &err);
  fricl_contact_group_cl G[NG];
  memset(G, 0, sizeof G);
  for (int g = 0; g < NG; ++g) {
    G[g].type = types[g];
    G[g].count = s->count[g];
    G[g].vertices = m.vx[g];
    G[g].closest_point = m.o[g][0];
    G[g].tangent_basis = m.o[g][1];
    G[g].normal_force = m.o[g][2];
    G[g].weight = m.o[g][4];
    G[g].mu_s = m.o[g][5];
    G[g].mu_k = m.o[g][6];
  }
  fricl_tangential_batch_cl b;
  fricl_tangential_batch_cl_init(&b);
  b.precision = s->p;
  b.psd = FRICL_PSD_CLAMP;
  b.n_vertices = s->nv;
  b.velocities = m.vel;
  b.eps_v = 1e-3;
  b.n_groups = NG;
  b.groups = G;
  b.plan = plan;
  b.direction = m.dir;
  b.potential = (fricl_buffer_cl){res, 1};
  b.gradient = (fricl_buffer_cl){res, 8};
  b.hessian_product = (fricl_buffer_cl){res, 8 + s->nv * 3 + 5};
  b.hessian_values = (fricl_buffer_cl){res, 16 + 2 * s->nv * 3};
  uint64_t in0 = 0, out0 = 0, in1 = 0, out1 = 0;
  for (int it = 0; it < iterations; ++it) {
    if (it == 1)
      fricl_context_transfers(ctx, &in0, &out0); /* after the plan upload */
    write_at(&m, m.vel, s->vel, vb, e);
    cl_event done = NULL;
    CHECK(fricl_tangential_eval_cl(ctx, &b, it == 0 ? 1 : 0,
                                   it == 0 ? &built : NULL,
                                   &done) == FRICL_STATUS_OK,
          "device eval: %s", fricl_context_last_error(ctx));
    void *pot = s->p == FRICL_F32 ? (void *)&o->pot32 : (void *)&o->pot;
    clEnqueueReadBuffer(m.q, res, CL_FALSE, e, e, pot, 1, &done, NULL);
    clEnqueueReadBuffer(m.q, res, CL_FALSE, 8 * e, vb, o->grad, 1, &done, NULL);
    clEnqueueReadBuffer(m.q, res, CL_FALSE, (8 + s->nv * 3 + 5) * e, vb,
                        o->prod, 1, &done, NULL);
    clEnqueueReadBuffer(m.q, res, CL_TRUE, (16 + 2 * s->nv * 3) * e, o->hbytes,
                        o->hess, 1, &done, NULL);
    clReleaseEvent(done);
  }
  fricl_context_transfers(ctx, &in1, &out1);
  *moved = (in1 - in0) + (out1 - out0);
  clReleaseEvent(built);
  clReleaseMemObject(res);
  mirror_free(&m);
}

static void step_free(step_outs *o) {
  free(o->grad);
  free(o->prod);
  free(o->hess);
}

static void step_compare(const char *label, const scene *s, const step_outs *a,
                         const step_outs *b) {
  const size_t vb = s->nv * 3 * s->esz;
  CHECK(s->p == FRICL_F32 ? memcmp(&a->pot32, &b->pot32, 4) == 0
                          : memcmp(&a->pot, &b->pot, 8) == 0,
        "%s: potential %.17g vs %.17g", label,
        s->p == FRICL_F32 ? (double)a->pot32 : a->pot,
        s->p == FRICL_F32 ? (double)b->pot32 : b->pot);
  CHECK(memcmp(a->grad, b->grad, vb) == 0, "%s: gradient differs", label);
  CHECK(memcmp(a->prod, b->prod, vb) == 0, "%s: H p differs", label);
  CHECK(a->hbytes == b->hbytes && memcmp(a->hess, b->hess, a->hbytes) == 0,
        "%s: Hessian values differ", label);
}

static void test_resident(fricl_context *ctx, const char *label,
                          fricl_precision p) {
  scene s;
  scene_make(&s, p, 1500);
  fricl_tangential_plan *plan = NULL;
  step_outs h, d;
  uint64_t in0, out0, in1, out1;
  fricl_context_transfers(ctx, &in0, &out0);
  host_step(ctx, &s, &plan, &h);
  fricl_context_transfers(ctx, &in1, &out1);
  const uint64_t host_moved = (in1 - in0) + (out1 - out0);
  uint64_t dev_moved = 1;
  device_step(ctx, &s, plan, 3, &d, &dev_moved);
  char lab[128];
  snprintf(lab, sizeof lab, "%s device-resident %s", label,
           p == FRICL_F32 ? "f32" : "f64");
  step_compare(lab, &s, &h, &d);
  /* The host tier moves at least every per-contact input of the build and
   * the evaluation; the device-resident iterations move nothing through
   * fricl. */
  CHECK(host_moved > s.total * 6 * s.esz, "%s: host tier moved %llu bytes", lab,
        (unsigned long long)host_moved);
  CHECK(dev_moved == 0, "%s: fricl moved %llu bytes per resident iterations",
        lab, (unsigned long long)dev_moved);
  step_free(&h);
  step_free(&d);
  fricl_tangential_plan_destroy(plan);
  scene_free(&s);
}

/* On a context over two devices the host tier is split; the cl_mem tier
 * runs on the first device: the same bits. */
static void test_resident_multi(const char *list) {
  fricl_context *two = test_context(list, 0, 0);
  if (!two)
    return;
  scene s;
  scene_make(&s, FRICL_F64, 1500);
  fricl_tangential_plan *plan = NULL;
  step_outs h, d;
  uint64_t moved = 0;
  host_step(two, &s, &plan, &h);
  device_step(two, &s, plan, 2, &d, &moved);
  step_compare("two devices, host tier vs device-resident", &s, &h, &d);
  step_free(&h);
  step_free(&d);
  fricl_tangential_plan_destroy(plan);
  scene_free(&s);
  fricl_context_destroy(two);
}

int main(void) {
  /* Without OpenCL: UNSUPPORTED, naming the entry point. */
  fricl_context *host = test_context("host", 0, 0);
  fricl_build_batch_cl e;
  fricl_build_batch_cl_init(&e);
  CHECK(host &&
            fricl_build_cl(host, &e, 0, NULL, NULL) ==
                FRICL_STATUS_UNSUPPORTED &&
            strstr(fricl_context_last_error(host), "fricl_build_cl"),
        "host context: %s", host ? fricl_context_last_error(host) : "");
  fricl_context_destroy(host);
  fricl_device_info inf[8];
  size_t n = 0;
  fricl_devices_list(inf, 8, &n);
  if (n > 8)
    n = 8;
  if (!n)
    fprintf(stderr, "*** NOTE: no OpenCL device: only the UNSUPPORTED case is "
                    "tested ***\n");
  for (size_t i = 0; i < n; ++i) {
    char spec[32];
    snprintf(spec, sizeof spec, "opencl:%d:%d", inf[i].platform_index,
             inf[i].device_index);
    fricl_context *ctx = test_context(spec, 0, 0);
    if (!ctx)
      continue;
    printf("device %s (%s)\n", spec, inf[i].device_name);
    if (inf[i].has_fp64) {
      test_equal(ctx, spec, FRICL_F64);
      test_events(ctx, spec);
      test_bad_index(ctx, spec);
      test_validation(ctx, spec);
      test_resident(ctx, spec, FRICL_F64);
    } else {
      fprintf(stderr, "*** NOTE: %s has no fp64: f32 only ***\n", spec);
    }
    test_equal(ctx, spec, FRICL_F32);
    test_resident(ctx, spec, FRICL_F32);
    fricl_context_destroy(ctx);
    /* A list of this device and the next of the same platform. */
    if (inf[i].has_fp64 && i + 1 < n &&
        inf[i + 1].platform_index == inf[i].platform_index &&
        strcmp(inf[i].device_name, inf[i + 1].device_name) == 0) {
      char list[64];
      snprintf(list, sizeof list, "%s,opencl:%d:%d", spec,
               inf[i + 1].platform_index, inf[i + 1].device_index);
      test_resident_multi(list);
    }
  }
  return test_report("test_build_cl");
}
