/* status.c - the last-error store every layer reports into (its public
 * reader, the status strings and the version are in src/api/status.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"
#include "core/internal.h"

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
