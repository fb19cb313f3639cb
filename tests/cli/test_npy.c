/*
 * test_npy.c - unit tests of src/cli/npy.c.
 *
 *   test_npy GROUP     GROUP: read | malformed | write | fuzz | all
 *   test_npy fuzz [ITERATIONS [SEED]]
 *
 * Input files are spelled out byte by byte here; expected writer output is
 * numpy's (the header bytes of np.save / np.lib.format.write_array_header_1_0
 * as noted at each case).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

static int failures;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void
fail_at(int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "test_npy.c:%d: FAILED: ", line);
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

/* --------------------------------------------------- building inputs */

static void put_le(unsigned char *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* magic, version major.0, length field, dict padded with spaces to a
 * 64-byte boundary and '\n', then data_len bytes of data. */
static size_t build(unsigned char *buf, size_t cap, int major, const char *dict,
                    const void *data, size_t data_len) {
  const size_t field = major == 1 ? 2 : 4;
  const size_t prefix = 8 + field;
  size_t hlen = strlen(dict) + 1;
  hlen += (64 - (prefix + hlen) % 64) % 64;
  if (prefix + hlen + data_len > cap) {
    fprintf(stderr, "build: buffer too small\n");
    exit(2);
  }
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  put_le(buf + 8, hlen, (int)field);
  memset(buf + prefix, ' ', hlen);
  memcpy(buf + prefix, dict, strlen(dict));
  buf[prefix + hlen - 1] = '\n';
  if (data_len)
    memcpy(buf + prefix + hlen, data, data_len);
  return prefix + hlen + data_len;
}

/* Read the same bytes through the memory reader and the stream reader;
 * both must agree on status and (on success) on everything read. */
static npy_status read_both(int line, const unsigned char *bytes, size_t len,
                            unsigned flags, npy_array *out, npy_error *err) {
  npy_status st = npy_read_memory(bytes, len, flags, out, err);
  /* fmemopen of 0 bytes is unspecified before POSIX 2024: use tmpfile. */
  FILE *f = tmpfile();
  if (!f || fwrite(bytes, 1, len, f) != len || fseek(f, 0, SEEK_SET) != 0) {
    fail_at(line, "tmpfile failed");
    if (f)
      fclose(f);
    return st;
  }
  npy_array s;
  npy_error serr;
  const npy_status sst = npy_read_stream(f, flags, &s, &serr);
  fclose(f);
  if (sst != st)
    fail_at(line, "stream status %d (%s) != memory status %d (%s)", (int)sst,
            sst ? serr.msg : "", (int)st, st ? err->msg : "");
  else if (st == NPY_OK &&
           (memcmp(&s.info, &out->info, sizeof s.info) != 0 ||
            (s.info.data_bytes &&
             memcmp(s.data, out->data, s.info.data_bytes) != 0)))
    fail_at(line, "stream and memory readers disagree");
  else if (st != NPY_OK && strcmp(serr.msg, err->msg) != 0)
    fail_at(line, "messages differ: stream \"%s\", memory \"%s\"", serr.msg,
            err->msg);
  npy_array_free(&s);
  return st;
}

/* ---------------------------------------------------------------- read */

static void test_read_dtypes(void) {
  unsigned char buf[512], data[32];
  npy_array a;
  npy_error err;
  /* 1.5, -2.0 as little-endian doubles. */
  static const unsigned char f8[16] = {0, 0, 0, 0, 0, 0, 0xF8, 0x3F,
                                       0, 0, 0, 0, 0, 0, 0,    0xC0};
  size_t n = build(buf, sizeof buf, 1,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
                   f8, sizeof f8);
  CHECK(read_both(__LINE__, buf, n, 0, &a, &err) == NPY_OK, "<f8: %s", err.msg);
  CHECK(a.info.dtype == NPY_F8 && a.info.ndim == 1 && a.info.shape[0] == 2 &&
            a.info.count == 2 && a.info.data_bytes == 16 &&
            a.info.data_offset == 128 && a.info.version_major == 1,
        "<f8 info");
  CHECK(((double *)a.data)[0] == 1.5 && ((double *)a.data)[1] == -2.0,
        "<f8 values");
  npy_array_free(&a);
  CHECK(a.data == NULL, "npy_array_free leaves data");

  /* 0.5f, -3 (i4), -2 (i8), 200 (u1). */
  static const unsigned char f4[4] = {0, 0, 0, 0x3F};
  n = build(buf, sizeof buf, 1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f4, 4);
  CHECK(read_both(__LINE__, buf, n, 0, &a, &err) == NPY_OK &&
            a.info.dtype == NPY_F4 && ((float *)a.data)[0] == 0.5f,
        "<f4");
  npy_array_free(&a);
  memset(data, 0xFF, sizeof data);
  data[0] = 0xFD; /* -3 */
  n = build(buf, sizeof buf, 1,
            "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", data,
            4);
  CHECK(read_both(__LINE__, buf, n, 0, &a, &err) == NPY_OK &&
            a.info.dtype == NPY_I4 && ((int32_t *)a.data)[0] == -3,
        "<i4");
  npy_array_free(&a);
  data[0] = 0xFE; /* -2 */
  n = build(buf, sizeof buf, 1,
            "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", data,
            8);
  CHECK(read_both(__LINE__, buf, n, 0, &a, &err) == NPY_OK &&
            a.info.dtype == NPY_I8 && ((int64_t *)a.data)[0] == -2,
        "<i8");
  npy_array_free(&a);
  data[0] = 200;
  n = build(buf, sizeof buf, 1,
            "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), }", data,
            1);
  CHECK(read_both(__LINE__, buf, n, 0, &a, &err) == NPY_OK &&
            a.info.dtype == NPY_U1 && ((uint8_t *)a.data)[0] == 200,
        "|u1");
  npy_array_free(&a);
}

/* Header spellings numpy (any version) may write or accept. */
static void test_read_headers(void) {
  static const struct {
    int major;
    const char *dict;
    int ndim, fortran;
    size_t shape[4];
  } cases[] = {
      {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 0, 0, {0}},
      {1,
       "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
       1,
       0,
       {3}},
      {1,
       "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
       2,
       1,
       {2, 3}},
      {1,
       "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2, 1, 3), }",
       4,
       0,
       {1, 2, 1, 3}},
      {2,
       "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
       1,
       0,
       {3}},
      {3,
       "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
       1,
       0,
       {3}},
      /* Any key order, double quotes, no trailing comma, tabs/newlines,
       * trailing comma inside a multi-dim shape, Python 2 long suffix. */
      {1,
       "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<f8\"}",
       1,
       0,
       {3}},
      {1,
       "\t{ 'descr' : '<f8' ,\n'fortran_order':False,'shape':( 1 , 3 , ) }",
       2,
       0,
       {1, 3}},
      {1,
       "{'descr': '<f8', 'fortran_order': False, 'shape': (3L,), }",
       1,
       0,
       {3}},
      /* A zero dimension empties the array whatever the others say. */
      {1,
       "{'descr': '<f8', 'fortran_order': False, "
       "'shape': (18446744073709551615, 0), }",
       2,
       0,
       {18446744073709551615u, 0}},
  };
  unsigned char buf[1024], data[48] = {0};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    size_t count = 1;
    for (int i = 0; i < cases[c].ndim; ++i)
      count = cases[c].shape[i] == 0 ? 0 : count * cases[c].shape[i];
    const size_t n =
        build(buf, sizeof buf, cases[c].major, cases[c].dict, data, count * 8);
    npy_array a;
    npy_error err;
    const npy_status st = read_both(__LINE__, buf, n, 0, &a, &err);
    CHECK(st == NPY_OK, "case %zu: %s", c, err.msg);
    if (st != NPY_OK)
      continue;
    CHECK(a.info.ndim == cases[c].ndim &&
              a.info.fortran_order == cases[c].fortran &&
              a.info.count == count && a.info.data_bytes == count * 8 &&
              a.info.version_major == (unsigned)cases[c].major,
          "case %zu: info", c);
    for (int i = 0; i < cases[c].ndim; ++i)
      CHECK(a.info.shape[i] == cases[c].shape[i], "case %zu: dim %d", c, i);
    CHECK((a.data == NULL) == (count == 0), "case %zu: data pointer", c);
    npy_array_free(&a);
  }
}

