/*
 * fricl_cl_compat.h - the few macros that let kernels/fricl_*_math.h compile
 * both as OpenCL C (inside a kernel program) and as C99 (in the reference
 * backend, src/scalar_ref.c).
 *
 * The includer of a math header defines, per precision:
 *   FRICL_REAL       double or float
 *   FRICL_FN(name)   the name a function gets (e.g. fricl_##name##_d in C)
 *   FRICL_FABS       fabs / fabsf (OpenCL's fabs is overloaded)
 */
#ifndef FRICL_CL_COMPAT_H
#define FRICL_CL_COMPAT_H

#ifdef __OPENCL_VERSION__
/* No fused multiply-add behind our back: the kernels must round exactly as
 * the C reference does (built with -ffp-contract=off). OpenCL C defaults
 * FP_CONTRACT to ON, and the pragma acts only on code after it, so it goes
 * here, before any math. */
#pragma OPENCL FP_CONTRACT OFF
#define FRICL_INLINE static inline
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
#if defined(__OPENCL_VERSION__)
#define FRICL_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define FRICL_UNROLL _Pragma("GCC unroll 16")
#else
#define FRICL_UNROLL
#endif

/* A constant of the working precision. Integer-valued arguments are exact;
 * write non-dyadic constants as a quotient of two of them, which the
 * compiler folds to the correctly rounded value of that precision. */
#define FRICL_R(x) ((FRICL_REAL)(x))

#endif /* FRICL_CL_COMPAT_H */
