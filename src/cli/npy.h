/*
 * npy.h - reading and writing NumPy .npy files (format versions 1.0, 2.0 and
 * 3.0), for the `fricl` command-line tool.
 *
 * What is supported
 *   dtypes   '<f8' '<f4' '<i8' '<i4' '|u1' (little-endian; '|u1' has no byte
 *            order). Big-endian ('>f8' ...) and every other dtype (complex,
 *            strings, objects, structured) are refused with
 *            NPY_E_UNSUPPORTED and a message saying so; nothing is byte-swapped
 *            on the caller's behalf.
 *   shapes   0 to NPY_MAX_NDIM dimensions, either memory order (the flag is
 *            reported; the data is returned in file order).
 *
 * Robustness (the reader is meant to be fuzzed): every header byte is read
 * within bounds, the header length is capped at NPY_MAX_HEADER_LEN, the
 * element count and byte size are overflow-checked, and the data is read
 * incrementally so that a header claiming terabytes over a short file is
 * reported as truncated instead of being allocated. Bytes after the array
 * data are an error unless NPY_READ_ALLOW_TRAILING is given (a stream may
 * hold several arrays written one after another).
 *
 * The module never prints: every function returns a status and, on failure,
 * a one-line message (without the file name, which the caller knows) in an
 * npy_error.
 *
 * Data is held in host byte order in memory; the file is always
 * little-endian (converted on big-endian hosts).
 */
#ifndef FRICL_CLI_NPY_H
#define FRICL_CLI_NPY_H

#include <stddef.h>
#include <stdio.h>

#define NPY_MAX_NDIM 4
/* Longest header (the dict text after the length field) accepted. numpy
 * writes well under 200 bytes for the dtypes here and itself refuses more
 * than 10000 by default; the cap keeps a hostile length from allocating. */
#define NPY_MAX_HEADER_LEN (1u << 20)

typedef enum npy_status {
  NPY_OK = 0,
  NPY_E_IO,          /* open/read/write failed; the message has strerror */
  NPY_E_FORMAT,      /* not an NPY file, malformed or truncated */
  NPY_E_UNSUPPORTED, /* valid NPY, but a dtype, version or ndim not handled */
  NPY_E_NOMEM,       /* out of memory */
  NPY_E_ARGUMENT     /* bad argument to this module (a caller bug) */
} npy_status;

typedef struct npy_error {
  char msg[256];
} npy_error;

typedef enum npy_dtype {
  NPY_F8 = 0, /* '<f8' double */
  NPY_F4,     /* '<f4' float */
  NPY_I8,     /* '<i8' int64_t */
  NPY_I4,     /* '<i4' int32_t */
  NPY_U1      /* '|u1' uint8_t */
} npy_dtype;

/* What a header says. */
typedef struct npy_info {
  unsigned version_major, version_minor;
  npy_dtype dtype;
  int fortran_order;
  int ndim;
  size_t shape[NPY_MAX_NDIM];
  size_t count;       /* product of the shape; 1 for ndim 0 */
  size_t data_bytes;  /* count * itemsize (checked not to overflow) */
  size_t data_offset; /* offset of the data from the start of the file */
} npy_info;

typedef struct npy_array {
  npy_info info;
  /* info.data_bytes bytes in host byte order, owned (npy_array_free);
   * NULL when data_bytes is 0. */
  void *data;
} npy_array;

/* Flags of the readers. */
#define NPY_READ_ALLOW_TRAILING 0x1u /* ignore bytes after the data */

/** The descr string ("<f8" ...) of a dtype, NULL if unknown. */
const char *npy_dtype_descr(npy_dtype dtype);
/** Bytes per element of a dtype, 0 if unknown. */
size_t npy_dtype_itemsize(npy_dtype dtype);

/** Write "(3, 4)", "(7,)" or "()" (Python's tuple repr) into buf; truncates
 *  to size. @return buf. */
char *npy_format_shape(char *buf, size_t size, int ndim, const size_t *shape);

/* The start of npy_read_file and npz_read_file (@p who, in messages):
 * NPY_E_ARGUMENT when @p path or @p out is NULL; else *out (of @p size
 * bytes) zeroed and *f = fopen(path, "rb"), or NPY_E_IO with "cannot open:
 * why" in err. Shared with npz.c. */
npy_status npy_open_input(const char *who, const char *path, void *out,
                          size_t size, FILE **f, npy_error *err);

/* A failure: the message (printf format) in err->msg when err is not NULL.
 * @return status. Shared with npz.c. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
npy_status
npy_fail(npy_error *err, npy_status status, const char *fmt, ...);

/**
 * Parse the header at the start of @p buf (magic, version, length field and
 * the dict). @p len may extend past the header (into the data) or stop
 * short of it: a buffer that ends inside the header is NPY_E_FORMAT.
 */
npy_status npy_parse_header(const void *buf, size_t len, npy_info *info,
                            npy_error *err);

/** Read a whole array from a memory image of an .npy file. @p out is
 *  zeroed first and owns its data on success. */
npy_status npy_read_memory(const void *buf, size_t len, unsigned flags,
                           npy_array *out, npy_error *err);

/** Read one array from the current position of @p f (binary mode). With
 *  NPY_READ_ALLOW_TRAILING the stream is left just after the array. */
npy_status npy_read_stream(FILE *f, unsigned flags, npy_array *out,
                           npy_error *err);

/** Open @p path and read the array it holds. */
npy_status npy_read_file(const char *path, unsigned flags, npy_array *out,
                         npy_error *err);

/** Release an array's data and zero it. NULL is a no-op. */
void npy_array_free(npy_array *a);

/**
 * Write a format 1.0 header for a C-order array, byte for byte as numpy's
 * np.save does (dict keys sorted, spare spaces for in-place growth, padded
 * with spaces and a newline so that the data starts at a multiple of 64).
 */
npy_status npy_write_header(FILE *f, npy_dtype dtype, int ndim,
                            const size_t *shape, npy_error *err);

/** Append @p count elements (host order, converted to little-endian) after
 *  a header; may be called repeatedly to stream the data. @p data may be
 *  NULL when count is 0. */
npy_status npy_write_data(FILE *f, npy_dtype dtype, const void *data,
                          size_t count, npy_error *err);

/** npy_write_header then npy_write_data of the whole shape. */
npy_status npy_write_array(FILE *f, npy_dtype dtype, int ndim,
                           const size_t *shape, const void *data,
                           npy_error *err);

#endif
