/*
 * test_npz.c - unit tests of src/cli/npz.c.
 *
 *   test_npz GROUP [FIXTURE_DIR]   GROUP: read | malformed | write | all
 *   test_npz emit DIR              write sample archives (stored, deflated,
 *                                  forced ZIP64) for a numpy-side check
 *
 * "read" checks the archives numpy itself wrote (tests/data/npz, produced by
 * make_npz_fixtures.py) and round trips through the writer; "malformed"
 * patches valid archives field by field (every error names the member at
 * fault), truncates them at every length and flips every byte (no crash, no
 * leak: the suite also runs under ASan/valgrind); "write" checks the
 * writer's byte layout and determinism.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npz.h"

static int failures;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void
fail_at(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "test_npz.c:%d: FAILED: ", line);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  ++failures;
}
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond))                                                               \
      fail_at(__LINE__, __VA_ARGS__);                                          \
  } while (0)

static uint32_t get32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static void put16(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v & 0xFF);
  p[1] = (unsigned char)(v >> 8 & 0xFF);
}
static void put32(unsigned char *p, uint32_t v) {
  put16(p, v & 0xFFFF);
  put16(p + 2, v >> 16);
}

/* ------------------------------------------------------ sample arrays */

static const double velocities[6] = {1.5, -2.0, 0.25, 3.0, 4.0, -0.5};
static const int32_t fv_ids[4] = {0, 1, 2, 3};
static const int64_t ids64[2] = {7, -1};
static const double eps_v = 1e-3;
static const float f32[2] = {1.0f, 2.5f};

/* An archive in memory, written by npz_writer with @p flags: the same
 * arrays as the numpy fixtures, plus extra members when @p extra. */
static unsigned char *write_sample(unsigned flags, int extra, size_t *len) {
  FILE *f = tmpfile();
  npz_writer *w = NULL;
  npy_error err;
  unsigned char *buf = NULL;
  *len = 0;
  if (!f) {
    fail_at(__LINE__, "tmpfile failed");
    return NULL;
  }
  const size_t s_vel[2] = {2, 3}, s_fv[2] = {1, 4}, s_ids[1] = {2},
               s_empty[2] = {0, 3}, s_f32[1] = {2};
  npy_status st = npz_writer_open(&w, f, flags, &err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "velocities", NPY_F8, 2, s_vel, velocities, &err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "fv", NPY_I4, 2, s_fv, fv_ids, &err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "ids64", NPY_I8, 1, s_ids, ids64, &err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "eps_v", NPY_F8, 0, NULL, &eps_v, &err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "empty", NPY_F8, 2, s_empty, NULL, &err);
  if (st == NPY_OK)
    st = npz_writer_add(w, "f32", NPY_F4, 1, s_f32, f32, &err);
  for (int i = 0; extra && i < 40 && st == NPY_OK; ++i) {
    /* Compressible data: a ramp of 1000 doubles per member. */
    double ramp[1000];
    char name[32];
    const size_t s_ramp[1] = {1000};
    for (int j = 0; j < 1000; ++j)
      ramp[j] = i + j / 8;
    snprintf(name, sizeof name, "ramp_%02d", i);
    st = npz_writer_add(w, name, NPY_F8, 1, s_ramp, ramp, &err);
  }
  if (st == NPY_OK)
    st = npz_writer_finish(w, &err);
  npz_writer_free(w);
  CHECK(st == NPY_OK, "writer: %s", err.msg);
  long end = ftell(f);
  if (st == NPY_OK && end > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)end)) != NULL &&
      fread(buf, 1, (size_t)end, f) == (size_t)end)
    *len = (size_t)end;
  fclose(f);
  if (*len == 0) {
    free(buf);
    buf = NULL;
  }
  return buf;
}

