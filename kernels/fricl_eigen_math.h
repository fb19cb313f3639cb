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

/*
 * A (n x n, row-major, symmetric) is diagonalised in place: on return its
 * diagonal holds the eigenvalues; V (n x n) receives the eigenvectors in
 * its columns. Rotations stop once the off-diagonal squares sum below
 * (1e3 eps)^2 of the matrix's squared Frobenius norm, eps the precision's
 * machine epsilon. NaN entries propagate (the sweeps then stop at the cap).
 */
FRICL_INLINE void FRICL_FN(eig_jacobi)(int n, FRICL_REAL *A, FRICL_REAL *V) {
  const FRICL_REAL zero = FRICL_R(0), one = FRICL_R(1);
  const FRICL_REAL eps = sizeof(FRICL_REAL) == 8
                             ? FRICL_R(1) / FRICL_R(4503599627370496)
                             : FRICL_R(1) / FRICL_R(8388608);
  FRICL_REAL fro = zero;
  for (int i = 0; i < n * n; ++i)
    fro += A[i] * A[i];
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      V[i * n + j] = i == j ? one : zero;
  /* Off-diagonal entries of 1e3 eps |A| move the eigenvalues by that much
   * at most: far below the 1e-10 the results are held to, and reached in
   * a few quadratically converging sweeps (rounding keeps the entries near
   * eps |A|, so a tighter bound would never be met). */
  const FRICL_REAL tol = (FRICL_R(1000) * eps) * (FRICL_R(1000) * eps) * fro;
  for (int sweep = 0; sweep < FRICL_EIG_MAX_SWEEPS; ++sweep) {
    FRICL_REAL off = zero;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q)
        off += A[p * n + q] * A[p * n + q];
    if (!(off > tol))
      break;
    for (int p = 0; p < n - 1; ++p)
      for (int q = p + 1; q < n; ++q) {
        const FRICL_REAL apq = A[p * n + q];
        if (apq == zero)
          continue;
        const FRICL_REAL theta =
            (A[q * n + q] - A[p * n + p]) / (FRICL_R(2) * apq);
        const FRICL_REAL at = theta < zero ? -theta : theta;
        /* t = sign(theta) / (|theta| + sqrt(theta^2 + 1)); for a huge
         * theta the square overflows and t = 1 / (2 theta). */
        FRICL_REAL t = at > FRICL_R(1e15)
                           ? one / (FRICL_R(2) * at)
                           : one / (at + FRICL_SQRT(at * at + one));
        if (theta < zero)
          t = -t;
        const FRICL_REAL c = one / FRICL_SQRT(t * t + one);
        const FRICL_REAL s = t * c;
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
}

/*
 * Project H (n x n, symmetric, row-major) in place: mode 0 none, 1 clamp,
 * 2 abs. work holds 2 n n reals. H += -f sum over lambda_i < 0 of
 * lambda_i v_i v_i^T (f = 1 clamp, 2 abs), which equals V D' V^T.
 */
FRICL_INLINE void FRICL_FN(eig_project_psd)(int n, FRICL_REAL *H, int mode,
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
