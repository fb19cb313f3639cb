/* npz.c - the .npz (ZIP of .npy) reader and writer declared in npz.h. */
#define _POSIX_C_SOURCE 200809L /* open_memstream, fseeko, ftello */

#include "npz.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

/* ZIP record signatures and fixed sizes (APPNOTE.TXT 4.3). */
#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u
#define LOCAL_LEN 30u
#define CENTRAL_LEN 46u
#define EOCD_LEN 22u
#define EOCD64_LEN 56u
#define LOCATOR64_LEN 20u
#define MAX_COMMENT 0xFFFFu
#define EXTRA_ZIP64 0x0001u
#define U16_MAX 0xFFFFu
#define U32_MAX 0xFFFFFFFFu

#define METHOD_STORED 0u
#define METHOD_DEFLATE 8u

/* Deflate's largest expansion is 1032:1 (a 258-byte match per 2 bits, plus
 * block overhead); a member may not claim more, plus a little slack for
 * tiny streams. */
#define DEFLATE_MAX_RATIO 1032u
#define DEFLATE_SLACK 1024u

/* zlib counts in uInt: feed it at most this much at a time. */
#define ZCHUNK ((size_t)1 << 30)

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static npy_status
fail(npy_error *err, npy_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return status;
}

static uint32_t rd16(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static uint32_t rd32(const unsigned char *p) {
  return rd16(p) | rd16(p + 2) << 16;
}
static uint64_t rd64(const unsigned char *p) {
  return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}
static void wr16(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v & 0xFF);
  p[1] = (unsigned char)(v >> 8 & 0xFF);
}
static void wr32(unsigned char *p, uint32_t v) {
  wr16(p, v & 0xFFFF);
  wr16(p + 2, v >> 16);
}
static void wr64(unsigned char *p, uint64_t v) {
  wr32(p, (uint32_t)(v & U32_MAX));
  wr32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n) {
  uLong c = crc;
  while (n > 0) {
    const size_t k = n < ZCHUNK ? n : ZCHUNK;
    c = crc32(c, p, (uInt)k);
    p += k;
    n -= k;
  }
  return (uint32_t)c;
}

static int host_is_little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* ===================================================================
 * Reading
 * =================================================================== */

/* A member as the central directory describes it. */
typedef struct cd_entry {
  const unsigned char *name; /* inside the buffer, name_len bytes */
  size_t name_len;
  uint32_t method, flags, crc;
  uint64_t csize, usize, offset;
  uint64_t data_offset; /* after its local header */
} cd_entry;

/* Printable form of a member name for messages: control bytes and bytes
 * >= 0x7f as '?', at most 64 characters. */
static const char *show_name(char *buf, size_t size, const unsigned char *name,
                             size_t len) {
  size_t j = 0;
  for (size_t i = 0; i < len && j + 4 < size && i < 64; ++i)
    buf[j++] = name[i] >= 0x20 && name[i] < 0x7f ? (char)name[i] : '?';
  if (len > 64 && j + 4 < size) {
    memcpy(buf + j, "...", 3);
    j += 3;
  }
  buf[j] = '\0';
  return buf;
}

/* The end-of-central-directory record: the last signature whose comment
 * ends the file exactly. */
static npy_status find_eocd(const unsigned char *b, size_t len, size_t *pos,
                            npy_error *err) {
  if (len >= 6 && memcmp(b, "\x93NUMPY", 6) == 0)
    return fail(err, NPY_E_FORMAT,
                "not an .npz archive: this is an .npy file (numpy.save); "
                "write the arrays with numpy.savez");
  if (len < EOCD_LEN)
    return fail(err, NPY_E_FORMAT,
                "not an .npz (ZIP) archive: %zu bytes, too short for the "
                "end-of-central-directory record",
                len);
  const size_t last = len - EOCD_LEN;
  const size_t first = last > MAX_COMMENT ? last - MAX_COMMENT : 0;
  for (size_t p = last + 1; p-- > first;)
    if (rd32(b + p) == SIG_EOCD && p + EOCD_LEN + rd16(b + p + 20) == len) {
      *pos = p;
      return NPY_OK;
    }
  return fail(err, NPY_E_FORMAT,
              "not an .npz (ZIP) archive: no end-of-central-directory record "
              "(truncated or not a ZIP file)");
}

/* Where the central directory is, from the end record and, when present,
 * its ZIP64 locator and record. *cd_end receives the end of the region the
 * directory may occupy (the ZIP64 record or the end record). */
