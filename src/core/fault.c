/* fault.c - the fault-injection hooks of fault.h (the OpenCL calls' are in
 * opencl/cl_fault.c). Compiled only into the
 * test library fricl_static_fi (with -DFRICL_FAULT_INJECTION). */
#ifndef FRICL_FAULT_INJECTION
#error "fault.c is only built with -DFRICL_FAULT_INJECTION (test library)"
#endif

#include "core/fault.h"

#include <stdatomic.h>
#include <string.h>

/* The armed operation number (0: none), how many operations were passed,
 * and the kind of the one that was made to fail. Atomic: the hooks may be
 * reached from several threads. */
static atomic_long armed_at;
static atomic_long passed;
static atomic_int injected_kind;
static atomic_int configured; /* arm/disarm or FRICL_FAULT_AT was applied */

static void configure_from_env(void) {
  if (atomic_exchange(&configured, 1))
    return;
  const char *s = getenv("FRICL_FAULT_AT");
  if (s && *s) {
    char *end = NULL;
    const long n = strtol(s, &end, 10);
    if (end && *end == '\0' && n > 0)
      atomic_store(&armed_at, n);
  }
}

void fricl__fault_arm(long n) {
  atomic_store(&configured, 1);
  atomic_store(&armed_at, 0);
  atomic_store(&passed, 0);
  atomic_store(&injected_kind, FRICL__FAULT_NONE);
  atomic_store(&armed_at, n > 0 ? n : 0);
}

void fricl__fault_disarm(void) { fricl__fault_arm(0); }

long fricl__fault_count(void) { return atomic_load(&passed); }

fricl__fault_kind_t fricl__fault_kind(void) {
  return (fricl__fault_kind_t)atomic_load(&injected_kind);
}

int fricl__fault_hit(fricl__fault_kind_t kind) {
  configure_from_env();
  const long k = atomic_fetch_add(&passed, 1) + 1;
  const long at = atomic_load(&armed_at);
  if (at <= 0 || k != at)
    return 0;
  atomic_store(&injected_kind, (int)kind);
  return 1;
}

void *fricl__malloc(size_t size) {
  return fricl__fault_hit(FRICL__FAULT_ALLOC) ? NULL : malloc(size);
}

void *fricl__calloc(size_t count, size_t size) {
  return fricl__fault_hit(FRICL__FAULT_ALLOC) ? NULL : calloc(count, size);
}
