/* status.c - status strings, version, names, and the last-error store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "internal.h"

unsigned fricl_version_number(void) { return FRICL_VERSION_NUMBER; }
const char *fricl_version_string(void) { return FRICL_VERSION_STRING; }

const char *fricl_status_string(fricl_status status) {
  switch (status) {
#define FRICL_STATUS_CASE_(name, value, text)                                  \
  case FRICL_STATUS_##name:                                                    \
    return text;
    FRICL_STATUS_MAP(FRICL_STATUS_CASE_)
#undef FRICL_STATUS_CASE_
  }
  return "unknown status";
}

static const char *const term_names[FRICL_TERM_COUNT] = {
    "smooth_friction_f0",
    "smooth_friction_f1",
    "smooth_friction_f2",
    "smooth_friction_f1_over_x",
    "smooth_friction_f2_x_minus_f1_over_x3",
    "smooth_mu",
    "smooth_mu_derivative",
    "smooth_mu_f0",
    "smooth_mu_f1",
    "smooth_mu_f2",
    "smooth_mu_f1_over_x",
    "smooth_mu_f2_x_minus_mu_f1_over_x3",
};

const char *fricl_term_name(fricl_term term) {
  return (unsigned)term < FRICL_TERM_COUNT ? term_names[term] : NULL;
}

fricl_status fricl_term_from_name(const char *name, fricl_term *term) {
  if (!name || !term)
    return FRICL_STATUS_INVALID_ARGUMENT;
  for (int t = 0; t < FRICL_TERM_COUNT; ++t)
    if (strcmp(name, term_names[t]) == 0) {
      *term = (fricl_term)t;
      return FRICL_STATUS_OK;
    }
  return FRICL_STATUS_INVALID_ARGUMENT;
}

const char *fricl_mu_profile_name(fricl_mu_profile profile) {
  switch (profile) {
  case FRICL_MU_CUBIC:
    return "cubic";
  case FRICL_MU_IPCTK:
    return "ipctk";
  }
  return NULL;
}

fricl_status fricl_mu_profile_from_name(const char *name,
                                        fricl_mu_profile *profile) {
  if (!name || !profile)
    return FRICL_STATUS_INVALID_ARGUMENT;
  if (strcmp(name, "cubic") == 0)
    *profile = FRICL_MU_CUBIC;
  else if (strcmp(name, "ipctk") == 0)
    *profile = FRICL_MU_IPCTK;
  else
    return FRICL_STATUS_INVALID_ARGUMENT;
  return FRICL_STATUS_OK;
}

void fricl__clear_error(fricl_context *ctx) {
  if (ctx && ctx->last_error)
    ctx->last_error[0] = '\0';
}

fricl_status fricl__fail(fricl_context *ctx, fricl_status status,
                         const char *fmt, ...) {
  if (!ctx)
    return status;
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  const int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  /* Build logs can be long: size the message to fit instead of truncating.
   * If even that allocation fails, keep the old buffer (truncated text). */
  char *msg = len >= 0 ? fricl__malloc((size_t)len + 1) : NULL;
  if (msg) {
    vsnprintf(msg, (size_t)len + 1, fmt, ap2);
    free(ctx->last_error);
    ctx->last_error = msg;
  }
  va_end(ap2);
  return status;
}

const char *fricl_context_last_error(const fricl_context *ctx) {
  return ctx && ctx->last_error ? ctx->last_error : "";
}

/* Names of the OpenCL error codes fricl can meet, for messages. */
static const struct {
  cl_int code;
  const char *name;
} cl_errors[] = {
    {CL_SUCCESS, "CL_SUCCESS"},
    {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
    {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE"},
    {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE"},
    {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
    {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
    {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
    {CL_MAP_FAILURE, "CL_MAP_FAILURE"},
    {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
    {CL_INVALID_DEVICE_TYPE, "CL_INVALID_DEVICE_TYPE"},
    {CL_INVALID_PLATFORM, "CL_INVALID_PLATFORM"},
    {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
    {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT"},
    {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
    {CL_INVALID_HOST_PTR, "CL_INVALID_HOST_PTR"},
    {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT"},
    {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
    {CL_INVALID_PROGRAM, "CL_INVALID_PROGRAM"},
    {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
    {CL_INVALID_KERNEL, "CL_INVALID_KERNEL"},
    {CL_INVALID_ARG_INDEX, "CL_INVALID_ARG_INDEX"},
    {CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE"},
    {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE"},
    {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS"},
    {CL_INVALID_WORK_DIMENSION, "CL_INVALID_WORK_DIMENSION"},
    {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
    {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {CL_INVALID_EVENT_WAIT_LIST, "CL_INVALID_EVENT_WAIT_LIST"},
    {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE"},
    {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
};

const char *fricl__cl_error_name(cl_int err) {
  for (size_t i = 0; i < sizeof cl_errors / sizeof cl_errors[0]; ++i)
    if (cl_errors[i].code == err)
      return cl_errors[i].name;
  return "unknown OpenCL error";
}

fricl_status fricl__fail_cl(fricl_context *ctx, cl_int err, const char *what) {
  const fricl_status st = (err == CL_OUT_OF_HOST_MEMORY)
                              ? FRICL_STATUS_OUT_OF_MEMORY
                              : FRICL_STATUS_OPENCL_ERROR;
  return fricl__fail(ctx, st, "%s failed: %s (%d)", what,
                     fricl__cl_error_name(err), (int)err);
}
