/*
 * ref_ld_check.c - proves the long-double reference (scalar_ref_ld.c) right,
 * so that the benchmark's accuracy column can be trusted.
 *
 *   ref_ld_check                 spec tables: 3.8 (y >= 0, both profiles),
 *                                3.6 (negative y; special inputs) and 2.3,
 *                                all 12 functions, to 1e-15 relative
 *   ref_ld_check --oracle FILE   every row of tests/data/scalar_oracle.txt
 *                                (exact values rounded once to double, and
 *                                the scale sigma of 3.9)
 *
 * Exit status 0 when every check passes; each failure is printed.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalar_ref_ld.h"

static int g_fail = 0;
static int g_checks = 0;

static int term_index(const char *name) {
  for (int t = 0; t < FRICL_REF_TERM_COUNT; ++t)
    if (strcmp(fricl_ref_ld_term_name(t), name) == 0)
      return t;
  return -1;
}

/* ------------------------------------------------ spec tables 3.8 / 3.6 */

/* e = 1e-3, mu_s = 0.5, mu_k = 0.3 (the doubles nearest the decimals). */
#define SPEC_E 1e-3
#define SPEC_MS 0.5
#define SPEC_MK 0.3

typedef struct {
  const char *table;
  const char *fn;
  int profile;
  const char *y;     /* decimal: the double nearest to it */
  const char *value; /* 17 significant digits, "0", "-inf" */
} spec_row;

/* Transcribed from docs/ipc-friction.md 3.8 (both tables) and 3.6
 * (negative arguments; the "-2e-3 (both)" column expanded per profile). */