/* Bytes after the data: an error unless allowed; a stream then holds the
 * next array. */
static void test_trailing(void) {
  unsigned char buf[1024];
  static const unsigned char one[8] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F}; /* 1 */
  const char *dict =
      "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
  const size_t n1 = build(buf, sizeof buf, 1, dict, one, 8);
  const size_t n2 = build(buf + n1, sizeof buf - n1, 1, dict, one, 8);
  npy_array a;
  npy_error err;
  CHECK(read_both(__LINE__, buf, n1 + n2, 0, &a, &err) == NPY_E_FORMAT &&
            strstr(err.msg, "136 unexpected bytes after the array data"),
        "trailing: %s", err.msg);
  CHECK(read_both(__LINE__, buf, n1 + n2, NPY_READ_ALLOW_TRAILING, &a, &err) ==
            NPY_OK,
        "allowed trailing: %s", err.msg);
  npy_array_free(&a);
  FILE *f = tmpfile();
  CHECK(f && fwrite(buf, 1, n1 + n2, f) == n1 + n2 &&
            fseek(f, 0, SEEK_SET) == 0,
        "tmpfile");
  if (!f)
    return;
  for (int k = 0; k < 2; ++k) {
    CHECK(npy_read_stream(f, NPY_READ_ALLOW_TRAILING, &a, &err) == NPY_OK &&
              ((double *)a.data)[0] == 1.0,
          "concatenated array %d: %s", k, err.msg);
    npy_array_free(&a);
  }
  CHECK(fgetc(f) == EOF, "stream not at its end");
  fclose(f);
}

