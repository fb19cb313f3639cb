/* barrier.c - the normal-contact barrier on an OpenCL device
 * (kernels/fricl_barrier.cl).
 *
 * Host tier (the backend's `barrier` operation): the per-contact records
 * chunk by chunk on the device; the host adds them into the global
 * outputs (src/core/barrier_pass_impl.h), so the assembly is the host
 * backends' whatever the device. The device's results differ from the
 * host's by the rounding of its log and sqrt.
 *
 * cl_mem tier (fricl__ocl_barrier_enqueue): everything on the device, on
 * the caller's buffers: per group slice the contact kernel writes the
 * per-contact outputs and a record per contact; block sums of B and their
 * ordered total give the potential; the gathers add each vertex's and each
 * BSR block's contributions in contact order through the plan's lists, as
 * the host does; chunk after chunk of contacts (each a multiple of
 * FRICL__POT_BLOCK), continuing from the previous chunk's sums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/barrier.h"
#include "core/fault.h"
#include "opencl/tangential_run.h"

#define REC 157

/* The host tier's state: a fricl__ocl_records of the positions (vert[0])
 * and the rest positions (vert[1]). */
enum { POS, REST };

static const char *const headers[] = {"fricl_cl_compat.h",
                                      "fricl_distance_math.h",
                                      "fricl_eigen_math.h",
                                      "fricl_adhesion_math.h",
                                      "fricl_barrier_math.h",
                                      "fricl_assembly.h",
                                      NULL};

/* The records kernel of `type` for the batch `arg` (a
 * fricl__ocl_make_kernel_fn). */
static fricl_status make_kernel(fricl__ocl *o, const void *arg,
                                fricl_stencil type, cl_kernel *k) {
  const fricl_barrier_batch *b = arg;
  char defines[512];
  const int off =
      fricl__ocl_precision_defines(defines, sizeof defines, b->precision);
  snprintf(defines + off, sizeof defines - (size_t)off,
           "#define FRICL_SQRT sqrt\n#define FRICL_LOG log\n"
           "#define FRICL_DIM %d\n#define FRICL_STENCIL %d\n",
           b->dim, (int)type);
  return fricl__ocl_kernel(o, "fricl_barrier.cl", headers,
                           "fricl_barrier_records", defines, k, NULL);
}

fricl_status fricl__ocl_barrier_open(fricl__ocl *o,
                                     const fricl_barrier_batch *b,
                                     void **state) {
  const void *const vert[] = {[POS] = b->positions, [REST] = b->rest_positions};
  fricl__ocl_records *s = NULL;
  const fricl_status st = fricl__ocl_records_open(
      o, vert, 2,
      b->n_vertices * (size_t)b->dim * fricl__elem_bytes(b->precision),
      "clCreateBuffer (barrier positions)", &s);
  *state = s;
  return st;
}

void fricl__ocl_barrier_close(void *state) { fricl__ocl_records_close(state); }

