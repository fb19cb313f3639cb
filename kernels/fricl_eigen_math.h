/*
 * fricl_eigen_math.h - the symmetric eigen-decomposition of a small dense
 * matrix (n <= 12) by cyclic Jacobi rotations, and the projection of a
 * symmetric matrix onto the positive semi-definite cone built on it
 * (ipctk's project_to_psd: CLAMP sets negative eigenvalues to 0, ABS to
 * their magnitude; a matrix without negative eigenvalues is returned
 * unchanged). Shared by the kernels and the C backends, once per precision
 * (FRICL_REAL, FRICL_FN, FRICL_SQRT set by the includer; see
 * fricl_cl_compat.h).
 */

#define FRICL_EIG_MAX_SWEEPS 40

/* The rounds of a sweep and their pairs fully unrolled on the host, where
 * the size is a constant: the pairs' indices fold (measured 5-6% off the
 * barrier's evaluation on the bench scene). */
#ifndef FRICL_EIG_UNROLL
#if !FRICL_OPENCL_C && defined(__GNUC__) && !defined(__clang__)
#define FRICL_EIG_UNROLL _Pragma("GCC unroll 12")
#else
#define FRICL_EIG_UNROLL
#endif
#endif

/* Inlined into every caller on the host too (GCC otherwise keeps one copy
 * for every n), so that the size, a constant there, folds through the
 * loops. */
#ifndef FRICL_EIG_INLINE
#if !FRICL_OPENCL_C && (defined(__GNUC__) || defined(__clang__))
#define FRICL_EIG_INLINE static inline __attribute__((always_inline))
#else
#define FRICL_EIG_INLINE FRICL_INLINE
#endif
#endif

/*
 * A (n x n, row-major, symmetric) is diagonalised in place: on return its
 * diagonal holds the eigenvalues; V (n x n) receives the eigenvectors in
 * its columns. Cyclic Jacobi in the round-robin ("parallel") ordering:
 * each sweep is n - 1 rounds (n rounded up to even) of disjoint pairs,
 * whose rotations commute and whose angles depend only on their own 2 x 2
 * blocks (a round's angles are computed first, then applied; on the host
 * this measured as fast as the row-cyclic order, not faster: the loads
 * and stores of a rotation bound it). A rotation is skipped where the
 * entry's square is below (1e3 eps)^2 / (n (n - 1) / 2) of the matrix's
 * squared Frobenius norm, eps the precision's machine epsilon, and the
 * sweeps stop after one without a rotation: the off-diagonal squares then
 * sum below (1e3 eps)^2 of it. NaN entries propagate (they are never
 * rotated; the sweeps are capped).
 */