static npy_status read_end_records(const unsigned char *b, size_t eocd,
                                   uint64_t *entries, uint64_t *cd_offset,
                                   uint64_t *cd_size, size_t *cd_end,
                                   npy_error *err) {
  const unsigned char *e = b + eocd;
  const uint32_t disk = rd16(e + 4), cd_disk = rd16(e + 6);
  const uint32_t n_disk = rd16(e + 8), n = rd16(e + 10);
  const uint32_t size32 = rd32(e + 12), off32 = rd32(e + 16);
  *cd_end = eocd;
  if (eocd >= LOCATOR64_LEN &&
      rd32(b + eocd - LOCATOR64_LEN) == SIG_LOCATOR64) {
    const unsigned char *l = b + eocd - LOCATOR64_LEN;
    const size_t loc = eocd - LOCATOR64_LEN;
    const uint32_t z64_disk = rd32(l + 4), disks = rd32(l + 16);
    const uint64_t z64 = rd64(l + 8);
    if (z64_disk != 0 || disks > 1)
      return fail(err, NPY_E_UNSUPPORTED,
                  "multi-disk ZIP archives are not supported");
    if (z64 > loc || loc - z64 < EOCD64_LEN)
      return fail(err, NPY_E_FORMAT,
                  "malformed ZIP64 locator: its record offset %llu is out of "
                  "range",
                  (unsigned long long)z64);
    const unsigned char *r = b + z64;
    if (rd32(r) != SIG_EOCD64)
      return fail(err, NPY_E_FORMAT,
                  "malformed archive: no ZIP64 end record where the locator "
                  "points (offset %llu)",
                  (unsigned long long)z64);
    if (rd32(r + 16) != 0 || rd32(r + 20) != 0)
      return fail(err, NPY_E_UNSUPPORTED,
                  "multi-disk ZIP archives are not supported");
    if (rd64(r + 24) != rd64(r + 32))
      return fail(err, NPY_E_UNSUPPORTED,
                  "multi-disk ZIP archives are not supported (entry counts "
                  "differ)");
    *entries = rd64(r + 32);
    *cd_size = rd64(r + 40);
    *cd_offset = rd64(r + 48);
    *cd_end = (size_t)z64;
  } else {
    if (disk != 0 || cd_disk != 0 || n_disk != n)
      return fail(err, NPY_E_UNSUPPORTED,
                  "multi-disk ZIP archives are not supported");
    if (n == U16_MAX || size32 == U32_MAX || off32 == U32_MAX)
      return fail(err, NPY_E_FORMAT,
                  "malformed archive: the end record defers to a ZIP64 "
                  "record that is missing");
    *entries = n;
    *cd_size = size32;
    *cd_offset = off32;
  }
  if (*cd_offset > *cd_end || *cd_size > *cd_end - *cd_offset)
    return fail(err, NPY_E_FORMAT,
                "malformed archive: the central directory (offset %llu, %llu "
                "bytes) lies outside the file",
                (unsigned long long)*cd_offset, (unsigned long long)*cd_size);
  if (*entries > *cd_size / CENTRAL_LEN)
    return fail(err, NPY_E_FORMAT,
                "malformed archive: %llu entries cannot fit in a central "
                "directory of %llu bytes",
                (unsigned long long)*entries, (unsigned long long)*cd_size);
  return NPY_OK;
}

/* Apply the ZIP64 extra field of a central-directory entry: the 64-bit
 * values of the fields saturated in the fixed part, in the order usize,
 * csize, offset, disk. */
static npy_status apply_zip64(const unsigned char *x, size_t xlen, cd_entry *en,
                              uint32_t *disk, const char *shown,
                              npy_error *err) {
  const int need_u = en->usize == U32_MAX, need_c = en->csize == U32_MAX;
  const int need_o = en->offset == U32_MAX, need_d = *disk == U16_MAX;
  size_t p = 0;
  int found = 0;
  while (p < xlen) {
    if (xlen - p < 4)
      return fail(err, NPY_E_FORMAT,
                  "member '%s': malformed extra field (truncated header)",
                  shown);
    const uint32_t id = rd16(x + p), size = rd16(x + p + 2);
    if (size > xlen - p - 4)
      return fail(err, NPY_E_FORMAT,
                  "member '%s': malformed extra field (field of %u bytes "
                  "overruns the %zu-byte extra data)",
                  shown, size, xlen);
    if (id == EXTRA_ZIP64 && !found) {
      const unsigned char *f = x + p + 4;
      size_t q = 0;
      found = 1;
      const size_t want =
          8u * (size_t)(need_u + need_c + need_o) + 4u * (size_t)need_d;
      if (size < want)
        return fail(err, NPY_E_FORMAT,
                    "member '%s': ZIP64 extra field too short (%u bytes, "
                    "%zu needed)",
                    shown, size, want);
      if (need_u) {
        en->usize = rd64(f + q);
        q += 8;
      }
      if (need_c) {
        en->csize = rd64(f + q);
        q += 8;
      }
      if (need_o) {
        en->offset = rd64(f + q);
        q += 8;
      }
      if (need_d)
        *disk = rd32(f + q);
    }
    p += 4 + (size_t)size;
  }
  if ((need_u || need_c || need_o || need_d) && !found)
    return fail(err, NPY_E_FORMAT,
                "member '%s': sizes or offset defer to a ZIP64 extra field "
                "that is missing",
                shown);
  return NPY_OK;
}

static int key_byte_ok(unsigned char c) { return c >= 0x20 && c != 0x7f; }