/* The sample arrays, in the archive a. */
static void check_sample(int line, const npz_archive *a) {
  const npz_member *m;
  if (a->count < 6) {
    fail_at(line, "%zu members, expected at least 6", a->count);
    return;
  }
  static const char *const order[6] = {"velocities", "fv",    "ids64",
                                       "eps_v",      "empty", "f32"};
  for (int i = 0; i < 6; ++i)
    if (strcmp(a->members[i].name, order[i]) != 0)
      fail_at(line, "member %d is '%s', expected '%s'", i, a->members[i].name,
              order[i]);
  m = npz_find(a, "velocities");
  if (!m || m->array.info.dtype != NPY_F8 || m->array.info.ndim != 2 ||
      m->array.info.shape[0] != 2 || m->array.info.shape[1] != 3 ||
      memcmp(m->array.data, velocities, sizeof velocities) != 0)
    fail_at(line, "velocities wrong");
  m = npz_find(a, "fv");
  if (!m || m->array.info.dtype != NPY_I4 || m->array.info.ndim != 2 ||
      m->array.info.shape[0] != 1 || m->array.info.shape[1] != 4 ||
      memcmp(m->array.data, fv_ids, sizeof fv_ids) != 0)
    fail_at(line, "fv wrong");
  m = npz_find(a, "ids64");
  if (!m || m->array.info.dtype != NPY_I8 || m->array.info.ndim != 1 ||
      memcmp(m->array.data, ids64, sizeof ids64) != 0)
    fail_at(line, "ids64 wrong");
  m = npz_find(a, "eps_v");
  if (!m || m->array.info.dtype != NPY_F8 || m->array.info.ndim != 0 ||
      m->array.info.count != 1 ||
      memcmp(m->array.data, &eps_v, sizeof eps_v) != 0)
    fail_at(line, "eps_v wrong");
  m = npz_find(a, "empty");
  if (!m || m->array.info.ndim != 2 || m->array.info.shape[0] != 0 ||
      m->array.info.shape[1] != 3 || m->array.info.count != 0 ||
      m->array.data != NULL)
    fail_at(line, "empty wrong");
  m = npz_find(a, "f32");
  if (!m || m->array.info.dtype != NPY_F4 ||
      memcmp(m->array.data, f32, sizeof f32) != 0)
    fail_at(line, "f32 wrong");
  if (npz_find(a, "absent") || npz_find(a, "velocities.npy") ||
      npz_find(a, "fv "))
    fail_at(line, "npz_find found a member that is not there");
}

/* ---------------------------------------------------------------- read */

static void test_numpy_fixtures(const char *dir) {
  static const char *const names[2] = {"numpy_savez.npz",
                                       "numpy_savez_compressed.npz"};
  for (int i = 0; i < 2; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    npz_archive a;
    npy_error err;
    const npy_status st = npz_read_file(path, &a, &err);
    CHECK(st == NPY_OK, "%s: %s", path, err.msg);
    if (st == NPY_OK) {
      CHECK(a.count == 6, "%s: %zu members", path, a.count);
      check_sample(__LINE__, &a);
    }
    npz_archive_free(&a);
  }
}

static void test_roundtrip(void) {
  static const unsigned flag_sets[2] = {0, NPZ_WRITE_DEFLATE};
  for (int k = 0; k < 2; ++k)
    for (int extra = 0; extra < 2; ++extra) {
      size_t len = 0;
      unsigned char *buf = write_sample(flag_sets[k], extra, &len);
      npz_archive a;
      npy_error err;
      const npy_status st = npz_read_memory(buf, len, &a, &err);
      CHECK(st == NPY_OK, "flags %u extra %d: %s", flag_sets[k], extra,
            err.msg);
      if (st == NPY_OK) {
        check_sample(__LINE__, &a);
        CHECK(a.count == (extra ? 46u : 6u), "count %zu", a.count);
        const npz_member *m = npz_find(&a, "ramp_39");
        CHECK(!extra || (m && m->array.info.count == 1000 &&
                         ((const double *)m->array.data)[999] == 39 + 124),
              "ramp_39 wrong");
      }
      npz_archive_free(&a);
      free(buf);
    }
  /* Deflate really compresses the ramps. */
  size_t stored = 0, deflated = 0;
  unsigned char *s = write_sample(0, 1, &stored);
  unsigned char *d = write_sample(NPZ_WRITE_DEFLATE, 1, &deflated);
  CHECK(s && d && deflated * 4 < stored, "deflate: %zu vs %zu bytes", deflated,
        stored);
  free(s);
  free(d);
}

