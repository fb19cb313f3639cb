/*
 * fricl_tangential_codes.h - integer codes and the record layout shared by
 * the tangential kernels, the math header and the host code (which cannot
 * include the math header without choosing a precision). The values equal
 * the public enums' (checked by static assertions in tangential_ref.c).
 */
#ifndef FRICL_TANGENTIAL_CODES_H
#define FRICL_TANGENTIAL_CODES_H
#define FRICL_T_VV 0
#define FRICL_T_EV 1
#define FRICL_T_EE 2
#define FRICL_T_FV 3
#define FRICL_T_PV 4
#define FRICL_T_PSD_NONE 0
#define FRICL_T_PSD_CLAMP 1
#define FRICL_T_PSD_ABS 2
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
