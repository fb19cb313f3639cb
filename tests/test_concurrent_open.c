/*
 * test_concurrent_open.c - the first OpenCL use of a process, from several
 * threads released at the same instant: each creates an "auto" context
 * that opens its device (crossover 1) or a "cpu" context, and evaluates.
 * PoCL 3.1 crashes when its platform is initialised from several threads
 * at once (seen: 9 segfaults in 10 runs of four threads); fricl's lock
 * around device lookup and context creation must prevent it, since fricl
 * promises that separate contexts are independent. Nothing else may touch
 * OpenCL before the threads start, so this is its own program.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

#define OPENERS 8

static pthread_barrier_t g_start;
static int g_errors[OPENERS];
static char g_first[OPENERS][256];

static void *opener(void *arg) {
  const int index = (int)(intptr_t)arg;
  pthread_barrier_wait(&g_start);
  fricl_context_params p;
  fricl_context_params_init(&p);
  p.device = index % 2 ? "cpu" : "auto";
  p.auto_crossover = 1;
  char err[256] = "";
  p.error_buffer = err;
  p.error_buffer_size = sizeof err;
  fricl_context *ctx = NULL;
  fricl_status st = fricl_context_create(&ctx, &p);
  if (st == FRICL_STATUS_OK) {
    float y[2] = {1e-4f, 3e-3f}, f[2];
    fricl_scalar_batch b;
    fricl_scalar_batch_init(&b);
    b.precision = FRICL_F32;
    b.n = 2;
    b.y = y;
    b.eps_v = 1e-3;
    b.out[FRICL_SMOOTH_FRICTION_F1] = f;
    st = fricl_scalar_eval(ctx, &b);
    if (st != FRICL_STATUS_OK)
      snprintf(err, sizeof err, "%s", fricl_context_last_error(ctx));
    else if (fricl_context_last_backend(ctx) != FRICL_BACKEND_OPENCL) {
      st = FRICL_STATUS_INTERNAL;
      snprintf(err, sizeof err, "ran on %s, not on the device",
               fricl_backend_name(fricl_context_last_backend(ctx)));
    }
    fricl_context_destroy(ctx);
  }
  if (st != FRICL_STATUS_OK) {
    ++g_errors[index];
    snprintf(g_first[index], sizeof g_first[index], "%.40s: %.200s",
             fricl_status_string(st), err);
  }
  return NULL;
}

/* Whether an OpenCL device exists, asked in a child process: asking here
 * would initialise the runtime before the threads. */
static int have_device(void) {
  const pid_t pid = fork();
  if (pid == 0) {
    size_t count = 0;
    fricl_devices_list(NULL, 0, &count);
    _exit(count > 0 ? 0 : 1);
  }
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

int main(void) {
  if (!have_device()) {
    printf("test_concurrent_open: no OpenCL device: skipped\n");
    return 77;
  }
  pthread_barrier_init(&g_start, NULL, OPENERS);
  pthread_t th[OPENERS];
  int started[OPENERS];
  for (int i = 0; i < OPENERS; ++i)
    started[i] = pthread_create(&th[i], NULL, opener, (void *)(intptr_t)i) == 0;
  for (int i = 0; i < OPENERS; ++i) {
    CHECK(started[i], "pthread_create %d", i);
    if (started[i])
      pthread_join(th[i], NULL);
    CHECK(g_errors[i] == 0, "thread %d (%s): %s", i, i % 2 ? "cpu" : "auto",
          g_first[i]);
  }
  pthread_barrier_destroy(&g_start);
  return test_report("test_concurrent_open");
}
