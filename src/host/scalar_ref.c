/* scalar_ref.c - the scalar family's loops on the host: portable C built
 * from the same math header as the kernels. The reference backend runs
 * them on one thread over the whole batch, the host backend over ranges
 * on its threads (and, on x86-64, from a second compilation of this file
 * for AVX2, picked at run time: see host_isa.h). */
#include "host/host_isa.h"

#include "fricl_cl_compat.h"

#define FRICL_REF_BLOCK 256

#define FRICL_REAL double
#define FRICL_FN(name) fricl__##name##_d
#define FRICL_FABS fabs
#define FRICL_REF_BLOCK_FN ref_block_d
#include "fricl_scalar_math.h"
#include "scalar_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_REF_BLOCK_FN

#define FRICL_REAL float
#define FRICL_FN(name) fricl__##name##_f
#define FRICL_FABS fabsf
#define FRICL_REF_BLOCK_FN ref_block_f
#include "fricl_scalar_math.h"
#include "scalar_ref_impl.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_FABS
#undef FRICL_REF_BLOCK_FN

/* A parameter for one block: the caller's array, or a block-sized copy of
 * the batch scalar, so that every loop reads plain arrays. */
#define FRICL_REF_PARAM(T, arr, fill, b0)                                      \
  ((arr) ? (const T *)(arr) + (b0) : (fill))

/* The blocks of one precision: scalar parameters broadcast once, array
 * ones read in place (FRICL_REF_PARAM). */
#define SCALAR_RANGE(real, ref_block)                                          \
  do {                                                                         \
    real fe[FRICL_REF_BLOCK], fs[FRICL_REF_BLOCK], fk[FRICL_REF_BLOCK];        \
    for (int i = 0; i < FRICL_REF_BLOCK; ++i) {                                \
      fe[i] = (real)b->eps_v;                                                  \
      fs[i] = (real)b->mu_s;                                                   \
      fk[i] = (real)b->mu_k;                                                   \
    }                                                                          \
    real *out[FRICL_TERM_COUNT];                                               \
    for (int t = 0; t < FRICL_TERM_COUNT; ++t)                                 \
      out[t] = (real *)b->out[t];                                              \
    for (size_t b0 = lo; b0 < hi; b0 += FRICL_REF_BLOCK) {                     \
      const size_t m = hi - b0 < FRICL_REF_BLOCK ? hi - b0 : FRICL_REF_BLOCK;  \
      ref_block(m, (const real *)b->y + b0,                                    \
                FRICL_REF_PARAM(real, b->eps_v_array, fe, b0),                 \
                FRICL_REF_PARAM(real, b->mu_s_array, fs, b0),                  \
                FRICL_REF_PARAM(real, b->mu_k_array, fk, b0), mask,            \
                (int)b->mu_profile, out, b0);                                  \
    }                                                                          \
  } while (0)

/* Elements [lo, hi) of a validated batch, in blocks of FRICL_REF_BLOCK
 * (element-wise: any split of the range gives the same bits). */
void FRICL_ISA_NAME(fricl__scalar_range)(const fricl_scalar_batch *b,
                                         unsigned mask, size_t lo, size_t hi) {
  if (b->precision == FRICL_F64)
    SCALAR_RANGE(double, ref_block_d);
  else
    SCALAR_RANGE(float, ref_block_f);
#undef SCALAR_RANGE
}