/* Parse central-directory entry at *p (advanced past it). */
static npy_status parse_entry(const unsigned char *b, size_t *p, size_t end,
                              cd_entry *en, npy_error *err) {
  char shown[80];
  if (end - *p < CENTRAL_LEN || rd32(b + *p) != SIG_CENTRAL)
    return fail(err, NPY_E_FORMAT,
                "malformed central directory: no entry header at offset %zu",
                *p);
  const unsigned char *c = b + *p;
  const size_t nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
  if (end - *p - CENTRAL_LEN < nlen + xlen + clen)
    return fail(err, NPY_E_FORMAT,
                "malformed central directory: entry at offset %zu overruns "
                "it",
                *p);
  memset(en, 0, sizeof *en);
  en->name = c + CENTRAL_LEN;
  en->name_len = nlen;
  show_name(shown, sizeof shown, en->name, nlen);
  en->flags = rd16(c + 8);
  en->method = rd16(c + 10);
  en->crc = rd32(c + 16);
  en->csize = rd32(c + 20);
  en->usize = rd32(c + 24);
  uint32_t disk = rd16(c + 34);
  en->offset = rd32(c + 42);
  npy_status st =
      apply_zip64(c + CENTRAL_LEN + nlen, xlen, en, &disk, shown, err);
  if (st != NPY_OK)
    return st;
  *p += CENTRAL_LEN + nlen + xlen + clen;
  if (disk != 0)
    return fail(err, NPY_E_UNSUPPORTED,
                "member '%s': multi-disk ZIP archives are not supported",
                shown);
  if (en->flags & 0x2041u) /* bit 0 encrypted, 6 strong, 13 masked */
    return fail(err, NPY_E_UNSUPPORTED,
                "member '%s' is encrypted; encrypted archives are not "
                "supported",
                shown);
  if (en->method != METHOD_STORED && en->method != METHOD_DEFLATE)
    return fail(err, NPY_E_UNSUPPORTED,
                "member '%s': compression method %u is not supported (only "
                "stored and deflate, as numpy writes)",
                shown, (unsigned)en->method);
  if (nlen <= 4 || nlen > NPZ_MAX_NAME_LEN ||
      memcmp(en->name + nlen - 4, ".npy", 4) != 0)
    return fail(err, NPY_E_FORMAT,
                "member '%s' is not a '<name>.npy' array (an .npz archive "
                "holds only .npy members)",
                shown);
  for (size_t i = 0; i + 4 < nlen; ++i)
    if (!key_byte_ok(en->name[i]))
      return fail(err, NPY_E_FORMAT,
                  "member '%s': control character in the name", shown);
  if (en->method == METHOD_STORED && en->csize != en->usize)
    return fail(err, NPY_E_FORMAT,
                "member '%s': stored member with compressed size %llu != "
                "size %llu",
                shown, (unsigned long long)en->csize,
                (unsigned long long)en->usize);
  if (en->method == METHOD_DEFLATE &&
      (en->csize > (UINT64_MAX - DEFLATE_SLACK) / DEFLATE_MAX_RATIO ||
       en->usize > en->csize * DEFLATE_MAX_RATIO + DEFLATE_SLACK))
    return fail(err, NPY_E_FORMAT,
                "member '%s': declared size %llu is impossible for %llu "
                "bytes of deflate data",
                shown, (unsigned long long)en->usize,
                (unsigned long long)en->csize);
  return NPY_OK;
}

/* Check the local header of a member and find its data. */
static npy_status check_local(const unsigned char *b, uint64_t cd_offset,
                              cd_entry *en, npy_error *err) {
  char shown[80];
  show_name(shown, sizeof shown, en->name, en->name_len);
  if (en->offset > cd_offset || cd_offset - en->offset < LOCAL_LEN)
    return fail(err, NPY_E_FORMAT,
                "member '%s': local header offset %llu is outside the member "
                "data",
                shown, (unsigned long long)en->offset);
  const unsigned char *l = b + en->offset;
  if (rd32(l) != SIG_LOCAL)
    return fail(err, NPY_E_FORMAT,
                "member '%s': no local header at offset %llu", shown,
                (unsigned long long)en->offset);
  const uint64_t nlen = rd16(l + 26), xlen = rd16(l + 28);
  if (rd16(l + 8) != en->method)
    return fail(err, NPY_E_FORMAT,
                "member '%s': local header and central directory disagree "
                "on the compression method",
                shown);
  if (cd_offset - en->offset - LOCAL_LEN < nlen + xlen)
    return fail(err, NPY_E_FORMAT, "member '%s': local header overruns", shown);
  if (nlen != en->name_len || memcmp(l + LOCAL_LEN, en->name, nlen) != 0)
    return fail(err, NPY_E_FORMAT,
                "member '%s': local header and central directory disagree "
                "on the name",
                shown);
  en->data_offset = en->offset + LOCAL_LEN + nlen + xlen;
  if (en->csize > cd_offset - en->data_offset)
    return fail(err, NPY_E_FORMAT,
                "member '%s': %llu bytes of data overrun the archive "
                "(truncated?)",
                shown, (unsigned long long)en->csize);
  return NPY_OK;
}

