/*
 * cl_regions.h - the host-side checks of a cl_mem entry point's caller
 * buffers (the cl_mem entries of src/api): each present buffer belongs to the
 * context's OpenCL context and holds its offset + extent, and no output shares
 * bytes with another buffer of the call. Device data is never read.
 */
#ifndef FRICL_API_CL_REGIONS_H
#define FRICL_API_CL_REGIONS_H

#include <stddef.h>

#include "opencl/opencl.h"

/* One buffer of the call: extent in elements of esz bytes, its name
 * (`what`, reported as batch.what or groups[group].what; group SIZE_MAX:
 * a batch field) and whether the call writes it. mem == NULL: absent. */
typedef struct fricl__cl_region {
  fricl_buffer_cl b;
  size_t elems, esz;
  const char *what;
  size_t group;
  int is_out;
} fricl__cl_region;

/* INVALID_ARGUMENT, naming the buffer, for the first region that is not a
 * valid buffer, belongs to another OpenCL context, is too small for its
 * offset + extent, or (an output) overlaps another region. */
fricl_status fricl__cl_check_regions(fricl_context *ctx, const fricl__ocl *o,
                                     const fricl__cl_region *r, size_t n);

/* What a cl_mem batch's gathered outputs need: the direction for
 * hessian_product, and the plan for any of them (`create` names the
 * function that makes one), made on ctx, for the batch's topology (`fits`:
 * FRICL__PLAN_FITS, read only when there is a plan) and, for
 * hessian_values, with the Hessian pattern. */
typedef struct fricl__cl_gathers {
  fricl_buffer_cl gradient, hessian_values, hessian_product, direction;
} fricl__cl_gathers;
fricl_status fricl__cl_check_gathers(fricl_context *ctx,
                                     const fricl_tangential_plan *plan,
                                     int fits, fricl__cl_gathers g,
                                     const char *create);
/* fricl__cl_check_gathers of a cl_mem batch `b` of groups Group (its
 * fields plan, gradient, hessian_values, hessian_product and direction). */
#define FRICL__CL_CHECK_GATHERS(ctx, b, Group, create)                         \
  fricl__cl_check_gathers(                                                     \
      ctx, (b)->plan, (b)->plan &&FRICL__PLAN_FITS((b)->plan, b, Group),       \
      (fricl__cl_gathers){(b)->gradient, (b)->hessian_values,                  \
                          (b)->hessian_product, (b)->direction},               \
      create)

#endif
