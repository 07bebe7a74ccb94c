/* Result codes and the per-thread error message.
 *
 * Every fallible cuzk function returns a cuzk_err. On failure it also leaves a
 * human-readable message in a thread-local buffer, retrievable with
 * cuzk_errmsg() until the next failing call on the same thread. Messages name
 * the file, offset, index or value that was wrong, so that an operator can act
 * on them without a debugger. */
#ifndef CUZK_ERR_H
#define CUZK_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUZK_OK = 0,
    CUZK_EINVAL,    /* bad argument or malformed request */
    CUZK_ENOMEM,    /* allocation failed or memory budget exceeded */
    CUZK_EIO,       /* read/write/open/mmap failure */
    CUZK_EFORMAT,   /* file or encoding malformed: truncated, wrong size, bad magic */
    CUZK_ECHECKSUM, /* stored checksum does not match the content */
    CUZK_ECURVE,    /* point not on the curve, not in the subgroup, or at infinity */
    CUZK_EVERIFY,   /* proof did not verify */
    CUZK_EUNSUPPORTED,
    CUZK_EINTERNAL,
    CUZK_ECANCELLED, /* stopped on request (a progress callback returned non-zero) */
} cuzk_err;

/* Name of a code, e.g. "EFORMAT". Never NULL. */
const char *cuzk_err_name(cuzk_err e);

/* strerror(errnum) followed by the errno name, "No such file or directory
 * (ENOENT)", for messages that report a system call's failure. The text
 * lives in a thread-local buffer that is reused after a few calls. */
const char *cuzk_strerror(int errnum);

/* The message of the last failure on this thread ("" if none). */
const char *cuzk_errmsg(void);

/* Record a failure message (printf-style) and return `e`; for use as
 * `return cuzk_fail(CUZK_EFORMAT, "%s: truncated at byte %zu", path, off);` */
cuzk_err cuzk_fail(cuzk_err e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefix the current message with context ("loading x.params: " + old message)
 * and return `e`. */
cuzk_err cuzk_fail_ctx(cuzk_err e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void cuzk_err_clear(void);

#define CUZK_TRY(expr)                                                                             \
    do {                                                                                           \
        cuzk_err cuzk_try_e_ = (expr);                                                             \
        if (cuzk_try_e_ != CUZK_OK)                                                                \
            return cuzk_try_e_;                                                                    \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
