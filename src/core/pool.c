/* pool.c - the context's host threads (see pool.h). POSIX threads: the
 * workers sleep on a condition variable between runs. A run publishes its
 * pieces under the mutex and opens; the caller and every worker that joins
 * while the run is open claim pieces from an atomic counter until none is
 * left; the caller then waits for the workers that joined and closes the
 * run under the mutex, so a worker that wakes late joins nothing. */
#define _GNU_SOURCE
#include "core/pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/fault.h"

#define MAX_PIECES 256
/* Pause-loop iterations the caller spins (tens of microseconds) before it
 * sleeps waiting for the workers' last pieces. */
#define SPIN_WAIT 1000

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

struct fricl__pool {
  unsigned threads;
  unsigned started; /* workers running (threads - 1 once started) */
  pthread_t *tids;
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  unsigned long generation; /* bumped by every run */
  int quit;
  /* The current run: set under the mutex before it opens, constant while
   * it is open. */
  int open;         /* workers may join */
  unsigned engaged; /* workers with index < engaged may join */
  fricl__range_fn fn;
  void *arg;
  size_t cuts[MAX_PIECES + 1];
  unsigned pieces;
  atomic_uint next;   /* the next piece to claim */
  atomic_uint active; /* workers that joined and have not left (changed
                         under the mutex; read without it to spin) */
};

typedef struct {
  fricl__pool *pool;
  unsigned index; /* 1 .. threads-1 */
} worker_arg;

/* Claim and run pieces of the open run until none is left. */
static void claim_pieces(fricl__pool *pool, fricl__range_fn fn, void *arg,
                         unsigned pieces) {
  for (;;) {
    const unsigned t =
        atomic_fetch_add_explicit(&pool->next, 1u, memory_order_relaxed);
    if (t >= pieces)
      return;
    if (pool->cuts[t] < pool->cuts[t + 1])
      fn(arg, pool->cuts[t], pool->cuts[t + 1], t);
  }
}

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
    if (!pool->open || wa.index >= pool->engaged)
      continue; /* finished before we woke, or not ours to join */
    atomic_fetch_add_explicit(&pool->active, 1u, memory_order_relaxed);
    const fricl__range_fn fn = pool->fn;
    void *arg = pool->arg;
    const unsigned pieces = pool->pieces;
    pthread_mutex_unlock(&pool->mu);
    claim_pieces(pool, fn, arg, pieces);
    pthread_mutex_lock(&pool->mu);
    if (atomic_fetch_sub_explicit(&pool->active, 1u, memory_order_release) ==
        1u)
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
  atomic_init(&pool->next, 0u);
  atomic_init(&pool->active, 0u);
  return pool;
}

unsigned fricl__pool_threads(const fricl__pool *pool) {
  return pool ? pool->threads : 1u;
}

/* Start the workers on first use. This cannot fail a call: when memory or
 * a thread is not available, the run goes on with the workers that
 * started (the caller takes the pieces nobody else claims), so these
 * allocations are not among the fault-injection hooks' fallible
 * operations. */
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

/* Run pieces [cuts[t], cuts[t + 1]), t < pieces <= MAX_PIECES, on the
 * caller and on up to engaged - 1 workers (engaged >= 2, <= threads). */
static void run_pieces(fricl__pool *pool, const size_t *cuts, unsigned pieces,
                       unsigned engaged, fricl__range_fn fn, void *arg) {
  start_workers(pool);
  pthread_mutex_lock(&pool->mu);
  pool->fn = fn;
  pool->arg = arg;
  for (unsigned t = 0; t <= pieces; ++t)
    pool->cuts[t] = cuts[t];
  pool->pieces = pieces;
  pool->engaged = engaged;
  atomic_store_explicit(&pool->next, 0u, memory_order_relaxed);
  pool->open = 1;
  pool->generation++;
  /* A worker that has not started (memory or threads were short) never
   * joins: the caller claims what nobody else does. */
  if (pool->started)
    pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mu);
  claim_pieces(pool, fn, arg, pieces);
  /* Every piece is claimed: wait for those that workers are running. A
   * worker that joins from now on finds none and leaves at once. Their
   * last pieces mostly end within microseconds: spin a little first (a
   * caller asleep on the condition variable needs a wake-up, which on a
   * loaded machine can take a scheduler tick). */
  for (int i = 0; i < SPIN_WAIT &&
                  atomic_load_explicit(&pool->active, memory_order_acquire);
       ++i)
    cpu_relax();
  pthread_mutex_lock(&pool->mu);
  while (atomic_load_explicit(&pool->active, memory_order_relaxed) > 0)
    pthread_cond_wait(&pool->done, &pool->mu);
  pool->open = 0;
  pthread_mutex_unlock(&pool->mu);
}

void fricl__pool_run_cuts(fricl__pool *pool, const size_t *cuts,
                          unsigned pieces, fricl__range_fn fn, void *arg) {
  if (!pool || pieces <= 1 || pool->threads < 2) {
    if (pieces >= 1 && cuts[0] < cuts[pieces])
      fn(arg, cuts[0], cuts[pieces], 0);
    return;
  }
  if (pieces > MAX_PIECES) /* documented: pieces <= 256 */
    pieces = MAX_PIECES;
  run_pieces(pool, cuts, pieces,
             pieces < pool->threads ? pieces : pool->threads, fn, arg);
}

/* cuts[0 .. pieces] of [0, n): t n / pieces rounded down to the
 * alignment, never decreasing. */
static void even_cuts(size_t n, size_t pieces, size_t align, size_t *cuts) {
  cuts[0] = 0;
  for (size_t t = 1; t < pieces; ++t) {
    /* t * n / pieces without overflow, rounded down to the alignment. */
    size_t c = (n / pieces) * t + (n % pieces) * t / pieces;
    c -= c % align;
    cuts[t] = c < cuts[t - 1] ? cuts[t - 1] : c;
  }
  cuts[pieces] = n;
}

void fricl__pool_for(fricl__pool *pool, size_t n, size_t grain, size_t align,
                     fricl__range_fn fn, void *arg) {
  fricl__pool_for_dynamic(pool, n, grain, SIZE_MAX, align, fn, arg);
}

void fricl__pool_for_dynamic(fricl__pool *pool, size_t n, size_t grain,
                             size_t min_piece, size_t align, fricl__range_fn fn,
                             void *arg) {
  if (n == 0)
    return;
  const unsigned threads = fricl__pool_threads(pool);
  if (grain < 1)
    grain = 1;
  if (align < 1)
    align = 1;
  size_t engaged = n / grain;
  if (engaged > threads)
    engaged = threads;
  if (engaged <= 1) {
    fn(arg, 0, n, 0);
    return;
  }
  /* SIZE_MAX (fricl__pool_for): one piece per engaged thread. */
  size_t pieces = engaged;
  if (min_piece != SIZE_MAX) {
    if (min_piece < align)
      min_piece = align;
    pieces = engaged * FRICL__POOL_PIECES_PER_THREAD;
    if (pieces > MAX_PIECES)
      pieces = MAX_PIECES;
    if (pieces > n / min_piece)
      pieces = n / min_piece;
    if (pieces < engaged)
      pieces = engaged;
  }
  size_t cuts[MAX_PIECES + 1];
  even_cuts(n, pieces, align, cuts);
  run_pieces(pool, cuts, (unsigned)pieces, (unsigned)engaged, fn, arg);
}
