/* The progress reporter of progress.h: a mutex-protected counter that turns
 * into a line when the interval has passed. Rates and ETAs are over the
 * whole run so far (steady work; no smoothing needed). */
#include "cuzk/progress.h"
#include "cuzk/log.h"
#include "cuzk/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cuzk_progress {
    pthread_mutex_t lock;
    char *label, *unit;
    FILE *f;
    cuzk_progress_mode mode;
    uint64_t total, done;
    double t0, last, interval;
    int printed, width; /* width: the last TTY line, to blank what is left of it */
    const volatile sig_atomic_t *stop;
};

cuzk_progress_mode cuzk_progress_resolve(cuzk_progress_mode mode, FILE *stream)
{
    if (mode != CUZK_PROGRESS_AUTO)
        return mode;
    const char *env = getenv("CUZK_PROGRESS");
    if (env && !strcmp(env, "tty"))
        return CUZK_PROGRESS_TTY;
    if (env && !strcmp(env, "lines"))
        return CUZK_PROGRESS_LINES;
    if (env && !strcmp(env, "off"))
        return CUZK_PROGRESS_OFF;
    return isatty(fileno(stream ? stream : stderr)) ? CUZK_PROGRESS_TTY : CUZK_PROGRESS_LINES;
}

cuzk_err cuzk_progress_open(cuzk_progress **out, const char *label, uint64_t total,
                            const char *unit, FILE *stream, cuzk_progress_mode mode)
{
    cuzk_progress *p = calloc(1, sizeof *p);
    if (p) {
        p->label = strdup(label ? label : "");
        p->unit = strdup(unit ? unit : "");
    }
    if (!p || !p->label || !p->unit) {
        if (p) {
            free(p->label);
            free(p->unit);
        }
        free(p);
        return cuzk_fail(CUZK_ENOMEM, "progress: out of memory");
    }
    pthread_mutex_init(&p->lock, NULL);
    p->f = stream ? stream : stderr;
    p->mode = cuzk_progress_resolve(mode, p->f);
    p->total = total;
    p->t0 = p->last = cuzk_now();
    p->interval = 2.0;
    *out = p;
    return CUZK_OK;
}

/* "1.5 k ", "12.0 M ", "3.0 ": a rate with its SI prefix, before a unit. */
static void si(char *buf, size_t n, double v)
{
    static const char *const pre[] = {"", "k ", "M ", "G ", "T "};
    int i = 0;
    while (v >= 1000 && i < 4)
        v /= 1000, i++;
    snprintf(buf, n, "%.1f %s", v, pre[i]);
}

static void emit(cuzk_progress *p, const char *line)
{
    switch (p->mode) {
    case CUZK_PROGRESS_TTY: {
        int len = (int)strlen(line);
        fprintf(p->f, "\r%s%*s", line, p->width > len ? p->width - len : 0, "");
        p->width = len;
        break;
    }
    case CUZK_PROGRESS_LINES: fprintf(p->f, "%s\n", line); break;
    case CUZK_PROGRESS_LOG: CUZK_INFO("%s", line); break;
    default: return;
    }
    fflush(p->f);
    p->printed = 1;
}

/* A progress line for the state now; the caller holds the lock. */
static void report(cuzk_progress *p, double now)
{
    char line[512], rate[32];
    double el = now - p->t0, r = el > 0 ? (double)p->done / el : 0;
    si(rate, sizeof rate, r);
    if (p->total) {
        double pct = 100.0 * (double)p->done / (double)p->total;
        int n = snprintf(line, sizeof line, "%s: %.1f%% (%llu/%llu %s), %s%s/s", p->label, pct,
                         (unsigned long long)p->done, (unsigned long long)p->total, p->unit, rate,
                         p->unit);
        if (r > 0 && p->done < p->total && n > 0 && (size_t)n < sizeof line)
            snprintf(line + n, sizeof line - (size_t)n, ", ETA %.0f s",
                     (double)(p->total - p->done) / r);
    } else {
        snprintf(line, sizeof line, "%s: %llu %s, %s%s/s", p->label, (unsigned long long)p->done,
                 p->unit, rate, p->unit);
    }
    emit(p, line);
}

void cuzk_progress_update(cuzk_progress *p, uint64_t done)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    if (done > p->done)
        p->done = done;
    double now = cuzk_now();
    if (now - p->last >= p->interval) {
        p->last = now;
        report(p, now);
    }
    pthread_mutex_unlock(&p->lock);
}

void cuzk_progress_set_total(cuzk_progress *p, uint64_t total)
{
    pthread_mutex_lock(&p->lock);
    p->total = total;
    pthread_mutex_unlock(&p->lock);
}

void cuzk_progress_set_interval(cuzk_progress *p, double seconds)
{
    pthread_mutex_lock(&p->lock);
    p->interval = seconds;
    pthread_mutex_unlock(&p->lock);
}

void cuzk_progress_watch(cuzk_progress *p, const volatile sig_atomic_t *stop)
{
    pthread_mutex_lock(&p->lock);
    p->stop = stop;
    pthread_mutex_unlock(&p->lock);
}

int cuzk_progress_callback(void *ctx, uint64_t done, uint64_t total)
{
    cuzk_progress *p = ctx;
    pthread_mutex_lock(&p->lock);
    p->total = total;
    const volatile sig_atomic_t *stop = p->stop;
    pthread_mutex_unlock(&p->lock);
    cuzk_progress_update(p, done);
    return stop && *stop;
}

void cuzk_progress_finish(cuzk_progress *p)
{
    if (!p)
        return;
    if (p->printed) {
        char line[512], rate[32];
        double el = cuzk_now() - p->t0;
        si(rate, sizeof rate, el > 0 ? (double)p->done / el : 0);
        if (p->done >= p->total)
            snprintf(line, sizeof line, "%s: 100%% (%llu %s) in %.1f s, %s%s/s", p->label,
                     (unsigned long long)p->done, p->unit, el, rate, p->unit);
        else
            snprintf(line, sizeof line, "%s: stopped at %.1f%% (%llu/%llu %s) after %.1f s",
                     p->label, 100.0 * (double)p->done / (double)p->total,
                     (unsigned long long)p->done, (unsigned long long)p->total, p->unit, el);
        emit(p, line);
        if (p->mode == CUZK_PROGRESS_TTY) {
            fputc('\n', p->f);
            fflush(p->f);
        }
    }
    pthread_mutex_destroy(&p->lock);
    free(p->label);
    free(p->unit);
    free(p);
}
