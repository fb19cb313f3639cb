/* bench_exec.c - see bench_exec.h. */
/* POSIX 2008 plus XSI: readlink, execv. */
#define _XOPEN_SOURCE 700

#include "bench_exec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "fricl-bench"

/* Where fricl-bench may be, relative to the folder of this executable: the
 * same folder (a user who copies it next to an installed fricl), then the
 * build tree, where the CLI is build/src/cli/fricl and the harness
 * build/bench/fricl-bench. The build-tree path is tried only from a folder
 * that ends in src/cli/, so that an installed fricl never runs whatever
 * happens to lie two folders up. */
#define BUILD_TREE_DIR "src/cli/"
static const char *const near_self[] = {"", "../../bench/"};

/* Replaces the process with @p path when it is an executable file; returns
 * only when it is not, or exec fails (errno says why). */
static void try_exec(const char *path, char **argv) {
  if (access(path, X_OK) == 0)
    execv(path, argv);
}

int fricl_bench_main(int argc, char **argv) {
  (void)argc;
  /* fricl-bench takes the same arguments; it names itself by argv[0]. */
  char name[] = BENCH_NAME;
  argv[0] = name;
  /* An explicit choice first (a test, or a harness kept elsewhere). */
  const char *env = getenv("FRICL_BENCH");
  if (env && *env) {
    try_exec(env, argv);
    fprintf(stderr, "fricl bench: cannot run FRICL_BENCH=%s: %s\n", env,
            strerror(errno));
    return 1;
  }
  /* /proc/self/exe rather than argv[0]: fricl may have been found on PATH
   * or through a symbolic link, and argv[0] then names neither folder. */
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      slash[1] = '\0';
      const size_t len = strlen(self), tail = strlen(BUILD_TREE_DIR);
      const int in_build_tree =
          len >= tail && strcmp(self + len - tail, BUILD_TREE_DIR) == 0;
      for (size_t i = 0; i < sizeof near_self / sizeof *near_self; ++i) {
        if (i > 0 && !in_build_tree)
          break;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s%s%s", self, near_self[i],
                     BENCH_NAME) < (int)sizeof path)
          try_exec(path, argv);
      }
    }
  }
  execvp(BENCH_NAME, argv);
  fprintf(stderr,
          "fricl bench: cannot run " BENCH_NAME ": %s\n"
          "fricl bench: the benchmark harness is not installed with fricl; it "
          "is built with the sources (build/bench/" BENCH_NAME
          "), or set FRICL_BENCH to its path\n",
          strerror(errno));
  return 1;
}
