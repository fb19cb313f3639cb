/*
 * ccd.c - the collision-free step of a linear motion over a candidate set:
 * ipctk 1.6.1's AdditiveCCD per candidate (conservative advancement on the
 * squared distances of kernels/fricl_collision_narrow_math.h, the forms the
 * collision build classifies with) and its point-static-plane test for
 * plane-vertex pairs. The earliest impact is a minimum, so it does not depend
 * on which thread found what; candidates stop once past the earliest impact
 * found so far, which changes how long they run, not what an impacting one
 * returns.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/ccd.h"
#include "core/pool.h"
#include "fricl_collision_narrow_math.h"

/* One candidate's points at t0 and motion, stacked (<= 4 points). */
typedef struct ccd_stencil {
  int type, dim, k;
  double x[12], dx[12];
} ccd_stencil;

/* Squared distance of the stacked points, with ipctk's classification per
 * call (as its distance functions with the automatic type). */
static double stencil_d2(const ccd_stencil *s, const double *x, double ms2) {
  const int n = s->dim;
  switch (s->type) {
  case FRICL_STENCIL_VV:
    return cn_pp(x, x + n, n);
  case FRICL_STENCIL_EV:
    return cn_pe(x, x + n, x + 2 * n, n, -1);
  case FRICL_STENCIL_EE: {
    const double *a0 = x, *a1 = x + 3, *b0 = x + 6, *b1 = x + 9;
    const double d2 = cn_ee(a0, a1, b0, b1, cn_ee_type(a0, a1, b0, b1));
    if (d2 - ms2 > 0)
      return d2;
    /* Nearly parallel edges far apart can give a spurious small line-line
     * distance: ipctk then takes the nearest endpoints. */
    const double e[4] = {cn_pp(a0, b0, 3), cn_pp(a0, b1, 3), cn_pp(a1, b0, 3),
                         cn_pp(a1, b1, 3)};
    double m = e[0];
    for (int i = 1; i < 4; ++i)
      m = e[i] < m ? e[i] : m;
    return m;
  }
  default: /* FV */
    return cn_pt(x, x + 3, x + 6, x + 9, cn_pt_type(x, x + 3, x + 6, x + 9));
  }
}

static double norm2(const double *v, int dim) { return cn_dot(v, v, dim); }

/* The bound on the relative motion: a lone point's (vv: both points') full
 * motion, an edge's or a face's largest vertex motion. */
static double max_motion(const ccd_stencil *s) {
  const int n = s->dim;
  const double *d = s->dx;
  switch (s->type) {
  case FRICL_STENCIL_VV:
    return sqrt(norm2(d, n)) + sqrt(norm2(d + n, n));
  case FRICL_STENCIL_EV: {
    const double a = norm2(d + n, n), b = norm2(d + 2 * n, n);
    return sqrt(norm2(d, n)) + sqrt(a > b ? a : b);
  }
  case FRICL_STENCIL_EE: {
    const double a0 = norm2(d, 3), a1 = norm2(d + 3, 3);
    const double b0 = norm2(d + 6, 3), b1 = norm2(d + 9, 3);
    return sqrt(a0 > a1 ? a0 : a1) + sqrt(b0 > b1 ? b0 : b1);
  }
  default: { /* FV */
    double m = norm2(d + 3, 3);
    for (int i = 2; i <= 3; ++i) {
      const double q = norm2(d + 3 * i, 3);
      m = q > m ? q : m;
    }
    return sqrt(norm2(d, 3)) + sqrt(m);
  }
  }
}

/* AdditiveCCD on one stencil: 1 and *toi on an impact at or before tmax,
 * 0 otherwise. */
