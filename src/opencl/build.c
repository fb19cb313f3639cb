/* build.c - the lagged build on an OpenCL device: one specialised kernel
 * per group, launched chunk after chunk of contacts over buffers that wrap
 * the caller's arrays (zero copy on unified-memory devices, copies
 * elsewhere). */
#include <stdio.h>
#include <string.h>

#include "core/fault.h"
#include "opencl/build_launch.h"

static const char *const headers[] = {"fricl_cl_compat.h",
                                      "fricl_distance_math.h",
                                      "fricl_geometry_math.h", NULL};

static fricl_status build_kernel(fricl__ocl *o, const fricl__build_launch *l,
                                 unsigned mask, cl_kernel *k) {
  char defines[1024];
  const int off =
      fricl__ocl_precision_defines(defines, sizeof defines, l->precision);
  snprintf(defines + off, sizeof defines - (size_t)off,
           "#define FRICL_SQRT sqrt\n#define FRICL_LOG log\n"
           "#define FRICL_DIM %d\n#define FRICL_STENCIL %d\n#define FRICL_K "
           "%d\n#define FRICL_NB %d\n#define FRICL_STENCIL_IS_EE %d\n#define "
           "FRICL_STENCIL_IS_PV %d\n#define FRICL_HAS_REST %d\n#define "
           "FRICL_MUS_MODE %d\n#define FRICL_MUK_MODE %d\n#define FRICL_BLEND "
           "%d\n#define FRICL_PHYSICAL %d\n#define FRICL_HAS_DMIN %d\n#define "
           "FRICL_HAS_WEIGHT %d\n#define FRICL_OUT_MASK 0x%02xu\n",
           l->dim, (int)l->type, fricl__stencil_vertex_count(l->type),
           fricl__stencil_coord_count(l->type), l->type == FRICL_STENCIL_EE,
           l->type == FRICL_STENCIL_PV, l->Xrest != NULL, l->mus_mode,
           l->muk_mode, l->blend, l->physical != 0, l->dmin != NULL,
           l->w != NULL, mask);
  return fricl__ocl_kernel(o, "fricl_build.cl", headers, "fricl_build_contacts",
                           defines, k, NULL);
}

#define set_real fricl__ocl_set_real

fricl_status fricl__build_enqueue(fricl__ocl *o, const fricl__build_launch *l) {
  /* The outputs given, bit i of the mask for outs[i] (FRICL__BO_*): beta
   * only for stencils with closest-point coordinates. */
  _Static_assert(FRICL__BO_BETA == 1u && FRICL__BO_STATUS == 1u << 7,
                 "FRICL__BO_* are the bits 0 .. 7 in the order of outs");
  const cl_mem outs[8] = {fricl__stencil_coord_count(l->type) > 0 ? l->beta
                                                                  : NULL,
                          l->P,
                          l->N,
                          l->gN,
                          l->wout,
                          l->musout,
                          l->mukout,
                          l->status};
  unsigned mask = 0;
  for (unsigned i = 0; i < 8; ++i)
    mask |= outs[i] ? 1u << i : 0u;
  cl_kernel k = NULL;
  fricl_status st = build_kernel(o, l, mask, &k);
  if (st != FRICL_STATUS_OK || l->n == 0)
    return st;
  const cl_mem mus = l->mus_mode == FRICL__MU_VERTEX ? l->vmus : l->mus;
  const cl_mem muk = l->muk_mode == FRICL__MU_VERTEX ? l->vmuk : l->muk;
  const size_t mus_off =
      l->mus_mode == FRICL__MU_VERTEX ? l->vmus_off : l->mus_off;
  const size_t muk_off =
      l->muk_mode == FRICL__MU_VERTEX ? l->vmuk_off : l->muk_off;
  /* Argument list: (index, buffer, offset) for buffers, reals apart. */
  const struct {
    cl_uint idx;
    cl_mem mem;
    size_t off;
  } bufs[] = {
      {3, l->vert, l->vert_off},
      {5, l->X, l->X_off},
      {7, l->Xrest ? l->Xrest : l->X, l->Xrest ? l->Xrest_off : l->X_off},
      {9, l->pn, l->pn_off},
      {11, l->pc, l->pc_off},
      {13, l->dmin, l->dmin_off},
      {16, l->w, l->w_off},
      {18, mus, mus_off},
      {21, muk, muk_off},
      {26, l->beta, l->beta_off},
      {28, l->P, l->P_off},
      {30, l->N, l->N_off},
      {32, l->gN, l->gN_off},
      {34, l->wout, l->wout_off},
      {36, l->musout, l->musout_off},
      {38, l->mukout, l->mukout_off},
      {40, l->status, l->status_off}};
  enum { NBUF = sizeof bufs / sizeof bufs[0] };
  const cl_ulong n64 = l->n, c064 = l->c0, nv64 = l->nv;
  cl_int err = clSetKernelArg(k, 0, sizeof n64, &n64);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, 1, sizeof c064, &c064);
  if (err == CL_SUCCESS)
    err = clSetKernelArg(k, 2, sizeof nv64, &nv64);
  for (int i = 0; i < NBUF && err == CL_SUCCESS; ++i) {
    const cl_ulong off = bufs[i].off;
    err = clSetKernelArg(k, bufs[i].idx, sizeof(cl_mem), &bufs[i].mem);
    if (err == CL_SUCCESS)
      err = clSetKernelArg(k, bufs[i].idx + 1, sizeof off, &off);
  }
  const struct {
    cl_uint idx;
    double v;
  } reals[] = {{15, l->dmin_s},
               {20, l->mus_s},
               {23, l->muk_s},
               {24, l->kappa},
               {25, l->dhat}};
  for (size_t i = 0; i < sizeof reals / sizeof reals[0] && err == CL_SUCCESS;
       ++i)
    err = set_real(k, reals[i].idx, l->precision, reals[i].v);
  const int set_ok = err == CL_SUCCESS;
  if (set_ok)
    err = fricl__ocl_launch(o, k, l->n, l->num_wait, l->wait, l->done);
  /* Also on failure: the cached kernel must not keep handles of buffers
   * that are released later (some runtimes read them when an argument is
   * set again). */
  cl_uint mem_args[NBUF];
  for (int i = 0; i < NBUF; ++i)
    mem_args[i] = bufs[i].idx;
  fricl__kernel_unbind(k, mem_args, NBUF);
  if (err != CL_SUCCESS)
    return fricl__fail_cl(o->base.ctx, err,
                          set_ok ? "clEnqueueNDRangeKernel" : "clSetKernelArg");
  return FRICL_STATUS_OK;
}