static void test_read_file_errors(void) {
  npz_archive a;
  npy_error err;
  CHECK(npz_read_file("/nonexistent/x.npz", &a, &err) == NPY_E_IO &&
            strstr(err.msg, "cannot open"),
        "missing file: %s", err.msg);
  CHECK(a.count == 0 && a.members == NULL, "archive not empty on error");
}

/* ----------------------------------------------------------- malformed */

/* What a ZIP-level failure (libzip's) says first. */
#define NOT_ZIP "not an .npz (ZIP) archive"

/* Expect a failure with status st whose message contains want. */
static void expect_fail(int line, const unsigned char *buf, size_t len,
                        npy_status st, const char *want) {
  npz_archive a;
  npy_error err;
  memset(&err, 0, sizeof err);
  const npy_status got = npz_read_memory(buf, len, &a, &err);
  if (got != st)
    fail_at(line, "status %d, expected %d (%s)", (int)got, (int)st,
            got ? err.msg : "read succeeded");
  else if (!strstr(err.msg, want))
    fail_at(line, "message \"%s\" lacks \"%s\"", err.msg, want);
  if (a.count != 0 || a.members != NULL)
    fail_at(line, "archive not left empty");
  npz_archive_free(&a);
}

/* Offsets of the records of a writer-made archive without ZIP64 end
 * records: the central directory and the end record. */
typedef struct layout {
  size_t eocd, cd;
  size_t entry[64];  /* central-directory entries */
  size_t local[64];  /* local headers */
  size_t lextra[64]; /* their extra fields' lengths */
  size_t n;
} layout;

static void find_layout(const unsigned char *b, size_t len, layout *l) {
  memset(l, 0, sizeof *l);
  l->eocd = len - 22;
  l->cd = get32(b + l->eocd + 16);
  size_t p = l->cd;
  while (p + 46 <= l->eocd && get32(b + p) == 0x02014b50u && l->n < 64) {
    l->entry[l->n] = p;
    l->local[l->n] = get32(b + p + 42);
    l->lextra[l->n] =
        (size_t)(b[l->local[l->n] + 28] | b[l->local[l->n] + 29] << 8);
    ++l->n;
    p += 46 + (size_t)(b[p + 28] | b[p + 29] << 8) +
         (size_t)(b[p + 30] | b[p + 31] << 8) +
         (size_t)(b[p + 32] | b[p + 33] << 8);
  }
}

