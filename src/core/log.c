/* The process logger: a level, a file descriptor, and one formatted write per
 * line so that lines from different threads never interleave. */
#include "cuzk/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int log_fd = 2;
static cuzk_log_level log_level = CUZK_LOG_INFO;
static int log_json;

cuzk_err cuzk_log_open(const char *path)
{
    if (!path) {
        log_fd = 2;
        return CUZK_OK;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return cuzk_fail(CUZK_EIO, "cannot open log %s: %s", path, cuzk_strerror(errno));
    if (log_fd != 2) {
        /* Reopening (log rotation): dup2 swaps the file under the same
         * descriptor atomically, so a concurrent writer never sees a closed
         * one. */
        dup2(fd, log_fd);
        close(fd);
    } else {
        log_fd = fd;
    }
    return CUZK_OK;
}

void cuzk_log_set_json(int json)
{
    log_json = json;
}

void cuzk_log_set_level(cuzk_log_level lvl)
{
    log_level = lvl;
}

void cuzk_log(cuzk_log_level lvl, const char *fmt, ...)
{
    static const char *names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    if (lvl < log_level)
        return;
    char line[2048];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    int n = (int)strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    n += snprintf(line + n, sizeof line - (size_t)n, ".%03ldZ %-5s ", (long)(tv.tv_usec / 1000),
                  names[lvl]);
    va_list ap;
    va_start(ap, fmt);
    int m;
    if (log_json) {
        /* {"ts":"...","level":"INFO","msg":"..."}: the message escaped. */
        char msg[1536];
        vsnprintf(msg, sizeof msg, fmt, ap);
        char ts[40];
        memcpy(ts, line, (size_t)n);
        while (n > 0 && ts[n - 1] == ' ')
            n--;
        ts[n] = 0;
        char *sp = strchr(ts, ' ');
        if (sp)
            *sp = 0;
        n = snprintf(line, sizeof line, "{\"ts\":\"%s\",\"level\":\"%s\",\"msg\":\"", ts,
                     names[lvl]);
        for (const char *p = msg; *p && n < (int)sizeof line - 16; p++) {
            unsigned char ch = (unsigned char)*p;
            if (ch == '"' || ch == '\\')
                n += snprintf(line + n, sizeof line - (size_t)n, "\\%c", ch);
            else if (ch < 0x20)
                n += snprintf(line + n, sizeof line - (size_t)n, "\\u%04x", ch);
            else
                line[n++] = (char)ch;
        }
        m = snprintf(line + n, sizeof line - (size_t)n, "\"}");
    } else {
        /* Control characters (from request ids, circuit ids, file names a
         * client chose) are written as \xNN: one event, one line, and no
         * terminal escapes in an operator's log. */
        char msg[1536];
        vsnprintf(msg, sizeof msg, fmt, ap);
        m = 0;
        for (const char *p = msg; *p && n + m < (int)sizeof line - 8; p++) {
            unsigned char ch = (unsigned char)*p;
            if (ch < 0x20 || ch == 0x7f)
                m += snprintf(line + n + m, sizeof line - (size_t)(n + m), "\\x%02x", ch);
            else
                line[n + m++] = (char)ch;
        }
    }
    va_end(ap);
    if (m < 0)
        m = 0;
    n += m;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(log_fd, line, (size_t)n);
    (void)w;
}
