/* A minimal test harness: CHECK records a failure with file:line and goes on;
 * CHECK_OK checks a cuzk_err and prints the error message; check_done()
 * prints the closing "N passed, N failed" line and returns the exit code. */
#ifndef CUZK_TEST_CHECK_H
#define CUZK_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/err.h"

static int check_passed, check_failed;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        cuzk_err check_e_ = (expr);                                                                \
        if (check_e_ == CUZK_OK) {                                                                 \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #expr,              \
                    cuzk_err_name(check_e_), cuzk_errmsg());                                       \
        }                                                                                          \
    } while (0)

/* Expect a specific error code and a message containing `needle`. */
#define CHECK_ERR(expr, code, needle)                                                              \
    do {                                                                                           \
        cuzk_err check_e_ = (expr);                                                                \
        if (check_e_ == (code) && strstr(cuzk_errmsg(), (needle))) {                               \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: %s: want %s containing \"%s\", got %s: %s\n", __FILE__,        \
                    __LINE__, #expr, cuzk_err_name(code), (needle), cuzk_err_name(check_e_),       \
                    cuzk_errmsg());                                                                \
        }                                                                                          \
    } while (0)

static inline int check_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

/* A progress callback (progress.h) that records what it is told and asks
 * to stop at its call number stop_at (1 = the first; 0 = never). */
typedef struct {
    int calls, stop_at, backwards; /* backwards: done decreased or total changed */
    unsigned long long first, last, total;
} check_progress;

static inline int check_progress_fn(void *ctx, uint64_t done, uint64_t total)
{
    check_progress *c = ctx;
    if (c->calls++ == 0) {
        c->first = done;
        c->total = total;
    } else if (done < c->last || total != c->total) {
        c->backwards = 1;
    }
    c->last = done;
    return c->calls == c->stop_at;
}

/* A scratch folder for files a test writes: $CUZK_TEST_TMP or /tmp. */
static inline const char *check_tmpdir(void)
{
    const char *d = getenv("CUZK_TEST_TMP");
    if (!d || !*d)
        d = "/tmp";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", d);
    if (system(cmd) != 0)
        return "/tmp";
    return d;
}

#endif
