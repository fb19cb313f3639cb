/* tangential_cl.c - the tangential potential on an OpenCL device: one
 * specialised per-contact kernel per group, then the gathers that assemble
 * the global outputs, chunk after chunk of contacts. Both tiers share it:
 * the host tier wraps the caller's arrays (zero copy on unified memory),
 * the cl_mem tier passes the caller's buffers and offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "opencl/tangential_run.h"

#include "fricl_cl_compat.h"
#include "fricl_tangential_codes.h"

static const char *const headers[] = {"fricl_cl_compat.h",
                                      "fricl_scalar_math.h",
                                      "fricl_tangential_adhesion_math.h",
                                      "fricl_tangential_codes.h",
                                      "fricl_tangential_math.h",
                                      "fricl_assembly.h",
                                      NULL};

/* The shared pieces' types under their short local names. */
typedef fricl__abuf abuf;
typedef fricl__tan_group gview;
typedef fricl__tan_dev_plan dev_plan;
typedef fricl__tan_run run_state;
typedef fricl__tan_sync sync_state;
enum { NIN = FRICL__TAN_NIN, NOUT = FRICL__TAN_NOUT, NARR = FRICL__TAN_NARR };

/* The backend's grow-only staging slots of this feature: scratch, so that
 * repeated evaluations - every Newton iteration - do not allocate and
 * first-touch them again; then, on devices without unified memory, the
 * host tier's global arrays and the group arrays of one slice. */
enum {
  SLOT_REC = FRICL__SLOT_TANGENTIAL,
  SLOT_DALL,
  SLOT_PARTIAL,
  SLOT_POT,
  SLOT_GLOBAL0, /* velocities, direction, gradient, product, hessian */
  SLOT_GROUP0 = SLOT_GLOBAL0 + 5 /* the 13 group arrays */
};

static fricl_status get_kernel(run_state *rs, const char *name,
                               const char *extra, cl_kernel *k) {
  char defines[1024];
  int off = fricl__ocl_precision_defines(defines, sizeof defines, rs->prec);
  off += snprintf(defines + off, sizeof defines - (size_t)off,
                  "#define FRICL_FABS fabs\n#define FRICL_SQRT sqrt\n#define "
                  "FRICL_DIM %d\n#define FRICL_RSTRIDE %d\n",
                  rs->dim, rs->rstride);
  snprintf(defines + off, sizeof defines - (size_t)off, "%s",
           extra ? extra : "");
  return fricl__ocl_kernel(rs->o, "fricl_tangential.cl", headers, name, defines,
                           k, NULL);
}

/* Release the wrapped host arrays (staging buffers are the backend's). */
static void release_owned(cl_mem *m, const int *own, int n) {
  for (int i = 0; i < n; ++i)
    if (m[i] && own[i]) {
      clReleaseMemObject(m[i]);
      m[i] = NULL;
    }
}

/* Set n arguments, enqueue `global` work items, unbind the buffer
 * arguments (see fricl__kernel_unbind). */
static fricl_status launch(run_state *rs, sync_state *sy, cl_kernel k,
                           size_t global, int n, const void *const *vals,
                           const size_t *sizes, const cl_uint *mem_args,
                           int n_mem) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n && err == CL_SUCCESS; ++i)
    err = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
  if (err != CL_SUCCESS) {
    fricl__kernel_unbind(k, mem_args, n_mem);
    return fricl__fail_cl(rs->ctx, err, "clSetKernelArg");
  }
  err = fricl__ocl_launch(rs->o, k, global ? global : 1, sy->num_wait, sy->wait,
                          NULL);
  if (err == CL_SUCCESS)
    sy->num_wait = 0; /* later commands follow in queue order */
  fricl__kernel_unbind(k, mem_args, n_mem);
  return err == CL_SUCCESS
             ? FRICL_STATUS_OK
             : fricl__fail_cl(rs->ctx, err, "clEnqueueNDRangeKernel");
}

/* Elements per contact of each group array. */
static void per_contact(const run_state *rs, fricl_stencil t, size_t *per) {
  const size_t dim = (size_t)rs->dim, m = dim - 1;
  const size_t k = (size_t)fricl__stencil_vertex_count(t);
  const size_t nb = (size_t)fricl__stencil_coord_count(t), ndof = k * dim;
  const size_t p[NARR] = {k,
                          nb,
                          dim * m,
                          1,
                          1,
                          1,
                          1,
                          m,
                          1,
                          ndof * ndof,
                          k,
                          dim,
                          dim * (dim + 1) / 2};
  memcpy(per, p, sizeof p);
}

