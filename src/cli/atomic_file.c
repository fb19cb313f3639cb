/* atomic_file.c - temp file + fsync + rename, see atomic_file.h. */
/* POSIX 2008 plus XSI: glibc declares realpath only with the latter. */
#define _XOPEN_SOURCE 700

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Temporary files live only between open and commit/abort, but a signal can
 * end the process in between. So every live temporary path is registered
 * here, in static storage a signal handler may read; SIGTERM, SIGINT and
 * SIGHUP unlink each registered path (unlink is async-signal-safe), then
 * take their default action again and are re-raised, so the exit status
 * still says which signal ended the process. SIGXFSZ (a write beyond
 * `ulimit -f`) would kill the process without a word: it is ignored, so
 * the write fails with EFBIG, which is reported and cleaned up like any
 * other write error. A signal already ignored (nohup) stays ignored. The
 * handler may run on any thread (OpenCL runtimes start their own), hence
 * fixed buffers that are never freed and a volatile flag per slot.
 */
#define TEMP_SLOTS 8
static char temp_paths[TEMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t temp_live[TEMP_SLOTS];
static const int cleanup_signals[] = {SIGTERM, SIGINT, SIGHUP};

static void remove_temps_and_reraise(int sig) {
  const int saved = errno;
  for (int i = 0; i < TEMP_SLOTS; ++i)
    if (temp_live[i])
      (void)unlink(temp_paths[i]);
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  (void)sigaction(sig, &dfl, NULL);
  (void)raise(sig);
  errno = saved; /* only reached if the default action is to continue */
}

static void install_handlers_once(void) {
  static int installed = 0;
  if (installed)
    return;
  installed = 1;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGXFSZ, &sa, NULL);
  sa.sa_handler = remove_temps_and_reraise;
  sigfillset(&sa.sa_mask); /* one cleanup at a time */
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; ++i)
    if (sigaction(cleanup_signals[i], NULL, &old) == 0 &&
        old.sa_handler != SIG_IGN)
      (void)sigaction(cleanup_signals[i], &sa, NULL);
}

/* Block the cleanup signals in this thread (while a slot changes together
 * with the file it names), and restore the previous mask. */
static void block_cleanup_signals(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; ++i)
    sigaddset(&set, cleanup_signals[i]);
  (void)sigprocmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old) {
  (void)sigprocmask(SIG_SETMASK, old, NULL);
}

/* A free slot for path (-1: none, or the path does not fit: then only a
 * signal's cleanup is lost, never the file's normal cleanup). */
static int register_temp(const char *path) {
  if (strlen(path) >= PATH_MAX)
    return -1;
  for (int i = 0; i < TEMP_SLOTS; ++i)
    if (!temp_live[i]) {
      memcpy(temp_paths[i], path, strlen(path) + 1);
      temp_live[i] = 1;
      return i;
    }
  return -1;
}

static void unregister_temp(int slot) {
  if (slot >= 0)
    temp_live[slot] = 0;
}

static char *copy_string(const char *s) {
  const size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (c)
    memcpy(c, s, n);
  return c;
}

/* 0666 under the current umask: what open(O_CREAT, 0666) would give. */
static mode_t default_file_mode(void) {
  /* umask can only be read by setting it; this process is single-threaded
   * at this point (the CLI opens its output before it starts OpenCL). */
  const mode_t mask = umask(077);
  umask(mask);
  return 0666 & ~mask;
}

/*
 * Decide what to replace: an existing target must be a regular file (never
 * rename over a device, a FIFO or a directory: `--out /dev/stdout` run as
 * root would replace the device node); a symbolic link is followed, so that
 * the file it points to is replaced and the link kept. *final_path gets the
 * path to rename onto (heap), *mode the permission bits to give the file.
 */
static int resolve_target(const char *path, char **final_path, mode_t *mode,
                          char *err, size_t err_size) {
  struct stat st;
  if (stat(path, &st) != 0) {
    if (errno != ENOENT) {
      snprintf(err, err_size, "%s", strerror(errno));
      return -1;
    }
    /* Absent (or a dangling link, which is then replaced). */
    *mode = default_file_mode();
    *final_path = copy_string(path);
  } else if (!S_ISREG(st.st_mode)) {
    snprintf(err, err_size, "exists and is not a regular file");
    return -1;
  } else {
    *mode = st.st_mode & 07777;
    *final_path = realpath(path, NULL);
    if (!*final_path && errno != ENOMEM) {
      snprintf(err, err_size, "%s", strerror(errno));
      return -1;
    }
  }
  if (!*final_path) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  return 0;
}