static const spec_row spec_rows[] = {
    {"3.8 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "0",
     "3.3333333333333334e-04"},
    {"3.8 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "1e-4",
     "3.4300000000000001e-04"},
    {"3.8 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "2.5e-4",
     "3.9062500000000001e-04"},
    {"3.8 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "5e-4",
     "5.4166666666666668e-04"},
    {"3.8 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "7.5e-4",
     "7.5520833333333335e-04"},
    {"3.8 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "1e-3",
     "1.0000000000000000e-03"},
    {"3.8 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "2e-3",
     "2.0000000000000000e-03"},
    {"3.8 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "0", "0"},
    {"3.8 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "1e-4",
     "1.9000000000000000e-01"},
    {"3.8 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "2.5e-4",
     "4.3750000000000000e-01"},
    {"3.8 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "5e-4",
     "7.5000000000000000e-01"},
    {"3.8 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "7.5e-4",
     "9.3750000000000000e-01"},
    {"3.8 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "1e-3",
     "1.0000000000000000e+00"},
    {"3.8 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "2e-3",
     "1.0000000000000000e+00"},
    {"3.8 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "0",
     "2.0000000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "1e-4",
     "1.8000000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "2.5e-4",
     "1.5000000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "5e-4",
     "9.9999999999999998e+02"},
    {"3.8 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "7.5e-4",
     "4.9999999999999999e+02"},
    {"3.8 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "1e-3", "0"},
    {"3.8 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "2e-3", "0"},
    {"3.8 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "0",
     "2.0000000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "1e-4",
     "1.9000000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "2.5e-4",
     "1.7500000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "5e-4",
     "1.5000000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "7.5e-4",
     "1.2500000000000000e+03"},
    {"3.8 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "1e-3",
     "9.9999999999999998e+02"},
    {"3.8 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "2e-3",
     "4.9999999999999999e+02"},
    {"3.8 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC, "0",
     "-inf"},
    {"3.8 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "1e-4", "-9.9999999999999991e+09"},
    {"3.8 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "2.5e-4", "-3.9999999999999998e+09"},
    {"3.8 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "5e-4", "-1.9999999999999999e+09"},
    {"3.8 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "7.5e-4", "-1.3333333333333333e+09"},
    {"3.8 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "1e-3", "-9.9999999999999994e+08"},
    {"3.8 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "2e-3", "-1.2499999999999999e+08"},
    {"3.8 cubic", "smooth_mu", FRICL_REF_CUBIC, "0", "5.0000000000000000e-01"},
    {"3.8 cubic", "smooth_mu", FRICL_REF_CUBIC, "1e-4",
     "4.9440000000000000e-01"},
    {"3.8 cubic", "smooth_mu", FRICL_REF_CUBIC, "2.5e-4",
     "4.6875000000000000e-01"},
    {"3.8 cubic", "smooth_mu", FRICL_REF_CUBIC, "5e-4",
     "3.9999999999999999e-01"},
    {"3.8 cubic", "smooth_mu", FRICL_REF_CUBIC, "7.5e-4",
     "3.3124999999999999e-01"},
    {"3.8 cubic", "smooth_mu", FRICL_REF_CUBIC, "1e-3",
     "2.9999999999999999e-01"},
    {"3.8 cubic", "smooth_mu", FRICL_REF_CUBIC, "2e-3",
     "2.9999999999999999e-01"},
    {"3.8 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "0", "0"},
    {"3.8 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "1e-4",
     "-1.0800000000000001e+02"},
    {"3.8 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "2.5e-4",
     "-2.2500000000000001e+02"},
    {"3.8 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "5e-4",
     "-3.0000000000000001e+02"},
    {"3.8 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "7.5e-4",
     "-2.2500000000000001e+02"},
    {"3.8 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "1e-3", "0"},
    {"3.8 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "2e-3", "0"},
    {"3.8 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "0",
     "5.3333333333333328e-05"},
    {"3.8 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "1e-4",
     "5.8139399999999995e-05"},
    {"3.8 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "2.5e-4",
     "8.1064453124999995e-05"},
    {"3.8 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "5e-4",
     "1.4645833333333333e-04"},
    {"3.8 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "7.5e-4",
     "2.2392903645833333e-04"},
    {"3.8 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "1e-3",
     "3.0000000000000000e-04"},
    {"3.8 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "2e-3",
     "5.9999999999999999e-04"},
    {"3.8 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "0", "0"},
    {"3.8 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "1e-4",
     "9.3936000000000002e-02"},
    {"3.8 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "2.5e-4",
     "2.0507812500000000e-01"},
    {"3.8 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "5e-4",
     "3.0000000000000000e-01"},
    {"3.8 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "7.5e-4",
     "3.1054687499999999e-01"},
    {"3.8 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "1e-3",
     "2.9999999999999999e-01"},
    {"3.8 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "2e-3",
     "2.9999999999999999e-01"},
    {"3.8 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "0",
     "9.9999999999999998e+02"},
    {"3.8 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "1e-4",
     "8.6939999999999998e+02"},
    {"3.8 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "2.5e-4",
     "6.0468749999999998e+02"},
    {"3.8 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "5e-4",
     "1.7499999999999998e+02"},
    {"3.8 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "7.5e-4",
     "-4.5312500000000015e+01"},
    {"3.8 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "1e-3", "0"},
    {"3.8 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "2e-3", "0"},
    {"3.8 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "0",
     "9.9999999999999998e+02"},
    {"3.8 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "1e-4",
     "9.3935999999999998e+02"},
    {"3.8 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "2.5e-4",
     "8.2031249999999998e+02"},
    {"3.8 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "5e-4",
     "5.9999999999999998e+02"},
    {"3.8 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "7.5e-4",
     "4.1406249999999998e+02"},
    {"3.8 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "1e-3",
     "2.9999999999999998e+02"},
    {"3.8 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "2e-3",
     "1.4999999999999999e+02"},
    {"3.8 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC, "0",
     "-inf"},
    {"3.8 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC, "1e-4",
     "-6.9959999999999995e+09"},
    {"3.8 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC,
     "2.5e-4", "-3.4499999999999999e+09"},
    {"3.8 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC, "5e-4",
     "-1.6999999999999999e+09"},
    {"3.8 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC,
     "7.5e-4", "-8.1666666666666662e+08"},
    {"3.8 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC, "1e-3",
     "-2.9999999999999997e+08"},
    {"3.8 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC, "2e-3",
     "-3.7499999999999996e+07"},
    {"3.8 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "0",
     "3.3333333333333334e-04"},
    {"3.8 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "1e-4",
     "3.4300000000000001e-04"},
    {"3.8 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "2.5e-4",
     "3.9062500000000001e-04"},
    {"3.8 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "5e-4",
     "5.4166666666666668e-04"},
    {"3.8 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "7.5e-4",
     "7.5520833333333335e-04"},
    {"3.8 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "1e-3",
     "1.0000000000000000e-03"},
    {"3.8 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "2e-3",
     "2.0000000000000000e-03"},
    {"3.8 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "0", "0"},
    {"3.8 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "1e-4",
     "1.9000000000000000e-01"},
    {"3.8 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "2.5e-4",
     "4.3750000000000000e-01"},
    {"3.8 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "5e-4",
     "7.5000000000000000e-01"},
    {"3.8 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "7.5e-4",
     "9.3750000000000000e-01"},
    {"3.8 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "1e-3",
     "1.0000000000000000e+00"},
    {"3.8 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "2e-3",
     "1.0000000000000000e+00"},
    {"3.8 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "0",
     "2.0000000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "1e-4",
     "1.8000000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "2.5e-4",
     "1.5000000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "5e-4",
     "9.9999999999999998e+02"},
    {"3.8 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "7.5e-4",
     "4.9999999999999999e+02"},
    {"3.8 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "1e-3", "0"},
    {"3.8 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "2e-3", "0"},
    {"3.8 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "0",
     "2.0000000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "1e-4",
     "1.9000000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "2.5e-4",
     "1.7500000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "5e-4",
     "1.5000000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "7.5e-4",
     "1.2500000000000000e+03"},
    {"3.8 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "1e-3",
     "9.9999999999999998e+02"},
    {"3.8 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "2e-3",
     "4.9999999999999999e+02"},
    {"3.8 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK, "0",
     "-inf"},
    {"3.8 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "1e-4", "-9.9999999999999991e+09"},
    {"3.8 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "2.5e-4", "-3.9999999999999998e+09"},
    {"3.8 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "5e-4", "-1.9999999999999999e+09"},
    {"3.8 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "7.5e-4", "-1.3333333333333333e+09"},
    {"3.8 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "1e-3", "-9.9999999999999994e+08"},
    {"3.8 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "2e-3", "-1.2499999999999999e+08"},
    {"3.8 ipctk", "smooth_mu", FRICL_REF_IPCTK, "0", "5.0000000000000000e-01"},
    {"3.8 ipctk", "smooth_mu", FRICL_REF_IPCTK, "1e-4",
     "4.9600000000000000e-01"},
    {"3.8 ipctk", "smooth_mu", FRICL_REF_IPCTK, "2.5e-4",
     "4.7500000000000000e-01"},
    {"3.8 ipctk", "smooth_mu", FRICL_REF_IPCTK, "5e-4",
     "3.9999999999999999e-01"},
    {"3.8 ipctk", "smooth_mu", FRICL_REF_IPCTK, "7.5e-4",
     "3.2499999999999999e-01"},
    {"3.8 ipctk", "smooth_mu", FRICL_REF_IPCTK, "1e-3",
     "2.9999999999999999e-01"},
    {"3.8 ipctk", "smooth_mu", FRICL_REF_IPCTK, "2e-3",
     "2.9999999999999999e-01"},
    {"3.8 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "0", "0"},
    {"3.8 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "1e-4",
     "-8.0000000000000005e+01"},
    {"3.8 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "2.5e-4",
     "-2.0000000000000001e+02"},
    {"3.8 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "5e-4",
     "-4.0000000000000001e+02"},
    {"3.8 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "7.5e-4",
     "-2.0000000000000001e+02"},
    {"3.8 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "1e-3", "0"},
    {"3.8 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "2e-3", "0"},
    {"3.8 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "0",
     "5.4166666666666662e-05"},
    {"3.8 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "1e-4",
     "5.8980799999999995e-05"},
    {"3.8 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "2.5e-4",
     "8.2109374999999995e-05"},
    {"3.8 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "5e-4",
     "1.4833333333333333e-04"},
    {"3.8 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "7.5e-4",
     "2.2455729166666666e-04"},
    {"3.8 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "1e-3",
     "3.0000000000000000e-04"},
    {"3.8 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "2e-3",
     "5.9999999999999999e-04"},
    {"3.8 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "0", "0"},
    {"3.8 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "1e-4",
     "9.4240000000000002e-02"},
    {"3.8 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "2.5e-4",
     "2.0781250000000000e-01"},
    {"3.8 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "5e-4",
     "3.0000000000000000e-01"},
    {"3.8 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "7.5e-4",
     "3.0468749999999999e-01"},
    {"3.8 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "1e-3",
     "2.9999999999999999e-01"},
    {"3.8 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "2e-3",
     "2.9999999999999999e-01"},
    {"3.8 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "0",
     "9.9999999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "1e-4",
     "8.7759999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "2.5e-4",
     "6.2499999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "5e-4",
     "9.9999999999999976e+01"},
    {"3.8 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "7.5e-4",
     "-2.5000000000000015e+01"},
    {"3.8 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "1e-3", "0"},
    {"3.8 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "2e-3", "0"},
    {"3.8 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "0",
     "9.9999999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "1e-4",
     "9.4239999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "2.5e-4",
     "8.3124999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "5e-4",
     "5.9999999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "7.5e-4",
     "4.0624999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "1e-3",
     "2.9999999999999998e+02"},
    {"3.8 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "2e-3",
     "1.4999999999999999e+02"},
    {"3.8 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK, "0",
     "-inf"},
    {"3.8 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK, "1e-4",
     "-6.4799999999999995e+09"},
    {"3.8 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK,
     "2.5e-4", "-3.2999999999999999e+09"},
    {"3.8 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK, "5e-4",
     "-1.9999999999999999e+09"},
    {"3.8 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK,
     "7.5e-4", "-7.6666666666666662e+08"},
    {"3.8 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK, "1e-3",
     "-2.9999999999999997e+08"},
    {"3.8 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK, "2e-3",
     "-3.7499999999999996e+07"},
    {"3.6 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "-2.5e-4",
     "4.0104166666666668e-04"},
    {"3.6 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "-2.5e-4",
     "4.0104166666666668e-04"},
    {"3.6 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "-7.5e-4",
     "1.0364583333333334e-03"},
    {"3.6 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "-7.5e-4",
     "1.0364583333333334e-03"},
    {"3.6 cubic", "smooth_friction_f0", FRICL_REF_CUBIC, "-2e-3",
     "-2.0000000000000000e-03"},
    {"3.6 ipctk", "smooth_friction_f0", FRICL_REF_IPCTK, "-2e-3",
     "-2.0000000000000000e-03"},
    {"3.6 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "-2.5e-4",
     "-5.6250000000000000e-01"},
    {"3.6 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "-2.5e-4",
     "-5.6250000000000000e-01"},
    {"3.6 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "-7.5e-4",
     "-2.0625000000000000e+00"},
    {"3.6 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "-7.5e-4",
     "-2.0625000000000000e+00"},
    {"3.6 cubic", "smooth_friction_f1", FRICL_REF_CUBIC, "-2e-3",
     "1.0000000000000000e+00"},
    {"3.6 ipctk", "smooth_friction_f1", FRICL_REF_IPCTK, "-2e-3",
     "1.0000000000000000e+00"},
    {"3.6 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "-2.5e-4",
     "2.4999999999999999e+03"},
    {"3.6 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "-2.5e-4",
     "2.4999999999999999e+03"},
    {"3.6 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "-7.5e-4",
     "3.4999999999999999e+03"},
    {"3.6 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "-7.5e-4",
     "3.4999999999999999e+03"},
    {"3.6 cubic", "smooth_friction_f2", FRICL_REF_CUBIC, "-2e-3", "0"},
    {"3.6 ipctk", "smooth_friction_f2", FRICL_REF_IPCTK, "-2e-3", "0"},
    {"3.6 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "-2.5e-4",
     "2.2500000000000000e+03"},
    {"3.6 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "-2.5e-4",
     "2.2500000000000000e+03"},
    {"3.6 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "-7.5e-4",
     "2.7499999999999999e+03"},
    {"3.6 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "-7.5e-4",
     "2.7499999999999999e+03"},
    {"3.6 cubic", "smooth_friction_f1_over_x", FRICL_REF_CUBIC, "-2e-3",
     "-4.9999999999999999e+02"},
    {"3.6 ipctk", "smooth_friction_f1_over_x", FRICL_REF_IPCTK, "-2e-3",
     "-4.9999999999999999e+02"},
    {"3.6 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "-2.5e-4", "3.9999999999999998e+09"},
    {"3.6 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "-2.5e-4", "3.9999999999999998e+09"},
    {"3.6 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "-7.5e-4", "1.3333333333333333e+09"},
    {"3.6 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "-7.5e-4", "1.3333333333333333e+09"},
    {"3.6 cubic", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_CUBIC,
     "-2e-3", "1.2499999999999999e+08"},
    {"3.6 ipctk", "smooth_friction_f2_x_minus_f1_over_x3", FRICL_REF_IPCTK,
     "-2e-3", "1.2499999999999999e+08"},
    {"3.6 cubic", "smooth_mu", FRICL_REF_CUBIC, "-2.5e-4",
     "4.6875000000000000e-01"},
    {"3.6 ipctk", "smooth_mu", FRICL_REF_IPCTK, "-2.5e-4",
     "4.7500000000000000e-01"},
    {"3.6 cubic", "smooth_mu", FRICL_REF_CUBIC, "-7.5e-4",
     "3.3124999999999999e-01"},
    {"3.6 ipctk", "smooth_mu", FRICL_REF_IPCTK, "-7.5e-4",
     "3.2499999999999999e-01"},
    {"3.6 cubic", "smooth_mu", FRICL_REF_CUBIC, "-2e-3",
     "2.9999999999999999e-01"},
    {"3.6 ipctk", "smooth_mu", FRICL_REF_IPCTK, "-2e-3",
     "2.9999999999999999e-01"},
    {"3.6 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "-2.5e-4",
     "-2.2500000000000001e+02"},
    {"3.6 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "-2.5e-4",
     "-2.0000000000000001e+02"},
    {"3.6 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "-7.5e-4",
     "-2.2500000000000001e+02"},
    {"3.6 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "-7.5e-4",
     "-2.0000000000000001e+02"},
    {"3.6 cubic", "smooth_mu_derivative", FRICL_REF_CUBIC, "-2e-3", "0"},
    {"3.6 ipctk", "smooth_mu_derivative", FRICL_REF_IPCTK, "-2e-3", "0"},
    {"3.6 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "-2.5e-4",
     "2.5602213541666661e-05"},
    {"3.6 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "-2.5e-4",
     "2.6223958333333328e-05"},
    {"3.6 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "-7.5e-4",
     "-1.1726236979166667e-04"},
    {"3.6 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "-7.5e-4",
     "-1.3122395833333334e-04"},
    {"3.6 cubic", "smooth_mu_f0", FRICL_REF_CUBIC, "-2e-3",
     "-5.9999999999999999e-04"},
    {"3.6 ipctk", "smooth_mu_f0", FRICL_REF_IPCTK, "-2e-3",
     "-5.9999999999999999e-04"},
    {"3.6 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "-2.5e-4",
     "-2.6367187500000000e-01"},
    {"3.6 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "-2.5e-4",
     "-2.6718750000000000e-01"},
    {"3.6 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "-7.5e-4",
     "-6.8320312499999998e-01"},
    {"3.6 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "-7.5e-4",
     "-6.7031249999999998e-01"},
    {"3.6 cubic", "smooth_mu_f1", FRICL_REF_CUBIC, "-2e-3",
     "2.9999999999999999e-01"},
    {"3.6 ipctk", "smooth_mu_f1", FRICL_REF_IPCTK, "-2e-3",
     "2.9999999999999999e-01"},
    {"3.6 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "-2.5e-4",
     "1.2984375000000000e+03"},
    {"3.6 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "-2.5e-4",
     "1.3000000000000000e+03"},
    {"3.6 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "-7.5e-4",
     "1.6234375000000000e+03"},
    {"3.6 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "-7.5e-4",
     "1.5500000000000000e+03"},
    {"3.6 cubic", "smooth_mu_f2", FRICL_REF_CUBIC, "-2e-3", "0"},
    {"3.6 ipctk", "smooth_mu_f2", FRICL_REF_IPCTK, "-2e-3", "0"},
    {"3.6 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "-2.5e-4",
     "1.0546875000000000e+03"},
    {"3.6 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "-2.5e-4",
     "1.0687500000000000e+03"},
    {"3.6 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "-7.5e-4",
     "9.1093749999999996e+02"},
    {"3.6 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "-7.5e-4",
     "8.9374999999999995e+02"},
    {"3.6 cubic", "smooth_mu_f1_over_x", FRICL_REF_CUBIC, "-2e-3",
     "-1.4999999999999999e+02"},
    {"3.6 ipctk", "smooth_mu_f1_over_x", FRICL_REF_IPCTK, "-2e-3",
     "-1.4999999999999999e+02"},
    {"3.6 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC,
     "-2.5e-4", "-1.5500000000000001e+09"},
    {"3.6 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK,
     "-2.5e-4", "9.9999999999999888e+07"},
    {"3.6 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC,
     "-7.5e-4", "-5.7833333333333333e+09"},
    {"3.6 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK,
     "-7.5e-4", "7.1666666666666666e+09"},
    {"3.6 cubic", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_CUBIC,
     "-2e-3", "3.7499999999999996e+07"},
    {"3.6 ipctk", "smooth_mu_f2_x_minus_mu_f1_over_x3", FRICL_REF_IPCTK,
     "-2e-3", "3.7499999999999996e+07"},
};

static void check_spec_row(const spec_row *r) {
  ++g_checks;
  const int t = term_index(r->fn);
  if (t < 0) {
    printf("FAIL %s: unknown function %s\n", r->table, r->fn);
    ++g_fail;
    return;
  }
  const long double y = (long double)strtod(r->y, NULL);
  const long double want = strtold(r->value, NULL);
  const long double got =
      fricl_ref_ld_term(t, r->profile, y, SPEC_E, SPEC_MS, SPEC_MK);
  int ok;
  if (isinf(want))
    ok = isinf(got) && signbit(got) == signbit(want);
  else if (want == 0.0L)
    ok = got == 0.0L; /* every 0 of these tables is an exact 0 */
  else
    ok = fabsl(got - want) <= 1e-15L * fabsl(want);
  if (!ok) {
    printf("FAIL %s %s(y = %s): got %.20Lg, spec %s (rel %.3Lg)\n", r->table,
           r->fn, r->y, got, r->value,
           want != 0.0L ? fabsl(got - want) / fabsl(want) : fabsl(got));
    ++g_fail;
  }
}

/* Special inputs of tables 2.3 and 3.6. Kinds: */
enum { K_VALUE, K_NAN, K_PINF, K_NINF, K_PZERO, K_NZERO };

static void check_special(const char *fn, int profile, long double y,
                          long double ms, long double mk, int kind,
                          long double value) {
  ++g_checks;
  const int t = term_index(fn);
  const long double got = fricl_ref_ld_term(t, profile, y, SPEC_E, ms, mk);
  int ok = 0;
  switch (kind) {
  case K_VALUE:
    ok = fabsl(got - value) <= 1e-15L * fabsl(value);
    break;
  case K_NAN:
    ok = isnan(got);
    break;
  case K_PINF:
    ok = isinf(got) && !signbit(got);
    break;
  case K_NINF:
    ok = isinf(got) && signbit(got);
    break;
  case K_PZERO:
    ok = got == 0.0L && !signbit(got);
    break;
  case K_NZERO:
    ok = got == 0.0L && signbit(got);
    break;
  }
  if (!ok) {
    static const char *const kinds[] = {"value", "NaN", "+inf",
                                        "-inf",  "+0",  "-0"};
    printf("FAIL special %s(%s, y = %Lg, ms = %Lg, mk = %Lg): got %.20Lg, "
           "want %s %.20Lg\n",
           fn, profile ? "ipctk" : "cubic", y, ms, mk, got, kinds[kind], value);
    ++g_fail;
  }
}

static void check_specials(void) {
  const long double e = SPEC_E, ms = SPEC_MS, mk = SPEC_MK;
  const long double pz = 0.0L, nz = -0.0L, inf = INFINITY, nan = NAN;
  for (int p = 0; p < 2; ++p) {
    /* Table 2.3 (the mollifier; profile-independent). */
    check_special("smooth_friction_f0", p, pz, ms, mk, K_VALUE, e / 3);
    check_special("smooth_friction_f0", p, nz, ms, mk, K_VALUE, e / 3);
    check_special("smooth_friction_f1", p, pz, ms, mk, K_PZERO, 0);
    check_special("smooth_friction_f1", p, nz, ms, mk, K_NZERO, 0);
    check_special("smooth_friction_f2", p, pz, ms, mk, K_VALUE, 2 / e);
    check_special("smooth_friction_f2", p, nz, ms, mk, K_VALUE, 2 / e);
    check_special("smooth_friction_f1_over_x", p, pz, ms, mk, K_VALUE, 2 / e);
    check_special("smooth_friction_f1_over_x", p, nz, ms, mk, K_VALUE, 2 / e);
    check_special("smooth_friction_f2_x_minus_f1_over_x3", p, pz, ms, mk,
                  K_NINF, 0);
    check_special("smooth_friction_f2_x_minus_f1_over_x3", p, nz, ms, mk,
                  K_PINF, 0);
    check_special("smooth_friction_f0", p, inf, ms, mk, K_PINF, 0);
    check_special("smooth_friction_f0", p, -inf, ms, mk, K_NINF, 0);
    check_special("smooth_friction_f1", p, inf, ms, mk, K_VALUE, 1);
    check_special("smooth_friction_f1", p, -inf, ms, mk, K_VALUE, 1);
    check_special("smooth_friction_f2", p, inf, ms, mk, K_PZERO, 0);
    check_special("smooth_friction_f2", p, -inf, ms, mk, K_PZERO, 0);
    check_special("smooth_friction_f1_over_x", p, inf, ms, mk, K_PZERO, 0);
    check_special("smooth_friction_f1_over_x", p, -inf, ms, mk, K_NZERO, 0);
    check_special("smooth_friction_f2_x_minus_f1_over_x3", p, inf, ms, mk,
                  K_NZERO, 0);
    check_special("smooth_friction_f2_x_minus_f1_over_x3", p, -inf, ms, mk,
                  K_PZERO, 0);
    for (int t = 0; t < FRICL_REF_TERM_COUNT; ++t) {
      /* NaN propagates everywhere except the mu_s == mu_k constants. */
      check_special(fricl_ref_ld_term_name(t), p, nan, ms, mk, K_NAN, 0);
      if (t == 5)
        check_special("smooth_mu", p, nan, 0.4L, 0.4L, K_VALUE, 0.4L);
      else if (t == 6)
        check_special("smooth_mu_derivative", p, nan, 0.4L, 0.4L, K_PZERO, 0);
      else
        check_special(fricl_ref_ld_term_name(t), p, nan, 0.4L, 0.4L, K_NAN, 0);
    }
    /* Table 3.6 (F(0) = e C with the profile's constant). */
    const long double ec =
        p ? e * (27 * mk - 11 * ms) / 48 : e * (17 * mk - 7 * ms) / 30;
    for (int s = 0; s < 2; ++s) {
      const long double y0 = s ? nz : pz;
      check_special("smooth_mu", p, y0, ms, mk, K_VALUE, ms);
      check_special("smooth_mu_f0", p, y0, ms, mk, K_VALUE, ec);
      check_special("smooth_mu_f1", p, y0, ms, mk, s ? K_NZERO : K_PZERO, 0);
      check_special("smooth_mu_f2", p, y0, ms, mk, K_VALUE, 2 * ms / e);
      check_special("smooth_mu_f1_over_x", p, y0, ms, mk, K_VALUE, 2 * ms / e);
      check_special("smooth_mu_f2_x_minus_mu_f1_over_x3", p, y0, ms, mk,
                    s ? K_PINF : K_NINF, 0);
      /* mu_s = 0 < mu_k: -0/(+-0) = NaN. */
      check_special("smooth_mu_f2_x_minus_mu_f1_over_x3", p, y0, 0.0L, mk,
                    K_NAN, 0);
      /* mu_s == mu_k: mk (-+inf); NaN when mk = 0. */
      check_special("smooth_mu_f2_x_minus_mu_f1_over_x3", p, y0, mk, mk,
                    s ? K_PINF : K_NINF, 0);
      check_special("smooth_mu_f2_x_minus_mu_f1_over_x3", p, y0, 0.0L, 0.0L,
                    K_NAN, 0);
      /* mu' at 0 is 0; its sign is not normative. */
      ++g_checks;
      if (fricl_ref_ld_mu_derivative(y0, e, ms, mk, p) != 0.0L) {
        printf("FAIL special smooth_mu_derivative(+-0) != 0\n");
        ++g_fail;
      }
    }
    for (int s = 0; s < 2; ++s) {
      const long double yi = s ? -inf : inf;
      check_special("smooth_mu", p, yi, ms, mk, K_VALUE, mk);
      check_special("smooth_mu_derivative", p, yi, ms, mk, K_PZERO, 0);
      check_special("smooth_mu_f0", p, yi, ms, mk, s ? K_NINF : K_PINF, 0);
      check_special("smooth_mu_f0", p, yi, 0.5L, 0.0L, K_NAN, 0);
      check_special("smooth_mu_f1", p, yi, ms, mk, K_VALUE, mk);
      check_special("smooth_mu_f2", p, yi, ms, mk, K_PZERO, 0);
      check_special("smooth_mu_f1_over_x", p, yi, ms, mk, s ? K_NZERO : K_PZERO,
                    0);
      check_special("smooth_mu_f2_x_minus_mu_f1_over_x3", p, yi, ms, mk,
                    s ? K_PZERO : K_NZERO, 0);
    }
  }
}

/* ----------------------------------------------------- the oracle file */

/* ulp of a double (at least the smallest subnormal). */
static long double ulp53(long double v) { return fricl_ref_ld_ulp(v, 53); }

static int check_oracle(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("FAIL cannot open %s\n", path);
    return 1;
  }
  char line[1024];
  long rows = 0;
  double worst = 0.0; /* largest excess over the value's rounding, ulp(sigma) */
  char worst_row[1024] = "";
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n')
      continue;
    char prec[8], prof[8], fn[64], sy[64], se[64], sms[64], smk[64], sv[64],
        ss[64];
    if (sscanf(line, "%7s %7s %63s %63s %63s %63s %63s %63s %63s", prec, prof,
               fn, sy, se, sms, smk, sv, ss) != 9) {
      printf("FAIL malformed oracle row: %s", line);
      ++g_fail;
      continue;
    }
    ++rows;
    ++g_checks;
    const int t = term_index(fn);
    const int profile =
        strcmp(prof, "ipctk") == 0 ? FRICL_REF_IPCTK : FRICL_REF_CUBIC;
    const long double y = (long double)strtod(sy, NULL);
    const long double e = (long double)strtod(se, NULL);
    const long double ms = (long double)strtod(sms, NULL);
    const long double mk = (long double)strtod(smk, NULL);
    const double value = strtod(sv, NULL);
    const double scale = strtod(ss, NULL);
    if (t < 0) {
      printf("FAIL unknown function in oracle: %s", line);
      ++g_fail;
      continue;
    }
    const long double ref = fricl_ref_ld_term(t, profile, y, e, ms, mk);
    const long double sig = fricl_ref_ld_scale(t, y, e, ms, mk);
    int ok = 1;
    double excess = 0.0;
    if (isnan(value)) {
      ok = isnan(ref);
    } else if (isinf(value)) {
      ok = (double)ref == value; /* overflow in double counts */
    } else {
      /* The oracle is the exact value rounded once; ours is within a tiny
       * fraction of a double ulp of the exact value. */
      const long double dev =
          fabsl(ref - (long double)value) - 0.5L * ulp53(value);
      excess = dev > 0 ? (double)(dev / ulp53(scale)) : 0.0;
      ok = excess <= 0.05; /* << the 4-ulp targets judged with it */
      const int sign_normative = (y == 0.0L || isinf(y)) && t != 6;
      if (value == 0.0 && sign_normative &&
          signbit((double)ref) != signbit(value))
        ok = 0;
    }
    /* The scale of 3.9 (nan in the file when the value is not finite;
     * clamped to DBL_MAX in the file where it overflows a double). */
    if (!isnan(scale)) {
      const long double s = sig > DBL_MAX ? DBL_MAX : sig;
      if (scale == 0.0 ? s != 0.0L
                       : fabsl(s - scale) > 1e-15L * (long double)scale)
        ok = 0;
    }
    if (excess > worst) {
      worst = excess;
      snprintf(worst_row, sizeof worst_row, "%s", line);
    }
    if (!ok) {
      printf("FAIL oracle: ref %.21Lg (%La) sigma %.17Lg (excess %.3g ulp "
             "of sigma) for row: %s",
             ref, ref, sig, excess, line);
      ++g_fail;
    }
  }
  fclose(f);
  printf("oracle: %ld rows, worst excess over the rounding %.3g ulp(sigma)%s%s",
         rows, worst, worst > 0 ? " at: " : "\n", worst > 0 ? worst_row : "");
  if (rows < 1000) {
    printf("FAIL oracle file has only %ld rows\n", rows);
    ++g_fail;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--oracle") == 0) {
    check_oracle(argv[2]);
  } else if (argc == 1) {
    for (size_t i = 0; i < sizeof spec_rows / sizeof spec_rows[0]; ++i)
      check_spec_row(&spec_rows[i]);
    check_specials();
  } else {
    fprintf(stderr, "usage: ref_ld_check [--oracle FILE]\n");
    return 2;
  }
  printf("%d checks, %d failures\n", g_checks, g_fail);
  return g_fail ? 1 : 0;
}
