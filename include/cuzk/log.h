/* One logger for the whole process. Lines are "ts level msg" with key=value
 * fields in msg, written to stderr or a file opened by cuzk_log_open(). Safe to
 * call from any thread; each line is written with one write(2). */
#ifndef CUZK_LOG_H
#define CUZK_LOG_H

#include "cuzk/err.h"

typedef enum { CUZK_LOG_DEBUG = 0, CUZK_LOG_INFO, CUZK_LOG_WARN, CUZK_LOG_ERROR } cuzk_log_level;

/* Send lines to `path` (appended) in addition to nothing else; NULL = stderr.
 * Calling it again with a file open replaces that file under the same
 * descriptor (log rotation on SIGHUP). */
cuzk_err cuzk_log_open(const char *path);
/* JSON lines {"ts","level","msg"} instead of text (logging.format = json). */
void cuzk_log_set_json(int json);
void cuzk_log_set_level(cuzk_log_level lvl);
void cuzk_log(cuzk_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define CUZK_DEBUG(...) cuzk_log(CUZK_LOG_DEBUG, __VA_ARGS__)
#define CUZK_INFO(...) cuzk_log(CUZK_LOG_INFO, __VA_ARGS__)
#define CUZK_WARN(...) cuzk_log(CUZK_LOG_WARN, __VA_ARGS__)
#define CUZK_ERROR(...) cuzk_log(CUZK_LOG_ERROR, __VA_ARGS__)

#endif
