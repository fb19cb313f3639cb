/* npz.c - the .npz (ZIP of .npy) reader and writer declared in npz.h.
 *
 * The ZIP format itself (records, ZIP64, deflate, CRC-32) is libzip's; this
 * file keeps what is fricl's: which members an .npz may hold, how they
 * become arrays, and the bounds on what an archive may make us allocate. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "npz.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zip.h>

/* The smallest ZIP file: an end-of-central-directory record alone. libzip
 * opens an empty source as a new, empty archive, so shorter input is
 * refused here. */
#define EOCD_LEN 22u

/* Deflate's largest expansion is 1032:1 (a 258-byte match per 2 bits, plus
 * block overhead); a member may not claim more, plus a little slack for
 * tiny streams. This bounds the allocation per member by the file size,
 * before libzip inflates anything. */
#define DEFLATE_MAX_RATIO 1032u
#define DEFLATE_SLACK 1024u

/* Printable form of a member name for messages: control bytes and bytes
 * >= 0x7f as '?', at most 64 characters. */
static const char *show_name(char *buf, size_t size, const char *name) {
  size_t j = 0, i = 0;
  for (; name[i] && j + 4 < size && i < 64; ++i) {
    const unsigned char c = (unsigned char)name[i];
    buf[j++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  if (name[i] && j + 4 < size) {
    memcpy(buf + j, "...", 3);
    j += 3;
  }
  buf[j] = '\0';
  return buf;
}

/* ZIP-level failures are the archive's fault (NPY_E_FORMAT) except what
 * fricl chooses not to support. */
static npy_status zip_status(int ze) {
  switch (ze) {
  case ZIP_ER_MULTIDISK:
  case ZIP_ER_COMPNOTSUPP:
  case ZIP_ER_ENCRNOTSUPP:
    return NPY_E_UNSUPPORTED;
  case ZIP_ER_MEMORY:
    return NPY_E_NOMEM;
  default:
    return NPY_E_FORMAT;
  }
}

static int key_byte_ok(unsigned char c) { return c >= 0x20 && c != 0x7f; }

/* fricl's rules for a member, from the central directory as libzip reads
 * it: "<key>.npy" with a non-empty printable key, stored or deflated, not
 * encrypted, a declared size the compressed data can produce. */
static npy_status check_entry(const zip_stat_t *sb, const char *shown,
                              npy_error *err) {
  const char *name = sb->name;
  const size_t len = strlen(name);
  if (len > NPZ_MAX_NAME_LEN || len < 5 || strcmp(name + len - 4, ".npy"))
    return npy_fail(
        err, NPY_E_FORMAT,
        "member '%s' is not named <key>.npy (not an .npz written by "
        "numpy.savez)",
        shown);
  for (size_t i = 0; i + 4 < len; ++i)
    if (!key_byte_ok((unsigned char)name[i]))
      return npy_fail(err, NPY_E_FORMAT,
                      "member '%s': control character in the name", shown);
  if (sb->encryption_method != ZIP_EM_NONE)
    return npy_fail(err, NPY_E_UNSUPPORTED, "member '%s' is encrypted", shown);
  if (sb->comp_method != ZIP_CM_STORE && sb->comp_method != ZIP_CM_DEFLATE)
    return npy_fail(err, NPY_E_UNSUPPORTED,
                    "member '%s': compression method %d is not supported (only "
                    "stored and deflated)",
                    shown, (int)sb->comp_method);
  if (sb->comp_method == ZIP_CM_STORE && sb->comp_size != sb->size)
    return npy_fail(err, NPY_E_FORMAT,
                    "member '%s': stored member with compressed size %llu but "
                    "size %llu",
                    shown, (unsigned long long)sb->comp_size,
                    (unsigned long long)sb->size);
  if (sb->comp_method == ZIP_CM_DEFLATE &&
      (sb->comp_size > (UINT64_MAX - DEFLATE_SLACK) / DEFLATE_MAX_RATIO ||
       sb->size > sb->comp_size * DEFLATE_MAX_RATIO + DEFLATE_SLACK))
    return npy_fail(err, NPY_E_FORMAT,
                    "member '%s': declared size %llu is impossible for %llu "
                    "bytes of deflate data",
                    shown, (unsigned long long)sb->size,
                    (unsigned long long)sb->comp_size);
  if (sb->size >= SIZE_MAX)
    return npy_fail(err, NPY_E_NOMEM, "member '%s' is too large for memory",
                    shown);
  return NPY_OK;
}

/* Inflate (or copy) member i and parse it as .npy. libzip checks the CRC-32
 * when the data ends; one byte more than declared is asked for so that a
 * member longer than its declared size is caught too. */
static npy_status read_member(zip_t *za, zip_uint64_t i, const zip_stat_t *sb,
                              const char *shown, npz_member *m,
                              npy_error *err) {
  const size_t usize = (size_t)sb->size;
  unsigned char *data = malloc(usize + 1);
  if (!data)
    return npy_fail(err, NPY_E_NOMEM,
                    "member '%s': out of memory for %zu bytes", shown, usize);
  npy_status st = NPY_OK;
  zip_file_t *zf = zip_fopen_index(za, i, 0);
  if (!zf) {
    zip_error_t *ze = zip_get_error(za);
    st = npy_fail(err, zip_status(zip_error_code_zip(ze)), "member '%s': %s",
                  shown, zip_error_strerror(ze));
  }
  size_t got = 0;
  while (st == NPY_OK && got <= usize) {
    const zip_int64_t r = zip_fread(zf, data + got, usize + 1 - got);
    if (r < 0 && zip_error_code_zip(zip_file_get_error(zf)) == ZIP_ER_CRC) {
      st = npy_fail(err, NPY_E_FORMAT,
                    "member '%s': CRC-32 mismatch: the archive is corrupt",
                    shown);
    } else if (r < 0) {
      zip_error_t *ze = zip_file_get_error(zf);
      st = npy_fail(err, zip_status(zip_error_code_zip(ze)), "member '%s': %s",
                    shown, zip_error_strerror(ze));
    } else if (r == 0) {
      break;
    } else {
      got += (size_t)r;
    }
  }
  if (zf)
    zip_fclose(zf);
  if (st == NPY_OK && got != usize)
    st = npy_fail(err, NPY_E_FORMAT,
                  "member '%s': inflates to %s than its declared %zu bytes",
                  shown, got > usize ? "more" : "fewer", usize);
  if (st == NPY_OK) {
    npy_error nerr;
    nerr.msg[0] = '\0';
    st = npy_read_memory(data, usize, 0, &m->array, &nerr);
    if (st != NPY_OK)
      npy_fail(err, st, "member '%s': %s", shown, nerr.msg);
  }
  free(data);
  if (st == NPY_OK) {
    const size_t klen = strlen(sb->name) - 4;
    if (!(m->name = malloc(klen + 1))) {
      npy_array_free(&m->array);
      return npy_fail(err, NPY_E_NOMEM, "out of memory");
    }
    memcpy(m->name, sb->name, klen);
    m->name[klen] = '\0';
  }
  return st;
}

void npz_archive_free(npz_archive *a) {
  if (!a)
    return;
  for (size_t i = 0; i < a->count; ++i) {
    free(a->members[i].name);
    npy_array_free(&a->members[i].array);
  }
  free(a->members);
  memset(a, 0, sizeof *a);
}

const npz_member *npz_find(const npz_archive *a, const char *name) {
  if (!a || !name)
    return NULL;
  for (size_t i = 0; i < a->count; ++i)
    if (strcmp(a->members[i].name, name) == 0)
      return &a->members[i];
  return NULL;
}

/* Check every entry, then read them in central-directory order. */
static npy_status read_entries(zip_t *za, npz_archive *out, npy_error *err) {
  const zip_int64_t n64 = zip_get_num_entries(za, 0);
  if (n64 < 0)
    return npy_fail(err, NPY_E_FORMAT, "not an .npz (ZIP) archive");
  const size_t n = (size_t)n64; /* bounded by the central directory */
  zip_stat_t *sbs = calloc(n ? n : 1, sizeof *sbs);
  out->members = calloc(n ? n : 1, sizeof *out->members);
  if (!sbs || !out->members) {
    free(sbs);
    return npy_fail(err, NPY_E_NOMEM, "out of memory for %zu entries", n);
  }
  npy_status st = NPY_OK;
  char shown[80];
  for (size_t i = 0; i < n && st == NPY_OK; ++i) {
    /* Raw names: no guess at CP437 that would turn bytes into UTF-8. */
    if (zip_stat_index(za, i, ZIP_FL_ENC_RAW, &sbs[i]) != 0 ||
        !(sbs[i].valid & ZIP_STAT_NAME)) {
      zip_error_t *ze = zip_get_error(za);
      st = npy_fail(err, zip_status(zip_error_code_zip(ze)),
                    "malformed central directory: entry %zu: %s", i,
                    zip_error_strerror(ze));
      break;
    }
    show_name(shown, sizeof shown, sbs[i].name);
    st = check_entry(&sbs[i], shown, err);
    for (size_t j = 0; j < i && st == NPY_OK; ++j)
      if (strcmp(sbs[j].name, sbs[i].name) == 0)
        st = npy_fail(err, NPY_E_FORMAT, "member '%s' appears twice", shown);
  }
  for (size_t i = 0; i < n && st == NPY_OK; ++i) {
    show_name(shown, sizeof shown, sbs[i].name);
    st = read_member(za, i, &sbs[i], shown, &out->members[i], err);
    if (st == NPY_OK)
      out->count = i + 1; /* a failed member holds nothing */
  }
  free(sbs);
  return st;
}

npy_status npz_read_memory(const void *buf, size_t len, npz_archive *out,
                           npy_error *err) {
  if (!out || (!buf && len > 0))
    return npy_fail(err, NPY_E_ARGUMENT, "npz_read_memory: NULL argument");
  memset(out, 0, sizeof *out);
  if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0)
    return npy_fail(err, NPY_E_FORMAT,
                    "not an .npz archive: this is an .npy file (numpy.save); "
                    "write the arrays with numpy.savez");
  if (len < EOCD_LEN)
    return npy_fail(err, NPY_E_FORMAT,
                    "not an .npz (ZIP) archive: %zu bytes, too short for the "
                    "end-of-central-directory record",
                    len);
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t *src = zip_source_buffer_create(buf, len, 0, &ze);
  zip_t *za = NULL;
  /* ZIP_CHECKCONS: the central directory must agree with the local
   * headers and the members must not overlap. */
  if (src &&
      !(za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze))) {
    zip_source_free(src);
  }
  if (!za) {
    const int code = zip_error_code_zip(&ze);
    /* libzip's "Not a zip archive" said as fricl always said it. */
    const char *why = code == ZIP_ER_NOZIP
                          ? "no end-of-central-directory record (truncated "
                            "or not a ZIP file)"
                          : zip_error_strerror(&ze);
    const npy_status st =
        npy_fail(err, zip_status(code), "not an .npz (ZIP) archive: %s%s",
                 code == ZIP_ER_MULTIDISK ? "multi-disk archive: " : "", why);
    zip_error_fini(&ze);
    return st;
  }
  zip_error_fini(&ze);
  const npy_status st = read_entries(za, out, err);
  zip_discard(za); /* read-only: also frees the source */
  if (st != NPY_OK)
    npz_archive_free(out);
  return st;
}