/* Run the contact kernel over contacts [lo, hi) of group g. */
static fricl_status contacts_slice(run_state *rs, sync_state *sy, size_t g,
                                   size_t lo, size_t hi, size_t rec_base,
                                   int need_hess) {
  const gview *G = &rs->groups[g];
  const size_t n = hi - lo;
  size_t per[NARR];
  per_contact(rs, G->type, per);
  int has[NARR];
  for (int i = 0; i < NARR; ++i)
    has[i] = rs->is_host ? G->host[i] != NULL : G->dev[i].mem != NULL;
  unsigned mask = 0;
  for (int i = 0; i < NOUT; ++i)
    mask |= has[NIN + i] ? 1u << i : 0u;
  mask |= rs->rec ? 0x20u : 0u;
  mask |= rs->want_pot ? 0x40u : 0u;
  mask |= rs->want_prod ? 0x80u : 0u;
  char extra[512];
  snprintf(extra, sizeof extra,
           "#define FRICL_STENCIL %d\n#define FRICL_K %zu\n#define FRICL_NB "
           "%zu\n#define FRICL_PROFILE %d\n#define FRICL_PSD %d\n#define "
           "FRICL_IPCTK_ABS %d\n#define FRICL_NEED_HESS %d\n#define "
           "FRICL_HAS_WEIGHT %d\n#define FRICL_HAS_ANISO %d\n#define "
           "FRICL_OUT_MASK 0x%02xu\n#define FRICL_MOLLIFIER %d\n",
           (int)G->type, per[0], per[1], (int)rs->profile, (int)rs->psd,
           (rs->flags & FRICL_TANGENTIAL_FLAG_IPCTK_ABS) != 0, need_hess,
           has[4], has[7], mask, (int)rs->mollifier);
  cl_kernel kern = NULL;
  fricl_status st = get_kernel(rs, "fricl_tangential_contacts", extra, &kern);
  if (st != FRICL_STATUS_OK)
    return st;
  abuf arr[NARR];
  cl_mem owned[NARR] = {0};
  int own[NARR] = {0};
  for (int i = 0; i < NARR && st == FRICL_STATUS_OK; ++i) {
    arr[i] = (abuf){NULL, 0};
    if (!has[i] || !per[i])
      continue;
    const size_t el = i == 0 ? sizeof(int32_t) : rs->esz;
    if (rs->is_host) {
      st = fricl__ocl_host_buffer(
          rs->o, SLOT_GROUP0 + i, (const char *)G->host[i] + lo * per[i] * el,
          n * per[i] * el, i >= NIN ? FRICL__HOST_OUT : FRICL__HOST_IN,
          &owned[i], &own[i]);
      arr[i].mem = owned[i];
    } else {
      arr[i] =
          (abuf){G->dev[i].mem, (cl_ulong)(G->dev[i].offset + lo * per[i])};
    }
  }
  if (st == FRICL_STATUS_OK) {
    const cl_ulong n64 = n, nv64 = rs->nv, base64 = rec_base;
    const double eps_d = rs->eps;
    const float eps_f = (float)rs->eps;
    const void *vals[36] = {
        &n64,         &nv64,        &arr[0].mem,  &arr[0].off,  &rs->vel.mem,
        &rs->vel.off, &rs->dir.mem, &rs->dir.off, &arr[1].mem,  &arr[1].off,
        &arr[2].mem,  &arr[2].off,  &arr[3].mem,  &arr[3].off,  &arr[4].mem,
        &arr[4].off,  &arr[5].mem,  &arr[5].off,  &arr[6].mem,  &arr[6].off,
        &arr[7].mem,  &arr[7].off,  NULL,         &arr[8].mem,  &arr[8].off,
        &arr[9].mem,  &arr[9].off,  &arr[10].mem, &arr[10].off, &arr[11].mem,
        &arr[11].off, &arr[12].mem, &arr[12].off, &rs->rec,     &rs->dall,
        &base64};
    vals[22] =
        rs->prec == FRICL_F64 ? (const void *)&eps_d : (const void *)&eps_f;
    static const cl_uint mem_args[] = {2,  4,  6,  8,  10, 12, 14, 16, 18,
                                       20, 23, 25, 27, 29, 31, 33, 34};
    size_t sizes[36];
    for (int i = 0; i < 36; ++i)
      sizes[i] = sizeof(cl_ulong); /* counts and offsets */
    for (int i = 0; i < 17; ++i)
      sizes[mem_args[i]] = sizeof(cl_mem);
    sizes[22] = rs->esz; /* eps_v */
    st = launch(rs, sy, kern, n, 36, vals, sizes, mem_args, 17);
  }
  if (rs->is_host) {
    for (int i = NIN; i < NARR && st == FRICL_STATUS_OK; ++i)
      st = fricl__ocl_read_back(rs->o, owned[i],
                                (char *)(uintptr_t)G->host[i] +
                                    lo * per[i] * rs->esz,
                                n * per[i] * rs->esz);
    clFinish(rs->o->queue);
  }
  release_owned(owned, own, NARR);
  return st;
}

