/* The memory accountant (mem.h): counters under one mutex, and a sampler
 * thread that wakes every sample_ms to read the RSS. The counters are what
 * admission decides on; the RSS is the check that the decisions hold. */
#define _GNU_SOURCE
#include "cuzk/mem.h"

#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct cuzk_mem {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    cuzk_mem_stats st;
    unsigned sample_ms;
    int stop, sampler_started;
    pthread_t sampler;
};

uint64_t cuzk_mem_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    unsigned long long size = 0, rss = 0;
    if (fscanf(f, "%llu %llu", &size, &rss) != 2)
        rss = 0;
    fclose(f);
    return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

void cuzk_mem_tune_allocator(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 20);
#endif
    cuzk_mem_trim();
}

void cuzk_mem_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* The "<key>: N kB" line of a /proc file, in bytes (0 when absent). */
static uint64_t proc_kb(const char *path, const char *key_fmt)
{
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, key_fmt, &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kb * 1024;
}

uint64_t cuzk_mem_available(void)
{
    return proc_kb("/proc/meminfo", "MemAvailable: %llu kB");
}

uint64_t cuzk_mem_peak_rss(void)
{
    return proc_kb("/proc/self/status", "VmHWM: %llu kB");
}

static void *sampler_main(void *arg)
{
    cuzk_mem *m = arg;
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        pthread_mutex_unlock(&m->mu);
        uint64_t rss = cuzk_mem_rss();
        pthread_mutex_lock(&m->mu);
        m->st.rss = rss;
        if (rss > m->st.peak_rss)
            m->st.peak_rss = rss;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += (long)m->sample_ms * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        if (!m->stop)
            pthread_cond_timedwait(&m->cv, &m->mu, &ts);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

cuzk_err cuzk_mem_new(uint64_t budget, unsigned sample_ms, cuzk_mem **out)
{
    *out = NULL;
    cuzk_mem *m = calloc(1, sizeof *m);
    if (!m)
        return cuzk_fail(CUZK_ENOMEM, "memory accountant: out of memory");
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    m->st.budget = budget;
    m->st.rss = m->st.peak_rss = cuzk_mem_rss();
    m->sample_ms = sample_ms;
    if (sample_ms) {
        if (pthread_create(&m->sampler, NULL, sampler_main, m) != 0) {
            cuzk_mem_free(m);
            return cuzk_fail(CUZK_EINTERNAL, "memory accountant: cannot start the RSS sampler");
        }
        m->sampler_started = 1;
    }
    *out = m;
    return CUZK_OK;
}

void cuzk_mem_free(cuzk_mem *m)
{
    if (!m)
        return;
    if (m->sampler_started) {
        pthread_mutex_lock(&m->mu);
        m->stop = 1;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
        pthread_join(m->sampler, NULL);
    }
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cv);
    free(m);
}

static int fits_locked(const cuzk_mem *m, uint64_t bytes, uint64_t other)
{
    return !m->st.budget || (m->st.reserved + other <= m->st.budget &&
                             bytes <= m->st.budget - m->st.reserved - other);
}

int cuzk_mem_fits(cuzk_mem *m, uint64_t bytes, uint64_t other)
{
    pthread_mutex_lock(&m->mu);
    int ok = fits_locked(m, bytes, other);
    pthread_mutex_unlock(&m->mu);
    return ok;
}

int cuzk_mem_try_reserve(cuzk_mem *m, uint64_t bytes, uint64_t other)
{
    pthread_mutex_lock(&m->mu);
    int ok = fits_locked(m, bytes, other);
    if (ok) {
        m->st.reserved += bytes;
        if (m->st.reserved > m->st.peak_reserved)
            m->st.peak_reserved = m->st.reserved;
        m->st.admissions++;
    } else {
        m->st.refusals++;
    }
    pthread_mutex_unlock(&m->mu);
    return ok;
}

void cuzk_mem_unreserve(cuzk_mem *m, uint64_t bytes)
{
    pthread_mutex_lock(&m->mu);
    m->st.reserved = bytes > m->st.reserved ? 0 : m->st.reserved - bytes;
    pthread_mutex_unlock(&m->mu);
}

void cuzk_mem_charge(cuzk_mem *m, uint64_t bytes)
{
    pthread_mutex_lock(&m->mu);
    m->st.allocated += bytes;
    if (m->st.allocated > m->st.peak_allocated)
        m->st.peak_allocated = m->st.allocated;
    pthread_mutex_unlock(&m->mu);
}

void cuzk_mem_uncharge(cuzk_mem *m, uint64_t bytes)
{
    pthread_mutex_lock(&m->mu);
    m->st.allocated = bytes > m->st.allocated ? 0 : m->st.allocated - bytes;
    pthread_mutex_unlock(&m->mu);
}

cuzk_err cuzk_mem_alloc(cuzk_mem *m, size_t bytes, int zero, const char *what, void **out)
{
    *out = zero ? calloc(1, bytes ? bytes : 1) : malloc(bytes ? bytes : 1);
    if (!*out)
        return cuzk_fail(CUZK_ENOMEM, "out of memory allocating %zu bytes for %s", bytes, what);
    cuzk_mem_charge(m, bytes);
    return CUZK_OK;
}

void cuzk_mem_release(cuzk_mem *m, void *p, size_t bytes)
{
    if (!p)
        return;
    free(p);
    cuzk_mem_uncharge(m, bytes);
}

void cuzk_mem_stats_get(cuzk_mem *m, cuzk_mem_stats *out)
{
    pthread_mutex_lock(&m->mu);
    *out = m->st;
    pthread_mutex_unlock(&m->mu);
    if (!m->sampler_started) {
        out->rss = cuzk_mem_rss();
        if (out->rss > out->peak_rss)
            out->peak_rss = out->rss;
    }
}
