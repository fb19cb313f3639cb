/* abi.c - reading and writing versioned structs across the ABI (abi.h has
 * the rules). */
#include "core/abi.h"

#include <stdio.h>
#include <string.h>

_Static_assert(FRICL__DEVICE_INFO_SIZE_0_1 == sizeof(fricl_device_info),
               "fricl_device_info grew: keep the 0.1 size for the old symbol");
_Static_assert(FRICL__CONTEXT_DEVICE_SIZE_0_4 == sizeof(fricl_context_device),
               "fricl_context_device grew: keep the 0.4 size for the old "
               "symbol");
_Static_assert(FRICL__LAW_INFO_SIZE_0_2 == sizeof(fricl_law_info),
               "fricl_law_info grew: keep the 0.2 size for the old symbol");
_Static_assert(FRICL_FEATURE_COUNT <= FRICL_FEATURE_CAPACITY,
               "FRICL_FEATURE_CAPACITY is a layout constant: a feature past "
               "it needs a new struct, never a larger capacity");

uint32_t fricl__struct_size_of(const void *s) {
  /* memcpy: the caller's struct may be of a layout this library does not
   * know, so it is read as bytes, not through one of our types. */
  uint32_t v;
  memcpy(&v, s, sizeof v);
  return v;
}

int fricl__struct_init(void *s, size_t size) {
  if (!s)
    return 0;
  const uint32_t v = (uint32_t)size;
  memset(s, 0, size);
  memcpy(s, &v, sizeof v);
  return 1;
}

static int all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i])
      return 0;
  return 1;
}

fricl__abi_result fricl__struct_copy_in(void *dst, size_t size, const void *src,
                                        size_t min_size, size_t align) {
  const size_t caller = fricl__struct_size_of(src);
  if (caller < min_size)
    return FRICL__ABI_TOO_SMALL;
  if (align > 1 && caller % align)
    return FRICL__ABI_MISALIGNED;
  if (caller > size &&
      !all_zero((const unsigned char *)src + size, caller - size))
    return FRICL__ABI_UNKNOWN_TAIL;
  memcpy(dst, src, caller < size ? caller : size);
  const uint32_t full = (uint32_t)size;
  memcpy(dst, &full, sizeof full);
  return FRICL__ABI_OK;
}

void fricl__struct_message(char *buf, size_t buf_size, const char *what,
                           uint32_t struct_size, size_t min_size, size_t size,
                           fricl__abi_result r, const char *init_fn) {
  if (r == FRICL__ABI_TOO_SMALL)
    snprintf(buf, buf_size,
             "%s.struct_size is %u, below the smallest layout this library "
             "accepts (%zu bytes; its own is %zu): initialise the %s with %s",
             what, (unsigned)struct_size, min_size, size, what, init_fn);
  else if (r == FRICL__ABI_MISALIGNED)
    snprintf(buf, buf_size,
             "%s.struct_size is %u, which no compiled layout of the struct "
             "has (every one is a multiple of its alignment): set it with %s "
             "or to sizeof the struct",
             what, (unsigned)struct_size, init_fn);
  else
    snprintf(buf, buf_size,
             "%s.struct_size is %u, larger than this library's %zu, and "
             "fields past byte %zu are set: they are unknown to this "
             "version of fricl (%s), leave them zero or link a newer one",
             what, (unsigned)struct_size, size, size, FRICL_VERSION_STRING);
}

fricl_status fricl__struct_in(fricl_context *ctx, const char *what, void *dst,
                              size_t size, const void *src, size_t min_size,
                              size_t align, const char *init_fn) {
  const fricl__abi_result r =
      fricl__struct_copy_in(dst, size, src, min_size, align);
  if (r == FRICL__ABI_OK)
    return FRICL_STATUS_OK;
  char msg[320];
  fricl__struct_message(msg, sizeof msg, what, fricl__struct_size_of(src),
                        min_size, size, r, init_fn);
  return fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, "%s", msg);
}

fricl__abi_result fricl__struct_out_check(size_t caller_size, size_t min_size) {
  return caller_size < min_size ? FRICL__ABI_TOO_SMALL : FRICL__ABI_OK;
}

void fricl__struct_out(void *dst, size_t caller_size, const void *src,
                       size_t size) {
  const size_t n = caller_size < size ? caller_size : size;
  memcpy(dst, src, n);
  if (caller_size > size)
    memset((unsigned char *)dst + size, 0, caller_size - size);
  const uint32_t filled = (uint32_t)n;
  memcpy(dst, &filled, sizeof filled);
}
