/*
 * lagged_build.h - what the lagged build's layers share: where a group's mu
 * comes from and the output bits of the build kernel.
 */
#ifndef FRICL_CORE_LAGGED_BUILD_H
#define FRICL_CORE_LAGGED_BUILD_H

#include "core/internal.h"

/* Where a group's mu comes from (FRICL_MUS_MODE / FRICL_MUK_MODE). */
#define FRICL__MU_SCALAR 0
#define FRICL__MU_CONTACT 1
#define FRICL__MU_VERTEX 2

/* Output bits of the build kernel (FRICL_OUT_MASK). */
#define FRICL__BO_BETA 0x01u
#define FRICL__BO_P 0x02u
#define FRICL__BO_N 0x04u
#define FRICL__BO_GRAD 0x08u
#define FRICL__BO_W 0x10u
#define FRICL__BO_MUS 0x20u
#define FRICL__BO_MUK 0x40u
#define FRICL__BO_STATUS 0x80u

/* The mu source of one coefficient for one group. */
static inline int fricl__mu_mode(const void *contact, const void *vertex) {
  return contact ? FRICL__MU_CONTACT
                 : (vertex ? FRICL__MU_VERTEX : FRICL__MU_SCALAR);
}

#endif