static void test_read_file(void) {
  npy_array a;
  npy_error err;
  CHECK(npy_read_file("/nonexistent/dir/x.npy", 0, &a, &err) == NPY_E_IO &&
            strstr(err.msg, "cannot open"),
        "missing file: %s", err.msg);
}

/* ------------------------------------------------------------ malformed */

typedef struct bad_case {
  const char *what;
  int major;
  const char *dict; /* NULL: raw bytes below */
  const char *raw;
  size_t raw_len;
  size_t data_len;
  npy_status status;
  const char *needle;
} bad_case;

#define DICT(shape_text, descr)                                                \
  "{'descr': '" descr "', 'fortran_order': False, 'shape': " shape_text ", }"

static const bad_case bad_cases[] = {
    {"empty", 1, NULL, "", 0, 0, NPY_E_FORMAT, "empty file"},
    {"bad magic", 1, NULL, "\x93NUMPZ\x01\x00\x00\x00", 10, 0, NPY_E_FORMAT,
     "bad magic"},
    {"short bad magic", 1, NULL, "PK", 2, 0, NPY_E_FORMAT, "bad magic"},
    {"magic only", 1, NULL, "\x93NUMPY", 6, 0, NPY_E_FORMAT, "truncated"},
    {"no length", 1, NULL, "\x93NUMPY\x01\x00\x10", 9, 0, NPY_E_FORMAT,
     "truncated"},
    {"short dict", 1, NULL, "\x93NUMPY\x01\x00\x76\x00{'descr'", 18, 0,
     NPY_E_FORMAT, "truncated in the header"},
    {"version 4", 1, NULL, "\x93NUMPY\x04\x00\x00\x00\x00\x00", 12, 0,
     NPY_E_UNSUPPORTED, "version 4.0"},
    {"version 1.1", 1, NULL, "\x93NUMPY\x01\x01\x00\x00", 10, 0,
     NPY_E_UNSUPPORTED, "version 1.1"},
    {"huge v2 header", 2, NULL, "\x93NUMPY\x02\x00\xFF\xFF\xFF\xFF", 12, 0,
     NPY_E_FORMAT, "exceeds the limit"},
    {"empty dict text", 1, "", NULL, 0, 0, NPY_E_FORMAT, "expected '{'"},
    {"unterminated dict", 1,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), ", NULL, 0, 8,
     NPY_E_FORMAT, "malformed header"},
    {"unterminated string", 1, NULL, "\x93NUMPY\x01\x00\x0B\x00{'descr': '", 21,
     0, NPY_E_FORMAT, "unterminated string"},
    {"newline in string", 1,
     "{'descr': '<f8\n', 'fortran_order': False, 'shape': (1,)}", NULL, 0, 8,
     NPY_E_FORMAT, "control character"},
    {"escape", 1, "{'descr': '<f\\x38', 'fortran_order': False, 'shape': (1,)}",
     NULL, 0, 8, NPY_E_FORMAT, "escape"},
    {"long string", 1,
     "{'descr': '<f8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', "
     "'fortran_order': False, 'shape': (1,)}",
     NULL, 0, 8, NPY_E_FORMAT, "too long"},
    {"unknown key", 1,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", NULL, 0,
     8, NPY_E_FORMAT, "unknown key 'x'"},
    {"duplicate key", 1,
     "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}",
     NULL, 0, 8, NPY_E_FORMAT, "given twice"},
    {"missing key", 1, "{'descr': '<f8', 'fortran_order': False}", NULL, 0, 8,
     NPY_E_FORMAT, "missing key 'shape'"},
    {"no colon", 1, "{'descr' '<f8', 'fortran_order': False, 'shape': (1,)}",
     NULL, 0, 8, NPY_E_FORMAT, "expected ':'"},
    {"bad bool", 1, "{'descr': '<f8', 'fortran_order': Falsey, 'shape': (1,)}",
     NULL, 0, 8, NPY_E_FORMAT, "True or False"},
    {"bool as int", 1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}",
     NULL, 0, 8, NPY_E_FORMAT, "True or False"},
    {"shape not tuple", 1, DICT("[1]", "<f8"), NULL, 0, 8, NPY_E_FORMAT,
     "not a tuple"},
    {"shape int", 1, DICT("(1)", "<f8"), NULL, 0, 8, NPY_E_FORMAT,
     "trailing comma"},
    {"negative dim", 1, DICT("(-1,)", "<f8"), NULL, 0, 0, NPY_E_FORMAT,
     "negative"},
    {"float dim", 1, DICT("(1.5,)", "<f8"), NULL, 0, 8, NPY_E_FORMAT,
     "expected ',' or ')'"},
    {"hex dim", 1, DICT("(0x10,)", "<f8"), NULL, 0, 8, NPY_E_FORMAT,
     "malformed dimension"},
    {"empty dim", 1, DICT("(,)", "<f8"), NULL, 0, 8, NPY_E_FORMAT,
     "expected a dimension"},
    {"unclosed shape", 1,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (1,", NULL, 0, 8,
     NPY_E_FORMAT, "expected a dimension"},
    {"dim overflow", 1, DICT("(18446744073709551616,)", "<f8"), NULL, 0, 0,
     NPY_E_FORMAT, "too large"},
    {"count overflow", 1, DICT("(4294967296, 4294967296)", "<f8"), NULL, 0, 0,
     NPY_E_FORMAT, "element count overflows"},
    {"bytes overflow", 1, DICT("(2305843009213693952,)", "<f8"), NULL, 0, 0,
     NPY_E_FORMAT, "overflow"},
    {"5 dims", 1, DICT("(1, 1, 1, 1, 1)", "<f8"), NULL, 0, 8, NPY_E_UNSUPPORTED,
     "5-dimensional"},
    {"text after dict", 1,
     "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x", NULL, 0, 8,
     NPY_E_FORMAT, "after the dict"},
    {"NUL in header", 1, NULL, "\x93NUMPY\x01\x00\x02\x00{\0", 12, 0,
     NPY_E_FORMAT, "malformed header"},
    {"big-endian", 1, DICT("(1,)", ">f8"), NULL, 0, 8, NPY_E_UNSUPPORTED,
     "big-endian"},
    {"native order", 1, DICT("(1,)", "=f8"), NULL, 0, 8, NPY_E_UNSUPPORTED,
     "unsupported dtype '=f8'"},
    {"complex", 1, DICT("(1,)", "<c16"), NULL, 0, 16, NPY_E_UNSUPPORTED,
     "unsupported dtype"},
    {"structured", 1,
     "{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (1,)}", NULL,
     0, 8, NPY_E_UNSUPPORTED, "structured"},
    {"truncated data", 1, DICT("(1000,)", "<f8"), NULL, 0, 640, NPY_E_FORMAT,
     "header says 1000 elements (8000 bytes), found 640 bytes of data"},
    {"huge claim", 1, DICT("(1000000000000000,)", "<f8"), NULL, 0, 8,
     NPY_E_FORMAT, "found 8 bytes"},
};

