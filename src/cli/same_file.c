/* same_file.c - see same_file.h. */
#define _POSIX_C_SOURCE 200809L

#include "same_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The directory part of path as a new string ("." when there is none; "/"
 * for a file in the root) and a pointer to its last component. */
static char *split(const char *path, const char **base) {
  const char *slash = strrchr(path, '/');
  const char *dir = ".";
  size_t n = 1;
  if (slash) {
    dir = path;
    n = slash == path ? 1 : (size_t)(slash - path);
  }
  *base = slash ? slash + 1 : path;
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, dir, n);
    d[n] = '\0';
  }
  return d;
}

static int same_inode(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

int cli_same_file(const char *a, const char *b) {
  if (strcmp(a, b) == 0)
    return 1;
  struct stat st;
  const int ea = stat(a, &st) == 0, eb = stat(b, &st) == 0;
  if (ea && eb)
    return same_inode(a, b);
  if (ea || eb)
    return 0; /* one exists, the other does not: different names */
  const char *ba, *bb;
  char *da = split(a, &ba), *db = split(b, &bb);
  const int same = da && db && strcmp(ba, bb) == 0 && *ba && same_inode(da, db);
  free(da);
  free(db);
  return same;
}

int cli_refuse_same_file(const char *cmd, const char *in, const char *out) {
  if (!in || !out || !cli_same_file(in, out))
    return 0;
  fprintf(stderr,
          "%s: the output %s is the input %s (the same file): the input "
          "would be replaced; choose another output\n",
          cmd, out, in);
  return 1;
}
