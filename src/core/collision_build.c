/* collision_build.c - the normal collision set of a mesh at positions, by
 * ipctk 1.6.1's NormalCollisions::build rules (docs/collisions.md): the
 * static candidates of radius (dhat + dmin) / 2, each classified by its
 * distance type and kept when d^2 < (dhat + dmin)^2, reduced to the
 * closest features (vv, ev, ee, fv) with ipctk's weights; with the
 * improved max approximator the signed corrections at shared vertices and
 * edges; then equal collisions merged (weights summed) and zero weights
 * dropped. Every candidate yields records on its thread; the records are
 * sorted by ids (stable, so the sums run in candidate order) and merged,
 * so the set is the same whatever the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/collisions.h"
#include "core/pool.h"
#include "fricl_collision_narrow_math.h"

enum { VV = 0, EV = 1, EE = 2, FV = 3, PV = 4 };

/* One collision before merging: its type, ids (vv: v0 < v1, ev: edge,
 * vertex, ee: the two edges in the order it was made in, fv: face,
 * vertex), ee distance type (in the ids' order) and threshold, and
 * weight. */
typedef struct rec {
  int32_t a, b;
  int8_t type, dtype;
  double w, eps;
} rec;

typedef struct recs {
  rec *v;
  size_t n, cap;
  int oom;
} recs;

static void put(recs *r, int type, int32_t a, int32_t b, int dtype, double w,
                double eps) {
  if (r->n == r->cap) {
    rec *v = (rec *)fricl__grow(r->v, &r->cap, r->n + 1, sizeof *v, 256);
    if (!v) {
      r->oom = 1;
      return;
    }
    r->v = v;
  }
  if (type == VV && a > b) {
    const int32_t t = a;
    a = b;
    b = t;
  }
  rec *x = &r->v[r->n++];
  x->a = a;
  x->b = b;
  x->type = (int8_t)type;
  x->dtype = (int8_t)dtype;
  x->w = w;
  x->eps = eps;
}

/* An edge-edge collision in the edge order it was made in, its distance
 * type relative to that order. As in ipctk, two of them are the same
 * collision when they join the same two edges (in either order) with the
 * same stored type; the first one made keeps its order. */
static void put_ee(recs *r, int32_t ea, int32_t eb, int dtype, double w,
                   double eps) {
  put(r, EE, ea, eb, dtype, w, eps);
}

/* The build's buffers, kept on the context between calls (calls on a
 * context are serialised) as the broad phase keeps its own: capacities
 * kept, lists emptied on entry, so that a build like the previous one
 * touches no fresh pages. */
typedef struct scratch {
  unsigned pieces;     /* per-piece lists: broad phase slots */
  recs *prec[4];       /* per type and piece: the records */
  fricl__ivec *act[4]; /* per type and piece: the active pairs */
  recs all;            /* every record, in order */
  fricl__ivec active[4], derived;
  uint64_t *key; /* merge: 2 (n + 1) keys and payloads */
  uint32_t *val;
  size_t kcap;
} scratch;

static void scratch_free(void *p) {
  scratch *w = (scratch *)p;
  for (int t = 0; t < 4; ++t) {
    for (unsigned i = 0; i < w->pieces; ++i) {
      free(w->prec[t] ? w->prec[t][i].v : NULL);
      free(w->act[t] ? w->act[t][i].v : NULL);
    }
    free(w->prec[t]);
    free(w->act[t]);
    free(w->active[t].v);
  }
  free(w->all.v);
  free(w->derived.v);
  free(w->key);
  free(w->val);
  free(w);
}

/* The context's scratch with `pieces` lists per type, all empty (NULL
 * when out of memory). */
static scratch *scratch_of(fricl_context *ctx, unsigned pieces) {
  struct fricl__scratch *c = &ctx->scratch[FRICL__SCRATCH_COLLISIONS];
  scratch *w = (scratch *)c->p;
  if (w && w->pieces != pieces) { /* not for a context's fixed threads */
    scratch_free(w);
    c->p = w = NULL;
  }
  if (!w) {
    w = (scratch *)calloc(1, sizeof *w);
    if (!w)
      return NULL;
    c->p = w;
    c->free = scratch_free;
    w->pieces = pieces;
    for (int t = 0; t < 4; ++t) {
      w->prec[t] = (recs *)calloc(pieces, sizeof(recs));
      w->act[t] = (fricl__ivec *)calloc(pieces, sizeof(fricl__ivec));
      if (!w->prec[t] || !w->act[t]) {
        scratch_free(w);
        c->p = NULL;
        return NULL;
      }
    }
  }
  for (int t = 0; t < 4; ++t) {
    for (unsigned i = 0; i < pieces; ++i) {
      w->prec[t][i].n = 0;
      w->prec[t][i].oom = 0;
      w->act[t][i].n = 0;
    }
    w->active[t].n = 0;
  }
  w->all.n = 0;
  w->all.oom = 0;
  w->derived.n = 0;
  return w;
}

