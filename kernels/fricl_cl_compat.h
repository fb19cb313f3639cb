/*
 * fricl_cl_compat.h - the few macros that let kernels/fricl_*_math.h compile
 * both as OpenCL C (inside a kernel program) and as C99 (in the reference
 * backend, src/host/scalar_ref.c).
 *
 * The includer of a math header defines, per precision:
 *   FRICL_REAL       double or float
 *   FRICL_FN(name)   the name a function gets (e.g. fricl_##name##_d in C)
 *   FRICL_FABS       fabs / fabsf (OpenCL's fabs is overloaded)
 */
#ifndef FRICL_CL_COMPAT_H
#define FRICL_CL_COMPAT_H

/* Compiling as OpenCL C? OpenCL requires __OPENCL_VERSION__, but some
 * offline compilers (clang for spir64/nvptx64/amdgcn without an OpenCL
 * device target) define only __OPENCL_C_VERSION__ (OpenCL C 1.2 and
 * later). Either one means OpenCL C; the C99 build defines neither. */
#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define FRICL_OPENCL_C 1
#else
#define FRICL_OPENCL_C 0
#endif

#if FRICL_OPENCL_C
/* No fused multiply-add behind our back: the kernels must round exactly as
 * the C reference does (built with -ffp-contract=off). OpenCL C defaults
 * FP_CONTRACT to ON, and the pragma acts only on code after it, so it goes
 * here, before any math. */
#pragma OPENCL FP_CONTRACT OFF
/* Always inlined in kernels: a math function left out of line takes its
 * array arguments by address, which puts them on the per-work-item stack
 * (a GPU keeps it in slow off-chip memory; tests/gpu/compile_variants.sh
 * bounds it). Inlined, their indices fold and the values stay in
 * registers. */
#define FRICL_INLINE static inline __attribute__((always_inline))
#else
#include <math.h>
#define FRICL_INLINE static inline
#endif

/* Fully unroll the small fixed-trip loops of the per-contact math (over
 * stencil vertices and coordinates): unrolled, every private array is
 * indexed by constants and lives in registers, which is what lets the
 * OpenCL compiler vectorise across work items. (Host clang would warn,
 * as an error, where the C reference's trip count is a run-time dim; the
 * hint is only for OpenCL C and GCC.) */
#if FRICL_OPENCL_C
#define FRICL_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define FRICL_UNROLL _Pragma("GCC unroll 16")
#else
#define FRICL_UNROLL
#endif

/* The same, in kernels only: for the loops of code the host backend also
 * runs, whose host form (and speed) is kept as measured. */
#if FRICL_OPENCL_C
#define FRICL_CL_UNROLL _Pragma("unroll")
#else
#define FRICL_CL_UNROLL
#endif

/* A loop bound: in kernels the constant largest value c (the loop skips
 * the iterations past n itself), so that the loop can be unrolled; on the
 * host n, the loop as it was measured. */
#if FRICL_OPENCL_C
#define FRICL_CL_BOUND(n, c) (c)
#else
#define FRICL_CL_BOUND(n, c) (n)
#endif

/* A constant of the working precision. Integer-valued arguments are exact;
 * write non-dyadic constants as a quotient of two of them, which the
 * compiler folds to the correctly rounded value of that precision. */
#define FRICL_R(x) ((FRICL_REAL)(x))

/* An accumulator whose additions must happen one after the other, in
 * program order (the fixed-order sums of simple loops: the block sums of
 * the total potential, the GMS force). Without
 * -cl-unsafe-math-optimizations OpenCL forbids reassociating them, yet
 * Intel's CPU compiler vectorises such a loop into lane-wise partial sums
 * (measured: 1-4 ulp off the sequential sum; CL_CONFIG_USE_VECTORIZER=False
 * restores it). Every access to a volatile object is a side effect that
 * must occur in order, so no compiler may split the chain. The C reference
 * (-ffp-contract=off, no -ffast-math) adds in order with plain variables. */
#if FRICL_OPENCL_C
#define FRICL_ORDERED volatile
#else
#define FRICL_ORDERED
#endif

#endif /* FRICL_CL_COMPAT_H */
