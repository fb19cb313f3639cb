/*
 * pool.h - the context's host threads: a small fork-join pool that runs a
 * range as pieces, each piece once, with its index. Pieces are claimed
 * dynamically (an atomic counter) by the calling thread and the workers
 * alike, so that a sleeping worker, or one waiting for a core on a loaded
 * machine, does not hold the call up: the caller takes every piece no
 * running thread has claimed, and waits only for pieces already started.
 * The split depends only on the range, the grain and the thread count
 * (never on which thread runs what), and every caller writes disjoint
 * outputs per piece or reduces in a fixed order afterwards, so results
 * never depend on scheduling (nor, for everything fricl computes, on the
 * thread count).
 */
#ifndef FRICL_CORE_POOL_H
#define FRICL_CORE_POOL_H

#include <stddef.h>

typedef struct fricl__pool fricl__pool;

/* Work on [lo, hi); `worker` is the piece's index, 0 .. pieces-1, unique
 * within a run (per-piece scratch). */
typedef void (*fricl__range_fn)(void *arg, size_t lo, size_t hi,
                                unsigned worker);

/* A pool of `threads` (>= 1) host threads, the caller included; the others
 * start on the first parallel run. NULL when out of memory. */
fricl__pool *fricl__pool_create(unsigned threads);
void fricl__pool_destroy(fricl__pool *pool);
unsigned fricl__pool_threads(const fricl__pool *pool);

/* Run fn over [0, n): inline on the caller when n <= grain or the pool has
 * one thread, else split into min(threads, ceil(n / grain)) pieces whose
 * boundaries are multiples of `align` (>= 1). Returns when all are done.
 * Not reentrant: fn must not call fricl__pool_for on the same pool. */
void fricl__pool_for(fricl__pool *pool, size_t n, size_t grain, size_t align,
                     fricl__range_fn fn, void *arg);

/* The same with smaller pieces, for functions that keep no per-piece
 * scratch (the piece index is then only an index): the threads engaged
 * are as in fricl__pool_for, min(threads, ceil(n / grain)), and the range
 * is split into up to FRICL__POOL_PIECES_PER_THREAD pieces per engaged
 * thread, each at least `min_piece` items (and a multiple of `align`), so
 * that a thread descheduled in the middle of a piece holds the call up
 * only by that small piece. */
#define FRICL__POOL_PIECES_PER_THREAD 8
void fricl__pool_for_dynamic(fricl__pool *pool, size_t n, size_t grain,
                             size_t min_piece, size_t align, fricl__range_fn fn,
                             void *arg);

/* The same over [0, n) split at caller-chosen boundaries: piece t covers
 * [cuts[t], cuts[t + 1]), t < pieces <= 256 (weighted splits, e.g. by
 * list lengths), on min(pieces, threads) threads; pieces beyond the
 * thread count are claimed dynamically like those of
 * fricl__pool_for_dynamic. */
void fricl__pool_run_cuts(fricl__pool *pool, const size_t *cuts,
                          unsigned pieces, fricl__range_fn fn, void *arg);

/* Online cores of this process (affinity mask), at least 1. */
unsigned fricl__cpu_count(void);

#endif