/* "dir/.name.tmp-XXXXXX" for "dir/name" ("./.name..." without a slash). */
static char *temp_template(const char *path) {
  const char *slash = strrchr(path, '/');
  const size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  const char *base = path + dir_len;
  static const char suffix[] = ".tmp-XXXXXX";
  const size_t n = dir_len + 1 + strlen(base) + sizeof suffix;
  char *t = malloc(n);
  if (t) {
    memcpy(t, path, dir_len);
    t[dir_len] = '.';
    memcpy(t + dir_len + 1, base, strlen(base));
    memcpy(t + dir_len + 1 + strlen(base), suffix, sizeof suffix);
  }
  return t;
}

int atomic_file_open(atomic_file *af, const char *path, char *err,
                     size_t err_size) {
  memset(af, 0, sizeof *af);
  af->slot = -1;
  int fd = -1;
  mode_t mode = 0;
  const size_t len = strlen(path);
  if (len == 0 || path[len - 1] == '/') {
    snprintf(err, err_size, "not a file name");
    goto fail;
  }
  if (resolve_target(path, &af->final_path, &mode, err, err_size) != 0)
    goto fail;
  af->tmp_path = temp_template(af->final_path);
  if (!af->tmp_path) {
    snprintf(err, err_size, "out of memory");
    goto fail;
  }
  install_handlers_once();
  {
    /* The file and its slot come into being together. */
    sigset_t mask;
    block_cleanup_signals(&mask);
    fd = mkstemp(af->tmp_path);
    const int saved = errno;
    af->slot = fd >= 0 ? register_temp(af->tmp_path) : -1;
    restore_signals(&mask);
    errno = saved;
  }
  if (fd < 0) {
    snprintf(err, err_size, "cannot create a file in its directory: %s",
             strerror(errno));
    free(af->tmp_path); /* nothing was created: nothing to unlink */
    af->tmp_path = NULL;
    goto fail;
  }
  if (fchmod(fd, mode) != 0) {
    snprintf(err, err_size, "cannot set the mode of the temporary file: %s",
             strerror(errno));
    goto fail;
  }
  af->fp = fdopen(fd, "wb");
  if (!af->fp) {
    snprintf(err, err_size, "cannot open the temporary file: %s",
             strerror(errno));
    goto fail;
  }
  return 0;
fail:
  if (fd >= 0 && !af->fp)
    close(fd);
  atomic_file_abort(af);
  return -1;
}

/* Make the rename itself durable; best effort (not every file system lets a
 * directory be opened and synced, and the data is already safe). */
static void sync_parent_dir(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = NULL;
  if (slash) {
    const size_t n = slash == path ? 1 : (size_t)(slash - path);
    if (!(dir = malloc(n + 1)))
      return;
    memcpy(dir, path, n);
    dir[n] = '\0';
  }
  const int fd = open(dir ? dir : ".", O_RDONLY);
  if (fd >= 0) {
    (void)fsync(fd);
    close(fd);
  }
  free(dir);
}

int atomic_file_commit(atomic_file *af, char *err, size_t err_size) {
  if (!af->fp || !af->tmp_path) {
    snprintf(err, err_size, "no file open");
    return -1;
  }
  /* Every step can report a late write error (disk full, quota, NFS). */
  int failed = fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0;
  int saved = errno;
  if (fclose(af->fp) != 0 && !failed) {
    failed = 1;
    saved = errno;
  }
  af->fp = NULL;
  if (failed) {
    snprintf(err, err_size, "write failed: %s", strerror(saved));
    atomic_file_abort(af);
    return -1;
  }
  if (rename(af->tmp_path, af->final_path) != 0) {
    snprintf(err, err_size, "cannot rename the temporary file over it: %s",
             strerror(errno));
    atomic_file_abort(af);
    return -1;
  }
  unregister_temp(af->slot); /* after the rename: the name is gone now */
  af->slot = -1;
  free(af->tmp_path);
  af->tmp_path = NULL; /* it is the target now: abort must not unlink it */
  sync_parent_dir(af->final_path);
  atomic_file_abort(af);
  return 0;
}

void atomic_file_abort(atomic_file *af) {
  if (af->fp)
    fclose(af->fp);
  af->fp = NULL;
  if (af->tmp_path) {
    unlink(af->tmp_path);
    unregister_temp(af->slot); /* after the unlink: no window without both */
  }
  af->slot = -1;
  free(af->tmp_path);
  free(af->final_path);
  af->tmp_path = NULL;
  af->final_path = NULL;
}
