/* bench_scene.c - see bench_scene.h. */
#include "bench_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[BENCH_EVAL_MODE_COUNT] = {
    "value",
    "value+grad",
    "+local hessian",
    "+factored hessian",
    "+global assembly",
    "matrix-free H p",
    "local hessian only",
    "factored only"};

const char *bench_eval_mode_name(bench_eval_mode m) {
  return (unsigned)m < BENCH_EVAL_MODE_COUNT ? mode_names[m] : "?";
}

/* xorshift64*, restarted for every scene so that a scene depends only on
 * its type and size. */
typedef struct {
  uint64_t s;
} rng_t;

static double urand(rng_t *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return (double)((r->s * 2685821657736338717ull) >> 11) * 0x1p-53;
}

static float *to_float(const double *x, size_t n) {
  float *y = malloc((n ? n : 1) * sizeof *y);
  if (y)
    for (size_t i = 0; i < n; ++i)
      y[i] = (float)x[i];
  return y;
}

void bench_scene_free(bench_scene *s) {
  free(s->vx), free(s->beta), free(s->P), free(s->N), free(s->w);
  free(s->ms), free(s->mk), free(s->vel), free(s->dir);
  free(s->fbeta), free(s->fP), free(s->fN), free(s->fw), free(s->fms);
  free(s->fmk), free(s->fvel), free(s->fdir);
  memset(s, 0, sizeof *s);
}

