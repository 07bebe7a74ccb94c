/* The memory accountant: one byte budget for the large buffers of the
 * engine (witnesses, a/b/c vectors), and what the process really holds.
 *
 * Work is admitted by reservation: a caller that is about to build a
 * partition's working set reserves its profile (the bytes it will allocate
 * at most) and gets it only when reservations plus the bytes other owners
 * report (the resident SRS, `other`) stay within the budget; otherwise it
 * waits and tries again later, so overload queues instead of reaching the
 * OOM killer. The buffers themselves are then allocated through
 * cuzk_mem_alloc, which counts them, so the accountant also knows the
 * allocated truth and its peak. A sampler thread (optional) reads the
 * process RSS from /proc and keeps its peak.
 *
 * All calls are thread-safe and never block, except cuzk_mem_free, which
 * joins the sampler. */
#ifndef CUZK_MEM_H
#define CUZK_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

typedef struct cuzk_mem cuzk_mem;

/* What memory.budget promises: the process's resident set, sampled at any
 * moment, stays within the budget plus this margin. The budget counts the
 * resident SRS (parsed copy and PCE, also while loading) and every large
 * buffer of the work admitted (witnesses, a, b, c, the prover's scratch,
 * generating a synthetic circuit); the margin covers what is not counted:
 * code, thread stacks, small allocations, the few MiB of a parameter file
 * mapped while it is read, allocator slack. */
#define CUZK_MEM_MARGIN ((uint64_t)64 << 20)

/* budget: bytes, 0 = unlimited. sample_ms > 0 starts the RSS sampler at that
 * interval. */
cuzk_err cuzk_mem_new(uint64_t budget, unsigned sample_ms, cuzk_mem **out);
void cuzk_mem_free(cuzk_mem *m);

/* Reserve `bytes` if reserved + other + bytes <= budget (or no budget):
 * returns 1 and counts it, else 0 and changes nothing. */
int cuzk_mem_try_reserve(cuzk_mem *m, uint64_t bytes, uint64_t other);
void cuzk_mem_unreserve(cuzk_mem *m, uint64_t bytes);
/* Whether try_reserve(bytes, other) would succeed now (changes nothing). */
int cuzk_mem_fits(cuzk_mem *m, uint64_t bytes, uint64_t other);

/* malloc (zeroed when zero != 0) counted as allocated; ENOMEM with a
 * message naming `what` when the system refuses. Release with the same
 * size. */
cuzk_err cuzk_mem_alloc(cuzk_mem *m, size_t bytes, int zero, const char *what, void **out);
void cuzk_mem_release(cuzk_mem *m, void *p, size_t bytes);
/* Count (or uncount) bytes that other code allocated on the caller's
 * behalf (a parser's output, say). */
void cuzk_mem_charge(cuzk_mem *m, uint64_t bytes);
void cuzk_mem_uncharge(cuzk_mem *m, uint64_t bytes);

typedef struct {
    uint64_t budget;
    uint64_t reserved, peak_reserved;
    uint64_t allocated, peak_allocated;
    uint64_t rss, peak_rss;        /* peak_rss: sampled (0 without the sampler) */
    uint64_t admissions, refusals; /* try_reserve outcomes */
} cuzk_mem_stats;
void cuzk_mem_stats_get(cuzk_mem *m, cuzk_mem_stats *out);

/* Make the C library's allocator give big buffers back when they are
 * freed, so that what the accountant counts is what stays resident: blocks
 * of 1 MiB and more are always mapped apart from the heap (glibc's default
 * threshold rises up to 32 MiB after the first big free, after which such
 * buffers come from the heap and their pages may stay there once freed),
 * and heap tops above 1 MiB are trimmed; free heap pages held so far go
 * back too (cuzk_mem_trim). Process-wide and idempotent; cuzk_jobs_new
 * calls it. */
void cuzk_mem_tune_allocator(void);
/* Give the free pages inside the allocator's heaps back to the system
 * (after work that made many small allocations, such as building a
 * circuit). */
void cuzk_mem_trim(void);

/* The process's resident set (bytes, /proc/self/statm), 0 when unknown. */
uint64_t cuzk_mem_rss(void);
/* The peak of that resident set over the process's life, as the kernel
 * keeps it (VmHWM of /proc/self/status, bytes), 0 when unknown. */
uint64_t cuzk_mem_peak_rss(void);
/* MemAvailable of /proc/meminfo (bytes), 0 when unknown. */
uint64_t cuzk_mem_available(void);

#endif
