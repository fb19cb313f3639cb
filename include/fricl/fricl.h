/*
 * fricl.h - batched friction terms for contact simulation (public C API).
 *
 * This header needs only <stddef.h> and <stdint.h>; the OpenCL interop entry
 * points (cl_mem buffers, wait lists) live in <fricl/fricl_cl.h>.
 *
 * What fricl computes is specified, normatively, in docs/ipc-friction.md
 * (the IPC family, the tangential potential, the lagged build),
 * docs/barrier.md (the normal-contact barrier) and docs/friction-laws.md
 * (the other laws), shipped with the sources and installed with the
 * documentation; "spec N.M" in the headers refers to their sections. The
 * manual is docs/api.md; devices and fallbacks are in docs/devices.md.
 *
 * Contents (one header per part, all included here)
 *   Base ........... <fricl/fricl_base.h>: version, status, devices,
 *                    contexts, precision
 *   Scalar family .. <fricl/fricl_scalar.h>
 *   Tangential ..... <fricl/fricl_tangential.h>
 *   Friction laws .. <fricl/fricl_laws.h>
 *   Lagged build ... <fricl/fricl_build.h>
 *   Barrier ........ <fricl/fricl_barrier.h>
 *   Collision sets . <fricl/fricl_collisions.h>
 *   CCD ............ <fricl/fricl_ccd.h>
 *   Friction force . <fricl/fricl_force.h>
 *   cl_mem tier .... <fricl/fricl_cl.h> (and its *_cl.h), not included
 *                    here: it needs the OpenCL headers
 *
 * Ownership: every pointer passed to fricl is borrowed for the duration of
 * the call only; fricl never keeps, frees or writes through an input pointer.
 * Strings returned by fricl are owned by fricl (static storage, or the
 * context for per-context strings, valid until the next call on that context
 * or its destruction).
 *
 * Thread safety: functions without a context argument are thread-safe. A
 * context may be used from several threads only if the caller serialises the
 * calls (one call at a time per context); distinct contexts are independent
 * and may be used concurrently.
 *
 * ABI: releases with the same major version are ABI compatible. Structs
 * that cross the ABI start with `uint32_t struct_size`, so that later
 * versions can grow them (fields are only ever appended):
 *  - Inputs (batches, context params): fill them with the matching _init
 *    function, which sets struct_size to the sizeof of the header compiled
 *    against. The library reads min(struct_size, its own sizeof) bytes; a
 *    field beyond struct_size (the caller's header is older) takes the
 *    value the library's _init gives it. struct_size is rejected
 *    (INVALID_ARGUMENT, the message names the argument) when it is below
 *    the struct's smallest accepted layout (named at its struct_size: the
 *    end of its last input that has no default, or for
 *    fricl_context_params the 0.1 layout; every layout a header ever
 *    declared is at least that long), when it is not a multiple of the
 *    struct's alignment (no compiled layout has such a size; it would end
 *    inside a field), and
 *    when it is above the library's sizeof with a nonzero byte past it (a
 *    newer caller set a field this library does not know). Above sizeof
 *    with only zero bytes past it is accepted: zero is "absent" for every
 *    field added later.
 *  - Outputs (fricl_devices_list, fricl_context_devices,
 *    fricl_law_get_info, fricl_build_report): the caller's element size is
 *    the stride. The *_sized functions take it as an argument; the names
 *    without _sized are macros passing the sizeof of the struct the caller
 *    is compiled with (as zlib's deflateInit passes sizeof(z_stream)), and
 *    remain exported functions for binaries built before. min(caller,
 *    library) bytes are written per element, a longer caller's tail is
 *    zeroed, and struct_size receives the number of bytes written. Any
 *    size that holds struct_size is accepted (a shorter one asks for a
 *    prefix: an older layout, or just the fields the caller reads).
 *  - No public array is sized by a count that grows: per-feature figures
 *    use FRICL_FEATURE_CAPACITY, not FRICL_FEATURE_COUNT. FRICL_TERM_COUNT
 *    and FRICL_BUILD_STATUS_COUNT, which size fricl_scalar_batch.out and
 *    fricl_build_report, are frozen: a new term or status would come with
 *    new structs.
 *
 * Versions: "@since X.Y" on a declaration names the minor release whose
 * API first had it; check FRICL_VERSION_NUMBER (compile time) or
 * fricl_version_number() (the library linked) against it. What each
 * release added is in docs/CHANGELOG.md. A test
 * (version_tags) keeps every tag at or below the package version.
 */
#ifndef FRICL_H
#define FRICL_H

/* An umbrella: each part of the API is a header of its own, each with its
 * include guard first and including only what it uses (fricl_base.h, and
 * fricl_tangential.h for the stencils and plans), so they can be included
 * alone and in any order.
 *   fricl_base.h        version, status, devices, contexts, precision
 *   fricl_scalar.h      the scalar family (the mollifier functions)
 *   fricl_tangential.h  per-contact IPC friction (potential, gradient,
 *                       projected Hessian, assembly)
 *   fricl_laws.h        the other friction laws (Exudyn, Modelica, the
 *                       Fortran friction library), stateless and stateful
 *   fricl_build.h       the lagged friction build from geometry
 *   fricl_barrier.h     the normal-contact barrier */
#include "fricl/fricl_barrier.h"
#include "fricl/fricl_base.h"
#include "fricl/fricl_build.h"
#include "fricl/fricl_ccd.h"
#include "fricl/fricl_collisions.h"
#include "fricl/fricl_force.h"
#include "fricl/fricl_laws.h"
#include "fricl/fricl_scalar.h"
#include "fricl/fricl_tangential.h"

#endif /* FRICL_H */
