/*
 * barrier_scene.h - random single-contact configurations for the barrier
 * tests: every stencil in 3-D and 2-D, distances inside the barrier's
 * activation range, and nearly parallel edge pairs (mollified).
 */
#ifndef FRICL_TEST_BARRIER_SCENE_H
#define FRICL_TEST_BARRIER_SCENE_H

#include <math.h>
#include <stdint.h>

static uint64_t bs_state = 0x9e3779b97f4a7c15ull;

static inline double bs_uniform(void) {
  bs_state ^= bs_state << 13;
  bs_state ^= bs_state >> 7;
  bs_state ^= bs_state << 17;
  return (double)(bs_state >> 11) / 9007199254740992.0;
}

static inline double bs_range(double a, double b) {
  return a + (b - a) * bs_uniform();
}

/* Positions x (k dim) of one contact of `type` near the origin, scale 1,
 * with the closest features about `gap` apart; rest positions xr; the
 * plane (pn, pc) of PV. parallel: EE edges nearly parallel now, not at
 * rest. */
static inline void bs_contact(int type, int dim, double gap, int parallel,
                              double *x, double *xr, double *pn, double *pc) {
  const int k = type == 0 ? 2 : type == 1 ? 3 : type == 4 ? 1 : 4;
  for (int i = 0; i < k * dim; ++i)
    x[i] = bs_range(-1, 1);
  if (type == 0) { /* vv: v1 = v0 + gap u */
    for (int s = 0; s < dim; ++s)
      x[dim + s] = x[s] + gap * bs_range(-0.7, 0.7);
  } else if (type == 1) { /* ev: p near the edge */
    const double a = bs_range(-0.2, 1.2);
    for (int s = 0; s < dim; ++s)
      x[s] = x[dim + s] + a * (x[2 * dim + s] - x[dim + s]) +
             gap * bs_range(-0.7, 0.7);
  } else if (type == 2) { /* ee: b crosses near a */
    const double a = bs_range(-0.2, 1.2), bb = bs_range(-0.2, 1.2);
    double pa[3], d[3];
    for (int s = 0; s < 3; ++s) {
      pa[s] = x[s] + a * (x[3 + s] - x[s]);
      d[s] = parallel ? (x[3 + s] - x[s]) * bs_range(0.5, 1.5) +
                            1e-3 * bs_range(-1, 1)
                      : bs_range(-1, 1);
    }
    const double off[3] = {gap * bs_range(-0.7, 0.7), gap * bs_range(-0.7, 0.7),
                           gap * bs_range(-0.7, 0.7)};
    for (int s = 0; s < 3; ++s) {
      x[6 + s] = pa[s] + off[s] - bb * d[s];
      x[9 + s] = pa[s] + off[s] + (1 - bb) * d[s];
    }
  } else if (type == 3) { /* fv: p above the face or near its boundary */
    const double b1 = bs_range(-0.2, 1.0), b2 = bs_range(-0.2, 1.0);
    for (int s = 0; s < 3; ++s)
      x[s] = x[3 + s] + b1 * (x[6 + s] - x[3 + s]) +
             b2 * (x[9 + s] - x[3 + s]) + gap * bs_range(-0.7, 0.7);
  } else { /* pv */
    double nn = 0;
    for (int s = 0; s < dim; ++s) {
      pn[s] = bs_range(-1, 1);
      nn += pn[s] * pn[s];
    }
    double dot = 0;
    for (int s = 0; s < dim; ++s)
      dot += pn[s] * x[s];
    *pc = -dot + gap * sqrt(nn) * bs_range(-0.7, 0.7);
  }
  for (int i = 0; i < k * dim; ++i)
    xr[i] = x[i];
  if (type == 2 && parallel) /* at rest: far from parallel */
    for (int s = 0; s < 3; ++s) {
      xr[6 + s] = x[6 + s] + bs_range(-1, 1);
      xr[9 + s] = x[9 + s] + bs_range(-1, 1);
    }
}

#endif