FRICL_EIG_INLINE void FRICL_FN(eig_jacobi)(int n, FRICL_REAL *A,
                                           FRICL_REAL *V) {
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1);
  const FRICL_REAL eps = sizeof(FRICL_REAL) == 8
                             ? FRICL_R(1) / FRICL_R(4503599627370496)
                             : FRICL_R(1) / FRICL_R(8388608);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      V[i * n + j] = i == j ? one : zero;
  if (n < 2)
    return;
  /* Scaled to entries of at most 1 (no over- or underflow in the squares
   * below; NaN entries are left as they are), the eigenvalues scaled back
   * at the end. */
  FRICL_REAL amax = zero;
  for (int i = 0; i < n * n; ++i) {
    const FRICL_REAL a = A[i] < zero ? -A[i] : A[i];
    amax = a > amax ? a : amax;
  }
  if (!(amax > zero))
    return;
  const FRICL_REAL isc = one / amax;
  FRICL_REAL fro = zero;
  for (int i = 0; i < n * n; ++i) {
    A[i] *= isc;
    fro += A[i] * A[i];
  }
  /* Off-diagonal entries of 1e3 eps |A| move the eigenvalues by that much
   * at most: far below the 1e-10 the results are held to, and reached in
   * a few quadratically converging sweeps (rounding keeps the entries near
   * eps |A|, so a tighter bound would never be met). */
  const FRICL_REAL thr = (FRICL_R(1000) * eps) * (FRICL_R(1000) * eps) * fro /
                         FRICL_R(n * (n - 1) / 2);
  const int N = n + (n & 1);
  for (int sweep = 0; sweep < FRICL_EIG_MAX_SWEEPS; ++sweep) {
    int rotated = 0;
    FRICL_EIG_UNROLL
    for (int rd = 0; rd < N - 1; ++rd) {
      /* The round's pairs (circle method: N - 1 fixed, the rest turn)
       * and their rotations. */
      int P[6], Qi[6], m = 0;
      FRICL_REAL T[6], C[6], S[6];
      FRICL_EIG_UNROLL
      for (int i = 0; i < N / 2; ++i) {
        int a = N - 1, b = rd;
        if (i > 0) {
          a = (rd + i) % (N - 1);
          b = (rd + N - 1 - i) % (N - 1);
        }
        if (a >= n || b >= n)
          continue;
        const int p = a < b ? a : b, q = a < b ? b : a;
        const FRICL_REAL apq = A[p * n + q];
        if (!(apq * apq > thr))
          continue;
        /* tan, cos and sin of the angle that zeroes apq: with d = aqq -
         * app, e = 2 apq, h = |(d, e)| and u = |d| + h, t = sign(d) e / u
         * and |(u, e)|^2 = 2 h u (two square roots and one division on
         * the chain; the entries are at most 1 here, see above). */
        const FRICL_REAL d = A[q * n + q] - A[p * n + p];
        const FRICL_REAL e = FRICL_R(2) * apq;
        const FRICL_REAL ad = d < zero ? -d : d;
        const FRICL_REAL h = FRICL_SQRT(d * d + e * e);
        const FRICL_REAL u = ad + h;
        const FRICL_REAL iw = one / FRICL_SQRT(FRICL_R(2) * h * u);
        const FRICL_REAL se = d < zero ? -e : e;
        P[m] = p;
        Qi[m] = q;
        T[m] = se / u;
        C[m] = u * iw;
        S[m] = se * iw;
        ++m;
      }
      rotated |= m;
      for (int e = 0; e < m; ++e) {
        const int p = P[e], q = Qi[e];
        const FRICL_REAL t = T[e], c = C[e], s = S[e];
        const FRICL_REAL apq = A[p * n + q];
        A[p * n + p] -= t * apq;
        A[q * n + q] += t * apq;
        A[p * n + q] = zero;
        A[q * n + p] = zero;
        for (int r = 0; r < n; ++r) {
          if (r != p && r != q) {
            const FRICL_REAL arp = A[r * n + p], arq = A[r * n + q];
            const FRICL_REAL np = c * arp - s * arq;
            const FRICL_REAL nq = s * arp + c * arq;
            A[r * n + p] = np;
            A[p * n + r] = np;
            A[r * n + q] = nq;
            A[q * n + r] = nq;
          }
          const FRICL_REAL vrp = V[r * n + p], vrq = V[r * n + q];
          V[r * n + p] = c * vrp - s * vrq;
          V[r * n + q] = s * vrp + c * vrq;
        }
      }
    }
    if (!rotated)
      break;
  }
  for (int i = 0; i < n; ++i)
    A[i * n + i] *= amax;
}

/*
 * Project H (n x n, symmetric, row-major) in place: mode 0 none, 1 clamp,
 * 2 abs. work holds 2 n n reals. H += -f sum over lambda_i < 0 of
 * lambda_i v_i v_i^T (f = 1 clamp, 2 abs), which equals V D' V^T.
 */
FRICL_EIG_INLINE void FRICL_FN(eig_project_psd)(int n, FRICL_REAL *H, int mode,
                                                FRICL_REAL *work) {
  if (mode == 0)
    return;
  FRICL_REAL *A = work, *V = work + n * n;
  for (int i = 0; i < n * n; ++i)
    A[i] = H[i];
  FRICL_FN(eig_jacobi)(n, A, V);
  const FRICL_REAL f = mode == 2 ? FRICL_R(2) : FRICL_R(1);
  for (int i = 0; i < n; ++i) {
    const FRICL_REAL lam = A[i * n + i];
    if (!(lam < FRICL_R(0)))
      continue;
    const FRICL_REAL fl = f * lam;
    for (int r = 0; r < n; ++r) {
      const FRICL_REAL vr = fl * V[r * n + i];
      for (int s = r; s < n; ++s) {
        H[r * n + s] -= vr * V[s * n + i];
        H[s * n + r] = H[r * n + s];
      }
    }
  }
}
