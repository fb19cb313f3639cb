/*
 * abi.h - versioned structs across the ABI: how a caller's struct, built
 * against another release's header, is read (inputs) and written
 * (outputs). Every such struct starts with `uint32_t struct_size`.
 *
 * Inputs. The entry point initialises a local struct with the library's
 * own _init, then fricl__struct_in copies min(struct_size, sizeof) bytes
 * of the caller's struct over it and sets its struct_size to sizeof: a
 * caller built against an older, smaller layout gets the _init value of
 * every field it does not have, and validation then sees one full-size
 * struct. Rejected, naming the argument:
 *   - struct_size below the struct's minimum (FRICL__MIN_* below): 0, an
 *     uninitialised struct or another struct's size, never a layout any
 *     header declared;
 *   - struct_size above sizeof with a nonzero byte in the tail this
 *     library does not know: a newer caller set a field this library
 *     cannot honour. An all-zero tail is accepted (every field added
 *     later means "absent" when zero, as _init leaves it), as Linux's
 *     copy_struct_from_user does.
 *
 * Outputs. The caller's element size is the stride (fricl__struct_out):
 * min(caller, library) bytes are written per element, a larger caller's
 * tail is zeroed, and each element's struct_size is set to the bytes the
 * library filled, so a newer caller can tell which fields it got.
 *
 * Rule for whoever grows a struct: append fields only (never insert),
 * starting at or after the previous sizeof (not in its tail padding, which
 * an older caller's copy would overwrite with zeros), with the meaning
 * "absent" when the field is zero, and leave the FRICL__MIN_* below alone.
 */
#ifndef FRICL_CORE_ABI_H
#define FRICL_CORE_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* The end of `field` in `type`: a minimum that keeps `field` and every
 * field before it. */
#define FRICL__END_OF(type, field)                                             \
  (offsetof(type, field) + sizeof(((type *)0)->field))

/*
 * The smallest struct_size accepted for each input struct. No release
 * published a shorter layout of any of them, so every binary built
 * against a fricl header is accepted. The minimum is the end of the last
 * input a call may have to set (an input whose _init value is not valid
 * for every call); the optional fields after it (plans, directions,
 * outputs, fields added later) may be cut off, and take their _init
 * values: a trimmed struct that leaves out the outputs it never asks for
 * is as valid as an older header's layout.
 * fricl_context_params: the 0.1 layout (threads and auto_crossover came
 * in 0.4); everything in it is optional, but a struct shorter than the
 * first layout can only be a mistake.
 */
#define FRICL__MIN_CONTEXT_PARAMS                                              \
  FRICL__END_OF(fricl_context_params, error_buffer_size)
#define FRICL__MIN_SCALAR_BATCH FRICL__END_OF(fricl_scalar_batch, eps_v)
#define FRICL__MIN_TANGENTIAL_BATCH                                            \
  FRICL__END_OF(fricl_tangential_batch, groups)
#define FRICL__MIN_BUILD_BATCH FRICL__END_OF(fricl_build_batch, groups)
#define FRICL__MIN_LAW_BATCH FRICL__END_OF(fricl_law_batch, param)
#define FRICL__MIN_BARRIER_BATCH FRICL__END_OF(fricl_barrier_batch, groups)
#define FRICL__MIN_FORCE_BATCH FRICL__END_OF(fricl_force_batch, groups)
/* The cl_mem twins (fricl_cl.h and the *_cl.h headers), by the same rule. */
#define FRICL__MIN_SCALAR_BATCH_CL FRICL__END_OF(fricl_scalar_batch_cl, eps_v)
#define FRICL__MIN_TANGENTIAL_BATCH_CL                                         \
  FRICL__END_OF(fricl_tangential_batch_cl, groups)
#define FRICL__MIN_BUILD_BATCH_CL FRICL__END_OF(fricl_build_batch_cl, groups)
#define FRICL__MIN_LAW_BATCH_CL FRICL__END_OF(fricl_law_batch_cl, param)
#define FRICL__MIN_BARRIER_BATCH_CL                                            \
  FRICL__END_OF(fricl_barrier_batch_cl, groups)

/* Outputs: any element size that holds struct_size. Writing fewer bytes
 * than the library has is always safe, so a caller may ask for a prefix
 * only (an older layout, or one cut after the fields it reads); a size
 * below that can only be a mistake. fricl_build_report is written like an
 * output, through the struct_size fricl_build_report_init sets. */
#define FRICL__MIN_OUTPUT sizeof(uint32_t)
#define FRICL__MIN_DEVICE_INFO FRICL__MIN_OUTPUT
#define FRICL__MIN_CONTEXT_DEVICE FRICL__MIN_OUTPUT
#define FRICL__MIN_LAW_INFO FRICL__MIN_OUTPUT
#define FRICL__MIN_BUILD_REPORT FRICL__MIN_OUTPUT