/* ------------------------------------------------------------ host tier */

/* Release the wrapped host arrays (staging buffers are the backend's). */
static void release_owned(cl_mem *m, const int *own, int n) {
  for (int i = 0; i < n; ++i)
    if (m[i] && own[i]) {
      clReleaseMemObject(m[i]);
      m[i] = NULL;
    }
}

/* Staging slots: the vertex arrays, then the group arrays of a slice. */
enum { SLOT_VERTEX0 = FRICL__SLOT_BUILD, SLOT_GROUP0 = FRICL__SLOT_BUILD + 4 };

enum {
  IN_VERT,
  IN_PN,
  IN_PC,
  IN_DMIN,
  IN_W,
  IN_MUS,
  IN_MUK,
  NIN,
  OUT_BETA = 0,
  OUT_P,
  OUT_N,
  OUT_GN,
  OUT_W,
  OUT_MUS,
  OUT_MUK,
  OUT_STATUS,
  NOUT
};

/* Contacts [lo, hi) of group g. */
static fricl_status group_slice(fricl__ocl *o, const fricl_build_batch *b,
                                fricl__build_launch *l, size_t g, size_t lo,
                                size_t hi, uint8_t *status) {
  const fricl_build_group *G = &b->groups[g];
  const size_t n = hi - lo, esz = fricl__elem_bytes(b->precision);
  const size_t dim = (size_t)b->dim, m = dim - 1;
  const size_t k = (size_t)fricl__stencil_vertex_count(G->type);
  const size_t nb = (size_t)fricl__stencil_coord_count(G->type);
  const int pv = G->type == FRICL_STENCIL_PV;
  const void *in_p[NIN] = {G->vertices,
                           pv ? G->plane_normal : NULL,
                           pv ? G->plane_offset : NULL,
                           G->dmin,
                           G->weight,
                           G->mu_s,
                           G->mu_k};
  const size_t in_per[NIN] = {
      k * sizeof(int32_t), dim * esz, esz, esz, esz, esz, esz};
  void *out_p[NOUT] = {nb ? G->closest_point : NULL,
                       G->tangent_basis,
                       G->normal_force,
                       G->normal_force_gradient,
                       G->weight_out,
                       G->mu_s_out,
                       G->mu_k_out,
                       status};
  const size_t out_per[NOUT] = {nb * esz, dim * m * esz, esz, k * dim * esz,
                                esz,      esz,           esz, 1};
  cl_mem mem[NIN + NOUT] = {0};
  int own[NIN + NOUT] = {0};
  fricl_status st = FRICL_STATUS_OK;
  for (int i = 0; i < NIN && st == FRICL_STATUS_OK; ++i)
    if (in_p[i])
      st = fricl__ocl_host_buffer(
          o, SLOT_GROUP0 + i, (const char *)in_p[i] + lo * in_per[i],
          n * in_per[i], FRICL__HOST_IN, &mem[i], &own[i]);
  for (int i = 0; i < NOUT && st == FRICL_STATUS_OK; ++i)
    if (out_p[i])
      st = fricl__ocl_host_buffer(
          o, SLOT_GROUP0 + NIN + i, (char *)out_p[i] + lo * out_per[i],
          n * out_per[i], FRICL__HOST_OUT, &mem[NIN + i], &own[NIN + i]);
  if (st == FRICL_STATUS_OK) {
    l->type = G->type;
    l->mus_mode = fricl__mu_mode(G->mu_s, b->vertex_mu_s);
    l->muk_mode = fricl__mu_mode(G->mu_k, b->vertex_mu_k);
    l->vert = mem[IN_VERT];
    l->pn = mem[IN_PN];
    l->pc = mem[IN_PC];
    l->dmin = mem[IN_DMIN];
    l->w = mem[IN_W];
    l->mus = mem[IN_MUS];
    l->muk = mem[IN_MUK];
    l->beta = mem[NIN + OUT_BETA];
    l->P = mem[NIN + OUT_P];
    l->N = mem[NIN + OUT_N];
    l->gN = mem[NIN + OUT_GN];
    l->wout = mem[NIN + OUT_W];
    l->musout = mem[NIN + OUT_MUS];
    l->mukout = mem[NIN + OUT_MUK];
    l->status = mem[NIN + OUT_STATUS];
    l->c0 = 0;
    l->n = n;
    st = fricl__build_enqueue(o, l);
  }
  for (int i = 0; i < NOUT && st == FRICL_STATUS_OK; ++i)
    st = fricl__ocl_read_back(
        o, mem[NIN + i], (char *)out_p[i] + lo * out_per[i], n * out_per[i]);
  /* Also on error: nothing enqueued may outlive the caller's pointers. */
  clFinish(o->queue);
  release_owned(mem, own, NIN + NOUT);
  return st;
}

