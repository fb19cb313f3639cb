/*
 * fricl_tangential_codes.h - integer codes and the record layout shared by
 * the tangential kernels, the math header and the host code (which cannot
 * include the math header without choosing a precision).
 */
#ifndef FRICL_TANGENTIAL_CODES_H
#define FRICL_TANGENTIAL_CODES_H
#ifndef FRICL_EMBEDDED
#include "fricl/fricl_tables.h"
#endif
/* Stencil and projection codes: the public enums' values, from the same
 * tables (<fricl/fricl_tables.h>). */
enum {
#define FRICL_T_STENCIL_(name, value, text, k, nb, only3d)                     \
  FRICL_T_##name = value,
  FRICL_STENCIL_MAP(FRICL_T_STENCIL_)
#undef FRICL_T_STENCIL_
#define FRICL_T_PSD_(name, value, text) FRICL_T_PSD_##name = value,
      FRICL_PSD_MAP(FRICL_T_PSD_)
#undef FRICL_T_PSD_
};
/* Reals per contact in the record buffer that feeds the assembly:
 * gamma[4] q[3] S[6] t[3] (t = S sum_j gamma_j p_j for the product). */
#define FRICL_REC_STRIDE 16
/* The stride when only the gradient is assembled: gamma[4] q[3] pad. */
#define FRICL_REC_STRIDE_GRAD 8
#define FRICL_REC_GAMMA 0
#define FRICL_REC_Q 4
#define FRICL_REC_S 7
#define FRICL_REC_T 13

#endif /* FRICL_TANGENTIAL_CODES_H */