npy_status npz_read_file(const char *path, npz_archive *out, npy_error *err) {
  FILE *f;
  npy_status st =
      npy_open_input("npz_read_file", path, out, sizeof *out, &f, err);
  if (st != NPY_OK)
    return st;
  /* Read everything (f may be a pipe): grow as data arrives. */
  unsigned char *buf = NULL;
  size_t cap = 0, len = 0;
  for (;;) {
    if (len == cap) {
      const size_t next = cap == 0              ? (size_t)1 << 16
                          : cap <= SIZE_MAX / 2 ? cap * 2
                                                : SIZE_MAX;
      if (next == cap) {
        st = npy_fail(err, NPY_E_NOMEM, "file too large");
        break;
      }
      unsigned char *grown = realloc(buf, next);
      if (!grown) {
        st =
            npy_fail(err, NPY_E_NOMEM, "out of memory reading %zu bytes", next);
        break;
      }
      buf = grown;
      cap = next;
    }
    const size_t r = fread(buf + len, 1, cap - len, f);
    len += r;
    if (r == 0) {
      if (ferror(f))
        st = npy_fail(err, NPY_E_IO, "read failed: %s", strerror(errno));
      break;
    }
  }
  fclose(f); /* read-only: a close error loses nothing */
  if (st == NPY_OK)
    st = npz_read_memory(buf, len, out, err);
  free(buf);
  return st;
}