typedef struct build {
  fricl_context *ctx;
  const fricl_collision_mesh *m;
  const double *x;
  double active; /* (dhat + dmin)^2 */
  double apart;  /* active with the separating axes' margin */
  int area;      /* use_area_weighting */
  const fricl_candidate_set *cand;
  const fricl__ivec *list; /* the pair list of the current pass */
  void (*each)(struct build *, recs *, const int32_t *pair);
  recs *out; /* per piece */
  /* Fused with the broad phase: per type and piece, the records and the
   * active pairs (those that made a collision). */
  unsigned pieces;
  recs *prec[4];
  fricl__ivec *act[4];
} build;

static const double *X(const build *b, int32_t v) {
  return b->x + (size_t)v * (size_t)b->m->dim;
}

static int32_t edge_v(const fricl_collision_mesh *m, int32_t e, int j) {
  return m->edges[2 * (size_t)e + j];
}

/* An edge-vertex collision of known point-edge type: vv at an end point,
 * else ev. */
static void put_pe(const build *b, recs *r, int32_t e, int32_t v, int type,
                   double w) {
  if (type < 2)
    put(r, VV, v, edge_v(b->m, e, type), -1, w, 0);
  else
    put(r, EV, e, v, -1, w, 0);
}

/* ------------------------------------------------------- regular pairs */

/* The broad phase's pairs: p the ids, va and vb their elements' vertices
 * (fricl__pair_fn), and t the candidate's distance type from its narrow
 * phase (kernels/fricl_collision_narrow_math.h; >= 0: active). */
static void each_vv(build *b, recs *r, const int32_t *p, const int32_t *va,
                    const int32_t *vb, int t) {
  (void)va;
  (void)vb;
  (void)t;
  const double *A = b->m->vertex_area;
  put(r, VV, p[0], p[1], -1, b->area ? 0.5 * (A[p[0]] + A[p[1]]) : 1, 0);
}

static void each_ev(build *b, recs *r, const int32_t *p, const int32_t *va,
                    const int32_t *vb, int t) {
  (void)va;
  (void)vb;
  put_pe(b, r, p[0], p[1], t, b->area ? 0.5 * b->m->vertex_area[p[1]] : 1);
}

static void each_ee(build *b, recs *r, const int32_t *p, const int32_t *va,
                    const int32_t *vb, int t) {
  const fricl_collision_mesh *m = b->m;
  const int32_t ea = p[0], eb = p[1];
  const int32_t i[4] = {va[0], va[1], vb[0], vb[1]};
  const double *a0 = X(b, i[0]), *a1 = X(b, i[1]), *b0 = X(b, i[2]),
               *b1 = X(b, i[3]);
  const double *R = m->rest;
  const double eps = cn_eps_x(R + 3 * (size_t)i[0], R + 3 * (size_t)i[1],
                              R + 3 * (size_t)i[2], R + 3 * (size_t)i[3]);
  const double w = b->area ? 0.25 * (m->edge_area[ea] + m->edge_area[eb]) : 1;
  /* Nearly parallel edges stay edge-edge whatever their type: the
   * mollifier needs the whole stencil. */
  if (cn_ee_cross2(a0, a1, b0, b1) < eps || t == 8) {
    put_ee(r, ea, eb, t, w, eps);
    return;
  }
  if (t < 4)
    put(r, VV, i[t >> 1], i[2 + (t & 1)], -1, w, 0);
  else if (t < 6)
    put(r, EV, ea, i[2 + (t - 4)], -1, w, 0);
  else
    put(r, EV, eb, i[t - 6], -1, w, 0);
}

static void each_fv(build *b, recs *r, const int32_t *p, const int32_t *va,
                    const int32_t *vb, int type) {
  const fricl_collision_mesh *m = b->m;
  const int32_t f = p[0], v = p[1];
  const int32_t *t = va; /* the face's vertices, in the mesh's order */
  (void)vb;
  const double w = b->area ? 0.25 * m->vertex_area[v] : 1;
  if (type < 3)
    put(r, VV, v, t[type], -1, w, 0);
  else if (type < 6)
    put(r, EV, m->face_edges[3 * (size_t)f + type - 3], v, -1, w, 0);
  else
    put(r, FV, f, v, -1, w, 0);
}

