/*
 * fuzz_npy.c - libFuzzer target for the NPY reader of the CLI (src/cli/npy.c).
 *
 * Every input is read four ways: npy_read_memory and npy_read_stream (over
 * fmemopen), each with and without NPY_READ_ALLOW_TRAILING, plus
 * npy_parse_header on the same bytes. Invariants (abort() on violation):
 *   - no crash, no sanitizer report, no leak (libFuzzer's leak check);
 *   - the status is NPY_OK or a documented error for bad input
 *     (NPY_E_FORMAT, NPY_E_UNSUPPORTED) with a non-empty, NUL-terminated
 *     message; on error the output array is left zeroed (no data);
 *   - on NPY_OK the header is self-consistent: version 1.0/2.0/3.0, a known
 *     dtype, 0 <= ndim <= NPY_MAX_NDIM, count = product of the shape (1 for
 *     ndim 0), data_bytes = count * itemsize, data non-NULL exactly when
 *     data_bytes > 0, data_offset + data_bytes == input size (or <= with
 *     ALLOW_TRAILING), and the data are the file's bytes at data_offset;
 *   - the memory and stream readers agree (status, header, data), and a
 *     successful read agrees with npy_parse_header;
 *   - a C-order array read successfully is written back by npy_write_array
 *     and reads back identical.
 */
#define _GNU_SOURCE /* fmemopen, open_memstream */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_npy: invariant violated at %s:%d: %s\n", __FILE__, \
              __LINE__, #cond);                                                \
      abort();                                                                 \
    }                                                                          \
  } while (0)

