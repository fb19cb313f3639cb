/*
 * fricl_copy.cl - the roofline: read n values, write n values, nothing else.
 * The benchmark times it on the same device, buffers and element type as the
 * kernel under test, so "% of copy" compares like with like.
 */
__kernel void fricl_copy(ulong n, __global const FRICL_REAL *restrict src,
                         __global FRICL_REAL *restrict dst) {
  const size_t i = get_global_id(0);
  if (i < n)
    dst[i] = src[i];
}