/* A candidate's narrow phase on the host (positions x, n x dim). */
static int narrow_at(const double *x, int dim, double act, double apart,
                     int type, int32_t a, int32_t c, const int32_t *va,
                     const int32_t *vc) {
#define PT(v) (x + (size_t)(v) * (size_t)dim)
  switch (type) {
  case VV:
    return cn_narrow_vv(PT(a), PT(c), dim, act);
  case EV:
    return cn_narrow_ev(PT(c), PT(va[0]), PT(va[1]), dim, act);
  case EE:
    return cn_narrow_ee(PT(va[0]), PT(va[1]), PT(vc[0]), PT(vc[1]), act, apart);
  default:
    return cn_narrow_fv(PT(c), PT(va[0]), PT(va[1]), PT(va[2]), act, apart);
  }
#undef PT
}

static int narrow(const build *b, int type, int32_t a, int32_t c,
                  const int32_t *va, const int32_t *vc) {
  return narrow_at(b->x, b->m->dim, b->active, b->apart, type, a, c, va, vc);
}

/* The vertices of candidate (a, c) of `type` as the broad phase hands
 * them over: a's element (edge or face) and, for ee, c's edge. */
static const int32_t *cand_va(const fricl_collision_mesh *m, int type,
                              int32_t a) {
  return type == FV   ? m->faces + 3 * (size_t)a
         : type != VV ? m->edges + 2 * (size_t)a
                      : NULL;
}

static const int32_t *cand_vc(const fricl_collision_mesh *m, int type,
                              int32_t c) {
  return type == EE ? m->edges + 2 * (size_t)c : NULL;
}

/* fricl__collisions_narrow_host over the candidates [lo, hi) of all
 * types in a row. */
typedef struct narrow_host {
  const fricl__narrow_work *w;
  const fricl_collision_mesh *m;
} narrow_host;

static void narrow_piece(void *arg, size_t lo, size_t hi, unsigned piece) {
  const narrow_host *h = (const narrow_host *)arg;
  const fricl__narrow_work *w = h->w;
  (void)piece;
  size_t first = 0;
  for (int t = 0; t < 4; first += w->n[t], ++t)
    for (size_t i = lo > first ? lo - first : 0; i < w->n[t] && first + i < hi;
         ++i) {
      const int32_t a = w->pairs[t][2 * i], c = w->pairs[t][2 * i + 1];
      w->type[t][i] =
          (int8_t)narrow_at(w->x, w->dim, w->active, w->apart, t, a, c,
                            cand_va(h->m, t, a), cand_vc(h->m, t, c));
    }
}

fricl_status fricl__collisions_narrow_host(fricl_context *ctx,
                                           const fricl__narrow_work *w) {
  const narrow_host h = {w, w->mesh};
  if (w->total)
    fricl__pool_for(ctx->pool, w->total, fricl__grain(ctx, 1024), 1,
                    narrow_piece, (void *)&h);
  return FRICL_STATUS_OK;
}

/* ------------------------------------- the improved max approximator */

static int sorted_has(const fricl__adj *adj, int32_t list, int32_t x) {
  size_t lo = adj->off[list];
  FRICL__LOWER_BOUND(adj->idx, lo, adj->off[list + 1], x);
  return lo < adj->off[list + 1] && adj->idx[lo] == x;
}

static size_t adj_len(const fricl__adj *adj, int32_t i) {
  return adj->off[i + 1] - adj->off[i];
}

/* vv from edge-vertex: minus (incident edges - 1) at each end. */
static void each_ev_neg_vv(build *b, recs *r, const int32_t *p) {
  const fricl_collision_mesh *m = b->m;
  double w = 0;
  for (int s = 0; s < 2; ++s) {
    const int32_t vi = p[s], vj = p[1 - s];
    const size_t amt = adj_len(&m->vv, vj) - (size_t)sorted_has(&m->vv, vj, vi);
    if (amt > 1)
      w += (1.0 - (double)amt) * (b->area ? 0.5 * m->vertex_area[vi] : 1);
  }
  if (w != 0)
    put(r, VV, p[0], p[1], -1, w, 0);
}

/* vv from face-vertex: plus one for each interior end not adjacent. */
static void each_fv_pos_vv(build *b, recs *r, const int32_t *p) {
  const fricl_collision_mesh *m = b->m;
  double w = 0;
  for (int s = 0; s < 2; ++s) {
    const int32_t vi = p[s], vj = p[1 - s];
    if (m->on_boundary[vj] || sorted_has(&m->vv, vj, vi))
      continue;
    w += b->area ? 0.25 * m->vertex_area[vi] : 1;
  }
  if (w != 0)
    put(r, VV, p[0], p[1], -1, w, 0);
}

