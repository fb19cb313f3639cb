/* tangential_cl.c - the tangential potential on an OpenCL device: one
 * specialised per-contact kernel per group, then the gathers that assemble
 * the global outputs, chunk after chunk of contacts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "tangential.h"

#include "../kernels/fricl_cl_compat.h"
#include "../kernels/fricl_tangential_codes.h"

#define REAL_NAME(p) ((p) == FRICL_F64 ? "double" : "float")

static const char *const headers[] = {
    "fricl_cl_compat.h", "fricl_scalar_math.h", "fricl_tangential_codes.h",
    "fricl_tangential_math.h", NULL};

static int prec_defines(char *buf, size_t n, fricl_precision p, int dim) {
  return snprintf(
      buf, n,
      "%s#define FRICL_REAL %s\n#define FRICL_FN(name) fricl_##name\n"
      "#define FRICL_FABS fabs\n#define FRICL_SQRT sqrt\n#define FRICL_DIM "
      "%d\n",
      p == FRICL_F64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
      REAL_NAME(p), dim);
}

static fricl_status get_kernel(fricl_context *ctx, const char *name,
                               const char *defines, cl_kernel *k) {
  return fricl__kernel_get(ctx, "fricl_tangential.cl", headers, name, defines,
                           k, NULL);
}

/* A buffer over host memory: wrapped (zero copy) on unified-memory
 * devices, else a device buffer (inputs copied in at creation). */
static fricl_status host_buf(fricl_context *ctx, const void *ptr, size_t bytes,
                             int is_out, cl_mem *mem) {
  *mem = NULL;
  if (!ptr || !bytes)
    return FRICL_STATUS_OK;
  if ((cl_ulong)bytes > ctx->max_alloc_bytes)
    return fricl__fail(ctx, FRICL_STATUS_UNSUPPORTED,
                       "an array of %zu bytes exceeds the device's maximum "
                       "allocation (%llu bytes); vertex arrays and the "
                       "Hessian values are not chunked",
                       bytes, (unsigned long long)ctx->max_alloc_bytes);
  cl_mem_flags f = is_out ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY;
  if (ctx->host_unified)
    f |= CL_MEM_USE_HOST_PTR;
  else if (!is_out)
    f |= CL_MEM_COPY_HOST_PTR;
  cl_int err = CL_SUCCESS;
  *mem = FRICL__CL(clCreateBuffer)(
      ctx->cl_ctx, f, bytes,
      (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))
          ? (void *)(uintptr_t)ptr
          : NULL,
      &err);
  if (err != CL_SUCCESS) {
    *mem = NULL;
    return fricl__fail_cl(ctx, err, "clCreateBuffer");
  }
  return FRICL_STATUS_OK;
}

/* Scratch buffers live in the context's grow-only staging slots (after
 * the scalar family's 16), so that repeated evaluations - every Newton
 * iteration - do not allocate and first-touch them again. */
enum { SLOT_REC = 16, SLOT_DALL = 17, SLOT_PARTIAL = 18 };

static fricl_status dev_buf(fricl_context *ctx, int slot, size_t bytes,
                            cl_mem *mem) {
  return fricl__staging_get(ctx, slot, bytes ? bytes : 1, mem);
}

/* Make the device's writes to an output buffer visible at dst. */
static fricl_status read_out(fricl_context *ctx, cl_mem mem, void *dst,
                             size_t bytes) {
  if (!mem)
    return FRICL_STATUS_OK;
  cl_int err;
  if (ctx->host_unified) {
    void *p = FRICL__CL(clEnqueueMapBuffer)(
        ctx->queue, mem, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &err);
    if (err == CL_SUCCESS) {
      if (p != dst)
        memcpy(dst, p, bytes);
      err = clEnqueueUnmapMemObject(ctx->queue, mem, p, 0, NULL, NULL);
    }
  } else {
    err = FRICL__CL(clEnqueueReadBuffer)(ctx->queue, mem, CL_TRUE, 0, bytes,
                                         dst, 0, NULL, NULL);
  }
  return err == CL_SUCCESS ? FRICL_STATUS_OK
                           : fricl__fail_cl(ctx, err, "reading results back");
}

