/*
 * test_eigen_math.c - the small symmetric eigen-solver and PSD projection
 * of kernels/fricl_eigen_math.h, f64 and f32, on random matrices of every
 * size the barrier uses (1 .. 12; reduced 1 .. 5 and 9):
 *   - V diag(lambda) V^T reproduces A and V is orthogonal;
 *   - clamp is PSD (an independent Cholesky of R + tau I), so is clamp -
 *     A, and abs = 2 clamp - A; a PSD input comes back unchanged, bit for
 *     bit;
 *   - entries near 1e-300 and 1e300 (the scaling: no under- or overflow);
 *   - NaN entries: the solver stops (its sweeps are bounded) and the NaN
 *     reaches the result.
 */
#include "test_util.h"

#include "fricl_cl_compat.h"
#define FRICL_REAL double
#define FRICL_FN(name) te_##name##_d
#define FRICL_SQRT sqrt
#include "fricl_eigen_math.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT
#define FRICL_REAL float
#define FRICL_FN(name) te_##name##_f
#define FRICL_SQRT sqrtf
#include "fricl_eigen_math.h"
#undef FRICL_REAL
#undef FRICL_FN
#undef FRICL_SQRT

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ull) >> 11) * 0x1p-53;
}

/* A random symmetric matrix with eigenvalues of both signs, some equal or
 * zero (rank-deficient like the barrier's), times scale. */
static void rand_sym(int n, double scale, double *A) {
  double Q[144], lam[12];
  for (int i = 0; i < n * n; ++i)
    Q[i] = urand() - 0.5;
  /* Gram-Schmidt on the columns */
  for (int j = 0; j < n; ++j) {
    for (int pass = 0; pass < 2; ++pass)
      for (int p = 0; p < j; ++p) {
        double d = 0;
        for (int i = 0; i < n; ++i)
          d += Q[i * n + p] * Q[i * n + j];
        for (int i = 0; i < n; ++i)
          Q[i * n + j] -= d * Q[i * n + p];
      }
    double l = 0;
    for (int i = 0; i < n; ++i)
      l += Q[i * n + j] * Q[i * n + j];
    for (int i = 0; i < n; ++i)
      Q[i * n + j] /= sqrt(l);
  }
  for (int i = 0; i < n; ++i) {
    const double u = urand();
    lam[i] = u < 0.15 ? 0 : u < 0.25 ? (i ? lam[i - 1] : 1) : 2 * urand() - 1;
  }
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k)
        s += Q[i * n + k] * lam[k] * Q[j * n + k];
      A[i * n + j] = A[j * n + i] = s * scale;
    }
}

/* The scale: n times the largest entry (no overflow at 1e300). */
static double fro(int n, const double *A) {
  double s = 0;
  for (int i = 0; i < n * n; ++i)
    s = fmax(s, fabs(A[i]));
  return n * s;
}

/* A + tau I has a Cholesky factor (long double). */
static int cholesky_ok(int n, const double *A, double tau) {
  long double L[144];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      long double s = (long double)A[i * n + j] + (i == j ? tau : 0);
      for (int q = 0; q < j; ++q)
        s -= L[i * n + q] * L[j * n + q];
      if (i == j) {
        if (!(s > 0))
          return 0;
        L[i * n + i] = sqrtl(s);
      } else {
        L[i * n + j] = s / L[j * n + j];
      }
    }
  return 1;
}

static void check_f64(int n, double scale, const char *what) {
  double A[144], B[144], V[144], R[144], Ab[144], work[288];
  rand_sym(n, scale, A);
  const double sc = fro(n, A) > 0 ? fro(n, A) : 1;
  /* decomposition */
  memcpy(B, A, sizeof(double) * (size_t)(n * n));
  te_eig_jacobi_d(n, B, V);
  double err = 0, orth = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0, o = 0;
      for (int k = 0; k < n; ++k) {
        s += V[i * n + k] * B[k * n + k] * V[j * n + k];
        o += V[k * n + i] * V[k * n + j];
      }
      err = fmax(err, fabs(s - A[i * n + j]));
      orth = fmax(orth, fabs(o - (i == j)));
    }
  CHECK(err <= 1e-12 * sc, "%s n=%d: |V L V^T - A| = %g of %g", what, n, err,
        sc);
  CHECK(orth <= 1e-13, "%s n=%d: V not orthogonal (%g)", what, n, orth);
  /* clamp and abs */
  memcpy(R, A, sizeof(double) * (size_t)(n * n));
  te_eig_project_psd_d(n, R, 1, work);
  memcpy(Ab, A, sizeof(double) * (size_t)(n * n));
  te_eig_project_psd_d(n, Ab, 2, work);
  CHECK(cholesky_ok(n, R, 1e-12 * sc), "%s n=%d: clamp not PSD", what, n);
  double D[144], dev = 0;
  for (int i = 0; i < n * n; ++i) {
    D[i] = R[i] - A[i];
    dev = fmax(dev, fabs(Ab[i] - (2 * R[i] - A[i])));
  }
  CHECK(cholesky_ok(n, D, 1e-12 * sc), "%s n=%d: clamp - A not PSD", what, n);
  CHECK(dev <= 1e-12 * sc, "%s n=%d: abs != 2 clamp - A (%g)", what, n, dev);
  /* a PSD matrix is returned unchanged, bit for bit */
  memcpy(B, R, sizeof(double) * (size_t)(n * n));
  for (int i = 0; i < n; ++i)
    B[i * n + i] += 1e-9 * sc; /* strictly PSD */
  memcpy(D, B, sizeof(double) * (size_t)(n * n));
  te_eig_project_psd_d(n, D, 1, work);
  CHECK(memcmp(B, D, sizeof(double) * (size_t)(n * n)) == 0,
        "%s n=%d: a PSD matrix changed", what, n);
}

static void check_f32(int n) {
  double A[144];
  float R[144], work[288];
  rand_sym(n, 1, A);
  for (int i = 0; i < n * n; ++i)
    R[i] = (float)A[i];
  te_eig_project_psd_f(n, R, 1, work);
  double Rd[144];
  for (int i = 0; i < n * n; ++i)
    Rd[i] = R[i];
  /* f32 stops at off-diagonal entries of 1e3 eps (eps = 2^-23) */
  CHECK(cholesky_ok(n, Rd, 1e-3 * fro(n, A) + 1e-30), "f32 n=%d: clamp not PSD",
        n);
}

static void check_nan(int n) {
  double A[144], work[288];
  rand_sym(n, 1, A);
  A[n > 1 ? 1 : 0] = NAN;
  if (n > 1)
    A[n] = NAN;
  te_eig_project_psd_d(n, A, 1, work);
  int any = 0;
  for (int i = 0; i < n * n; ++i)
    any |= isnan(A[i]);
  CHECK(any, "n=%d: the NaN was lost", n);
  double B[144];
  for (int i = 0; i < n * n; ++i)
    B[i] = NAN;
  te_eig_project_psd_d(n, B, 2, work);
  CHECK(isnan(B[0]), "n=%d: all-NaN input came back as numbers", n);
}

int main(void) {
  for (int n = 1; n <= 12; ++n)
    for (int rep = 0; rep < 40; ++rep) {
      check_f64(n, 1, "unit");
      check_f32(n);
    }
  for (int n = 2; n <= 9; ++n) {
    check_f64(n, 1e-300, "tiny");
    check_f64(n, 1e300, "huge");
    check_nan(n);
  }
  if (test_failures)
    fprintf(stderr, "%d failures\n", test_failures);
  else
    printf("eigen math: all checks passed\n");
  return test_failures ? 1 : 0;
}