/* ===================================================================
 * Writing
 * =================================================================== */

/* The archive is built in a libzip memory source and copied to the stream
 * by npz_writer_finish: the stream need not be seekable, and a failure
 * leaves nothing half-written in it (atomic_file.c removes the file). */
struct npz_writer {
  FILE *f;
  unsigned flags;
  int failed;
  zip_source_t *src; /* the archive's bytes; kept past zip_close */
  zip_t *za;
  size_t n;
};

static npy_status writer_zip_fail(npz_writer *w, const char *what,
                                  npy_error *err) {
  w->failed = 1;
  zip_error_t *ze = zip_get_error(w->za);
  return npy_fail(err, zip_status(zip_error_code_zip(ze)), "npz: %s: %s", what,
                  zip_error_strerror(ze));
}

npy_status npz_writer_open(npz_writer **out, FILE *f, unsigned flags,
                           npy_error *err) {
  if (!out || !f)
    return npy_fail(err, NPY_E_ARGUMENT, "npz_writer_open: NULL argument");
  *out = NULL;
  npz_writer *w = calloc(1, sizeof *w);
  if (!w)
    return npy_fail(err, NPY_E_NOMEM, "out of memory");
  w->f = f;
  w->flags = flags;
  zip_error_t ze;
  zip_error_init(&ze);
  if ((w->src = zip_source_buffer_create(NULL, 0, 0, &ze)) != NULL &&
      (w->za = zip_open_from_source(w->src, ZIP_TRUNCATE, &ze)) != NULL)
    zip_source_keep(w->src); /* zip_close must not free the bytes */
  if (!w->za) {
    const npy_status st =
        npy_fail(err, NPY_E_NOMEM, "npz: cannot start an archive: %s",
                 zip_error_strerror(&ze));
    zip_error_fini(&ze);
    npz_writer_free(w);
    return st;
  }
  zip_error_fini(&ze);
  *out = w;
  return NPY_OK;
}