/* ev from face-vertex: minus (incident faces - 1) along the edge. */
static void each_fv_neg_ev(build *b, recs *r, const int32_t *p) {
  const fricl_collision_mesh *m = b->m;
  const int32_t e = p[0], v = p[1];
  const size_t amt = adj_len(&m->ev, e) - (size_t)sorted_has(&m->ev, e, v);
  if (amt <= 1)
    return;
  const double w =
      (1.0 - (double)amt) * (b->area ? 0.25 * m->vertex_area[v] : 1);
  const int t =
      cn_pe_type(X(b, v), X(b, edge_v(m, e, 0)), X(b, edge_v(m, e, 1)), 3);
  put_pe(b, r, e, v, t, w);
}

/* ev from edge-edge: the mollified edge-edge pairs of the vertex's edges
 * get the negative weight themselves; the others count. */
static void each_ee_neg_ev(build *b, recs *r, const int32_t *p) {
  const fricl_collision_mesh *m = b->m;
  const int32_t ea = p[0], v = p[1];
  const int32_t a0 = edge_v(m, ea, 0), a1 = edge_v(m, ea, 1);
  const double w = b->area ? -0.25 * m->edge_area[ea] : -1;
  const int t = cn_pe_type(X(b, v), X(b, a0), X(b, a1), 3);
  const double *R = m->rest;
  double count = 0;
  for (size_t k = m->ve.off[v]; k < m->ve.off[v + 1]; ++k) {
    const int32_t eb = m->ve.idx[k];
    const int32_t b0 = edge_v(m, eb, 0), b1 = edge_v(m, eb, 1);
    const int32_t q = v == b0 ? b1 : b0;
    if (q == a0 || q == a1)
      continue;
    const double eps = cn_eps_x(R + 3 * (size_t)a0, R + 3 * (size_t)a1,
                                R + 3 * (size_t)b0, R + 3 * (size_t)b1);
    if (cn_ee_cross2(X(b, a0), X(b, a1), X(b, b0), X(b, b1)) >= eps) {
      count += 1;
      continue;
    }
    /* The point-edge type as an edge-edge type of (ea, eb). */
    const int dt = t == 0 ? (v == b0 ? 0 : 1)
                          : (t == 1 ? (v == b0 ? 2 : 3) : (v == b0 ? 4 : 5));
    put_ee(r, ea, eb, dt, w, eps);
  }
  if (count == 1)
    return;
  put_pe(b, r, ea, v, t, (count - 1) * w);
}

/* ------------------------------------------------------------- passes */

static void (*const each_of[4])(build *, recs *, const int32_t *,
                                const int32_t *, const int32_t *,
                                int) = {each_vv, each_ev, each_ee, each_fv};

/* An active candidate's records, and the pair among the active ones. */
static void emit(build *b, recs *r, fricl__ivec *act, int type, int32_t a,
                 int32_t c, const int32_t *va, const int32_t *vc, int t) {
  const size_t before = r->n;
  const int32_t pair[2] = {a, c};
  each_of[type](b, r, pair, va, vc, t);
  if (r->n != before && !fricl__ivec_push2(act, a, c))
    r->oom = 1;
}

/* The broad phase's pairs, classified where they are found. */
static void visit(void *user, unsigned slot, int type, int32_t a, int32_t c,
                  const int32_t *va, const int32_t *vc) {
  build *b = (build *)user;
  const int t = narrow(b, type, a, c, va, vc);
  if (t >= 0)
    emit(b, &b->prec[type][slot], &b->act[type][slot], type, a, c, va, vc, t);
}

/* The broad phase's pairs, only collected (per type and slot, in the
 * lists of the active pairs), for a narrow phase after the broad phase. */
static void collect(void *user, unsigned slot, int type, int32_t a, int32_t c,
                    const int32_t *va, const int32_t *vc) {
  build *b = (build *)user;
  (void)va;
  (void)vc;
  if (!fricl__ivec_push2(&b->act[type][slot], a, c))
    b->prec[type][slot].oom = 1;
}

static int append_recs(recs *all, const recs *o) {
  if (o->oom)
    return 0;
  if (!o->n)
    return 1;
  if (all->n + o->n > all->cap) {
    rec *v =
        (rec *)fricl__grow(all->v, &all->cap, all->n + o->n, sizeof *v, 256);
    if (!v)
      return 0;
    all->v = v;
  }
  memcpy(all->v + all->n, o->v, o->n * sizeof *o->v);
  all->n += o->n;
  return 1;
}

static int append_pairs(fricl__ivec *all, const fricl__ivec *o) {
  if (!o->n)
    return 1;
  if (!fricl__ivec_reserve(all, all->n + o->n))
    return 0;
  memcpy(all->v + all->n, o->v, o->n * sizeof *o->v);
  all->n += o->n;
  return 1;
}