/* Vertex ids of contact c: FV and EE on the two sheets, PV its own. */
static void stencil_vertices(const bench_scene *s, size_t c, size_t g1,
                             int32_t *v) {
  if (s->type == FRICL_STENCIL_PV) {
    v[0] = (int32_t)c;
    return;
  }
  const size_t G = g1 + 1, sheet = G * G;
  const size_t cell = c / 2, half = c % 2;
  const size_t i = cell / g1, j = cell % g1;
  const size_t a = i * G + j, b = sheet + i * G + j;
  if (s->type == FRICL_STENCIL_FV) {
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
}

int bench_scene_make(bench_scene *s, fricl_stencil type, size_t count,
                     double e) {
  memset(s, 0, sizeof *s);
  rng_t rng = {0x2545F4914F6CDD1Dull};
  s->type = type;
  s->count = count;
  const size_t k = (size_t)fricl_stencil_vertex_count(type);
  size_t g1 = (size_t)ceil(sqrt((double)((count + 1) / 2)));
  if (g1 < 1)
    g1 = 1;
  s->nv = type == FRICL_STENCIL_PV ? count : 2 * (g1 + 1) * (g1 + 1);
  s->vx = malloc(count * k * sizeof *s->vx + 1);
  s->beta = malloc(count * 2 * sizeof *s->beta + 1);
  s->P = malloc(count * 6 * sizeof *s->P + 1);
  s->N = malloc(count * sizeof *s->N + 1);
  s->w = malloc(count * sizeof *s->w + 1);
  s->ms = malloc(count * sizeof *s->ms + 1);
  s->mk = malloc(count * sizeof *s->mk + 1);
  s->vel = malloc(s->nv * 3 * sizeof *s->vel + 1);
  s->dir = malloc(s->nv * 3 * sizeof *s->dir + 1);
  if (!s->vx || !s->beta || !s->P || !s->N || !s->w || !s->ms || !s->mk ||
      !s->vel || !s->dir)
    goto oom;
  for (size_t c = 0; c < count; ++c) {
    stencil_vertices(s, c, g1, s->vx + c * k);
    s->beta[2 * c] = urand(&rng);
    s->beta[2 * c + 1] = urand(&rng) * (1 - s->beta[2 * c]);
    /* A tangent basis of a slightly tilted plane. */
    const double t = 0.2 * (urand(&rng) - 0.5), ct = cos(t), st = sin(t);
    const double p[6] = {ct, 0, 0, 1, -st, 0};
    memcpy(s->P + 6 * c, p, sizeof p);
    s->N[c] = 0.1 + 10 * urand(&rng);
    s->w[c] = 1;
    s->ms[c] = 0.2 + 0.6 * urand(&rng);
    s->mk[c] = 0.1 + 0.5 * urand(&rng);
  }
  for (size_t i = 0; i < s->nv * 3; ++i) {
    s->vel[i] = (urand(&rng) - 0.5) * 2 * e;
    s->dir[i] = urand(&rng) - 0.5;
  }
  s->fbeta = to_float(s->beta, count * 2);
  s->fP = to_float(s->P, count * 6);
  s->fN = to_float(s->N, count);
  s->fw = to_float(s->w, count);
  s->fms = to_float(s->ms, count);
  s->fmk = to_float(s->mk, count);
  s->fvel = to_float(s->vel, s->nv * 3);
  s->fdir = to_float(s->dir, s->nv * 3);
  if (!s->fbeta || !s->fP || !s->fN || !s->fw || !s->fms || !s->fmk ||
      !s->fvel || !s->fdir)
    goto oom;
  return 0;
oom:
  fprintf(stderr, "fricl bench: out of memory for a %zu-contact scene\n",
          count);
  bench_scene_free(s);
  return 1;
}

int bench_scene_plan(const bench_scene *s, fricl_context *ctx,
                     fricl_tangential_plan **plan) {
  fricl_contact_group topo;
  memset(&topo, 0, sizeof topo);
  topo.type = s->type;
  topo.count = s->count;
  topo.vertices = s->vx;
  const fricl_status st =
      fricl_tangential_plan_create(ctx, 3, s->nv, 1, &topo, plan);
  if (st != FRICL_STATUS_OK) {
    fprintf(stderr, "fricl bench: plan: %s: %s\n", fricl_status_string(st),
            fricl_context_last_error(ctx));
    *plan = NULL;
    return 1;
  }
  return 0;
}

void bench_eval_free(bench_eval *r) {
  free(r->pot), free(r->grad), free(r->prod), free(r->hess);
  free(r->loc), free(r->gam), free(r->q), free(r->S);
  memset(r, 0, sizeof *r);
}

void bench_eval_borrow(bench_eval *dst, const bench_eval *src,
                       fricl_context *ctx, const fricl_tangential_plan *plan) {
  *dst = *src;
  dst->ctx = ctx;
  dst->b.groups = &dst->G;
  if (dst->b.plan)
    dst->b.plan = plan;
  dst->pot = dst->grad = dst->prod = dst->hess = NULL;
  dst->loc = dst->gam = dst->q = dst->S = NULL;
}

int bench_eval_setup(bench_eval *r, fricl_context *ctx, const bench_scene *s,
                     fricl_precision p, bench_eval_mode md,
                     const fricl_tangential_plan *plan, double e) {
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  const int f = p == FRICL_F32;
  const size_t esz = f ? 4 : 8, n = s->count, nvd = s->nv * 3;
  const size_t k = (size_t)fricl_stencil_vertex_count(s->type);
  const size_t ndof = 3 * k;
  fricl_contact_group *G = &r->G;
  G->type = s->type;
  G->count = n;
  G->vertices = s->vx;
  G->closest_point = fricl_stencil_coord_count(s->type) == 0 ? NULL
                     : f ? (const void *)s->fbeta
                         : (const void *)s->beta;
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
  const int only =
      md == BENCH_EVAL_LOCAL_ONLY || md == BENCH_EVAL_FACTORED_ONLY;
  if (md != BENCH_EVAL_PRODUCT && !only) {
    bad |= !(r->pot = malloc(esz));
    b->potential = r->pot;
  }
  if (md >= BENCH_EVAL_GRAD && md != BENCH_EVAL_PRODUCT && !only) {
    bad |= !(r->grad = malloc(nvd * esz + 1));
    b->gradient = r->grad;
    b->plan = plan; /* a solver reuses its plan across evaluations */
  }
  if (md == BENCH_EVAL_LOCAL || md == BENCH_EVAL_LOCAL_ONLY) {
    bad |= !(r->loc = malloc(n * ndof * ndof * esz + 1));
    G->local_hessian = r->loc;
  }
  if (md == BENCH_EVAL_FACTORED || md == BENCH_EVAL_FACTORED_ONLY) {
    bad |= !(r->gam = malloc(n * k * esz + 1)) ||
           !(r->q = malloc(n * 3 * esz + 1)) ||
           !(r->S = malloc(n * 6 * esz + 1));
    G->factored_gamma = r->gam;
    G->factored_grad = r->q;
    G->factored_hessian = r->S;
  }
  if (md == BENCH_EVAL_GLOBAL) {
    size_t nnz = 0;
    fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
    bad |= !(r->hess = malloc(nnz * 9 * esz + 1));
    b->hessian_values = r->hess;
    b->plan = plan;
  }
  if (md == BENCH_EVAL_PRODUCT) {
    bad |= !(r->prod = malloc(nvd * esz + 1));
    b->direction = f ? (const void *)s->fdir : (const void *)s->dir;
    b->hessian_product = r->prod;
    b->plan = plan;
  }
  if (bad) {
    fprintf(stderr, "fricl bench: out of memory for the contact outputs\n");
    bench_eval_free(r);
  }
  return bad;
}

int bench_eval_run(void *arg, int count) {
  bench_eval *r = arg;
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

double bench_eval_bytes(const bench_scene *s, fricl_precision p,
                        bench_eval_mode md, size_t nnz) {
  const double esz = p == FRICL_F64 ? 8 : 4, n = (double)s->count;
  const double k = fricl_stencil_vertex_count(s->type);
  const double nb = fricl_stencil_coord_count(s->type);
  const double nvd = (double)s->nv * 3;
  /* vertex ids, beta, P, N, w, mu_s, mu_k; velocities */
  double b = n * (k * 4 + (nb + 6 + 4) * esz) + nvd * esz;
  if (md == BENCH_EVAL_GRAD || md == BENCH_EVAL_LOCAL ||
      md == BENCH_EVAL_FACTORED || md == BENCH_EVAL_GLOBAL)
    b += nvd * esz;
  if (md == BENCH_EVAL_LOCAL || md == BENCH_EVAL_LOCAL_ONLY)
    b += n * (3 * k) * (3 * k) * esz;
  if (md == BENCH_EVAL_FACTORED || md == BENCH_EVAL_FACTORED_ONLY)
    b += n * (k + 3 + 6) * esz;
  if (md == BENCH_EVAL_GLOBAL)
    b += (double)nnz * 9 * esz;
  if (md == BENCH_EVAL_PRODUCT)
    b += 2 * nvd * esz;
  return b;
}