void npz_writer_free(npz_writer *w) {
  if (!w)
    return;
  if (w->za)
    zip_discard(w->za);
  if (w->src)
    zip_source_free(w->src);
  free(w);
}

static npy_status check_name(const char *name, npy_error *err) {
  const size_t len = name ? strlen(name) : 0;
  if (len == 0 || len + 4 > NPZ_MAX_NAME_LEN)
    return npy_fail(err, NPY_E_ARGUMENT, "npz: bad member name length");
  for (size_t i = 0; i < len; ++i)
    if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7f)
      return npy_fail(err, NPY_E_ARGUMENT,
                      "npz: member name must be printable "
                      "ASCII");
  return NPY_OK;
}

/* 1980-01-01 00:00 local time, the earliest DOS timestamp: equal inputs
 * give byte-identical archives. */
static time_t fixed_mtime(void) {
  struct tm t;
  memset(&t, 0, sizeof t);
  t.tm_year = 80;
  t.tm_mday = 1;
  t.tm_isdst = -1;
  return mktime(&t);
}

npy_status npz_writer_add(npz_writer *w, const char *name, npy_dtype dtype,
                          int ndim, const size_t *shape, const void *data,
                          npy_error *err) {
  if (!w || w->failed)
    return npy_fail(err, NPY_E_ARGUMENT, "npz_writer_add: writer unusable");
  npy_status st = check_name(name, err);
  if (st != NPY_OK)
    return st;
  char full[NPZ_MAX_NAME_LEN + 1];
  snprintf(full, sizeof full, "%s.npy", name);
  if (zip_name_locate(w->za, full, ZIP_FL_ENC_RAW) >= 0)
    return npy_fail(err, NPY_E_ARGUMENT, "npz: member '%s' written twice",
                    name);
  const size_t itemsize = npy_dtype_itemsize(dtype);
  if (itemsize == 0 || ndim < 0 || ndim > NPY_MAX_NDIM || (ndim && !shape))
    return npy_fail(err, NPY_E_ARGUMENT, "npz_writer_add: bad array");
  size_t count = 1;
  for (int i = 0; i < ndim; ++i)
    if (shape[i] == 0)
      count = 0;
  for (int i = 0; i < ndim && count; ++i) {
    if (count > SIZE_MAX / shape[i])
      return npy_fail(err, NPY_E_ARGUMENT, "npz: shape overflows");
    count *= shape[i];
  }
  if (count > (SIZE_MAX - 1024) / itemsize || (count && !data))
    return npy_fail(err, NPY_E_ARGUMENT, "npz: array too large or NULL data");
  /* The member's .npy bytes (npy.c writes header and little-endian data). */
  char *mem = NULL;
  size_t mlen = 0;
  FILE *m = open_memstream(&mem, &mlen);
  if (!m)
    return npy_fail(err, NPY_E_NOMEM, "out of memory");
  st = npy_write_array(m, dtype, ndim, shape, data, err);
  if (fclose(m) != 0 && st == NPY_OK)
    st = npy_fail(err, NPY_E_NOMEM, "out of memory");
  if (st != NPY_OK) {
    free(mem);
    return st;
  }
  zip_source_t *ms = zip_source_buffer(w->za, mem, mlen, 1);
  if (!ms) {
    free(mem);
    return writer_zip_fail(w, "cannot add a member", err);
  }
  const zip_int64_t idx = zip_file_add(w->za, full, ms, ZIP_FL_ENC_UTF_8);
  if (idx < 0) {
    zip_source_free(ms);
    return writer_zip_fail(w, "cannot add a member", err);
  }
  const zip_int32_t method =
      (w->flags & NPZ_WRITE_DEFLATE) ? ZIP_CM_DEFLATE : ZIP_CM_STORE;
  if (zip_set_file_compression(w->za, (zip_uint64_t)idx, method, 0) != 0 ||
      zip_file_set_mtime(w->za, (zip_uint64_t)idx, fixed_mtime(), 0) != 0)
    return writer_zip_fail(w, "cannot set up a member", err);
  w->n++;
  return NPY_OK;
}

