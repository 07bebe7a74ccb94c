/* The CPU thread pool: the one place that owns worker threads for compute.
 *
 * cuzk_parallel_for() splits [0, n) into chunks and runs them on the pool's
 * workers plus the calling thread; it blocks until all chunks are done. A call
 * made from inside a chunk runs serially on that thread, so library code may
 * call it at any depth. The pool starts lazily with cuzk_threads_count()
 * workers (default: online CPUs, or $CUZK_THREADS). */
#ifndef CUZK_THREADS_H
#define CUZK_THREADS_H

#include <stddef.h>
#include <stdint.h>

/* fn(ctx, begin, end, worker): process items [begin, end); worker is a stable
 * index < cuzk_threads_count() usable for per-thread scratch. */
typedef void (*cuzk_range_fn)(void *ctx, size_t begin, size_t end, unsigned worker);

/* Number of threads (including the caller) that parallel_for uses. */
unsigned cuzk_threads_count(void);

/* Set the thread count (>= 1). Must not be called while a parallel_for runs.
 * Blocks while old workers exit. */
void cuzk_threads_set(unsigned n);

/* Run fn over [0, n) in chunks of at least `grain` items. */
void cuzk_parallel_for(size_t n, size_t grain, cuzk_range_fn fn, void *ctx);

/* bad(ctx, i) is non-zero when item i fails a check. Returns the lowest
 * failing index in [0, n), or UINT64_MAX when none fails; the answer does not
 * depend on the thread count. Chunks stop early past a known failure. */
typedef int (*cuzk_index_pred)(void *ctx, uint64_t i);
uint64_t cuzk_parallel_first(uint64_t n, size_t grain, cuzk_index_pred bad, void *ctx);

/* Mark the calling thread's work urgent (on != 0) or not. An urgent caller
 * that finds the pool busy with another caller's job does not wait for it:
 * it runs its job on threads of its own (cuzk_threads_count() of them,
 * itself included), sharing the CPUs with the job in progress. For latency-
 * bound work (a WinningPoSt) next to long batch jobs. */
void cuzk_threads_urgent(int on);

/* Release the workers (optional; for leak checkers). */
void cuzk_threads_shutdown(void);

#endif
