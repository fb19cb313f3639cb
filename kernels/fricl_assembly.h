/*
 * fricl_assembly.h - the assembly kernels of the per-contact features
 * (fricl_tangential.cl, fricl_barrier.cl): the plan's gathers of a chunk's
 * contact records into the gradient, the Hessian-vector product and the
 * BSR Hessian, and the potential's ordered block sums. One copy of the
 * order of the additions, which is the host's (test_sum_order checks it
 * bitwise), for every feature.
 *
 * FRICL_ASSEMBLY_KERNELS(feature) defines fricl_<feature>_gather_vec,
 * _gather_bsr, _block_sum and _pot_accumulate. The kernel file defines
 * first what its records hold:
 *   FRICL_ASM_RECORDS       the records' parameters: `rec`, and with a
 *                           stride known only at run time `int rstride`
 *   FRICL_ASM_STRIDE        reals per record
 *   FRICL_ASM_VEC(acc, R, slot, field)  add to acc[0, dim) the term of the
 *                           vertex in stencil slot `slot` of record R for
 *                           record field `field`
 *   FRICL_ASM_BSR(acc, R, si, sj)       add to acc[dim * dim] the block of
 *                           stencil slots (si, sj) of record R
 *   FRICL_ASM_POTENTIALS    block_sum's parameters: the potentials
 *   FRICL_ASM_POT(i)        the potential of contact i among them
 * The headers are prepended to the kernel file when embedded, so this is a
 * macro expanded where the kernel file has defined all that.
 *
 * The accumulators are plain, not FRICL_ORDERED: the loops run over an
 * index list and leave early, which no vectoriser turns into a split
 * reduction, and volatile ones halved the gathers' throughput on PoCL.
 * The block sums run over contiguous values and are FRICL_ORDERED.
 */
#ifndef FRICL_ASSEMBLY_H
#define FRICL_ASSEMBLY_H

#define FRICL_ASSEMBLY_KERNELS(feature)                                        \
  /* out[v] (dim entries) = (first ? 0 : out[v]) + the sum, in contact         \
   * order, of v's terms over the contacts [c0, c1) of v's list (the           \
   * plan's vertex lists: entry = contact << 2 | slot). */                     \
  __kernel void fricl_##feature##_gather_vec(                                  \
      ulong nv, __global const long *restrict vptr,                            \
      __global const ulong *restrict vent, FRICL_ASM_RECORDS, int field,       \
      ulong c0, ulong c1, int first, __global FRICL_REAL *out,                 \
      ulong out_off) {                                                         \
    const size_t v = get_global_id(0);                                         \
    if (v >= nv)                                                               \
      return;                                                                  \
    FRICL_REAL acc[3];                                                         \
    FRICL_UNROLL                                                               \
    for (int r = 0; r < FRICL_DIM; ++r)                                        \
      acc[r] = first ? (FRICL_REAL)0 : out[out_off + v * FRICL_DIM + r];       \
    for (long x = vptr[v]; x < vptr[v + 1]; ++x) {                             \
      const ulong en = vent[x];                                                \
      const ulong c = en >> 2;                                                 \
      if (c < c0)                                                              \
        continue;                                                              \
      if (c >= c1)                                                             \
        break;                                                                 \
      __global const FRICL_REAL *R = rec + (c - c0) * FRICL_ASM_STRIDE;        \
      FRICL_ASM_VEC(acc, R, (int)(en & 3), field);                             \
    }                                                                          \
    FRICL_UNROLL                                                               \
    for (int r = 0; r < FRICL_DIM; ++r)                                        \
      out[out_off + v * FRICL_DIM + r] = acc[r];                               \
  }                                                                            \
                                                                               \
  /* One BSR block: (first ? 0 : block) + the sum, in the plan's order         \
   * (entry = contact << 4 | row slot << 2 | column slot), of the              \
   * contacts' blocks. */                                                      \
  __kernel void fricl_##feature##_gather_bsr(                                  \
      ulong nnz, __global const long *restrict bptr,                           \
      __global const ulong *restrict bent, FRICL_ASM_RECORDS, ulong c0,        \
      ulong c1, int first, __global FRICL_REAL *out, ulong out_off) {          \
    const size_t b = get_global_id(0);                                         \
    if (b >= nnz)                                                              \
      return;                                                                  \
    FRICL_REAL acc[9];                                                         \
    __global FRICL_REAL *o = out + out_off + b * (FRICL_DIM * FRICL_DIM);      \
    FRICL_UNROLL                                                               \
    for (int i = 0; i < FRICL_DIM * FRICL_DIM; ++i)                            \
      acc[i] = first ? (FRICL_REAL)0 : o[i];                                   \
    for (long x = bptr[b]; x < bptr[b + 1]; ++x) {                             \
      const ulong en = bent[x];                                                \
      const ulong c = en >> 4;                                                 \
      if (c < c0)                                                              \
        continue;                                                              \
      if (c >= c1)                                                             \
        break;                                                                 \
      __global const FRICL_REAL *R = rec + (c - c0) * FRICL_ASM_STRIDE;        \
      FRICL_ASM_BSR(acc, R, (int)((en >> 2) & 3), (int)(en & 3));              \
    }                                                                          \
    FRICL_UNROLL                                                               \
    for (int i = 0; i < FRICL_DIM * FRICL_DIM; ++i)                            \
      o[i] = acc[i];                                                           \
  }                                                                            \
                                                                               \
  /* partial[blk] = the sequential sum of the potentials of its block of       \
   * `block` contacts among the first n (FRICL_ORDERED: in this order on       \
   * every implementation). */                                                 \
  __kernel void fricl_##feature##_block_sum(ulong n, ulong block,              \
                                            FRICL_ASM_POTENTIALS,              \
                                            __global FRICL_REAL *partial) {    \
    const size_t blk = get_global_id(0);                                       \
    const ulong lo = blk * block;                                              \
    if (lo >= n)                                                               \
      return;                                                                  \
    const ulong hi = n - lo < block ? n : lo + block;                          \
    FRICL_ORDERED FRICL_REAL s = 0;                                            \
    for (ulong i = lo; i < hi; ++i)                                            \
      s += FRICL_ASM_POT(i);                                                   \
    partial[blk] = s;                                                          \
  }                                                                            \
                                                                               \
  /* total = (first ? 0 : total) + partial[0] + ... + partial[nblk - 1], in    \
   * order, by one work item: the chunk's contribution to the potential. */    \
  __kernel void fricl_##feature##_pot_accumulate(                              \
      ulong nblk, __global const FRICL_REAL *partial, int first,               \
      __global FRICL_REAL *total, ulong total_off) {                           \
    if (get_global_id(0) != 0)                                                 \
      return;                                                                  \
    FRICL_ORDERED FRICL_REAL s = first ? (FRICL_REAL)0 : total[total_off];     \
    for (ulong i = 0; i < nblk; ++i)                                           \
      s += partial[i];                                                         \
    total[total_off] = s;                                                      \
  }

#endif /* FRICL_ASSEMBLY_H */
