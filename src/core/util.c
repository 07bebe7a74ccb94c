/* Process utilities that touch the OS: clocks, randomness, files, memory
 * readings, stale temporary files. Everything here reports failures through cuzk_fail(). */
#define _GNU_SOURCE
#include "cuzk/util.h"
#include "cuzk/log.h"
#include "cuzk/threads.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double cuzk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cuzk_deadline_in_ms(uint64_t ms, struct timespec *ts)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += (time_t)(ms / 1000);
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L)
        ts->tv_sec++, ts->tv_nsec -= 1000000000L;
}

void *cuzk_alloc_huge(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < huge) /* a smaller block would waste most of a huge page */
        return malloc(bytes ? bytes : 1);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes))
        return NULL;
    madvise(p, bytes, MADV_HUGEPAGE); /* advice: without huge pages it changes nothing */
    return p;
}

cuzk_err cuzk_random_bytes(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return cuzk_fail(CUZK_EIO, "getrandom: %s", cuzk_strerror(errno));
        }
        p += got;
        n -= (size_t)got;
    }
    return CUZK_OK;
}

cuzk_err cuzk_mapfile_open(cuzk_mapfile *m, const char *path)
{
    m->data = NULL;
    m->size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cuzk_fail(CUZK_EIO, "cannot open %s: %s", path, cuzk_strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cuzk_fail(CUZK_EIO, "cannot stat %s: %s", path, cuzk_strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_fail(CUZK_EIO, "%s is not a regular file", path);
    }
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return cuzk_fail(CUZK_EIO, "cannot mmap %s: %s", path, cuzk_strerror(e));
        }
        m->data = p;
        m->size = (size_t)st.st_size;
    }
    close(fd);
    return CUZK_OK;
}

void cuzk_mapfile_close(cuzk_mapfile *m)
{
    if (m->data)
        munmap((void *)m->data, m->size);
    m->data = NULL;
    m->size = 0;
}

/* Checksum: the input is cut into 1 MiB blocks; each block is hashed with a
 * 4-lane multiply-xorshift over 64-bit words, and the block hashes are folded
 * in order. Blocks are independent, so threads can hash them in any order. */
#define CK_BLOCK ((size_t)1 << 20)
static const uint64_t CK_P1 = 0x9E3779B185EBCA87ULL, CK_P2 = 0xC2B2AE3D27D4EB4FULL;

static uint64_t ck_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= CK_P2;
    h ^= h >> 29;
    h *= CK_P1;
    h ^= h >> 32;
    return h;
}

static uint64_t ck_block(const uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t l[4] = {seed ^ CK_P1, seed ^ CK_P2, seed + CK_P1, seed - CK_P2};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * k, 8);
            l[k] = (l[k] ^ (w * CK_P2)) * CK_P1;
            l[k] = (l[k] << 31) | (l[k] >> 33);
        }
    }
    uint64_t h = l[0] ^ ck_mix(l[1]) ^ ck_mix(l[2] + 1) ^ ck_mix(l[3] + 2);
    for (; i < n; i++)
        h = (h ^ p[i]) * CK_P1;
    return ck_mix(h ^ n);
}

typedef struct {
    const uint8_t *p;
    size_t n;
    uint64_t *out;
} ck_ctx;

static void ck_range(void *vctx, size_t b, size_t e, unsigned w)
{
    (void)w;
    ck_ctx *c = vctx;
    for (size_t i = b; i < e; i++) {
        size_t off = i * CK_BLOCK;
        size_t len = c->n - off < CK_BLOCK ? c->n - off : CK_BLOCK;
        c->out[i] = ck_block(c->p + off, len, i);
    }
}

