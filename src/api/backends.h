/* backends.h - the backends this build of fricl has, in the order core
 * tries them against a device spec (api/backends.c). */
#ifndef FRICL_API_BACKENDS_H
#define FRICL_API_BACKENDS_H

#include "core/backend.h"

extern const fricl__backend_entry *const fricl__backends[];
extern const size_t fricl__backend_count;

#endif
