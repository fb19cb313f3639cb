/*
 * tangential_scene.h - random contact data for the tangential tests:
 * orthonormal tangent bases, closest-point coordinates, lagged scalars,
 * and an independent evaluation of the tangential velocity (written from
 * the spec's definitions, not from the library's math header).
 */
#ifndef FRICL_TANGENTIAL_SCENE_H
#define FRICL_TANGENTIAL_SCENE_H

#include "test_util.h"

/* Deterministic uniform [0, 1) (xorshift64*). */
static uint64_t scene_rng = 0x9E3779B97F4A7C15ull;
static inline double urand(void) {
  scene_rng ^= scene_rng >> 12;
  scene_rng ^= scene_rng << 25;
  scene_rng ^= scene_rng >> 27;
  return (double)((scene_rng * 2685821657736338717ull) >> 11) * 0x1p-53;
}
static inline double urange(double a, double b) {
  return a + (b - a) * urand();
}

/* Up to 64 contacts of one group, data in double. */
#define SCENE_MAX 64
typedef struct {
  fricl_stencil type;
  int dim, k, nb;
  size_t count;
  int32_t vx[SCENE_MAX * 4];
  double beta[SCENE_MAX * 2];
  double P[SCENE_MAX * 6];
  double normal[SCENE_MAX * 3]; /* unit normal of the tangent space */
  double N[SCENE_MAX], w[SCENE_MAX], ms[SCENE_MAX], mk[SCENE_MAX];
  double a[SCENE_MAX * 2];
} scene_group;

/* A random orthonormal basis P (dim x m) and the normal completing it. */
static inline void random_basis(int dim, double *P, double *n) {
  if (dim == 2) {
    const double t = urange(0, 6.283185307179586);
    P[0] = cos(t);
    P[1] = sin(t);
    n[0] = -P[1];
    n[1] = P[0];
    return;
  }
  double u[3], v[3];
  for (;;) {
    for (int i = 0; i < 3; ++i)
      u[i] = urange(-1, 1);
    const double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (l < 0.2)
      continue;
    for (int i = 0; i < 3; ++i)
      u[i] /= l;
    break;
  }
  for (;;) {
    for (int i = 0; i < 3; ++i)
      v[i] = urange(-1, 1);
    const double d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    for (int i = 0; i < 3; ++i)
      v[i] -= d * u[i];
    const double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l < 0.2)
      continue;
    for (int i = 0; i < 3; ++i)
      v[i] /= l;
    break;
  }
  for (int r = 0; r < 3; ++r) {
    P[r * 2 + 0] = u[r];
    P[r * 2 + 1] = v[r];
  }
  n[0] = u[1] * v[2] - u[2] * v[1];
  n[1] = u[2] * v[0] - u[0] * v[2];
  n[2] = u[0] * v[1] - u[1] * v[0];
}

/* Gamma from beta, straight from the spec's table 4.2. */
static inline void spec_gamma(fricl_stencil t, const double *b, double *g) {
  switch (t) {
  case FRICL_STENCIL_VV:
    g[0] = 1, g[1] = -1;
    break;
  case FRICL_STENCIL_EV:
    g[0] = 1, g[1] = b[0] - 1, g[2] = -b[0];
    break;
  case FRICL_STENCIL_EE:
    g[0] = 1 - b[0], g[1] = b[0], g[2] = b[1] - 1, g[3] = -b[1];
    break;
  case FRICL_STENCIL_FV:
    g[0] = 1, g[1] = b[0] + b[1] - 1, g[2] = -b[0], g[3] = -b[1];
    break;
  default:
    g[0] = 1;
  }
}

/* y = |a (.) P^T sum_i gamma_i v_i| of contact c. */
static inline double spec_y(const scene_group *s, size_t c, const double *v) {
  double g[4], u[3] = {0, 0, 0}, y2 = 0;
  spec_gamma(s->type, s->beta + c * 2, g);
  for (int i = 0; i < s->k; ++i)
    for (int r = 0; r < s->dim; ++r)
      u[r] += g[i] * v[s->vx[c * 4 + i] * s->dim + r];
  for (int col = 0; col < s->dim - 1; ++col) {
    double t = 0;
    for (int r = 0; r < s->dim; ++r)
      t += s->P[c * 6 + r * (s->dim - 1) + col] * u[r];
    t *= s->a[c * 2 + col];
    y2 += t * t;
  }
  return sqrt(y2);
}

/* Fill a group with random lagged data; vertex ids from [0, nv). */
static inline void scene_random(scene_group *s, fricl_stencil type, int dim,
                                size_t count, int nv, int aniso) {
  memset(s, 0, sizeof *s);
  s->type = type;
  s->dim = dim;
  s->k = fricl_stencil_vertex_count(type);
  s->nb = fricl_stencil_coord_count(type);
  s->count = count;
  for (size_t c = 0; c < count; ++c) {
    /* Distinct vertices within a contact. */
    for (int i = 0; i < s->k; ++i) {
      int v, dup;
      do {
        v = (int)(urand() * nv);
        dup = 0;
        for (int j = 0; j < i; ++j)
          dup |= s->vx[c * 4 + j] == v;
      } while (dup);
      s->vx[c * 4 + i] = v;
    }
    for (int i = 0; i < 2; ++i)
      s->beta[c * 2 + i] = urange(-0.2, 1.2);
    random_basis(dim, s->P + c * 6, s->normal + c * 3);
    s->N[c] = urange(0.5, 2.0);
    s->w[c] = urange(0.5, 1.5);
    s->ms[c] = urange(0.1, 0.8);
    s->mk[c] = urange(0.1, 0.8);
    for (int i = 0; i < 2; ++i)
      s->a[c * 2 + i] = aniso ? urange(0.5, 1.5) : 1.0;
  }
}

/* Point a fricl_contact_group at the scene's arrays (outputs cleared). */
static inline fricl_contact_group
scene_view(const scene_group *s, int32_t *vx_packed, double *beta_packed,
           double *P_packed, double *a_packed, int aniso) {
  fricl_contact_group G;
  memset(&G, 0, sizeof G);
  const int m = s->dim - 1;
  for (size_t c = 0; c < s->count; ++c) {
    for (int i = 0; i < s->k; ++i)
      vx_packed[c * (size_t)s->k + (size_t)i] = s->vx[c * 4 + i];
    for (int i = 0; i < s->nb; ++i)
      beta_packed[c * (size_t)s->nb + (size_t)i] = s->beta[c * 2 + i];
    for (int i = 0; i < s->dim * m; ++i)
      P_packed[c * (size_t)(s->dim * m) + (size_t)i] = s->P[c * 6 + i];
    for (int i = 0; i < m; ++i)
      a_packed[c * (size_t)m + (size_t)i] = s->a[c * 2 + i];
  }
  G.type = s->type;
  G.count = s->count;
  G.vertices = vx_packed;
  G.closest_point = s->nb ? beta_packed : NULL;
  G.tangent_basis = P_packed;
  G.normal_force = s->N;
  G.weight = s->w;
  G.mu_s = s->ms;
  G.mu_k = s->mk;
  G.mu_aniso = aniso ? a_packed : NULL;
  return G;
}

#endif
