/*
 * fuzz_npz.c - libFuzzer target for the .npz reader of the CLI
 * (src/cli/npz.c, over the NPY parser of src/cli/npy.c).
 *
 * Every input is read with npz_read_memory. Invariants (abort() on
 * violation):
 *   - no crash, no sanitizer report, no leak (libFuzzer's leak check);
 *   - the status is NPY_OK or a documented error for bad input
 *     (NPY_E_FORMAT, NPY_E_UNSUPPORTED; NPY_E_NOMEM only for members
 *     larger than the memory limit) with a non-empty, NUL-terminated
 *     message; on error the archive is left empty;
 *   - on NPY_OK every member has a non-empty name without ".npy" and
 *     without control characters, names are unique, npz_find finds each,
 *     and each array is self-consistent (data non-NULL exactly when it has
 *     bytes);
 *   - the archive written back by npz_writer, stored and deflated, reads
 *     back with the same names, headers and data.
 */
#define _GNU_SOURCE /* open_memstream */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npz.h"

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_npz: invariant violated at %s:%d: %s\n", __FILE__, \
              __LINE__, #cond);                                                \
      abort();                                                                 \
    }                                                                          \
  } while (0)

static void check_error(npy_status st, const npy_error *err) {
  CHECK(st == NPY_E_FORMAT || st == NPY_E_UNSUPPORTED || st == NPY_E_NOMEM);
  const size_t len = strnlen(err->msg, sizeof err->msg);
  CHECK(len > 0 && len < sizeof err->msg);
}

static void check_archive(const npz_archive *a) {
  for (size_t i = 0; i < a->count; ++i) {
    const npz_member *m = &a->members[i];
    const size_t len = strlen(m->name);
    CHECK(len > 0 && len + 4 <= NPZ_MAX_NAME_LEN);
    for (size_t j = 0; j < len; ++j)
      CHECK((unsigned char)m->name[j] >= 0x20 &&
            (unsigned char)m->name[j] != 0x7f);
    CHECK(npz_find(a, m->name) == m);
    CHECK((m->array.data != NULL) == (m->array.info.data_bytes > 0));
    CHECK(m->array.info.data_bytes ==
          m->array.info.count * npy_dtype_itemsize(m->array.info.dtype));
  }
}

/* Members the writer can write: C order, printable-ASCII names. */
static int writable(const npz_archive *a) {
  for (size_t i = 0; i < a->count; ++i) {
    if (a->members[i].array.info.fortran_order)
      return 0;
    for (const char *p = a->members[i].name; *p; ++p)
      if ((unsigned char)*p >= 0x7f)
        return 0;
  }
  return 1;
}

static void check_roundtrip(const npz_archive *a, unsigned flags) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return;
  npz_writer *w = NULL;
  npy_error err;
  npy_status st = npz_writer_open(&w, f, flags, &err);
  for (size_t i = 0; i < a->count && st == NPY_OK; ++i) {
    const npy_array *x = &a->members[i].array;
    st = npz_writer_add(w, a->members[i].name, x->info.dtype, x->info.ndim,
                        x->info.shape, x->data, &err);
  }
  if (st == NPY_OK)
    st = npz_writer_finish(w, &err);
  npz_writer_free(w);
  CHECK(fclose(f) == 0);
  if (st != NPY_OK)
    fprintf(stderr, "fuzz_npz: writer refused a valid archive: %s\n", err.msg);
  CHECK(st == NPY_OK);
  npz_archive back;
  st = npz_read_memory(buf, len, &back, &err);
  if (st != NPY_OK)
    fprintf(stderr, "fuzz_npz: written archive unreadable: %s\n", err.msg);
  CHECK(st == NPY_OK);
  CHECK(back.count == a->count);
  for (size_t i = 0; i < a->count; ++i) {
    const npy_info *x = &a->members[i].array.info,
                   *y = &back.members[i].array.info;
    CHECK(strcmp(a->members[i].name, back.members[i].name) == 0);
    CHECK(x->dtype == y->dtype && x->ndim == y->ndim && x->count == y->count);
    for (int d = 0; d < x->ndim; ++d)
      CHECK(x->shape[d] == y->shape[d]);
    CHECK(x->data_bytes == 0 ||
          memcmp(a->members[i].array.data, back.members[i].array.data,
                 x->data_bytes) == 0);
  }
  npz_archive_free(&back);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npz_archive a;
  npy_error err;
  memset(&err, 0, sizeof err);
  memset(&a, 0xA5, sizeof a); /* the reader zeroes it first */
  const npy_status st = npz_read_memory(data, size, &a, &err);
  if (st != NPY_OK) {
    check_error(st, &err);
    CHECK(a.count == 0 && a.members == NULL);
    return 0;
  }
  check_archive(&a);
  if (writable(&a)) {
    check_roundtrip(&a, 0);
    check_roundtrip(&a, NPZ_WRITE_DEFLATE);
  }
  npz_archive_free(&a);
  return 0;
}
