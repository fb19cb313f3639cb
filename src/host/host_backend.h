/*
 * host_backend.h - the two built-in C backends' shared state: the
 * reference backend (one thread, the whole batch, the simple oracle side of
 * the tests) and the host backend (the same math over the context's host
 * threads, specialised and vectorised), and the host backend's per-feature
 * entry points.
 */
#ifndef FRICL_HOST_BACKEND_H
#define FRICL_HOST_BACKEND_H

#include "core/backend.h"

#define FRICL__HOST_SCRATCH 4

typedef struct fricl__host {
  fricl__backend base;
  int isa; /* fricl__isa: the variant of the vectorisable loops */
  /* Grow-only scratch (records, per-contact D), reused call after call. */
  void *scratch[FRICL__HOST_SCRATCH];
  size_t scratch_bytes[FRICL__HOST_SCRATCH];
  /* The tangential pieces' queues of shared contributions (gradient,
   * product, Hessian), kept for the next call. */
  unsigned char *queue[64][3];
  size_t queue_cap[64][3];
} fricl__host;

/* Scratch slot `slot` of at least `bytes` (contents undefined). */
fricl_status fricl__host_scratch(fricl__host *h, int slot, size_t bytes,
                                 void **out);

/* The registry entries of the two (src/api/backends.c lists them). */
extern const fricl__backend_entry fricl__reference_backend;
extern const fricl__backend_entry fricl__host_backend;

fricl_status fricl__host_tangential(fricl__backend *be,
                                    const fricl__tangential_work *w);

#endif
