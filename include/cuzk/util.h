/* Small process-wide utilities: monotonic time, the OS CSPRNG, read-only file
 * mappings, a fast content checksum, and peak RSS. */
#ifndef CUZK_UTIL_H
#define CUZK_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

/* Monotonic clock in seconds. */
double cuzk_now(void);

struct timespec;
/* The CLOCK_REALTIME instant ms milliseconds from now, for
 * pthread_cond_timedwait. */
void cuzk_deadline_in_ms(uint64_t ms, struct timespec *out);

/* Fill buf with n bytes from the OS CSPRNG (getrandom); blocks until seeded. */
cuzk_err cuzk_random_bytes(void *buf, size_t n);

/* A read-only mapping of a whole file. Owned by the caller; release with
 * cuzk_mapfile_close(). An empty file maps to data == NULL, size == 0. */
typedef struct {
    const uint8_t *data;
    size_t size;
} cuzk_mapfile;

cuzk_err cuzk_mapfile_open(cuzk_mapfile *m, const char *path);
void cuzk_mapfile_close(cuzk_mapfile *m);

/* 64-bit checksum of a byte range (not cryptographic; detects corruption).
 * Multi-threaded for large inputs; the value does not depend on the thread
 * count. cuzk_checksum64(NULL, 0) is defined. */
uint64_t cuzk_checksum64(const void *data, size_t n);

/* Peak resident set size of this process in bytes (VmHWM), 0 if unknown. */
size_t cuzk_peak_rss(void);

/* Memory for a large array about to be written whole (decoded parameter
 * points, a witness): from 2 MiB up it is 2 MiB aligned and the kernel is
 * asked to back it with huge pages, so that writing it first takes one page
 * fault per 2 MiB instead of one per 4 KiB (where transparent huge pages are
 * off or "madvise", those faults, not the decoding, set how fast a
 * parameter file loads). Freed with free(); NULL when out of memory. */
void *cuzk_alloc_huge(size_t bytes);

/* Read a whole file into a malloc'd buffer (caller frees). A NUL follows
 * its size bytes, so a text file can be used as a string. */
cuzk_err cuzk_read_file(const char *path, uint8_t **data, size_t *size);

/* Write a buffer to a file, replacing it. */
cuzk_err cuzk_write_file(const char *path, const void *data, size_t size);

/* mkdir -p: dir and every missing parent (mode 0777 less the umask).
 * EIO naming the folder that cannot be made, or dir when it is not a
 * folder; EINVAL for a name longer than 4095 bytes. */
cuzk_err cuzk_make_dirs(const char *dir);

/* Remove the temporary files of dead processes from `dir`: names ending in
 * ".tmp-<pid>" (setup's parameter and zkey files) or ".tmp.<pid>" (PCE
 * files) whose pid is no live process (kill(pid, 0) fails with ESRCH), as
 * a process killed while writing leaves them. Each removal is logged
 * (CUZK_INFO). Only for folders of this host and pid namespace: another
 * machine's writer would look dead. *removed (may be NULL): how many. EIO
 * when the folder cannot be read or a file not removed (the others still
 * are). */
cuzk_err cuzk_tmp_clean_stale(const char *dir, size_t *removed);

/* "[i]" in decimal, NUL-terminated, for the element paths decoders put in
 * their messages (without printf: they name millions of elements); returns
 * its length. */
static inline size_t cuzk_index_suffix(char out[24], uint64_t i)
{
    char d[20];
    size_t k = 0, o = 0;
    do
        d[k++] = (char)('0' + i % 10);
    while ((i /= 10) != 0);
    out[o++] = '[';
    while (k)
        out[o++] = d[--k];
    out[o++] = ']';
    out[o] = 0;
    return o;
}

/* Little-endian integers in byte buffers (file headers). */
/* Value of a hexadecimal digit, -1 for any other character. */
static inline int cuzk_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static inline void cuzk_put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void cuzk_put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t cuzk_get_le32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static inline uint64_t cuzk_get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

#endif