static void test_malformed(void) {
  static unsigned char buf[4096];
  static const unsigned char zeros[1024];
  for (size_t c = 0; c < sizeof bad_cases / sizeof bad_cases[0]; ++c) {
    const bad_case *b = &bad_cases[c];
    size_t n;
    if (b->dict) {
      n = build(buf, sizeof buf, b->major, b->dict, zeros, b->data_len);
    } else {
      memcpy(buf, b->raw, b->raw_len);
      n = b->raw_len;
    }
    npy_array a;
    npy_error err;
    memset(&err, 0, sizeof err);
    const npy_status st = read_both(__LINE__, buf, n, 0, &a, &err);
    CHECK(st == b->status, "%s: status %d, expected %d (%s)", b->what, (int)st,
          (int)b->status, err.msg);
    CHECK(strstr(err.msg, b->needle) != NULL, "%s: message \"%s\" lacks \"%s\"",
          b->what, err.msg, b->needle);
    CHECK(strchr(err.msg, '\n') == NULL, "%s: message has a newline", b->what);
    CHECK(a.data == NULL, "%s: data set on failure", b->what);
    if (st == NPY_OK)
      npy_array_free(&a);
  }
}

/* Every proper prefix of a valid file is an error (never a success, never
 * a crash), with the same verdict from both readers. */
