/*
 * multi_tangential.c - the tangential potential over several devices, with
 * outputs bitwise equal to one device's.
 *
 * Per chunk of contacts [c0, c1) (chunks as on one device, multiples of
 * FRICL__POT_BLOCK), the contacts are cut into one range per device at
 * multiples of FRICL__POT_BLOCK, the gathering device (the first that can
 * run the precision) taking the first range. Phase 1, on every device at
 * once: the per-contact kernel over its range (per-contact outputs go
 * straight to the caller's arrays), its records into one host array of the
 * whole chunk at the range's place, and block sums of D (one partial per
 * FRICL__POT_BLOCK contacts). Phase 2, on the gathering device: one pass of
 * the gathers over the whole chunk's records, in contact order, and the
 * total from all partials in block order - the same kernels, on the same
 * records, in the same order as on one device.
 *
 * On unified-memory devices (CPU devices, integrated GPUs) every device
 * writes its records into the host array in place (a buffer wrapping its
 * own region; the gathering device wraps the whole array afterwards): no
 * record is copied. A discrete device computes into its own scratch and
 * copies its records out (or, the gathering one, the others' in).
 * Between devices move only the records of the contacts the gathering
 * device did not compute (FRICL_REC_STRIDE or FRICL_REC_STRIDE_GRAD reals
 * each) and one partial per block; never the global outputs.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "multi/multi.h"
#include "opencl/tangential_run.h"

#include "fricl_tangential_codes.h"

#define BLK FRICL__POT_BLOCK

typedef struct {
  const fricl__tangential_work *w;
  fricl_tangential_plan *plan;
  size_t g; /* the gathering device */
  fricl__tan_run rs[FRICL__MULTI_MAX];
  fricl__tan_group views[FRICL__MULTI_MAX][64];
  int begun[FRICL__MULTI_MAX];
  size_t c0, c1;
  size_t cuts[FRICL__MULTI_MAX + 1]; /* absolute contact indices */
} tan_state;

static size_t blocks(size_t n) { return (n + BLK - 1) / BLK; }

/* Set a device up for the call on its first part. */
static fricl_status begin(tan_state *t, fricl__multi *m, size_t d) {
  if (t->begun[d])
    return FRICL_STATUS_OK;
  t->begun[d] = 1;
  return fricl__tan_host_begin(m->dev[d].o, t->w->b, t->plan, d == t->g,
                               t->views[d], &t->rs[d]);
}

/* A buffer over host memory, for a kernel to read or write in place. */
static fricl_status wrap(fricl__tan_run *rs, void *p, size_t bytes,
                         cl_mem_flags flags, cl_mem *out) {
  cl_int err = CL_SUCCESS;
  *out = FRICL__CL(clCreateBuffer)(rs->o->cl_ctx, flags | CL_MEM_USE_HOST_PTR,
                                   bytes ? bytes : 1, p, &err);
  if (err == CL_SUCCESS)
    return FRICL_STATUS_OK;
  *out = NULL;
  return fricl__fail_cl(rs->ctx, err, "clCreateBuffer (records)");
}

/* Phase 1 of a chunk on device d: its range's per-contact kernel, records
 * into the host array, block sums (copied out by the others). */
static fricl_status phase1(fricl__multi *m, size_t d, void *arg) {
  tan_state *t = arg;
  fricl__tan_run *rs = &t->rs[d];
  fricl_status st = begin(t, m, d);
  const size_t lo = t->cuts[d], hi = t->cuts[d + 1], n = hi - lo;
  const int gather = d == t->g, in_place = rs->o->host_unified;
  const int records = st == FRICL_STATUS_OK && fricl__tan_wants_records(rs);
  const size_t esz = rs->esz, stride = (size_t)rs->rstride * esz;
  char *host = (char *)m->rec_host + (lo - t->c0) * stride;
  cl_mem own = NULL; /* the wrapped region of the host array */
  if (st == FRICL_STATUS_OK)
    st = fricl__tan_scratch(rs, gather && !in_place ? t->c1 - t->c0 : n,
                            gather ? blocks(t->c1 - t->c0) : blocks(n),
                            records && !in_place);
  if (st == FRICL_STATUS_OK && records && in_place) {
    st = wrap(rs, host, n * stride, CL_MEM_READ_WRITE, &own);
    rs->rec = own;
  }
  fricl__tan_sync sy = {0, NULL};
  if (st == FRICL_STATUS_OK && n)
    st = fricl__tan_contacts(rs, &sy, lo, hi, lo, t->w->need_hess);
  if (st == FRICL_STATUS_OK && n && rs->want_pot)
    st = fricl__tan_block_sums(rs, &sy, n);
  cl_int err = CL_SUCCESS;
  if (st == FRICL_STATUS_OK && records && n && !gather)
    fricl__ocl_moved(rs->o, 0, n * stride);
  if (st == FRICL_STATUS_OK && own && n) {
    /* Mapping makes the kernel's writes visible in host memory (free
     * where the buffer is that memory). */
    void *p =
        FRICL__CL(clEnqueueMapBuffer)(rs->o->queue, own, CL_TRUE, CL_MAP_READ,
                                      0, n * stride, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS) {
      if (p != host)
        memcpy(host, p, n * stride);
      err = clEnqueueUnmapMemObject(rs->o->queue, own, p, 0, NULL, NULL);
    }
  } else if (st == FRICL_STATUS_OK && records && n && !gather) {
    err = FRICL__CL(clEnqueueReadBuffer)(rs->o->queue, rs->rec, CL_TRUE, 0,
                                         n * stride, host, 0, NULL, NULL);
  }
  if (err == CL_SUCCESS && st == FRICL_STATUS_OK && !gather && n &&
      rs->want_pot) {
    fricl__ocl_moved(rs->o, 0, blocks(n) * esz);
    err = FRICL__CL(clEnqueueReadBuffer)(
        rs->o->queue, rs->partial, CL_TRUE, 0, blocks(n) * esz,
        (char *)m->part_host + (lo - t->c0) / BLK * esz, 0, NULL, NULL);
  }
  if (err != CL_SUCCESS)
    st = fricl__fail_cl(rs->ctx, err, "reading records back");
  /* Waited for here, so that the part's time is the device's. */
  clFinish(rs->o->queue);
  if (own) {
    clReleaseMemObject(own);
    rs->rec = NULL;
  }
  return st;
}

