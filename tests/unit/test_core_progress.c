/* The progress reporter: its lines in each mode (interval 0 so that every
 * update prints, or one too long to ever pass), the closing line, the
 * CUZK_PROGRESS override and the callback's stop flag. */
#define _GNU_SOURCE
#include "check.h"
#include "cuzk/log.h"
#include "cuzk/progress.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs updates 1..n of total n with the given interval; returns the text. */
static char *run(cuzk_progress_mode mode, double interval, uint64_t n, uint64_t stop_at)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cuzk_progress *p;
    CHECK_OK(cuzk_progress_open(&p, "work", n, "items", f, mode));
    cuzk_progress_set_interval(p, interval);
    for (uint64_t i = 1; i <= stop_at; i++)
        cuzk_progress_update(p, i);
    cuzk_progress_finish(p);
    fclose(f);
    return buf;
}

int main(void)
{
    unsetenv("CUZK_PROGRESS");
    char *s = run(CUZK_PROGRESS_LINES, 0, 4, 4);
    CHECK(strstr(s, "work: 25.0% (1/4 items), ") != NULL);
    CHECK(strstr(s, "items/s, ETA ") != NULL);
    CHECK(strstr(s, "work: 100% (4 items) in ") != NULL);
    CHECK(strchr(s, '\r') == NULL);
    CHECK(s[0] && s[strlen(s) - 1] == '\n');
    free(s);

    /* On a terminal: one line rewritten in place, a newline at the end. */
    s = run(CUZK_PROGRESS_TTY, 0, 4, 4);
    CHECK(s[0] == '\r' && strstr(s, "\rwork: 50.0% (2/4 items)") != NULL);
    CHECK(strchr(s, '\n') == s + strlen(s) - 1);
    free(s);

    /* Short of the total: the closing line says so. */
    s = run(CUZK_PROGRESS_LINES, 0, 4, 2);
    CHECK(strstr(s, "work: stopped at 50.0% (2/4 items) after ") != NULL);
    free(s);

    /* Nothing when off, and nothing (not even a closing line) before the
     * first interval has passed. */
    s = run(CUZK_PROGRESS_OFF, 0, 4, 4);
    CHECK(s[0] == 0);
    free(s);
    s = run(CUZK_PROGRESS_LINES, 1e9, 4, 4);
    CHECK(s[0] == 0);
    free(s);

    /* AUTO: a memory stream is no terminal; CUZK_PROGRESS overrides. */
    FILE *f = tmpfile();
    CHECK(cuzk_progress_resolve(CUZK_PROGRESS_AUTO, f) == CUZK_PROGRESS_LINES);
    setenv("CUZK_PROGRESS", "tty", 1);
    CHECK(cuzk_progress_resolve(CUZK_PROGRESS_AUTO, f) == CUZK_PROGRESS_TTY);
    setenv("CUZK_PROGRESS", "off", 1);
    CHECK(cuzk_progress_resolve(CUZK_PROGRESS_AUTO, f) == CUZK_PROGRESS_OFF);
    CHECK(cuzk_progress_resolve(CUZK_PROGRESS_LOG, f) == CUZK_PROGRESS_LOG);
    unsetenv("CUZK_PROGRESS");
    fclose(f);

    /* LOG: through the logger. */
    char log[512];
    snprintf(log, sizeof log, "%s/progress-%d.log", check_tmpdir(), (int)getpid());
    CHECK_OK(cuzk_log_open(log));
    cuzk_progress *p;
    CHECK_OK(cuzk_progress_open(&p, "preload c1", 0, "bytes", NULL, CUZK_PROGRESS_LOG));
    cuzk_progress_set_interval(p, 0);
    cuzk_progress_set_total(p, 200);
    cuzk_progress_update(p, 100);
    cuzk_progress_finish(p);
    cuzk_log_open(NULL);
    uint8_t *data;
    size_t n;
    CHECK_OK(cuzk_read_file(log, &data, &n));
    char *text = strndup((const char *)data, n);
    CHECK(strstr(text, "INFO  preload c1: 50.0% (100/200 bytes)") != NULL);
    CHECK(strstr(text, "preload c1: stopped at 50.0%") != NULL);
    free(text);
    free(data);
    unlink(log);

    /* The callback: updates total and done, returns the watched flag. */
    char *buf = NULL;
    size_t len = 0;
    f = open_memstream(&buf, &len);
    volatile sig_atomic_t stop = 0;
    CHECK_OK(cuzk_progress_open(&p, "setup", 0, "points", f, CUZK_PROGRESS_LINES));
    cuzk_progress_set_interval(p, 0);
    CHECK(cuzk_progress_callback(p, 10, 40) == 0);
    cuzk_progress_watch(p, &stop);
    CHECK(cuzk_progress_callback(p, 20, 40) == 0);
    stop = 1;
    CHECK(cuzk_progress_callback(p, 30, 40) != 0);
    cuzk_progress_finish(p);
    fclose(f);
    CHECK(strstr(buf, "setup: 25.0% (10/40 points)") != NULL);
    CHECK(strstr(buf, "setup: 75.0% (30/40 points)") != NULL);
    free(buf);
    return check_done("test_core_progress");
}
