/* npy.c - the .npy reader and writer declared in npy.h. */
#define _POSIX_C_SOURCE 200809L

#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* numpy leaves room for this many digits in the first (growth) dimension so
 * that a file can be appended to in place (numpy/lib/format.py). */
#define NPY_GROWTH_AXIS_MAX_DIGITS 21
/* The data starts at a multiple of this offset (numpy's ARRAY_ALIGN). */
#define NPY_ARRAY_ALIGN 64

npy_status npy_fail(npy_error *err, npy_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* ------------------------------------------------------------ dtypes */

/* The dtypes: a dtype's first row is the descr written. */
static const struct {
  const char *descr;
  npy_dtype dtype;
  size_t itemsize;
} dtype_table[] = {
    {"<f8", NPY_F8, 8},
    {"<f4", NPY_F4, 4},
    {"<i8", NPY_I8, 8},
    {"<i4", NPY_I4, 4},
    {"|u1", NPY_U1, 1},
    /* Byte order is meaningless for one byte; numpy writes '|u1' but reads
     * '<u1' too, so accept it from hand-written files. */
    {"<u1", NPY_U1, 1},
};
#define N_DTYPES (sizeof dtype_table / sizeof dtype_table[0])

/* The first row of `dtype`, N_DTYPES if none. */
static size_t dtype_row(npy_dtype dtype) {
  size_t i = 0;
  while (i < N_DTYPES && dtype_table[i].dtype != dtype)
    ++i;
  return i;
}

const char *npy_dtype_descr(npy_dtype dtype) {
  const size_t i = dtype_row(dtype);
  return i < N_DTYPES ? dtype_table[i].descr : NULL;
}

size_t npy_dtype_itemsize(npy_dtype dtype) {
  const size_t i = dtype_row(dtype);
  return i < N_DTYPES ? dtype_table[i].itemsize : 0;
}

/* ------------------------------------------------------- byte order */

static int host_is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* Reverse the bytes of each of count items (little-endian file <-> host on
 * a big-endian machine). */
static void swap_items(unsigned char *p, size_t count, size_t itemsize) {
  for (size_t i = 0; i < count; ++i, p += itemsize)
    for (size_t a = 0, b = itemsize - 1; a < b; ++a, --b) {
      const unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/* ---------------------------------------------------------- shapes */

char *npy_format_shape(char *buf, size_t size, int ndim, const size_t *shape) {
  if (!buf || size == 0)
    return buf;
  size_t used = 0;
  buf[0] = '\0';
  /* Append with snprintf semantics; `used` stops growing once full. */
#define NPY_APPEND_(...)                                                       \
  do {                                                                         \
    if (used < size) {                                                         \
      const int w_ = snprintf(buf + used, size - used, __VA_ARGS__);           \
      used = w_ < 0 ? size : used + (size_t)w_;                                \
    }                                                                          \
  } while (0)
  NPY_APPEND_("(");
  for (int i = 0; i < ndim; ++i)
    NPY_APPEND_("%s%zu", i ? ", " : "", shape[i]);
  NPY_APPEND_("%s)", ndim == 1 ? "," : "");
#undef NPY_APPEND_
  return buf;
}

/* -------------------------------------------------- header: prefix */

/*
 * Check the magic and version and read the header length field from the
 * first len bytes. *prefix_len receives the offset of the dict (10 or 12).
 * The dict itself need not be present yet.
 */
static npy_status parse_prefix(const unsigned char *b, size_t len,
                               unsigned *major, unsigned *minor,
                               size_t *prefix_len, size_t *header_len,
                               npy_error *err) {
  if (len == 0)
    return npy_fail(err, NPY_E_FORMAT, "not an NPY file (empty file)");
  const size_t magic_have = len < sizeof npy_magic ? len : sizeof npy_magic;
  if (memcmp(b, npy_magic, magic_have) != 0)
    return npy_fail(err, NPY_E_FORMAT, "not an NPY file (bad magic)");
  if (len < 8)
    return npy_fail(err, NPY_E_FORMAT,
                    "file truncated in the header (%zu bytes, no version)",
                    len);
  *major = b[6];
  *minor = b[7];
  if (*minor != 0 || *major < 1 || *major > 3)
    return npy_fail(
        err, NPY_E_UNSUPPORTED,
        "NPY format version %u.%u is not supported (1.0, 2.0 and 3.0 "
        "are)",
        *major, *minor);
  const size_t field = *major == 1 ? 2 : 4;
  if (len < 8 + field)
    return npy_fail(
        err, NPY_E_FORMAT,
        "file truncated in the header (%zu bytes, no header length)", len);
  size_t hlen = 0;
  for (size_t i = field; i-- > 0;)
    hlen = hlen << 8 | b[8 + i];
  if (hlen > NPY_MAX_HEADER_LEN)
    return npy_fail(err, NPY_E_FORMAT,
                    "header length %zu exceeds the limit of %u bytes", hlen,
                    NPY_MAX_HEADER_LEN);
  *prefix_len = 8 + field;
  *header_len = hlen;
  return NPY_OK;
}

/* ---------------------------------------------------- header: dict */

/* A read position inside the dict text [start, end). */
typedef struct cursor {
  const unsigned char *p, *start, *end;
} cursor;

/* What the dict says, before it is checked for meaning. */
typedef struct raw_header {
  char descr[32];
  int fortran_order;
  size_t ndim; /* may exceed NPY_MAX_NDIM; then only the first dims kept */
  size_t shape[NPY_MAX_NDIM];
} raw_header;

static int peek(const cursor *c) { return c->p < c->end ? *c->p : -1; }

static int accept(cursor *c, int ch) {
  if (peek(c) != ch)
    return 0;
  c->p++;
  return 1;
}

/* Python's whitespace between tokens (numpy writes spaces and one '\n'). */
static void skip_ws(cursor *c) {
  while (c->p < c->end &&
         (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

static int is_ident_char(int ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_';
}

static npy_status dict_error(const cursor *c, npy_error *err,
                             const char *what) {
  return npy_fail(err, NPY_E_FORMAT,
                  "malformed header: %s at byte %zu of the dict", what,
                  (size_t)(c->p - c->start));
}

/* A quoted string without escapes (all numpy writes for these keys). */
static npy_status parse_string(cursor *c, char *out, size_t cap,
                               npy_error *err) {
  const int quote = peek(c);
  if (quote != '\'' && quote != '"')
    return dict_error(c, err, "expected a quoted string");
  c->p++;
  size_t n = 0;
  for (;;) {
    const int ch = peek(c);
    if (ch < 0)
      return dict_error(c, err, "unterminated string");
    if (ch == quote)
      break;
    if (ch == '\\')
      return dict_error(c, err, "escape sequence in a string");
    if (ch < 0x20)
      return dict_error(c, err, "control character in a string");
    if (n + 1 >= cap)
      return dict_error(c, err, "string too long");
    out[n++] = (char)ch;
    c->p++;
  }
  c->p++;
  out[n] = '\0';
  return NPY_OK;
}

static npy_status parse_bool(cursor *c, int *value, npy_error *err) {
  static const char *const words[2] = {"False", "True"};
  for (int v = 0; v < 2; ++v) {
    const size_t n = strlen(words[v]);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, words[v], n) == 0 &&
        !is_ident_char(c->p + n < c->end ? c->p[n] : -1)) {
      c->p += n;
      *value = v;
      return NPY_OK;
    }
  }
  return dict_error(c, err, "fortran_order is not True or False");
}

/* A non-negative decimal integer that fits in size_t. Python 2 era numpy
 * wrote long dimensions as "3L"; the suffix is accepted. */
static npy_status parse_dim(cursor *c, size_t *value, npy_error *err) {
  if (peek(c) == '-')
    return dict_error(c, err, "negative dimension in shape");
  if (peek(c) < '0' || peek(c) > '9')
    return dict_error(c, err, "expected a dimension in shape");
  size_t v = 0;
  while (peek(c) >= '0' && peek(c) <= '9') {
    const size_t digit = (size_t)(peek(c) - '0');
    if (v > (SIZE_MAX - digit) / 10)
      return dict_error(c, err, "dimension too large for size_t");
    v = v * 10 + digit;
    c->p++;
  }
  accept(c, 'L');
  if (is_ident_char(peek(c)))
    return dict_error(c, err, "malformed dimension in shape");
  *value = v;
  return NPY_OK;
}

/* A tuple of dimensions: "()", "(7,)", "(3, 4)" or "(3, 4,)". */
static npy_status parse_shape(cursor *c, raw_header *h, npy_error *err) {
  if (!accept(c, '('))
    return dict_error(c, err, "shape is not a tuple");
  h->ndim = 0;
  skip_ws(c);
  if (accept(c, ')'))
    return NPY_OK;
  for (;;) {
    size_t dim = 0;
    npy_status st = parse_dim(c, &dim, err);
    if (st != NPY_OK)
      return st;
    if (h->ndim < NPY_MAX_NDIM)
      h->shape[h->ndim] = dim;
    h->ndim++;
    skip_ws(c);
    if (accept(c, ',')) {
      skip_ws(c);
      if (accept(c, ')'))
        return NPY_OK;
      continue;
    }
    if (accept(c, ')')) {
      /* In Python "(7)" is the integer 7, not a tuple. */
      if (h->ndim == 1)
        return dict_error(c, err, "shape (N) needs a trailing comma: (N,)");
      return NPY_OK;
    }
    return dict_error(c, err, "expected ',' or ')' in shape");
  }
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

/* The dict literal: exactly the keys descr, fortran_order and shape, each
 * once, in any order; optional trailing comma; only whitespace after it. */
static npy_status parse_dict(cursor *c, raw_header *h, npy_error *err) {
  unsigned seen = 0;
  npy_status st;
  skip_ws(c);
  if (!accept(c, '{'))
    return dict_error(c, err, "expected '{'");
  for (;;) {
    skip_ws(c);
    if (accept(c, '}'))
      break;
    char key[32];
    if ((st = parse_string(c, key, sizeof key, err)) != NPY_OK)
      return st;
    unsigned bit = 0;
    if (strcmp(key, "descr") == 0)
      bit = KEY_DESCR;
    else if (strcmp(key, "fortran_order") == 0)
      bit = KEY_FORTRAN;
    else if (strcmp(key, "shape") == 0)
      bit = KEY_SHAPE;
    else
      return npy_fail(err, NPY_E_FORMAT, "malformed header: unknown key '%s'",
                      key);
    if (seen & bit)
      return npy_fail(err, NPY_E_FORMAT,
                      "malformed header: key '%s' given twice", key);
    seen |= bit;
    skip_ws(c);
    if (!accept(c, ':'))
      return dict_error(c, err, "expected ':'");
    skip_ws(c);
    if (bit == KEY_DESCR) {
      if (peek(c) == '[')
        return npy_fail(
            err, NPY_E_UNSUPPORTED,
            "structured dtypes (descr is a list) are not supported");
      st = parse_string(c, h->descr, sizeof h->descr, err);
    } else if (bit == KEY_FORTRAN) {
      st = parse_bool(c, &h->fortran_order, err);
    } else {
      st = parse_shape(c, h, err);
    }
    if (st != NPY_OK)
      return st;
    skip_ws(c);
    if (accept(c, ','))
      continue;
    if (accept(c, '}'))
      break;
    return dict_error(c, err, "expected ',' or '}'");
  }
  skip_ws(c);
  if (c->p != c->end)
    return dict_error(c, err, "unexpected text after the dict");
  static const struct {
    unsigned bit;
    const char *name;
  } required[] = {{KEY_DESCR, "descr"},
                  {KEY_FORTRAN, "fortran_order"},
                  {KEY_SHAPE, "shape"}};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; ++i)
    if (!(seen & required[i].bit))
      return npy_fail(err, NPY_E_FORMAT, "malformed header: missing key '%s'",
                      required[i].name);
  return NPY_OK;
}

/* ----------------------------------------------- header: the meaning */

static npy_status lookup_dtype(const char *descr, npy_dtype *dtype,
                               npy_error *err) {
  for (size_t i = 0; i < N_DTYPES; ++i)
    if (strcmp(descr, dtype_table[i].descr) == 0) {
      *dtype = dtype_table[i].dtype;
      return NPY_OK;
    }
  if (descr[0] == '>')
    return npy_fail(err, NPY_E_UNSUPPORTED,
                    "dtype '%s' is big-endian; only little-endian data is "
                    "supported (convert with a.astype('<%s'))",
                    descr, descr + 1);
  return npy_fail(err, NPY_E_UNSUPPORTED,
                  "unsupported dtype '%s' (supported: '<f8', '<f4', '<i8', "
                  "'<i4', '|u1')",
                  descr);
}

static npy_status check_meaning(const raw_header *h, npy_info *info,
                                npy_error *err) {
  if (h->ndim > NPY_MAX_NDIM)
    return npy_fail(err, NPY_E_UNSUPPORTED,
                    "%zu-dimensional arrays are not supported (at most %d)",
                    h->ndim, NPY_MAX_NDIM);
  npy_status st = lookup_dtype(h->descr, &info->dtype, err);
  if (st != NPY_OK)
    return st;
  info->fortran_order = h->fortran_order;
  info->ndim = (int)h->ndim;
  memcpy(info->shape, h->shape, sizeof info->shape);
  char shape_text[128];
  /* A zero dimension makes the array empty whatever the others say. */
  size_t count = 1;
  int has_zero = 0;
  for (int i = 0; i < info->ndim; ++i)
    has_zero |= info->shape[i] == 0;
  for (int i = 0; i < info->ndim && !has_zero; ++i) {
    if (count > SIZE_MAX / info->shape[i])
      return npy_fail(err, NPY_E_FORMAT,
                      "shape %s is too large: the element count overflows",
                      npy_format_shape(shape_text, sizeof shape_text,
                                       info->ndim, info->shape));
    count *= info->shape[i];
  }
  if (has_zero)
    count = 0;
  const size_t itemsize = npy_dtype_itemsize(info->dtype);
  if (count > SIZE_MAX / itemsize)
    return npy_fail(err, NPY_E_FORMAT,
                    "shape %s is too large: %zu elements of %zu bytes overflow",
                    npy_format_shape(shape_text, sizeof shape_text, info->ndim,
                                     info->shape),
                    count, itemsize);
  info->count = count;
  info->data_bytes = count * itemsize;
  return NPY_OK;
}

npy_status npy_parse_header(const void *buf, size_t len, npy_info *info,
                            npy_error *err) {
  if ((!buf && len > 0) || !info)
    return npy_fail(err, NPY_E_ARGUMENT, "npy_parse_header: NULL argument");
  memset(info, 0, sizeof *info);
  const unsigned char *b = buf;
  size_t prefix_len = 0, hlen = 0;
  npy_status st = parse_prefix(b, len, &info->version_major,
                               &info->version_minor, &prefix_len, &hlen, err);
  if (st != NPY_OK)
    return st;
  if (len - prefix_len < hlen)
    return npy_fail(
        err, NPY_E_FORMAT,
        "file truncated in the header (header length says %zu bytes, "
        "%zu present)",
        hlen, len - prefix_len);
  cursor c = {b + prefix_len, b + prefix_len, b + prefix_len + hlen};
  raw_header raw;
  memset(&raw, 0, sizeof raw);
  if ((st = parse_dict(&c, &raw, err)) != NPY_OK)
    return st;
  if ((st = check_meaning(&raw, info, err)) != NPY_OK)
    return st;
  info->data_offset = prefix_len + hlen;
  return NPY_OK;
}

/* ------------------------------------------------------------ readers */

static npy_status truncated_data(const npy_info *info, size_t have,
                                 npy_error *err) {
  return npy_fail(err, NPY_E_FORMAT,
                  "file truncated: header says %zu elements (%zu bytes), found "
                  "%zu bytes of data",
                  info->count, info->data_bytes, have);
}

static npy_status trailing_data(const npy_info *info, size_t extra,
                                npy_error *err) {
  return npy_fail(err, NPY_E_FORMAT,
                  "%zu unexpected bytes after the array data (header says %zu "
                  "elements)",
                  extra, info->count);
}

void npy_array_free(npy_array *a) {
  if (!a)
    return;
  free(a->data);
  memset(a, 0, sizeof *a);
}

/* Turn the little-endian file bytes into host order. */
static void data_to_host(npy_array *a) {
  if (!host_is_little_endian() && a->data)
    swap_items(a->data, a->info.count, npy_dtype_itemsize(a->info.dtype));
}

npy_status npy_read_memory(const void *buf, size_t len, unsigned flags,
                           npy_array *out, npy_error *err) {
  if (!out)
    return npy_fail(err, NPY_E_ARGUMENT, "npy_read_memory: NULL output");
  memset(out, 0, sizeof *out);
  npy_info info;
  npy_status st = npy_parse_header(buf, len, &info, err);
  if (st != NPY_OK)
    return st;
  const size_t have = len - info.data_offset;
  if (have < info.data_bytes)
    return truncated_data(&info, have, err);
  if (have > info.data_bytes && !(flags & NPY_READ_ALLOW_TRAILING))
    return trailing_data(&info, have - info.data_bytes, err);
  void *data = NULL;
  if (info.data_bytes > 0) {
    if (!(data = malloc(info.data_bytes)))
      return npy_fail(err, NPY_E_NOMEM, "out of memory for %zu bytes of data",
                      info.data_bytes);
    memcpy(data, (const unsigned char *)buf + info.data_offset,
           info.data_bytes);
  }
  out->info = info;
  out->data = data;
  data_to_host(out);
  return NPY_OK;
}

/* fread until n bytes or end of file / error. */
static size_t read_full(FILE *f, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    const size_t r = fread((unsigned char *)buf + got, 1, n - got, f);
    if (r == 0)
      break;
    got += r;
  }
  return got;
}

static npy_status read_error(npy_error *err) {
  return npy_fail(err, NPY_E_IO, "read failed: %s", strerror(errno));
}

/* Read the prefix and the dict into a heap buffer and parse them. */
static npy_status read_header(FILE *f, npy_info *info, npy_error *err) {
  unsigned char pre[12];
  size_t got = read_full(f, pre, 8);
  if (got == 8)
    got += read_full(f, pre + 8, pre[6] == 1 ? 2 : 4);
  if (ferror(f))
    return read_error(err);
  unsigned major = 0, minor = 0;
  size_t prefix_len = 0, hlen = 0;
  npy_status st =
      parse_prefix(pre, got, &major, &minor, &prefix_len, &hlen, err);
  if (st != NPY_OK)
    return st;
  /* hlen is capped by parse_prefix, so this cannot overflow. */
  unsigned char *buf = malloc(prefix_len + hlen);
  if (!buf)
    return npy_fail(err, NPY_E_NOMEM, "out of memory for a %zu-byte header",
                    hlen);
  memcpy(buf, pre, prefix_len);
  got = prefix_len + read_full(f, buf + prefix_len, hlen);
  if (ferror(f))
    st = read_error(err);
  else
    st = npy_parse_header(buf, got, info, err);
  free(buf);
  return st;
}

/* Bytes left in f, counted by reading them (f may be a pipe). */
static npy_status count_rest(FILE *f, size_t *extra, npy_error *err) {
  unsigned char scratch[4096];
  size_t r;
  *extra = 0;
  while ((r = fread(scratch, 1, sizeof scratch, f)) > 0)
    *extra += r;
  return ferror(f) ? read_error(err) : NPY_OK;
}

npy_status npy_read_stream(FILE *f, unsigned flags, npy_array *out,
                           npy_error *err) {
  if (!f || !out)
    return npy_fail(err, NPY_E_ARGUMENT, "npy_read_stream: NULL argument");
  memset(out, 0, sizeof *out);
  npy_info info;
  unsigned char *data = NULL;
  size_t cap = 0, have = 0, need = 0;
  npy_status st = read_header(f, &info, err);
  if (st != NPY_OK)
    goto done;
  /* Grow the buffer as data actually arrives: a header may claim far more
   * than the file holds, and that must be reported, not allocated. */
  need = info.data_bytes;
  while (have < need) {
    if (have == cap) {
      const size_t first = (size_t)1 << 20;
      const size_t next = cap == 0 ? (need < first ? need : first)
                                   : (cap <= need / 2 ? cap * 2 : need);
      unsigned char *grown = realloc(data, next);
      if (!grown) {
        st = npy_fail(err, NPY_E_NOMEM, "out of memory for %zu bytes of data",
                      next);
        goto done;
      }
      data = grown;
      cap = next;
    }
    const size_t r = read_full(f, data + have, cap - have);
    have += r;
    if (have < cap) {
      st = ferror(f) ? read_error(err) : truncated_data(&info, have, err);
      goto done;
    }
  }
  if (!(flags & NPY_READ_ALLOW_TRAILING)) {
    size_t extra = 0;
    if ((st = count_rest(f, &extra, err)) != NPY_OK)
      goto done;
    if (extra > 0) {
      st = trailing_data(&info, extra, err);
      goto done;
    }
  }
  out->info = info;
  out->data = data;
  data = NULL;
  data_to_host(out);
done:
  free(data);
  return st;
}

npy_status npy_open_input(const char *who, const char *path, void *out,
                          size_t size, FILE **f, npy_error *err) {
  if (!path || !out)
    return npy_fail(err, NPY_E_ARGUMENT, "%s: NULL argument", who);
  memset(out, 0, size);
  if (!(*f = fopen(path, "rb")))
    return npy_fail(err, NPY_E_IO, "cannot open: %s", strerror(errno));
  return NPY_OK;
}

npy_status npy_read_file(const char *path, unsigned flags, npy_array *out,
                         npy_error *err) {
  FILE *f;
  const npy_status opened =
      npy_open_input("npy_read_file", path, out, sizeof *out, &f, err);
  if (opened != NPY_OK)
    return opened;
  const npy_status st = npy_read_stream(f, flags, out, err);
  fclose(f); /* read-only: a close error loses nothing */
  return st;
}

/* ------------------------------------------------------------ writers */

static npy_status write_error(npy_error *err) {
  return npy_fail(err, NPY_E_IO, "write failed: %s", strerror(errno));
}

npy_status npy_write_header(FILE *f, npy_dtype dtype, int ndim,
                            const size_t *shape, npy_error *err) {
  const char *descr = npy_dtype_descr(dtype);
  if (!f || !descr || ndim < 0 || ndim > NPY_MAX_NDIM || (ndim > 0 && !shape))
    return npy_fail(err, NPY_E_ARGUMENT, "npy_write_header: bad argument");
  char shape_text[128];
  npy_format_shape(shape_text, sizeof shape_text, ndim, shape);
  /* Prefix (10 bytes), dict, growth spaces, padding spaces, '\n'. With at
   * most 4 dims of at most 20 digits the dict is under 200 bytes, so the
   * length always fits format 1.0's 16-bit field. */
  unsigned char header[512];
  int w = snprintf((char *)header + 10, sizeof header - 10,
                   "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                   descr, shape_text);
  if (w < 0 || (size_t)w >= 256)
    return npy_fail(err, NPY_E_ARGUMENT, "npy_write_header: header too long");
  size_t len = 10 + (size_t)w;
  if (ndim > 0) {
    char first[32];
    const int digits = snprintf(first, sizeof first, "%zu", shape[0]);
    for (int i = digits; i < NPY_GROWTH_AXIS_MAX_DIGITS; ++i)
      header[len++] = ' ';
  }
  /* numpy: padlen = ALIGN - ((prefix + text + '\n') % ALIGN), so a text
   * that would already end on the boundary gets a whole extra ALIGN. */
  const size_t pad = NPY_ARRAY_ALIGN - (len + 1) % NPY_ARRAY_ALIGN;
  memset(header + len, ' ', pad);
  len += pad;
  header[len++] = '\n';
  const size_t hlen = len - 10;
  memcpy(header, npy_magic, sizeof npy_magic);
  header[6] = 1;
  header[7] = 0;
  header[8] = (unsigned char)(hlen & 0xFF);
  header[9] = (unsigned char)(hlen >> 8);
  if (fwrite(header, 1, len, f) != len)
    return write_error(err);
  return NPY_OK;
}

npy_status npy_write_data(FILE *f, npy_dtype dtype, const void *data,
                          size_t count, npy_error *err) {
  const size_t itemsize = npy_dtype_itemsize(dtype);
  if (!f || itemsize == 0 || (count > 0 && !data))
    return npy_fail(err, NPY_E_ARGUMENT, "npy_write_data: bad argument");
  if (count > SIZE_MAX / itemsize)
    return npy_fail(err, NPY_E_ARGUMENT, "npy_write_data: count overflows");
  if (count == 0)
    return NPY_OK;
  if (host_is_little_endian()) {
    if (fwrite(data, itemsize, count, f) != count)
      return write_error(err);
    return NPY_OK;
  }
  /* Big-endian host: swap a block at a time into a scratch buffer. */
  unsigned char block[4096];
  const size_t per_block = sizeof block / itemsize;
  const unsigned char *src = data;
  while (count > 0) {
    const size_t k = count < per_block ? count : per_block;
    memcpy(block, src, k * itemsize);
    swap_items(block, k, itemsize);
    if (fwrite(block, itemsize, k, f) != k)
      return write_error(err);
    src += k * itemsize;
    count -= k;
  }
  return NPY_OK;
}

npy_status npy_write_array(FILE *f, npy_dtype dtype, int ndim,
                           const size_t *shape, const void *data,
                           npy_error *err) {
  npy_status st = npy_write_header(f, dtype, ndim, shape, err);
  if (st != NPY_OK)
    return st;
  /* Any zero dimension makes the array empty, as the reader says, whatever
   * the other dimensions are: check for it before the overflow test. */
  size_t count = 1;
  for (int i = 0; i < ndim; ++i)
    if (shape[i] == 0)
      count = 0;
  for (int i = 0; i < ndim && count != 0; ++i) {
    if (count > SIZE_MAX / shape[i])
      return npy_fail(err, NPY_E_ARGUMENT, "npy_write_array: shape overflows");
    count *= shape[i];
  }
  return npy_write_data(f, dtype, data, count, err);
}