/* Phase 2 of a chunk, on the gathering device: the gathers over every
 * record of the chunk, the block partials added in order. */
static fricl_status phase2(fricl__multi *m, size_t d, void *arg) {
  tan_state *t = arg;
  fricl__tan_run *rs = &t->rs[d];
  const size_t s1 = t->cuts[d + 1], c0 = t->c0, c1 = t->c1;
  const size_t esz = rs->esz, stride = (size_t)rs->rstride * esz;
  fricl__tan_sync sy = {0, NULL};
  fricl_status st = FRICL_STATUS_OK;
  cl_mem all = NULL;
  if (fricl__tan_wants_records(rs)) {
    if (s1 < c1)
      fricl__ocl_moved(rs->o, (c1 - s1) * stride, 0);
    cl_mem rec = rs->rec;
    if (rs->o->host_unified) {
      st = wrap(rs, m->rec_host, (c1 - c0) * stride, CL_MEM_READ_ONLY, &all);
      rec = all;
    } else if (s1 < c1) {
      const cl_int err = FRICL__CL(clEnqueueWriteBuffer)(
          rs->o->queue, rs->rec, CL_FALSE, (s1 - c0) * stride,
          (c1 - s1) * stride, (char *)m->rec_host + (s1 - c0) * stride, 0, NULL,
          NULL);
      if (err != CL_SUCCESS)
        st = fricl__fail_cl(rs->ctx, err, "clEnqueueWriteBuffer");
    }
    if (st == FRICL_STATUS_OK)
      st = fricl__tan_gathers(rs, &sy, rec, c0, c1, c0 == 0);
  }
  if (st == FRICL_STATUS_OK && rs->want_pot) {
    /* The others' blocks (s1 is a block boundary, or the chunk's end). */
    const size_t b1 = blocks(s1 - c0), nb = blocks(c1 - c0);
    if (b1 < nb) {
      fricl__ocl_moved(rs->o, (nb - b1) * esz, 0);
      const cl_int err = FRICL__CL(clEnqueueWriteBuffer)(
          rs->o->queue, rs->partial, CL_FALSE, b1 * esz, (nb - b1) * esz,
          (char *)m->part_host + b1 * esz, 0, NULL, NULL);
      if (err != CL_SUCCESS)
        st = fricl__fail_cl(rs->ctx, err, "clEnqueueWriteBuffer");
    }
    if (st == FRICL_STATUS_OK)
      st = fricl__tan_pot_accumulate(rs, &sy, nb, c0 == 0);
  }
  /* The scratch and the host arrays are reused by the next chunk. */
  clFinish(rs->o->queue);
  if (all)
    clReleaseMemObject(all);
  return st;
}

/* The end of the call on device d (outputs read back on the gatherer). */
typedef struct {
  tan_state *t;
  fricl_status st; /* the call's status so far */
} end_arg;

static fricl_status finish(fricl__multi *m, size_t d, void *arg) {
  (void)m;
  end_arg *e = arg;
  /* After a failure: nothing read back, no second message. */
  const int ok = e->st == FRICL_STATUS_OK;
  const fricl_status st =
      fricl__tan_host_end(&e->t->rs[d], e->t->w->b, d == e->t->g,
                          ok ? FRICL_STATUS_OK : FRICL_STATUS_INTERNAL);
  return ok ? st : FRICL_STATUS_OK;
}

/* A whole call on device d alone (small calls). */
static fricl_status whole(fricl__multi *m, size_t d, void *arg) {
  fricl__backend *be = &m->dev[d].o->base;
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
  t->plan = plan;
  t->g = m->n;
  for (size_t d = 0; d < m->n && t->g == m->n; ++d)
    if (cuts[d + 1] > cuts[d])
      t->g = d; /* devices before it cannot run the precision */
  /* Chunks as one device would cut them, the smallest over the devices. */
  size_t chunk = SIZE_MAX;
  for (size_t d = 0; d < m->n; ++d) {
    fricl__tan_run probe;
    memset(&probe, 0, sizeof probe);
    probe.o = m->dev[d].o;
    probe.esz = fricl__elem_bytes(b->precision);
    probe.dim = b->dim;
    probe.n_groups = b->n_groups;
    probe.groups = t->views[d];
    for (size_t g = 0; g < b->n_groups; ++g)
      t->views[d][g].type = b->groups[g].type;
    const size_t c = fricl__tan_chunk(&probe, w->total);
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
