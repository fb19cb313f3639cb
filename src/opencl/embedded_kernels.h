/* embedded_kernels.h - the kernel sources compiled into the library by
 * cmake/fricl_embed.cmake (see CMakeLists.txt). */
#ifndef FRICL_EMBEDDED_KERNELS_H
#define FRICL_EMBEDDED_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fricl__embedded_file {
  const char *name; /* file name, e.g. "fricl_scalar.cl" */
  const char *data; /* NUL-terminated contents */
  size_t len;       /* bytes, without the NUL */
  uint64_t hash;    /* truncated SHA-256 of the contents */
} fricl__embedded_file;

/* Terminated by an entry whose name is NULL. */
extern const fricl__embedded_file fricl__embedded_files[];

#endif