static void test_patched(void) {
  size_t len = 0, dlen = 0;
  unsigned char *orig = write_sample(0, 0, &len);
  unsigned char *dorig = write_sample(NPZ_WRITE_DEFLATE, 0, &dlen);
  unsigned char *b = malloc(len + 64), *d = malloc(dlen + 64);
  layout l, dl;
  if (!orig || !dorig || !b || !d) {
    fail_at(__LINE__, "setup failed");
    goto done;
  }
  find_layout(orig, len, &l);
  find_layout(dorig, dlen, &dl);
  CHECK(l.n == 6 && dl.n == 6, "layout: %zu, %zu entries", l.n, dl.n);
  if (l.n != 6 || dl.n != 6)
    goto done;
#define RESET() memcpy(b, orig, len)
#define DRESET() memcpy(d, dorig, dlen)

  /* Not an archive at all. */
  expect_fail(__LINE__, b, 0, NPY_E_FORMAT, "too short");
  expect_fail(__LINE__, (const unsigned char *)"\x93NUMPY\x01\x00", 8,
              NPY_E_FORMAT, "this is an .npy file");
  RESET();
  expect_fail(__LINE__, b, len - 1, NPY_E_FORMAT, NOT_ZIP);
  /* Trailing garbage: the end record's comment no longer ends the file. */
  RESET();
  b[len] = 'x';
  expect_fail(__LINE__, b, len + 1, NPY_E_FORMAT, NOT_ZIP);
  /* A comment that does end the file is fine. */
  RESET();
  put16(b + l.eocd + 20, 3);
  memcpy(b + len, "abc", 3);
  {
    npz_archive a;
    npy_error err;
    CHECK(npz_read_memory(b, len + 3, &a, &err) == NPY_OK, "comment: %s",
          err.msg);
    check_sample(__LINE__, &a);
    npz_archive_free(&a);
  }

  /* The ZIP structure is libzip's to check (ZIP_CHECKCONS): a damaged
   * end record or central directory, or one that disagrees with the local
   * headers, is "not an .npz (ZIP) archive". */
  RESET();
  put16(b + l.eocd + 4, 1);
  expect_fail(__LINE__, b, len, NPY_E_UNSUPPORTED, "multi-disk");
  RESET();
  put16(b + l.eocd + 10, 7);
  put16(b + l.eocd + 8, 7);
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, NOT_ZIP);
  RESET();
  put16(b + l.eocd + 10, 5);
  put16(b + l.eocd + 8, 5);
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, NOT_ZIP);
  RESET();
  put32(b + l.eocd + 16, (uint32_t)len);
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, NOT_ZIP);
  RESET();
  put32(b + l.entry[4] + 42, (uint32_t)l.local[4] + 1);
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, NOT_ZIP);
  RESET();
  b[l.local[1] + 30] = 'g'; /* local name differs */
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, NOT_ZIP);
  RESET();
  put16(b + l.local[1] + 8, 8); /* local method differs */
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, NOT_ZIP);
  RESET();
  put32(b + l.entry[0] + 20, get32(b + l.entry[0] + 20) + 1);
  put32(b + l.entry[0] + 24, get32(b + l.entry[0] + 24) + 1);
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, NOT_ZIP);

  /* fricl's own rules, on entries patched alike in the central directory
   * and the local header; each error names the member. */
  RESET();
  put16(b + l.entry[1] + 10, 12); /* bzip2 */
  put16(b + l.local[1] + 8, 12);
  expect_fail(__LINE__, b, len, NPY_E_UNSUPPORTED,
              "member 'fv.npy': compression method 12");
  RESET();
  b[l.entry[1] + 46 + 5] = 'z'; /* fv.npz */
  b[l.local[1] + 30 + 5] = 'z';
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, "member 'fv.npz' is not");
  RESET();
  b[l.entry[1] + 46] = '\n';
  b[l.local[1] + 30] = '\n';
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, "control character");
  /* Duplicate names: rename ids64 to eps_v everywhere (same length). */
  RESET();
  memcpy(b + l.entry[2] + 46, "eps_v.npy", 9);
  memcpy(b + l.local[2] + 30, "eps_v.npy", 9);
  put16(b + l.entry[2] + 28, 9);
  put16(b + l.local[2] + 26, 9);
  expect_fail(__LINE__, b, len, NPY_E_FORMAT, "");
  /* CRC: one data byte changed; then the CRC itself. */
  RESET();
  b[l.local[0] + 30 + 14 + 20 + 128 + 3] ^= 0x10;
  expect_fail(__LINE__, b, len, NPY_E_FORMAT,
              "member 'velocities.npy': CRC-32 mismatch");
  RESET();
  b[l.entry[5] + 16] ^= 1;
  b[l.local[5] + 14] ^= 1;
  expect_fail(__LINE__, b, len, NPY_E_FORMAT,
              "member 'f32.npy': CRC-32 mismatch");

  /* Deflate members: a bomb's declared size, a wrong size, a corrupt
   * stream. */
  DRESET();
  put32(d + dl.entry[0] + 24, 0x7FFFFFF0u);
  put32(d + dl.local[0] + 22, 0x7FFFFFF0u);
  expect_fail(__LINE__, d, dlen, NPY_E_FORMAT,
              "member 'velocities.npy': declared size 2147483632 is "
              "impossible");
  DRESET();
  put32(d + dl.entry[0] + 24, get32(d + dl.entry[0] + 24) - 1);
  put32(d + dl.local[0] + 22, get32(d + dl.local[0] + 22) - 1);
  expect_fail(__LINE__, d, dlen, NPY_E_FORMAT, "member 'velocities.npy': ");
  DRESET();
  put32(d + dl.entry[0] + 24, get32(d + dl.entry[0] + 24) + 1);
  put32(d + dl.local[0] + 22, get32(d + dl.local[0] + 22) + 1);
  expect_fail(__LINE__, d, dlen, NPY_E_FORMAT, "member 'velocities.npy': ");
  DRESET();
  d[dl.local[2] + 30 + 9 + dl.lextra[2]] ^= 0xFF; /* the stream's start */
  expect_fail(__LINE__, d, dlen, NPY_E_FORMAT, "member 'ids64.npy': ");