/* The narrow phase after the broad phase (collect): the collected pairs
 * of each type in the order the fused build classifies them (its slots in
 * order), classified by `run`, then turned into records in that order
 * (in piece 0), so that the records and the active pairs are the fused
 * build's. */
static fricl_status narrow_after(build *b, scratch *ws, fricl__narrow_fn run,
                                 void *user) {
  fricl_context *ctx = b->ctx;
  const fricl_collision_mesh *m = b->m;
  fricl__narrow_work nw;
  memset(&nw, 0, sizeof nw);
  nw.mesh = m;
  nw.dim = m->dim;
  nw.x = b->x;
  nw.active = b->active;
  nw.apart = b->apart;
  int ok = 1;
  for (int t = 0; t < 4; ++t) {
    fricl__ivec *c = &ws->active[t];
    c->n = 0;
    for (unsigned p = 0; p < b->pieces; ++p) {
      ok = ok && !b->prec[t][p].oom && append_pairs(c, &b->act[t][p]);
      b->act[t][p].n = 0;
    }
    nw.n[t] = c->n / 2;
    nw.pairs[t] = c->v;
    nw.total += nw.n[t];
  }
  int8_t *ty = ok ? (int8_t *)malloc(nw.total ? nw.total : 1) : NULL;
  if (!ty)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "collisions: out of memory");
  for (int t = 0; t < 4; ++t)
    nw.type[t] = t ? nw.type[t - 1] + nw.n[t - 1] : ty;
  fricl_status st = run(user, &nw);
  for (int t = 0; st == FRICL_STATUS_OK && t < 4; ++t) {
    recs *r = &b->prec[t][0];
    fricl__ivec *act = &b->act[t][0];
    for (size_t i = 0; i < nw.n[t] && !r->oom; ++i)
      if (nw.type[t][i] >= 0) {
        const int32_t a = nw.pairs[t][2 * i], c = nw.pairs[t][2 * i + 1];
        emit(b, r, act, t, a, c, cand_va(m, t, a), cand_vc(m, t, c),
             nw.type[t][i]);
      }
    ws->active[t].n = 0;
  }
  free(ty);
  return st;
}

static void run_piece(void *arg, size_t lo, size_t hi, unsigned piece) {
  build *b = (build *)arg;
  recs *r = &b->out[piece];
  for (size_t i = lo; i < hi && !r->oom; ++i)
    b->each(b, r, b->list->v + 2 * i);
}

/* Run `each` over the pairs of `list`, appending the records to `all` in
 * pair order. */
static int pass(build *b, const fricl__ivec *list,
                void (*each)(build *, recs *, const int32_t *), recs *all) {
  const size_t n = list->n / 2;
  if (!n)
    return 1;
  const unsigned T = fricl__pool_threads(b->ctx->pool);
  b->out = (recs *)calloc(T, sizeof *b->out);
  if (!b->out)
    return 0;
  b->list = list;
  b->each = each;
  fricl__pool_for(b->ctx->pool, n, fricl__grain(b->ctx, 1024), 1, run_piece, b);
  int ok = 1;
  for (unsigned t = 0; t < T; ++t) {
    ok = ok && append_recs(all, &b->out[t]);
    free(b->out[t].v);
  }
  free(b->out);
  b->out = NULL;
  return ok;
}

/* The derived candidates of the improved max approximator: for each pair
 * of `src` (element, vertex) and each sub-element, the pairs whose
 * distance is active; unique. kind 0: vertex-vertex from edges (k = 2) or
 * faces (k = 3); kind 1: edge-vertex from faces; kind 2: edge-vertex from
 * edge-edge. */
static int derive(const build *b, const fricl__ivec *src, int kind, int k,
                  fricl__ivec *dst) {
  const fricl_collision_mesh *m = b->m;
  const int dim = m->dim;
  dst->n = 0;
  for (size_t i = 0; i + 1 < src->n; i += 2) {
    const int32_t el = src->v[i], v = src->v[i + 1];
    if (kind == 0) {
      const int32_t *ids =
          k == 2 ? m->edges + 2 * (size_t)el : m->faces + 3 * (size_t)el;
      for (int j = 0; j < k; ++j)
        if (cn_pp(X(b, v), X(b, ids[j]), dim) < b->active &&
            !fricl__ivec_push2(dst, v < ids[j] ? v : ids[j],
                               v < ids[j] ? ids[j] : v))
          return 0;
    } else if (kind == 1) {
      for (int j = 0; j < 3; ++j) {
        const int32_t e = m->face_edges[3 * (size_t)el + j];
        if (cn_pe(X(b, v), X(b, edge_v(m, e, 0)), X(b, edge_v(m, e, 1)), dim,
                  -1) < b->active &&
            !fricl__ivec_push2(dst, e, v))
          return 0;
      }
    } else {
      for (int s = 0; s < 2; ++s) {
        const int32_t ei = src->v[i + s], ej = src->v[i + 1 - s];
        for (int j = 0; j < 2; ++j) {
          const int32_t vj = edge_v(m, ej, j);
          if (cn_pe(X(b, vj), X(b, edge_v(m, ei, 0)), X(b, edge_v(m, ei, 1)),
                    dim, -1) < b->active &&
              !fricl__ivec_push2(dst, ei, vj))
            return 0;
        }
      }
    }
  }
  /* Sort and drop repeats. */
  return fricl__pairs_sort(dst, 1);
}

