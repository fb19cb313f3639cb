/*
 * tangential_run.h - the pieces of one tangential evaluation on one OpenCL
 * device, for the single-device tiers (tangential.c) and for a context over
 * several devices (multi_tangential.c), which runs the per-contact kernel of
 * each device on its own range of contacts and the gathers on one device.
 *
 * An evaluation goes chunk by chunk of contacts [c0, c1) (c0 a multiple of
 * FRICL__POT_BLOCK): the per-contact kernel writes a record per contact
 * (gamma, q, S, t) and its D into scratch indexed from a chosen origin;
 * block sums of D give one partial per FRICL__POT_BLOCK contacts, added in
 * order to the running total; the gathers sum each vertex's and each
 * block's contributions in contact order over a range of contacts, starting
 * from zero or continuing from the values already in the output. Running
 * the gathers over consecutive ranges, from any record buffers, gives the
 * bitwise same outputs as one pass.
 */
#ifndef FRICL_OPENCL_TANGENTIAL_RUN_H
#define FRICL_OPENCL_TANGENTIAL_RUN_H

#include "core/tangential.h"
#include "opencl/opencl.h"

/* A buffer and an element offset into it (the kernel arguments). */
typedef struct fricl__abuf {
  cl_mem mem;
  cl_ulong off;
} fricl__abuf;

/* Inputs 0..7 then outputs 8..12 of a group, in this order. */
enum {
  FRICL__TAN_NIN = 8,
  FRICL__TAN_NOUT = 5,
  FRICL__TAN_NARR = FRICL__TAN_NIN + FRICL__TAN_NOUT
};

/* Where one group's arrays are: host pointers or caller buffers. */
typedef struct fricl__tan_group {
  fricl_stencil type;
  size_t count;
  const void *host[FRICL__TAN_NARR];
  fricl_buffer_cl dev[FRICL__TAN_NARR];
} fricl__tan_group;

/* The plan's lists on one device (a plan attachment). */
typedef struct fricl__tan_dev_plan {
  cl_mem vptr, ventries, bptr, bentries;
} fricl__tan_dev_plan;

/* The plan's lists on device o, uploaded on first use and kept with the
 * plan (released with it); also the barrier's gathers follow them. */
fricl_status fricl__tan_plan_upload(fricl__ocl *o, fricl_tangential_plan *p,
                                    fricl__tan_dev_plan **out);

/* Everything one evaluation on one device holds. */
typedef struct fricl__tan_run {
  fricl__ocl *o;
  fricl_context *ctx;
  int is_host;
  fricl_precision prec;
  fricl_mu_profile profile;
  fricl_psd psd;
  uint32_t flags;
  fricl_mollifier mollifier;
  int dim;
  size_t nv;
  double eps;
  size_t n_groups;
  fricl__tan_group *groups;
  fricl_tangential_plan *plan;
  fricl__tan_dev_plan *dp; /* the plan's device lists */
  int want_pot, want_grad, want_prod, want_hess;
  fricl__abuf vel, dir, grad, prod, hess, pot; /* whole arrays */
  cl_mem owned[6];                             /* host tier: wrapped */
  int own[6];
  size_t gbytes[5]; /* host tier: bytes of vel, dir, grad, prod, hess */
  cl_mem rec, dall, partial; /* the backend's scratch */
  size_t esz;
  int rstride; /* reals per record (FRICL_REC_STRIDE or _GRAD) */
} fricl__tan_run;

/* The cl_mem tier's wait list: the first enqueue waits on it (the queue
 * is in order, so everything after follows). */
typedef struct fricl__tan_sync {
  cl_uint num_wait;
  const cl_event *wait;
} fricl__tan_sync;

/* Host tier on device o: rs set up for batch b, the group views in
 * `views` (b->n_groups of them), the velocities (and direction) on the
 * device; with `gather`, also the plan's lists (plan may be NULL when no
 * gather needs it) and the global outputs. */
fricl_status fricl__tan_host_begin(fricl__ocl *o,
                                   const fricl_tangential_batch *b,
                                   fricl_tangential_plan *plan, int gather,
                                   fricl__tan_group *views, fricl__tan_run *rs);
/* Host tier: on success read the global outputs (with `gather`) back into
 * b; always wait for the queue and release the wrapped arrays. Returns st,
 * or the first read-back error. */
fricl_status fricl__tan_host_end(fricl__tan_run *rs,
                                 const fricl_tangential_batch *b, int gather,
                                 fricl_status st);

/* Contacts per chunk on this device for `total` contacts: as many as one
 * allocation of the largest per-contact array holds, a multiple of
 * FRICL__POT_BLOCK (or all of them, when fewer). */
size_t fricl__tan_chunk(const fricl__tan_run *rs, size_t total);

/* 1 when the requested outputs need per-contact records (a gather). */
static inline int fricl__tan_wants_records(const fricl__tan_run *rs) {
  return rs->want_grad || rs->want_prod || rs->want_hess;
}

/* The scratch for `contacts` D values (from origin 0) and `blocks`
 * potential partials; with `records`, also the records (else the caller
 * sets rs->rec itself). */
fricl_status fricl__tan_scratch(fricl__tan_run *rs, size_t contacts,
                                size_t blocks, int records);

/* The per-contact kernel over global contacts [c0, c1) (every group they
 * touch), writing records and D at index c - origin. */
fricl_status fricl__tan_contacts(fricl__tan_run *rs, fricl__tan_sync *sy,
                                 size_t c0, size_t c1, size_t origin,
                                 int need_hess);

/* partial[i] = the sequential sum of D over contacts [i B, (i + 1) B) of
 * the first n D values (B = FRICL__POT_BLOCK). */
fricl_status fricl__tan_block_sums(fricl__tan_run *rs, fricl__tan_sync *sy,
                                   size_t n);
/* total = (first ? 0 : total) + partial[0] + ... + partial[nblk - 1]. */
fricl_status fricl__tan_pot_accumulate(fricl__tan_run *rs, fricl__tan_sync *sy,
                                       size_t nblk, int first);

/* Every requested gather (gradient, H p, Hessian values) over contacts
 * [c0, c1), whose records are in `rec` from index 0 (= contact c0);
 * `first`: start from zero, else continue from the outputs' values. */
fricl_status fricl__tan_gathers(fricl__tan_run *rs, fricl__tan_sync *sy,
                                cl_mem rec, size_t c0, size_t c1, int first);

#endif