fricl_status fricl__ocl_barrier_records(void *state,
                                        const fricl__barrier_work *w, size_t g,
                                        size_t lo, size_t n, void *rec) {
  fricl__ocl_records *s = state;
  const fricl_barrier_batch *b = w->b;
  const fricl_barrier_group *G = &b->groups[g];
  fricl_context *ctx = s->o->base.ctx;
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t k = (size_t)fricl__stencil_vertex_count(G->type);
  const size_t rb = n * REC * esz;
  cl_kernel kern = NULL;
  FRICL__TRY(fricl__ocl_records_begin(s, G->type, make_kernel, b, rb,
                                      "clCreateBuffer (barrier records)",
                                      &kern));
  fricl_status st = FRICL_STATUS_OK;
  cl_int err = CL_SUCCESS;
  cl_mem ids = fricl__ocl_upload_rows(s->o, G->vertices, lo, n,
                                      k * sizeof(int32_t), &err);
  cl_mem wt = fricl__ocl_upload_rows(s->o, G->weight, lo, n, esz, &err);
  cl_mem dm = fricl__ocl_upload_rows(s->o, G->dmin, lo, n, esz, &err);
  cl_mem pn, pc;
  fricl__ocl_upload_plane(s->o, G->type, G->plane_normal, G->plane_offset, lo,
                          n, (size_t)b->dim, esz, &pn, &pc, &err);
  cl_mem dt = fricl__ocl_upload_rows(s->o, G->distance_type, lo, n, 1, &err);
  if (err != CL_SUCCESS) {
    st = fricl__fail_cl(ctx, err, "clCreateBuffer (barrier contacts)");
    goto done;
  }
  const cl_ulong nn = n;
  /* given: fricl_barrier.cl's FRICL_BAR_* bits, the optional arrays given
   * and 16 for FRICL_BARRIER_FLAG_AS_CLASSIFIED. */
  const cl_int psd = (cl_int)b->psd,
               physical = (b->flags & FRICL_BARRIER_FLAG_PHYSICAL) != 0,
               want = w->want,
               given = (G->weight ? 1 : 0) | (G->dmin ? 2 : 0) |
                       (G->distance_type ? 4 : 0) | (s->vert[REST] ? 8 : 0) |
                       (b->flags & FRICL_BARRIER_FLAG_AS_CLASSIFIED ? 16 : 0);
  const cl_mem bufs[9] = {s->vert[POS], s->vert[REST], ids, wt, dm, pn, pc,
                          dt,           s->rec};
  const cl_int ints[4] = {psd, physical, want, given};
  const double reals[3] = {b->dhat, b->kappa, b->dmin};
  /* the normal function and its parameters (0.4) */
  const cl_int fn = (cl_int)b->function;
  const double adh[4] = {b->adhesion_dhat_p, b->adhesion_dhat_a, b->adhesion_Y,
                         b->adhesion_eps_c};
  err = clSetKernelArg(kern, 0, sizeof nn, &nn);
  err = fricl__ocl_args_int(kern, 1, ints, 4, err);
  err = fricl__ocl_args_real(kern, 5, b->precision, reals, 3, err);
  err = fricl__ocl_args_mem(kern, 8, bufs, 9, err);
  err = fricl__ocl_args_int(kern, 17, &fn, 1, err);
  err = fricl__ocl_args_real(kern, 18, b->precision, adh, 4, err);
  if (err == CL_SUCCESS)
    err = fricl__ocl_run_records(s->o, kern, n, s->rec, rb, rec);
  if (err != CL_SUCCESS)
    st = fricl__fail_cl(ctx, err, "barrier kernel");
  {
    const cl_uint idx[9] = {8, 9, 10, 11, 12, 13, 14, 15, 16};
    fricl__kernel_unbind(kern, idx, 9);
  }
done:
  fricl__ocl_release(ids);
  fricl__ocl_release(wt);
  fricl__ocl_release(dm);
  fricl__ocl_release(pn);
  fricl__ocl_release(pc);
  fricl__ocl_release(dt);
  return st;
}

fricl_status fricl__ocl_barrier(fricl__backend *be,
                                const fricl__barrier_work *w) {
  fricl__ocl *o = (fricl__ocl *)be;
  if (!w->total)
    return fricl__barrier_host(be->ctx, w, 0, NULL);
  /* The shape terms and the extras (0.4) run on the host threads: the
   * kernel makes the records (B, gradient, Hessian) only. */
  if (fricl__barrier_host_only(w->b))
    return fricl__barrier_host(be->ctx, w, 1, NULL);
  fricl__barrier_source src = {fricl__ocl_barrier_records, NULL};
  fricl_status st = fricl__ocl_barrier_open(o, w->b, &src.state);
  if (st == FRICL_STATUS_OK)
    st = fricl__barrier_host(be->ctx, w, 0, &src);
  fricl__ocl_barrier_close(src.state);
  return st;
}

/* ------------------------------------------------------------ cl_mem tier */

/* Record layout of kernels/fricl_barrier.cl's cl_mem tier. */
#define CL_R_G 1
#define CL_R_T 13
#define CL_O_POT 0x1
#define CL_O_LG 0x2
#define CL_O_LH 0x4
#define CL_O_REC 0x8
#define CL_O_T 0x10

typedef struct cl_run {
  fricl__ocl *o;
  fricl_context *ctx;
  const fricl_barrier_batch_cl *b;
  fricl_tangential_plan *plan;
  fricl__tan_dev_plan *dp;
  int want, rstride, want_rec;
  cl_mem rec, partial;
  cl_uint num_wait;
  const cl_event *wait;
} cl_run;

