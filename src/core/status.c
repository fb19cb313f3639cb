/* status.c - the last-error store every layer reports into (its public
 * reader, the status strings and the version are in src/api/status.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_sink.h"
#include "core/fault.h"
#include "core/internal.h"

/* The sink this thread writes to instead of the contexts (error_sink.h). */
static _Thread_local fricl__error_sink *thread_sink;

fricl__error_sink *fricl__sink_enter(fricl__error_sink *sink) {
  fricl__error_sink *previous = thread_sink;
  thread_sink = sink;
  return previous;
}

void fricl__sink_leave(fricl__error_sink *previous) { thread_sink = previous; }

const char *fricl__sink_message(const fricl__error_sink *sink) {
  return sink->message ? sink->message : "";
}

void fricl__sink_clear(fricl__error_sink *sink) {
  free(sink->message);
  sink->message = NULL;
}

void fricl__clear_error(fricl_context *ctx) {
  if (ctx && thread_sink)
    fricl__sink_clear(thread_sink);
  else if (ctx && ctx->last_error)
    ctx->last_error[0] = '\0';
}

fricl_status fricl__enter(fricl_context *ctx, const void *arg,
                          const char *null_msg) {
  if (!ctx)
    return FRICL_STATUS_INVALID_ARGUMENT;
  fricl__clear_error(ctx);
  return arg ? FRICL_STATUS_OK
             : fricl__fail(ctx, FRICL_STATUS_INVALID_ARGUMENT, "%s", null_msg);
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
    char **slot = thread_sink ? &thread_sink->message : &ctx->last_error;
    free(*slot);
    *slot = msg;
  }
  va_end(ap2);
  return status;
}