static void release(cl_mem *m, int n) {
  for (int i = 0; i < n; ++i)
    if (m[i]) {
      clReleaseMemObject(m[i]);
      m[i] = NULL;
    }
}

static cl_int set_args(cl_kernel k, int n, const void *const *vals,
                       const size_t *sizes) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n && err == CL_SUCCESS; ++i)
    err = clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]);
  return err;
}

/* Enqueue n work items, then unbind the buffer arguments (see
 * fricl__kernel_unbind). */
static fricl_status launch(fricl_context *ctx, cl_kernel k, size_t n,
                           const cl_uint *mem_args, int n_mem) {
  cl_int err = CL_SUCCESS;
  if (n)
    err = FRICL__CL(clEnqueueNDRangeKernel)(ctx->queue, k, 1, NULL, &n, NULL, 0,
                                            NULL, NULL);
  fricl__kernel_unbind(k, mem_args, n_mem);
  return err == CL_SUCCESS ? FRICL_STATUS_OK
                           : fricl__fail_cl(ctx, err, "clEnqueueNDRangeKernel");
}

/* Everything one evaluation holds on the device. */
typedef struct {
  fricl_context *ctx;
  const fricl_tangential_batch *b;
  fricl_tangential_plan *plan;
  size_t esz;
  cl_mem vel, dir, grad, prod, hess; /* whole arrays */
  cl_mem rec, dall, partial;         /* per chunk scratch */
  double pot_d;
  float pot_f;
} run_state;

/* Run the contact kernel over contacts [lo, hi) of group g. */
static fricl_status contacts_slice(run_state *rs, size_t g, size_t lo,
                                   size_t hi, size_t rec_base, int need_hess) {
  fricl_context *ctx = rs->ctx;
  const fricl_tangential_batch *b = rs->b;
  const fricl_contact_group *G = &b->groups[g];
  const size_t n = hi - lo, esz = rs->esz, dim = (size_t)b->dim, m = dim - 1;
  const size_t k = (size_t)fricl_stencil_vertex_count(G->type);
  const size_t nb = (size_t)fricl_stencil_coord_count(G->type);
  const size_t ndof = k * dim, npk = dim * (dim + 1) / 2;
  unsigned mask = 0;
  if (G->potential)
    mask |= 0x01;
  if (G->local_hessian)
    mask |= 0x02;
  if (G->factored_gamma)
    mask |= 0x04;
  if (G->factored_grad)
    mask |= 0x08;
  if (G->factored_hessian)
    mask |= 0x10;
  if (rs->rec)
    mask |= 0x20;
  if (b->potential)
    mask |= 0x40;
  if (rs->prod)
    mask |= 0x80;
  char defines[1024];
  int off = prec_defines(defines, sizeof defines, b->precision, b->dim);
  snprintf(defines + off, sizeof defines - (size_t)off,
           "#define FRICL_STENCIL %d\n#define FRICL_K %zu\n#define FRICL_NB "
           "%zu\n#define FRICL_PROFILE %d\n#define FRICL_PSD %d\n#define "
           "FRICL_IPCTK_ABS %d\n#define FRICL_NEED_HESS %d\n#define "
           "FRICL_HAS_WEIGHT %d\n#define FRICL_HAS_ANISO %d\n#define "
           "FRICL_OUT_MASK 0x%02xu\n",
           (int)G->type, k, nb, (int)b->mu_profile, (int)b->psd,
           (b->flags & FRICL_TANGENTIAL_FLAG_IPCTK_ABS) != 0, need_hess,
           G->weight != NULL, G->mu_aniso != NULL, mask);
  cl_kernel kern = NULL;
  fricl_status st =
      get_kernel(ctx, "fricl_tangential_contacts", defines, &kern);
  if (st != FRICL_STATUS_OK)
    return st;
  enum { NIN = 8, NOUT = 5 };
  const void *in_p[NIN] = {G->vertices,     G->closest_point, G->tangent_basis,
                           G->normal_force, G->weight,        G->mu_s,
                           G->mu_k,         G->mu_aniso};
  const size_t in_per[NIN] = {k * sizeof(int32_t),
                              nb * esz,
                              dim * m * esz,
                              esz,
                              esz,
                              esz,
                              esz,
                              m * esz};
  void *out_p[NOUT] = {G->potential, G->local_hessian, G->factored_gamma,
                       G->factored_grad, G->factored_hessian};
  const size_t out_per[NOUT] = {esz, ndof * ndof * esz, k * esz, dim * esz,
                                npk * esz};
  cl_mem mem[NIN + NOUT] = {0};
  for (int i = 0; i < NIN && st == FRICL_STATUS_OK; ++i)
    if (in_p[i] && in_per[i])
      st = host_buf(ctx, (const char *)in_p[i] + lo * in_per[i], n * in_per[i],
                    0, &mem[i]);
  for (int i = 0; i < NOUT && st == FRICL_STATUS_OK; ++i)
    if (out_p[i])
      st = host_buf(ctx, (char *)out_p[i] + lo * out_per[i], n * out_per[i], 1,
                    &mem[NIN + i]);
  if (st == FRICL_STATUS_OK) {
    const cl_ulong n64 = n, base64 = rec_base;
    const double eps_d = b->eps_v;
    const float eps_f = (float)b->eps_v;
    const void *vals[21] = {&n64,
                            &mem[0],
                            &rs->vel,
                            &rs->dir,
                            &mem[1],
                            &mem[2],
                            &mem[3],
                            &mem[4],
                            &mem[5],
                            &mem[6],
                            &mem[7],
                            b->precision == FRICL_F64 ? (const void *)&eps_d
                                                      : (const void *)&eps_f,
                            &mem[NIN + 0],
                            &mem[NIN + 1],
                            &mem[NIN + 2],
                            &mem[NIN + 3],
                            &mem[NIN + 4],
                            &rs->rec,
                            &rs->dall,
                            &base64,
                            NULL};
    size_t sizes[20];
    for (int i = 0; i < 20; ++i)
      sizes[i] = sizeof(cl_mem);
    sizes[0] = sizes[19] = sizeof(cl_ulong);
    sizes[11] = esz;
    static const cl_uint mem_args[] = {1,  2,  3,  4,  5,  6,  7,  8, 9,
                                       10, 12, 13, 14, 15, 16, 17, 18};
    cl_int err = set_args(kern, 20, vals, sizes);
    st = err == CL_SUCCESS ? launch(ctx, kern, n, mem_args, 17)
                           : fricl__fail_cl(ctx, err, "clSetKernelArg");
  }
  for (int i = 0; i < NOUT && st == FRICL_STATUS_OK; ++i)
    st = read_out(ctx, mem[NIN + i], (char *)out_p[i] + lo * out_per[i],
                  n * out_per[i]);
  clFinish(ctx->queue);
  release(mem, NIN + NOUT);
  return st;
}