/* The launch's scalars, from a host batch or its cl_mem twin (the two
 * name them alike). */
#define LAUNCH_SCALARS(l, b)                                                   \
  do {                                                                         \
    memset(l, 0, sizeof *(l));                                                 \
    (l)->precision = (b)->precision;                                           \
    (l)->dim = (b)->dim;                                                       \
    (l)->physical = ((b)->flags & FRICL_BUILD_FLAG_PHYSICAL_BARRIER) != 0;     \
    (l)->blend = (int)(b)->blend;                                              \
    (l)->kappa = (b)->kappa;                                                   \
    (l)->dhat = (b)->dhat;                                                     \
    (l)->dmin_s = (b)->dmin;                                                   \
    (l)->mus_s = (b)->mu_s;                                                    \
    (l)->muk_s = (b)->mu_k;                                                    \
  } while (0)

fricl_status fricl__ocl_build(fricl__backend *be, const fricl__build_work *w) {
  fricl__ocl *o = (fricl__ocl *)be;
  const fricl_build_batch *b = w->b;
  uint8_t *const *status = w->status;
  const size_t esz = fricl__elem_bytes(b->precision);
  const size_t dim = (size_t)b->dim, nv = b->n_vertices;
  fricl__build_launch l;
  LAUNCH_SCALARS(&l, b);
  if (w->total == 0)
    return FRICL_STATUS_OK;
  /* Vertex arrays, whole. */
  const void *vsrc[4] = {b->lagged_positions, b->rest_positions, b->vertex_mu_s,
                         b->vertex_mu_k};
  const size_t vbytes[4] = {nv * dim * esz, nv * dim * esz, nv * esz, nv * esz};
  cl_mem vm[4] = {0};
  int vown[4] = {0};
  fricl_status st = FRICL_STATUS_OK;
  for (int i = 0; i < 4 && st == FRICL_STATUS_OK; ++i)
    if (vsrc[i])
      st = fricl__ocl_host_buffer(o, SLOT_VERTEX0 + i, vsrc[i], vbytes[i],
                                  FRICL__HOST_IN, &vm[i], &vown[i]);
  l.X = vm[0];
  l.Xrest = vm[1];
  l.vmus = vm[2];
  l.vmuk = vm[3];
  /* Chunks: as many contacts as one allocation of the largest per-contact
   * array holds (the gradient: 4 x 3 reals). */
  const size_t chunk = fricl__ocl_chunk_elements(o, 4 * dim * esz);
  for (size_t g = 0; g < b->n_groups && st == FRICL_STATUS_OK; ++g) {
    const size_t n = b->groups[g].count;
    for (size_t lo = 0; lo < n && st == FRICL_STATUS_OK; lo += chunk)
      st = group_slice(o, b, &l, g, lo, lo + fricl__chunk_len(n, lo, chunk),
                       status[g]);
  }
  clFinish(o->queue);
  release_owned(vm, vown, 4);
  return st;
}