/* An archive without members: libzip writes nothing for one, numpy.savez()
 * writes this end record alone. */
static const unsigned char empty_archive[EOCD_LEN] = {0x50, 0x4b, 0x05, 0x06};

npy_status npz_writer_finish(npz_writer *w, npy_error *err) {
  if (!w || w->failed)
    return npy_fail(err, NPY_E_ARGUMENT, "npz_writer_finish: writer unusable");
  w->failed = 1; /* finish runs once */
  if (zip_close(w->za) != 0)
    return writer_zip_fail(w, "cannot write the archive", err);
  w->za = NULL;
  npy_status st = NPY_OK;
  if (w->n == 0) {
    if (fwrite(empty_archive, 1, sizeof empty_archive, w->f) !=
        sizeof empty_archive)
      st = npy_fail(err, NPY_E_IO, "write failed: %s", strerror(errno));
  } else if (zip_source_open(w->src) != 0) {
    st = npy_fail(err, NPY_E_NOMEM, "npz: cannot read the archive back: %s",
                  zip_error_strerror(zip_source_error(w->src)));
  } else {
    unsigned char chunk[1 << 16];
    zip_int64_t r = 0;
    while (st == NPY_OK &&
           (r = zip_source_read(w->src, chunk, sizeof chunk)) > 0)
      if (fwrite(chunk, 1, (size_t)r, w->f) != (size_t)r)
        st = npy_fail(err, NPY_E_IO, "write failed: %s", strerror(errno));
    if (st == NPY_OK && r < 0)
      st = npy_fail(err, NPY_E_NOMEM, "npz: cannot read the archive back: %s",
                    zip_error_strerror(zip_source_error(w->src)));
    zip_source_close(w->src);
  }
  if (st == NPY_OK && fflush(w->f) != 0)
    st = npy_fail(err, NPY_E_IO, "write failed: %s", strerror(errno));
  return st;
}
