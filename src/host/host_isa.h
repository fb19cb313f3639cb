/*
 * host_isa.h - the host loops that are compiled more than once, for the
 * instruction sets picked at run time, and the names of the variants. The
 * baseline variant targets the compiler's default (any x86-64); with
 * FRICL_HOST_AVX2 CMake compiles the same files a second time with -mavx2
 * (never -mfma: contraction would change the bits) and the host backend
 * calls that variant when the CPU has AVX2. Every variant rounds exactly
 * like the baseline: the loops use only IEEE operations that are correctly
 * rounded at every vector width, and the same libm calls.
 */
#ifndef FRICL_HOST_ISA_H
#define FRICL_HOST_ISA_H

#include "core/backend.h"

#ifdef FRICL_ISA_AVX2
#define FRICL_ISA_NAME(f) f##_avx2
#else
#define FRICL_ISA_NAME(f) f
#endif

/* Elements [lo, hi) of a validated scalar batch. */
void fricl__scalar_range(const fricl_scalar_batch *b, unsigned mask, size_t lo,
                         size_t hi);
void fricl__scalar_range_avx2(const fricl_scalar_batch *b, unsigned mask,
                              size_t lo, size_t hi);

/* Elements [lo, hi) of a validated law batch. */
void fricl__laws_range(const fricl__law_plan *pl, const fricl_law_batch *b,
                       size_t lo, size_t hi);
void fricl__laws_range_avx2(const fricl__law_plan *pl, const fricl_law_batch *b,
                            size_t lo, size_t hi);

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

/* 1 when this CPU runs the AVX2 variants. */
int fricl__host_has_avx2(void);

#endif