/* --------------------------------------------------------------- merge */

struct fricl_collision_set {
  size_t count[FRICL__NTYPES];
  int32_t *ids[FRICL__NTYPES];   /* 2 per collision */
  int32_t *verts[FRICL__NTYPES]; /* k per collision */
  double *weight[FRICL__NTYPES];
  int8_t *dtype[FRICL__NTYPES];
  double *eps_x; /* ee */
  double *dmin;  /* the largest count, all dmin */
  double *plane_n, *plane_c;
  fricl_barrier_group groups[FRICL__NTYPES];
  size_t n_groups;
  int dim;
};

static int grow(void **p, size_t n, size_t elem) {
  void *q = realloc(*p, (n ? n : 1) * elem);
  if (!q)
    return 0;
  *p = q;
  return 1;
}

/* Sort the records of each type by ids (stably), merge equal collisions
 * (ee: and equal distance type) in record order, drop zero weights (not
 * fv) and write the set. */
static int merge(const build *b, scratch *ws, recs *all,
                 fricl_collision_set *s) {
  const size_t n = all->n;
  size_t start[FRICL__NTYPES + 1] = {0};
  if (ws->kcap < 2 * (n + 1)) {
    free(ws->key);
    free(ws->val);
    ws->kcap = 2 * (n + 1) > 2 * ws->kcap ? 2 * (n + 1) : 2 * ws->kcap;
    ws->key = (uint64_t *)malloc(ws->kcap * sizeof *ws->key);
    ws->val = (uint32_t *)malloc(ws->kcap * sizeof *ws->val);
    if (!ws->key || !ws->val) {
      free(ws->key);
      free(ws->val);
      ws->key = NULL;
      ws->val = NULL;
      ws->kcap = 0;
      return 0;
    }
  }
  uint64_t *key = ws->key;
  uint32_t *val = ws->val;
  /* Group by type (counting), then sort each type's range by ids. */
  for (size_t i = 0; i < n; ++i)
    start[all->v[i].type + 1]++;
  for (int t = 0; t < FRICL__NTYPES; ++t)
    start[t + 1] += start[t];
  size_t fill[FRICL__NTYPES];
  memcpy(fill, start, sizeof fill);
  for (size_t i = 0; i < n; ++i) {
    const rec *r = &all->v[i];
    const size_t at = fill[r->type]++;
    const int32_t lo = r->type == EE && r->b < r->a ? r->b : r->a;
    const int32_t hi = r->type == EE && r->b < r->a ? r->a : r->b;
    key[at] = (uint64_t)(uint32_t)lo << 32 | (uint32_t)hi;
    val[at] = (uint32_t)i;
  }
  for (int t = 0; t < FRICL__NTYPES; ++t)
    fricl__radix_sort(key + start[t], val + start[t], start[t + 1] - start[t],
                      key + n + 1, val + n + 1);
  const fricl_collision_mesh *m = b->m;
  int ok = 1;
  for (int t = 0; t < FRICL__NTYPES && ok; ++t) {
    const size_t lo = start[t], hi = start[t + 1];
    const int k = t == VV ? 2 : (t == EV ? 3 : (t == PV ? 1 : 4));
    ok = grow((void **)&s->ids[t], 2 * (hi - lo), sizeof(int32_t)) &&
         grow((void **)&s->verts[t], (size_t)k * (hi - lo), sizeof(int32_t)) &&
         grow((void **)&s->weight[t], hi - lo, sizeof(double)) &&
         grow((void **)&s->dtype[t], hi - lo, sizeof(int8_t)) &&
         (t != EE || grow((void **)&s->eps_x, hi - lo, sizeof(double)));
    size_t c = 0;
    for (size_t i = lo; ok && i < hi;) {
      size_t j = i + 1;
      while (j < hi && key[j] == key[i])
        ++j;
      /* [i, j): one pair of ids; ee may hold several distance types,
       * each kept once in first-seen order, in the edge order of its
       * first record (ipctk's equality: the same edges and the same
       * stored type). */
      for (size_t u = i; u < j; ++u) {
        const rec *r = &all->v[val[u]];
        int seen = 0;
        for (size_t v = i; v < u && !seen; ++v)
          seen = all->v[val[v]].dtype == r->dtype;
        if (seen)
          continue;
        double w = 0;
        for (size_t v = u; v < j; ++v)
          if (all->v[val[v]].dtype == r->dtype)
            w += all->v[val[v]].w;
        if (w == 0 && t != FV)
          continue;
        s->ids[t][2 * c] = r->a;
        s->ids[t][2 * c + 1] = r->b;
        s->weight[t][c] = w;
        int32_t *x = s->verts[t] + (size_t)k * c;
        if (t == VV) {
          x[0] = r->a;
          x[1] = r->b;
          s->dtype[t][c] = -1;
        } else if (t == EV) {
          x[0] = r->b;
          x[1] = edge_v(m, r->a, 0);
          x[2] = edge_v(m, r->a, 1);
          s->dtype[t][c] = 2; /* the line, as ipctk evaluates it */
        } else if (t == EE) {
          x[0] = edge_v(m, r->a, 0);
          x[1] = edge_v(m, r->a, 1);
          x[2] = edge_v(m, r->b, 0);
          x[3] = edge_v(m, r->b, 1);
          s->dtype[t][c] = r->dtype;
          s->eps_x[c] = r->eps;
        } else if (t == FV) {
          x[0] = r->b;
          memcpy(x + 1, m->faces + 3 * (size_t)r->a, 3 * sizeof(int32_t));
          s->dtype[t][c] = 6; /* the plane */
        }
        ++c;
      }
      i = j;
    }
    s->count[t] = c;
  }
  return ok;
}