static fricl_status cl_kernel_of(cl_run *r, const char *name,
                                 fricl_stencil type, cl_kernel *k) {
  char defines[512];
  const int off =
      fricl__ocl_precision_defines(defines, sizeof defines, r->b->precision);
  /* The gathers and sums do not depend on the stencil: one program per
   * precision and dimension for them (FRICL_STENCIL set to 0, folded). */
  snprintf(defines + off, sizeof defines - (size_t)off,
           "#define FRICL_SQRT sqrt\n#define FRICL_LOG log\n"
           "#define FRICL_DIM %d\n#define FRICL_STENCIL %d\n",
           r->b->dim, (int)type);
  return fricl__ocl_kernel(r->o, "fricl_barrier.cl", headers, name, defines, k,
                           NULL);
}

/* Set n arguments, enqueue `global` work items (after the wait list, the
 * first time), unbind the buffer arguments. */
static fricl_status cl_launch(cl_run *r, cl_kernel k, size_t global, int n,
                              const void *const *vals, const size_t *sizes,
                              const cl_uint *mem_args, int n_mem) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n && err == CL_SUCCESS; ++i)
    err = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
  if (err == CL_SUCCESS) {
    err = fricl__ocl_launch(r->o, k, global ? global : 1, r->num_wait, r->wait,
                            NULL);
    if (err == CL_SUCCESS)
      r->num_wait = 0; /* later commands follow in queue order */
  }
  fricl__kernel_unbind(k, mem_args, n_mem);
  return err == CL_SUCCESS ? FRICL_STATUS_OK
                           : fricl__fail_cl(r->ctx, err, "barrier kernel");
}

/* The contact kernel over contacts [lo, hi) of group g, records from
 * index rec_base. */
static fricl_status cl_contacts(cl_run *r, size_t g, size_t lo, size_t hi,
                                size_t rec_base) {
  const fricl_barrier_batch_cl *b = r->b;
  const fricl_barrier_group_cl *G = &b->groups[g];
  cl_kernel k = NULL;
  fricl_status st = cl_kernel_of(r, "fricl_barrier_contacts", G->type, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const size_t dim = (size_t)b->dim;
  const size_t kv = (size_t)fricl__stencil_vertex_count(G->type);
  const size_t ndof = kv * dim;
  const int pv = G->type == FRICL_STENCIL_PV;
  const int prod = b->hessian_product.mem != NULL;
  const cl_ulong n = hi - lo, nv = b->n_vertices, base = rec_base;
  /* given: as in fricl__ocl_barrier_records. */
  const cl_int psd = (cl_int)b->psd,
               physical = (b->flags & FRICL_BARRIER_FLAG_PHYSICAL) != 0,
               want = r->want,
               given = (G->weight.mem ? 1 : 0) | (G->dmin.mem ? 2 : 0) |
                       (G->distance_type.mem ? 4 : 0) |
                       (b->rest_positions.mem ? 8 : 0) |
                       (b->flags & FRICL_BARRIER_FLAG_AS_CLASSIFIED ? 16 : 0),
               outs = (G->potential.mem ? CL_O_POT : 0) |
                      (G->local_gradient.mem ? CL_O_LG : 0) |
                      (G->local_hessian.mem ? CL_O_LH : 0) |
                      (r->want_rec ? CL_O_REC : 0) |
                      (r->want_rec && prod ? CL_O_T : 0),
               rstride = r->rstride;
  /* Buffers and their element offsets, the slice's start added. */
  const struct {
    fricl_buffer_cl buf;
    size_t per;
  } a[13] = {{b->positions, 0},
             {b->rest_positions, 0},
             {G->vertices, kv},
             {G->weight, 1},
             {G->dmin, 1},
             {pv ? G->plane_normal : (fricl_buffer_cl){NULL, 0}, dim},
             {pv ? G->plane_offset : (fricl_buffer_cl){NULL, 0}, 1},
             {G->distance_type, 1},
             {b->direction, 0},
             {G->potential, 1},
             {G->local_gradient, ndof},
             {G->local_hessian, ndof * ndof},
             {{r->rec, 0}, 0}};
  cl_mem mems[13];
  cl_ulong offs[13];
  for (int i = 0; i < 13; ++i) {
    mems[i] = a[i].buf.mem;
    offs[i] = a[i].buf.mem ? a[i].buf.offset + lo * a[i].per : 0;
  }
  const double reals[3] = {b->dhat, b->kappa, b->dmin};
  cl_int err = CL_SUCCESS;
  const void *head[7] = {&n, &nv, &psd, &physical, &want, &given, &outs};
  const size_t hsz[7] = {sizeof n,    sizeof nv,    sizeof psd, sizeof physical,
                         sizeof want, sizeof given, sizeof outs};
  cl_uint idx = 0;
  for (int i = 0; i < 7 && err == CL_SUCCESS; ++i, ++idx)
    err = clSetKernelArg(k, idx, hsz[i], head[i]);
  for (int i = 0; i < 3 && err == CL_SUCCESS; ++i, ++idx)
    err = fricl__ocl_set_real(k, idx, b->precision, reals[i]);
  cl_uint mem_idx[13];
  for (int i = 0; i < 13 && err == CL_SUCCESS; ++i) {
    mem_idx[i] = idx;
    err = clSetKernelArg(k, idx++, sizeof(cl_mem), &mems[i]);
    if (err == CL_SUCCESS && i < 12)
      err = clSetKernelArg(k, idx++, sizeof(cl_ulong), &offs[i]);
  }
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, idx++, sizeof base, &base);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, idx++, sizeof rstride, &rstride);
  if (err == CL_SUCCESS) {
    err = fricl__ocl_launch(r->o, k, (size_t)n, r->num_wait, r->wait, NULL);
    if (err == CL_SUCCESS)
      r->num_wait = 0;
  }
  fricl__kernel_unbind(k, mem_idx, 13);
  return err == CL_SUCCESS
             ? FRICL_STATUS_OK
             : fricl__fail_cl(r->ctx, err, "barrier contact kernel");
}

