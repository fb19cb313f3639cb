/*
 * tangential_split.c - one device's part of a tangential evaluation that a
 * combinator over several devices (src/multi) splits, with outputs bitwise
 * equal to one device's: the tan_* entries of the OpenCL backend's child
 * table (core/backend.h).
 *
 * Per chunk of contacts [c0, c1), every device runs the per-contact kernel
 * over its range (per-contact outputs go straight to the caller's arrays),
 * puts its records into the combinator's host array of the whole chunk at
 * the range's place, and its block sums of D (one partial per
 * FRICL__POT_BLOCK contacts) likewise (tan_part). The gathering device
 * then runs one pass of the gathers over the whole chunk's records, in
 * contact order, and the total from all partials in block order - the same
 * kernels, on the same records, in the same order as on one device
 * (tan_gather).
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
#include "opencl/tangential_run.h"

#include "fricl_tangential_codes.h"

#define BLK FRICL__POT_BLOCK

/* One device's state for a call. */
typedef struct {
  const fricl__tangential_work *w;
  fricl__tan_run rs;
  fricl__tan_group views[64];
} tan_part_state;

static size_t blocks(size_t n) { return (n + BLK - 1) / BLK; }

size_t fricl__ocl_tan_chunk(fricl__backend *be, const fricl_tangential_batch *b,
                            size_t total) {
  fricl__tan_group views[64];
  fricl__tan_run probe;
  memset(&probe, 0, sizeof probe);
  probe.o = (fricl__ocl *)be;
  probe.esz = fricl__elem_bytes(b->precision);
  probe.dim = b->dim;
  probe.n_groups = b->n_groups;
  probe.groups = views;
  for (size_t g = 0; g < b->n_groups; ++g)
    views[g].type = b->groups[g].type;
  return fricl__tan_chunk(&probe, total);
}

fricl_status fricl__ocl_tan_open(fricl__backend *be,
                                 const fricl__tangential_work *w, int gather,
                                 void **state) {
  tan_part_state *s = fricl__calloc(1, sizeof *s);
  *state = s;
  if (!s)
    return fricl__fail(be->ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
  s->w = w;
  return fricl__tan_host_begin((fricl__ocl *)be, w->b, w->plan, gather,
                               s->views, &s->rs);
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

fricl_status fricl__ocl_tan_part(void *state, size_t c0, size_t c1, size_t lo,
                                 size_t hi, int gather, void *rec_all,
                                 void *part) {
  tan_part_state *s = state;
  fricl__tan_run *rs = &s->rs;
  const size_t n = hi - lo;
  const int in_place = rs->o->host_unified;
  const int records = fricl__tan_wants_records(rs);
  const size_t esz = rs->esz, stride = (size_t)rs->rstride * esz;
  char *host = (char *)rec_all + (lo - c0) * stride;
  cl_mem own = NULL; /* the wrapped region of the host array */
  fricl_status st = fricl__tan_scratch(rs, gather && !in_place ? c1 - c0 : n,
                                       gather ? blocks(c1 - c0) : blocks(n),
                                       records && !in_place);
  if (st == FRICL_STATUS_OK && records && in_place) {
    st = wrap(rs, host, n * stride, CL_MEM_READ_WRITE, &own);
    rs->rec = own;
  }
  fricl__tan_sync sy = {0, NULL};
  if (st == FRICL_STATUS_OK && n)
    st = fricl__tan_contacts(rs, &sy, lo, hi, lo, s->w->need_hess);
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
        (char *)part + (lo - c0) / BLK * esz, 0, NULL, NULL);
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

fricl_status fricl__ocl_tan_gather(void *state, size_t c0, size_t c1, size_t s1,
                                   void *rec_all, void *part) {
  tan_part_state *s = state;
  fricl__tan_run *rs = &s->rs;
  const size_t esz = rs->esz, stride = (size_t)rs->rstride * esz;
  fricl__tan_sync sy = {0, NULL};
  fricl_status st = FRICL_STATUS_OK;
  cl_mem all = NULL;
  if (fricl__tan_wants_records(rs)) {
    if (s1 < c1)
      fricl__ocl_moved(rs->o, (c1 - s1) * stride, 0);
    cl_mem rec = rs->rec;
    if (rs->o->host_unified) {
      st = wrap(rs, rec_all, (c1 - c0) * stride, CL_MEM_READ_ONLY, &all);
      rec = all;
    } else if (s1 < c1) {
      const cl_int err = FRICL__CL(clEnqueueWriteBuffer)(
          rs->o->queue, rs->rec, CL_FALSE, (s1 - c0) * stride,
          (c1 - s1) * stride, (char *)rec_all + (s1 - c0) * stride, 0, NULL,
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
          (char *)part + b1 * esz, 0, NULL, NULL);
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

fricl_status fricl__ocl_tan_close(void *state, const fricl_tangential_batch *b,
                                  int gather, fricl_status st) {
  tan_part_state *s = state;
  if (!s)
    return FRICL_STATUS_OK;
  /* After a failure: nothing read back, no second message. */
  const int ok = st == FRICL_STATUS_OK;
  const fricl_status est = fricl__tan_host_end(
      &s->rs, b, gather, ok ? FRICL_STATUS_OK : FRICL_STATUS_INTERNAL);
  free(s);
  return ok ? est : FRICL_STATUS_OK;
}
