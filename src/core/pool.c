/* pool.c - the context's host threads (see pool.h). POSIX threads: the
 * workers sleep on a condition variable between runs; a run publishes its
 * pieces under the mutex, the caller runs its own and then those no worker
 * has taken yet, and waits until every taken piece has finished. */
#define _GNU_SOURCE
#include "core/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/fault.h"

#define MAX_PIECES 256

struct fricl__pool {
  unsigned threads;
  unsigned started; /* workers running (threads - 1 once started) */
  pthread_t *tids;
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  unsigned long generation; /* bumped by every run */
  int quit;
  /* The current run. */
  fricl__range_fn fn;
  void *arg;
  size_t cuts[MAX_PIECES + 1];
  unsigned char claimed[MAX_PIECES]; /* a piece taken, by its worker or by
                                        the caller */
  unsigned pieces;
  unsigned pending; /* worker pieces not yet finished */
};

typedef struct {
  fricl__pool *pool;
  unsigned index; /* 1 .. threads-1 */
} worker_arg;

static void *worker_main(void *p) {
  worker_arg wa = *(worker_arg *)p;
  free(p);
  fricl__pool *pool = wa.pool;
  unsigned long seen = 0;
  pthread_mutex_lock(&pool->mu);
  for (;;) {
    while (!pool->quit && pool->generation == seen)
      pthread_cond_wait(&pool->wake, &pool->mu);
    if (pool->quit)
      break;
    seen = pool->generation;
    if (wa.index >= pool->pieces || pool->claimed[wa.index])
      continue; /* not ours, or the caller ran it while we slept */
    pool->claimed[wa.index] = 1;
    const fricl__range_fn fn = pool->fn;
    void *arg = pool->arg;
    const size_t lo = pool->cuts[wa.index], hi = pool->cuts[wa.index + 1];
    pthread_mutex_unlock(&pool->mu);
    if (lo < hi)
      fn(arg, lo, hi, wa.index);
    pthread_mutex_lock(&pool->mu);
    if (--pool->pending == 0)
      pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->mu);
  return NULL;
}

unsigned fricl__cpu_count(void) {
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int c = CPU_COUNT(&set);
    if (c > 0)
      return (unsigned)c;
  }
#endif
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1u;
}

fricl__pool *fricl__pool_create(unsigned threads) {
  fricl__pool *pool = fricl__calloc(1, sizeof *pool);
  if (!pool)
    return NULL;
  pool->threads = threads < 1 ? 1 : threads > MAX_PIECES ? MAX_PIECES : threads;
  pthread_mutex_init(&pool->mu, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  return pool;
}

unsigned fricl__pool_threads(const fricl__pool *pool) {
  return pool ? pool->threads : 1u;
}

/* Start the workers on first use. This cannot fail a call: when memory or
 * a thread is not available, the run goes on with the workers that
 * started (the caller takes the missing pieces), so these allocations are
 * not among the fault-injection hooks' fallible operations. */
static void start_workers(fricl__pool *pool) {
  if (pool->started || pool->threads < 2 || pool->tids)
    return;
  pool->tids = calloc(pool->threads, sizeof *pool->tids);
  if (!pool->tids)
    return;
  for (unsigned i = 1; i < pool->threads; ++i) {
    worker_arg *wa = malloc(sizeof *wa);
    if (!wa)
      break;
    wa->pool = pool;
    wa->index = i;
    if (pthread_create(&pool->tids[i - 1], NULL, worker_main, wa) != 0) {
      free(wa);
      break;
    }
    pool->started++;
  }
}

void fricl__pool_destroy(fricl__pool *pool) {
  if (!pool)
    return;
  pthread_mutex_lock(&pool->mu);
  pool->quit = 1;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mu);
  for (unsigned i = 0; i < pool->started; ++i)
    pthread_join(pool->tids[i], NULL);
  free(pool->tids);
  pthread_cond_destroy(&pool->wake);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->mu);
  free(pool);
}

void fricl__pool_run_cuts(fricl__pool *pool, const size_t *cuts,
                          unsigned pieces, fricl__range_fn fn, void *arg) {
  if (!pool || pieces <= 1 || pool->threads < 2) {
    if (pieces >= 1 && cuts[0] < cuts[pieces])
      fn(arg, cuts[0], cuts[pieces], 0);
    return;
  }
  if (pieces > pool->threads)
    pieces = pool->threads;
  start_workers(pool);
  /* Pieces no worker can take (workers that failed to start) run on the
   * caller after its own. */
  const unsigned workers = pool->started + 1;
  const unsigned shared = pieces < workers ? pieces : workers;
  pthread_mutex_lock(&pool->mu);
  pool->fn = fn;
  pool->arg = arg;
  for (unsigned t = 0; t <= pieces; ++t)
    pool->cuts[t] = cuts[t];
  for (unsigned t = 0; t < shared; ++t)
    pool->claimed[t] = 0;
  pool->pieces = shared;
  pool->pending = shared - 1;
  pool->generation++;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mu);
  if (cuts[0] < cuts[1])
    fn(arg, cuts[0], cuts[1], 0);
  for (unsigned t = shared; t < pieces; ++t)
    if (cuts[t] < cuts[t + 1])
      fn(arg, cuts[t], cuts[t + 1], t);
  /* A worker not yet running its piece (asleep, or waiting for a core on
   * a loaded machine) would hold the whole call up: the caller takes such
   * pieces itself. Each piece still runs once, on its range, with its
   * index, so the results are the same whoever runs it. */
  pthread_mutex_lock(&pool->mu);
  for (unsigned t = 1; t < shared; ++t) {
    if (pool->claimed[t])
      continue;
    pool->claimed[t] = 1;
    pthread_mutex_unlock(&pool->mu);
    if (cuts[t] < cuts[t + 1])
      fn(arg, cuts[t], cuts[t + 1], t);
    pthread_mutex_lock(&pool->mu);
    pool->pending--;
  }
  while (pool->pending > 0)
    pthread_cond_wait(&pool->done, &pool->mu);
  pthread_mutex_unlock(&pool->mu);
}

void fricl__pool_for(fricl__pool *pool, size_t n, size_t grain, size_t align,
                     fricl__range_fn fn, void *arg) {
  if (n == 0)
    return;
  const unsigned threads = fricl__pool_threads(pool);
  if (grain < 1)
    grain = 1;
  if (align < 1)
    align = 1;
  size_t pieces = n / grain;
  if (pieces > threads)
    pieces = threads;
  if (pieces <= 1) {
    fn(arg, 0, n, 0);
    return;
  }
  size_t cuts[MAX_PIECES + 1];
  cuts[0] = 0;
  for (size_t t = 1; t < pieces; ++t) {
    /* t * n / pieces without overflow, rounded down to the alignment. */
    size_t c = (n / pieces) * t + (n % pieces) * t / pieces;
    c -= c % align;
    cuts[t] = c < cuts[t - 1] ? cuts[t - 1] : c;
  }
  cuts[pieces] = n;
  fricl__pool_run_cuts(pool, cuts, (unsigned)pieces, fn, arg);
}
