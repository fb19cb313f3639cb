/*
 * multi_tangential.c - the tangential potential over several devices, with
 * outputs bitwise equal to one device's.
 *
 * Per chunk of contacts [c0, c1) (chunks as on one device, the smallest
 * over the devices, multiples of FRICL__POT_BLOCK), the contacts are cut
 * into one range per device at multiples of FRICL__POT_BLOCK, the
 * gathering device (the first that can run the precision) taking the first
 * range. Phase 1, on every device at once: its child's tan_part over its
 * range, which leaves the range's records and potential partials in the
 * host arrays below. Phase 2, on the gathering device: its tan_gather over
 * the whole chunk - the same kernels, on the same records, in the same
 * order as on one device (core/backend.h says what each part does).
 */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "multi/multi.h"

#include "fricl_tangential_codes.h"

#define BLK FRICL__POT_BLOCK

typedef struct {
  const fricl__tangential_work *w;
  size_t g; /* the gathering device */
  void *state[FRICL__MULTI_MAX];
  int begun[FRICL__MULTI_MAX];
  size_t c0, c1;
  size_t cuts[FRICL__MULTI_MAX + 1]; /* absolute contact indices */
} tan_state;

static size_t blocks(size_t n) { return (n + BLK - 1) / BLK; }

/* Phase 1 of a chunk on device d (set up for the call on its first). */
static fricl_status phase1(fricl__multi *m, size_t d, void *arg) {
  tan_state *t = arg;
  const fricl__multi_dev *v = &m->dev[d];
  const int gather = d == t->g;
  if (!t->begun[d]) {
    t->begun[d] = 1;
    const fricl_status st =
        v->child->tan_open(v->be, t->w, gather, &t->state[d]);
    if (st != FRICL_STATUS_OK)
      return st;
  }
  return v->child->tan_part(t->state[d], t->c0, t->c1, t->cuts[d],
                            t->cuts[d + 1], gather, m->rec_host, m->part_host);
}

/* Phase 2 of a chunk, on the gathering device. */
static fricl_status phase2(fricl__multi *m, size_t d, void *arg) {
  tan_state *t = arg;
  return m->dev[d].child->tan_gather(t->state[d], t->c0, t->c1, t->cuts[d + 1],
                                     m->rec_host, m->part_host);
}

/* The end of the call on device d (outputs read back on the gatherer). */
typedef struct {
  tan_state *t;
  fricl_status st; /* the call's status so far */
} end_arg;

static fricl_status finish(fricl__multi *m, size_t d, void *arg) {
  end_arg *e = arg;
  return m->dev[d].child->tan_close(e->t->state[d], e->t->w->b, d == e->t->g,
                                    e->st);
}

/* A whole call on device d alone (small calls). */
static fricl_status whole(fricl__multi *m, size_t d, void *arg) {
  fricl__backend *be = m->dev[d].be;
  return be->ops->tangential(be, arg);
}

fricl_status fricl__multi_tangential(fricl__backend *be,
                                     const fricl__tangential_work *w) {
  fricl__multi *m = (fricl__multi *)be;
  fricl_context *ctx = be->ctx;
  const fricl_tangential_batch *b = w->b;
  fricl_tangential_plan *plan = w->plan;
  fricl_status st = FRICL_STATUS_OK;
  /* The lists of a plan-less call are the caller's context's. */
  if (!plan && (b->gradient || b->hessian_product))
    st = fricl__plan_lookup(ctx, b->dim, b->n_vertices, b->n_groups, b->groups,
                            &plan);
  if (st != FRICL_STATUS_OK)
    return st;
  const fricl__tangential_work pw = {b, plan, w->need_hess, w->total};
  size_t cuts[FRICL__MULTI_MAX + 1];
  const size_t parts = fricl__multi_split(m, FRICL__FEATURE_TANGENTIAL,
                                          b->precision, w->total, BLK, cuts);
  int active[FRICL__MULTI_MAX] = {0};
  if (parts < 2) {
    for (size_t d = 0; d < m->n; ++d)
      active[d] = cuts[d + 1] > cuts[d];
    if (!w->total) /* no contacts: the first device writes the zeros */
      for (size_t d = 0; d < m->n && !active[0]; ++d)
        active[d] = fricl__multi_can_run(m, d, b->precision);
    return fricl__multi_parallel(m, active, whole, (void *)(uintptr_t)&pw, NULL,
                                 NULL);
  }
  tan_state *t = fricl__calloc(1, sizeof *t);
  if (!t)
    return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  t->w = &pw;
  t->g = m->n;
  for (size_t d = 0; d < m->n && t->g == m->n; ++d)
    if (cuts[d + 1] > cuts[d])
      t->g = d; /* devices before it cannot run the precision */
  /* Chunks as one device would cut them, the smallest over the devices. */
  size_t chunk = SIZE_MAX;
  for (size_t d = 0; d < m->n; ++d) {
    const size_t c = m->dev[d].child->tan_chunk(m->dev[d].be, b, w->total);
    if (c < chunk)
      chunk = c;
  }
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t stride =
      (b->hessian_product || b->hessian_values ? FRICL_REC_STRIDE
                                               : FRICL_REC_STRIDE_GRAD) *
      esz;
  for (size_t c0 = 0; c0 < w->total && st == FRICL_STATUS_OK;) {
    const size_t c1 = c0 + fricl__chunk_len(w->total, c0, chunk);
    t->c0 = c0;
    t->c1 = c1;
    fricl__multi_split(m, FRICL__FEATURE_TANGENTIAL, b->precision, c1 - c0, BLK,
                       t->cuts);
    for (size_t d = 0; d <= m->n; ++d)
      t->cuts[d] += c0;
    st = fricl__multi_host(m, &m->rec_host, &m->rec_host_bytes,
                           (c1 - c0) * stride);
    if (st == FRICL_STATUS_OK)
      st = fricl__multi_host(m, &m->part_host, &m->part_host_bytes,
                             blocks(c1 - c0) * esz);
    if (st != FRICL_STATUS_OK)
      break;
    for (size_t d = 0; d < m->n; ++d)
      active[d] = d == t->g || t->cuts[d + 1] > t->cuts[d];
    double seconds[FRICL__MULTI_MAX];
    int built[FRICL__MULTI_MAX];
    st = fricl__multi_parallel(m, active, phase1, t, seconds, built);
    if (st == FRICL_STATUS_OK) {
      size_t rel[FRICL__MULTI_MAX + 1];
      for (size_t d = 0; d <= m->n; ++d)
        rel[d] = t->cuts[d] - c0;
      fricl__multi_measured(m, FRICL__FEATURE_TANGENTIAL, rel, seconds, built);
      int only_g[FRICL__MULTI_MAX] = {0};
      only_g[t->g] = 1;
      st = fricl__multi_parallel(m, only_g, phase2, t, NULL, NULL);
    }
    c0 = c1;
  }
  /* Every device that began: outputs read back (on success), queues
   * drained, wrapped arrays released - also after a failure. */
  end_arg e = {t, st};
  for (size_t d = 0; d < m->n; ++d)
    active[d] = t->begun[d];
  const fricl_status est =
      fricl__multi_parallel(m, active, finish, &e, NULL, NULL);
  if (st == FRICL_STATUS_OK)
    st = est;
  free(t);
  return st;
}