uint64_t cuzk_checksum64(const void *data, size_t n)
{
    size_t nb = (n + CK_BLOCK - 1) / CK_BLOCK;
    if (nb <= 1)
        return ck_block(data, n, 0) ^ ck_mix(n);
    uint64_t *hs = malloc(nb * sizeof *hs);
    uint64_t h = ck_mix(n);
    if (!hs) {
        for (size_t i = 0; i < nb; i++) {
            size_t off = i * CK_BLOCK, len = n - off < CK_BLOCK ? n - off : CK_BLOCK;
            h = ck_mix(h ^ ck_block((const uint8_t *)data + off, len, i));
        }
        return h;
    }
    ck_ctx c = {data, n, hs};
    cuzk_parallel_for(nb, 1, ck_range, &c);
    for (size_t i = 0; i < nb; i++)
        h = ck_mix(h ^ hs[i]);
    free(hs);
    return h;
}

size_t cuzk_peak_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %zu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

cuzk_err cuzk_read_file(const char *path, uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_fail(CUZK_EIO, "cannot open %s: %s", path, cuzk_strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf)
        return cuzk_fail(CUZK_ENOMEM, "reading %s: out of memory", path);
    if (bad) {
        free(buf);
        return cuzk_fail(CUZK_EIO, "reading %s failed", path);
    }
    buf[n] = 0; /* the loop ends with n < cap */
    *data = buf;
    *size = n;
    return CUZK_OK;
}

cuzk_err cuzk_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return cuzk_fail(CUZK_EIO, "cannot create %s: %s", path, cuzk_strerror(errno));
    size_t put = size ? fwrite(data, 1, size, f) : 0;
    int e1 = put != size, e2 = fclose(f) != 0;
    if (e1 || e2)
        return cuzk_fail(CUZK_EIO, "writing %s failed: %s", path, cuzk_strerror(errno));
    return CUZK_OK;
}

/* The pid of a temporary file's name ("x.params.tmp-123", "x.pce.tmp.123"),
 * 0 for any other name. */
static long tmp_pid(const char *name)
{
    const char *t = NULL;
    for (const char *p = strstr(name, ".tmp"); p; p = strstr(p + 1, ".tmp"))
        t = p; /* the last ".tmp" */
    if (!t || (t[4] != '-' && t[4] != '.') || t[5] < '1' || t[5] > '9')
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(t + 5, &end, 10);
    return *end || errno || pid <= 0 || pid > INT_MAX ? 0 : pid;
}

cuzk_err cuzk_tmp_clean_stale(const char *dir, size_t *removed)
{
    size_t n = 0;
    if (removed)
        *removed = 0;
    DIR *d = opendir(dir);
    if (!d)
        return cuzk_fail(CUZK_EIO, "cannot read the folder %s: %s", dir, cuzk_strerror(errno));
    cuzk_err rc = CUZK_OK;
    struct dirent *de;
    while ((de = readdir(d))) {
        long pid = tmp_pid(de->d_name);
        if (!pid || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* not ours to judge, or its writer lives (EPERM: alive too) */
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path)
            continue;
        if (unlink(path) != 0) {
            rc = cuzk_fail(CUZK_EIO, "cannot remove the stale temporary file %s: %s", path,
                           cuzk_strerror(errno));
            continue;
        }
        CUZK_INFO("removed stale temporary file path=%s pid=%ld (no such process)", path, pid);
        n++;
    }
    closedir(d);
    if (removed)
        *removed = n;
    return rc;
}

cuzk_err cuzk_make_dirs(const char *dir)
{
    char path[4096];
    struct stat st;
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return cuzk_fail(CUZK_EINVAL, "folder name too long: %s", dir);
    for (char *c = path + 1;; c++) {
        int end = !*c;
        if (*c != '/' && !end)
            continue;
        *c = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return cuzk_fail(CUZK_EIO, "cannot create the folder %s: %s", path,
                             cuzk_strerror(errno));
        if (end)
            break;
        *c = '/';
    }
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return cuzk_fail(CUZK_EIO, "%s is not a folder", dir);
    return CUZK_OK;
}