static int additive_ccd(ccd_stencil *s, const fricl_ccd_options *o, double tmax,
                        double *toi) {
  const double dmin = o->min_distance, ms2 = dmin * dmin;
  const double eta = o->conservative_rescaling;
  const int n = s->k * s->dim;
  /* The plain distance (no endpoint fallback): past this test it exceeds
   * min_distance, so it is also the advance's starting distance. */
  const double d2 = stencil_d2(s, s->x, -INFINITY);
  if (d2 <= ms2) {
    *toi = 0;
    return 1;
  }
  /* Displacements relative to their mean (the sum in point order, then
   * divided by the point count, as ipctk does). */
  for (int c = 0; c < s->dim; ++c) {
    double mean = 0;
    for (int p = 0; p < s->k; ++p)
      mean += s->dx[p * s->dim + c];
    mean /= (double)s->k;
    for (int p = 0; p < s->k; ++p)
      s->dx[p * s->dim + c] -= mean;
  }
  const double lp = max_motion(s);
  if (lp == 0)
    return 0;
  double d = sqrt(d2), df = d2 - ms2;
  const double gap = (1 - eta) * df / (d + dmin);
  double t = 0;
  for (int64_t i = 0; o->max_iterations < 0 || i < o->max_iterations; ++i) {
    const double step = eta * df / ((d + dmin) * lp);
    for (int j = 0; j < n; ++j)
      s->x[j] += step * s->dx[j];
    const double e2 = stencil_d2(s, s->x, ms2);
    d = sqrt(e2);
    df = e2 - ms2;
    /* !(df > 0): a distance at or below min_distance (or not a number)
     * ends the advance here, at the time reached, rather than stepping
     * backwards or forever. */
    if (!(df > 0) || (t > 0 && df / (d + dmin) < gap))
      break;
    t += step;
    if (t > tmax)
      return 0;
  }
  *toi = t;
  return 1;
}

/* ipctk's point-static-plane test: the times at which the signed distance
 * is +-(1 - rescaling) x the initial distance, the earliest in [0, 1]; one
 * below 1e-6 is replaced by rescaling x the time the plane is reached. */
static int in01(double t) { return 0 <= t && t <= 1; }

static double plane_toi(double d, const double *nrm, double nn,
                        const double *q0, const double *dp, double c, int dim) {
  /* (d |n| + n . (origin - p0)) / n . (p1 - p0), origin = -c n */
  double no = 0, nd = 0;
  for (int i = 0; i < dim; ++i) {
    no += nrm[i] * (-c * nrm[i] - q0[i]);
    nd += nrm[i] * dp[i];
  }
  return (d * sqrt(nn) + no) / nd;
}

static int plane_ccd(const double *p0, const double *p1, const double *nrm,
                     double c, int dim, double eta, double *toi) {
  double nn = 0, dp[3] = {0, 0, 0}, q[3] = {0, 0, 0};
  for (int i = 0; i < dim; ++i) {
    nn += nrm[i] * nrm[i];
    dp[i] = p1[i] - p0[i];
    q[i] = p0[i] + c * nrm[i]; /* p0 - origin */
  }
  const double s = cn_dot(q, nrm, dim);
  const double d0 = sqrt(s * s / nn);
  if (d0 == 0) {
    *toi = 0;
    return 1;
  }
  const double dm = (1.0 - eta) * d0;
  const double ta = plane_toi(dm, nrm, nn, p0, dp, c, dim);
  const double tb = plane_toi(-dm, nrm, nn, p0, dp, c, dim);
  int hit = in01(ta) || in01(tb);
  double t = 0;
  if (in01(ta) && in01(tb))
    t = ta < tb ? ta : tb;
  else if (in01(ta))
    t = ta;
  else if (in01(tb))
    t = tb;
  if (hit && t < 1e-6) {
    t = plane_toi(0, nrm, nn, p0, dp, c, dim);
    hit = in01(t);
    if (hit)
      t *= eta;
  }
  *toi = t;
  return hit;
}

typedef struct ccd_run {
  const fricl_collision_mesh *m;
  const fricl_candidate_set *set;
  const double *x0, *x1;
  const fricl_collisions_options *planes;
  const fricl_ccd_options *o;
  size_t off[FRICL__NTYPES + 1]; /* candidate index of each type's first */
  double *tois;
  _Atomic uint64_t earliest; /* bits of a double >= 0: ordered as integers */
} ccd_run;

static double earliest(ccd_run *r) {
  const uint64_t b = atomic_load_explicit(&r->earliest, memory_order_relaxed);
  double t;
  memcpy(&t, &b, sizeof t);
  return t;
}