static fricl_status gather_vec(run_state *rs, sync_state *sy, abuf out,
                               int field, cl_mem rec, size_t c0, size_t c1,
                               int first_pass) {
  cl_kernel k = NULL;
  fricl_status st = get_kernel(rs, "fricl_tangential_gather_vec", NULL, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const cl_ulong nv = rs->nv, a = c0, z = c1;
  const cl_int fld = field, first = first_pass != 0;
  const void *vals[10] = {
      &nv, &rs->dp->vptr, &rs->dp->ventries, &rec,    &fld, &a,
      &z,  &first,        &out.mem,          &out.off};
  const size_t sizes[10] = {sizeof nv,      sizeof(cl_mem), sizeof(cl_mem),
                            sizeof(cl_mem), sizeof fld,     sizeof a,
                            sizeof z,       sizeof first,   sizeof(cl_mem),
                            sizeof out.off};
  static const cl_uint mem_args[] = {1, 2, 3, 8};
  return launch(rs, sy, k, rs->nv, 10, vals, sizes, mem_args, 4);
}

static fricl_status gather_bsr(run_state *rs, sync_state *sy, cl_mem rec,
                               size_t c0, size_t c1, int first_pass) {
  cl_kernel k = NULL;
  fricl_status st = get_kernel(rs, "fricl_tangential_gather_bsr", NULL, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const cl_ulong nnz = rs->plan->nnz, a = c0, z = c1;
  const cl_int first = first_pass != 0;
  const void *vals[9] = {&nnz,   &rs->dp->bptr, &rs->dp->bentries, &rec, &a, &z,
                         &first, &rs->hess.mem, &rs->hess.off};
  const size_t sizes[9] = {sizeof nnz,     sizeof(cl_mem), sizeof(cl_mem),
                           sizeof(cl_mem), sizeof a,       sizeof z,
                           sizeof first,   sizeof(cl_mem), sizeof(cl_ulong)};
  static const cl_uint mem_args[] = {1, 2, 3, 7};
  return launch(rs, sy, k, rs->plan->nnz, 9, vals, sizes, mem_args, 4);
}

fricl_status fricl__tan_gathers(run_state *rs, sync_state *sy, cl_mem rec,
                                size_t c0, size_t c1, int first) {
  fricl_status st = FRICL_STATUS_OK;
  if (rs->want_grad)
    st = gather_vec(rs, sy, rs->grad, FRICL_REC_Q, rec, c0, c1, first);
  if (st == FRICL_STATUS_OK && rs->want_prod)
    st = gather_vec(rs, sy, rs->prod, FRICL_REC_T, rec, c0, c1, first);
  if (st == FRICL_STATUS_OK && rs->want_hess)
    st = gather_bsr(rs, sy, rec, c0, c1, first);
  return st;
}

fricl_status fricl__tan_block_sums(run_state *rs, sync_state *sy, size_t n) {
  const cl_ulong nblk = (n + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK;
  if (!nblk)
    return FRICL_STATUS_OK;
  cl_kernel k = NULL;
  fricl_status st = get_kernel(rs, "fricl_tangential_block_sum", NULL, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const cl_ulong n64 = n, blk = FRICL__POT_BLOCK;
  const void *vals[4] = {&n64, &blk, &rs->dall, &rs->partial};
  const size_t sizes[4] = {sizeof n64, sizeof blk, sizeof(cl_mem),
                           sizeof(cl_mem)};
  static const cl_uint mem_args[] = {2, 3};
  return launch(rs, sy, k, (size_t)nblk, 4, vals, sizes, mem_args, 2);
}

fricl_status fricl__tan_pot_accumulate(run_state *rs, sync_state *sy,
                                       size_t nblk, int first) {
  cl_kernel k = NULL;
  fricl_status st = get_kernel(rs, "fricl_tangential_pot_accumulate", NULL, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const cl_ulong nb = nblk;
  const cl_int f = first;
  const void *vals[5] = {&nb, &rs->partial, &f, &rs->pot.mem, &rs->pot.off};
  const size_t sizes[5] = {sizeof nb, sizeof(cl_mem), sizeof f, sizeof(cl_mem),
                           sizeof(cl_ulong)};
  static const cl_uint mem_args[] = {1, 3};
  return launch(rs, sy, k, 1, 5, vals, sizes, mem_args, 2);
}

size_t fricl__tan_chunk(const run_state *rs, size_t total) {
  size_t max_per = FRICL_REC_STRIDE * rs->esz;
  for (size_t g = 0; g < rs->n_groups; ++g) {
    size_t per[NARR];
    per_contact(rs, rs->groups[g].type, per);
    if (per[9] * rs->esz > max_per)
      max_per = per[9] * rs->esz;
  }
  /* As many as one allocation of the largest per-contact array holds, a
   * multiple of the potential's sum block. */
  size_t chunk = fricl__ocl_chunk_elements(rs->o, max_per);
  if (chunk > FRICL__POT_BLOCK)
    chunk -= chunk % FRICL__POT_BLOCK;
  else
    chunk = FRICL__POT_BLOCK < total ? FRICL__POT_BLOCK : (total ? total : 1);
  return chunk;
}

fricl_status fricl__tan_scratch(run_state *rs, size_t contacts, size_t blocks,
                                int records) {
  fricl_status st = FRICL_STATUS_OK;
  if (records && fricl__tan_wants_records(rs))
    st = fricl__ocl_staging(
        rs->o, SLOT_REC,
        (contacts ? contacts : 1) * (size_t)rs->rstride * rs->esz, &rs->rec);
  if (st == FRICL_STATUS_OK && rs->want_pot) {
    st = fricl__ocl_staging(rs->o, SLOT_DALL,
                            (contacts ? contacts : 1) * rs->esz, &rs->dall);
    if (st == FRICL_STATUS_OK)
      st = fricl__ocl_staging(rs->o, SLOT_PARTIAL, (blocks + 1) * rs->esz,
                              &rs->partial);
  }
  return st;
}

fricl_status fricl__tan_contacts(run_state *rs, sync_state *sy, size_t c0,
                                 size_t c1, size_t origin, int need_hess) {
  fricl_status st = FRICL_STATUS_OK;
  size_t gbase = 0;
  for (size_t g = 0; g < rs->n_groups && st == FRICL_STATUS_OK; ++g) {
    size_t lo, hi;
    if (fricl__chunk_slice(c0, c1, gbase, rs->groups[g].count, &lo, &hi))
      st = contacts_slice(rs, sy, g, lo, hi, gbase + lo - origin, need_hess);
    gbase += rs->groups[g].count;
  }
  return st;
}

/* The evaluation proper, for either tier (rs prepared by the caller). */
static fricl_status run(run_state *rs, sync_state *sy, int need_hess) {
  size_t total = 0;
  for (size_t g = 0; g < rs->n_groups; ++g)
    total += rs->groups[g].count;
  const size_t chunk = fricl__tan_chunk(rs, total);
  const size_t cap = total < chunk ? total : chunk;
  fricl_status st = fricl__tan_scratch(
      rs, cap, (cap + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK, 1);
  /* One pass per chunk; with no contacts one empty pass, whose gathers
   * and sum write the zeros. */
  size_t c0 = 0;
  while (st == FRICL_STATUS_OK) {
    const size_t c1 = total ? c0 + fricl__chunk_len(total, c0, chunk) : 0;
    const int last_chunk = c1 == total;
    st = fricl__tan_contacts(rs, sy, c0, c1, c0, need_hess);
    if (st == FRICL_STATUS_OK && rs->want_pot)
      st = fricl__tan_block_sums(rs, sy, c1 - c0);
    if (st == FRICL_STATUS_OK && rs->want_pot)
      st = fricl__tan_pot_accumulate(
          rs, sy, (c1 - c0 + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK, c0 == 0);
    if (st == FRICL_STATUS_OK)
      st = fricl__tan_gathers(rs, sy, rs->rec, c0, c1, c0 == 0);
    /* The scratch buffers are reused by the next chunk. */
    if (st == FRICL_STATUS_OK && !last_chunk)
      clFinish(rs->o->queue);
    c0 = c1;
    if (c0 >= total)
      break;
  }
  return st;
}

static void view_host(gview *v, const fricl_contact_group *G) {
  memset(v, 0, sizeof *v);
  v->type = G->type;
  v->count = G->count;
  const void *p[NARR] = {
      G->vertices,        G->closest_point, G->tangent_basis,  G->normal_force,
      G->weight,          G->mu_s,          G->mu_k,           G->mu_aniso,
      G->potential,       G->local_hessian, G->factored_gamma, G->factored_grad,
      G->factored_hessian};
  memcpy(v->host, p, sizeof p);
}

/* ------------------------------------------------------ plan lists */

static void dev_plan_release(void *data) {
  dev_plan *dp = data;
  cl_mem m[4] = {dp->vptr, dp->ventries, dp->bptr, dp->bentries};
  for (int i = 0; i < 4; ++i)
    if (m[i])
      clReleaseMemObject(m[i]);
  free(dp);
}

/* The plan's lists on the device, uploaded on first use and kept with the
 * plan (released with it). */
fricl_status fricl__tan_plan_upload(fricl__ocl *o, fricl_tangential_plan *p,
                                    dev_plan **out) {
  fricl_context *ctx = o->base.ctx;
  fricl__plan_attachment *at = fricl__plan_attachment_for(p, o, 1);
  if (!at)
    return fricl__fail(ctx, FRICL_STATUS_INTERNAL,
                       "the plan is attached to too many backends");
  if (!at->data) {
    at->data = fricl__calloc(1, sizeof(dev_plan));
    if (!at->data) {
      at->owner = NULL;
      return fricl__fail(ctx, FRICL_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    at->release = dev_plan_release;
  }
  dev_plan *dp = at->data;
  const fricl_status bst = fricl__plan_blocks(p);
  if (bst != FRICL_STATUS_OK)
    return bst;
  struct {
    cl_mem *mem;
    const void *src;
    size_t bytes;
  } parts[4] = {{&dp->vptr, p->vptr, (p->n_vertices + 1) * sizeof(int64_t)},
                {&dp->ventries, p->ventries,
                 (size_t)(p->vptr[p->n_vertices] ? p->vptr[p->n_vertices] : 1) *
                     sizeof(uint64_t)},
                {&dp->bptr, p->bptr, (p->nnz + 1) * sizeof(int64_t)},
                {&dp->bentries, p->bentries,
                 (size_t)(p->has_bsr && p->bptr[p->nnz] ? p->bptr[p->nnz] : 1) *
                     sizeof(uint64_t)}};
  const int n = p->has_bsr ? 4 : 2;
  for (int i = 0; i < n; ++i) {
    if (*parts[i].mem)
      continue;
    if ((cl_ulong)parts[i].bytes > o->max_alloc_bytes)
      return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                         "the contact plan's gather list needs %zu bytes in "
                         "one buffer, more than the device's maximum "
                         "allocation",
                         parts[i].bytes);
    cl_int err = CL_SUCCESS;
    fricl__ocl_moved(o, parts[i].bytes, 0);
    /* On unified memory the device reads the plan's own arrays (they live
     * as long as the buffers); elsewhere they are copied once. */
    *parts[i].mem = FRICL__CL(clCreateBuffer)(
        o->cl_ctx,
        CL_MEM_READ_ONLY |
            (o->host_unified ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR),
        parts[i].bytes, (void *)(uintptr_t)parts[i].src, &err);
    if (err != CL_SUCCESS) {
      *parts[i].mem = NULL;
      return fricl__fail_cl(ctx, err, "clCreateBuffer (contact plan)");
    }
  }
  *out = dp;
  return FRICL_STATUS_OK;
}

/* ------------------------------------------------------------- tiers */

static void init_state(run_state *rs, fricl__ocl *o, fricl_precision prec,
                       fricl_mu_profile profile, fricl_psd psd, uint32_t flags,
                       int dim, size_t nv, double eps, size_t n_groups,
                       fricl_tangential_plan *plan) {
  memset(rs, 0, sizeof *rs);
  rs->o = o;
  rs->ctx = o->base.ctx;
  rs->prec = prec;
  rs->profile = profile;
  rs->psd = psd;
  rs->flags = flags;
  rs->dim = dim;
  rs->nv = nv;
  rs->eps = eps;
  rs->n_groups = n_groups;
  rs->plan = plan;
  rs->esz = fricl__elem_bytes(prec);
}

fricl_status fricl__tan_host_begin(fricl__ocl *o,
                                   const fricl_tangential_batch *b,
                                   fricl_tangential_plan *plan, int gather,
                                   gview *views, run_state *rs) {
  if (!gather)
    plan = NULL;
  init_state(rs, o, b->precision, b->mu_profile, b->psd, b->flags, b->dim,
             b->n_vertices, b->eps_v, b->n_groups, plan);
  rs->mollifier = b->mollifier;
  fricl_status st =
      plan ? fricl__tan_plan_upload(o, plan, &rs->dp) : FRICL_STATUS_OK;
  if (st != FRICL_STATUS_OK)
    return st;
  rs->is_host = 1;
  rs->want_pot = b->potential != NULL;
  rs->want_grad = b->gradient != NULL;
  rs->want_prod = b->hessian_product != NULL;
  rs->want_hess = b->hessian_values != NULL;
  rs->rstride =
      rs->want_prod || rs->want_hess ? FRICL_REC_STRIDE : FRICL_REC_STRIDE_GRAD;
  rs->groups = views;
  for (size_t g = 0; g < b->n_groups; ++g)
    view_host(&views[g], &b->groups[g]);
  const size_t vbytes = rs->nv * (size_t)rs->dim * rs->esz;
  const size_t hbytes = plan && rs->want_hess
                            ? plan->nnz * (size_t)(rs->dim * rs->dim) * rs->esz
                            : 0;
  const void *src[5] = {b->velocities, b->direction, b->gradient,
                        b->hessian_product, b->hessian_values};
  const size_t bytes[5] = {vbytes, rs->want_prod ? vbytes : 0,
                           gather && rs->want_grad ? vbytes : 0,
                           gather && rs->want_prod ? vbytes : 0, hbytes};
  memcpy(rs->gbytes, bytes, sizeof bytes);
  for (int i = 0; i < 5 && st == FRICL_STATUS_OK; ++i)
    /* Global outputs accumulate over chunks: read and written. */
    st = fricl__ocl_host_buffer(o, SLOT_GLOBAL0 + i, src[i], bytes[i],
                                i >= 2 ? FRICL__HOST_INOUT : FRICL__HOST_IN,
                                &rs->owned[i], &rs->own[i]);
  rs->vel = (abuf){rs->owned[0], 0};
  rs->dir = (abuf){rs->owned[1], 0};
  rs->grad = (abuf){rs->owned[2], 0};
  rs->prod = (abuf){rs->owned[3], 0};
  rs->hess = (abuf){rs->owned[4], 0};
  if (st == FRICL_STATUS_OK && gather && rs->want_pot) {
    cl_mem pm = NULL;
    st = fricl__ocl_staging(o, SLOT_POT, rs->esz, &pm);
    rs->pot = (abuf){pm, 0};
  }
  return st;
}

fricl_status fricl__tan_host_end(run_state *rs, const fricl_tangential_batch *b,
                                 int gather, fricl_status st) {
  fricl__ocl *o = rs->o;
  const void *dst[5] = {NULL, NULL, b->gradient, b->hessian_product,
                        b->hessian_values};
  for (int i = 2; i < 5 && gather && st == FRICL_STATUS_OK; ++i)
    st = fricl__ocl_read_back(o, rs->owned[i], (void *)(uintptr_t)dst[i],
                              rs->gbytes[i]);
  if (st == FRICL_STATUS_OK && gather && rs->want_pot) {
    fricl__ocl_moved(o, 0, rs->esz);
    const cl_int err =
        FRICL__CL(clEnqueueReadBuffer)(o->queue, rs->pot.mem, CL_TRUE, 0,
                                       rs->esz, b->potential, 0, NULL, NULL);
    if (err != CL_SUCCESS)
      st = fricl__fail_cl(rs->ctx, err, "reading the potential");
  }
  /* Also on error: nothing enqueued may outlive the caller's pointers. */
  clFinish(o->queue);
  release_owned(rs->owned, rs->own, 5);
  return st;
}

fricl_status fricl__ocl_tangential(fricl__backend *be,
                                   const fricl__tangential_work *w) {
  fricl__ocl *o = (fricl__ocl *)be;
  const fricl_tangential_batch *b = w->b;
  /* The device gathers through the plan's lists; without a plan, the
   * context's cached lists of this topology. */
  fricl_tangential_plan *plan = w->plan;
  fricl_status st = FRICL_STATUS_OK;
  if (!plan && (b->gradient || b->hessian_product))
    st = fricl__plan_lookup(be->ctx, b->dim, b->n_vertices, b->n_groups,
                            b->groups, &plan);
  if (st != FRICL_STATUS_OK)
    return st;
  run_state rs;
  gview views[64];
  st = fricl__tan_host_begin(o, b, plan, 1, views, &rs);
  sync_state sy = {0, NULL};
  if (st == FRICL_STATUS_OK)
    st = run(&rs, &sy, w->need_hess);
  return fricl__tan_host_end(&rs, b, 1, st);
}

static void view_cl(gview *v, const fricl_contact_group_cl *G) {
  memset(v, 0, sizeof *v);
  v->type = G->type;
  v->count = G->count;
  const fricl_buffer_cl p[NARR] = {
      G->vertices,        G->closest_point, G->tangent_basis,  G->normal_force,
      G->weight,          G->mu_s,          G->mu_k,           G->mu_aniso,
      G->potential,       G->local_hessian, G->factored_gamma, G->factored_grad,
      G->factored_hessian};
  memcpy(v->dev, p, sizeof p);
}

fricl_status fricl__ocl_tangential_enqueue(fricl__ocl *o,
                                           const fricl_tangential_batch_cl *b,
                                           fricl_tangential_plan *plan,
                                           int need_hess, cl_uint num_wait,
                                           const cl_event *wait,
                                           cl_event *done) {
  run_state rs;
  init_state(&rs, o, b->precision, b->mu_profile, b->psd, b->flags, b->dim,
             b->n_vertices, b->eps_v, b->n_groups, plan);
  rs.mollifier = b->mollifier;
  fricl_status st =
      plan ? fricl__tan_plan_upload(o, plan, &rs.dp) : FRICL_STATUS_OK;
  if (st != FRICL_STATUS_OK)
    return st;
  rs.is_host = 0;
  rs.want_pot = b->potential.mem != NULL;
  rs.want_grad = b->gradient.mem != NULL;
  rs.want_prod = b->hessian_product.mem != NULL;
  rs.want_hess = b->hessian_values.mem != NULL;
  rs.rstride =
      rs.want_prod || rs.want_hess ? FRICL_REC_STRIDE : FRICL_REC_STRIDE_GRAD;
  gview views[64];
  rs.groups = views;
  for (size_t g = 0; g < b->n_groups; ++g)
    view_cl(&views[g], &b->groups[g]);
  rs.vel = (abuf){b->velocities.mem, b->velocities.offset};
  rs.dir = (abuf){b->direction.mem, b->direction.offset};
  rs.grad = (abuf){b->gradient.mem, b->gradient.offset};
  rs.prod = (abuf){b->hessian_product.mem, b->hessian_product.offset};
  rs.hess = (abuf){b->hessian_values.mem, b->hessian_values.offset};
  rs.pot = (abuf){b->potential.mem, b->potential.offset};
  sync_state sy = {num_wait, wait};
  st = run(&rs, &sy, need_hess);
  if (st == FRICL_STATUS_OK && done)
    st = fricl__ocl_marker(o, sy.num_wait, sy.wait, done);
  return st;
}