static void test_every_truncation(void) {
  unsigned char buf[512], data[24] = {1, 2, 3};
  const size_t n =
      build(buf, sizeof buf, 2,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", data,
            sizeof data);
  for (size_t len = 0; len < n; ++len) {
    npy_array a;
    npy_error err;
    const npy_status st = read_both(__LINE__, buf, len, 0, &a, &err);
    CHECK(st == NPY_E_FORMAT, "prefix of %zu bytes: status %d", len, (int)st);
    if (st == NPY_OK)
      npy_array_free(&a);
  }
}

/* --------------------------------------------------------------- write */

/* What the writer produced for one call, via a temporary file. */
static unsigned char *write_to_memory(npy_dtype dtype, int ndim,
                                      const size_t *shape, const void *data,
                                      int header_only, size_t *len) {
  FILE *f = tmpfile();
  if (!f)
    return NULL;
  npy_error err;
  const npy_status st =
      header_only ? npy_write_header(f, dtype, ndim, shape, &err)
                  : npy_write_array(f, dtype, ndim, shape, data, &err);
  unsigned char *b = NULL;
  long size = ftell(f);
  if (st == NPY_OK && size >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (b = malloc((size_t)size + 1)) != NULL)
    *len = fread(b, 1, (size_t)size, f);
  fclose(f);
  return b;
}