static void lower_earliest(ccd_run *r, double t) {
  uint64_t b, old = atomic_load_explicit(&r->earliest, memory_order_relaxed);
  memcpy(&b, &t, sizeof b);
  while (b < old && !atomic_compare_exchange_weak_explicit(
                        &r->earliest, &old, b, memory_order_relaxed,
                        memory_order_relaxed)) {
  }
}

/* Candidate i's stencil: its vertices in ipctk's order (vv: v0, v1; ev:
 * vertex, edge; ee: edge a, edge b; fv: vertex, face). */
static void gather(const ccd_run *r, int type, const int32_t *pair,
                   ccd_stencil *s) {
  const fricl_collision_mesh *m = r->m;
  int32_t v[4];
  s->type = type;
  s->dim = m->dim;
  switch (type) {
  case FRICL_STENCIL_VV:
    s->k = 2, v[0] = pair[0], v[1] = pair[1];
    break;
  case FRICL_STENCIL_EV:
    s->k = 3, v[0] = pair[1], v[1] = m->edges[2 * (size_t)pair[0]],
    v[2] = m->edges[2 * (size_t)pair[0] + 1];
    break;
  case FRICL_STENCIL_EE:
    s->k = 4;
    for (int e = 0; e < 2; ++e)
      for (int j = 0; j < 2; ++j)
        v[2 * e + j] = m->edges[2 * (size_t)pair[e] + j];
    break;
  default: /* FV */
    s->k = 4, v[0] = pair[1];
    for (int j = 0; j < 3; ++j)
      v[1 + j] = m->faces[3 * (size_t)pair[0] + j];
  }
  for (int p = 0; p < s->k; ++p)
    for (int c = 0; c < s->dim; ++c) {
      const size_t at = (size_t)v[p] * (size_t)s->dim + (size_t)c;
      s->x[p * s->dim + c] = r->x0[at];
      s->dx[p * s->dim + c] = r->x1[at] - r->x0[at];
    }
}

static void run_piece(void *arg, size_t lo, size_t hi, unsigned worker) {
  ccd_run *r = (ccd_run *)arg;
  const int dim = r->m->dim;
  (void)worker;
  int type = 0;
  for (size_t i = lo; i < hi; ++i) {
    while (i >= r->off[type + 1])
      ++type;
    const int32_t *pair = r->set->pairs[type].v + 2 * (i - r->off[type]);
    const double tmax = r->tois ? 1.0 : earliest(r);
    double t = INFINITY;
    int hit;
    if (type == FRICL_STENCIL_PV) {
      const size_t v = (size_t)pair[1] * (size_t)dim;
      hit = plane_ccd(r->x0 + v, r->x1 + v,
                      r->planes->plane_normals + (size_t)pair[0] * (size_t)dim,
                      r->planes->plane_offsets[pair[0]], dim,
                      r->o->conservative_rescaling, &t);
    } else {
      ccd_stencil s;
      gather(r, type, pair, &s);
      hit = additive_ccd(&s, r->o, tmax, &t);
    }
    if (!hit || !(t <= 1.0))
      t = INFINITY;
    if (r->tois)
      r->tois[i] = t;
    if (t < tmax)
      lower_earliest(r, t);
  }
}

fricl_status
fricl__ccd_stepsize(fricl_context *ctx, const fricl_collision_mesh *m,
                    const fricl_candidate_set *set, const double *x0,
                    const double *x1, const fricl_collisions_options *planes,
                    const fricl_ccd_options *o, double *step, double *tois) {
  ccd_run r;
  memset(&r, 0, sizeof r);
  r.m = m, r.set = set, r.x0 = x0, r.x1 = x1, r.planes = planes, r.o = o;
  r.tois = tois;
  for (int t = 0; t < FRICL__NTYPES; ++t)
    r.off[t + 1] = r.off[t] + set->pairs[t].n / 2;
  const double one = 1.0;
  uint64_t b;
  memcpy(&b, &one, sizeof b);
  atomic_init(&r.earliest, b);
  fricl__pool_for(ctx->pool, r.off[FRICL__NTYPES], fricl__grain(ctx, 64), 1,
                  run_piece, &r);
  *step = earliest(&r);
  return FRICL_STATUS_OK;
}