/* The element sizes the exported functions without _sized write: those of
 * the layouts their binaries were compiled with. Frozen: when a struct
 * grows, these stay (abi.c asserts they match today's sizeof, and that
 * assertion is the one to drop then). */
#define FRICL__ROUND_UP(n, a) (((n) + (a)-1) / (a) * (a))
#define FRICL__DEVICE_INFO_SIZE_0_1                                            \
  FRICL__ROUND_UP(FRICL__END_OF(fricl_device_info, driver_version),            \
                  _Alignof(fricl_device_info))
#define FRICL__CONTEXT_DEVICE_SIZE_0_4                                         \
  FRICL__ROUND_UP(FRICL__END_OF(fricl_context_device, items_per_second),       \
                  _Alignof(fricl_context_device))
#define FRICL__LAW_INFO_SIZE_0_2                                               \
  FRICL__ROUND_UP(FRICL__END_OF(fricl_law_info, options),                      \
                  _Alignof(fricl_law_info))

typedef enum fricl__abi_result {
  FRICL__ABI_OK = 0,
  FRICL__ABI_TOO_SMALL = 1,    /* struct_size below the minimum */
  FRICL__ABI_UNKNOWN_TAIL = 2, /* larger than sizeof, nonzero past it */
  FRICL__ABI_MISALIGNED = 3    /* not a multiple of the struct's alignment */
} fricl__abi_result;

/* The caller's struct_size (the first 4 bytes of every versioned struct). */
uint32_t fricl__struct_size_of(const void *s);

/*
 * Copy the caller's `src` over `dst` (`size` = sizeof *dst, already set by
 * the struct's _init) as described at the top, and set dst's struct_size to
 * `size`. A struct_size that is not a multiple of `align` (the struct's
 * _Alignof) is rejected: every layout a compiler gives, older or newer,
 * is a multiple of it, and a size that ends inside a field would have the
 * library keep half of that field. dst is left untouched unless the result
 * is FRICL__ABI_OK.
 */
fricl__abi_result fricl__struct_copy_in(void *dst, size_t size, const void *src,
                                        size_t min_size, size_t align);

/* The message for a rejected struct_size: "<what>.struct_size is X: ...". */
void fricl__struct_message(char *buf, size_t buf_size, const char *what,
                           uint32_t struct_size, size_t min_size, size_t size,
                           fricl__abi_result r, const char *init_fn);

/* fricl__struct_copy_in, recording the message on ctx when rejected
 * (INVALID_ARGUMENT). */
fricl_status fricl__struct_in(fricl_context *ctx, const char *what, void *dst,
                              size_t size, const void *src, size_t min_size,
                              size_t align, const char *init_fn);

/*
 * The entry of a function that reads the caller's input struct `arg` of
 * type `type` (fricl_tangential_batch, ...): a local `in` set by type's
 * _init, the caller's layout over it (fricl__struct_in, `min` the
 * FRICL__MIN_* above), and `arg` pointed at it. A rejected struct_size
 * returns INVALID_ARGUMENT from the enclosing function.
 */
#define FRICL__STRUCT_IN(ctx, type, arg, in, min)                              \
  type in;                                                                     \
  type##_init(&in);                                                            \
  FRICL__TRY(fricl__struct_in(ctx, #arg, &in, sizeof in, arg, min,             \
                              _Alignof(type), #type "_init"));                 \
  arg = &in

/* The head of an entry point that takes a batch: ctx and `batch` not NULL
 * (fricl__enter), then FRICL__STRUCT_IN into a local `in`. */
#define FRICL__ENTER_BATCH(ctx, type, batch, min)                              \
  FRICL__TRY(fricl__enter(ctx, batch, "ctx and batch must not be NULL"));      \
  FRICL__STRUCT_IN(ctx, type, batch, in, min)

/* The start of every _init: `size` bytes of *s zeroed and its struct_size
 * set. @return 0 when s is NULL (nothing to initialise), else 1. */
int fricl__struct_init(void *s, size_t size);

/* The element size a caller passed for an output array: OK, or
 * FRICL__ABI_TOO_SMALL (any size above the library's is fine: its tail is
 * zeroed). */
fricl__abi_result fricl__struct_out_check(size_t caller_size, size_t min_size);

/*
 * Write the library's element `src` (`size` bytes, its struct_size field
 * ignored) to the caller's `dst` of `caller_size` bytes: min of the two
 * sizes copied, a longer caller's tail zeroed, and dst's struct_size set to
 * the bytes filled.
 */
void fricl__struct_out(void *dst, size_t caller_size, const void *src,
                       size_t size);

#endif /* FRICL_CORE_ABI_H */