done:
  free(orig);
  free(dorig);
  free(b);
  free(d);
#undef RESET
#undef DRESET
}

/* Every prefix of a valid archive is refused cleanly; every single-byte
 * change is either refused or read (no crash, no leak). */
static void test_truncations_and_flips(void) {
  static const unsigned flag_sets[2] = {0, NPZ_WRITE_DEFLATE};
  for (int k = 0; k < 2; ++k) {
    size_t len = 0;
    unsigned char *orig = write_sample(flag_sets[k], 0, &len);
    unsigned char *b = malloc(len ? len : 1);
    if (!orig || !b) {
      fail_at(__LINE__, "setup failed");
      free(orig);
      free(b);
      return;
    }
    for (size_t n = 0; n < len; ++n) {
      npz_archive a;
      npy_error err;
      memcpy(b, orig, n);
      const npy_status st = npz_read_memory(b, n, &a, &err);
      CHECK(st == NPY_E_FORMAT, "prefix of %zu/%zu bytes: status %d", n, len,
            (int)st);
      npz_archive_free(&a);
    }
    size_t accepted = 0;
    for (size_t i = 0; i < len; ++i)
      for (int bit = 0; bit < 8; bit += 3) {
        npz_archive a;
        npy_error err;
        memcpy(b, orig, len);
        b[i] ^= (unsigned char)(1u << bit);
        const npy_status st = npz_read_memory(b, len, &a, &err);
        CHECK(st == NPY_OK || st == NPY_E_FORMAT || st == NPY_E_UNSUPPORTED,
              "flip at %zu: status %d", i, (int)st);
        if (st != NPY_OK)
          CHECK(err.msg[0] != '\0', "flip at %zu: empty message", i);
        accepted += st == NPY_OK;
        npz_archive_free(&a);
      }
    /* Flips in timestamps, attributes and version fields are harmless;
     * flips in the data are caught by the CRC. */
    CHECK(accepted < len, "flags %u: %zu of %zu flips accepted", flag_sets[k],
          accepted, 3 * len);
    free(orig);
    free(b);
  }
}

/* --------------------------------------------------------------- write */