static int add_planes(const build *b, const fricl_collisions_options *o,
                      fricl_collision_set *s) {
  const fricl__ivec *pv = &b->cand->pairs[PV];
  const size_t n = pv->n / 2;
  const int dim = b->m->dim;
  if (!(grow((void **)&s->ids[PV], 2 * n, sizeof(int32_t)) &&
        grow((void **)&s->verts[PV], n, sizeof(int32_t)) &&
        grow((void **)&s->weight[PV], n, sizeof(double)) &&
        grow((void **)&s->dtype[PV], n, sizeof(int8_t)) &&
        grow((void **)&s->plane_n, n * (size_t)dim, sizeof(double)) &&
        grow((void **)&s->plane_c, n, sizeof(double))))
    return 0;
  size_t c = 0;
  for (size_t i = 0; i < n; ++i) {
    const int32_t p = pv->v[2 * i], v = pv->v[2 * i + 1];
    const double *nrm = o->plane_normals + (size_t)p * dim;
    const double d = o->plane_offsets[p] + cn_dot(nrm, X(b, v), dim);
    if (!(d < o->dhat + o->dmin))
      continue;
    s->ids[PV][2 * c] = p;
    s->ids[PV][2 * c + 1] = v;
    s->verts[PV][c] = v;
    s->weight[PV][c] = b->area ? b->m->vertex_area[v] : 1;
    s->dtype[PV][c] = -1;
    memcpy(s->plane_n + c * (size_t)dim, nrm, (size_t)dim * sizeof(double));
    s->plane_c[c] = o->plane_offsets[p];
    ++c;
  }
  s->count[PV] = c;
  return 1;
}

static int write_groups(fricl_collision_set *s, double dmin) {
  size_t most = 0;
  for (int t = 0; t < FRICL__NTYPES; ++t)
    most = s->count[t] > most ? s->count[t] : most;
  if (!grow((void **)&s->dmin, most, sizeof(double)))
    return 0;
  for (size_t i = 0; i < most; ++i)
    s->dmin[i] = dmin;
  s->n_groups = 0;
  for (int t = 0; t < FRICL__NTYPES; ++t) {
    if (!s->count[t])
      continue;
    fricl_barrier_group *g = &s->groups[s->n_groups++];
    memset(g, 0, sizeof *g);
    g->type = (fricl_stencil)t;
    g->count = s->count[t];
    g->vertices = s->verts[t];
    g->weight = s->weight[t];
    g->dmin = s->dmin;
    g->distance_type = t == VV || t == PV ? NULL : s->dtype[t];
    if (t == PV) {
      g->plane_normal = s->plane_n;
      g->plane_offset = s->plane_c;
    }
  }
  return 1;
}

void fricl__collision_set_free(fricl_collision_set *s) {
  if (!s)
    return;
  for (int t = 0; t < FRICL__NTYPES; ++t) {
    free(s->ids[t]);
    free(s->verts[t]);
    free(s->weight[t]);
    free(s->dtype[t]);
  }
  free(s->eps_x);
  free(s->dmin);
  free(s->plane_n);
  free(s->plane_c);
  free(s);
}