/* numpy's header: prefix with the length field, dict, spaces, '\n', total
 * `total` bytes (as printed by numpy 2.x for the same shape). */
static void expect_header(int line, npy_dtype dtype, int ndim,
                          const size_t *shape, const char *dict, size_t total) {
  size_t len = 0;
  unsigned char *got = write_to_memory(dtype, ndim, shape, NULL, 1, &len);
  unsigned char want[256];
  memcpy(want, "\x93NUMPY\x01\x00", 8);
  put_le(want + 8, total - 10, 2);
  memset(want + 10, ' ', total - 10);
  memcpy(want + 10, dict, strlen(dict));
  want[total - 1] = '\n';
  if (!got || len != total || memcmp(got, want, total) != 0)
    fail_at(line, "header for %s: %zu bytes, expected %zu\n  got:  %.*s", dict,
            len, total, got ? (int)len : 0, got ? (const char *)got : "");
  free(got);
}

static void test_write_headers(void) {
  /* np.save(np.zeros(7)) and friends, numpy 2.x: all 128 bytes. */
  const size_t s7[] = {7}, s72[] = {7, 2}, s0[] = {0}, s2345[] = {2, 3, 4, 5},
               s3[] = {3}, s4d[] = {12345678901234u, 1000000, 7, 9};
  expect_header(__LINE__, NPY_F8, 1, s7,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }",
                128);
  expect_header(__LINE__, NPY_F4, 2, s72,
                "{'descr': '<f4', 'fortran_order': False, 'shape': (7, 2), }",
                128);
  expect_header(__LINE__, NPY_F8, 0, NULL,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 128);
  expect_header(__LINE__, NPY_F8, 1, s0,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (0,), }",
                128);
  expect_header(
      __LINE__, NPY_I8, 4, s2345,
      "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3, 4, 5), }", 128);
  expect_header(__LINE__, NPY_U1, 1, s3,
                "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }",
                128);
  expect_header(__LINE__, NPY_I4, 1, s3,
                "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
                128);
  expect_header(__LINE__, NPY_F8, 4, s4d,
                "{'descr': '<f8', 'fortran_order': False, "
                "'shape': (12345678901234, 1000000, 7, 9), }",
                128);
  /* Four 20-digit dims: 192 bytes (length field 0xb6). */
  const size_t smax[] = {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
  if (SIZE_MAX == 18446744073709551615u)
    expect_header(__LINE__, NPY_F8, 4, smax,
                  "{'descr': '<f8', 'fortran_order': False, 'shape': "
                  "(18446744073709551615, 18446744073709551615, "
                  "18446744073709551615, 18446744073709551615), }",
                  192);
  /* Text + growth room + '\n' ending exactly on a 64-byte boundary: numpy
   * pads a whole extra 64 bytes (192, not 128). */
  const size_t sb[] = {3, 10000000000000002u, 10000000000000000002u};
  if (SIZE_MAX >= 10000000000000000002u)
    expect_header(__LINE__, NPY_I4, 3, sb,
                  "{'descr': '<i4', 'fortran_order': False, 'shape': "
                  "(3, 10000000000000002, 10000000000000000002), }",
                  192);
}

/* Data follows the header little-endian; reading it back gives the same
 * array for every dtype. */