/* ------------------------------------------------------------ cl tier */

fricl_status fricl__ocl_build_enqueue(fricl__ocl *o,
                                      const fricl_build_batch_cl *b,
                                      cl_uint num_wait, const cl_event *wait,
                                      cl_event *done) {
  fricl__build_launch l;
  LAUNCH_SCALARS(&l, b);
  /* Device-resident indices are checked by the kernel (0 would trust
   * them; with no vertices, every index is out of range). */
  l.nv = b->n_vertices ? b->n_vertices : 1;
  l.X = b->lagged_positions.mem;
  l.X_off = b->lagged_positions.offset;
  l.Xrest = b->rest_positions.mem;
  l.Xrest_off = b->rest_positions.offset;
  l.vmus = b->vertex_mu_s.mem;
  l.vmus_off = b->vertex_mu_s.offset;
  l.vmuk = b->vertex_mu_k.mem;
  l.vmuk_off = b->vertex_mu_k.offset;
  fricl_status st = FRICL_STATUS_OK;
  for (size_t g = 0; g < b->n_groups && st == FRICL_STATUS_OK; ++g) {
    const fricl_build_group_cl *G = &b->groups[g];
    if (!G->count)
      continue;
    const int pv = G->type == FRICL_STENCIL_PV;
    l.type = G->type;
    l.mus_mode = fricl__mu_mode(G->mu_s.mem, l.vmus);
    l.muk_mode = fricl__mu_mode(G->mu_k.mem, l.vmuk);
    l.vert = G->vertices.mem;
    l.vert_off = G->vertices.offset;
    l.pn = pv ? G->plane_normal.mem : NULL;
    l.pn_off = pv ? G->plane_normal.offset : 0;
    l.pc = pv ? G->plane_offset.mem : NULL;
    l.pc_off = pv ? G->plane_offset.offset : 0;
    l.dmin = G->dmin.mem;
    l.dmin_off = G->dmin.offset;
    l.w = G->weight.mem;
    l.w_off = G->weight.offset;
    l.mus = G->mu_s.mem;
    l.mus_off = G->mu_s.offset;
    l.muk = G->mu_k.mem;
    l.muk_off = G->mu_k.offset;
    l.beta = G->closest_point.mem;
    l.beta_off = G->closest_point.offset;
    l.P = G->tangent_basis.mem;
    l.P_off = G->tangent_basis.offset;
    l.N = G->normal_force.mem;
    l.N_off = G->normal_force.offset;
    l.gN = G->normal_force_gradient.mem;
    l.gN_off = G->normal_force_gradient.offset;
    l.wout = G->weight_out.mem;
    l.wout_off = G->weight_out.offset;
    l.musout = G->mu_s_out.mem;
    l.musout_off = G->mu_s_out.offset;
    l.mukout = G->mu_k_out.mem;
    l.mukout_off = G->mu_k_out.offset;
    l.status = G->status.mem;
    l.status_off = G->status.offset;
    l.c0 = 0;
    l.n = G->count;
    /* The first launch waits for the caller's events; the queue orders
     * the rest. */
    l.num_wait = num_wait;
    l.wait = wait;
    st = fricl__build_enqueue(o, &l);
    if (st == FRICL_STATUS_OK)
      num_wait = 0;
  }
  if (st == FRICL_STATUS_OK && done)
    st = fricl__ocl_marker(o, num_wait, wait, done);
  return st;
}
