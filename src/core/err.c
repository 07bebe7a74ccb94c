/* Thread-local error messages: the SQLite habit of a result code plus a
 * message that can be read after the fact. */
#define _GNU_SOURCE
#include "cuzk/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ERRMSG_CAP 1024
static _Thread_local char errmsg[ERRMSG_CAP];

const char *cuzk_err_name(cuzk_err e)
{
    switch (e) {
    case CUZK_OK: return "OK";
    case CUZK_EINVAL: return "EINVAL";
    case CUZK_ENOMEM: return "ENOMEM";
    case CUZK_EIO: return "EIO";
    case CUZK_EFORMAT: return "EFORMAT";
    case CUZK_ECHECKSUM: return "ECHECKSUM";
    case CUZK_ECURVE: return "ECURVE";
    case CUZK_EVERIFY: return "EVERIFY";
    case CUZK_EUNSUPPORTED: return "EUNSUPPORTED";
    case CUZK_EINTERNAL: return "EINTERNAL";
    case CUZK_ECANCELLED: return "ECANCELLED";
    }
    return "E?";
}

const char *cuzk_strerror(int errnum)
{
    /* A few buffers in turn, so that two calls can share one printf. */
    static _Thread_local char bufs[4][160];
    static _Thread_local unsigned next;
    char *out = bufs[next++ % 4], text[128];
    const char *t = strerror_r(errnum, text, sizeof text);
    const char *name = strerrorname_np(errnum);
    if (name)
        snprintf(out, sizeof bufs[0], "%s (%s)", t, name);
    else
        snprintf(out, sizeof bufs[0], "%s (errno %d)", t, errnum);
    return out;
}

const char *cuzk_errmsg(void)
{
    return errmsg;
}

void cuzk_err_clear(void)
{
    errmsg[0] = 0;
}

cuzk_err cuzk_fail(cuzk_err e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errmsg, sizeof errmsg, fmt, ap);
    va_end(ap);
    return e;
}

cuzk_err cuzk_fail_ctx(cuzk_err e, const char *fmt, ...)
{
    char old[ERRMSG_CAP];
    memcpy(old, errmsg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(errmsg, sizeof errmsg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof errmsg)
        snprintf(errmsg + n, sizeof errmsg - (size_t)n, "%s", old);
    return e;
}