static void test_write_roundtrip(void) {
  const double d[3] = {1.5, -0.0, 1e300};
  const float f4[3] = {0.25f, -8.0f, 3e38f};
  const int64_t i8[3] = {-1, INT64_MAX, INT64_MIN};
  const int32_t i4[3] = {-1, INT32_MAX, INT32_MIN};
  const uint8_t u1[3] = {0, 127, 255};
  const struct {
    npy_dtype dtype;
    const void *data;
  } cases[] = {
      {NPY_F8, d}, {NPY_F4, f4}, {NPY_I8, i8}, {NPY_I4, i4}, {NPY_U1, u1}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const size_t shape[1] = {3};
    size_t len = 0;
    unsigned char *b =
        write_to_memory(cases[c].dtype, 1, shape, cases[c].data, 0, &len);
    const size_t item = npy_dtype_itemsize(cases[c].dtype);
    CHECK(b && len == 128 + 3 * item, "dtype %zu: %zu bytes", c, len);
    if (!b)
      continue;
    npy_array a;
    npy_error err;
    CHECK(npy_read_memory(b, len, 0, &a, &err) == NPY_OK &&
              a.info.dtype == cases[c].dtype && a.info.count == 3 &&
              memcmp(a.data, cases[c].data, 3 * item) == 0,
          "dtype %zu: round trip", c);
    npy_array_free(&a);
    free(b);
  }
  /* Little-endian on disk whatever the host: 1.0 is 00..F0 3F. */
  const double one = 1.0;
  const size_t shape[1] = {1};
  size_t len = 0;
  unsigned char *b = write_to_memory(NPY_F8, 1, shape, &one, 0, &len);
  static const unsigned char le_one[8] = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
  CHECK(b && len == 136 && memcmp(b + 128, le_one, 8) == 0,
        "1.0 not little-endian");
  free(b);
  /* A 2-D array, written header then data in two calls. */
  FILE *f = tmpfile();
  npy_error err;
  const size_t s23[2] = {2, 3};
  const int32_t rows[6] = {1, 2, 3, 4, 5, 6};
  CHECK(f && npy_write_header(f, NPY_I4, 2, s23, &err) == NPY_OK &&
            npy_write_data(f, NPY_I4, rows, 4, &err) == NPY_OK &&
            npy_write_data(f, NPY_I4, rows + 4, 2, &err) == NPY_OK &&
            npy_write_data(f, NPY_I4, NULL, 0, &err) == NPY_OK &&
            fseek(f, 0, SEEK_SET) == 0,
        "streamed write");
  if (f) {
    npy_array a;
    CHECK(npy_read_stream(f, 0, &a, &err) == NPY_OK && a.info.ndim == 2 &&
              a.info.shape[0] == 2 && a.info.shape[1] == 3 &&
              memcmp(a.data, rows, sizeof rows) == 0,
          "streamed 2-D round trip: %s", err.msg);
    npy_array_free(&a);
    fclose(f);
  }
  /* Bad arguments are refused, not crashed on. */
  f = tmpfile();
  if (f) {
    CHECK(npy_write_header(f, NPY_F8, 5, s23, &err) == NPY_E_ARGUMENT,
          "ndim 5 accepted");
    CHECK(npy_write_header(f, (npy_dtype)42, 1, s23, &err) == NPY_E_ARGUMENT,
          "bad dtype accepted");
    CHECK(npy_write_data(f, NPY_F8, NULL, 3, &err) == NPY_E_ARGUMENT,
          "NULL data accepted");
    fclose(f);
  }
}

static void test_format_shape(void) {
  char buf[64];
  const size_t s[] = {3, 4, 5};
  CHECK(strcmp(npy_format_shape(buf, sizeof buf, 0, s), "()") == 0, "()");
  CHECK(strcmp(npy_format_shape(buf, sizeof buf, 1, s), "(3,)") == 0, "(3,)");
  CHECK(strcmp(npy_format_shape(buf, sizeof buf, 3, s), "(3, 4, 5)") == 0,
        "(3, 4, 5)");
  CHECK(strcmp(npy_format_shape(buf, 5, 3, s), "(3, ") == 0, "truncation: %s",
        buf);
}

/* ---------------------------------------------------------------- fuzz */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void) { /* xorshift64*: deterministic, portable */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717u;
}