static int cmp_offset(const void *x, const void *y) {
  const cd_entry *a = *(const cd_entry *const *)x;
  const cd_entry *b = *(const cd_entry *const *)y;
  return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Members may not overlap (each byte of member data belongs to one). */
static npy_status check_overlaps(cd_entry *entries, size_t n, npy_error *err) {
  if (n < 2)
    return NPY_OK;
  cd_entry **order = malloc(n * sizeof *order);
  if (!order)
    return fail(err, NPY_E_NOMEM, "out of memory");
  for (size_t i = 0; i < n; ++i)
    order[i] = &entries[i];
  qsort(order, n, sizeof *order, cmp_offset);
  npy_status st = NPY_OK;
  for (size_t i = 0; i + 1 < n && st == NPY_OK; ++i)
    if (order[i]->data_offset + order[i]->csize > order[i + 1]->offset) {
      char a[80], c[80];
      st = fail(
          err, NPY_E_FORMAT, "members '%s' and '%s' overlap",
          show_name(a, sizeof a, order[i]->name, order[i]->name_len),
          show_name(c, sizeof c, order[i + 1]->name, order[i + 1]->name_len));
    }
  free(order);
  return st;
}

static npy_status inflate_member(const unsigned char *in, size_t csize,
                                 unsigned char *out, size_t usize,
                                 const char *shown, npy_error *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
    return fail(err, NPY_E_NOMEM, "member '%s': cannot start inflate", shown);
  size_t in_left = csize, out_left = usize;
  npy_status st = NPY_OK;
  int ret;
  for (;;) {
    if (zs.avail_in == 0 && in_left > 0) {
      const size_t k = in_left < ZCHUNK ? in_left : ZCHUNK;
      zs.next_in = (Bytef *)(uintptr_t)in; /* zlib does not write it */
      zs.avail_in = (uInt)k;
      in += k;
      in_left -= k;
    }
    if (zs.avail_out == 0 && out_left > 0) {
      const size_t k = out_left < ZCHUNK ? out_left : ZCHUNK;
      zs.next_out = out;
      zs.avail_out = (uInt)k;
      out += k;
      out_left -= k;
    }
    ret = inflate(&zs, Z_NO_FLUSH);
    if (ret == Z_STREAM_END)
      break;
    if (ret == Z_OK)
      continue;
    if (ret == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0)
      st = fail(err, NPY_E_FORMAT,
                "member '%s': deflate data truncated (stream ends early)",
                shown);
    else if (ret == Z_BUF_ERROR && zs.avail_out == 0 && out_left == 0)
      st = fail(err, NPY_E_FORMAT,
                "member '%s': inflates to more than its declared size of %zu "
                "bytes",
                shown, usize);
    else if (ret == Z_MEM_ERROR)
      st = fail(err, NPY_E_NOMEM, "member '%s': out of memory in inflate",
                shown);
    else
      st = fail(err, NPY_E_FORMAT, "member '%s': corrupt deflate data (%s)",
                shown, zs.msg ? zs.msg : "error");
    break;
  }
  if (st == NPY_OK && (zs.avail_out != 0 || out_left != 0))
    st = fail(err, NPY_E_FORMAT,
              "member '%s': inflates to fewer bytes than its declared size "
              "of %zu",
              shown, usize);
  if (st == NPY_OK && (zs.avail_in != 0 || in_left != 0))
    st = fail(err, NPY_E_FORMAT,
              "member '%s': %zu bytes after the end of the deflate stream",
              shown, (size_t)zs.avail_in + in_left);
  inflateEnd(&zs);
  return st;
}

/* Decompress, CRC-check and parse one member into m. */
static npy_status read_member(const unsigned char *b, const cd_entry *en,
                              npz_member *m, npy_error *err) {
  char shown[80];
  show_name(shown, sizeof shown, en->name, en->name_len);
  if (en->usize > SIZE_MAX || en->csize > SIZE_MAX)
    return fail(err, NPY_E_NOMEM, "member '%s' is too large for memory", shown);
  const size_t usize = (size_t)en->usize, csize = (size_t)en->csize;
  const unsigned char *data = b + en->data_offset;
  unsigned char *owned = NULL;
  npy_status st = NPY_OK;
  if (en->method == METHOD_DEFLATE) {
    if (!(owned = malloc(usize ? usize : 1)))
      return fail(err, NPY_E_NOMEM, "member '%s': out of memory for %zu bytes",
                  shown, usize);
    st = inflate_member(data, csize, owned, usize, shown, err);
    data = owned;
  }
  if (st == NPY_OK) {
    const uint32_t crc = crc_update(0, data, usize);
    if (crc != en->crc)
      st = fail(err, NPY_E_FORMAT,
                "member '%s': CRC-32 mismatch (stored %08x, computed %08x): "
                "the archive is corrupt",
                shown, (unsigned)en->crc, (unsigned)crc);
  }
  if (st == NPY_OK) {
    npy_error nerr;
    nerr.msg[0] = '\0';
    st = npy_read_memory(data, usize, 0, &m->array, &nerr);
    if (st != NPY_OK)
      fail(err, st, "member '%s': %s", shown, nerr.msg);
  }
  if (st == NPY_OK) {
    const size_t klen = en->name_len - 4;
    if (!(m->name = malloc(klen + 1))) {
      npy_array_free(&m->array);
      st = fail(err, NPY_E_NOMEM, "out of memory");
    } else {
      memcpy(m->name, en->name, klen);
      m->name[klen] = '\0';
    }
  }
  free(owned);
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

npy_status npz_read_memory(const void *buf, size_t len, npz_archive *out,
                           npy_error *err) {
  if (!out || (!buf && len > 0))
    return fail(err, NPY_E_ARGUMENT, "npz_read_memory: NULL argument");
  memset(out, 0, sizeof *out);
  const unsigned char *b = buf;
  size_t eocd = 0, cd_end = 0;
  uint64_t entries = 0, cd_offset = 0, cd_size = 0;
  npy_status st = find_eocd(b, len, &eocd, err);
  if (st != NPY_OK)
    return st;
  st = read_end_records(b, eocd, &entries, &cd_offset, &cd_size, &cd_end, err);
  if (st != NPY_OK)
    return st;
  /* entries <= cd_size / 46 <= len: allocation bounded by the file. */
  const size_t n = (size_t)entries;
  cd_entry *ents = calloc(n ? n : 1, sizeof *ents);
  npz_member *members = calloc(n ? n : 1, sizeof *members);
  if (!ents || !members) {
    free(ents);
    free(members);
    return fail(err, NPY_E_NOMEM, "out of memory for %zu entries", n);
  }
  size_t p = (size_t)cd_offset;
  const size_t end = (size_t)(cd_offset + cd_size);
  for (size_t i = 0; i < n && st == NPY_OK; ++i) {
    st = parse_entry(b, &p, end, &ents[i], err);
    if (st == NPY_OK)
      st = check_local(b, cd_offset, &ents[i], err);
    for (size_t j = 0; j < i && st == NPY_OK; ++j)
      if (ents[j].name_len == ents[i].name_len &&
          memcmp(ents[j].name, ents[i].name, ents[i].name_len) == 0) {
        char shown[80];
        st = fail(
            err, NPY_E_FORMAT, "member '%s' appears twice",
            show_name(shown, sizeof shown, ents[i].name, ents[i].name_len));
      }
  }
  if (st == NPY_OK && p != end)
    st = fail(err, NPY_E_FORMAT,
              "malformed central directory: %zu bytes after its %zu entries",
              end - p, n);
  if (st == NPY_OK)
    st = check_overlaps(ents, n, err);
  size_t done = 0;
  while (st == NPY_OK && done < n) {
    st = read_member(b, &ents[done], &members[done], err);
    if (st == NPY_OK)
      ++done;
  }
  free(ents);
  out->members = members;
  out->count = done; /* a failed member holds nothing */
  if (st != NPY_OK)
    npz_archive_free(out);
  return st;
}

npy_status npz_read_file(const char *path, npz_archive *out, npy_error *err) {
  if (!path || !out)
    return fail(err, NPY_E_ARGUMENT, "npz_read_file: NULL argument");
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(err, NPY_E_IO, "cannot open: %s", strerror(errno));
  /* Read everything (f may be a pipe): grow as data arrives. */
  unsigned char *buf = NULL;
  size_t cap = 0, len = 0;
  npy_status st = NPY_OK;
  for (;;) {
    if (len == cap) {
      const size_t next = cap == 0              ? (size_t)1 << 16
                          : cap <= SIZE_MAX / 2 ? cap * 2
                                                : SIZE_MAX;
      if (next == cap) {
        st = fail(err, NPY_E_NOMEM, "file too large");
        break;
      }
      unsigned char *grown = realloc(buf, next);
      if (!grown) {
        st = fail(err, NPY_E_NOMEM, "out of memory reading %zu bytes", next);
        break;
      }
      buf = grown;
      cap = next;
    }
    const size_t r = fread(buf + len, 1, cap - len, f);
    len += r;
    if (r == 0) {
      if (ferror(f))
        st = fail(err, NPY_E_IO, "read failed: %s", strerror(errno));
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

typedef struct wentry {
  char name[NPZ_MAX_NAME_LEN + 1]; /* with ".npy" */
  uint32_t method, crc;
  uint64_t csize, usize, offset;
} wentry;

struct npz_writer {
  FILE *f;
  unsigned flags;
  int failed;
  off_t base;   /* stream position of the archive's start (deflate) */
  uint64_t pos; /* bytes written so far */
  wentry *entries;
  size_t n, cap;
};

static npy_status write_bytes(npz_writer *w, const void *p, size_t n,
                              npy_error *err) {
  if (n > 0 && fwrite(p, 1, n, w->f) != n) {
    w->failed = 1;
    return fail(err, NPY_E_IO, "write failed: %s", strerror(errno));
  }
  w->pos += n;
  return NPY_OK;
}

npy_status npz_writer_open(npz_writer **out, FILE *f, unsigned flags,
                           npy_error *err) {
  if (!out || !f)
    return fail(err, NPY_E_ARGUMENT, "npz_writer_open: NULL argument");
  *out = NULL;
  npz_writer *w = calloc(1, sizeof *w);
  if (!w)
    return fail(err, NPY_E_NOMEM, "out of memory");
  w->f = f;
  w->flags = flags;
  if (flags & NPZ_WRITE_DEFLATE) {
    w->base = ftello(f);
    if (w->base < 0) {
      free(w);
      return fail(err, NPY_E_IO, "compressed output needs a seekable file: %s",
                  strerror(errno));
    }
  }
  *out = w;
  return NPY_OK;
}

void npz_writer_free(npz_writer *w) {
  if (!w)
    return;
  free(w->entries);
  free(w);
}

/* The local header: ZIP64 sizes (as numpy writes), fixed timestamp. */
static size_t local_header(unsigned char *h, const wentry *e) {
  const size_t nlen = strlen(e->name);
  wr32(h, SIG_LOCAL);
  wr16(h + 4, 45); /* version needed: ZIP64 */
  wr16(h + 6, 0);
  wr16(h + 8, e->method);
  wr16(h + 10, 0);    /* time 00:00:00 */
  wr16(h + 12, 0x21); /* date 1980-01-01 */
  wr32(h + 14, e->crc);
  wr32(h + 18, U32_MAX);
  wr32(h + 22, U32_MAX);
  wr16(h + 26, (uint32_t)nlen);
  wr16(h + 28, 20);
  memcpy(h + LOCAL_LEN, e->name, nlen);
  unsigned char *x = h + LOCAL_LEN + nlen;
  wr16(x, EXTRA_ZIP64);
  wr16(x + 2, 16);
  wr64(x + 4, e->usize);
  wr64(x + 12, e->csize);
  return LOCAL_LEN + nlen + 20;
}

/* The .npy header of the member, in memory. */
static npy_status npy_header_bytes(npy_dtype dtype, int ndim,
                                   const size_t *shape, unsigned char *hdr,
                                   size_t cap, size_t *len, npy_error *err) {
  char *mem = NULL;
  size_t mlen = 0;
  FILE *m = open_memstream(&mem, &mlen);
  if (!m)
    return fail(err, NPY_E_NOMEM, "out of memory");
  npy_status st = npy_write_header(m, dtype, ndim, shape, err);
  if (fclose(m) != 0 && st == NPY_OK)
    st = fail(err, NPY_E_NOMEM, "out of memory");
  if (st == NPY_OK && mlen > cap)
    st = fail(err, NPY_E_ARGUMENT, "npy header too long");
  if (st == NPY_OK) {
    memcpy(hdr, mem, mlen);
    *len = mlen;
  }
  free(mem);
  return st;
}

/* Visit the array's bytes in file (little-endian) order, a block at a
 * time, without copying on little-endian hosts. */
typedef npy_status (*block_fn)(void *ctx, const unsigned char *p, size_t n,
                               npy_error *err);

static npy_status for_each_le_block(const void *data, size_t count,
                                    size_t itemsize, block_fn fn, void *ctx,
                                    npy_error *err) {
  const unsigned char *src = data;
  const size_t bytes = count * itemsize;
  if (host_is_little_endian()) {
    for (size_t off = 0; off < bytes;) {
      const size_t k = bytes - off < ZCHUNK ? bytes - off : ZCHUNK;
      npy_status st = fn(ctx, src + off, k, err);
      if (st != NPY_OK)
        return st;
      off += k;
    }
    return NPY_OK;
  }
  unsigned char block[4096];
  const size_t per = sizeof block / itemsize;
  while (count > 0) {
    const size_t k = count < per ? count : per;
    memcpy(block, src, k * itemsize);
    for (size_t i = 0; i < k; ++i)
      for (size_t a = 0, b = itemsize - 1; a < b; ++a, --b) {
        const unsigned char t = block[i * itemsize + a];
        block[i * itemsize + a] = block[i * itemsize + b];
        block[i * itemsize + b] = t;
      }
    npy_status st = fn(ctx, block, k * itemsize, err);
    if (st != NPY_OK)
      return st;
    src += k * itemsize;
    count -= k;
  }
  return NPY_OK;
}

static npy_status crc_block(void *ctx, const unsigned char *p, size_t n,
                            npy_error *err) {
  (void)err;
  uint32_t *crc = ctx;
  *crc = crc_update(*crc, p, n);
  return NPY_OK;
}

typedef struct deflate_ctx {
  npz_writer *w;
  z_stream zs;
  uint32_t crc;
  uint64_t csize;
  unsigned char out[1 << 16];
} deflate_ctx;

static npy_status deflate_run(deflate_ctx *d, const unsigned char *p, size_t n,
                              int flush, npy_error *err) {
  d->crc = crc_update(d->crc, p, n);
  d->zs.next_in = (Bytef *)(uintptr_t)p;
  d->zs.avail_in = (uInt)n; /* n <= ZCHUNK */
  for (;;) {
    d->zs.next_out = d->out;
    d->zs.avail_out = sizeof d->out;
    const int ret = deflate(&d->zs, flush);
    if (ret == Z_STREAM_ERROR)
      return fail(err, NPY_E_IO, "deflate failed");
    const size_t have = sizeof d->out - d->zs.avail_out;
    npy_status st = write_bytes(d->w, d->out, have, err);
    if (st != NPY_OK)
      return st;
    d->csize += have;
    if (flush == Z_FINISH ? ret == Z_STREAM_END : d->zs.avail_out != 0)
      return NPY_OK;
  }
}

static npy_status deflate_block(void *ctx, const unsigned char *p, size_t n,
                                npy_error *err) {
  return deflate_run(ctx, p, n, Z_NO_FLUSH, err);
}

static npy_status write_block(void *ctx, const unsigned char *p, size_t n,
                              npy_error *err) {
  return write_bytes(ctx, p, n, err);
}

static npy_status check_name(const char *name, npy_error *err) {
  const size_t len = name ? strlen(name) : 0;
  if (len == 0 || len + 4 > NPZ_MAX_NAME_LEN)
    return fail(err, NPY_E_ARGUMENT, "npz: bad member name length");
  for (size_t i = 0; i < len; ++i)
    if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7f)
      return fail(err, NPY_E_ARGUMENT,
                  "npz: member name must be printable "
                  "ASCII");
  return NPY_OK;
}

npy_status npz_writer_add(npz_writer *w, const char *name, npy_dtype dtype,
                          int ndim, const size_t *shape, const void *data,
                          npy_error *err) {
  if (!w || w->failed)
    return fail(err, NPY_E_ARGUMENT, "npz_writer_add: writer unusable");
  npy_status st = check_name(name, err);
  if (st != NPY_OK)
    return st;
  char full[NPZ_MAX_NAME_LEN + 1];
  snprintf(full, sizeof full, "%s.npy", name);
  for (size_t i = 0; i < w->n; ++i)
    if (strcmp(w->entries[i].name, full) == 0)
      return fail(err, NPY_E_ARGUMENT, "npz: member '%s' written twice", name);
  const size_t itemsize = npy_dtype_itemsize(dtype);
  if (itemsize == 0 || ndim < 0 || ndim > NPY_MAX_NDIM || (ndim && !shape))
    return fail(err, NPY_E_ARGUMENT, "npz_writer_add: bad array");
  size_t count = 1;
  for (int i = 0; i < ndim; ++i)
    if (shape[i] == 0)
      count = 0;
  for (int i = 0; i < ndim && count; ++i) {
    if (count > SIZE_MAX / shape[i])
      return fail(err, NPY_E_ARGUMENT, "npz: shape overflows");
    count *= shape[i];
  }
  if (count > (SIZE_MAX - 1024) / itemsize || (count && !data))
    return fail(err, NPY_E_ARGUMENT, "npz: array too large or NULL data");
  if (w->n == w->cap) {
    const size_t next = w->cap ? w->cap * 2 : 16;
    wentry *grown = realloc(w->entries, next * sizeof *grown);
    if (!grown)
      return fail(err, NPY_E_NOMEM, "out of memory");
    w->entries = grown;
    w->cap = next;
  }
  wentry *e = &w->entries[w->n];
  memset(e, 0, sizeof *e);
  memcpy(e->name, full, sizeof e->name);
  e->offset = w->pos;
  unsigned char hdr[512];
  size_t hlen = 0;
  if ((st = npy_header_bytes(dtype, ndim, shape, hdr, sizeof hdr, &hlen,
                             err)) != NPY_OK)
    return st;
  e->usize = (uint64_t)hlen + (uint64_t)count * itemsize;
  unsigned char lh[LOCAL_LEN + NPZ_MAX_NAME_LEN + 20];
  size_t lhlen;

  if (!(w->flags & NPZ_WRITE_DEFLATE)) {
    e->method = METHOD_STORED;
    e->csize = e->usize;
    uint32_t crc = crc_update(0, hdr, hlen);
    if ((st = for_each_le_block(data, count, itemsize, crc_block, &crc, err)) !=
        NPY_OK)
      return st;
    e->crc = crc;
    lhlen = local_header(lh, e);
    if ((st = write_bytes(w, lh, lhlen, err)) != NPY_OK ||
        (st = write_bytes(w, hdr, hlen, err)) != NPY_OK ||
        (st = for_each_le_block(data, count, itemsize, write_block, w, err)) !=
            NPY_OK)
      return st;
    w->n++;
    return NPY_OK;
  }

  /* Deflate: header with placeholder CRC and sizes, the stream, then the
   * header again with the real values. */
  e->method = METHOD_DEFLATE;
  lhlen = local_header(lh, e);
  if ((st = write_bytes(w, lh, lhlen, err)) != NPY_OK)
    return st;
  deflate_ctx *d = calloc(1, sizeof *d);
  if (!d)
    return fail(err, NPY_E_NOMEM, "out of memory");
  d->w = w;
  if (deflateInit2(&d->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    free(d);
    return fail(err, NPY_E_NOMEM, "cannot start deflate");
  }
  st = deflate_run(d, hdr, hlen, Z_NO_FLUSH, err);
  if (st == NPY_OK)
    st = for_each_le_block(data, count, itemsize, deflate_block, d, err);
  if (st == NPY_OK)
    st = deflate_run(d, NULL, 0, Z_FINISH, err);
  deflateEnd(&d->zs);
  e->crc = d->crc;
  e->csize = d->csize;
  free(d);
  if (st != NPY_OK)
    return st;
  lhlen = local_header(lh, e);
  const off_t here = w->base + (off_t)w->pos;
  if (fseeko(w->f, w->base + (off_t)e->offset, SEEK_SET) != 0 ||
      fwrite(lh, 1, lhlen, w->f) != lhlen ||
      fseeko(w->f, here, SEEK_SET) != 0) {
    w->failed = 1;
    return fail(err, NPY_E_IO, "cannot rewrite a local header: %s",
                strerror(errno));
  }
  w->n++;
  return NPY_OK;
}

npy_status npz_writer_finish(npz_writer *w, npy_error *err) {
  if (!w || w->failed)
    return fail(err, NPY_E_ARGUMENT, "npz_writer_finish: writer unusable");
  const int force = (w->flags & NPZ_WRITE_FORCE_ZIP64) != 0;
  const uint64_t cd_offset = w->pos;
  npy_status st;
  for (size_t i = 0; i < w->n; ++i) {
    const wentry *e = &w->entries[i];
    const size_t nlen = strlen(e->name);
    const int big_sizes = force || e->usize >= U32_MAX || e->csize >= U32_MAX;
    const int big_off = force || e->offset >= U32_MAX;
    unsigned char c[CENTRAL_LEN + NPZ_MAX_NAME_LEN + 28];
    size_t xlen = big_sizes || big_off
                      ? 4u + 16u * (size_t)big_sizes + 8u * (size_t)big_off
                      : 0u;
    wr32(c, SIG_CENTRAL);
    wr16(c + 4, 3u << 8 | 45u); /* made by: Unix, 4.5 */
    wr16(c + 6, xlen ? 45 : 20);
    wr16(c + 8, 0);
    wr16(c + 10, e->method);
    wr16(c + 12, 0);
    wr16(c + 14, 0x21);
    wr32(c + 16, e->crc);
    wr32(c + 20, big_sizes ? U32_MAX : (uint32_t)e->csize);
    wr32(c + 24, big_sizes ? U32_MAX : (uint32_t)e->usize);
    wr16(c + 28, (uint32_t)nlen);
    wr16(c + 30, (uint32_t)xlen);
    wr16(c + 32, 0);
    wr16(c + 34, 0);
    wr16(c + 36, 0);
    wr32(c + 38, 0100644u << 16); /* regular file, rw-r--r-- */
    wr32(c + 42, big_off ? U32_MAX : (uint32_t)e->offset);
    memcpy(c + CENTRAL_LEN, e->name, nlen);
    unsigned char *x = c + CENTRAL_LEN + nlen;
    if (xlen) {
      wr16(x, EXTRA_ZIP64);
      wr16(x + 2, (uint32_t)(xlen - 4));
      x += 4;
      if (big_sizes) {
        wr64(x, e->usize);
        wr64(x + 8, e->csize);
        x += 16;
      }
      if (big_off)
        wr64(x, e->offset);
    }
    if ((st = write_bytes(w, c, CENTRAL_LEN + nlen + xlen, err)) != NPY_OK)
      return st;
  }
  const uint64_t cd_size = w->pos - cd_offset;
  const int z64 =
      force || w->n >= U16_MAX || cd_size >= U32_MAX || cd_offset >= U32_MAX;
  if (z64) {
    unsigned char r[EOCD64_LEN + LOCATOR64_LEN];
    const uint64_t z64_offset = w->pos;
    wr32(r, SIG_EOCD64);
    wr64(r + 4, EOCD64_LEN - 12);
    wr16(r + 12, 3u << 8 | 45u);
    wr16(r + 14, 45);
    wr32(r + 16, 0);
    wr32(r + 20, 0);
    wr64(r + 24, w->n);
    wr64(r + 32, w->n);
    wr64(r + 40, cd_size);
    wr64(r + 48, cd_offset);
    unsigned char *l = r + EOCD64_LEN;
    wr32(l, SIG_LOCATOR64);
    wr32(l + 4, 0);
    wr64(l + 8, z64_offset);
    wr32(l + 16, 1);
    if ((st = write_bytes(w, r, sizeof r, err)) != NPY_OK)
      return st;
  }
  unsigned char e[EOCD_LEN];
  const uint32_t n16 =
      z64 && (force || w->n >= U16_MAX) ? U16_MAX : (uint32_t)w->n;
  wr32(e, SIG_EOCD);
  wr16(e + 4, 0);
  wr16(e + 6, 0);
  wr16(e + 8, n16);
  wr16(e + 10, n16);
  wr32(e + 12,
       z64 && (force || cd_size >= U32_MAX) ? U32_MAX : (uint32_t)cd_size);
  wr32(e + 16,
       z64 && (force || cd_offset >= U32_MAX) ? U32_MAX : (uint32_t)cd_offset);
  wr16(e + 20, 0);
  if ((st = write_bytes(w, e, sizeof e, err)) != NPY_OK)
    return st;
  if (fflush(w->f) != 0) {
    w->failed = 1;
    return fail(err, NPY_E_IO, "write failed: %s", strerror(errno));
  }
  return NPY_OK;
}