static fricl_status gather_vec(run_state *rs, cl_mem out, int field, size_t c0,
                               size_t c1) {
  char defines[512];
  prec_defines(defines, sizeof defines, rs->b->precision, rs->b->dim);
  cl_kernel k = NULL;
  fricl_status st =
      get_kernel(rs->ctx, "fricl_tangential_gather_vec", defines, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const cl_ulong nv = rs->b->n_vertices, a = c0, z = c1;
  const cl_int fld = field, first = c0 == 0;
  const void *vals[9] = {&nv,
                         &rs->plan->d_vptr,
                         &rs->plan->d_ventries,
                         &rs->rec,
                         &a,
                         &z,
                         &fld,
                         &first,
                         &out};
  const size_t sizes[9] = {sizeof nv,      sizeof(cl_mem), sizeof(cl_mem),
                           sizeof(cl_mem), sizeof a,       sizeof z,
                           sizeof fld,     sizeof first,   sizeof(cl_mem)};
  static const cl_uint mem_args[] = {1, 2, 3, 8};
  cl_int err = set_args(k, 9, vals, sizes);
  return err == CL_SUCCESS ? launch(rs->ctx, k, rs->b->n_vertices, mem_args, 4)
                           : fricl__fail_cl(rs->ctx, err, "clSetKernelArg");
}

static fricl_status gather_bsr(run_state *rs, size_t c0, size_t c1) {
  char defines[512];
  prec_defines(defines, sizeof defines, rs->b->precision, rs->b->dim);
  cl_kernel k = NULL;
  fricl_status st =
      get_kernel(rs->ctx, "fricl_tangential_gather_bsr", defines, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const cl_ulong nnz = rs->plan->nnz, a = c0, z = c1;
  const cl_int first = c0 == 0;
  const void *vals[8] = {
      &nnz,   &rs->plan->d_bptr, &rs->plan->d_bentries, &rs->rec, &a, &z,
      &first, &rs->hess};
  const size_t sizes[8] = {sizeof nnz,     sizeof(cl_mem), sizeof(cl_mem),
                           sizeof(cl_mem), sizeof a,       sizeof z,
                           sizeof first,   sizeof(cl_mem)};
  static const cl_uint mem_args[] = {1, 2, 3, 7};
  cl_int err = set_args(k, 8, vals, sizes);
  return err == CL_SUCCESS ? launch(rs->ctx, k, rs->plan->nnz, mem_args, 4)
                           : fricl__fail_cl(rs->ctx, err, "clSetKernelArg");
}

/* Add the chunk's block partial sums to the running total, in order. */
static fricl_status sum_potential(run_state *rs, size_t n) {
  char defines[512];
  prec_defines(defines, sizeof defines, rs->b->precision, rs->b->dim);
  cl_kernel k = NULL;
  fricl_status st =
      get_kernel(rs->ctx, "fricl_tangential_block_sum", defines, &k);
  if (st != FRICL_STATUS_OK)
    return st;
  const size_t nblk = (n + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK;
  const cl_ulong n64 = n, blk = FRICL__POT_BLOCK;
  const void *vals[4] = {&n64, &blk, &rs->dall, &rs->partial};
  const size_t sizes[4] = {sizeof n64, sizeof blk, sizeof(cl_mem),
                           sizeof(cl_mem)};
  cl_int err = set_args(k, 4, vals, sizes);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(rs->ctx, err, "clSetKernelArg");
  static const cl_uint mem_args[] = {2, 3};
  st = launch(rs->ctx, k, nblk, mem_args, 2);
  if (st != FRICL_STATUS_OK)
    return st;
  void *host = fricl__malloc(nblk * rs->esz);
  if (!host)
    return fricl__fail(rs->ctx, FRICL_STATUS_OUT_OF_MEMORY,
                       "allocating %zu partial sums", nblk);
  err = FRICL__CL(clEnqueueReadBuffer)(rs->ctx->queue, rs->partial, CL_TRUE, 0,
                                       nblk * rs->esz, host, 0, NULL, NULL);
  if (err == CL_SUCCESS) {
    for (size_t i = 0; i < nblk; ++i) {
      if (rs->b->precision == FRICL_F64)
        rs->pot_d += ((const double *)host)[i];
      else
        rs->pot_f += ((const float *)host)[i];
    }
  }
  free(host);
  return err == CL_SUCCESS ? FRICL_STATUS_OK
                           : fricl__fail_cl(rs->ctx, err, "reading partials");
}

fricl_status fricl__tangential_cl(fricl_context *ctx,
                                  const fricl_tangential_batch *b,
                                  fricl_tangential_plan *plan, int need_hess) {
  run_state rs = {0};
  rs.ctx = ctx;
  rs.b = b;
  rs.plan = plan;
  rs.esz = fricl__elem_bytes(b->precision);
  const size_t dim = (size_t)b->dim, vbytes = b->n_vertices * dim * rs.esz;
  size_t total = 0, max_per = FRICL_REC_STRIDE * rs.esz;
  for (size_t g = 0; g < b->n_groups; ++g) {
    const fricl_contact_group *G = &b->groups[g];
    const size_t ndof = (size_t)fricl_stencil_vertex_count(G->type) * dim;
    total += G->count;
    if (G->local_hessian && ndof * ndof * rs.esz > max_per)
      max_per = ndof * ndof * rs.esz;
  }
  /* Chunks of contacts: as many as one allocation of the largest
   * per-contact array holds, a multiple of the potential's sum block. */
  size_t chunk = fricl__chunk_elements(ctx, max_per);
  if (chunk > FRICL__POT_BLOCK)
    chunk -= chunk % FRICL__POT_BLOCK;
  else
    chunk = FRICL__POT_BLOCK < total ? FRICL__POT_BLOCK : (total ? total : 1);
  const size_t cap = total < chunk ? total : chunk;

  fricl_status st = host_buf(ctx, b->velocities, vbytes, 0, &rs.vel);
  if (st == FRICL_STATUS_OK && b->hessian_product)
    st = host_buf(ctx, b->direction, vbytes, 0, &rs.dir);
  if (st == FRICL_STATUS_OK && b->gradient)
    st = host_buf(ctx, b->gradient, vbytes, 1, &rs.grad);
  if (st == FRICL_STATUS_OK && b->hessian_product)
    st = host_buf(ctx, b->hessian_product, vbytes, 1, &rs.prod);
  if (st == FRICL_STATUS_OK && b->hessian_values)
    st = host_buf(ctx, b->hessian_values, plan->nnz * dim * dim * rs.esz, 1,
                  &rs.hess);
  if (st == FRICL_STATUS_OK && (rs.grad || rs.prod || rs.hess) && cap)
    st = dev_buf(ctx, SLOT_REC, cap * FRICL_REC_STRIDE * rs.esz, &rs.rec);
  if (st == FRICL_STATUS_OK && b->potential && cap) {
    st = dev_buf(ctx, SLOT_DALL, cap * rs.esz, &rs.dall);
    if (st == FRICL_STATUS_OK)
      st = dev_buf(ctx, SLOT_PARTIAL,
                   (cap + FRICL__POT_BLOCK - 1) / FRICL__POT_BLOCK * rs.esz,
                   &rs.partial);
  }

  for (size_t c0 = 0; c0 < total && st == FRICL_STATUS_OK; c0 += chunk) {
    const size_t c1 = c0 + fricl__chunk_len(total, c0, chunk);
    size_t gbase = 0;
    for (size_t g = 0; g < b->n_groups && st == FRICL_STATUS_OK; ++g) {
      const size_t n = b->groups[g].count;
      const size_t lo = c0 > gbase ? c0 - gbase : 0;
      const size_t hi = c1 - gbase < n ? c1 - gbase : n;
      if (c1 > gbase && lo < n && lo < hi)
        st = contacts_slice(&rs, g, lo, hi, gbase + lo - c0, need_hess);
      gbase += n;
    }
    if (st == FRICL_STATUS_OK && b->potential)
      st = sum_potential(&rs, c1 - c0);
    if (st == FRICL_STATUS_OK && rs.grad)
      st = gather_vec(&rs, rs.grad, FRICL_REC_Q, c0, c1);
    if (st == FRICL_STATUS_OK && rs.prod)
      st = gather_vec(&rs, rs.prod, FRICL_REC_T, c0, c1);
    if (st == FRICL_STATUS_OK && rs.hess)
      st = gather_bsr(&rs, c0, c1);
    if (st == FRICL_STATUS_OK)
      clFinish(ctx->queue);
  }
  if (st == FRICL_STATUS_OK) {
    /* With no contacts the gathers never ran: the sums are zero. */
    if (total == 0) {
      if (b->gradient)
        memset(b->gradient, 0, vbytes);
      if (b->hessian_product)
        memset(b->hessian_product, 0, vbytes);
      if (b->hessian_values && plan->nnz)
        memset(b->hessian_values, 0, plan->nnz * dim * dim * rs.esz);
    } else {
      st = read_out(ctx, rs.grad, b->gradient, vbytes);
      if (st == FRICL_STATUS_OK)
        st = read_out(ctx, rs.prod, b->hessian_product, vbytes);
      if (st == FRICL_STATUS_OK && rs.hess)
        st = read_out(ctx, rs.hess, b->hessian_values,
                      plan->nnz * dim * dim * rs.esz);
    }
  }
  if (st == FRICL_STATUS_OK && b->potential) {
    if (b->precision == FRICL_F64)
      *(double *)b->potential = rs.pot_d;
    else
      *(float *)b->potential = rs.pot_f;
  }
  clFinish(ctx->queue);
  cl_mem all[5] = {rs.vel, rs.dir, rs.grad, rs.prod, rs.hess};
  release(all, 5); /* the scratch buffers belong to the context */
  return st;
}
