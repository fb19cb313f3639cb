/*
 * host_isa.h - the host loops that are compiled more than once, for the
 * instruction sets picked at run time, and the names of the variants. The
 * baseline variant targets the compiler's default (any x86-64); with
 * FRICL_HOST_SIMD CMake compiles the same files again for AVX2 and for
 * AVX-512 (never contracting: -ffp-contract=off) and the host backend picks
 * the widest the CPU has. Every variant rounds exactly like the baseline:
 * the loops use only IEEE operations that are correctly rounded at every
 * vector width, and the same libm calls.
 */
#ifndef FRICL_HOST_ISA_H
#define FRICL_HOST_ISA_H

#include "core/backend.h"

#if defined(FRICL_ISA_AVX512)
#define FRICL_ISA_NAME(f) f##_avx512
#elif defined(FRICL_ISA_AVX2)
#define FRICL_ISA_NAME(f) f##_avx2
#else
#define FRICL_ISA_NAME(f) f
#endif

/* The instruction sets of the variants. */
typedef enum {
  FRICL__ISA_BASELINE = 0,
  FRICL__ISA_AVX2 = 1,
  FRICL__ISA_AVX512 = 2
} fricl__isa;

/* Elements [lo, hi) of a validated scalar batch. */
void fricl__scalar_range(const fricl_scalar_batch *b, unsigned mask, size_t lo,
                         size_t hi);
void fricl__scalar_range_avx2(const fricl_scalar_batch *b, unsigned mask,
                              size_t lo, size_t hi);
void fricl__scalar_range_avx512(const fricl_scalar_batch *b, unsigned mask,
                                size_t lo, size_t hi);

/* Elements [lo, hi) of a validated law batch. */
void fricl__laws_range(const fricl__law_plan *pl, const fricl_law_batch *b,
                       size_t lo, size_t hi);
void fricl__laws_range_avx2(const fricl__law_plan *pl, const fricl_law_batch *b,
                            size_t lo, size_t hi);
void fricl__laws_range_avx512(const fricl__law_plan *pl,
                              const fricl_law_batch *b, size_t lo, size_t hi);

/* Contacts [lo, hi) of group g of a validated build batch: the reference's
 * loop (stencil and dim at run time), and the host backend's, specialised
 * per (stencil, dim) - the same operations, so the same bits. */
void fricl__build_range(const fricl_build_batch *b, uint8_t *const *status,
                        size_t g, size_t lo, size_t hi);
void fricl__build_range_host(const fricl_build_batch *b, uint8_t *const *status,
                             size_t g, size_t lo, size_t hi);

/* The reference backend's tangential evaluation (one thread, the whole
 * batch, sums in the documented fixed order). */
fricl_status fricl__tangential_ref(fricl_context *ctx,
                                   const fricl_tangential_batch *b,
                                   const fricl_tangential_plan *plan,
                                   int need_hess);

/* The widest variant this CPU runs (FRICL_HOST_ISA=baseline|avx2|avx512 in
 * the environment caps it, for comparing the variants). */
fricl__isa fricl__host_isa(void);

#endif
