/* status.c - status strings, version, and the context's last error. */
#include "core/internal.h"

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

const char *fricl_context_last_error(const fricl_context *ctx) {
  return ctx && ctx->last_error ? ctx->last_error : "";
}
