/* bench_lattice.c - see bench_lattice.h. */
#include "bench_lattice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 of a counter: deterministic. */
static double u01(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static double range(uint64_t *st, double a, double b) {
  return a + (b - a) * u01(st);
}

void bench_lattice_free(bench_lattice *s) {
  free(s->X);
  free(s->R);
  free(s->vms);
  free(s->vmk);
  free(s->vel);
  free(s->dir);
  free(s->pn);
  free(s->pc);
  for (int g = 0; g < BENCH_LATTICE_GROUPS; ++g)
    free(s->vx[g]);
  memset(s, 0, sizeof *s);
}

int bench_lattice_make(bench_lattice *s, size_t contacts) {
  memset(s, 0, sizeof *s);
  static const fricl_stencil types[BENCH_LATTICE_GROUPS] = {
      FRICL_STENCIL_FV, FRICL_STENCIL_EE, FRICL_STENCIL_EV, FRICL_STENCIL_PV};
  static const double share[BENCH_LATTICE_GROUPS] = {0.4, 0.3, 0.2, 0.1};
  size_t side = (size_t)ceil(sqrt((double)contacts / 4.0));
  if (side < 4)
    side = 4;
  const size_t layer = side * side;
  s->nv = 2 * layer;
  s->kappa = 100;
  s->dhat = 0.006;
  s->X = malloc(s->nv * 3 * sizeof(double));
  s->R = malloc(s->nv * 3 * sizeof(double));
  s->vms = malloc(s->nv * sizeof(double));
  s->vmk = malloc(s->nv * sizeof(double));
  s->vel = malloc(s->nv * 3 * sizeof(double));
  s->dir = malloc(s->nv * 3 * sizeof(double));
  if (!s->X || !s->R || !s->vms || !s->vmk || !s->vel || !s->dir) {
    bench_lattice_free(s);
    return 1;
  }
  uint64_t st = 0x5EED5EED5EEDull;
  for (size_t v = 0; v < s->nv; ++v) {
    const size_t l = v / layer, i = v % side, j = v % layer / side;
    const double x[3] = {0.01 * (double)i + range(&st, -2e-3, 2e-3),
                         0.01 * (double)j + range(&st, -2e-3, 2e-3),
                         0.004 * (double)l + range(&st, -1e-3, 1e-3)};
    for (int r = 0; r < 3; ++r) {
      s->X[v * 3 + (size_t)r] = x[r];
      s->R[v * 3 + (size_t)r] = x[r] + range(&st, -1e-3, 1e-3);
      s->vel[v * 3 + (size_t)r] = range(&st, -1e-3, 1e-3);
      s->dir[v * 3 + (size_t)r] = range(&st, -1, 1);
    }
    s->vms[v] = range(&st, 0.2, 0.8);
    s->vmk[v] = range(&st, 0.1, 0.6);
  }
  size_t left = contacts;
  for (int g = 0; g < BENCH_LATTICE_GROUPS; ++g) {
    const size_t n = g + 1 < BENCH_LATTICE_GROUPS
                         ? (size_t)((double)contacts * share[g])
                         : left;
    left -= n;
    const size_t k = (size_t)fricl_stencil_vertex_count(types[g]);
    s->type[g] = types[g];
    s->count[g] = n;
    s->total += n;
    s->vx[g] = malloc((n ? n : 1) * k * sizeof(int32_t));
    if (!s->vx[g]) {
      bench_lattice_free(s);
      return 1;
    }
    for (size_t c = 0; c < n; ++c) {
      /* A cell of the bottom layer, swept in contact order (contacts
       * next in the list share vertices, as a collision pass emits
       * them), and the vertices above it. */
      const size_t cells = (side - 1) * (side - 1);
      const size_t cell = (size_t)((double)c / (double)n * (double)cells);
      const size_t i = cell % (side - 1), j = cell / (side - 1);
      const int32_t b = (int32_t)(j * side + i), up = (int32_t)layer;
      const int32_t fv[4] = {b + up, b, b + 1, b + (int32_t)side};
      const int32_t ee[4] = {b, b + 1, b + up, b + up + (int32_t)side};
      for (size_t q = 0; q < k; ++q)
        s->vx[g][c * k + q] = types[g] == FRICL_STENCIL_EE ? ee[q] : fv[q];
    }
  }
  const size_t npv = s->count[BENCH_LATTICE_GROUPS - 1];
  s->pn = malloc((npv ? npv : 1) * 3 * sizeof(double));
  s->pc = malloc((npv ? npv : 1) * sizeof(double));
  if (!s->pn || !s->pc) {
    bench_lattice_free(s);
    return 1;
  }
  for (size_t c = 0; c < npv; ++c) {
    s->pn[c * 3 + 0] = range(&st, -0.2, 0.2);
    s->pn[c * 3 + 1] = range(&st, -0.2, 0.2);
    s->pn[c * 3 + 2] = 1;
    s->pc[c] = -range(&st, -0.005, 0.01);
  }
  return 0;
}

size_t bench_lattice_out_bytes(const bench_lattice *s, int g) {
  const size_t k = (size_t)fricl_stencil_vertex_count(s->type[g]);
  const size_t nb = (size_t)fricl_stencil_coord_count(s->type[g]);
  return (nb + 6 + 1 + 3 * k + 3) * sizeof(double) + 1;
}

void bench_lattice_out_free(bench_lattice_out *o) {
  for (int g = 0; g < BENCH_LATTICE_GROUPS; ++g) {
    free(o->beta[g]);
    free(o->P[g]);
    free(o->N[g]);
    free(o->gN[g]);
    free(o->w[g]);
    free(o->ms[g]);
    free(o->mk[g]);
    free(o->status[g]);
  }
  memset(o, 0, sizeof *o);
}

int bench_lattice_out_alloc(const bench_lattice *s, bench_lattice_out *o) {
  memset(o, 0, sizeof *o);
  for (int g = 0; g < BENCH_LATTICE_GROUPS; ++g) {
    const size_t n = s->count[g] ? s->count[g] : 1;
    const size_t k = (size_t)fricl_stencil_vertex_count(s->type[g]);
    const size_t nb = (size_t)fricl_stencil_coord_count(s->type[g]);
    o->beta[g] = malloc(n * (nb ? nb : 1) * sizeof(double));
    o->P[g] = malloc(n * 6 * sizeof(double));
    o->N[g] = malloc(n * sizeof(double));
    o->gN[g] = malloc(n * 3 * k * sizeof(double));
    o->w[g] = malloc(n * sizeof(double));
    o->ms[g] = malloc(n * sizeof(double));
    o->mk[g] = malloc(n * sizeof(double));
    o->status[g] = malloc(n);
    if (!o->beta[g] || !o->P[g] || !o->N[g] || !o->gN[g] || !o->w[g] ||
        !o->ms[g] || !o->mk[g] || !o->status[g]) {
      bench_lattice_out_free(o);
      return 1;
    }
  }
  return 0;
}

void bench_lattice_build_batch(const bench_lattice *s, bench_lattice_out *o,
                               fricl_build_batch *b, fricl_build_group *g) {
  fricl_build_batch_init(b);
  b->n_vertices = s->nv;
  b->lagged_positions = s->X;
  b->rest_positions = s->R;
  b->kappa = s->kappa;
  b->dhat = s->dhat;
  b->vertex_mu_s = s->vms;
  b->vertex_mu_k = s->vmk;
  b->n_groups = BENCH_LATTICE_GROUPS;
  b->groups = g;
  memset(g, 0, BENCH_LATTICE_GROUPS * sizeof *g);
  for (int i = 0; i < BENCH_LATTICE_GROUPS; ++i) {
    g[i].type = s->type[i];
    g[i].count = s->count[i];
    g[i].vertices = s->vx[i];
    if (s->type[i] == FRICL_STENCIL_PV) {
      g[i].plane_normal = s->pn;
      g[i].plane_offset = s->pc;
    }
    g[i].closest_point = o->beta[i];
    g[i].tangent_basis = o->P[i];
    g[i].normal_force = o->N[i];
    g[i].normal_force_gradient = o->gN[i];
    g[i].weight_out = o->w[i];
    g[i].mu_s_out = o->ms[i];
    g[i].mu_k_out = o->mk[i];
    g[i].status = o->status[i];
  }
}

void bench_lattice_contacts(const bench_lattice *s, const bench_lattice_out *o,
                            fricl_contact_group *g) {
  memset(g, 0, BENCH_LATTICE_GROUPS * sizeof *g);
  for (int i = 0; i < BENCH_LATTICE_GROUPS; ++i) {
    g[i].type = s->type[i];
    g[i].count = s->count[i];
    g[i].vertices = s->vx[i];
    g[i].closest_point =
        fricl_stencil_coord_count(s->type[i]) ? o->beta[i] : NULL;
    g[i].tangent_basis = o->P[i];
    g[i].normal_force = o->N[i];
    g[i].weight = o->w[i];
    g[i].mu_s = o->ms[i];
    g[i].mu_k = o->mk[i];
  }
}
