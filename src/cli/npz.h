/*
 * npz.h - reading and writing NumPy .npz archives (numpy.savez and
 * numpy.savez_compressed), for the `fricl` command-line tool.
 *
 * An .npz file is a ZIP archive whose members are .npy files named
 * "<key>.npy". This module reads such an archive into named arrays (parsed
 * by npy.c) and writes one, member after member.
 *
 * The ZIP container (central directory, ZIP64, deflate, CRC-32) is read
 * and written by libzip; this module adds fricl's rules on top.
 *
 * Reading
 *   - libzip opens the archive from memory with ZIP_CHECKCONS (local
 *     headers agree with the central directory, members do not overlap)
 *     and checks every member's CRC-32 as it is read; multi-disk archives
 *     are refused.
 *   - Members must be stored or deflated, not encrypted, named "<key>.npy"
 *     with a non-empty key of printable characters, each key once. A
 *     deflated member may not declare more than 1032 times its compressed
 *     size (deflate's largest expansion), which bounds what an archive can
 *     make the reader allocate (no "zip bomb").
 *   - Each member must inflate to exactly its declared size and be a valid
 *     .npy file (npy.c) with no bytes after the array data.
 *   Every failure is reported with NPY_E_FORMAT or NPY_E_UNSUPPORTED and a
 *   one-line message that names the member when one is at fault.
 *
 * Writing
 *   The archive is assembled in memory by libzip (stored members, or
 *   deflated with NPZ_WRITE_DEFLATE; ZIP64 where a size needs it) and
 *   copied to the output stream by npz_writer_finish, so the stream need
 *   not be seekable. Timestamps are fixed (1980-01-01 00:00), so equal
 *   inputs give byte-identical archives.
 *
 * Only the CLI links libzip; the library itself never does.
 */
#ifndef FRICL_CLI_NPZ_H
#define FRICL_CLI_NPZ_H

#include <stddef.h>
#include <stdio.h>

#include "npy.h"

/* Longest member name accepted or written, ".npy" included. */
#define NPZ_MAX_NAME_LEN 255

typedef struct npz_member {
  char *name;      /* the key: the member name without ".npy" (heap) */
  npy_array array; /* owned */
} npz_member;

typedef struct npz_archive {
  size_t count;
  npz_member *members; /* in central-directory order */
} npz_archive;

/** Read an archive from memory. @p out is zeroed first and owns everything
 *  on success; on failure it is left empty. */
npy_status npz_read_memory(const void *buf, size_t len, npz_archive *out,
                           npy_error *err);

/** Open @p path and read the archive it holds. */
npy_status npz_read_file(const char *path, npz_archive *out, npy_error *err);

/** The member called @p name (without ".npy"), or NULL. */
const npz_member *npz_find(const npz_archive *a, const char *name);

/** Release an archive and zero it. NULL is a no-op. */
void npz_archive_free(npz_archive *a);

/* ------------------------------------------------------------ writing */

#define NPZ_WRITE_DEFLATE 0x1u /* deflate members (savez_compressed) */

typedef struct npz_writer npz_writer;

/** Start an archive for @p f (binary mode; written by finish). */
npy_status npz_writer_open(npz_writer **w, FILE *f, unsigned flags,
                           npy_error *err);

/** Append the array @p data (C order, host byte order) as "<name>.npy".
 *  @p data may be NULL when the shape holds no element. */
npy_status npz_writer_add(npz_writer *w, const char *name, npy_dtype dtype,
                          int ndim, const size_t *shape, const void *data,
                          npy_error *err);

/** Write the central directory and end record. The stream is flushed but
 *  not closed. */
npy_status npz_writer_finish(npz_writer *w, npy_error *err);

/** Release the writer (after finish, or to give up). NULL is a no-op. */
void npz_writer_free(npz_writer *w);

#endif