static int host_little_endian(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

/* The message of a failed call: non-empty and terminated within msg. */
static void check_error(npy_status st, const npy_error *err) {
  CHECK(st == NPY_E_FORMAT || st == NPY_E_UNSUPPORTED);
  const size_t len = strnlen(err->msg, sizeof err->msg);
  CHECK(len > 0 && len < sizeof err->msg);
}

static void check_info(const npy_info *info, size_t size, unsigned flags) {
  CHECK(info->version_minor == 0 && info->version_major >= 1 &&
        info->version_major <= 3);
  const size_t itemsize = npy_dtype_itemsize(info->dtype);
  CHECK(itemsize > 0 && npy_dtype_descr(info->dtype) != NULL);
  CHECK(info->fortran_order == 0 || info->fortran_order == 1);
  CHECK(info->ndim >= 0 && info->ndim <= NPY_MAX_NDIM);
  /* count is the product of the shape; compute it without overflow. */
  int has_zero = 0;
  for (int i = 0; i < info->ndim; ++i)
    has_zero |= info->shape[i] == 0;
  size_t count = 1;
  for (int i = 0; i < info->ndim && !has_zero; ++i) {
    CHECK(count <= SIZE_MAX / info->shape[i]);
    count *= info->shape[i];
  }
  if (has_zero)
    count = 0;
  CHECK(info->count == count);
  CHECK(count <= SIZE_MAX / itemsize);
  CHECK(info->data_bytes == count * itemsize);
  const size_t prefix = info->version_major == 1 ? 10 : 12;
  CHECK(info->data_offset >= prefix);
  CHECK(info->data_offset <= size);
  CHECK(info->data_bytes <= size - info->data_offset);
  if (!(flags & NPY_READ_ALLOW_TRAILING))
    CHECK(info->data_offset + info->data_bytes == size);
}

static void check_array(const npy_array *a, const uint8_t *data, size_t size,
                        unsigned flags) {
  check_info(&a->info, size, flags);
  CHECK((a->data != NULL) == (a->info.data_bytes > 0));
  if (a->data && host_little_endian())
    CHECK(memcmp(a->data, data + a->info.data_offset, a->info.data_bytes) == 0);
}

static int info_equal(const npy_info *x, const npy_info *y) {
  if (x->version_major != y->version_major ||
      x->version_minor != y->version_minor || x->dtype != y->dtype ||
      x->fortran_order != y->fortran_order || x->ndim != y->ndim ||
      x->count != y->count || x->data_bytes != y->data_bytes ||
      x->data_offset != y->data_offset)
    return 0;
  for (int i = 0; i < x->ndim; ++i)
    if (x->shape[i] != y->shape[i])
      return 0;
  return 1;
}

static int array_equal(const npy_array *x, const npy_array *y) {
  return info_equal(&x->info, &y->info) &&
         (x->info.data_bytes == 0 ||
          memcmp(x->data, y->data, x->info.data_bytes) == 0);
}

/* Write a C-order array with npy_write_array and read it back. */
static void check_roundtrip(const npy_array *a) {
  if (a->info.fortran_order)
    return; /* the writer only writes C order */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return; /* out of memory in libc: not the reader's business */
  npy_error err;
  memset(&err, 0, sizeof err);
  const npy_status wst = npy_write_array(f, a->info.dtype, a->info.ndim,
                                         a->info.shape, a->data, &err);
  CHECK(fclose(f) == 0);
  if (wst != NPY_OK)
    fprintf(stderr,
            "fuzz_npy: npy_write_array refused an array read back "
            "from a valid file: %s\n",
            err.msg);
  CHECK(wst == NPY_OK);
  npy_array back;
  memset(&err, 0, sizeof err);
  const npy_status rst = npy_read_memory(buf, len, 0, &back, &err);
  CHECK(rst == NPY_OK);
  /* Same array, in format 1.0 with numpy's header layout. */
  CHECK(back.info.version_major == 1 && back.info.data_offset % 64 == 0);
  CHECK(back.info.dtype == a->info.dtype && back.info.ndim == a->info.ndim &&
        back.info.count == a->info.count);
  for (int i = 0; i < a->info.ndim; ++i)
    CHECK(back.info.shape[i] == a->info.shape[i]);
  CHECK(a->info.data_bytes == 0 ||
        memcmp(back.data, a->data, a->info.data_bytes) == 0);
  npy_array_free(&back);
  free(buf);
}

static npy_status read_via_stream(const uint8_t *data, size_t size,
                                  unsigned flags, npy_array *out,
                                  npy_error *err, int *ran) {
  *ran = 0;
  /* fmemopen needs a writable buffer; glibc refuses size 0. */
  void *copy = malloc(size ? size : 1);
  if (!copy)
    return NPY_E_NOMEM;
  if (size)
    memcpy(copy, data, size);
  FILE *f = size ? fmemopen(copy, size, "rb") : NULL;
  npy_status st = NPY_E_IO;
  if (f) {
    *ran = 1;
    st = npy_read_stream(f, flags, out, err);
    fclose(f);
  }
  CHECK(size == 0 || memcmp(copy, data, size) == 0);
  free(copy);
  return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npy_info hinfo;
  npy_error herr;
  memset(&herr, 0, sizeof herr);
  const npy_status hst = npy_parse_header(data, size, &hinfo, &herr);
  if (hst != NPY_OK)
    check_error(hst, &herr);
  else
    CHECK(hinfo.data_offset <= size);

  static const unsigned flag_sets[2] = {0, NPY_READ_ALLOW_TRAILING};
  for (int k = 0; k < 2; ++k) {
    const unsigned flags = flag_sets[k];
    npy_array mem, str;
    npy_error merr, serr;
    memset(&merr, 0, sizeof merr);
    memset(&serr, 0, sizeof serr);
    memset(&mem, 0xA5, sizeof mem); /* the readers zero it first */
    memset(&str, 0xA5, sizeof str);
    const npy_status mst = npy_read_memory(data, size, flags, &mem, &merr);
    int ran = 0;
    const npy_status sst =
        read_via_stream(data, size, flags, &str, &serr, &ran);

    if (mst == NPY_OK) {
      check_array(&mem, data, size, flags);
      CHECK(hst == NPY_OK && info_equal(&hinfo, &mem.info));
    } else {
      check_error(mst, &merr);
      CHECK(mem.data == NULL);
    }
    if (ran) {
      if (sst == NPY_OK)
        check_array(&str, data, size, flags);
      else {
        check_error(sst, &serr);
        CHECK(str.data == NULL);
      }
      /* The two readers see the same bytes: same verdict, same array. */
      if (mst != sst)
        fprintf(stderr,
                "fuzz_npy: memory reader %d (%s), stream reader %d "
                "(%s)\n",
                (int)mst, merr.msg, (int)sst, serr.msg);
      CHECK(mst == sst);
      if (mst == NPY_OK)
        CHECK(array_equal(&mem, &str));
    }
    /* A header that parses makes the reader fail only on the data size. */
    if (hst == NPY_OK && mst != NPY_OK)
      CHECK(mst == NPY_E_FORMAT);
    if (mst == NPY_OK && k == 0)
      check_roundtrip(&mem);
    npy_array_free(&mem);
    if (ran)
      npy_array_free(&str);
  }
  return 0;
}
