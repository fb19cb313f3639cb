/* cli_run.h - what every `fricl` command does around the library: a
 * context on the requested device, the message of a failed call, and the
 * output file published. Each prints one line that starts with the command
 * ("fricl build: ...") and returns the exit status: 2 when the user's input
 * is at fault (FRICL_STATUS_INVALID_ARGUMENT), else 1. */
#ifndef FRICL_CLI_RUN_H
#define FRICL_CLI_RUN_H

#include "atomic_file.h"
#include "fricl/fricl.h"
#include "npy.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* A context on `device` (NULL: FRICL_DEVICE, else auto). @return 0, or the
 * exit status with the library's message printed. */
int cli_context_open(const char *cmd, const char *device, fricl_context **ctx);

/* "cmd: [what: ]status: last error[ (try --precision f32)]".
 * @return the exit status. */
int cli_library_error(const char *cmd, const fricl_context *ctx,
                      fricl_status st, const char *what);

/* The temporary file of the output `path` (atomic_file.h), or "cmd: path:
 * why". @return 0 or EXIT_RUNTIME. */
int cli_output_open(const char *cmd, atomic_file *out, const char *path);

/* The output written to out->fp (`written` how that went, e its message)
 * renamed over `path`, or left untouched with "cmd: path: why" printed.
 * @return 0 or EXIT_RUNTIME. */
int cli_publish(const char *cmd, atomic_file *out, const char *path,
                npy_status written, const npy_error *e);

#endif