fricl_status fricl__collisions_build(fricl_context *ctx,
                                     const fricl_collision_mesh *m,
                                     const double *x,
                                     const fricl_collisions_options *o,
                                     fricl__narrow_fn narrow_run, void *user,
                                     fricl_collision_set **inout) {
  fricl_candidate_set cand;
  memset(&cand, 0, sizeof cand);
  build b;
  memset(&b, 0, sizeof b);
  b.ctx = ctx;
  b.m = m;
  b.x = x;
  b.active = (o->dmin + o->dhat) * (o->dmin + o->dhat);
  double big = 0;
  for (size_t i = 0; i < m->nv * (size_t)m->dim; ++i)
    big = fabs(x[i]) > big ? fabs(x[i]) : big;
  b.apart = b.active * (1 + 1e-6) + 1e-12 * big * big;
  b.area = (o->flags & FRICL_COLLISIONS_AREA_WEIGHTING) != 0;
  b.cand = &cand;
  b.pieces = FRICL__BP_SLOTS(fricl__pool_threads(ctx->pool));
  scratch *w = scratch_of(ctx, b.pieces);
  int ok = w != NULL;
  recs *all = w ? &w->all : NULL;
  fricl__ivec *active = w ? w->active : NULL;
  for (int t = 0; ok && t < 4; ++t) {
    b.prec[t] = w->prec[t];
    b.act[t] = w->act[t];
  }
  const double r = 0.5 * (o->dhat + o->dmin);
  fricl_status st = FRICL_STATUS_OK;
  if (ok)
    st = fricl__broad_phase(ctx, m, x, NULL, r, o->n_planes, o->plane_normals,
                            o->plane_offsets, narrow_run ? collect : visit, &b,
                            &cand);
  if (ok && st == FRICL_STATUS_OK && narrow_run)
    st = narrow_after(&b, w, narrow_run, user);
  /* In type order, each type's pieces in order: the sequence of a
   * single-threaded run. */
  for (int t = 0; ok && st == FRICL_STATUS_OK && t < 4; ++t)
    for (unsigned p = 0; ok && p < b.pieces; ++p)
      ok = append_recs(all, &b.prec[t][p]) &&
           append_pairs(&active[t], &b.act[t][p]);
  if (st != FRICL_STATUS_OK) {
    fricl__candidates_free(&cand);
    if (*inout) { /* as documented: a failure leaves a set empty */
      memset((*inout)->count, 0, sizeof(*inout)->count);
      (*inout)->n_groups = 0;
    }
    return st;
  }
  /* The improved max approximator's derived pairs come only from active
   * pairs: a sub-element within reach makes its element within reach. */
  if (ok && (o->flags & FRICL_COLLISIONS_IMPROVED_MAX_APPROX)) {
    fricl__ivec *d = &w->derived;
    ok = (!active[EV].n || (derive(&b, &active[EV], 0, 2, d) &&
                            pass(&b, d, each_ev_neg_vv, all))) &&
         (!active[EE].n || (derive(&b, &active[EE], 2, 0, d) &&
                            pass(&b, d, each_ee_neg_ev, all))) &&
         (!active[FV].n || (derive(&b, &active[FV], 1, 0, d) &&
                            pass(&b, d, each_fv_neg_ev, all) &&
                            derive(&b, &active[FV], 0, 3, d) &&
                            pass(&b, d, each_fv_pos_vv, all)));
  }
  fricl_collision_set *s = *inout;
  const int fresh = s == NULL;
  if (ok && fresh) {
    s = (fricl_collision_set *)calloc(1, sizeof *s);
    ok = s != NULL;
  }
  if (ok) {
    s->dim = m->dim;
    ok = merge(&b, w, all, s);
    ok = ok && add_planes(&b, o, s) && write_groups(s, o->dmin);
  }
  fricl__candidates_free(&cand);
  if (!ok) {
    if (fresh)
      fricl__collision_set_free(s);
    else if (s) { /* refilled partly: leave it empty rather than mixed */
      memset(s->count, 0, sizeof s->count);
      s->n_groups = 0;
    }
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "collisions: out of memory");
  }
  *inout = s;
  return FRICL_STATUS_OK;
}

size_t fricl__collision_set_groups(const fricl_collision_set *s,
                                   const fricl_barrier_group **out) {
  *out = s->groups;
  return s->n_groups;
}

size_t fricl__collision_set_elements(const fricl_collision_set *s, int type,
                                     const int32_t **ids,
                                     const double **eps_x) {
  if (ids)
    *ids = s->ids[type];
  if (eps_x)
    *eps_x = type == EE ? s->eps_x : NULL;
  return s->count[type];
}
