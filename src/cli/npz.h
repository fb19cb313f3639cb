/*
 * npz.h - reading and writing NumPy .npz archives (numpy.savez and
 * numpy.savez_compressed), for the `fricl` command-line tool.
 *
 * An .npz file is a ZIP archive whose members are .npy files named
 * "<key>.npy". This module reads such an archive into named arrays (parsed
 * by npy.c) and writes one, member after member.
 *
 * Reading
 *   - The central directory is authoritative (as in Python's zipfile): the
 *     end-of-central-directory record is located from the end of the file,
 *     with its ZIP64 locator and record when present; every entry's sizes
 *     and offset come from the central directory, with ZIP64 extra fields
 *     (numpy writes every member with force_zip64: the local header holds
 *     0xFFFFFFFF sizes and a ZIP64 extra field).
 *   - Members must be stored (method 0) or deflated (method 8), not
 *     encrypted, on disk 0, named "<key>.npy" with a non-empty key of
 *     printable characters, each key once. Their local headers must agree
 *     with the central directory (signature, name, method) and the data of
 *     the members must lie one after another, without overlap, before the
 *     central directory (this bounds what an archive can make the reader
 *     allocate: stored data is the file's own bytes and deflate expands at
 *     most 1032:1, so no "zip bomb" inflates more than about a thousand
 *     times the file's size).
 *   - Deflated data must inflate to exactly the declared size and end the
 *     stream exactly at the declared compressed size. Every member's CRC-32
 *     is checked. Each member must then be a valid .npy file (npy.c) with
 *     no bytes after the array data.
 *   - Offsets are taken as absolute (no repair of archives with bytes
 *     prepended after they were written). Bytes that no member covers
 *     (gaps, a stub before the first member) are ignored; an archive
 *     comment must end the file exactly. Multi-disk archives are refused.
 *   Every failure is reported with NPY_E_FORMAT or NPY_E_UNSUPPORTED and a
 *   one-line message that names the member when one is at fault.
 *
 * Writing
 *   Members are written one at a time straight to the output stream (no
 *   copy of the array): stored with their CRC-32, or raw-deflated with
 *   NPZ_WRITE_DEFLATE (the stream must then be seekable: the local header
 *   is rewritten once the compressed size is known). Local headers always
 *   carry a ZIP64 extra field (as numpy writes them), the central directory
 *   and end record use ZIP64 where a size, offset or count needs it (or
 *   always, with NPZ_WRITE_FORCE_ZIP64, for tests). Timestamps are fixed
 *   (1980-01-01 00:00), so equal inputs give byte-identical archives.
 *
 * zlib provides inflate, deflate and crc32; only the CLI links it.
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

#define NPZ_WRITE_DEFLATE 0x1u     /* deflate members (savez_compressed) */
#define NPZ_WRITE_FORCE_ZIP64 0x2u /* ZIP64 everywhere (tests) */

typedef struct npz_writer npz_writer;

/** Start an archive on @p f (binary mode, positioned at its start; with
 *  NPZ_WRITE_DEFLATE it must be seekable). */
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