static fricl_status cl_gather_vec(cl_run *r, fricl_buffer_cl out, int field,
                                  size_t c0, size_t c1, int first_pass) {
  cl_kernel k = NULL;
  fricl_status st =
      cl_kernel_of(r, "fricl_barrier_gather_vec", FRICL_STENCIL_VV, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const cl_ulong nv = r->b->n_vertices, a = c0, z = c1, off = out.offset;
  const cl_int fld = field, first = first_pass != 0, rs = r->rstride;
  const void *vals[11] = {
      &nv, &r->dp->vptr, &r->dp->ventries, &r->rec,  &rs, &fld,
      &a,  &z,           &first,           &out.mem, &off};
  const size_t sizes[11] = {sizeof nv,      sizeof(cl_mem), sizeof(cl_mem),
                            sizeof(cl_mem), sizeof rs,      sizeof fld,
                            sizeof a,       sizeof z,       sizeof first,
                            sizeof(cl_mem), sizeof off};
  static const cl_uint mem_args[] = {1, 2, 3, 9};
  return cl_launch(r, k, (size_t)nv, 11, vals, sizes, mem_args, 4);
}

static fricl_status cl_gather_bsr(cl_run *r, size_t c0, size_t c1,
                                  int first_pass) {
  cl_kernel k = NULL;
  fricl_status st =
      cl_kernel_of(r, "fricl_barrier_gather_bsr", FRICL_STENCIL_VV, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const fricl_buffer_cl out = r->b->hessian_values;
  const cl_ulong nnz = r->plan->nnz, a = c0, z = c1, off = out.offset;
  const cl_int first = first_pass != 0, rs = r->rstride;
  const void *vals[10] = {&nnz, &r->dp->bptr, &r->dp->bentries, &r->rec,  &rs,
                          &a,   &z,           &first,           &out.mem, &off};
  const size_t sizes[10] = {
      sizeof nnz, sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof rs,
      sizeof a,   sizeof z,       sizeof first,   sizeof(cl_mem), sizeof off};
  static const cl_uint mem_args[] = {1, 2, 3, 8};
  return cl_launch(r, k, (size_t)nnz, 10, vals, sizes, mem_args, 4);
}

/* The potential's part of a chunk of n records: block sums, then their
 * total added (in order) to the output. */
static fricl_status cl_potential(cl_run *r, size_t n, int first_pass) {
  const cl_ulong nblk = (n + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK;
  cl_kernel k = NULL;
  fricl_status st = FRICL_STATUS_OK;
  if (nblk) {
    st = cl_kernel_of(r, "fricl_barrier_block_sum", FRICL_STENCIL_VV, &k);
    if (st != FRICL_STATUS_OK)
      return st;
    const cl_ulong n64 = n, blk = FRICL__POT_BLOCK;
    const cl_int rs = r->rstride;
    const void *vals[5] = {&n64, &blk, &r->rec, &rs, &r->partial};
    const size_t sizes[5] = {sizeof n64, sizeof blk, sizeof(cl_mem), sizeof rs,
                             sizeof(cl_mem)};
    static const cl_uint mem_args[] = {2, 4};
    st = cl_launch(r, k, (size_t)nblk, 5, vals, sizes, mem_args, 2);
    if (st != FRICL_STATUS_OK)
      return st;
  }
  st = cl_kernel_of(r, "fricl_barrier_pot_accumulate", FRICL_STENCIL_VV, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const fricl_buffer_cl out = r->b->potential;
  const cl_ulong off = out.offset;
  const cl_int f = first_pass != 0;
  const void *vals[5] = {&nblk, &r->partial, &f, &out.mem, &off};
  const size_t sizes[5] = {sizeof nblk, sizeof(cl_mem), sizeof f,
                           sizeof(cl_mem), sizeof off};
  static const cl_uint mem_args[] = {1, 3};
  return cl_launch(r, k, 1, 5, vals, sizes, mem_args, 2);
}

fricl_status fricl__ocl_barrier_enqueue(fricl__ocl *o,
                                        const fricl_barrier_batch_cl *b,
                                        int want, cl_uint num_wait,
                                        const cl_event *wait, cl_event *done) {
  cl_run r;
  memset(&r, 0, sizeof r);
  r.o = o;
  r.ctx = o->base.ctx;
  r.b = b;
  r.want = want;
  r.num_wait = num_wait;
  r.wait = wait;
  r.plan = (fricl_tangential_plan *)(uintptr_t)b->plan;
  const int grad = b->gradient.mem != NULL,
            prod = b->hessian_product.mem != NULL,
            hess = b->hessian_values.mem != NULL,
            pot = b->potential.mem != NULL;
  r.want_rec = pot || grad || prod || hess;
  r.rstride = hess ? 169 : prod ? 25 : grad ? 13 : 1;
  fricl_status st = FRICL_STATUS_OK;
  if (grad || prod || hess)
    st = fricl__tan_plan_upload(o, r.plan, &r.dp);
  if (st != FRICL_STATUS_OK)
    return st;
  size_t total = 0;
  for (size_t g = 0; g < b->n_groups; ++g)
    total += b->groups[g].count;
  const size_t esz = fricl__elem_bytes(b->precision);
  /* Contacts per chunk: as many records as one allocation holds, a
   * multiple of the potential's block. */
  size_t chunk = fricl__ocl_chunk_elements(o, (size_t)r.rstride * esz);
  if (chunk > FRICL__POT_BLOCK)
    chunk -= chunk % FRICL__POT_BLOCK;
  else
    chunk = FRICL__POT_BLOCK;
  const size_t cap = total < chunk ? total : chunk;
  if (r.want_rec)
    st = fricl__ocl_staging(o, FRICL__SLOT_BARRIER,
                            (cap ? cap : 1) * (size_t)r.rstride * esz, &r.rec);
  if (st == FRICL_STATUS_OK && pot)
    st = fricl__ocl_staging(
        o, FRICL__SLOT_BARRIER + 1,
        ((cap + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK + 1) * esz,
        &r.partial);
  /* One pass per chunk; with no contacts one empty pass, whose gathers
   * and sum write the zeros. */
  size_t c0 = 0;
  while (st == FRICL_STATUS_OK) {
    const size_t c1 = total ? c0 + fricl__chunk_len(total, c0, chunk) : 0;
    size_t gbase = 0;
    for (size_t g = 0; g < b->n_groups && st == FRICL_STATUS_OK; ++g) {
      size_t lo, hi;
      if (fricl__chunk_slice(c0, c1, gbase, b->groups[g].count, &lo, &hi))
        st = cl_contacts(&r, g, lo, hi, gbase + lo - c0);
      gbase += b->groups[g].count;
    }
    const int first = c0 == 0;
    if (st == FRICL_STATUS_OK && pot)
      st = cl_potential(&r, c1 - c0, first);
    if (st == FRICL_STATUS_OK && grad)
      st = cl_gather_vec(&r, b->gradient, CL_R_G, c0, c1, first);
    if (st == FRICL_STATUS_OK && prod)
      st = cl_gather_vec(&r, b->hessian_product, CL_R_T, c0, c1, first);
    if (st == FRICL_STATUS_OK && hess)
      st = cl_gather_bsr(&r, c0, c1, first);
    if (st != FRICL_STATUS_OK || c1 >= total)
      break;
    /* The scratch is reused by the next chunk. */
    clFinish(o->queue);
    c0 = c1;
  }
  if (st == FRICL_STATUS_OK && done)
    st = fricl__ocl_marker(o, r.num_wait, r.wait, done);
  return st;
}
