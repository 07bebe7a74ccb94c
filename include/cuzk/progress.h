/* Progress of long work (parameter generation, preloading, batches): a
 * reporter that prints the percentage done, the rate and the time left, at
 * most every 2 seconds, and a callback type through which long library
 * functions report how far they are and can be told to stop.
 *
 * Where the lines go (cuzk_progress_mode):
 *   TTY    one line rewritten in place ("\r"), a newline at the end;
 *   LINES  whole lines, for pipes, files and logs kept by scripts;
 *   LOG    through the process logger (CUZK_INFO), for the daemon;
 *   OFF    nothing;
 *   AUTO   TTY when the stream is a terminal (isatty), LINES otherwise; the
 *          environment variable CUZK_PROGRESS=tty|lines|off overrides it.
 * A line reads
 *   "setup: 42.0% (1048576/2496512 points), 87.3 k points/s, ETA 16 s"
 * and the last one, printed by cuzk_progress_finish when any line was
 * printed before, "setup: 100% (2496512 points) in 28.6 s, 87.3 k points/s"
 * (or "setup: stopped at 42.0% (...) after 12.0 s" short of the total).
 * Work that ends within the first interval prints nothing. */
#ifndef CUZK_PROGRESS_H
#define CUZK_PROGRESS_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/err.h"

/* How far a long operation is: `done` of `total` units (total may grow as
 * the work learns its size; done never decreases). Called from the thread
 * that runs the operation, never concurrently for one operation, at a
 * modest frequency (not per item). A non-zero return asks the operation to
 * stop: it cleans up what it made (temporary files included) and fails
 * with CUZK_ECANCELLED. The callback must be quick: it runs inside the
 * work. */
typedef int (*cuzk_progress_fn)(void *ctx, uint64_t done, uint64_t total);

typedef enum {
    CUZK_PROGRESS_AUTO = 0,
    CUZK_PROGRESS_TTY,
    CUZK_PROGRESS_LINES,
    CUZK_PROGRESS_LOG,
    CUZK_PROGRESS_OFF,
} cuzk_progress_mode;

typedef struct cuzk_progress cuzk_progress;

/* A reporter for `label` (copied), `total` units named `unit` (copied; e.g.
 * "points", "proofs"; total may be 0 when not known yet), printing to
 * `stream` (NULL: stderr; unused in LOG mode). ENOMEM only. */
cuzk_err cuzk_progress_open(cuzk_progress **out, const char *label, uint64_t total,
                            const char *unit, FILE *stream, cuzk_progress_mode mode);
/* Record that `done` units are done (absolute, not an increment). Prints a
 * line when the interval has passed since the last one. Thread-safe. */
void cuzk_progress_update(cuzk_progress *p, uint64_t done);
/* Change the total (work whose size is known late). Thread-safe. */
void cuzk_progress_set_total(cuzk_progress *p, uint64_t total);
/* Seconds between lines (default 2; 0 prints on every update: tests). */
void cuzk_progress_set_interval(cuzk_progress *p, double seconds);
/* Have cuzk_progress_callback return non-zero once *stop is non-zero (a
 * flag set by a signal handler, say); NULL forgets it. */
void cuzk_progress_watch(cuzk_progress *p, const volatile sig_atomic_t *stop);
/* A cuzk_progress_fn over a reporter (ctx is the cuzk_progress *): updates
 * it and returns the watched flag (0 without one). */
int cuzk_progress_callback(void *ctx, uint64_t done, uint64_t total);
/* The closing line (see above), then the reporter is freed. NULL is a
 * no-op. */
void cuzk_progress_finish(cuzk_progress *p);
/* The mode AUTO resolves to for `stream` (NULL: stderr): never AUTO. */
cuzk_progress_mode cuzk_progress_resolve(cuzk_progress_mode mode, FILE *stream);

#endif