/*
 * Mutate valid files (flip, overwrite with header-ish characters, cut,
 * grow) and check the reader's verdict is self-consistent. Built with
 * -DFRICL_SANITIZE=ON this also finds out-of-bounds reads and UB.
 */
static void test_fuzz(long iterations) {
  static const char *const seeds[] = {
      DICT("(3,)", "<f8"), DICT("(2, 3)", "<i4"), DICT("()", "|u1"),
      "{\"descr\": \"<f4\", \"fortran_order\": True, \"shape\": (1, 2, 1, 3)}",
      DICT("(0,)", "<i8")};
  static const char alphabet[] = "{}()[]':,\" \n0123456789LTrueFalse<>|fi8";
  static const unsigned char zeros[64];
  static const size_t seed_bytes[] = {24, 24, 1, 24, 0};
  unsigned char base[512], buf[600];
  long ok = 0, bad = 0;
  for (long iter = 0; iter < iterations; ++iter) {
    const size_t s = (size_t)(rng() % 5);
    const size_t n = build(base, sizeof base, 1 + (int)(rng() % 3), seeds[s],
                           zeros, seed_bytes[s]);
    memcpy(buf, base, n);
    size_t len = n;
    const int edits = 1 + (int)(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = (size_t)(rng() % len);
      switch (rng() % 4) {
      case 0:
        buf[at] ^= (unsigned char)(1u << (rng() % 8));
        break;
      case 1:
        buf[at] = (unsigned char)alphabet[rng() % (sizeof alphabet - 1)];
        break;
      case 2:
        len = at; /* cut */
        break;
      default:
        if (len < sizeof buf)
          buf[len++] = (unsigned char)rng();
        break;
      }
      if (len == 0)
        break;
    }
    npy_array a;
    npy_error err;
    err.msg[0] = '\0';
    const npy_status st = npy_read_memory(buf, len, 0, &a, &err);
    if (st == NPY_OK) {
      ++ok;
      const size_t item = npy_dtype_itemsize(a.info.dtype);
      CHECK(item && a.info.data_bytes == a.info.count * item &&
                a.info.data_offset + a.info.data_bytes == len &&
                a.info.ndim >= 0 && a.info.ndim <= NPY_MAX_NDIM &&
                (a.data != NULL) == (a.info.data_bytes > 0),
            "iteration %ld: inconsistent success", iter);
      npy_array_free(&a);
    } else {
      ++bad;
      CHECK(err.msg[0] != '\0' && a.data == NULL,
            "iteration %ld: failure without a message", iter);
    }
    if (failures > 10)
      break;
  }
  printf("fuzz: %ld accepted, %ld rejected\n", ok, bad);
  CHECK(ok > 0 && bad > 0, "fuzz exercised only one outcome");
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
  const char *group = argc > 1 ? argv[1] : "all";
  const int all = strcmp(group, "all") == 0;
  int ran = 0;
  if (all || strcmp(group, "read") == 0) {
    test_read_dtypes();
    test_read_headers();
    test_trailing();
    test_read_file();
    ran = 1;
  }
  if (all || strcmp(group, "malformed") == 0) {
    test_malformed();
    test_every_truncation();
    ran = 1;
  }
  if (all || strcmp(group, "write") == 0) {
    test_write_headers();
    test_write_roundtrip();
    test_format_shape();
    ran = 1;
  }
  if (all || strcmp(group, "fuzz") == 0) {
    /* test_npy fuzz [ITERATIONS [SEED]] for longer runs by hand. */
    const long iterations = argc > 2 ? strtol(argv[2], NULL, 10) : 200000;
    if (argc > 3)
      rng_state = strtoull(argv[3], NULL, 0) | 1u;
    test_fuzz(iterations);
    ran = 1;
  }
  if (!ran) {
    fprintf(stderr, "test_npy: unknown group '%s'\n", group);
    return 2;
  }
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("test_npy %s: passed\n", group);
  return 0;
}
