/*
 * atomic_file.h - write a file so that readers see either the old content
 * or the complete new one, never a partial file.
 *
 * The data goes to a temporary file created with mkstemp next to the target
 * (".NAME.tmp-XXXXXX" in the same directory, so that rename() cannot cross
 * file systems); atomic_file_commit flushes and fsyncs it and renames it over
 * the target. On any failure, and on atomic_file_abort, the temporary file
 * is removed and the target is not touched.
 *
 * The new file gets the permission bits of the file it replaces, or
 * 0666 & ~umask for a new file (as fopen would give it), not mkstemp's 0600.
 * An existing target must be a regular file; a symbolic link to one is
 * followed (the link is kept, the file it names is replaced).
 *
 * Signals: the first open installs handlers for SIGTERM, SIGINT and SIGHUP
 * (unless ignored) that remove every temporary file still open, then let
 * the signal end the process as it would have; SIGXFSZ is ignored, so that
 * a write beyond `ulimit -f` fails with EFBIG (reported, file removed)
 * instead of killing the process silently.
 */
#ifndef FRICL_CLI_ATOMIC_FILE_H
#define FRICL_CLI_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct atomic_file {
  FILE *fp;         /* write here between open and commit */
  char *tmp_path;   /* heap; NULL once committed or aborted */
  char *final_path; /* heap copy of the target */
  int slot;         /* its entry in the signal-cleanup registry, or -1 */
} atomic_file;

/* Create the temporary file for @p path. On failure returns -1 with a
 * message (strerror included) in err and leaves *af inert. */
int atomic_file_open(atomic_file *af, const char *path, char *err,
                     size_t err_size);

/* Flush, fsync, close and rename over the target. On failure returns -1
 * with a message; the temporary file is removed either way. */
int atomic_file_commit(atomic_file *af, char *err, size_t err_size);

/* Close and remove the temporary file (if any). Safe after commit, after a
 * failed open and when called twice. */
void atomic_file_abort(atomic_file *af);

#endif