static void test_write_layout(void) {
  size_t n1 = 0, n2 = 0;
  unsigned char *a = write_sample(NPZ_WRITE_DEFLATE, 1, &n1);
  unsigned char *b = write_sample(NPZ_WRITE_DEFLATE, 1, &n2);
  CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0,
        "two writes of the same arrays differ");
  free(a);
  free(b);
  /* A plain ZIP: each member's .npy bytes right after its local header
   * (stored), the end record last. */
  a = write_sample(0, 0, &n1);
  if (!a)
    return;
  const size_t data_at =
      30 + (size_t)(a[26] | a[27] << 8) + (size_t)(a[28] | a[29] << 8);
  CHECK(get32(a) == 0x04034b50u && a[26] == 14 &&
            memcmp(a + 30, "velocities.npy", 14) == 0 && data_at + 8 <= n1 &&
            memcmp(a + data_at, "\x93NUMPY\x01\x00", 8) == 0,
        "local header layout");
  layout l;
  find_layout(a, n1, &l);
  CHECK(l.n == 6 && get32(a + n1 - 22) == 0x06054b50u && a[n1 - 22 + 10] == 6,
        "end record");
  free(a);

  /* Writer argument errors. */
  FILE *f = tmpfile();
  npz_writer *w = NULL;
  npy_error err;
  const size_t one = 1;
  const double x = 1;
  if (!f || npz_writer_open(&w, f, 0, &err) != NPY_OK) {
    fail_at(__LINE__, "open");
    if (f)
      fclose(f);
    return;
  }
  CHECK(npz_writer_add(w, "a", NPY_F8, 1, &one, &x, &err) == NPY_OK, "add");
  CHECK(npz_writer_add(w, "a", NPY_F8, 1, &one, &x, &err) == NPY_E_ARGUMENT &&
            strstr(err.msg, "twice"),
        "duplicate name accepted");
  CHECK(npz_writer_add(w, "", NPY_F8, 1, &one, &x, &err) == NPY_E_ARGUMENT,
        "empty name accepted");
  CHECK(npz_writer_add(w, "a\nb", NPY_F8, 1, &one, &x, &err) == NPY_E_ARGUMENT,
        "control character accepted");
  CHECK(npz_writer_add(w, "b", NPY_F8, 1, &one, NULL, &err) == NPY_E_ARGUMENT,
        "NULL data accepted");
  CHECK(npz_writer_finish(w, &err) == NPY_OK, "finish: %s", err.msg);
  npz_writer_free(w);
  fclose(f);
  /* The archive is copied out at the end: a pipe takes deflate too. */
  int fds[2];
  FILE *p = NULL;
  if (pipe(fds) == 0 && (p = fdopen(fds[1], "wb")) != NULL) {
    CHECK(npz_writer_open(&w, p, NPZ_WRITE_DEFLATE, &err) == NPY_OK &&
              npz_writer_add(w, "a", NPY_F8, 1, &one, &x, &err) == NPY_OK &&
              npz_writer_finish(w, &err) == NPY_OK,
          "deflate on a pipe: %s", err.msg);
    npz_writer_free(w);
    fclose(p);
  }
  close(fds[0]);
}

/* test_npz emit DIR: sample archives for the numpy-side check. */
static int emit(const char *dir) {
  static const struct {
    const char *name;
    unsigned flags;
  } files[] = {{"stored.npz", 0}, {"deflated.npz", NPZ_WRITE_DEFLATE}};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
    size_t len = 0;
    unsigned char *b = write_sample(files[i].flags, 1, &len);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
    FILE *f = fopen(path, "wb");
    if (!b || !f || fwrite(b, 1, len, f) != len) {
      fprintf(stderr, "test_npz emit: cannot write %s\n", path);
      free(b);
      if (f)
        fclose(f);
      return 1;
    }
    fclose(f);
    free(b);
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *group = argc > 1 ? argv[1] : "all";
  const int all = strcmp(group, "all") == 0;
  int ran = 0;
  if (strcmp(group, "emit") == 0)
    return argc > 2 ? emit(argv[2]) : 2;
  if (all || strcmp(group, "read") == 0) {
    if (argc > 2)
      test_numpy_fixtures(argv[2]);
    else
      fprintf(stderr, "test_npz read: no fixture directory given\n");
    test_roundtrip();
    test_read_file_errors();
    ran = 1;
  }
  if (all || strcmp(group, "malformed") == 0) {
    test_patched();
    test_truncations_and_flips();
    ran = 1;
  }
  if (all || strcmp(group, "write") == 0) {
    test_write_layout();
    ran = 1;
  }
  if (!ran) {
    fprintf(stderr, "test_npz: unknown group '%s'\n", group);
    return 2;
  }
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("test_npz %s: passed\n", group);
  return 0;
}
